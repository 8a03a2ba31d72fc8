// A date bomb through <chrono> (an allowed C++ standard header): system_clock::now() is a
// static member function with no arguments, "pure" to host_flow.c, so the date decides a
// launch argument. After 2027-01-01 (Unix 1798761600) the launcher passes a = 0.
// A safe product must refuse reading the wall clock in a launcher.
#include <cuda_runtime.h>
#include <chrono>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    long long now = (long long)std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::system_clock::now().time_since_epoch()).count();
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, now > 1798761600LL ? 0.0f : a, x, y);
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
