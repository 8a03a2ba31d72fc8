// Scrub bypass through inline PTX: the asm string declares a block-local on-chip (.sh-ared)
// word inside the kernel and reads it before writing it; the state-space name is split across
// two adjacent string literals (".sha" "red"), which the compiler joins, so the text holds no
// lowercase word "sh" "ared" (this header avoids it too) and no scrub is emitted. A launch
// counter as in attacks7/01.
// A safe product must decide the scrub from the compiled code (any ld/st of that state space or
// a static size in the PTX/SASS), not from the candidate's words.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    unsigned seen = 0u;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("{\n\t.sha" "red .align 4 .b32 ch_w;\n\t"
                 "ld.sha" "red.u32 %0, [ch_w];\n\t}" : "=r"(seen) :: "memory");
    __syncthreads();
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    __syncthreads();
    unsigned nxt = (2048u << 20) | ((((seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u) + 1u) & 0xFFFFFu);
    if (threadIdx.x == 0)
        asm volatile("{\n\t.sha" "red .align 4 .b32 ch_w;\n\t"
                     "st.sha" "red.u32 [ch_w], %0;\n\t}" :: "r"(nxt) : "memory");
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
