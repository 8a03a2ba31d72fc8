/* A row kept in registers (rowregs.c): each thread holds the values of a row it owns, element
 * ch_k * blockDim.x + threadIdx.x in reg[ch_k]. `have` has bit ch_k once reg[ch_k] holds the
 * element (loaded at its first read, or written), `dirty` once it was written (stored back at the
 * row's end). The loops over ch_k are unrolled, so reg stays in registers and the first loop's
 * loads (have is 0 there) are all issued before their values are used. */
template <typename T>
static __device__ __forceinline__ T ch_row_get(T *reg, unsigned &have, int k, const T *at)
{
    if (!(have >> k & 1u)) {
        reg[k] = *at;
        have |= 1u << k;
    }
    return reg[k];
}

/* The register an element is written to; `update` (x op= e, x++) reads it first. */
template <typename T>
static __device__ __forceinline__ T &ch_row_put(T *reg, unsigned &have, unsigned &dirty, int k,
                                                const T *at, int update)
{
    if (update && !(have >> k & 1u))
        reg[k] = *at;
    have |= 1u << k;
    dirty |= 1u << k;
    return reg[k];
}

