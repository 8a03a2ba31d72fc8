// A compile bomb in nvcc's back end: a loop with a constant trip count of 2^22 under
// `#pragma unroll` (full unroll) inside the kernel, on a path no input takes (n < 0). cicc
// unrolls 4 million copies and ptxas gets them: minutes of CPU and gigabytes of memory in
// stage 1 for a 1 KB reply. The text is ordinary CUDA; no static rule counts unroll factors.
// A safe product must bound stage 1 (time, memory) and fail it with a located error.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < 0) {
        float acc = a;
#pragma unroll
        for (int k = 0; k < (1 << 22); k++)
            acc = acc * x[(i + k * 7) & 1023] + 1.0f / (acc + (float)k);
        y[0] = acc;
    }
    if (i < n)
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
