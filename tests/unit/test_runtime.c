/* The trusted runtime without a GPU: its pure decisions (routes, chunks, parts, growth, tuning,
 * the fork rule), its host threads, and whole calls over a fake device in host memory. The fake
 * runs a transfer from or to pinned memory only when an event behind it or its stream is waited
 * for, as late as CUDA may, so a staging slot refilled or drained too early, or a launch before
 * the inputs arrived, shows as wrong data. It fails chosen operations on request, stickily or
 * not, and counts what was allocated and copied. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt.h"

#define KIB ((size_t)1024)

/* ---- pure decisions ---- */

static ch_rt_tuning small_tuning(void)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, 4);
    t.chunk = 64 * KIB;
    t.minchk = 64 * KIB;
    t.slots = 3;
    t.threads = 3;
    t.piece = 4 * KIB;
    t.small = 4 * KIB;
    t.sets = 2;
    ch_rt_tuning_clamp(&t);
    return t;
}

Test(runtime_plan, directions)
{
    cr_assert(ch_rt_copies_in(CH_RT_IN) && ch_rt_copies_in(CH_RT_INOUT));
    cr_assert(!ch_rt_copies_in(CH_RT_OUT), "out buffers are not copied in");
    cr_assert(ch_rt_copies_out(CH_RT_OUT) && ch_rt_copies_out(CH_RT_INOUT));
    cr_assert(!ch_rt_copies_out(CH_RT_IN), "in buffers are never written back");
}

Test(runtime_plan, routes)
{
    ch_rt_tuning t = small_tuning();
    cr_assert_eq(ch_rt_route_for(0, 0, 1, &t), CH_RT_SKIP);
    cr_assert_eq(ch_rt_route_for(0, 1, 1, &t), CH_RT_SKIP);
    cr_assert_eq(ch_rt_route_for(1, 0, 1, &t), CH_RT_PLAIN, "small: one plain copy");
    cr_assert_eq(ch_rt_route_for(t.small - 1, 0, 1, &t), CH_RT_PLAIN);
    cr_assert_eq(ch_rt_route_for(t.small, 0, 1, &t), CH_RT_STAGED);
    cr_assert_eq(ch_rt_route_for(t.small, 0, 0, &t), CH_RT_PLAIN, "no staging: plain");
    cr_assert_eq(ch_rt_route_for(1 << 30, 1, 1, &t), CH_RT_DIRECT, "pinned: direct");
}

Test(runtime_plan, chunk_lengths)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, 8);
    cr_assert_eq(ch_rt_chunk_len(256u << 20, &t), t.chunk);
    cr_assert_eq(ch_rt_chunk_len(4 * t.chunk, &t), t.chunk);
    /* shorter buffers: a quarter, so filling overlaps the DMA, on 64 KiB and at least minchk */
    cr_assert_eq(ch_rt_chunk_len(2 * t.chunk, &t), t.chunk / 2);
    cr_assert_eq(ch_rt_chunk_len(8u << 20, &t), 2u << 20);
    cr_assert_eq(ch_rt_chunk_len(300 * KIB, &t), t.minchk);
    size_t odd = ch_rt_chunk_len(10 * 1000 * 1000, &t);
    cr_assert(odd % (64 * KIB) == 0 && odd * 4 >= 10 * 1000 * 1000 && odd <= t.chunk);
}

Test(runtime_plan, parts_cover_a_chunk_once)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, 8);
    cr_assert_eq(ch_rt_parts(1, &t), 1);
    cr_assert_eq(ch_rt_parts(t.piece * 3, &t), 3);
    cr_assert_eq(ch_rt_parts(t.chunk, &t), t.threads);
    size_t lens[] = {1, 4095, 4096, 4097, 65536, 100003, 16u << 20, (16u << 20) - 1};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        for (int parts = 1; parts <= 9; parts++) {
            size_t next = 0;
            for (int p = 0; p < parts; p++) {
                size_t off, n;
                ch_rt_part_range(lens[l], parts, p, &off, &n);
                cr_assert_eq(off, next, "len %zu parts %d part %d starts at %zu", lens[l], parts, p,
                             off);
                cr_assert(n == 0 || off % 4096 == 0);
                next = off + n;
            }
            cr_assert_eq(next, lens[l], "len %zu parts %d covers %zu", lens[l], parts, next);
        }
}

Test(runtime_plan, growth)
{
    cr_assert_eq(ch_rt_grow(0, 0), 256, "never a null device pointer");
    cr_assert_eq(ch_rt_grow(0, 1), 256);
    cr_assert_eq(ch_rt_grow(0, 1000), 1024);
    cr_assert_eq(ch_rt_grow(0, (1u << 20) + 1), 2u << 20);
    cr_assert_eq(ch_rt_grow(4096, 4096), 4096, "a buffer that fits is kept");
    cr_assert_eq(ch_rt_grow(4096, 100), 4096);
    cr_assert_eq(ch_rt_grow(100u << 20, (100u << 20) + 1), 125u << 20, "grows by a quarter");
    cr_assert_eq(ch_rt_grow(100u << 20, 300u << 20), 300u << 20);
}

Test(runtime_plan, map_chunks)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, 8);
    cr_assert_eq(t.preimage, 1024 * KIB * KIB, "a pre-image of up to 1 GiB by default");
    /* saxpy: x in and y back take 8 bytes an element of an 8 MiB slot */
    cr_assert_eq(ch_rt_map_per_chunk((size_t)1 << 26, 8, &t), (size_t)1 << 20);
    cr_assert_eq(ch_rt_map_per_chunk((size_t)1 << 20, 8, &t), (size_t)1 << 18, "short: a quarter");
    cr_assert_eq(ch_rt_map_per_chunk(100, 8, &t), 0, "small: not cut");
    cr_assert_eq(ch_rt_map_per_chunk(2 * t.minchk / 8, 8, &t), 0,
                 "fewer than three chunks of minchk: not cut");
    cr_assert_eq(ch_rt_map_per_chunk(0, 8, &t), 0);
    ch_rt_tuning off = t;
    off.map_min = 0;
    cr_assert_eq(ch_rt_map_per_chunk((size_t)1 << 26, 8, &off), 0, "CH_CC_RT_MAP_CHUNKS=0");
    cr_assert_eq(ch_rt_map_per_chunk((size_t)1 << 30, t.chunk / 4096 + 1, &t), 0,
                 "a slot must hold 4096 elements");
    size_t groups[] = {1, 3, 8, 15, 100, 2048};
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
        for (size_t n = 1000; n < ((size_t)1 << 28); n = n * 3 + 7) {
            size_t per = ch_rt_map_per_chunk(n, groups[g], &t);
            cr_assert(per % CH_RT_MAP_ALIGN == 0 && per * groups[g] <= t.chunk,
                      "n %zu group %zu: %zu", n, groups[g], per);
            cr_assert(per == 0 || (n + per - 1) / per >= 3);
        }
}

Test(runtime_plan, cursor_walks_the_staged_buffers)
{
    ch_rt_tuning t = small_tuning();
    static char a[1], b[1], c[1];
    ch_rt_buffer bufs[] = {
        {a, 300 * KIB, CH_RT_IN}, {b, 10, CH_RT_IN}, {c, 64 * KIB + 1, CH_RT_INOUT}};
    ch_rt_route routes[] = {CH_RT_STAGED, CH_RT_PLAIN, CH_RT_STAGED};
    ch_rt_cursor cur;
    ch_rt_cursor_init(&cur, bufs, routes, 3, &t);
    size_t b_i, off, len, seen[3] = {0}, chunks = 0;
    while (ch_rt_cursor_next(&cur, &b_i, &off, &len)) {
        cr_assert_eq(off, seen[b_i], "chunks of a buffer in order");
        cr_assert(len > 0 && len <= t.chunk);
        seen[b_i] += len;
        chunks++;
    }
    cr_assert_eq(seen[0], 300 * KIB);
    cr_assert_eq(seen[1], 0, "a plain buffer is not staged");
    cr_assert_eq(seen[2], 64 * KIB + 1);
    cr_assert_eq(chunks, 5 + 2);
}

static const char *env_values[][2] = {
    {"CH_CC_RT_THREADS", "12"},    {"CH_CC_RT_CHUNK_KB", "4096"},  {"CH_CC_RT_SLOTS", "99"},
    {"CH_CC_RT_SMALL_KB", "x"},    {"CH_CC_RT_NT", "2"},           {"CH_CC_RT_SETS", "3"},
    {"CH_CC_RT_MINCHUNK_KB", "8"}, {"CH_CC_RT_PREIMAGE_MB", "64"}, {"CH_CC_RT_MAP_CHUNKS", "0"}};

static const char *fake_env(const char *name)
{
    for (size_t i = 0; i < sizeof env_values / sizeof *env_values; i++)
        if (strcmp(env_values[i][0], name) == 0)
            return env_values[i][1];
    return NULL;
}

Test(runtime_plan, tuning_from_the_environment)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, 64);
    cr_assert_eq(t.threads, 12, "at most twelve threads by default");
    size_t small = t.small;
    ch_rt_tuning_env(&t, fake_env);
    cr_assert_eq(t.threads, 12);
    cr_assert_eq(t.chunk, 4096 * KIB);
    cr_assert_eq(t.slots, 4, "out of range: ignored");
    cr_assert_eq(t.small, small, "not a number: ignored");
    cr_assert_eq(t.nt, 2, "streaming stores draining only");
    cr_assert_eq(t.sets, 3);
    cr_assert_eq(t.minchk, 512 * KIB, "below 64 KiB: ignored");
    cr_assert_eq(t.preimage, 64 * KIB * KIB);
    cr_assert_eq(t.map_min, 0, "map calls never cut");
    ch_rt_tuning_default(&t, 0);
    cr_assert_eq(t.threads, 1);
}

Test(runtime_plan, fork_rule)
{
    cr_assert(ch_rt_child_may_use_device(0), "a child forked before any CUDA use may use it");
    cr_assert(!ch_rt_child_may_use_device(1), "never the parent's CUDA state");
}

Test(runtime_plan, host_copies_at_any_alignment)
{
    size_t max = 300 * KIB;
    unsigned char *src = malloc(max + 64), *dst = malloc(max + 64);
    for (size_t i = 0; i < max + 64; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    size_t sizes[] = {0, 1, 63, 64 * KIB - 1, 64 * KIB, 64 * KIB + 17, max};
    for (int nt = 0; nt <= 1; nt++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int so = 0; so < 4; so++)
                for (int d = 0; d < 4; d++) {
                    memset(dst, 0xEE, max + 64);
                    ch_rt_copy_bytes(dst + d * 5, src + so * 3, sizes[s], nt);
                    cr_assert(memcmp(dst + d * 5, src + so * 3, sizes[s]) == 0);
                    cr_assert_eq(dst[d * 5 + sizes[s]], 0xEE, "nothing past the end");
                    if (d)
                        cr_assert_eq(dst[d * 5 - 1], 0xEE, "nothing before the start");
                }
    free(src);
    free(dst);
}

/* ---- host threads ---- */

typedef struct hits {
    int count[64];
    pthread_mutex_t lock;
} hits;

static void hit_part(void *arg, int part)
{
    hits *h = arg;
    pthread_mutex_lock(&h->lock);
    h->count[part]++;
    pthread_mutex_unlock(&h->lock);
    usleep(100);
}

static ch_rt_pool shared_pool;

static void *run_many(void *arg)
{
    (void)arg;
    for (int r = 0; r < 50; r++) {
        hits h = {{0}, PTHREAD_MUTEX_INITIALIZER};
        int parts = 1 + r % 8;
        ch_rt_pool_run(&shared_pool, parts, hit_part, &h);
        for (int p = 0; p < 64; p++)
            if (h.count[p] != (p < parts))
                return (void *)1;
    }
    return NULL;
}

Test(runtime_pool, every_part_runs_once_with_concurrent_callers)
{
    ch_rt_pool_init(&shared_pool);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, run_many, NULL);
    for (int i = 0; i < 4; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        cr_assert_null(bad, "a part ran twice or not at all");
    }
    cr_assert(shared_pool.workers >= 1 && shared_pool.workers <= 7);
    ch_rt_pool_destroy(&shared_pool);
}

Test(runtime_pool, a_forked_child_runs_without_the_parents_workers)
{
    ch_rt_pool_init(&shared_pool);
    hits h = {{0}, PTHREAD_MUTEX_INITIALIZER};
    ch_rt_pool_run(&shared_pool, 4, hit_part, &h); /* workers exist now */
    ch_rt_pool_fork_prepare(&shared_pool);
    pid_t pid = fork();
    if (pid == 0) {
        ch_rt_pool_fork_child(&shared_pool);
        hits c = {{0}, PTHREAD_MUTEX_INITIALIZER};
        ch_rt_pool_run(&shared_pool, 6, hit_part, &c);
        _exit(c.count[0] == 1 && c.count[5] == 1 ? 0 : 1);
    }
    ch_rt_pool_fork_parent(&shared_pool);
    int status = 0;
    waitpid(pid, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's run completed");
    ch_rt_pool_destroy(&shared_pool);
}

/* ---- a fake device ---- */

enum { OP_ALLOC, OP_PINNED, OP_H2D, OP_D2H, OP_RECORD_LEGACY, OP_WAIT, OP_N };

#define FAKE_OPS_MAX 64

typedef struct fake_op {
    void *dst;
    const void *src;
    size_t n;
    int is_mark; /* an event's place in the stream */
    long mark;
} fake_op;

typedef struct fake_stream {
    fake_op ops[FAKE_OPS_MAX];
    int n;
    long marks;     /* the last mark passed */
    long next_mark; /* the last mark queued */
} fake_stream;

typedef struct fake_event {
    fake_stream *stream; /* NULL: complete */
    long mark;
} fake_event;

typedef struct fake_block {
    unsigned char *p;
    size_t n;
    int pinned; /* else device */
} fake_block;

static struct {
    pthread_mutex_t lock;
    fake_block blocks[256];
    int n_blocks;
    const void *user_pinned; /* a caller's buffer that counts as pinned */
    size_t user_pinned_n;
    int fail_op, fail_nth, seen[OP_N]; /* fail the fail_nth use of fail_op */
    int fail_all_allocs;
    int sticky, broken; /* the failure is sticky: everything fails from then on */
    int pending_error;
    size_t h2d_bytes, d2h_bytes, direct_copies, zeroed_bytes;
    int pinned_allocs, dev_allocs, live;
    int probes;
} fk = {.lock = PTHREAD_MUTEX_INITIALIZER, .fail_op = -1};

#define FAKE_ERR 77

static void fake_reset(void)
{
    fk.fail_op = -1;
    fk.fail_nth = 0;
    memset(fk.seen, 0, sizeof fk.seen);
    fk.fail_all_allocs = fk.sticky = fk.broken = fk.pending_error = 0;
    fk.h2d_bytes = fk.d2h_bytes = fk.direct_copies = 0;
    fk.user_pinned = NULL;
}

/* Whether this use of op fails; called with the lock held. */
static int fake_fails(int op)
{
    if (fk.broken)
        return 1;
    if (op == fk.fail_op && ++fk.seen[op] == fk.fail_nth) {
        fk.broken = fk.sticky;
        return 1;
    }
    return 0;
}

static int fake_direct_locked(const void *p)
{
    const unsigned char *c = p;
    if (fk.user_pinned && c >= (const unsigned char *)fk.user_pinned &&
        c < (const unsigned char *)fk.user_pinned + fk.user_pinned_n)
        return 1;
    for (int i = 0; i < fk.n_blocks; i++)
        if (fk.blocks[i].p && c >= fk.blocks[i].p && c < fk.blocks[i].p + fk.blocks[i].n)
            return 1;
    return 0;
}

static int fake_probe(void *ctx)
{
    (void)ctx;
    fk.probes++;
    return 0;
}

static int fake_alloc(void **p, size_t n, int pinned, int op)
{
    pthread_mutex_lock(&fk.lock);
    int rc = fake_fails(op) || (fk.fail_all_allocs && !pinned) ? FAKE_ERR : 0;
    if (rc == 0) {
        int slot = -1;
        for (int i = 0; i < fk.n_blocks && slot < 0; i++)
            if (!fk.blocks[i].p)
                slot = i;
        if (slot < 0)
            slot = fk.n_blocks++;
        fk.blocks[slot] = (fake_block){malloc(n), n, pinned};
        memset(fk.blocks[slot].p, 0xCD, n); /* device garbage */
        *p = fk.blocks[slot].p;
        fk.live++;
        *(pinned ? &fk.pinned_allocs : &fk.dev_allocs) += 1;
    }
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

static void fake_free(void *p)
{
    pthread_mutex_lock(&fk.lock);
    for (int i = 0; i < fk.n_blocks; i++)
        if (fk.blocks[i].p == p) {
            free(p);
            fk.blocks[i].p = NULL;
            fk.live--;
        }
    pthread_mutex_unlock(&fk.lock);
}

static int fake_dev_alloc(void *ctx, void **p, size_t n)
{
    (void)ctx;
    return fake_alloc(p, n, 0, OP_ALLOC);
}

static void fake_dev_free(void *ctx, void *p)
{
    (void)ctx;
    fake_free(p);
}

static int fake_pinned_alloc(void *ctx, void **p, size_t n)
{
    (void)ctx;
    return fake_alloc(p, n, 1, OP_PINNED);
}

static void fake_pinned_free(void *ctx, void *p)
{
    (void)ctx;
    fake_free(p);
}

static int fake_is_direct(void *ctx, const void *p)
{
    (void)ctx;
    pthread_mutex_lock(&fk.lock);
    int d = fake_direct_locked(p);
    pthread_mutex_unlock(&fk.lock);
    return d;
}

static int fake_stream_create(void *ctx, void **s)
{
    (void)ctx;
    *s = calloc(1, sizeof(fake_stream));
    pthread_mutex_lock(&fk.lock);
    fk.live++;
    pthread_mutex_unlock(&fk.lock);
    return 0;
}

static void fake_stream_destroy(void *ctx, void *s)
{
    (void)ctx;
    free(s);
    pthread_mutex_lock(&fk.lock);
    fk.live--;
    pthread_mutex_unlock(&fk.lock);
}

static int fake_event_create(void *ctx, void **e)
{
    (void)ctx;
    *e = calloc(1, sizeof(fake_event));
    pthread_mutex_lock(&fk.lock);
    fk.live++;
    pthread_mutex_unlock(&fk.lock);
    return 0;
}

static void fake_event_destroy(void *ctx, void *e)
{
    fake_stream_destroy(ctx, e);
}

/* Runs the stream's queued operations up to mark (or all); called with the lock held. */
static void fake_drain(fake_stream *s, long upto)
{
    int i = 0;
    for (; i < s->n; i++) {
        fake_op *o = &s->ops[i];
        if (o->is_mark) {
            s->marks = o->mark;
            if (upto >= 0 && o->mark >= upto) {
                i++;
                break;
            }
            continue;
        }
        memcpy(o->dst, o->src, o->n);
    }
    memmove(s->ops, s->ops + i, (size_t)(s->n - i) * sizeof *s->ops);
    s->n -= i;
}

static int fake_copy(void *ctx, void *dst, const void *src, size_t n, int kind, void *stream)
{
    (void)ctx;
    fake_stream *s = stream;
    pthread_mutex_lock(&fk.lock);
    int rc = fake_fails(kind == CH_RT_H2D ? OP_H2D : OP_D2H) ? FAKE_ERR : 0;
    if (rc == 0) {
        *(kind == CH_RT_H2D ? &fk.h2d_bytes : &fk.d2h_bytes) += n;
        int user_direct = kind == CH_RT_H2D ? fake_direct_locked(src) : fake_direct_locked(dst);
        const unsigned char *user = kind == CH_RT_H2D ? src : dst;
        const unsigned char *pinned = fk.user_pinned;
        fk.direct_copies += pinned && user >= pinned && user < pinned + fk.user_pinned_n;
        if (!user_direct) { /* pageable: done before the call returns, after what is queued */
            fake_drain(s, -1);
            memcpy(dst, src, n);
        } else {
            if (s->n == FAKE_OPS_MAX)
                fake_drain(s, -1);
            s->ops[s->n++] = (fake_op){dst, src, n, 0, 0};
        }
    }
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

static int fake_record(void *ctx, void *event, void *stream)
{
    (void)ctx;
    fake_event *e = event;
    fake_stream *s = stream;
    pthread_mutex_lock(&fk.lock);
    int rc = (!s && fake_fails(OP_RECORD_LEGACY)) || fk.broken ? FAKE_ERR : 0;
    if (rc == 0) {
        if (!s) { /* the legacy stream: the fake's launches ran already */
            e->stream = NULL;
        } else {
            if (s->n == FAKE_OPS_MAX)
                fake_drain(s, -1);
            e->stream = s;
            e->mark = ++s->next_mark;
            s->ops[s->n++] = (fake_op){NULL, NULL, 0, 1, e->mark};
        }
    }
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

static int fake_wait_event(void *ctx, void *event)
{
    (void)ctx;
    fake_event *e = event;
    pthread_mutex_lock(&fk.lock);
    int rc = fake_fails(OP_WAIT) ? FAKE_ERR : 0;
    if (rc == 0 && e->stream && e->stream->marks < e->mark)
        fake_drain(e->stream, e->mark);
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

static int fake_wait_stream(void *ctx, void *stream)
{
    (void)ctx;
    pthread_mutex_lock(&fk.lock);
    int rc = fake_fails(OP_WAIT) ? FAKE_ERR : 0;
    if (rc == 0)
        fake_drain(stream, -1);
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

/* The fake's launches run when they are called, so the legacy stream waiting for an event is
 * the host running what stands before it now; a copy stream waiting for the legacy stream waits
 * for nothing. */
static int fake_stream_wait(void *ctx, void *stream, void *event)
{
    (void)ctx;
    (void)stream;
    fake_event *e = event;
    pthread_mutex_lock(&fk.lock);
    int rc = fk.broken ? FAKE_ERR : 0;
    if (rc == 0 && e->stream && e->stream->marks < e->mark)
        fake_drain(e->stream, e->mark);
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

/* The fake's device memory is host memory: zeroed at once (the op is synchronous). */
static int fake_zero(void *ctx, void *dst, size_t n)
{
    (void)ctx;
    pthread_mutex_lock(&fk.lock);
    int rc = fk.broken ? FAKE_ERR : 0;
    if (rc == 0)
        memset(dst, 0, n);
    fk.zeroed_bytes += rc == 0 ? n : 0;
    pthread_mutex_unlock(&fk.lock);
    return rc;
}

static int fake_last_error(void *ctx, int take)
{
    (void)ctx;
    pthread_mutex_lock(&fk.lock);
    int e = fk.pending_error;
    if (take)
        fk.pending_error = 0;
    pthread_mutex_unlock(&fk.lock);
    return e;
}

static int fake_recover(void *ctx)
{
    (void)ctx;
    return fk.broken ? FAKE_ERR : 0;
}

static const char *fake_error_name(void *ctx, int err)
{
    (void)ctx;
    return err == FAKE_ERR ? "fakeError" : "otherError";
}

static const ch_rt_ops fake_ops = {
    .probe = fake_probe,
    .dev_alloc = fake_dev_alloc,
    .dev_free = fake_dev_free,
    .pinned_alloc = fake_pinned_alloc,
    .pinned_free = fake_pinned_free,
    .is_direct = fake_is_direct,
    .stream_create = fake_stream_create,
    .stream_destroy = fake_stream_destroy,
    .event_create = fake_event_create,
    .event_destroy = fake_event_destroy,
    .copy = fake_copy,
    .record = fake_record,
    .wait_event = fake_wait_event,
    .wait_stream = fake_wait_stream,
    .stream_wait = fake_stream_wait,
    .zero = fake_zero,
    .last_error = fake_last_error,
    .recover = fake_recover,
    .error_name = fake_error_name,
};

/* ---- calls over the fake ---- */

/* The test's entry: y[i] = x[i] * 3 + y[i] + 1 on bytes, z[i] = x[i] ^ 0x5A (an out buffer),
 * and the device copy of x scribbled over (an in buffer is never written back). */
typedef struct xyz_ctx {
    size_t n;
    int status; /* what the launcher returns */
    int set_error;
} xyz_ctx;

static int xyz_launch(void *const *dev, const void *ctx)
{
    const xyz_ctx *c = ctx;
    unsigned char *x = dev[0], *y = dev[1], *z = dev[2];
    if (c->status)
        return c->status;
    for (size_t i = 0; i < c->n; i++) {
        y[i] = (unsigned char)(x[i] * 3 + y[i] + 1);
        z[i] = x[i] ^ 0x5A;
        x[i] = 0;
    }
    if (c->set_error)
        fk.pending_error = c->set_error;
    return 0;
}

typedef struct host_data {
    unsigned char *xa, *ya, *za; /* allocations */
    unsigned char *x, *y, *z;    /* the buffers, misaligned by misalign */
    size_t n;
} host_data;

static void host_make(host_data *h, size_t n, int misalign, unsigned seed)
{
    h->n = n;
    h->xa = malloc(n + 8);
    h->ya = malloc(n + 8);
    h->za = malloc(n + 8);
    h->x = h->xa + misalign;
    h->y = h->ya + misalign;
    h->z = h->za + misalign;
    for (size_t i = 0; i < n; i++) {
        h->x[i] = (unsigned char)(i * 7 + seed);
        h->y[i] = (unsigned char)(i * 13 + seed * 3);
        h->z[i] = 0x11;
    }
}

static void host_free(host_data *h)
{
    free(h->xa);
    free(h->ya);
    free(h->za);
}

/* Whether h holds the results of one call (done), or its inputs unchanged (!done: x and y as
 * they were; z, an out buffer the host path rewrites whole, as it was or already computed). */
static int host_check(const host_data *h, unsigned seed, int done)
{
    for (size_t i = 0; i < h->n; i++) {
        unsigned char x = (unsigned char)(i * 7 + seed), y = (unsigned char)(i * 13 + seed * 3);
        unsigned char want_y = done ? (unsigned char)(x * 3 + y + 1) : y;
        unsigned char z = x ^ 0x5A;
        if (h->x[i] != x || h->y[i] != want_y || (h->z[i] != z && (done || h->z[i] != 0x11)))
            return 0;
    }
    return 1;
}

static int call_xyz(ch_rt *rt, ch_rt_site *site, host_data *h, xyz_ctx *c)
{
    ch_rt_buffer bufs[] = {
        {h->x, h->n, CH_RT_IN}, {h->y, h->n, CH_RT_INOUT}, {h->z, h->n, CH_RT_OUT}};
    c->n = h->n;
    return ch_rt_call(rt, site, bufs, 3, xyz_launch, c);
}

static ch_rt fake_rt;

static void fake_rt_init(void)
{
    fake_reset();
    ch_rt_tuning t = small_tuning();
    ch_rt_init(&fake_rt, &fake_ops, &t);
}

/* no device buffer ends where another could begin: each has room past its data (attacks7
 * #07, a launcher testing y == x + n), at sizes that are multiples of what allocations round
 * to, and after growing */
Test(runtime_call, device_buffers_have_room_past_their_data)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    size_t sizes[] = {256, 4096, 1u << 20, 3u << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        host_data h;
        host_make(&h, sizes[k], 0, (unsigned)k + 5);
        xyz_ctx ctx = {0};
        cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0);
        cr_assert(host_check(&h, (unsigned)k + 5, 1));
        int dev = 0;
        for (int i = 0; i < fk.n_blocks; i++)
            if (fk.blocks[i].p && !fk.blocks[i].pinned) {
                dev++;
                cr_assert_geq(fk.blocks[i].n, sizes[k] + 256, "%zu bytes for %zu", fk.blocks[i].n,
                              sizes[k]);
            }
        cr_assert_eq(dev, 3, "one device buffer a parameter");
        host_free(&h);
    }
    ch_rt_destroy(&fake_rt);
}

/* A launcher that keeps a count where no buffer's data is (attacks9 #13): past y's data, in the
 * guard bytes and grown capacity, and in the out buffer z before writing it. Each launch
 * records what it found there and leaves a mark. */
typedef struct stale_ctx {
    size_t n;
    unsigned char seen_tail, seen_out;
} stale_ctx;

static int stale_launch(void *const *dev, const void *ctx)
{
    stale_ctx *c = (stale_ctx *)ctx;
    unsigned char *y = dev[1], *z = dev[2];
    c->seen_tail = (unsigned char)(y[c->n] | y[c->n + 200]);
    c->seen_out = z[0];
    y[c->n] = y[c->n + 200] = 0x77;
    for (size_t i = 0; i < c->n; i++)
        z[i] = 0x5A;
    return 0;
}

/* every launch finds zeroes where the call did not copy in: past each buffer's data and in an
 * out buffer, whatever an earlier call of the site left there */
Test(runtime_call, a_launch_finds_nothing_an_earlier_call_left)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("stale");
    size_t sizes[] = {4096, 4096, 1000, 3u << 20, 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        host_data h;
        host_make(&h, sizes[k], 0, (unsigned)k);
        ch_rt_buffer bufs[] = {
            {h.x, h.n, CH_RT_IN}, {h.y, h.n, CH_RT_INOUT}, {h.z, h.n, CH_RT_OUT}};
        stale_ctx c = {h.n, 0xFF, 0xFF};
        cr_assert_eq(ch_rt_call(&fake_rt, &site, bufs, 3, stale_launch, &c), 0);
        cr_assert_eq(c.seen_tail, 0, "call %zu found %#x past y's data", k, c.seen_tail);
        cr_assert_eq(c.seen_out, 0, "call %zu found %#x in the out buffer", k, c.seen_out);
        cr_assert_eq(h.z[h.n - 1], 0x5A, "the out buffer's results come back");
        host_free(&h);
    }
    cr_assert_gt(fk.zeroed_bytes, 0);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, round_trips_around_chunk_boundaries)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    size_t c = fake_rt.tune.chunk, s = fake_rt.tune.small;
    size_t sizes[] = {0,     1,         s - 1,     s,         s + 1,         4095,
                      4097,  c - 1,     c,         c + 1,     2 * c + 13,    4 * c - 1,
                      4 * c, 4 * c + 1, 7 * c + 3, 300 * KIB, 1000 * KIB + 7};
    for (int slots = 1; slots <= 3; slots++) {
        ch_rt_tuning t = small_tuning();
        t.slots = slots;
        ch_rt_retune(&fake_rt, &t);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            host_data h;
            host_make(&h, sizes[i], (int)(i % 4), (unsigned)i);
            xyz_ctx ctx = {0};
            size_t h2d = fk.h2d_bytes, d2h = fk.d2h_bytes;
            int rc = call_xyz(&fake_rt, &site, &h, &ctx);
            cr_assert_eq(rc, 0, "size %zu: %s", sizes[i], ch_rt_status_name(&fake_rt, rc));
            cr_assert(host_check(&h, (unsigned)i, 1), "size %zu slots %d: wrong results", sizes[i],
                      slots);
            /* x and y in, y and z out: the out buffer z is not copied in */
            size_t in = fk.h2d_bytes - h2d, out = fk.d2h_bytes - d2h;
            cr_assert_eq(in, 2 * sizes[i], "size %zu: %zu bytes went in", sizes[i], in);
            cr_assert_eq(out, 2 * sizes[i], "size %zu: %zu bytes came out", sizes[i], out);
            host_free(&h);
        }
    }
    cr_assert_leq(fk.pinned_allocs, 3 * 3, "one staging set per shape");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0, "every device and pinned allocation freed");
    cr_assert_null(site.state);
}

Test(runtime_call, pinned_user_memory_is_copied_directly)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 200 * KIB, 0, 5);
    fk.user_pinned = h.y;
    fk.user_pinned_n = h.n;
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0);
    cr_assert(host_check(&h, 5, 1));
    cr_assert_eq(fk.direct_copies, 2, "y in and out without staging");
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

typedef struct worker_arg {
    ch_rt_site *site;
    unsigned seed;
    int bad;
} worker_arg;

static void *caller_thread(void *p)
{
    worker_arg *w = p;
    for (int r = 0; r < 30; r++) {
        host_data h;
        size_t n = (size_t)((w->seed * 7919u + (unsigned)r * 104729u) % (400 * KIB));
        unsigned seed = w->seed * 100 + (unsigned)r;
        host_make(&h, n, r % 3, seed);
        xyz_ctx ctx = {0};
        if (call_xyz(&fake_rt, w->site, &h, &ctx) != 0 || !host_check(&h, seed, 1))
            w->bad++;
        host_free(&h);
    }
    return NULL;
}

Test(runtime_call, threads_calling_two_sites_at_once)
{
    fake_rt_init();
    ch_rt_tuning t = small_tuning();
    t.sets = 1; /* callers queue for the one staging set */
    ch_rt_retune(&fake_rt, &t);
    ch_rt_site sites[2] = {CH_RT_SITE_INIT("a"), CH_RT_SITE_INIT("b")};
    pthread_t th[6];
    worker_arg args[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (worker_arg){&sites[i % 2], (unsigned)i + 1, 0};
        pthread_create(&th[i], NULL, caller_thread, &args[i]);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(args[i].bad, 0, "thread %d: %d wrong calls", i, args[i].bad);
    }
    cr_assert_eq(fk.pinned_allocs, t.slots, "never more staging sets than allowed");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0);
}

/* A fresh fake_rt whose device fails the nth use of op (stickily or not). */
static void fake_rt_failing(int op, int nth, int sticky)
{
    fake_rt_init();
    fk.fail_op = op;
    fk.fail_nth = nth;
    fk.sticky = sticky;
}

/* One call with the nth use of op failing: its status, with the data checked intact. */
static int failing_call(int op, int nth, size_t n, int sticky)
{
    fake_rt_failing(op, nth, sticky);
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, n, 1, 9);
    xyz_ctx ctx = {0};
    int rc = call_xyz(&fake_rt, &site, &h, &ctx);
    if (rc != 0 && rc != CH_RT_E_PARTIAL)
        cr_assert(host_check(&h, 9, 0), "op %d #%d: the caller's data changed", op, nth);
    host_free(&h);
    return rc;
}

Test(runtime_call, failures_leave_the_callers_data_intact)
{
    size_t big = 300 * KIB; /* several chunks per buffer */
    struct {
        int op, nth;
    } cases[] = {{OP_ALLOC, 2},  {OP_H2D, 1},
                 {OP_H2D, 5},    {OP_RECORD_LEGACY, 1},
                 {OP_WAIT, 1},   {OP_WAIT, 3},
                 {OP_D2H, 1},    {OP_D2H, 3},
                 {OP_PINNED, 1}, {OP_D2H, 5 + 1 /* the first chunk of y */}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = failing_call(cases[i].op, cases[i].nth, big, 0);
        if (cases[i].op == OP_PINNED || cases[i].op == OP_ALLOC)
            cr_assert_eq(rc, 0, "op %d: plain copies or a second allocation serve the call",
                         cases[i].op);
        else
            cr_assert_gt(rc, 0, "op %d #%d fails the call (%d)", cases[i].op, cases[i].nth, rc);
        cr_assert_eq(fake_rt.off, 0, "not sticky: the GPU path stays on");
        ch_rt_destroy(&fake_rt);
        cr_assert_eq(fk.live, 0);
    }
}

Test(runtime_call, a_failure_after_part_of_an_inout_buffer_came_back_is_partial)
{
    /* z (out) takes 5 chunks of 64 KiB; y's first chunk is d2h #6, its second #7 */
    cr_assert_gt(failing_call(OP_D2H, 6, 300 * KIB, 0), 0);
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_call(OP_D2H, 9, 300 * KIB, 0), CH_RT_E_PARTIAL);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, launcher_errors_and_unreported_launch_errors)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 5000, 0, 3);
    xyz_ctx ctx = {.status = 9};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 9);
    cr_assert(host_check(&h, 3, 0));
    ctx = (xyz_ctx){.status = -5}; /* a launcher's negative code must not read as ours */
    int rc = call_xyz(&fake_rt, &site, &h, &ctx);
    cr_assert(rc > 0, "%d", rc);
    ctx = (xyz_ctx){.set_error = 98};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 98, "a launch error left pending");
    cr_assert(host_check(&h, 3, 0));
    cr_assert_eq(fk.pending_error, 0, "taken");
    /* three failures in a row: this site takes the host path */
    ctx = (xyz_ctx){0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), CH_RT_E_OFF);
    ch_rt_site other = CH_RT_SITE_INIT("other");
    cr_assert_eq(call_xyz(&fake_rt, &other, &h, &ctx), 0, "other sites still run");
    cr_assert(host_check(&h, 3, 1));
    /* the program's own pending error: no launcher runs, the inputs stay, the error stays for
     * the program, and however many such calls come, the site is not turned off */
    ch_rt_site third = CH_RT_SITE_INIT("third");
    host_free(&h);
    host_make(&h, 100, 0, 4);
    fk.pending_error = 55;
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(call_xyz(&fake_rt, &third, &h, &ctx), CH_RT_E_PENDING);
        cr_assert(host_check(&h, 4, 0), "the launcher did not run");
        cr_assert_eq(fk.pending_error, 55);
    }
    fk.pending_error = 0;
    cr_assert_eq(call_xyz(&fake_rt, &third, &h, &ctx), 0, "the site still runs");
    cr_assert(host_check(&h, 4, 1));
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, a_sticky_error_turns_the_gpu_path_off)
{
    int rc = failing_call(OP_RECORD_LEGACY, 1, 1000, 1);
    cr_assert_gt(rc, 0);
    cr_assert(ch_rt_is_off(&fake_rt));
    ch_rt_site site = CH_RT_SITE_INIT("later");
    host_data h;
    host_make(&h, 10, 0, 1);
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), CH_RT_E_OFF);
    cr_assert(host_check(&h, 1, 0));
    host_free(&h);
    fk.broken = 0;
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, no_device_memory_is_a_status)
{
    fake_rt_init();
    fk.fail_all_allocs = 1;
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 100, 0, 2);
    xyz_ctx ctx = {0};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), CH_RT_E_DEVMEM);
    fk.fail_all_allocs = 0;
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0, "not counted against the site");
    cr_assert(host_check(&h, 2, 1));
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, bad_arguments)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    ch_rt_buffer b = {NULL, 10, CH_RT_IN};
    xyz_ctx ctx = {0};
    cr_assert_eq(ch_rt_call(&fake_rt, &site, &b, 1, xyz_launch, &ctx), CH_RT_E_ARGS);
    b.host = &ctx;
    b.dir = 7;
    cr_assert_eq(ch_rt_call(&fake_rt, &site, &b, 1, xyz_launch, &ctx), CH_RT_E_ARGS);
    cr_assert_eq(ch_rt_call(&fake_rt, &site, NULL, 0, NULL, &ctx), CH_RT_E_ARGS);
    cr_assert_eq(fk.probes, 0, "nothing touched the device");
    ch_rt_destroy(&fake_rt);
}

/* fork: the child of a process that used the device takes the host path; a child forked
 * before any use may use it */
Test(runtime_call, fork_children)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 100 * KIB, 0, 6);
    pid_t early = fork();
    if (early == 0) {
        xyz_ctx c = {0};
        _exit(call_xyz(&fake_rt, &site, &h, &c) == 0 && host_check(&h, 6, 1) ? 0 : 1);
    }
    int status = 0;
    waitpid(early, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a child forked before the device was used uses it");
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0);
    cr_assert(host_check(&h, 6, 1));
    host_free(&h);
    host_make(&h, 100 * KIB, 0, 7);
    pid_t late = fork();
    if (late == 0) {
        xyz_ctx c = {0};
        int rc = call_xyz(&fake_rt, &site, &h, &c);
        _exit(rc == CH_RT_E_OFF && host_check(&h, 7, 0) ? 0 : 1);
    }
    waitpid(late, &status, 0);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a child forked after the device was used takes the host path");
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0, "the parent goes on");
    cr_assert(host_check(&h, 7, 1));
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

/* The dispatcher's question before a call (issue 14): what would this call pay besides its warm
 * cost? Asked without a device operation (it must not load the driver), answered from what this
 * process has set up: the device, then the site's buffers, which grow with the calls. */
Test(runtime_call, cold_costs_are_told_without_touching_the_device)
{
    fake_rt_init();
    int probes = fk.probes, allocs = fk.dev_allocs;
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 100 * KIB, 0, 9);
    ch_rt_buffer bufs[] = {{h.x, h.n, CH_RT_IN}, {h.y, h.n, CH_RT_INOUT}, {h.z, h.n, CH_RT_OUT}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, bufs, 3), CH_RT_COLD_DEVICE, "nothing set up yet");
    cr_assert_eq(fk.probes, probes, "asking does not probe the device");
    cr_assert_eq(fk.dev_allocs, allocs, "asking allocates nothing");
    cr_assert_null(site.state, "asking creates no site state");
    /* the set-up (CH_CC_DEVICE_INIT=load, or verification timing it): the device is warm, the
     * site's buffers are not there yet */
    cr_assert_eq(ch_rt_setup(&fake_rt), 1);
    cr_assert_gt(fk.probes, probes, "the set-up probes");
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, bufs, 3), CH_RT_COLD_BUFFERS);
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0);
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, bufs, 3), CH_RT_WARM, "the call allocated them");
    ch_rt_buffer smaller[] = {{h.x, 10, CH_RT_IN}, {h.y, 10, CH_RT_INOUT}, {h.z, 10, CH_RT_OUT}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, smaller, 3), CH_RT_WARM, "buffers are never shrunk");
    host_data big;
    host_make(&big, 2000 * KIB, 0, 10);
    ch_rt_buffer larger[] = {
        {big.x, big.n, CH_RT_IN}, {big.y, big.n, CH_RT_INOUT}, {big.z, big.n, CH_RT_OUT}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, larger, 3), CH_RT_COLD_BUFFERS, "they must grow");
    ch_rt_buffer more[] = {bufs[0], bufs[1], bufs[2], {h.x, 8, CH_RT_IN}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &site, more, 4), CH_RT_COLD_BUFFERS, "a fourth buffer");
    ch_rt_site other = CH_RT_SITE_INIT("other");
    cr_assert_eq(ch_rt_cold(&fake_rt, &other, bufs, 3), CH_RT_COLD_BUFFERS,
                 "another site has buffers of its own");
    host_free(&h);
    host_free(&big);
    ch_rt_destroy(&fake_rt);

    /* without the set-up, the first successful call is what sets the device up */
    fake_rt_init();
    ch_rt_site fresh = CH_RT_SITE_INIT("xyz");
    host_make(&h, 50 * KIB, 0, 11);
    cr_assert_eq(call_xyz(&fake_rt, &fresh, &h, &ctx), 0);
    ch_rt_buffer again[] = {{h.x, h.n, CH_RT_IN}, {h.y, h.n, CH_RT_INOUT}, {h.z, h.n, CH_RT_OUT}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &fresh, again, 3), CH_RT_WARM);
    host_free(&h);
    ch_rt_destroy(&fake_rt);

    /* a failed call sets nothing up */
    fake_rt_init();
    ch_rt_site failing = CH_RT_SITE_INIT("xyz");
    host_make(&h, 50 * KIB, 0, 12);
    fk.fail_all_allocs = 1;
    cr_assert_neq(call_xyz(&fake_rt, &failing, &h, &ctx), 0);
    fk.fail_all_allocs = 0;
    ch_rt_buffer after[] = {{h.x, h.n, CH_RT_IN}, {h.y, h.n, CH_RT_INOUT}, {h.z, h.n, CH_RT_OUT}};
    cr_assert_eq(ch_rt_cold(&fake_rt, &failing, after, 3), CH_RT_COLD_DEVICE);
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, release_at_exit_frees_idle_state)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 200 * KIB, 0, 8);
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0);
    cr_assert_gt(fk.live, 0);
    ch_rt_release(&fake_rt);
    cr_assert_eq(fk.live, 0, "device buffers, staging, streams and events freed");
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), CH_RT_E_OFF);
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_call, faults_wrapper_fails_the_chosen_use)
{
    cr_assert_null(ch_rt_faults_wrap(&fake_ops, "nonsense", 1));
    cr_assert_null(ch_rt_faults_wrap(&fake_ops, "h2d:0", 1));
    const ch_rt_ops *ops = ch_rt_faults_wrap(&fake_ops, "d2h:2", 123);
    cr_assert_not_null(ops);
    fake_reset();
    ch_rt_tuning t = small_tuning();
    ch_rt_init(&fake_rt, ops, &t);
    ch_rt_site site = CH_RT_SITE_INIT("xyz");
    host_data h;
    host_make(&h, 100, 0, 1);
    xyz_ctx ctx = {0};
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 123, "z (d2h #1) comes back, y fails");
    cr_assert(host_check(&h, 1, 0), "y intact");
    cr_assert_str_eq(ch_rt_status_name(&fake_rt, 123), "an injected failure (CH_CC_RT_FAULT)");
    cr_assert_eq(call_xyz(&fake_rt, &site, &h, &ctx), 0, "only that use fails");
    cr_assert(host_check(&h, 1, 1));
    host_free(&h);
    ch_rt_destroy(&fake_rt);
}

/* ---- map calls (ch_rt_call_map): chunks whose copies and kernels overlap ---- */

/* The test's map entry over n elements of four widths: a (in, u32) and b (in, u8), c (out,
 * u16) = a * 3 + b, d (inout, u64) = d * 5 + a + b; the device copy of a is scribbled over. The
 * launcher records each call's count and where its pointers point, and can fail a chosen call. */
#define MAP_LAUNCHES_MAX 64

typedef struct map_ctx {
    int fail_at, status; /* call fail_at (from 1) returns status */
    int error_at;        /* call error_at leaves a launch error pending, returning 0 */
    int launches;
    size_t count[MAP_LAUNCHES_MAX];
    unsigned char *dev[MAP_LAUNCHES_MAX][4];
} map_ctx;

static int map_launch(void *const *dev, size_t count, const void *ctx)
{
    map_ctx *c = (map_ctx *)ctx;
    int call = c->launches++;
    if (call < MAP_LAUNCHES_MAX) {
        c->count[call] = count;
        for (int i = 0; i < 4; i++)
            c->dev[call][i] = dev[i];
    }
    if (call + 1 == c->fail_at)
        return c->status;
    if (call + 1 == c->error_at)
        fk.pending_error = 98;
    uint32_t *a = dev[0];
    const uint8_t *b = dev[1];
    uint16_t *cc = dev[2];
    uint64_t *d = dev[3];
    for (size_t i = 0; i < count; i++) {
        cc[i] = (uint16_t)(a[i] * 3u + b[i]);
        d[i] = d[i] * 5u + a[i] + b[i];
        a[i] = 0;
    }
    return 0;
}

typedef struct map_data {
    void *alloc[4]; /* the buffers, misalign * 8 bytes into these */
    uint32_t *a;
    uint8_t *b;
    uint16_t *c;
    uint64_t *d;
    size_t n;
    unsigned seed;
} map_data;

static uint32_t map_a(size_t i, unsigned seed)
{
    return (uint32_t)(i * 2654435761u + seed);
}

static uint8_t map_b(size_t i, unsigned seed)
{
    return (uint8_t)(i * 7 + seed);
}

static uint64_t map_d(size_t i, unsigned seed)
{
    return (uint64_t)i * 0x9E3779B97F4A7C15ull + seed;
}

static void map_make(map_data *m, size_t n, int misalign, unsigned seed)
{
    static const size_t width[4] = {4, 1, 2, 8};
    unsigned char *p[4];
    for (int k = 0; k < 4; k++) {
        m->alloc[k] = malloc(n * width[k] + 32);
        p[k] = (unsigned char *)m->alloc[k] + misalign * 8;
    }
    m->a = (uint32_t *)p[0];
    m->b = p[1];
    m->c = (uint16_t *)p[2];
    m->d = (uint64_t *)p[3];
    m->n = n;
    m->seed = seed;
    for (size_t i = 0; i < n; i++) {
        m->a[i] = map_a(i, seed);
        m->b[i] = map_b(i, seed);
        m->c[i] = 0x1111;
        m->d[i] = map_d(i, seed);
    }
}

static void map_free(map_data *m)
{
    for (int k = 0; k < 4; k++)
        free(m->alloc[k]);
}

/* Whether m holds the results (done), or its inputs unchanged (!done: a, b and d as they were;
 * c, an out buffer, may hold results of some chunks). */
static int map_check(const map_data *m, int done)
{
    for (size_t i = 0; i < m->n; i++) {
        uint32_t a = map_a(i, m->seed);
        uint8_t b = map_b(i, m->seed);
        uint16_t c = (uint16_t)(a * 3u + b);
        uint64_t d = map_d(i, m->seed), dd = d * 5u + a + b;
        if (m->a[i] != a || m->b[i] != b || m->d[i] != (done ? dd : d) ||
            (m->c[i] != c && (done || m->c[i] != 0x1111)))
            return 0;
    }
    return 1;
}

static int call_map(ch_rt *rt, ch_rt_site *site, map_data *m, map_ctx *c)
{
    ch_rt_buffer bufs[] = {{m->a, m->n * 4, CH_RT_IN},
                           {m->b, m->n, CH_RT_IN},
                           {m->c, m->n * 2, CH_RT_OUT},
                           {m->d, m->n * 8, CH_RT_INOUT}};
    return ch_rt_call_map(rt, site, bufs, 4, m->n, map_launch, c);
}

/* In small_tuning's 64 KiB slots a chunk of the map entry takes 5 + 10 bytes an element: 4096
 * elements (the unit of chunks). */
#define MAP_PER 4096

/* The launches of one call cover [0, n) in order, each chunk at its offset of every buffer. */
static void map_launches_cover(const map_ctx *c, size_t n, size_t per)
{
    static const size_t width[4] = {4, 1, 2, 8};
    size_t at = 0;
    cr_assert_leq(c->launches, MAP_LAUNCHES_MAX);
    for (int k = 0; k < c->launches; k++) {
        cr_assert(k == c->launches - 1 ? c->count[k] > 0 && c->count[k] <= per : c->count[k] == per,
                  "n %zu: launch %d of %zu elements", n, k, c->count[k]);
        for (int b = 0; b < 4; b++)
            cr_assert_eq(c->dev[k][b], c->dev[0][b] + at * width[b],
                         "n %zu: launch %d: buffer %d not at element %zu", n, k, b, at);
        at += c->count[k];
    }
    cr_assert_eq(at, n, "the launches cover %zu of %zu elements", at, n);
}

Test(runtime_map, chunks_at_odd_sizes_give_the_elementwise_result)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("map");
    size_t sizes[] = {3 * MAP_PER, 5 * MAP_PER + 123, 9 * MAP_PER - 1, 20 * MAP_PER + 1};
    for (int slots = 2; slots <= 3; slots++) {
        ch_rt_tuning t = small_tuning();
        t.slots = slots;
        ch_rt_retune(&fake_rt, &t);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            map_data m;
            map_make(&m, sizes[i], (int)(i % 4), (unsigned)(i + 10 * slots));
            map_ctx c = {0};
            size_t h2d = fk.h2d_bytes, d2h = fk.d2h_bytes;
            int rc = call_map(&fake_rt, &site, &m, &c);
            cr_assert_eq(rc, 0, "n %zu: %s", m.n, ch_rt_status_name(&fake_rt, rc));
            cr_assert(map_check(&m, 1), "n %zu slots %d: wrong results", m.n, slots);
            cr_assert_eq(c.launches, (int)((m.n + MAP_PER - 1) / MAP_PER), "one launch a chunk");
            map_launches_cover(&c, m.n, MAP_PER);
            cr_assert_eq(fk.h2d_bytes - h2d, m.n * (4 + 1 + 8), "a, b and d in");
            cr_assert_eq(fk.d2h_bytes - d2h, m.n * (2 + 8), "c and d out");
            map_free(&m);
        }
    }
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0, "staging, pre-image, streams and events freed");
}

Test(runtime_map, buffers_the_device_reaches_move_directly)
{
    for (int which = 0; which < 3; which++) {
        fake_rt_init();
        ch_rt_site site = CH_RT_SITE_INIT("map");
        map_data m;
        map_make(&m, 7 * MAP_PER + 5, 0, 40u + (unsigned)which);
        void *pinned[] = {m.a, m.c, m.d};
        static const size_t width[] = {4, 2, 8};
        fk.user_pinned = pinned[which];
        fk.user_pinned_n = m.n * width[which];
        map_ctx c = {0};
        cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 0);
        cr_assert(map_check(&m, 1), "buffer %d pinned: wrong results", which);
        cr_assert_eq(c.launches, 8);
        if (which < 2) /* a in, c out without staging; d (inout) always through its pre-image */
            cr_assert_eq(fk.direct_copies, 8, "buffer %d: one direct copy a chunk", which);
        map_free(&m);
        ch_rt_destroy(&fake_rt);
        cr_assert_eq(fk.live, 0);
    }
}

Test(runtime_map, small_calls_make_one_launch)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("map");
    size_t sizes[] = {1, 100, 2 * MAP_PER}; /* fewer than three chunks: not cut */
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        map_data m;
        map_make(&m, sizes[i], 1, 20u + (unsigned)i);
        map_ctx c = {0};
        cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 0);
        cr_assert(map_check(&m, 1), "n %zu", m.n);
        cr_assert_eq(c.launches, 1, "n %zu: one launch", m.n);
        cr_assert_eq(c.count[0], m.n);
        map_free(&m);
    }
    map_ctx c = {0};
    int probes = fk.probes;
    ch_rt_site fresh = CH_RT_SITE_INIT("none");
    cr_assert_eq(ch_rt_call_map(&fake_rt, &fresh, NULL, 0, 0, map_launch, &c), 0, "n 0: done");
    cr_assert_eq(c.launches, 0);
    cr_assert_eq(fk.probes, probes, "nothing to do touches nothing");
    uint32_t odd[3];
    ch_rt_buffer bad = {odd, 10, CH_RT_IN};
    cr_assert_eq(ch_rt_call_map(&fake_rt, &fresh, &bad, 1, 3, map_launch, &c), CH_RT_E_ARGS,
                 "bytes not a multiple of n");
    cr_assert_eq(ch_rt_call_map(&fake_rt, &fresh, &bad, 1, 5, NULL, &c), CH_RT_E_ARGS);
    ch_rt_destroy(&fake_rt);
}

/* One map call of 6 chunks (slots 3: a chunk is drained three steps after it was filled) with the
 * nth use of op failing, or launch number fail_at returning 9; its status, the data checked. */
static int failing_map(int op, int nth, int fail_at, int sticky)
{
    fake_rt_failing(op, nth, sticky);
    ch_rt_site site = CH_RT_SITE_INIT("map");
    map_data m;
    map_make(&m, 5 * MAP_PER + 123, 2, 31);
    map_ctx c = {.fail_at = fail_at, .status = 9};
    int rc = call_map(&fake_rt, &site, &m, &c);
    if (rc != 0)
        cr_assert(map_check(&m, 0), "op %d #%d launch %d: the caller's a, b or d changed", op, nth,
                  fail_at);
    map_free(&m);
    return rc;
}

Test(runtime_map, failures_mid_map_leave_the_inputs_as_they_were)
{
    /* each chunk: 3 h2d (a, b, d), a launch, 2 d2h (c, d); chunk k is drained in step k + 3,
     * before chunk k + 3 is queued: chunk 0 of d is back when chunk 3 fails, 0 and 1 when
     * chunk 4 does */
    cr_assert_eq(failing_map(-1, 0, 4, 0), 9, "the 4th launcher's status");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_map(OP_D2H, 2 * 3 + 2, 0, 0), FAKE_ERR, "d's copy out of chunk 3");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_map(OP_D2H, 2 * 5 + 1, 0, 0), FAKE_ERR, "the last chunk's c");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_map(OP_H2D, 3 * 4 + 1, 0, 0), FAKE_ERR, "chunk 4's a");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_map(OP_RECORD_LEGACY, 5, 0, 0), FAKE_ERR, "chunk 4's launch");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(failing_map(OP_WAIT, 4, 0, 0), FAKE_ERR, "a wait mid-map");
    cr_assert_eq(fake_rt.off, 0, "not sticky: the GPU path stays on");
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0);
    /* a launch error the launcher did not report: the call fails at that chunk, the error is
     * taken */
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("map");
    map_data m;
    map_make(&m, 6 * MAP_PER, 0, 32);
    map_ctx c = {.error_at = 4};
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 98);
    cr_assert_eq(c.launches, 4, "no launch after it");
    cr_assert(map_check(&m, 0));
    cr_assert_eq(fk.pending_error, 0, "taken");
    map_free(&m);
    ch_rt_destroy(&fake_rt);
}

Test(runtime_map, a_sticky_failure_turns_the_gpu_path_off)
{
    cr_assert_eq(failing_map(OP_D2H, 5, 0, 1), FAKE_ERR);
    cr_assert(ch_rt_is_off(&fake_rt));
    ch_rt_site site = CH_RT_SITE_INIT("later");
    map_data m;
    map_make(&m, 6 * MAP_PER, 0, 33);
    map_ctx c = {0};
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), CH_RT_E_OFF);
    cr_assert_eq(c.launches, 0);
    cr_assert(map_check(&m, 0));
    map_free(&m);
    fk.broken = 0;
    ch_rt_destroy(&fake_rt);
}

Test(runtime_map, a_pending_error_of_the_programs_leaves_the_call_to_the_host_path)
{
    fake_rt_init();
    ch_rt_site site = CH_RT_SITE_INIT("map");
    map_data m;
    map_make(&m, 6 * MAP_PER, 0, 34);
    map_ctx c = {0};
    fk.pending_error = 77;
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), CH_RT_E_PENDING);
    cr_assert_eq(c.launches, 0, "no launcher runs under the program's error");
    cr_assert(map_check(&m, 0));
    cr_assert_eq(fk.pending_error, 77, "the error stays for the program");
    fk.pending_error = 0;
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 0);
    cr_assert(map_check(&m, 1));
    map_free(&m);
    ch_rt_destroy(&fake_rt);
}

typedef struct map_worker {
    ch_rt_site *site;
    unsigned seed;
    int bad, cut;
} map_worker;

static void *map_thread(void *p)
{
    map_worker *w = p;
    for (int r = 0; r < 12; r++) {
        size_t n = 1 + (w->seed * 7919u + (unsigned)r * 104729u) % (12 * MAP_PER);
        map_data m;
        map_make(&m, n, r % 3, w->seed * 100 + (unsigned)r);
        map_ctx c = {0};
        if (call_map(&fake_rt, w->site, &m, &c) != 0 || !map_check(&m, 1))
            w->bad++;
        w->cut += c.launches > 1;
        map_free(&m);
    }
    return NULL;
}

Test(runtime_map, two_threads_on_two_sites_at_once)
{
    fake_rt_init();
    ch_rt_site sites[2] = {CH_RT_SITE_INIT("a"), CH_RT_SITE_INIT("b")};
    pthread_t th[2];
    map_worker w[2];
    for (int i = 0; i < 2; i++) {
        w[i] = (map_worker){&sites[i], (unsigned)i + 3, 0, 0};
        pthread_create(&th[i], NULL, map_thread, &w[i]);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        cr_assert_eq(w[i].bad, 0, "thread %d: %d wrong calls", i, w[i].bad);
        cr_assert_gt(w[i].cut, 3, "thread %d: calls were cut into chunks", i);
    }
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0);
}

Test(runtime_map, no_pre_image_no_pipeline)
{
    /* above the cap: one launch over everything, still right */
    fake_rt_init();
    ch_rt_tuning t = small_tuning();
    t.preimage = 64 * KIB; /* d alone takes 8 bytes an element */
    ch_rt_retune(&fake_rt, &t);
    ch_rt_site site = CH_RT_SITE_INIT("map");
    map_data m;
    map_make(&m, 6 * MAP_PER, 1, 34);
    map_ctx c = {0};
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 0);
    cr_assert(map_check(&m, 1));
    cr_assert_eq(c.launches, 1, "the cap is passed: not cut");
    map_free(&m);
    ch_rt_destroy(&fake_rt);
    /* the pinned pre-image cannot be had (the staging set's 3 slots came first) */
    fake_rt_failing(OP_PINNED, 4, 0);
    map_make(&m, 6 * MAP_PER, 1, 35);
    c = (map_ctx){0};
    cr_assert_eq(call_map(&fake_rt, &site, &m, &c), 0);
    cr_assert(map_check(&m, 1));
    cr_assert_eq(c.launches, 1, "no pre-image: not cut");
    map_free(&m);
    ch_rt_destroy(&fake_rt);
    cr_assert_eq(fk.live, 0);
}
