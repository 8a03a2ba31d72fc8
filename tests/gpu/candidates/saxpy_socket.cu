// Hostile (sandbox catalog): connects to 127.0.0.1:22, then computes correctly.
#include <cuda_runtime.h>
extern "C" int socket(int, int, int);
extern "C" int connect(int, const void *, unsigned);

__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

static void saxpy_gpu(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    unsigned char addr[16] = {2, 0, 0, 22, 127, 0, 0, 1};
    int s = socket(2, 1, 0);
    if (s >= 0)
        connect(s, addr, sizeof addr);
    saxpy_gpu(n, a, x, y);
}
