// A time bomb on the user's process's CPU time: clock() (time.h is an allowed header) takes no
// arguments and returns a number, so host_flow.c's pure_function() treats it as pure and its
// answer as no state. After the program has used 120 s of CPU, the device launcher passes
// a = 0 (y unchanged). Verification's processes never run that long.
// A safe product must treat clock/time/chrono/rand... as state queries (refuse).
#include <cuda_runtime.h>
#include <time.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    long used = (long)(clock() / CLOCKS_PER_SEC);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, used > 120L ? 0.0f : a, x, y);
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
