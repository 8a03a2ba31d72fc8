/* Runtime, the device operations over the CUDA runtime API (rt.h). The only file of the runtime
 * that includes a CUDA header; compiled as C against cuda_runtime_api.h. Copies name no
 * direction (cudaMemcpyDefault, unified addressing): the caller's buffer may be pageable,
 * pinned, managed or even device memory. Streams are non-blocking, so a site's copies do not
 * wait for kernels of other threads on the legacy default stream; the call orders its own steps
 * by waiting on the host. */
#include <cuda_runtime_api.h>

#include "rt.h"

static int probe(void *ctx)
{
    (void)ctx;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return (int)e;
    }
    return count > 0 ? 0 : (int)cudaErrorNoDevice;
}

static int dev_alloc(void *ctx, void **p, size_t bytes)
{
    (void)ctx;
    return (int)cudaMalloc(p, bytes);
}

static void dev_free(void *ctx, void *p)
{
    (void)ctx;
    cudaFree(p);
}

static int pinned_alloc(void *ctx, void **p, size_t bytes)
{
    (void)ctx;
    return (int)cudaHostAlloc(p, bytes, cudaHostAllocPortable);
}

static void pinned_free(void *ctx, void *p)
{
    (void)ctx;
    cudaFreeHost(p);
}

static int is_direct(void *ctx, const void *p)
{
    (void)ctx;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError(); /* pageable memory on old drivers reads as an error */
        return 0;
    }
    return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeDevice ||
           a.type == cudaMemoryTypeManaged;
}

static int stream_create(void *ctx, void **stream)
{
    (void)ctx;
    return (int)cudaStreamCreateWithFlags((cudaStream_t *)stream, cudaStreamNonBlocking);
}

static void stream_destroy(void *ctx, void *stream)
{
    (void)ctx;
    cudaStreamDestroy((cudaStream_t)stream);
}

static int event_create(void *ctx, void **event)
{
    (void)ctx;
    return (int)cudaEventCreateWithFlags((cudaEvent_t *)event, cudaEventDisableTiming);
}

static void event_destroy(void *ctx, void *event)
{
    (void)ctx;
    cudaEventDestroy((cudaEvent_t)event);
}

static int copy(void *ctx, void *dst, const void *src, size_t bytes, int kind, void *stream)
{
    (void)ctx;
    (void)kind;
    return (int)cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream);
}

static int record(void *ctx, void *event, void *stream)
{
    (void)ctx;
    return (int)cudaEventRecord((cudaEvent_t)event,
                                stream ? (cudaStream_t)stream : cudaStreamLegacy);
}

static int wait_event(void *ctx, void *event)
{
    (void)ctx;
    return (int)cudaEventSynchronize((cudaEvent_t)event);
}

static int wait_stream(void *ctx, void *stream)
{
    (void)ctx;
    return (int)cudaStreamSynchronize((cudaStream_t)stream);
}

static int stream_wait(void *ctx, void *stream, void *event)
{
    (void)ctx;
    return (int)cudaStreamWaitEvent(stream ? (cudaStream_t)stream : cudaStreamLegacy,
                                    (cudaEvent_t)event, 0);
}

static int zero(void *ctx, void *dst, size_t bytes)
{
    (void)ctx;
    cudaError_t e = cudaMemsetAsync(dst, 0, bytes, cudaStreamLegacy);
    return (int)(e != cudaSuccess ? e : cudaStreamSynchronize(cudaStreamLegacy));
}

static int last_error(void *ctx, int take)
{
    (void)ctx;
    return (int)(take ? cudaGetLastError() : cudaPeekAtLastError());
}

static int recover(void *ctx)
{
    (void)ctx;
    cudaGetLastError();
    /* a sticky error comes back from every call; anything else is gone after the one above */
    cudaError_t e = cudaDeviceSynchronize();
    cudaGetLastError();
    return (int)e;
}

static const char *error_name(void *ctx, int err)
{
    (void)ctx;
    return cudaGetErrorName((cudaError_t)err);
}

static const ch_rt_ops cuda_ops = {
    .ctx = NULL,
    .probe = probe,
    .dev_alloc = dev_alloc,
    .dev_free = dev_free,
    .pinned_alloc = pinned_alloc,
    .pinned_free = pinned_free,
    .is_direct = is_direct,
    .stream_create = stream_create,
    .stream_destroy = stream_destroy,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .copy = copy,
    .record = record,
    .wait_event = wait_event,
    .wait_stream = wait_stream,
    .stream_wait = stream_wait,
    .zero = zero,
    .last_error = last_error,
    .recover = recover,
    .error_name = error_name,
};

const ch_rt_ops *ch_rt_cuda_ops(void)
{
    return &cuda_ops;
}
