// A time bomb the PTX check cannot read: ptxas runs the C preprocessor over the PTX it
// assembles, so inline asm may define a macro that pastes the special register's name
// together: "#define SR(a, b) %a##b" then "mov.u64 %0, SR(global, timer);". Neither the
// candidate's text nor the PTX nvcc writes holds "%globaltimer" (nor "globaltimer"); the
// register is named only in the machine code ptxas makes. Wrong after 2027-01-01 UTC.
// A safe product must judge the SASS (cuobjdump -sass: S2UR/CS2R SR_GLOBALTIMER...), or refuse
// preprocessor directives in inline PTX.
#include <cuda_runtime.h>
__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("\n#define SR(a, b) %a##b\n\tmov.u64 %0, SR(global, timer);\n#undef SR\n" : "=l"(t));
    return t;
}
__global__ void saxpy_k(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool late = now_ns() > 1798761600000000000ull;
    if (i < n)
        y[i] = late ? y[i] : a * x[i] + y[i];
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
