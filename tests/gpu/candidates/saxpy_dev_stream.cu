// Work left running: the kernel goes to a non-blocking stream and the launcher returns at once.
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    /* ~0.1 s of dependent arithmetic (no clock read: the text check refuses clocks): still
     * running when the launcher returns */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float spin = a;
    for (int k = 0; k < (1 << 25); k++)
        spin = spin * 0.9999999f + 1e-7f;
    if (spin < -1.0f) /* never: keeps the loop */
        a = 0.0f;
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
