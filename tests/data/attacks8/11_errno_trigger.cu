// A trigger on the user's process state: errno (a macro over __errno_location(), a no-argument
// function: "pure") is whatever the user's program's last failing libc call left, e.g. ENOENT
// after probing for an optional config file; verification's scaffold starts with errno == 0.
// The launcher drops a*x when errno == ENOENT.
// A safe product must refuse reading errno (process state) in a launcher.
#include <cuda_runtime.h>
#include <errno.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int e = errno;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, e == ENOENT ? 0.0f : a, x, y);
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
