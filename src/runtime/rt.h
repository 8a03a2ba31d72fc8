/* The runtime's internals (see ch/runtime.h for what it promises).
 *
 * The runtime is a set of instances (struct ch_rt); a program has one, made by api.c over the
 * CUDA runtime (cuda.c). Everything that touches the device goes through ch_rt_ops, so the
 * unit tests run the same code over a fake device in host memory. Files, one concern each:
 *   plan.c       pure decisions: directions, which route a buffer takes, chunks and parts, growth
 *   pool.c       the host threads that fill and drain staging chunks
 *   buffers.c    a site's device buffers, kept across calls and grown when needed
 *   staging.c    pinned staging sets and the copies in and out
 *   call.c       the call protocol: copy in, launch, wait, copy out; failure as a status
 *   map.c        the map call: the same protocol cut into chunks whose copies and kernels overlap
 *   lifecycle.c  instances, sites, probing, fork and exit
 *   faults.c     CH_CC_RT_FAULT: an injected failure of one device operation (for tests)
 *   cuda.c       the device operations over the CUDA runtime
 *   api.c        the process's instance behind the _v1 functions
 *
 * Locks: rt->lock guards the instance's flags, site list and staging sets; a site's lock is held
 * for a whole call (calls of one entry take turns on its buffers); the pool has its own lock.
 * A call takes its site's lock, then rt->lock briefly; nothing takes them the other way round.
 * Device operations return 0 or a positive error code (a cudaError_t); the runtime's own
 * statuses are the negative CH_RT_E_* of ch/runtime.h. */
#ifndef CH_RT_INTERNAL_H
#define CH_RT_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "ch/runtime.h"

#define CH_RT_MAX_SLOTS   8
#define CH_RT_MAX_THREADS 64
#define CH_RT_MAX_BUFFERS 256

/* ---- device operations ---- */

enum { CH_RT_H2D = 1, CH_RT_D2H = 2 };

/* What the runtime needs of a device. ctx is passed back to every operation. A stream or event
 * argument of NULL means the legacy default stream, where device launchers run. */
typedef struct ch_rt_ops {
    void *ctx;
    int (*probe)(void *ctx); /* 0 when a device is usable */
    int (*dev_alloc)(void *ctx, void **p, size_t bytes);
    void (*dev_free)(void *ctx, void *p);
    int (*pinned_alloc)(void *ctx, void **p, size_t bytes);
    void (*pinned_free)(void *ctx, void *p);
    /* 1 when the device can copy to and from p directly at full speed (pinned, registered,
     * managed or device memory) */
    int (*is_direct)(void *ctx, const void *p);
    int (*stream_create)(void *ctx, void **stream);
    void (*stream_destroy)(void *ctx, void *stream);
    int (*event_create)(void *ctx, void **event);
    void (*event_destroy)(void *ctx, void *event);
    /* an asynchronous copy in stream; kind is CH_RT_H2D or CH_RT_D2H. From or to pageable
     * memory it returns once the caller's bytes are read or written. */
    int (*copy)(void *ctx, void *dst, const void *src, size_t bytes, int kind, void *stream);
    int (*record)(void *ctx, void *event, void *stream);
    int (*wait_event)(void *ctx, void *event);
    int (*wait_stream)(void *ctx, void *stream);
    /* later work queued in stream (NULL: the legacy stream) waits, on the device, for what
     * stood before event when it was recorded; the host does not wait */
    int (*stream_wait)(void *ctx, void *stream, void *event);
    /* bytes of device memory at dst set to zero, done when it returns (the copies and a
     * map's launches run in streams of their own, which no stream's order would cover) */
    int (*zero)(void *ctx, void *dst, size_t bytes);
    /* the calling thread's pending launch error: peeked (take == 0) or taken and cleared */
    int (*last_error)(void *ctx, int take);
    /* after a failure: clears the thread's error, returns 0 when the device still works (the
     * error was not sticky) */
    int (*recover)(void *ctx);
    const char *(*error_name)(void *ctx, int err);
} ch_rt_ops;

/* ---- tuning and planning (plan.c: pure functions) ---- */

typedef struct ch_rt_tuning {
    size_t chunk;    /* bytes of one pinned staging slot: the largest chunk */
    size_t minchk;   /* a buffer shorter than a few chunks is cut into chunks of at least this */
    int slots;       /* slots per staging set: chunks in flight while the next is filled */
    int threads;     /* host threads filling or draining one chunk, the caller included */
    size_t piece;    /* a thread's share of a chunk is at least this many bytes */
    size_t small;    /* below this many bytes a buffer is one plain copy, no staging */
    int sets;        /* staging sets: callers that stage at the same time */
    int nt;          /* streaming (non-temporal) stores for large host copies: bit 0 filling
                      * staging (in), bit 1 draining into the caller's memory (out) */
    size_t preimage; /* a map call keeps a pinned copy of its inout buffers up to this many
                      * bytes; above it the call is not pipelined (map.c) */
    int map_min;     /* a map call is cut only into at least this many chunks (0: never) */
} ch_rt_tuning;

/* Defaults for a machine with ncpu usable processors. */
void ch_rt_tuning_default(ch_rt_tuning *t, int ncpu);
/* Overrides from CH_CC_RT_THREADS, CH_CC_RT_CHUNK_KB, CH_CC_RT_MINCHUNK_KB, CH_CC_RT_SLOTS,
 * CH_CC_RT_SMALL_KB, CH_CC_RT_SETS, CH_CC_RT_NT (0-3, the bits of nt), CH_CC_RT_PREIMAGE_MB,
 * CH_CC_RT_MAP_CHUNKS (map_min) (read through get, e.g.
 * getenv); values that are not numbers in range are ignored. Then clamps everything into
 * range. */
void ch_rt_tuning_env(ch_rt_tuning *t, const char *(*get)(const char *name));
void ch_rt_tuning_clamp(ch_rt_tuning *t);

int ch_rt_copies_in(int dir);  /* in and inout */
int ch_rt_copies_out(int dir); /* out and inout */

typedef enum ch_rt_route {
    CH_RT_SKIP = 0, /* nothing to copy */
    CH_RT_DIRECT,   /* the device reads or writes the caller's memory itself */
    CH_RT_PLAIN,    /* one copy from pageable memory (small buffers, or no staging) */
    CH_RT_STAGED    /* chunks through pinned staging filled and drained by host threads */
} ch_rt_route;

/* How a buffer of bytes is copied: direct when the caller's memory is (is_direct), plain when
 * it is small or no staging is available, else staged. */
ch_rt_route ch_rt_route_for(size_t bytes, int is_direct, int have_staging, const ch_rt_tuning *t);

/* The chunk length for a staged buffer of bytes: the slot size, or for a buffer of less than
 * four slots a quarter of it (rounded up to 64 KiB, at least minchk), so that filling one chunk
 * still overlaps the transfer of the one before. */
size_t ch_rt_chunk_len(size_t bytes, const ch_rt_tuning *t);

/* How many threads share a chunk of len bytes: at most t->threads, each at least t->piece. */
int ch_rt_parts(size_t len, const ch_rt_tuning *t);
/* Part p of parts of a chunk of len: [*off, *off + *n), boundaries on 4 KiB multiples, the
 * parts cover the chunk exactly once. */
void ch_rt_part_range(size_t len, int parts, int p, size_t *off, size_t *n);

/* The capacity to allocate when a buffer of cap bytes must hold need: need rounded up (to
 * 256 B below 1 MiB, to 1 MiB above), and at least cap + cap / 4 so that slowly growing calls
 * do not reallocate every time. At least 256 bytes, so a device pointer is never NULL. */
size_t ch_rt_grow(size_t cap, size_t need);

/* Elements per chunk of a map call over n elements that stages group bytes per element in one
 * slot (the in and out pieces of a chunk side by side): as many as fill a slot, or a quarter of
 * n when that is less (at least minchk bytes of group), always a multiple of
 * CH_RT_MAP_ALIGN elements so that every chunk of every buffer starts on a 4 KiB boundary.
 * 0 when the call is not worth cutting (fewer than t->map_min chunks) or a slot holds too
 * little. */
#define CH_RT_MAP_ALIGN 4096
size_t ch_rt_map_per_chunk(size_t n, size_t group, const ch_rt_tuning *t);

/* A walk over the chunks of the buffers that take the staged route, in order. */
typedef struct ch_rt_cursor {
    const ch_rt_buffer *bufs;
    const ch_rt_route *routes;
    size_t n, i; /* buffer i */
    size_t off;  /* next byte of buffer i */
    const ch_rt_tuning *t;
} ch_rt_cursor;

void ch_rt_cursor_init(ch_rt_cursor *c, const ch_rt_buffer *bufs, const ch_rt_route *routes,
                       size_t n, const ch_rt_tuning *t);
/* The next chunk (buffer *buf, bytes [*off, *off + *len)); 0 when there is none. */
int ch_rt_cursor_next(ch_rt_cursor *c, size_t *buf, size_t *off, size_t *len);

/* After fork, in the child: whether it may use the device itself (only when the parent never
 * touched CUDA; a CUDA context does not survive fork). */
int ch_rt_child_may_use_device(int parent_used_device);

/* Host memory copy of n bytes; large copies with streaming stores when nt (x86-64). */
void ch_rt_copy_bytes(void *dst, const void *src, size_t n, int nt);

/* ---- host threads (pool.c) ---- */

typedef struct ch_rt_job ch_rt_job;

typedef struct ch_rt_pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    ch_rt_job *jobs; /* jobs with parts left, newest first */
    pthread_t ids[CH_RT_MAX_THREADS];
    int workers; /* started in this process */
    int stop;
    pid_t pid; /* the process the workers belong to */
} ch_rt_pool;

void ch_rt_pool_init(ch_rt_pool *p);
/* Runs fn(arg, part) for every part in [0, parts) on up to parts threads, the caller included,
 * and returns when all are done. Workers are started when first needed; when none can be, the
 * caller runs every part. */
void ch_rt_pool_run(ch_rt_pool *p, int parts, void (*fn)(void *arg, int part), void *arg);
/* Workers leave (at exit: not joined, they may be busy for another thread). */
void ch_rt_pool_stop(ch_rt_pool *p);
/* Stops and joins the workers and frees the pool's locks (no run may be in progress). */
void ch_rt_pool_destroy(ch_rt_pool *p);
void ch_rt_pool_fork_prepare(ch_rt_pool *p);
void ch_rt_pool_fork_parent(ch_rt_pool *p);
void ch_rt_pool_fork_child(ch_rt_pool *p); /* no workers in the child; new ones when needed */

/* ---- instances, sites, staging ---- */

/* A set of pinned chunks with one event each (two: a map call moves a slot's chunk in and out
 * at once); a staged copy holds one set for its duration. */
typedef struct ch_rt_staging {
    void *mem[CH_RT_MAX_SLOTS];
    void *ev[CH_RT_MAX_SLOTS];
    void *ev_out[CH_RT_MAX_SLOTS];
    int slots;
    size_t chunk;
    int busy;
    struct ch_rt_staging *next;
} ch_rt_staging;

/* The runtime's state of one site (ch_rt_site.state). Owned by its instance (rt->sites). */
typedef struct ch_rt_site_state {
    pthread_mutex_t lock; /* held for a whole call */
    ch_rt_site *site;     /* whose state this is (ch_rt_destroy clears site->state) */
    const char *name;
    void *stream;     /* the site's copies */
    void *done;       /* recorded on the legacy stream after the launcher */
    void *stream_out; /* a map call's copies out, beside its copies in on stream */
    void *pre;        /* a map call's pinned pre-image of its inout buffers (map.c) */
    size_t pre_cap;
    size_t pre_refused; /* a pinned allocation of this many bytes failed: not tried again */
    void **dev;         /* device buffers, dev[i] of cap[i] bytes (NULL: none yet) */
    size_t *cap;
    size_t n_dev;
    int failures; /* calls failed in a row (not counting a lack of device memory) */
    int off;      /* this site takes the host path from now on */
    struct ch_rt_site_state *next;
} ch_rt_site_state;

/* Timings and volumes of one call, for CH_CC_TRACE. */
typedef struct ch_rt_stats {
    size_t in_bytes, out_bytes;
    double in_ms, run_ms, out_ms;
    int staged, plain, direct; /* buffers by route */
    size_t chunks, per;        /* a pipelined map call: its chunks of per elements */
} ch_rt_stats;

typedef struct ch_rt {
    ch_rt_ops ops;
    ch_rt_tuning tune;
    pthread_mutex_t lock;
    pthread_cond_t staging_free;
    int probed;      /* the device was probed (ch_rt_probe) */
    int usable;      /* and found usable */
    int used_device; /* CUDA was touched in this process (decides what a fork child may do) */
    int off;         /* the GPU path is off for good (sticky error, exit) */
    int fork_off;    /* this process is a child forked after the device was used */
    int trace;       /* CH_CC_TRACE: one line per call on stderr */
    int no_pinned;   /* pinned allocation failed once: plain copies from now on */
    int set_up;      /* the device was set up in this process: a call succeeded, or
                      * ch_rt_setup ran (atomic: read by ch_rt_cold without the lock) */
    ch_rt_site_state *sites;
    ch_rt_staging *staging;
    int n_staging; /* sets allocated or being allocated */
    ch_rt_pool pool;
    struct ch_rt *next_instance;
} ch_rt;

/* lifecycle.c */
void ch_rt_init(ch_rt *rt, const ch_rt_ops *ops, const ch_rt_tuning *t);
/* Frees every device and host resource and unregisters the instance; no call may be in
 * progress and none may follow (tests). */
void ch_rt_destroy(ch_rt *rt);
/* At exit: frees the device buffers of idle sites and the idle staging sets and turns the GPU
 * path off; state that a call in another thread still holds is left to the process's end. */
void ch_rt_release(ch_rt *rt);
/* 1 when calls may use the device: probes it once, registering the fork handlers first. */
int ch_rt_probe(ch_rt *rt);
/* Sets the device up: the probe, the context (a one-byte allocation makes it) and one staging
 * set; 1 when calls may use the device. */
int ch_rt_setup(ch_rt *rt);
/* CH_RT_WARM, CH_RT_COLD_BUFFERS or CH_RT_COLD_DEVICE (ch/runtime.h) for a call of site with
 * bufs; no device operation. */
int ch_rt_cold(ch_rt *rt, const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n);
/* Whether the GPU path is off for this process (sticky error, forked child, released). */
int ch_rt_is_off(ch_rt *rt);
/* Turns the GPU path off for good, with one line on stderr saying why (only the first time). */
void ch_rt_turn_off(ch_rt *rt, const char *why);
/* The state of a site, created on first use; NULL when out of host memory. */
ch_rt_site_state *ch_rt_site_state_of(ch_rt *rt, ch_rt_site *site);
/* Applies new tuning (benchmarks): idle staging sets of another shape are freed. */
void ch_rt_retune(ch_rt *rt, const ch_rt_tuning *t);
/* The fork handlers of every instance (also called directly by tests). */
void ch_rt_fork_prepare(void);
void ch_rt_fork_parent(void);
void ch_rt_fork_child(void);

/* buffers.c: device buffers of st for n buffers of the given sizes (grown when needed; on a
 * lack of memory the site's and then other idle sites' buffers are freed and it is tried once
 * more). 0, CH_RT_E_HOSTMEM, CH_RT_E_DEVMEM or a device error. */
int ch_rt_buffers_ensure(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n);
void ch_rt_buffers_free(ch_rt *rt, ch_rt_site_state *st);
/* Whether st's buffers hold n buffers of the given sizes without an allocation (st's lock
 * held). */
int ch_rt_buffers_fit(const ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n);
/* Before a launch: zeroes what the call did not copy in of st's buffers, the bytes past each
 * buffer's data (guard bytes and grown capacity) and the whole of each out buffer, so that
 * nothing a launch finds there was left by an earlier call (attacks9 #13: a counter kept at
 * y[n]). 0 or a device error. */
int ch_rt_buffers_scrub(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n);

/* staging.c */
/* A free staging set (allocated when fewer than tune.sets exist, else waits for one); NULL when
 * pinned memory cannot be had (the caller copies plainly). */
ch_rt_staging *ch_rt_staging_get(ch_rt *rt);
void ch_rt_staging_put(ch_rt *rt, ch_rt_staging *s);
void ch_rt_staging_free(ch_rt *rt, ch_rt_staging *s);
/* Copies the in and inout buffers to st->dev and waits for them. 0 or a device error. */
int ch_rt_copy_in(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                  ch_rt_stats *stats);
/* Copies the out and then the inout buffers back from st->dev. 0, a device error (nothing of an
 * inout buffer was written), or CH_RT_E_PARTIAL. */
int ch_rt_copy_out(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                   ch_rt_stats *stats);

/* call.c */
int ch_rt_call(ch_rt *rt, ch_rt_site *site, const ch_rt_buffer *bufs, size_t n,
               ch_rt_launch_fn launch, const void *ctx);
const char *ch_rt_status_name(ch_rt *rt, int status);
/* The parts of the protocol that map.c shares: */
/* the buffers' directions, sizes and pointers: 0 or CH_RT_E_ARGS */
int ch_rt_check_buffers(const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n);
/* Takes site's state and its lock for a call (*st), or says why not: CH_RT_E_OFF (also when
 * the site or the GPU path is off) or CH_RT_E_HOSTMEM; then the lock is not held. */
int ch_rt_call_enter(ch_rt *rt, ch_rt_site *site, ch_rt_site_state **st);
/* The site's copy stream and the event that marks the end of its launches. */
int ch_rt_site_ready(ch_rt *rt, ch_rt_site_state *st);
/* The whole unpipelined call under the lock: buffers, copy in, launch, wait, copy out; t gets
 * the times of its four steps' ends (t[0] its start). 0 or the first failure. */
int ch_rt_call_whole(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                     ch_rt_launch_fn launch, const void *ctx, ch_rt_stats *stats, double t[4]);
/* Ends a call: judges a failure (a sticky error turns the GPU path off, a site that keeps
 * failing is turned off), traces it under CH_CC_TRACE and unlocks the site; returns rc. */
int ch_rt_call_leave(ch_rt *rt, ch_rt_site_state *st, int rc, const ch_rt_stats *stats,
                     const double t[4]);
double ch_rt_now_ms(void);
/* The code a launcher returned, as a device error (a negative one would read as ours). */
#define CH_RT_LAUNCHER_BAD_STATUS 999

/* map.c: ch_rt_call_map_v1 (ch/runtime.h) on rt. */
int ch_rt_call_map(ch_rt *rt, ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs, size_t n,
                   ch_rt_launch_range_fn launch, const void *ctx);

/* faults.c: ops that fail the nth use of one operation ("alloc", "pinned", "h2d", "d2h",
 * "launch" (the wait after the launcher), "sync"; spec "h2d" or "h2d:3") with error code err,
 * passing everything else to base. NULL when spec is not understood. One wrapper per process
 * (its counters are static). */
const ch_rt_ops *ch_rt_faults_wrap(const ch_rt_ops *base, const char *spec, int err);

/* cuda.c */
const ch_rt_ops *ch_rt_cuda_ops(void);

/* api.c: the process's instance (benchmarks retune it). */
ch_rt *ch_rt_global(void);

#endif
