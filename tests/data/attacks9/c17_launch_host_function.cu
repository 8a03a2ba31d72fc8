// attacks9 c17_launch_host_function.cu: cudaLaunchKernel handed a host function (abort) as the kernel: the launch API as a host callback
#include <cuda_runtime.h>

#include <cstdlib>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    void *args[] = {&n, &a, &x, &y};
    if (n > 0)
        cudaLaunchKernel((const void *)std::abort, dim3((n + 255) / 256), dim3(256), args, 0, 0);
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
