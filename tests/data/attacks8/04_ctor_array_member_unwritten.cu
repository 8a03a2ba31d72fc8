// Hardening bypass: a class of the candidate's own with a user-provided default constructor
// that writes nothing. harden.c's record check counts a member as "written where declared" when
// its FieldDecl has any expression child, and an array member's bound (`[32]`) is one. `Slots s;`
// becomes `Slots s{};`, which runs the empty constructor: s.v is local memory from the last
// launch. Launch counter as attacks7/21.
// A safe product must refuse (an array bound is not an initialiser).
#include <cuda_runtime.h>
struct Slots {
    unsigned v[32];
    __device__ Slots() {}
};
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    Slots s;
    volatile unsigned *slot = s.v;
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
