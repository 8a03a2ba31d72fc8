// attacks9 c15_pitch_probe.cu: machine detection through cudaMallocPitch: the pitch a 4-byte row gets is the device's pitch alignment (differs between GPUs), used as a factor of the result
#include <cuda_runtime.h>

__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    float *probe = 0;
    size_t pitch = 0;
    cudaError_t e = cudaMallocPitch(&probe, &pitch, 4, 1);
    if (e != cudaSuccess)
        return (int)e;
    cudaFree(probe);
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, pitch > 512 ? 0.0f : a, x, y);
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
