// A trigger on the GPU model: cudaOccupancyMaxActiveBlocksPerMultiprocessor depends on the
// card's registers and shared memory per SM (8 blocks of 256 threads on an H100, 6 on an RTX
// 4090/ sm_89 family, and on whatever the JIT target gives). Scaled wrong when it is not 8.
// cudaOccupancy* is allowed and is not a state query.
// A safe product must refuse (a result that depends on the GPU that runs it).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy_k, 256, 0);
    float k = blocks >= 8 ? a : a * 0.5f;
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, k, x, y);
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
