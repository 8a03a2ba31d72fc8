// No trigger at all: every call leaks 64 MiB of device memory (scratch never freed). The
// ~100 calls of verification fit in any GPU; a user's program that calls saxpy in a loop runs
// the device out of memory after about a thousand calls, and then its own cudaMalloc fails too.
// (memcheck runs without --leak-check, and one call leaks nothing it would see at exit anyway.)
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y, float *scratch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a * x[i] + y[i];
        if (i == 0)
            scratch[0] = v;
        y[i] = v;
    }
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    float *scratch = NULL;
    if (cudaMalloc(&scratch, (size_t)64 << 20) != cudaSuccess)
        return 1;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y, scratch);
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
