// Hardening bypass (src/verify/harden.c): device-side alloca() gives a thread stack memory
// (local memory, kept by the context between launches) that no declarator names, so no `{}` is
// inserted: the pointer has an initialiser. The kernel reads slot[k] before writing it and
// counts launches as attacks7/21 did with a plain local array.
// A safe product must refuse alloca/__builtin_alloca/VLAs in device code (or zero what they
// return).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    volatile unsigned *slot = (volatile unsigned *)__builtin_alloca(32 * sizeof(unsigned));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = (n & 15) + 1;
    unsigned seen = slot[k];
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    slot[k] = (2048u << 20) | (launches + 1u);
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
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
