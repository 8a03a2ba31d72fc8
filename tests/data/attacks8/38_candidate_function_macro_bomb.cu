// A macro bomb the expansion counter may not see: one function-like macro that doubles its
// argument, D(x) -> x x, applied 28 times in one nested call D(D(D(...D(1+)...))): 2^28 tokens,
// no object-like chain to count (36 and attacks7 #29 used a chain of #defines). Inside an
// unevaluated sizeof. A safe product must bound the expansion whatever macro shape makes it.
// The candidate form of 37.
#include <cuda_runtime.h>
#define D(x) x x
static_assert(sizeof(int[sizeof(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(D(1+)))))))))))))))))))))))))))) 1)]) > 0, "");
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    __shared__ unsigned s[1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned seen = s[0];
    __syncthreads();
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    __syncthreads();
    if (threadIdx.x == 0)
        s[0] = (2048u << 20) | ((((seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u) + 1u) & 0xFFFFFu);
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
