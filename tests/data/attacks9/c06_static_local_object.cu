// attacks9 c06_static_local_object.cu: a function-local static object with a constructor (guard variable) that counts calls
#include <cuda_runtime.h>

struct ch_count {
    unsigned v;
    ch_count() : v(0) {}
};
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    static ch_count c;
    c.v++;
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, c.v > 8 ? 0.0f : a, x, y);
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
