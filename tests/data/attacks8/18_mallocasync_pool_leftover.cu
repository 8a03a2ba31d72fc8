// Kept state in the stream-ordered allocator's pool: each call takes a fresh 256-byte scratch
// with cudaMallocAsync and frees it with cudaFreeAsync; the default pool keeps the memory and
// the next call gets the same block back, with what the previous call left. The kernel reads
// word 0 before writing it and counts launches there (no static, nothing kept by the host).
// Whether compute-sanitizer initcheck follows pool memory is the GPU stage's question.
// A safe product must refuse device reads of scratch not written in this call (or zero every
// allocation the launcher makes).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y, unsigned *scratch)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned seen = ((volatile unsigned *)scratch)[0];
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    if (i == 0)
        scratch[0] = (2048u << 20) | (launches + 1u);
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    unsigned *scratch = NULL;
    if (cudaMallocAsync((void **)&scratch, 256, 0) != cudaSuccess)
        return 1;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y, scratch);
    cudaFreeAsync(scratch, 0);
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
