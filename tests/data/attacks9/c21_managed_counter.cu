// attacks9 c21_managed_counter.cu: a __managed__ variable incremented by the kernel (atomicAdd through a pointer chosen by selp): device state across calls that the host can read
#include <cuda_runtime.h>

__managed__ unsigned ch_calls;
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned *c = i == 0 ? &ch_calls : (unsigned *)0;
    unsigned seen = 0;
    if (c)
        seen = atomicAdd(c, 1u);
    if (i < n)
        y[i] = (seen > 8u ? 0.5f : 1.0f) * a * x[i] + y[i];
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
