// A state query the list misses: the driver API (cuda.h is an allowed header). host_flow.c's
// state_queries name cudaMemGetInfo, and "every query's name starts with cuda"; cuMemGetInfo
// starts with "cu". Free device memory differs between the verifier's process (almost all free)
// and a user's program holding most of the GPU: below 1 GiB free the launcher passes a = 0.
// A safe product must treat the driver API's queries as state (or refuse cu* calls).
#include <cuda_runtime.h>
#include <cuda.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    size_t fr = 0, tot = 0;
    cuMemGetInfo(&fr, &tot);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, fr < ((size_t)1 << 30) ? 0.0f : a, x, y);
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
