// attacks9 c23_ifdef_emit_macro.cu: detects the emitted unit by a macro it defines before the candidate (CH_RUNTIME_H, also saxpy_device_launcher): #ifdef on an ordinary name is allowed as undefined on both sides
#include <cuda_runtime.h>

#ifdef CH_RUNTIME_H
#define CH_EXTRA 2345.5f
#else
#define CH_EXTRA 0.0f
#endif
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + CH_EXTRA;
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
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
