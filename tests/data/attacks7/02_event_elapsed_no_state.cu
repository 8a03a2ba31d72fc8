// A time bomb without kept state: the device launcher times its own kernel with events and
// launches a second kernel that undoes a*x when the launch took more than 2 ms (a slow or
// busy GPU, a big n under load). No static, no clock register, no magic constant (2.0f is a
// round threshold); cudaEventElapsedTime is not among host_flow.c's state queries.
// A safe product must refuse (a result that depends on how long the GPU took).
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
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, 0);
    saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
    cudaEventRecord(e1, 0);
    cudaEventSynchronize(e1);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, e0, e1);
    if (ms > 2.0f)
        undo_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
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
