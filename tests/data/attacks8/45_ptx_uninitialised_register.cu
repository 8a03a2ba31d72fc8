// Hardening bypass through a PTX register: the asm block declares a .reg and moves it out
// without writing it. ptxas allocates it a physical register whose content is whatever the
// previous warp on that SM left (registers are not cleared between launches), i.e. another
// kernel's data, possibly another of the user's kernels. Used here as a launch-count marker like
// attacks7/21 (unreliable as a counter, reliable as a leak/nondeterminism source).
// A safe product must refuse inline PTX that reads a register it did not write (or judge SASS).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    unsigned seen = 0u;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("{\n\t.reg .b32 ch_u;\n\tmov.b32 %0, ch_u;\n\t}" : "=r"(seen));
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
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
