/* The trusted runtime (src/runtime/, libch_runtime.a): what generated dispatchers call to move a
 * host-pointer call's data to the device and back (DESIGN §2).
 *
 * A call names a site (one per entry, static storage in the generated unit, where the runtime
 * keeps that entry's device buffers across calls), the buffers (the caller's host pointers, their
 * byte counts and directions from the checklist) and a device launcher: a small generated thunk
 * that runs the entry's kernels on device pointers, in the order of the buffers. The runtime
 * copies `in` and `inout` buffers in, runs the thunk, waits for the device and copies `out` and
 * `inout` buffers back; nothing of the caller's memory is written before the kernels succeeded.
 * A map call (ch_rt_call_map_v1) does the same chunk by chunk, its copies in, kernels and copies
 * out overlapping; its inout buffers are restored if it fails after writing some of them back.
 * Any failure is a status, never an exit: the dispatcher then runs the host path.
 *
 * This header is the whole interface. ch-cc pastes it into every emitted unit with CH_RT_DECL
 * defined as a weak attribute, so a program linked without the library still works (the
 * dispatcher then takes the host path); it includes only <stddef.h> and compiles as
 * C and as C++. An incompatible change renames the _v1 symbols, so an object and a library of
 * different versions fail to link instead of misreading each other. */
#ifndef CH_RUNTIME_H
#define CH_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CH_RT_DECL
#define CH_RT_DECL
#endif

/* Directions of a buffer (the checklist's in / out / inout). */
#define CH_RT_IN    1 /* copied in, never written back */
#define CH_RT_OUT   2 /* not copied in (the kernels write every element), written back */
#define CH_RT_INOUT 3 /* copied in and written back */

/* Statuses of ch_rt_call_v1 besides 0 (done, outputs written) and positive values (the
 * cudaError_t that ended the call). With every nonzero status but CH_RT_E_PARTIAL the caller's
 * in and inout buffers are as they were and the host path computes the result; an out buffer
 * may hold part of the results (the call writes its out buffers back before its inout buffers,
 * a map call chunk by chunk), which is no harm, since `out` means the host path writes every
 * element of it without reading one. */
#define CH_RT_E_OFF                                                                                \
    (-1)                     /* the GPU path is off: no device, an earlier sticky error, a         \
                              * process forked after CUDA was used, or this site kept failing */
#define CH_RT_E_ARGS    (-2) /* a bad call: negative or overflowing sizes, a null pointer */
#define CH_RT_E_HOSTMEM (-3) /* no host memory for the runtime's own state */
#define CH_RT_E_DEVMEM  (-4) /* no device memory for this call's buffers */
#define CH_RT_E_PARTIAL                                                                            \
    (-5) /* the device failed while an inout buffer was being written back:                        \
          * its contents are neither the old nor the new values */
#define CH_RT_E_PENDING                                                                            \
    (-6) /* the program had a CUDA error pending before the call: the call leaves it there and     \
          * takes the host path, so no launcher ever runs in a process state that verification     \
          * never showed it (attacks7 #04, #24, #25: a launcher that skips its work or spins when  \
          * an earlier error is pending) */

/* One buffer of a call. host may be pageable, pinned (cudaHostAlloc, cudaHostRegister) or
 * managed memory; bytes may be 0. */
typedef struct ch_rt_buffer {
    void *host;
    size_t bytes;
    int dir; /* CH_RT_IN, CH_RT_OUT or CH_RT_INOUT */
} ch_rt_buffer;

/* The generated device launcher: dev[i] is the device copy of buffer i (never NULL, at least
 * the buffer's bytes), ctx is the caller's (the call's scalars). It launches the kernels on the
 * legacy default stream and returns 0 or the first cudaError_t it met; the runtime
 * synchronizes. */
typedef int (*ch_rt_launch_fn)(void *const *dev, const void *ctx);

/* The device launcher of a map call: runs the kernels on elements [0, count) of the buffers
 * whose device copies start at dev[i] (the runtime offsets them to the chunk); same return and
 * stream rules as ch_rt_launch_fn. */
typedef int (*ch_rt_launch_range_fn)(void *const *dev, size_t count, const void *ctx);

/* One per entry, zero-initialised static storage in the generated unit. name is for messages;
 * state belongs to the runtime (its device buffers), created on the first call. */
typedef struct ch_rt_site {
    const char *name;
    void *state;
} ch_rt_site;

#define CH_RT_SITE_INIT(name)                                                                      \
    {                                                                                              \
        (name), NULL                                                                               \
    }

/* 1 when a CUDA device is usable and the GPU path is on, else 0; probes once per process. */
CH_RT_DECL int ch_rt_usable_v1(void);

/* Sets the device up now (the probe, the context, one staging set: what a first call would pay
 * before its copies) and returns 1 when it is usable. CH_CC_DEVICE_INIT=load calls it before
 * main; verification calls it alone to time the set-up. */
CH_RT_DECL int ch_rt_setup_v1(void);

/* What a call of site with these buffers would pay besides its warm cost, without touching the
 * device (it never loads the driver): */
#define CH_RT_WARM         0 /* nothing: the device is set up, the site's buffers are big enough */
#define CH_RT_COLD_BUFFERS 1 /* the site's device buffers are allocated or grown first */
#define CH_RT_COLD_DEVICE  2 /* the device is not set up in this process (and the buffers) */
CH_RT_DECL int ch_rt_cold_v1(const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs);

/* One call: see above. Safe from several threads at once (calls of one site take turns). */
CH_RT_DECL int ch_rt_call_v1(ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs,
                             ch_rt_launch_fn launch, const void *ctx);

/* A call whose kernels are an elementwise map over n elements: element i of every written buffer
 * depends only on element i of every buffer and on ctx; buffer k holds n elements of
 * bufs[k].bytes / n bytes each (bytes must be a multiple of n; n == 0 means nothing to do).
 * The runtime may cut it into chunks and overlap copies in, launches and copies out. Statuses
 * and the promise on the caller's memory are those of ch_rt_call_v1: on any nonzero status
 * other than CH_RT_E_PARTIAL the caller's in and inout buffers are as they were before the call
 * (an inout buffer written back in part is restored from a copy the runtime kept; out buffers
 * may hold the results of some chunks). Chunks start on 4096-element boundaries. */
CH_RT_DECL int ch_rt_call_map_v1(ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs,
                                 size_t n, ch_rt_launch_range_fn launch, const void *ctx);

/* A status in words ("cudaErrorMemoryAllocation", "the GPU path is off", ...). */
CH_RT_DECL const char *ch_rt_strerror_v1(int status);

#ifdef __cplusplus
}
#endif

#endif
