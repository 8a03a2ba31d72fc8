// Kept state in the contents of a kept device buffer (a static pointer is an allowed
// "resource"): the kernel bumps a counter in it; after 1000 launches it stops computing.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y, int *tally)
{
    __shared__ int late;
    if (threadIdx.x == 0)
        late = atomicAdd(tally, 1) > 1000 * (int)gridDim.x;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !late)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    static int *tally = NULL;
    if (!tally) {
        if (cudaMalloc(&tally, sizeof(int)) != cudaSuccess)
            return 1;
        cudaMemset(tally, 0, sizeof(int));
    }
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, a, x, y, tally);
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
