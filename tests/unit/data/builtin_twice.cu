/* ch-cc translator variant 0: isl scheduler, 1-D blocks of 256 threads, 2-D blocks of 32x8
 *
 * CUDA translation of twice (k.c:3) by the ch-cc translator on isl: the statements' order
 * comes from the isl scheduler, checked against every dependence; 1 kernel,
 * launched by twice_launcher.
 *
 * Plan:
 *   strategy: isl scheduler
 *   kernel 0: 1 parallel dimension on threads: S1
 *     c0..c0: [n] -> [{ S1[i] -> [(i)] }]
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>
#include <mutex>

/* Blocks needed for `count` values at `per_block` each, at most `cap` (the loops are
 * grid-stride, so fewer blocks are still correct). */
static unsigned twice_blocks(long long count, int per_block, long long cap)
{
    long long b = (count + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b < cap ? b : cap);
}

/* Grows a device buffer kept across calls to at least `bytes`; 0 on success. */
static int twice_reserve(void **buf, size_t *have, size_t bytes)
{
    if (bytes <= *have)
        return 0;
    if (*buf) {
        cudaError_t rc = cudaFree(*buf);
        *buf = NULL;
        *have = 0;
        if (rc != cudaSuccess)
            return -1;
    }
    if (cudaMalloc(buf, bytes ? bytes : 1) != cudaSuccess) {
        *buf = NULL;
        return -1;
    }
    *have = bytes;
    return 0;
}

/* Kernel 0 runs S1 (line 6).
 * c0 -> x: no dependence is carried by this dimension of the schedule (checked
 *   with isl), so its values run on different threads, grid-stride.
 * Deeper dimensions run in order inside each thread (the statement blocks bind the C
 * loop counters to them).
 */
__global__ void __launch_bounds__(256) twice_k0(int n, float *x)
{
    const long long ch_g0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long ch_n0 = (long long)gridDim.x * blockDim.x;
    for (long long c0 = ch_g0; (c0 < n); c0 += ch_n0) { /* spread over the threads (grid-stride) */
        { /* S1 (k.c:6): x[i] = 2.0f * x[i]; */
            const int i = (int)c0;
            x[i] = __fmul_rn(2.0f, x[i]);
        }
    }
}

/* The launcher: host-pointer convention. Device buffers are kept across calls (grown when a call
 * needs more) under a mutex. Every buffer is copied in, out buffers too: the C body may
 * leave elements untouched, and those must come back unchanged. The kernels run in the new order;
 * loops that carry a dependence run here and launch the kernels inside them. A CUDA
 * error ends the call early without output. */
extern "C" void twice_launcher(int n, float *x)
{
    static std::mutex ch_lock;
    std::lock_guard<std::mutex> ch_guard(ch_lock);
    static void *ch_d_x = NULL;
    static size_t ch_d_x_bytes = 0;
    const size_t ch_n_x = (size_t)(n) * sizeof(float);
    if (twice_reserve(&ch_d_x, &ch_d_x_bytes, ch_n_x) != 0)
        return;
    if (ch_n_x && cudaMemcpy(ch_d_x, x, ch_n_x, cudaMemcpyHostToDevice) != cudaSuccess)
        return;

    { /* kernel 0 */
        const long long ch_e0 = n; /* values of c0 */
        if (ch_e0 > 0) {
            const dim3 ch_block(256), ch_grid(twice_blocks(ch_e0, 256, 2147483647LL));
            twice_k0<<<ch_grid, ch_block>>>(n, (float *)ch_d_x);
            if (cudaGetLastError() != cudaSuccess)
                return;
        }
    }
    if (cudaDeviceSynchronize() != cudaSuccess)
        return;
    if (ch_n_x && cudaMemcpy(x, ch_d_x, ch_n_x, cudaMemcpyDeviceToHost) != cudaSuccess)
        return;
}
