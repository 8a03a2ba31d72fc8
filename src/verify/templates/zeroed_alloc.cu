/* ch-cc: the memory this candidate allocates starts zeroed (src/verify/harden.c). An allocator
 * hands back blocks an earlier call freed, with what that call left in them (the stream-ordered
 * pool does so every call): state kept across calls that no variable holds. Each allocation the
 * candidate's code names is renamed to one of these, which allocates as asked and writes zeros
 * over the block before the candidate sees it; a block that cannot be zeroed is freed and the
 * call fails, which sends it to the host path. */
static __inline__ __host__ cudaError_t ch_z_device(cudaError_t e, void **p, size_t n)
{
    if (e != cudaSuccess || !*p || !n)
        return e;
    /* done before the allocation returns: a kernel on any stream then reads zeros */
    e = cudaMemset(*p, 0, n);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) {
        cudaFree(*p);
        *p = 0;
    }
    return e;
}
static __inline__ __host__ cudaError_t ch_z_stream(cudaError_t e, void **p, size_t n,
                                                   cudaStream_t s)
{
    if (e != cudaSuccess || !*p || !n)
        return e;
    /* in the allocation's stream order, as the pool's memory is valid */
    e = cudaMemsetAsync(*p, 0, n, s);
    if (e != cudaSuccess) {
        cudaFreeAsync(*p, s);
        *p = 0;
    }
    return e;
}
static __inline__ __host__ cudaError_t ch_z_host(cudaError_t e, void **p, size_t n)
{
    if (e == cudaSuccess && *p && n)
        __builtin_memset(*p, 0, n);
    return e;
}
template <class T, class... A>
static __inline__ __host__ cudaError_t ch_z_cudaMalloc(T **p, size_t n, A... a)
{
    cudaError_t e = cudaMalloc(p, n, a...);
    return p ? ch_z_device(e, (void **)(void *)p, n) : e;
}
template <class T, class... A>
static __inline__ __host__ cudaError_t ch_z_cudaMallocManaged(T **p, size_t n, A... a)
{
    cudaError_t e = cudaMallocManaged(p, n, a...);
    return p ? ch_z_device(e, (void **)(void *)p, n) : e;
}
template <class T>
static __inline__ __host__ cudaError_t ch_z_cudaMallocPitch(T **p, size_t *pitch, size_t w,
                                                            size_t h)
{
    cudaError_t e = cudaMallocPitch(p, pitch, w, h);
    return p && pitch ? ch_z_device(e, (void **)(void *)p, *pitch * h) : e;
}
static __inline__ __host__ cudaError_t ch_z_cudaMalloc3D(cudaPitchedPtr *pp, cudaExtent x)
{
    cudaError_t e = cudaMalloc3D(pp, x);
    return pp ? ch_z_device(e, &pp->ptr, pp->pitch * x.height * x.depth) : e;
}
template <class T>
static __inline__ __host__ cudaError_t ch_z_cudaMallocAsync(T **p, size_t n, cudaStream_t s)
{
    cudaError_t e = cudaMallocAsync(p, n, s);
    return p ? ch_z_stream(e, (void **)(void *)p, n, s) : e;
}
template <class T>
static __inline__ __host__ cudaError_t ch_z_cudaMallocAsync(T **p, size_t n, cudaMemPool_t pool,
                                                            cudaStream_t s)
{
    cudaError_t e = cudaMallocAsync(p, n, pool, s);
    return p ? ch_z_stream(e, (void **)(void *)p, n, s) : e;
}
template <class T, class... A>
static __inline__ __host__ cudaError_t ch_z_cudaMallocHost(T **p, size_t n, A... a)
{
    cudaError_t e = cudaMallocHost(p, n, a...);
    return p ? ch_z_host(e, (void **)(void *)p, n) : e;
}
template <class T, class... A>
static __inline__ __host__ cudaError_t ch_z_cudaHostAlloc(T **p, size_t n, A... a)
{
    cudaError_t e = cudaHostAlloc(p, n, a...);
    return p ? ch_z_host(e, (void **)(void *)p, n) : e;
}
