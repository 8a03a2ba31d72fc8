/* The fp64 tensor-core tiles' device helpers (tile_mma_pipe.c). cp.async copies global memory
 * into shared memory without going through registers (sm_80 and later): `bytes` of the
 * `size` are read from src and the rest of dst is zero-filled, so a copy outside the block's
 * range (bytes 0) reads nothing and leaves zeros; a thread's copies are grouped by commit and
 * waited for by wait (at most N groups left in flight). ch_dmma is the m8n8k4 multiply-add
 * of the PTX ISA on doubles (a warp-wide instruction): lane l holds a = A[l / 4][l % 4],
 * b = B[l % 4][l / 4] and c0, c1 = C[l / 4][2 * (l % 4)], C[l / 4][2 * (l % 4) + 1]. */
__device__ __forceinline__ void ch_cp_async16(void *dst, const void *src, int bytes)
{
    const unsigned to = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void ch_cp_async8(void *dst, const void *src, int bytes)
{
    const unsigned to = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(to), "l"(src), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void ch_cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void ch_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ch_dmma(double &c0, double &c1, double a, double b)
{
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                 "{%0, %1};\n"
                 : "+d"(c0), "+d"(c1)
                 : "d"(a), "d"(b));
}

