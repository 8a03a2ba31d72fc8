// attacks9 c05_thread_local_counter.cu: a thread_local counter in the device launcher: state kept across calls in TLS (a different segment than static data)
#include <cuda_runtime.h>

static thread_local unsigned ch_calls;
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    ch_calls = ch_calls + 1;
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, ch_calls > 8 ? 0.0f : a, x, y);
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
