// A trigger on the user's program's error state: when an earlier, unrelated CUDA call of the
// user's program left an error (cudaPeekAtLastError != cudaSuccess, e.g. a bad launch config
// elsewhere), the device launcher skips the kernel and still reports success by clearing the
// error with cudaGetLastError. The verifier's process never has a pending error.
// A safe product must refuse (the launch decided by process state the launcher did not make).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (cudaPeekAtLastError() != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
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
