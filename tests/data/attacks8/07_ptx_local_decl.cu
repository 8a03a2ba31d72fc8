// Hardening bypass in inline PTX: a .local array declared inside the asm block (no C++ local
// to harden), loaded before it is stored; the same thread slot's local memory holds what the
// previous launch left. Launch counter as attacks7/21.
// A safe product must refuse .local declarations / ld.local in inline asm (or judge SASS).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    unsigned seen = 0u;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("{\n\t.local .align 4 .b32 ch_l[4];\n\t"
                 "ld.local.u32 %0, [ch_l+4];\n\t}" : "=r"(seen) :: "memory");
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    unsigned nxt = (2048u << 20) | (launches + 1u);
    asm volatile("{\n\t.local .align 4 .b32 ch_l[4];\n\t"
                 "st.local.u32 [ch_l+4], %0;\n\t}" :: "r"(nxt) : "memory");
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
