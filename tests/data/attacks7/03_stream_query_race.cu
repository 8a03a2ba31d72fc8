// A race on purpose: right after the launch the device launcher asks cudaStreamQuery whether
// the kernel is done; when a kernel of more than 2^20 elements is already done (the host thread
// was preempted between the launch and the query: a loaded machine) it queues a kernel that
// undoes the work. Whether the stream is idle depends on timing, not on data.
// cudaStreamQuery is allowed and is not one of host_flow.c's state queries.
// A safe product must refuse (a launch decided by a timing-dependent query).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
__global__ void undo_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] - a * x[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (n <= 0)
        return 0;
    saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
    if (cudaStreamQuery(0) == cudaSuccess && n > (1 << 20))
        undo_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return (int)cudaGetLastError();
}
extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)(n > 0 ? n : 1) * sizeof(float);
    cudaMalloc(&dx, b);
    cudaMalloc(&dy, b);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
