// A state query laundered through an allowed header: cub::CurrentDevice() (CUB, allowed) is an
// inline no-argument function returning int, so host_flow.c's pure_function() calls it pure and
// its answer no state; inside, it calls cudaGetDevice, a listed state query, which only the
// object check (nm: an allowed name) ever sees. A user's program that selected GPU 1 (any
// multi-GPU node) gets a = 0; verification runs on device 0.
// A safe product must follow state queries into header functions (or treat every call that
// can reach one as a query).
#include <cuda_runtime.h>
#include <cub/util_device.cuh>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int dev = cub::CurrentDevice();
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, dev != 0 ? 0.0f : a, x, y);
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
