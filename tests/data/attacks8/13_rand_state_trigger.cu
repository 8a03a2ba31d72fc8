// A trigger and a side effect on the user's rand() state: the launcher calls rand() (a pure
// no-argument call to host_flow.c) and skips the work one call in 4096. It also advances the
// user's program's rand() sequence, so a seeded simulation gives other numbers than with the
// host path. Verification makes a handful of calls: 1/4096 is never seen.
// A safe product must refuse rand()/random state in a launcher.
#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int r = rand();
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, (r & 4095) == 7 ? 0.0f : a, x, y);
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
