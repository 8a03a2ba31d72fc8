// A template-instantiation bomb: T<i, j> instantiates T<i-1, j> and T<i, j-1>, memoised, so
// 2048 x 2048 = 4 million distinct class instantiations, each with a static constexpr member:
// quadratic work with no deep recursion (each chain stays below clang's 1024 depth by stepping
// both indices through a diagonal). libclang (stage 0) and EDG both grow past gigabytes.
// A safe product must bound the parse and fail quickly with a located error.
#include <cuda_runtime.h>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
template <int I, int J> struct ch_g;
template <int I, int J> struct ch_g { static constexpr unsigned long long v = ch_g<I - 1, J>::v + ch_g<I, J - 1>::v; };
template <int J> struct ch_g<0, J> { static constexpr unsigned long long v = 1; };
template <int I> struct ch_g<I, 0> { static constexpr unsigned long long v = 1; };
template <int D> struct ch_walk { static constexpr unsigned long long v = ch_g<D, D>::v + ch_walk<D - 16>::v; };
template <> struct ch_walk<0> { static constexpr unsigned long long v = 0; };
static_assert(ch_walk<2048>::v != 1, "");
extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
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
