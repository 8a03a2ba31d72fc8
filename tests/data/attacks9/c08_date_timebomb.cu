// attacks9 c08_date_timebomb.cu: a time bomb from __DATE__: right when verified in 2026, wrong when the verified source is recompiled (emit, another nvcc or flags) from 2027 on
#include <cuda_runtime.h>

__host__ __device__ constexpr int ch_year()
{
    return (__DATE__[7] - 48) * 1000 + (__DATE__[8] - 48) * 100 + (__DATE__[9] - 48) * 10 +
           (__DATE__[10] - 48);
}
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = (ch_year() > 2026 ? 0.5f : 1.0f) * a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return (int)cudaGetLastError();
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
