// Hostile (sandbox catalog): copies the reference's expected y from /tmp/ch-cc-ref-*/ instead of
// computing it. Hand-declared libc calls dodge the header check; the object check or the
// sandbox (the reference directory hidden, the run as nobody) must stop it.
#include <cuda_runtime.h>
extern "C" void *opendir(const char *);
extern "C" void *fopen(const char *, const char *);
extern "C" unsigned long fread(void *, unsigned long, unsigned long, void *);

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
    void *f = fopen("/tmp/ch-cc-ref-stolen/y.out.bin", "rb");
    if (f && opendir("/tmp") && fread(y, sizeof *y, (unsigned long)n, f) == (unsigned long)n)
        return;
    saxpy_gpu(n, a, x, y);
}
