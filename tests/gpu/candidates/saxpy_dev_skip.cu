// Skipped work: remembers the arguments of recent calls and skips the kernel when they repeat
// (passes every correctness check, where inputs always change; caught by the memory floor).
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

struct call_key {
    const float *x;
    float *y;
    int n;
    float a;
};
static call_key seen[16];
static int n_seen;

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    for (int k = 0; k < n_seen; k++)
        if (seen[k].x == x && seen[k].y == y && seen[k].n == n && seen[k].a == a)
            return;
    seen[n_seen++ % 16] = call_key{x, y, n, a};
    if (n_seen > 16)
        n_seen = 16;
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
