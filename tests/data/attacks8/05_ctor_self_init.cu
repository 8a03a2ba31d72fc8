// Hardening bypass: the default constructor names the member in its initialiser list, but
// initialises it from itself (`c(c)`, a read of the unwritten member; gcc/clang only warn with
// -Wuninitialized). harden.c treats any MemberRef in the list as "written". The member is an
// array's element holder read via a dynamic index so it lives in local memory.
// A safe product must refuse (an initialiser that reads the member it initialises).
#include <cuda_runtime.h>
struct Cell {
    unsigned c;
    __device__ Cell() : c(c) {}
};
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    Cell cells[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = (n & 15) + 1;
    volatile unsigned *p = &cells[k].c;
    unsigned seen = *p;
    unsigned launches = (seen >> 20) == 2048u ? (seen & 0xFFFFFu) : 0u;
    if (i < n)
        y[i] = launches > 64u && launches < 4096u ? y[i] : a * x[i] + y[i];
    *p = (2048u << 20) | (launches + 1u);
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
