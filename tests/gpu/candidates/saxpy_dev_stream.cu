// Work left running: the kernel goes to a non-blocking stream and the launcher returns at once.
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    long long start = clock64();
    while (clock64() - start < 200000000LL) /* ~0.1 s: still running when the launcher returns */
        ;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    static cudaStream_t s;
    if (!s)
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    saxpy_kernel<<<(n + 255) / 256, 256, 0, s>>>(n, a, x, y);
}
