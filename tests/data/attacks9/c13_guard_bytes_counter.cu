// attacks9 c13_guard_bytes_counter.cu: state across calls in the trusted runtime's kept device buffers: the 256 guard bytes past y[n] are never cleared, so y[n] counts calls (in bounds of the runtime's allocation, so memcheck is silent)
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float calls = y[n];
    __syncthreads();
    if (i < n)
        y[i] = (calls > 8.0f ? 0.5f : 1.0f) * a * x[i] + y[i];
    if (i == 0)
        y[n] = calls + 1.0f;
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
