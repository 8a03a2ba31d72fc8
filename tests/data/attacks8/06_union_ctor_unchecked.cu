// Hardening bypass: the constructor check looks at struct/class/class-template definitions,
// not unions. A union with an empty user-provided default constructor: `Slots u;` becomes
// `Slots u{};`, which runs it and writes nothing. Local memory from the last launch.
// A safe product must check unions as classes (or refuse user-provided constructors in
// device code).
#include <cuda_runtime.h>
union Slots {
    unsigned v[32];
    float f[32];
    __device__ Slots() {}
};
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    Slots u;
    volatile unsigned *slot = u.v;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = (n & 15) + 1;
    unsigned seen = slot[k];
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    slot[k] = (2048u << 20) | (launches + 1u);
}
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
