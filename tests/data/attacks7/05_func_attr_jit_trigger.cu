// A trigger on the machine that runs the entry: cudaFuncGetAttributes' binaryVersion is 90 where
// the sm_90 SASS runs (the verifier's H100) and the JIT target's version where the driver
// compiles the embedded compute_90 PTX (a newer GPU, a cache entry verified elsewhere). The
// launcher drops a*x when they differ. cudaFuncGetAttributes is not a state query.
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
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, saxpy_k);
    float k = fa.binaryVersion == fa.ptxVersion ? a : 0.0f;
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
