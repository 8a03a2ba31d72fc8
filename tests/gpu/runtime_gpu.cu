/* The trusted runtime on a real GPU (run by tests/gpu/runtime_gpu.t, one scenario per process):
 * round trips of sizes around the chunk boundaries from misaligned pointers, pinned and
 * registered user memory, threads calling two entries at once, failures at each step
 * (CH_CC_RT_FAULT, a launcher's error, a sticky illegal address) leaving the caller's data
 * intact, fork children, and the effective bandwidth next to cudaMemcpy from pageable and from
 * pinned memory; map calls (saxpy through ch_rt_call_map_v1) exact and timed next to
 * ch_rt_call_v1 and the host loop, and failing mid-map with the inputs intact.
 *
 * Usage: runtime_gpu roundtrip MAX_MIB | pinned | threads | fault ok|fail | launcherr | pending |
 * sticky | fork | forkfirst | bandwidth | sweep | map [sweep] | mapfault.
 * Exit status 0 when the scenario holds; what went wrong on stderr; bandwidth on stdout. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern "C" {
#include "ch/runtime.h"
#include "rt.h"
}

#define MIB ((size_t)1 << 20)

/* ---- the test's entry: y = x*3 + y + 1 (inout), z = x ^ 0x5A (out), x in ---- */

__global__ void xform(size_t n, const unsigned char *x, unsigned char *y, unsigned char *z)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned char xi = x[i];
        y[i] = (unsigned char)(xi * 3 + y[i] + 1);
        z[i] = xi ^ 0x5A;
    }
}

__global__ void poke(int *p)
{
    *p = 1;
}

enum { RUN = 0, LAUNCH_ERROR = 1, ILLEGAL_ADDRESS = 2 };

struct xyz_ctx {
    size_t n;
    int mode;
};

/* the generated thunk's part: the device launcher on the runtime's device copies */
static int xyz_device(void *const *dev, const void *ctx)
{
    const xyz_ctx *c = (const xyz_ctx *)ctx;
    if (c->mode == LAUNCH_ERROR)
        return (int)cudaErrorInvalidConfiguration;
    if (c->mode == ILLEGAL_ADDRESS) {
        poke<<<1, 1>>>((int *)(size_t)16);
        return (int)cudaGetLastError();
    }
    if (c->n)
        xform<<<1024, 256>>>(c->n, (const unsigned char *)dev[0], (unsigned char *)dev[1],
                             (unsigned char *)dev[2]);
    return (int)cudaGetLastError();
}

struct host {
    unsigned char *xa, *ya, *za; /* allocations */
    unsigned char *x, *y, *z;    /* the buffers, misaligned */
    size_t n;
    unsigned seed;
};

static unsigned char x_at(size_t i, unsigned seed)
{
    return (unsigned char)(i * 7 + seed);
}

static unsigned char y_at(size_t i, unsigned seed)
{
    return (unsigned char)(i * 13 + seed * 3);
}

static int make(host *h, size_t n, int misalign, unsigned seed)
{
    h->n = n;
    h->seed = seed;
    h->xa = (unsigned char *)malloc(n + 64);
    h->ya = (unsigned char *)malloc(n + 64);
    h->za = (unsigned char *)malloc(n + 64);
    if (!h->xa || !h->ya || !h->za)
        return 0;
    h->x = h->xa + misalign;
    h->y = h->ya + misalign;
    h->z = h->za + misalign;
    for (size_t i = 0; i < n; i++) {
        h->x[i] = x_at(i, seed);
        h->y[i] = y_at(i, seed);
        h->z[i] = 0x11;
    }
    return 1;
}

static void drop(host *h)
{
    free(h->xa);
    free(h->ya);
    free(h->za);
}

/* done: the results of one call; else the inputs as they were (z, an out buffer the host path
 * rewrites whole, as it was or already computed). Reports the first wrong byte. */
static int check(const host *h, int done, const char *what)
{
    for (size_t i = 0; i < h->n; i++) {
        unsigned char x = x_at(i, h->seed), y = y_at(i, h->seed);
        unsigned char want_y = done ? (unsigned char)(x * 3 + y + 1) : y, z = x ^ 0x5A;
        if (h->x[i] != x || h->y[i] != want_y || (h->z[i] != z && (done || h->z[i] != 0x11))) {
            fprintf(stderr, "%s: n=%zu: byte %zu wrong (x %u y %u z %u)\n", what, h->n, i, h->x[i],
                    h->y[i], h->z[i]);
            return 0;
        }
    }
    return 1;
}

/* the host path, as the dispatcher would run it */
static void host_path(host *h)
{
    for (size_t i = 0; i < h->n; i++) {
        h->y[i] = (unsigned char)(h->x[i] * 3 + h->y[i] + 1);
        h->z[i] = h->x[i] ^ 0x5A;
    }
}

static int call(ch_rt_site *site, host *h, int mode)
{
    ch_rt_buffer b[3] = {
        {h->x, h->n, CH_RT_IN}, {h->y, h->n, CH_RT_INOUT}, {h->z, h->n, CH_RT_OUT}};
    xyz_ctx c = {h->n, mode};
    return ch_rt_call_v1(site, b, 3, xyz_device, &c);
}

static ch_rt_site site_a = CH_RT_SITE_INIT("xyz_a");
static ch_rt_site site_b = CH_RT_SITE_INIT("xyz_b");

/* one call that must succeed with the right results */
static int good_call(ch_rt_site *site, size_t n, int misalign, unsigned seed, const char *what)
{
    host h;
    if (!make(&h, n, misalign, seed)) {
        fprintf(stderr, "%s: no host memory for %zu bytes\n", what, n);
        return 0;
    }
    int rc = call(site, &h, RUN);
    int ok = rc == 0 && check(&h, 1, what);
    if (rc != 0)
        fprintf(stderr, "%s: n=%zu: %s\n", what, n, ch_rt_strerror_v1(rc));
    drop(&h);
    return ok;
}

static int need_device(void)
{
    if (!ch_rt_usable_v1()) {
        fprintf(stderr, "the runtime finds no usable device\n");
        return 0;
    }
    return 1;
}

/* ---- scenarios ---- */

static int roundtrip(size_t max_mib)
{
    if (!need_device())
        return 1;
    const ch_rt_tuning *t = &ch_rt_global()->tune;
    size_t c = t->chunk, s = t->small, m = t->minchk;
    size_t sizes[] = {0,
                      1,
                      2,
                      3,
                      4095,
                      4096,
                      4097,
                      s - 1,
                      s,
                      s + 1,
                      m - 1,
                      m + 1,
                      c - 1,
                      c,
                      c + 1,
                      2 * c + 13,
                      4 * c - 1,
                      4 * c,
                      4 * c + 1,
                      64 * MIB,
                      64 * MIB + 5,
                      256 * MIB + 3,
                      1024 * MIB};
    int bad = 0, calls = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (sizes[i] > max_mib * MIB)
            continue;
        char what[64];
        snprintf(what, sizeof what, "round trip %zu B", sizes[i]);
        bad += !good_call(&site_a, sizes[i], (int)(i % 4), (unsigned)i, what);
        calls++;
    }
    /* smaller calls after larger ones reuse the buffers */
    bad += !good_call(&site_a, 3 * c + 7, 3, 99, "reused buffers");
    printf("%d calls, %d wrong\n", calls + 1, bad);
    return bad != 0;
}

static int pinned(void)
{
    if (!need_device())
        return 1;
    size_t n = 64 * MIB + 3;
    host h;
    h.n = n;
    h.seed = 5;
    if (cudaHostAlloc((void **)&h.x, n, 0) || cudaHostAlloc((void **)&h.y, n, 0) ||
        cudaHostAlloc((void **)&h.z, n, 0))
        return fprintf(stderr, "cudaHostAlloc failed\n"), 1;
    for (size_t i = 0; i < n; i++) {
        h.x[i] = x_at(i, 5);
        h.y[i] = y_at(i, 5);
        h.z[i] = 0x11;
    }
    int rc = call(&site_a, &h, RUN);
    int ok = rc == 0 && check(&h, 1, "pinned");
    cudaFreeHost(h.x);
    cudaFreeHost(h.y);
    cudaFreeHost(h.z);
    /* registered memory, from an odd offset into it */
    host r;
    if (!make(&r, n, 1, 6))
        return 1;
    cudaHostRegister(r.ya, n + 64, cudaHostRegisterDefault);
    rc = call(&site_a, &r, RUN);
    ok = ok && rc == 0 && check(&r, 1, "registered");
    cudaHostUnregister(r.ya);
    drop(&r);
    return !ok;
}

struct thread_arg {
    unsigned seed;
    int bad;
};

static void *caller(void *p)
{
    thread_arg *a = (thread_arg *)p;
    unsigned r = a->seed;
    for (int k = 0; k < 20; k++) {
        size_t n = (size_t)rand_r(&r) % (48 * MIB);
        char what[64];
        snprintf(what, sizeof what, "thread %u call %d", a->seed, k);
        a->bad += !good_call(k % 2 ? &site_a : &site_b, n, k % 4, a->seed * 100 + k, what);
    }
    return NULL;
}

static int threads(void)
{
    if (!need_device())
        return 1;
    pthread_t t[4];
    thread_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i].seed = (unsigned)i + 1;
        a[i].bad = 0;
        pthread_create(&t[i], NULL, caller, &a[i]);
    }
    int bad = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        bad += a[i].bad;
    }
    printf("4 threads x 20 calls on 2 entries, %d wrong\n", bad);
    return bad != 0;
}

/* CH_CC_RT_FAULT (set by the caller) fails one step: the call reports it, x and y are as they
 * were, the host path computes the result; the next call runs on the GPU. expect_ok: the fault
 * is one the runtime works around (pinned memory: plain copies). */
static int fault(int expect_ok)
{
    if (!need_device())
        return 1;
    host h;
    if (!make(&h, 64 * MIB + 1, 1, 7))
        return 1;
    int rc = call(&site_a, &h, RUN);
    int ok;
    if (expect_ok) {
        ok = rc == 0 && check(&h, 1, "worked around");
    } else {
        ok = rc > 0 && check(&h, 0, "after the fault");
        fprintf(stderr, "status %d: %s\n", rc, ch_rt_strerror_v1(rc));
        host_path(&h);
        ok = ok && check(&h, 1, "host path");
    }
    drop(&h);
    return !(ok && good_call(&site_a, 64 * MIB + 1, 2, 8, "the next call"));
}

static int launcherr(void)
{
    if (!need_device())
        return 1;
    host h;
    if (!make(&h, 5 * MIB, 0, 9))
        return 1;
    int rc = call(&site_a, &h, LAUNCH_ERROR);
    int ok = rc == (int)cudaErrorInvalidConfiguration && check(&h, 0, "launcher error");
    drop(&h);
    return !(ok && good_call(&site_a, 5 * MIB, 1, 10, "the next call"));
}

/* an error of the program's own pending before a call (a failed allocation it has not
 * checked): the call takes the host path without running the launcher and leaves the error
 * for the program; once the program took it, calls run on the device again */
static int pending(void)
{
    if (!need_device() || !good_call(&site_a, 3 * MIB, 0, 20, "before"))
        return 1;
    host h;
    if (!make(&h, 3 * MIB, 0, 21))
        return 1;
    void *p = NULL;
    int ok = cudaMalloc(&p, (size_t)1 << 62) != cudaSuccess;
    int rc = call(&site_a, &h, RUN);
    ok = ok && rc == CH_RT_E_PENDING && check(&h, 0, "pending error");
    ok = ok && cudaGetLastError() == cudaErrorMemoryAllocation;
    fprintf(stderr, "status %d: %s\n", rc, ch_rt_strerror_v1(rc));
    drop(&h);
    return !(ok && good_call(&site_a, 3 * MIB, 1, 22, "after the program took its error"));
}

static int sticky(void)
{
    if (!need_device())
        return 1;
    host h;
    if (!make(&h, 5 * MIB, 0, 11))
        return 1;
    int rc = call(&site_a, &h, ILLEGAL_ADDRESS);
    int ok = rc > 0 && check(&h, 0, "illegal address");
    fprintf(stderr, "status %d: %s\n", rc, ch_rt_strerror_v1(rc));
    rc = call(&site_b, &h, RUN);
    ok = ok && rc == CH_RT_E_OFF && !ch_rt_usable_v1() && check(&h, 0, "after it");
    host_path(&h);
    ok = ok && check(&h, 1, "host path");
    drop(&h);
    return !ok;
}

/* a child forked after the parent used the device takes the host path */
static int fork_after(void)
{
    if (!need_device() || !good_call(&site_a, 20 * MIB, 1, 12, "parent before fork"))
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        host h;
        if (!make(&h, 20 * MIB, 2, 13))
            _exit(2);
        int rc = call(&site_a, &h, RUN);
        int ok = rc == CH_RT_E_OFF && check(&h, 0, "child");
        host_path(&h);
        _exit(ok && check(&h, 1, "child's host path") ? 0 : 1);
    }
    int status = 1;
    waitpid(pid, &status, 0);
    int child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!child_ok)
        fprintf(stderr, "the child failed (status %d)\n", status);
    return !(child_ok && good_call(&site_a, 20 * MIB, 3, 14, "parent after fork"));
}

/* a child forked before anything touched CUDA uses the device itself */
static int fork_first(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(need_device() && good_call(&site_a, 20 * MIB, 1, 15, "child") ? 0 : 1);
    int status = 1;
    waitpid(pid, &status, 0);
    int child_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!child_ok)
        fprintf(stderr, "the child failed (status %d)\n", status);
    return !(child_ok && need_device() && good_call(&site_a, 20 * MIB, 0, 16, "parent"));
}

/* ---- bandwidth ---- */

static int noop_device(void *const *dev, const void *ctx)
{
    (void)dev;
    (void)ctx;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* GB/s of the median of reps calls of one buffer of n bytes in direction dir, after a warm-up */
static double runtime_gbs(void *buf, size_t n, int dir, int reps)
{
    static ch_rt_site bw = CH_RT_SITE_INIT("bandwidth");
    ch_rt_buffer b = {buf, n, dir};
    double t[16];
    if (ch_rt_call_v1(&bw, &b, 1, noop_device, NULL) != 0)
        return 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        if (ch_rt_call_v1(&bw, &b, 1, noop_device, NULL) != 0)
            return 0;
        t[r] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return (double)n / t[reps / 2] / 1e9;
}

static double memcpy_gbs(void *dst, const void *src, size_t n, cudaMemcpyKind kind, int reps)
{
    double t[16];
    cudaMemcpy(dst, src, n, kind);
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        cudaMemcpy(dst, src, n, kind);
        t[r] = now_s() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return (double)n / t[reps / 2] / 1e9;
}

static int bandwidth(void)
{
    if (!need_device())
        return 1;
    size_t mib[] = {1, 16, 64, 256, 1024};
    const ch_rt_tuning *t = &ch_rt_global()->tune;
    printf("runtime: %d threads, %zu MiB chunks x %d slots, streaming stores in %s, out %s\n",
           t->threads, t->chunk / MIB, t->slots, t->nt & 1 ? "on" : "off",
           t->nt & 2 ? "on" : "off");
    printf("%8s  %21s  %21s  %21s\n", "MiB", "runtime in / out", "pageable memcpy",
           "pinned memcpy");
    for (size_t i = 0; i < sizeof mib / sizeof *mib; i++) {
        size_t n = mib[i] * MIB;
        unsigned char *page = (unsigned char *)malloc(n), *pin = NULL;
        void *dev = NULL;
        if (!page || cudaMalloc(&dev, n) || cudaHostAlloc((void **)&pin, n, 0))
            return fprintf(stderr, "no memory for %zu MiB\n", mib[i]), 1;
        memset(page, 1, n);
        memset(pin, 1, n);
        int reps = mib[i] >= 256 ? 5 : 9;
        double rin = runtime_gbs(page, n, CH_RT_IN, reps);
        double rout = runtime_gbs(page, n, CH_RT_OUT, reps);
        double pg_in = memcpy_gbs(dev, page, n, cudaMemcpyHostToDevice, reps);
        double pg_out = memcpy_gbs(page, dev, n, cudaMemcpyDeviceToHost, reps);
        double pn_in = memcpy_gbs(dev, pin, n, cudaMemcpyHostToDevice, reps);
        double pn_out = memcpy_gbs(pin, dev, n, cudaMemcpyDeviceToHost, reps);
        printf("%8zu  %9.1f / %9.1f  %9.1f / %9.1f  %9.1f / %9.1f GB/s\n", mib[i], rin, rout, pg_in,
               pg_out, pn_in, pn_out);
        if (mib[i] == 256)
            printf("bandwidth 256 MiB pageable: runtime in %.1f GB/s, out %.1f GB/s "
                   "(pinned cudaMemcpy %.1f / %.1f, pageable cudaMemcpy %.1f / %.1f)\n",
                   rin, rout, pn_in, pn_out, pg_in, pg_out);
        free(page);
        cudaFree(dev);
        cudaFreeHost(pin);
    }
    return 0;
}

/* the runtime's GB/s at 256 MiB over its tuning knobs (to choose the defaults): small chunks
 * with plain stores may stay in the last-level cache, large ones stream through memory */
static int sweep(void)
{
    if (!need_device())
        return 1;
    size_t n = 256 * MIB;
    unsigned char *page = (unsigned char *)malloc(n);
    if (!page)
        return 1;
    memset(page, 1, n);
    int threads[] = {4, 8, 12, 16};
    size_t chunks[] = {1, 2, 4, 8, 16, 32};
    int slots[] = {3, 6};
    ch_rt *rt = ch_rt_global();
    ch_rt_tuning base = rt->tune;
    for (int nt = 3; nt >= 0; nt -= 3)
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
            for (size_t s = 0; s < sizeof slots / sizeof *slots; s++)
                for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
                    ch_rt_tuning t = base;
                    t.threads = threads[k];
                    t.chunk = chunks[c] * MIB;
                    t.minchk = t.chunk < t.minchk ? t.chunk : t.minchk;
                    t.slots = slots[s];
                    t.nt = nt;
                    ch_rt_retune(rt, &t);
                    double in = runtime_gbs(page, n, CH_RT_IN, 3);
                    double out = runtime_gbs(page, n, CH_RT_OUT, 3);
                    printf("sweep threads %2d chunk %2zu MiB slots %d streaming %-3s: in %5.1f "
                           "out %5.1f GB/s\n",
                           threads[k], chunks[c], slots[s], nt ? "on" : "off", in, out);
                }
    ch_rt_retune(rt, &base);
    free(page);
    return 0;
}

/* ---- map calls (ch_rt_call_map_v1): saxpy y = a*x + y, x in, y inout ---- */

/* __fmul_rn and __fadd_rn: no contraction into an fma, so the result is the host's exactly */
__global__ void saxpy_kernel(size_t n, float a, const float *x, float *y)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}

struct saxpy_ctx {
    float a;
    size_t n;   /* the whole call's elements (ch_rt_call_v1's launcher) */
    int chunks; /* launches of the map launcher */
};

static void saxpy_launch_on(size_t n, float a, const float *x, float *y)
{
    unsigned blocks = (unsigned)((n + 255) / 256 < 8192 ? (n + 255) / 256 : 8192);
    if (n)
        saxpy_kernel<<<blocks, 256>>>(n, a, x, y);
}

/* the map launcher the dispatcher would emit: a chunk of count elements */
static int saxpy_range(void *const *dev, size_t count, const void *ctx)
{
    saxpy_ctx *c = (saxpy_ctx *)ctx;
    c->chunks++;
    saxpy_launch_on(count, c->a, (const float *)dev[0], (float *)dev[1]);
    return (int)cudaGetLastError();
}

/* the same entry through ch_rt_call_v1: one launch over everything */
static int saxpy_whole(void *const *dev, const void *ctx)
{
    const saxpy_ctx *c = (const saxpy_ctx *)ctx;
    saxpy_launch_on(c->n, c->a, (const float *)dev[0], (float *)dev[1]);
    return (int)cudaGetLastError();
}

static float saxpy_x(size_t i)
{
    return (float)(i % 1000) * 0.25f - 7.0f;
}

static float saxpy_y(size_t i)
{
    return (float)(i % 777) * 0.5f + 1.0f;
}

static void saxpy_fill(float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = saxpy_x(i);
        y[i] = saxpy_y(i);
    }
}

/* the host path; noinline so that the compiler times the loop, not a folded constant */
__attribute__((noinline)) static void saxpy_host(size_t n, float a, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

static const float SAXPY_A = 2.5f;

/* y after `times` saxpy calls from the initial data, element i */
static float saxpy_want(size_t i, int times)
{
    float y = saxpy_y(i);
    for (int t = 0; t < times; t++)
        y = SAXPY_A * saxpy_x(i) + y;
    return y;
}

static int saxpy_check(const float *x, const float *y, size_t n, int times, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        float wx = saxpy_x(i), wy = saxpy_want(i, times);
        if (memcmp(&x[i], &wx, sizeof wx) != 0 || memcmp(&y[i], &wy, sizeof wy) != 0) {
            fprintf(stderr, "%s: n=%zu: element %zu wrong (x %g y %g, want y %g)\n", what, n, i,
                    (double)x[i], (double)y[i], (double)wy);
            return 0;
        }
    }
    return 1;
}

static ch_rt_site site_map = CH_RT_SITE_INIT("saxpy_map");
static ch_rt_site site_whole = CH_RT_SITE_INIT("saxpy_whole");

static int saxpy_map_call(float *x, float *y, size_t n, saxpy_ctx *c)
{
    ch_rt_buffer b[2] = {{x, n * sizeof(float), CH_RT_IN}, {y, n * sizeof(float), CH_RT_INOUT}};
    c->a = SAXPY_A;
    c->n = n;
    c->chunks = 0;
    return ch_rt_call_map_v1(&site_map, b, 2, n, saxpy_range, c);
}

static int saxpy_whole_call(float *x, float *y, size_t n)
{
    ch_rt_buffer b[2] = {{x, n * sizeof(float), CH_RT_IN}, {y, n * sizeof(float), CH_RT_INOUT}};
    saxpy_ctx c = {SAXPY_A, n, 0};
    return ch_rt_call_v1(&site_whole, b, 2, saxpy_whole, &c);
}

static double median(double *t, int reps)
{
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    return t[reps / 2];
}

/* One size: exact results of the map call (and of ch_rt_call_v1), then the median of reps
 * calls of each way and of the host loop, each from the same data. */
static int saxpy_bench(size_t n, int reps)
{
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    if (!x || !y)
        return fprintf(stderr, "no host memory for n=%zu\n", n), 0;
    saxpy_fill(x, y, n);
    saxpy_ctx c;
    int rc = saxpy_map_call(x, y, n, &c);
    if (rc != 0)
        return fprintf(stderr, "map n=%zu: %s\n", n, ch_rt_strerror_v1(rc)), 0;
    int ok = saxpy_check(x, y, n, 1, "map call") && c.chunks > 1;
    if (c.chunks <= 1)
        fprintf(stderr, "map n=%zu: one launch, not cut into chunks\n", n);
    rc = saxpy_map_call(x, y, n, &c);
    ok = ok && rc == 0 && saxpy_check(x, y, n, 2, "second map call");
    saxpy_fill(x, y, n);
    rc = saxpy_whole_call(x, y, n);
    ok = ok && rc == 0 && saxpy_check(x, y, n, 1, "ch_rt_call_v1");
    double tm[16], tw[16], th[16];
    for (int r = 0; r < reps && ok; r++) {
        double t0 = now_s();
        ok = saxpy_map_call(x, y, n, &c) == 0;
        double t1 = now_s();
        ok = ok && saxpy_whole_call(x, y, n) == 0;
        double t2 = now_s();
        saxpy_host(n, SAXPY_A, x, y);
        double t3 = now_s();
        tm[r] = (t1 - t0) * 1e3;
        tw[r] = (t2 - t1) * 1e3;
        th[r] = (t3 - t2) * 1e3;
    }
    if (ok) {
        double m = median(tm, reps), w = median(tw, reps), h = median(th, reps);
        printf("saxpy n=%zu (%zu MiB in, %zu MiB out): map %.2f ms in %d chunks, "
               "ch_rt_call_v1 %.2f ms, host loop %.2f ms; host/map %.2fx, call/map %.2fx\n",
               n, 2 * n * sizeof(float) / MIB, n * sizeof(float) / MIB, m, c.chunks, w, h, h / m,
               w / m);
    }
    free(x);
    free(y);
    return ok;
}

static int map_bench(int sweep)
{
    if (!need_device())
        return 1;
    int ok = saxpy_bench((size_t)1 << 24, 9) && saxpy_bench((size_t)1 << 26, 7);
    if (ok && sweep) { /* the map call over chunk sizes and threads */
        ch_rt *rt = ch_rt_global();
        ch_rt_tuning base = rt->tune;
        size_t chunks[] = {4, 8, 16, 32};
        int threads[] = {8, 12, 16};
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++)
            for (size_t j = 0; j < sizeof threads / sizeof *threads; j++) {
                ch_rt_tuning t = base;
                t.chunk = chunks[k] * MIB;
                t.threads = threads[j];
                ch_rt_retune(rt, &t);
                printf("sweep chunk %2zu MiB threads %2d: ", chunks[k], threads[j]);
                ok = ok && saxpy_bench((size_t)1 << 26, 5);
            }
        ch_rt_retune(rt, &base);
    }
    return !ok;
}

/* CH_CC_RT_FAULT (set by the caller) fails one step in the middle of a map call of 16 chunks:
 * the call reports it, x and y are as they were (y's chunks already written back restored),
 * the host path computes the result; the next call runs on the GPU. */
static int map_fault(void)
{
    if (!need_device())
        return 1;
    size_t n = (size_t)1 << 24;
    float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
    if (!x || !y)
        return 1;
    saxpy_fill(x, y, n);
    saxpy_ctx c;
    int rc = saxpy_map_call(x, y, n, &c);
    fprintf(stderr, "status %d: %s after %d launches\n", rc, ch_rt_strerror_v1(rc), c.chunks);
    int ok = rc > 0 && c.chunks > 1 && saxpy_check(x, y, n, 0, "after the fault");
    saxpy_host(n, SAXPY_A, x, y);
    ok = ok && saxpy_check(x, y, n, 1, "host path");
    rc = saxpy_map_call(x, y, n, &c);
    ok = ok && rc == 0 && saxpy_check(x, y, n, 2, "the next call");
    free(x);
    free(y);
    return !ok;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "roundtrip") == 0)
        return roundtrip(argc > 2 ? (size_t)atol(argv[2]) : 1024);
    if (strcmp(what, "pinned") == 0)
        return pinned();
    if (strcmp(what, "threads") == 0)
        return threads();
    if (strcmp(what, "fault") == 0)
        return fault(argc > 2 && strcmp(argv[2], "ok") == 0);
    if (strcmp(what, "launcherr") == 0)
        return launcherr();
    if (strcmp(what, "pending") == 0)
        return pending();
    if (strcmp(what, "sticky") == 0)
        return sticky();
    if (strcmp(what, "fork") == 0)
        return fork_after();
    if (strcmp(what, "forkfirst") == 0)
        return fork_first();
    if (strcmp(what, "bandwidth") == 0)
        return bandwidth();
    if (strcmp(what, "sweep") == 0)
        return sweep();
    if (strcmp(what, "map") == 0)
        return map_bench(argc > 2 && strcmp(argv[2], "sweep") == 0);
    if (strcmp(what, "mapfault") == 0)
        return map_fault();
    fprintf(stderr,
            "usage: %s roundtrip MAX_MIB | pinned | threads | fault ok|fail | launcherr "
            "| sticky | fork | forkfirst | bandwidth | sweep | map [sweep] | mapfault\n",
            argv[0]);
    return 2;
}
