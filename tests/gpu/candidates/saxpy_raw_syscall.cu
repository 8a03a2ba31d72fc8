// Hostile (sandbox catalog): no libc call at all: opens the expected outputs with a raw system
// call (no undefined symbol for the allow-list to catch).
#include <cuda_runtime.h>

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
    long fd;
    const char *path = "/tmp/ch-cc-ref-stolen/y.out.bin";
    __asm__ volatile("syscall" : "=a"(fd) : "a"(2L), "D"(path), "S"(0L) : "rcx", "r11", "memory");
    saxpy_gpu(n, a, x, y);
}
