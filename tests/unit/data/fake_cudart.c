/* A fake CUDA runtime for running scaffold programs on a machine without a GPU (the tests of
 * test_verify_speed.c): linked instead of libcudart (nvcc -cudart=none), it gives "device"
 * memory from the host heap, copies with memcpy, and CUDA events that read the wall clock, so
 * run and time modes go through with a candidate whose launcher computes on the host. It leaves
 * traces in the working directory (the sandbox's run directory) for the tests to count:
 * - "cuda-processes": one line per process started (a GPU process pays a CUDA context);
 * - "cuda-context": one line per cudaFree(0), the scaffold's device set-up.
 * Kernels run as host emulations found by their mangled name (fake_kernels below): only the
 * tests' own kernels; any other launch is an error. Only what the scaffold and those tests'
 * candidates call is here. */
#include <cuda_runtime_api.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void trace(const char *file)
{
    FILE *f = fopen(file, "a");
    if (f) {
        fputs("1\n", f);
        fclose(f);
    }
}

__attribute__((constructor)) static void fake_process_start(void)
{
    trace("cuda-processes");
}

/* nvcc's module registration, emitted into every object it compiles */
void **__cudaRegisterFatBinary(void *fat)
{
    static void *handle;
    (void)fat;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
    (void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
    (void)handle;
}

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 0;
}

static cudaError_t last_error;

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

/* ---- kernels: host emulations, one thread index at a time ---- */

/* __global__ void saxpy2(int n, float a, const float *x, float *y): y = 2 a x + y */
static void saxpy2(void **args, unsigned long long i)
{
    int n = *(int *)args[0];
    float a = *(float *)args[1];
    const float *x = *(const float **)args[2];
    float *y = *(float **)args[3];
    if (i < (unsigned long long)n)
        y[i] = 2 * a * x[i] + y[i];
}

static const struct fake_kernel {
    const char *name; /* mangled */
    void (*run)(void **args, unsigned long long thread);
} fake_kernels[] = {{"_Z6saxpy2ifPKfPf", saxpy2}};

/* the kernels the program registered: host stub -> emulation (NULL: none) */
static struct fake_registered {
    const void *stub;
    const struct fake_kernel *kernel;
} registered[64];
static int n_registered;

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *block, dim3 *grid, int *warp_size)
{
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)block;
    (void)grid, (void)warp_size;
    if (n_registered == 64)
        return;
    registered[n_registered].stub = host_fun;
    registered[n_registered].kernel = NULL;
    for (size_t k = 0; k < sizeof fake_kernels / sizeof *fake_kernels; k++)
        if (strcmp(fake_kernels[k].name, device_name) == 0)
            registered[n_registered].kernel = &fake_kernels[k];
    n_registered++;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *stub)
{
    for (int i = 0; i < n_registered; i++)
        if (registered[i].stub == stub) {
            *kernel = (cudaKernel_t)(void *)&registered[i];
            return cudaSuccess;
        }
    *kernel = NULL;
    return cudaErrorInvalidDeviceFunction;
}

static dim3 pushed_grid, pushed_block;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream)
{
    (void)shared, (void)stream;
    pushed_grid = grid;
    pushed_block = block;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    *grid = pushed_grid;
    *block = pushed_block;
    *shared = 0;
    *(cudaStream_t *)stream = NULL;
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared, cudaStream_t stream)
{
    (void)shared, (void)stream;
    /* the handle __cudaGetKernel gave: an entry of registered */
    const struct fake_registered *r = (const struct fake_registered *)(void *)kernel;
    const struct fake_kernel *k = r ? r->kernel : NULL;
    if (!k)
        return last_error = cudaErrorInvalidDeviceFunction;
    unsigned long long threads =
        (unsigned long long)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    for (unsigned long long t = 0; t < threads; t++)
        k->run(args, t);
    return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t error)
{
    return error == cudaSuccess ? "no error" : "fake error";
}

cudaError_t cudaDeviceSynchronize(void)
{
    return cudaSuccess;
}

/* "device" memory in use, for cudaMemGetInfo (the scaffold's leak check) */
static size_t fake_live_bytes;
#define FAKE_DEVICE_BYTES ((size_t)80 << 30)

cudaError_t cudaMalloc(void **p, size_t size)
{
    *p = malloc(size ? size : 1);
    if (*p)
        fake_live_bytes += malloc_usable_size(*p);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
    if (!p)
        trace("cuda-context");
    else
        fake_live_bytes -= malloc_usable_size(p);
    free(p);
    return cudaSuccess;
}

/* the other allocators a candidate may name (the hardening's wrappers and the scaffold's
 * counting wrappers call them): the same host memory */
cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t stream)
{
    (void)stream;
    return cudaMalloc(p, size);
}

cudaError_t cudaFreeAsync(void *p, cudaStream_t stream)
{
    (void)stream;
    return p ? cudaFree(p) : cudaSuccess;
}

cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMalloc(p, size);
}

cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
    *pitch = width;
    return cudaMalloc(p, width * height);
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pp, struct cudaExtent extent)
{
    pp->pitch = extent.width;
    pp->xsize = extent.width;
    pp->ysize = extent.height;
    return cudaMalloc(&pp->ptr, extent.width * extent.height * extent.depth);
}

cudaError_t cudaMallocHost(void **p, size_t size)
{
    *p = malloc(size ? size : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMallocHost(p, size);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t count, cudaStream_t stream)
{
    (void)stream;
    memset(p, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = FAKE_DEVICE_BYTES;
    *free_bytes = FAKE_DEVICE_BYTES - fake_live_bytes;
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    (void)kind;
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int value, size_t count)
{
    memset(p, value, count);
    return cudaSuccess;
}

/* an event is the wall-clock millisecond it was recorded at */
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = (cudaEvent_t)calloc(1, sizeof(double));
    return *event ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    struct timespec ts;
    (void)stream;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *(double *)(void *)event = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    (void)event;
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    *ms = (float)(*(double *)(void *)end - *(double *)(void *)start);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    free((void *)event);
    return cudaSuccess;
}

/* The verifier links ch-cc's runtime (libch_runtime.a) with --undefined=ch_rt_call_v1; a test
 * gives it this library in that place. Without ch_rt_usable_v1 the scaffold never calls it and
 * times the candidate's own launcher. */
int ch_rt_call_v1(void)
{
    return -1;
}
