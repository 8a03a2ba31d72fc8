// Skipped work: remembers the arguments of recent calls and skips the kernel when they repeat
// (passes every correctness check, where inputs always change; caught by the memory floor).
#include <cuda_runtime.h>
__global__ void saxpy_kernel(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* the arguments of the first 16 distinct calls, then of the latest in slot 0, one array per
 * argument (the host subset lets host code store only at a for loop's counter bounded by the
 * array, so the slot is found by a loop; and a number kept across calls may only be compared
 * and set from the call's values, so the free slot is the first whose pointer is null) */
static const float *seen_x[16];
static float *seen_y[16];
static int seen_n[16];
static float seen_a[16];

extern "C" void saxpy_launcher(int n, float a, const float *x, float *y)
{
    for (int k = 0; k < 16; k++)
        if (seen_y[k] && seen_x[k] == x && seen_y[k] == y && seen_n[k] == n && seen_a[k] == a)
            return;
    int slot = 0;
    for (int k = 15; k >= 0; k--)
        if (!seen_y[k])
            slot = k;
    for (int k = 0; k < 16; k++)
        if (k == slot) {
            seen_x[k] = x;
            seen_y[k] = y;
            seen_n[k] = n;
            seen_a[k] = a;
        }
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
