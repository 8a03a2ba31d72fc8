/* Kernel 0 runs S1 (line 5) S2 (line 7) S3 (line 8) S4 (line 10) S5 (line 11) S6 (line 14).
 * c0 -> blocks (x): no dependence is carried by this dimension of the schedule (checked
 *   with isl), so its values (the rows) run on different blocks, grid-stride; the plan's
 *   warp per row, printed a block per row for rows of thousands of elements.
 * c1 (each loop over a row) -> the block's threads: thread t takes every blockDim.x-th
 *   iteration from the t-th, so a warp reads consecutive elements. Each sum, min or max
 *   into a local scalar is combined over the block (warp shuffles, then shared memory)
 *   and given to every thread; the loops after it read the row again, mostly from L2.
 * Statements outside those loops run on every thread (each keeps its copy of the scalars),
 *   and thread 0 alone writes memory; the block synchronises after each loop over the row
 *   (what one thread wrote, another may read next).
 * Rows of at most 16 x blockDim.x elements stay in registers: thread t owns elements
 *   ch_k * blockDim.x + t (ch_k < 16) in every loop over the row, unrolled, and keeps its
 *   values of x and y (loaded at the first read, what the loops write stored
 *   once at the row's end): one pass over memory a row. Longer rows take the path above.
 */
__global__ void __launch_bounds__(256) softmax_k0(int m, int n, const float *__restrict__ x, float *__restrict__ y)
{
    /* a block per value of the mapped dimension: this block's first value and the step
     * between its values (grid-stride), and this thread's index in the block */
    const long long ch_g0 = blockIdx.x;
    const long long ch_n0 = gridDim.x;
    const int ch_lane = threadIdx.x;
    float mx; /* private to each iteration that uses it */
    float s; /* private to each iteration that uses it */
    for (long long c0 = ch_g0; (c0 < m); c0 += ch_n0) { /* a block per value (grid-stride) */
        /* the row fits the registers: every loop over it starts at 0 or later and ends before
         * 16 x blockDim.x (the same for the block's threads) */
        int ch_fits;
        {
            const long long c1 = (long long)16 * blockDim.x;
            ch_fits = !(c1 < n) && !(c1 < n) && !(c1 < n);
        }
        if (ch_fits) { /* the row in registers */
            float ch_reg_x[16] = {0};
            unsigned ch_have_x = 0u;
            float ch_reg_y[16] = {0};
            unsigned ch_have_y = 0u, ch_dirty_y = 0u;
            { /* S1 (t.c:5): float mx = x[r * n]; */
                const int r = (int)c0;
                mx = x[r * n];
            }
            /* max: each thread may start from mx's value */
            #pragma unroll
            for (int ch_k = 0; ch_k < 16; ch_k++) { /* this thread's elements of the row */
                const long long c1 = (long long)ch_k * blockDim.x + ch_lane;
                if (c1 >= 1 && (c1 < n)) {
                    { /* S2 (t.c:7): mx = fmaxf(mx, x[r * n + j]); */
                        const int r = (int)c0;
                        const int j = (int)c1;
                        mx = fmaxf(mx, ch_row_get(ch_reg_x, ch_have_x, ch_k, &x[r * n + j]));
                    }
                }
            }
            /* the block's max of mx: each warp's with shuffles, then the warps' through shared
             * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
             * warp 0's lanes may still read the others when lane 0 writes it) */
            {
                __shared__ float ch_part[33];
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's maxs of mx */
                    mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, ch_o));
                if ((threadIdx.x & 31) == 0)
                    ch_part[threadIdx.x >> 5] = mx;
                __syncthreads();
                if (threadIdx.x < 32) {
                    /* lanes past the warps' count repeat warp 0's max, which changes nothing */
                    mx = ch_part[threadIdx.x < (blockDim.x >> 5) ? threadIdx.x : 0];
                    for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' maxs of mx */
                        mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, ch_o));
                    if (threadIdx.x == 0)
                        ch_part[32] = mx;
                }
                __syncthreads();
                mx = ch_part[32];
            }
            __syncthreads();
            { /* S3 (t.c:8): float s = 0; */
                s = 0;
            }
            if (ch_lane != 0) /* thread 0 keeps the start value */
                s = 0;
            #pragma unroll
            for (int ch_k = 0; ch_k < 16; ch_k++) { /* this thread's elements of the row */
                const long long c1 = (long long)ch_k * blockDim.x + ch_lane;
                if (c1 >= 0 && (c1 < n)) {
                    { /* S4 (t.c:10): y[r * n + j] = expf(x[r * n + j] - mx); */
                        const int r = (int)c0;
                        const int j = (int)c1;
                        ch_row_put(ch_reg_y, ch_have_y, ch_dirty_y, ch_k, &y[r * n + j], 0) = expf(ch_row_get(ch_reg_x, ch_have_x, ch_k, &x[r * n + j]) - mx);
                    }
                    { /* S5 (t.c:11): s += y[r * n + j]; */
                        const int r = (int)c0;
                        const int j = (int)c1;
                        s += ch_row_get(ch_reg_y, ch_have_y, ch_k, &y[r * n + j]);
                    }
                }
            }
            /* the block's sum of s: each warp's with shuffles, then the warps' through shared
             * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
             * warp 0's lanes may still read the others when lane 0 writes it) */
            {
                __shared__ float ch_part[33];
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's sums of s */
                    s += __shfl_down_sync(0xffffffffu, s, ch_o);
                if ((threadIdx.x & 31) == 0)
                    ch_part[threadIdx.x >> 5] = s;
                __syncthreads();
                if (threadIdx.x < 32) {
                    s = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (float)0;
                    for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' sums of s */
                        s += __shfl_down_sync(0xffffffffu, s, ch_o);
                    if (threadIdx.x == 0)
                        ch_part[32] = s;
                }
                __syncthreads();
                s = ch_part[32];
            }
            __syncthreads();
            #pragma unroll
            for (int ch_k = 0; ch_k < 16; ch_k++) { /* this thread's elements of the row */
                const long long c1 = (long long)ch_k * blockDim.x + ch_lane;
                if (c1 >= 0 && (c1 < n)) {
                    { /* S6 (t.c:14): y[r * n + j] /= s; */
                        const int r = (int)c0;
                        const int j = (int)c1;
                        ch_row_put(ch_reg_y, ch_have_y, ch_dirty_y, ch_k, &y[r * n + j], 1) /= s;
                    }
                }
            }
            __syncthreads();
            #pragma unroll
            for (int ch_k = 0; ch_k < 16; ch_k++) /* y's written elements */
                if (ch_dirty_y >> ch_k & 1u) {
                    const long long c1 = (long long)ch_k * blockDim.x + ch_lane;
                    y[((int)c0) * n + ((int)c1)] = ch_reg_y[ch_k];
                }
        } else { /* a longer row: the loops read it from memory */
            { /* S1 (t.c:5): float mx = x[r * n]; */
                const int r = (int)c0;
                mx = x[r * n];
            }
            /* max: each thread may start from mx's value */
            for (long long c1 = 1 + ch_lane; (c1 < n); c1 += blockDim.x) { /* a reduction spread over the block's threads */
                { /* S2 (t.c:7): mx = fmaxf(mx, x[r * n + j]); */
                    const int r = (int)c0;
                    const int j = (int)c1;
                    mx = fmaxf(mx, x[r * n + j]);
                }
            }
            /* the block's max of mx: each warp's with shuffles, then the warps' through shared
             * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
             * warp 0's lanes may still read the others when lane 0 writes it) */
            {
                __shared__ float ch_part[33];
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's maxs of mx */
                    mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, ch_o));
                if ((threadIdx.x & 31) == 0)
                    ch_part[threadIdx.x >> 5] = mx;
                __syncthreads();
                if (threadIdx.x < 32) {
                    /* lanes past the warps' count repeat warp 0's max, which changes nothing */
                    mx = ch_part[threadIdx.x < (blockDim.x >> 5) ? threadIdx.x : 0];
                    for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' maxs of mx */
                        mx = fmaxf(mx, __shfl_down_sync(0xffffffffu, mx, ch_o));
                    if (threadIdx.x == 0)
                        ch_part[32] = mx;
                }
                __syncthreads();
                mx = ch_part[32];
            }
            __syncthreads();
            { /* S3 (t.c:8): float s = 0; */
                s = 0;
            }
            if (ch_lane != 0) /* thread 0 keeps the start value */
                s = 0;
            for (long long c1 = 0 + ch_lane; (c1 < n); c1 += blockDim.x) { /* a reduction spread over the block's threads */
                { /* S4 (t.c:10): y[r * n + j] = expf(x[r * n + j] - mx); */
                    const int r = (int)c0;
                    const int j = (int)c1;
                    y[r * n + j] = expf(x[r * n + j] - mx);
                }
                { /* S5 (t.c:11): s += y[r * n + j]; */
                    const int r = (int)c0;
                    const int j = (int)c1;
                    s += y[r * n + j];
                }
            }
            /* the block's sum of s: each warp's with shuffles, then the warps' through shared
             * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
             * warp 0's lanes may still read the others when lane 0 writes it) */
            {
                __shared__ float ch_part[33];
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's sums of s */
                    s += __shfl_down_sync(0xffffffffu, s, ch_o);
                if ((threadIdx.x & 31) == 0)
                    ch_part[threadIdx.x >> 5] = s;
                __syncthreads();
                if (threadIdx.x < 32) {
                    s = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (float)0;
                    for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' sums of s */
                        s += __shfl_down_sync(0xffffffffu, s, ch_o);
                    if (threadIdx.x == 0)
                        ch_part[32] = s;
                }
                __syncthreads();
                s = ch_part[32];
            }
            __syncthreads();
            for (long long c1 = 0 + ch_lane; (c1 < n); c1 += blockDim.x) { /* spread over the block's threads */
                { /* S6 (t.c:14): y[r * n + j] /= s; */
                    const int r = (int)c0;
                    const int j = (int)c1;
                    y[r * n + j] /= s;
                }
            }
            __syncthreads();
        }
    }
}

/* The device launcher: the pointers are device pointers holding the inputs. The kernels run in
 * the new order; loops that carry a dependence run here and launch the kernels inside
 * them. Returns 0, or the CUDA error that ended the call early; the caller synchronizes. */
extern "C" int softmax_device_launcher(int m, int n, const float *x, float *y)
{

    { /* kernel 0 */
        const long long ch_e0 = m; /* values of c0 */
        if (ch_e0 > 0) {
            const dim3 ch_block(256), ch_grid(softmax_blocks(ch_e0, 1, 2147483647LL));
            softmax_k0<<<ch_grid, ch_block>>>(m, n, x, y);
            if (cudaPeekAtLastError() != cudaSuccess)
                return (int)cudaGetLastError();
        }
    }
    return (int)cudaGetLastError();
}
