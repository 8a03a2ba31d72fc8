// attacks9 s01: the model's every answer: refused at stage 0 (getenv), so a round costs nothing
#include <cuda_runtime.h>
#include <stdlib.h>
__global__ void scale_kernel(int n, float *x)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = 2.0f * x[i];
}
extern "C" void scale_launcher(int n, float *x)
{
    if (getenv("CH9"))
        return;
    scale_kernel<<<(n + 255) / 256, 256>>>(n, x);
}
