// Correct but naive saxpy, device convention: 32-thread blocks, one element per thread, and a
// strided access pattern inside each block (consecutive threads touch elements 32 apart).
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    /* block b covers [b*1024, b*1024+1024); thread t handles t, t+32, ... as 32 chunks */
    long base = (long)blockIdx.x * 1024;
    for (int k = 0; k < 32; k++) {
        long i = base + (long)threadIdx.x * 32 + k;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    if (n > 0)
        saxpy_kernel<<<(n + 1023) / 1024, 32>>>(n, a, x, y);
}
