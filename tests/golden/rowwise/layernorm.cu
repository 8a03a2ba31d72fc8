/* Kernel 0 runs S1 (line 5) S2 (line 7) S3 (line 8) S4 (line 9) S5 (line 11) S6 (line 12) S7 (line 14).
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
 */
__global__ void __launch_bounds__(256) layernorm_k0(int m, int n, const float *__restrict__ x, const float *__restrict__ g, const float *__restrict__ b, float *__restrict__ y)
{
    /* a block per value of the mapped dimension: this block's first value and the step
     * between its values (grid-stride), and this thread's index in the block */
    const long long ch_g0 = blockIdx.x;
    const long long ch_n0 = gridDim.x;
    const int ch_lane = threadIdx.x;
    float mean; /* private to each iteration that uses it */
    float var; /* private to each iteration that uses it */
    float inv; /* private to each iteration that uses it */
    for (long long c0 = ch_g0; (c0 < m); c0 += ch_n0) { /* a block per value (grid-stride) */
        { /* S1 (t.c:5): float mean = 0; */
            mean = 0;
        }
        if (ch_lane != 0) /* thread 0 keeps the start value */
            mean = 0;
        for (long long c1 = 0 + ch_lane; (c1 < n); c1 += blockDim.x) { /* a reduction spread over the block's threads */
            { /* S2 (t.c:7): mean += x[r * n + j]; */
                const int r = (int)c0;
                const int j = (int)c1;
                mean += x[r * n + j];
            }
        }
        /* the block's sum of mean: each warp's with shuffles, then the warps' through shared
         * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
         * warp 0's lanes may still read the others when lane 0 writes it) */
        {
            __shared__ float ch_part[33];
            for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's sums of mean */
                mean += __shfl_down_sync(0xffffffffu, mean, ch_o);
            if ((threadIdx.x & 31) == 0)
                ch_part[threadIdx.x >> 5] = mean;
            __syncthreads();
            if (threadIdx.x < 32) {
                mean = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (float)0;
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' sums of mean */
                    mean += __shfl_down_sync(0xffffffffu, mean, ch_o);
                if (threadIdx.x == 0)
                    ch_part[32] = mean;
            }
            __syncthreads();
            mean = ch_part[32];
        }
        __syncthreads();
        { /* S3 (t.c:8): mean = mean / n; */
            mean = mean / n;
        }
        { /* S4 (t.c:9): float var = 0; */
            var = 0;
        }
        if (ch_lane != 0) /* thread 0 keeps the start value */
            var = 0;
        for (long long c1 = 0 + ch_lane; (c1 < n); c1 += blockDim.x) { /* a reduction spread over the block's threads */
            { /* S5 (t.c:11): var += (x[r * n + j] - mean) * (x[r * n + j] - mean); */
                const int r = (int)c0;
                const int j = (int)c1;
                var += __fmul_rn(x[r * n + j] - mean, x[r * n + j] - mean);
            }
        }
        /* the block's sum of var: each warp's with shuffles, then the warps' through shared
         * memory by warp 0, and the result to every thread (through its own slot, ch_part[32]:
         * warp 0's lanes may still read the others when lane 0 writes it) */
        {
            __shared__ float ch_part[33];
            for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* each warp's sums of var */
                var += __shfl_down_sync(0xffffffffu, var, ch_o);
            if ((threadIdx.x & 31) == 0)
                ch_part[threadIdx.x >> 5] = var;
            __syncthreads();
            if (threadIdx.x < 32) {
                var = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (float)0;
                for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* the warps' sums of var */
                    var += __shfl_down_sync(0xffffffffu, var, ch_o);
                if (threadIdx.x == 0)
                    ch_part[32] = var;
            }
            __syncthreads();
            var = ch_part[32];
        }
        __syncthreads();
        { /* S6 (t.c:12): float inv = 1.0f / sqrtf(var / n + 1e-5f); */
            inv = 1.0f / sqrtf(var / n + 1e-05f);
        }
        for (long long c1 = 0 + ch_lane; (c1 < n); c1 += blockDim.x) { /* spread over the block's threads */
            { /* S7 (t.c:14): y[r * n + j] = (x[r * n + j] - mean) * inv * g[j] + b[j]; */
                const int r = (int)c0;
                const int j = (int)c1;
                y[r * n + j] = __fmul_rn(__fmul_rn(x[r * n + j] - mean, inv), g[j]) + b[j];
            }
        }
        __syncthreads();
    }
}

/* The device launcher: the pointers are device pointers holding the inputs. The kernels run in
 * the new order; loops that carry a dependence run here and launch the kernels inside
 * them. Returns 0, or the CUDA error that ended the call early; the caller synchronizes. */
extern "C" int layernorm_device_launcher(int m, int n, const float *x, const float *g, const float *b, float *y)
{

    { /* kernel 0 */
        const long long ch_e0 = m; /* values of c0 */
        if (ch_e0 > 0) {
            const dim3 ch_block(256), ch_grid(layernorm_blocks(ch_e0, 1, 2147483647LL));
            layernorm_k0<<<ch_grid, ch_block>>>(m, n, x, g, b, y);
            if (cudaPeekAtLastError() != cudaSuccess)
                return (int)cudaGetLastError();
        }
    }
    return (int)cudaGetLastError();
}
