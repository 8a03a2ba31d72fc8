// A parse bomb in 300 bytes: clang's (and nvcc's EDG's) builtin __make_integer_seq (behind
// std::make_integer_sequence in <utility>, an allowed header) with N = 2^27 builds a pack of 134
// million template arguments: libclang in stage 0 (ch-cc's own static child and the hardening)
// and then nvcc spend gigabytes and minutes. Used in an unevaluated sizeof.
// A safe product must bound every parse of model text (time and memory) and fail it with a
// located error in seconds; the build and the machine must survive.
#include <cuda_runtime.h>
#include <utility>
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
template <class T, T... I> struct ch_pack { static constexpr unsigned long long n = sizeof...(I); };
static_assert(sizeof(std::make_integer_sequence<unsigned, (1u << 27)>) > 0, "");
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
