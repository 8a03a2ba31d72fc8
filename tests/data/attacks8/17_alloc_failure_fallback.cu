// A trigger on the user's program's device memory use without any query: the device launcher
// asks for a workspace (64 floats per element, freed at once) and, when cudaMalloc fails (a
// user's program holding most of the GPU, or a big n), takes a "fallback" that launches with
// a = 0. A fresh allocation's status is not kept state to host_flow.c (resource calls make
// state only inside a state region), so its answer may decide a launch argument. Verification
// runs on an idle GPU with small n: the allocation never fails.
// A safe product must treat an allocation's status as state (an allocation failure may only
// fail the call to the host path, never choose other work).
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    float *ws = NULL;
    cudaError_t got = cudaMalloc(&ws, (size_t)(n > 0 ? n : 1) * 64u * sizeof(float));
    float use = a;
    if (got != cudaSuccess) {
        cudaGetLastError();
        use = 0.0f;
    } else {
        cudaFree(ws);
    }
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, use, x, y);
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
