/* Kernel {{K}}: the prefix sum of {{UPD}} stored by {{STORE}}: {{Y}}[{{I}}] takes
 * {{ACC}} {{WHEN}} adding the term of iteration {{I}}, for {{I}} = lo .. lo + n - 1. A scan
 * in three launches (reduce, then scan): {{NAME}}_k{{K}}_tiles sums each tile of 2048 terms
 * (one block of 256 threads, 8 terms a thread), {{NAME}}_k{{K}}_spine turns the tiles' sums
 * into each tile's starting value (from {{ACC}}'s value before the loop), and
 * {{NAME}}_k{{K}} scans each tile again from its start and stores it. Terms are read
 * coalesced, scanned in shared memory, stored coalesced. */
static __device__ inline {{T}} {{NAME}}_k{{K}}_term({{PARAMS}}, long long ch_lo, long long ch_c)
{
    const {{CT}} {{I}} = ({{CT}})(ch_lo + ch_c);
    return ({{T}})({{TERM}});
}

__global__ void __launch_bounds__(256) {{NAME}}_k{{K}}_tiles({{PARAMS}}, long long ch_lo, long long ch_n, {{T}} *ch_part)
{
    __shared__ {{T}} ch_warp[8];
    const long long ch_base = (long long)blockIdx.x * 2048;
    {{T}} ch_sum = 0;
    for (int ch_j = threadIdx.x; ch_j < 2048; ch_j += 256)
        if (ch_base + ch_j < ch_n)
            ch_sum += {{NAME}}_k{{K}}_term({{ARGS}}, ch_lo, ch_base + ch_j);
    for (int ch_o = 16; ch_o > 0; ch_o /= 2)
        ch_sum += __shfl_down_sync(0xffffffffu, ch_sum, ch_o);
    if ((threadIdx.x & 31) == 0)
        ch_warp[threadIdx.x >> 5] = ch_sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        {{T}} ch_t = 0;
        for (int ch_w = 0; ch_w < 8; ch_w++)
            ch_t += ch_warp[ch_w];
        ch_part[blockIdx.x] = ch_t;
    }
}

/* One block: each of the 1024 threads sums a run of consecutive tiles, the block scans those
 * sums in shared memory, and each thread rewrites its run as exclusive prefixes from the start
 * value. */
__global__ void __launch_bounds__(1024) {{NAME}}_k{{K}}_spine({{T}} *ch_part, long long ch_tiles{{SPINE_PARAMS}})
{
    __shared__ {{T}} ch_run[1024];
    const long long ch_per = (ch_tiles + 1023) / 1024, ch_from = threadIdx.x * ch_per;
    {{T}} ch_t = 0;
    for (long long ch_j = ch_from; ch_j < ch_from + ch_per && ch_j < ch_tiles; ch_j++)
        ch_t += ch_part[ch_j];
    ch_run[threadIdx.x] = ch_t;
    __syncthreads();
    for (int ch_o = 1; ch_o < 1024; ch_o *= 2) {
        {{T}} ch_v = threadIdx.x >= ch_o ? ch_run[threadIdx.x - ch_o] : 0;
        __syncthreads();
        ch_run[threadIdx.x] += ch_v;
        __syncthreads();
    }
    {{T}} ch_at = ({{T}})({{INIT}}) + (threadIdx.x ? ch_run[threadIdx.x - 1] : 0);
    for (long long ch_j = ch_from; ch_j < ch_from + ch_per && ch_j < ch_tiles; ch_j++) {
        {{T}} ch_v = ch_part[ch_j];
        ch_part[ch_j] = ch_at;
        ch_at += ch_v;
    }
}

__global__ void __launch_bounds__(256) {{NAME}}_k{{K}}({{PARAMS}}, long long ch_lo, long long ch_n, const {{T}} *ch_part)
{
    __shared__ {{T}} ch_tile[2048];
    __shared__ {{T}} ch_warp[8];
    const long long ch_base = (long long)blockIdx.x * 2048;
    for (int ch_j = threadIdx.x; ch_j < 2048; ch_j += 256)
        ch_tile[ch_j] = ch_base + ch_j < ch_n ? {{NAME}}_k{{K}}_term({{ARGS}}, ch_lo, ch_base + ch_j) : ({{T}})0;
    __syncthreads();
    /* this thread's 8 consecutive terms, and their sum */
    {{T}} ch_v[8], ch_t = 0;
    for (int ch_q = 0; ch_q < 8; ch_q++) {
        ch_v[ch_q] = ch_tile[threadIdx.x * 8 + ch_q];
        ch_t += ch_v[ch_q];
    }
    /* the sums of the threads before this one: inside the warp by shuffles, then the warps
     * before it */
    {{T}} ch_x = ch_t;
    for (int ch_o = 1; ch_o < 32; ch_o *= 2) {
        {{T}} ch_u = __shfl_up_sync(0xffffffffu, ch_x, ch_o);
        if ((threadIdx.x & 31) >= ch_o)
            ch_x += ch_u;
    }
    if ((threadIdx.x & 31) == 31)
        ch_warp[threadIdx.x >> 5] = ch_x;
    __syncthreads();
    {{T}} ch_at = ch_part[blockIdx.x] + (ch_x - ch_t);
    for (int ch_w = 0; ch_w < (int)(threadIdx.x >> 5); ch_w++)
        ch_at += ch_warp[ch_w];
    for (int ch_q = 0; ch_q < 8; ch_q++) {
{{STEP}}
    }
    __syncthreads();
    for (int ch_j = threadIdx.x; ch_j < 2048; ch_j += 256)
        if (ch_base + ch_j < ch_n)
            {{Y}}[ch_lo + ch_base + ch_j] = ch_tile[ch_j];
}

