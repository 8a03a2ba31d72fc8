// A state query the list misses: cudaMemPoolGetAttribute on the device's default pool tells how
// much the user's program holds through cudaMallocAsync (0 in verification). Not among
// state_queries nor the timing/machine prefixes. More than 256 MiB in use: a = 0.
// A safe product must refuse (or treat all cudaXxxGet*/Query calls as state by default).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    cudaMemPool_t pool;
    unsigned long long used = 0;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, used > (256ull << 20) ? 0.0f : a, x, y);
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
