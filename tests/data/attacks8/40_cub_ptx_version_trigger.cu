// A machine query laundered through CUB: cub::PtxVersion(int &) (allowed header) asks
// cudaFuncGetAttributes on an empty kernel which code the driver picked: 900 where the sm_90 SASS
// runs (the verifier's H100), another number where the embedded PTX is JIT-compiled (a newer GPU,
// a cache entry verified elsewhere). attacks7 #05 made the same query by name and is refused;
// through CUB it is a call of a header function with a local written by reference.
// A safe product must treat header functions that reach machine queries as queries.
#include <cuda_runtime.h>
#include <cub/util_device.cuh>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    int ptx = 0;
    cub::PtxVersion(ptx);
    if (n > 0)
        saxpy_k<<<(n + 255) / 256, 256>>>(n, ptx != 900 ? 0.0f : a, x, y);
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
