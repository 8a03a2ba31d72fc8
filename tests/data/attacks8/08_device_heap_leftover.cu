// Kept state in the device-side malloc heap: each thread 0 mallocs 64 bytes, reads them before
// writing (the heap returns the block the previous launch freed), counts launches there, and
// frees. Nothing kept on the host, no static, no shared; initcheck does not track the device
// heap as it tracks cudaMalloc.
// A safe product must refuse device-side malloc/new (or zero it).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned seen = 0u;
    volatile unsigned *h = (volatile unsigned *)malloc(64);
    if (h)
        seen = h[3];
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    if (h) {
        h[3] = (2048u << 20) | (launches + 1u);
        free((void *)h);
    }
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
