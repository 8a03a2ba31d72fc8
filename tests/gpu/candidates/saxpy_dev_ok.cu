// Correct saxpy, device convention: grid-stride loop over the caller's device buffers.
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *__restrict__ x, float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    int blocks = (n + 255) / 256;
    if (blocks > 132 * 16)
        blocks = 132 * 16;
    if (blocks > 0)
        saxpy_kernel<<<blocks, 256>>>(n, a, x, y);
}
