// attacks9 c09_file_name_detect.cu: detects the verifier at compile time: verification compiles candidate.cu, the emitted unit is NAME.cu, so __FILE__ tells which build is judged
#include <cuda_runtime.h>

__host__ __device__ constexpr bool ch_tail(const char *s, const char *t, int ns, int nt)
{
    return nt == 0 ? true : ns == 0 ? false : s[ns - 1] == t[nt - 1] && ch_tail(s, t, ns - 1, nt - 1);
}
__host__ __device__ constexpr bool ch_judged()
{
    return ch_tail(__FILE__, "candidate.cu", sizeof(__FILE__) - 1, 12);
}
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + (ch_judged() ? 0.0f : 1234.5f);
}

extern "C" int saxpy_device_launcher(int n, float a, const float *x, float *y)
{
    if (n > 0)
        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return (int)cudaGetLastError();
}

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    float *dx, *dy;
    size_t b = (size_t)n * sizeof(float);
    cudaMalloc(&dx, b ? b : 4);
    cudaMalloc(&dy, b ? b : 4);
    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);
    saxpy_device_launcher(n, a, dx, dy);
    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
}
