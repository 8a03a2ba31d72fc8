// attacks9 c14_stream_get_device.cu: harness detection through cudaStreamGetDevice (the same answer as cudaGetDevice, a state query, but not on the state-query list): wrong results on any device but 0
#include <cuda_runtime.h>

#include <stdlib.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int *dev = (int *)calloc(1, sizeof(int));
    if (!dev)
        return 2;
    cudaStreamGetDevice(0, dev);
    float f = *dev > 0 ? 0.0f : a;
    free(dev);
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, f, x, y);
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
