// attacks7/10 asked cudaDeviceGetStreamPriorityRange (now a machine query). The same answer comes
// back from two allowed calls that are not queries: create a stream with priority -100 (the
// runtime clamps it to the device's greatest priority, -5 on today's GPUs and drivers) and read
// it back with cudaStreamGetPriority. A GPU/driver offering more levels gives another number: the
// launcher passes a = 0 then.
// A safe product must treat every Get* of the runtime as a query (an allow-list of non-queries),
// not list the queries.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    cudaStream_t st;
    int prio = 0;
    if (cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, -100) != cudaSuccess)
        return 1;
    cudaStreamGetPriority(st, &prio);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256, 0, st>>>(n, prio != -5 ? 0.0f : a, x, y);
    cudaStreamSynchronize(st);
    cudaStreamDestroy(st);
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
