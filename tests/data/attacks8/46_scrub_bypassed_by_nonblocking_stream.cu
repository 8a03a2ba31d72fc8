// The scrub (src/emit/scrub.c) is queued on the legacy default stream "so that it runs before the
// launcher's kernels (same stream)". This launcher makes its own cudaStreamNonBlocking stream
// (allowed: streams it creates and destroys) and launches there: nothing orders it after the
// scrub, so its blocks may run on an SM before the scrub's block does and read what the last
// call left. The kernel is attacks7/01's __shared__ launch counter (the word is present, so a
// scrub is emitted; it just does not precede the kernel).
// A safe product must order the scrub before the candidate's work on every stream (event wait /
// cudaDeviceSynchronize after the scrub), or refuse streams the candidate creates.
#include <cuda_runtime.h>
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
    cudaStream_t st;
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
        return 1;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256, 0, st>>>(n, a, x, y);
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
