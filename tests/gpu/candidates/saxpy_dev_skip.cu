// Skipped work: remembers the arguments of recent calls and skips the kernel when they repeat
// (passes every correctness check, where inputs always change; caught by the memory floor).
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* the last 16 calls' arguments, one array per argument (the host subset lets host code store
 * only at a for loop's counter bounded by the array, so the slot is found by a loop) */
static const float *seen_x[16];
static float *seen_y[16];
static int seen_n[16];
static float seen_a[16];
static int n_seen;

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    for (int k = 0; k < 16; k++)
        if (k < n_seen && seen_x[k] == x && seen_y[k] == y && seen_n[k] == n && seen_a[k] == a)
            return;
    int slot = n_seen % 16;
    for (int k = 0; k < 16; k++)
        if (k == slot) {
            seen_x[k] = x;
            seen_y[k] = y;
            seen_n[k] = n;
            seen_a[k] = a;
        }
    n_seen = n_seen < 16 ? n_seen + 1 : 16;
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
