/* Runtime, the map call (rt.h): a call whose kernels are an elementwise map, cut into chunks of
 * elements so that copying in, the kernels and copying out overlap (ch_rt_call_map_v1).
 *
 * Chunk k takes slot k % S of a staging set; the slot holds the chunk's pieces of the staged in
 * buffers and, beside them, its pieces of the buffers written back. One step of the caller:
 *
 *   wait: slot k's last copy in and out (chunk k-S)
 *   host threads, together: fill chunk k's in pieces, drain chunk k-S into the caller's memory
 *   copy stream:   H2D chunk k                                      -> event ev[slot]
 *   legacy stream: wait ev[slot], the launcher on chunk k           -> event done
 *   out stream:    wait done, D2H chunk k into the slot (or an out buffer the device reaches)
 *                                                                   -> event ev_out[slot]
 *
 * so while the host threads fill chunk k and drain chunk k-S, the device moves chunk k-1 in,
 * runs its kernels and moves chunks k-S+1.. out, both ways of the bus at once. Every device
 * operation is issued by the caller's thread (launchers may rely on its current device); only
 * the host copies run on the pool.
 *
 * All-or-nothing: an inout buffer is filled, chunk by chunk, into the site's pinned pre-image of
 * all its inout bytes (the H2D reads it from there), so that a failure after some of its chunks
 * were written back restores them from it; that is a host copy, which cannot fail. Out buffers
 * may keep the chunks written before a failure (ch/runtime.h). Calls too small for
 * tune.map_min chunks (CH_CC_RT_MAP_CHUNKS, 3; 0 turns the pipeline off), or whose pre-image would
 * pass tune.preimage or cannot be pinned, or that get no staging set, run the plain protocol of
 * call.c with one launch over all n elements. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* The plan of one pipelined call. Buffers without bytes take no part (their device pointer is
 * passed as it is). */
typedef struct map_plan {
    size_t n, per, chunks;
    int slots;  /* of the staging set */
    size_t lag; /* a chunk is drained this many steps after it was filled: the slots, so
                 * that the slot is free again just when the next chunk's copy out needs it */
    size_t esize[CH_RT_MAX_BUFFERS];
    ch_rt_route route[CH_RT_MAX_BUFFERS]; /* SKIP, DIRECT or STAGED */
    size_t in_at[CH_RT_MAX_BUFFERS];      /* a staged in buffer's piece: per * in_at into a slot */
    size_t out_at[CH_RT_MAX_BUFFERS];     /* a written-back piece: per * out_at into a slot */
    size_t pre_at[CH_RT_MAX_BUFFERS];     /* an inout buffer's place in the pre-image */
    size_t pre_bytes;
} map_plan;

/* Whether the buffer's chunks go through a slot's out piece on the way back: inout buffers
 * always (their write-back must be the host's, to be undone), out buffers unless direct. */
static int drained(const map_plan *p, const ch_rt_buffer *b, size_t i)
{
    return p->route[i] != CH_RT_SKIP &&
           (b[i].dir == CH_RT_INOUT || (b[i].dir == CH_RT_OUT && p->route[i] == CH_RT_STAGED));
}

/* Routes, slot and pre-image layout; the elements per chunk, 0 when the call is not cut. */
static size_t plan_map(ch_rt *rt, const ch_rt_buffer *bufs, size_t nb, size_t n,
                       const ch_rt_staging *s, map_plan *p)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->slots = s->slots;
    p->lag = (size_t)s->slots;
    size_t in_group = 0, out_group = 0, widest = 0;
    for (size_t i = 0; i < nb; i++) {
        p->esize[i] = bufs[i].bytes / n;
        widest = p->esize[i] > widest ? p->esize[i] : widest;
        p->route[i] = bufs[i].bytes == 0                             ? CH_RT_SKIP
                      : rt->ops.is_direct(rt->ops.ctx, bufs[i].host) ? CH_RT_DIRECT
                                                                     : CH_RT_STAGED;
        if (bufs[i].dir == CH_RT_INOUT && p->route[i] != CH_RT_SKIP) {
            p->pre_at[i] = p->pre_bytes;
            p->pre_bytes += bufs[i].bytes;
        }
        if (bufs[i].dir == CH_RT_IN && p->route[i] == CH_RT_STAGED) {
            p->in_at[i] = in_group;
            in_group += p->esize[i];
        }
    }
    for (size_t i = 0; i < nb; i++)
        if (drained(p, bufs, i)) {
            p->out_at[i] = in_group + out_group;
            out_group += p->esize[i];
        }
    ch_rt_tuning t = rt->tune;
    t.chunk = s->chunk; /* the set may predate a retune */
    size_t group = in_group + out_group;
    p->per = s->slots < 2 ? 0 : ch_rt_map_per_chunk(n, group > widest ? group : widest, &t);
    p->chunks = p->per ? (n + p->per - 1) / p->per : 0;
    return p->per;
}

/* The site's pinned pre-image of at least bytes (kept and grown across calls); 0, or nonzero
 * when it would pass the cap or cannot be had (the call then is not cut). */
static int preimage_ready(ch_rt *rt, ch_rt_site_state *st, size_t bytes)
{
    if (bytes == 0 || st->pre_cap >= bytes)
        return 0;
    if (bytes > rt->tune.preimage || (st->pre_refused && bytes >= st->pre_refused))
        return -1;
    size_t want = ch_rt_grow(st->pre_cap, bytes);
    if (want > rt->tune.preimage)
        want = bytes;
    if (st->pre)
        rt->ops.pinned_free(rt->ops.ctx, st->pre);
    st->pre = NULL;
    st->pre_cap = 0;
    if (rt->ops.pinned_alloc(rt->ops.ctx, &st->pre, want) != 0) {
        rt->ops.last_error(rt->ops.ctx, 1);
        st->pre = NULL;
        st->pre_refused = bytes;
        return -1;
    }
    st->pre_cap = want;
    return 0;
}

/* ---- host copies of one step, on the pool together ---- */

typedef struct host_task {
    unsigned char *dst;
    const unsigned char *src;
    size_t len;
    int parts, nt;
} host_task;

typedef struct host_job {
    host_task task[2 * CH_RT_MAX_BUFFERS];
    int tasks, parts;
} host_job;

static void add_task(ch_rt *rt, host_job *j, void *dst, const void *src, size_t len, int nt)
{
    if (len == 0)
        return;
    int parts = ch_rt_parts(len, &rt->tune);
    j->task[j->tasks++] = (host_task){dst, src, len, parts, (rt->tune.nt & nt) != 0};
    j->parts += parts;
}

static void run_part(void *arg, int part)
{
    host_job *j = arg;
    int t = 0;
    while (part >= j->task[t].parts)
        part -= j->task[t++].parts;
    size_t off, n;
    ch_rt_part_range(j->task[t].len, j->task[t].parts, part, &off, &n);
    ch_rt_copy_bytes(j->task[t].dst + off, j->task[t].src + off, n, j->task[t].nt);
}

/* ---- the pipeline ---- */

typedef struct map_call {
    ch_rt *rt;
    ch_rt_site_state *st;
    const ch_rt_buffer *bufs;
    size_t nb;
    const map_plan *p;
    ch_rt_staging *s;
    ch_rt_launch_range_fn launch;
    const void *ctx;
    int before;      /* a launch error of the program's was pending before the call */
    size_t returned; /* chunks written back into the caller's memory */
} map_call;

static size_t count_of(const map_plan *p, size_t k)
{
    return k * p->per + p->per <= p->n ? p->per : p->n - k * p->per;
}

static unsigned char *slot_piece(const map_call *c, size_t k, size_t at)
{
    return (unsigned char *)c->s->mem[k % (size_t)c->p->slots] + at * c->p->per;
}

/* The host copies of chunk k in: staged in buffers into the slot, inout ones into the
 * pre-image. */
static void add_fill(map_call *c, host_job *j, size_t k)
{
    const map_plan *p = c->p;
    size_t first = k * p->per, count = count_of(p, k);
    for (size_t i = 0; i < c->nb; i++) {
        const unsigned char *from = (const unsigned char *)c->bufs[i].host + first * p->esize[i];
        size_t len = count * p->esize[i];
        if (c->bufs[i].dir == CH_RT_INOUT && p->route[i] != CH_RT_SKIP)
            add_task(c->rt, j, (unsigned char *)c->st->pre + p->pre_at[i] + first * p->esize[i],
                     from, len, 1);
        else if (c->bufs[i].dir == CH_RT_IN && p->route[i] == CH_RT_STAGED)
            add_task(c->rt, j, slot_piece(c, k, p->in_at[i]), from, len, 1);
    }
}

/* The host copies of chunk k back into the caller's memory. */
static void add_drain(map_call *c, host_job *j, size_t k)
{
    const map_plan *p = c->p;
    size_t first = k * p->per, count = count_of(p, k);
    for (size_t i = 0; i < c->nb; i++)
        if (drained(p, c->bufs, i))
            add_task(c->rt, j, (unsigned char *)c->bufs[i].host + first * p->esize[i],
                     slot_piece(c, k, p->out_at[i]), count * p->esize[i], 2);
}

static int copy_chunk_in(map_call *c, size_t k)
{
    const map_plan *p = c->p;
    ch_rt *rt = c->rt;
    size_t first = k * p->per, count = count_of(p, k);
    for (size_t i = 0; i < c->nb; i++) {
        if (p->route[i] == CH_RT_SKIP || !ch_rt_copies_in(c->bufs[i].dir))
            continue;
        size_t at = first * p->esize[i];
        const unsigned char *src =
            c->bufs[i].dir == CH_RT_INOUT ? (const unsigned char *)c->st->pre + p->pre_at[i] + at
            : p->route[i] == CH_RT_STAGED ? slot_piece(c, k, p->in_at[i])
                                          : (const unsigned char *)c->bufs[i].host + at;
        int rc = rt->ops.copy(rt->ops.ctx, (unsigned char *)c->st->dev[i] + at, src,
                              count * p->esize[i], CH_RT_H2D, c->st->stream);
        if (rc != 0)
            return rc;
    }
    return rt->ops.record(rt->ops.ctx, c->s->ev[k % (size_t)p->slots], c->st->stream);
}

/* The launcher on chunk k once it is in; a launch error it did not report is peeked at (the
 * chunk's results must not come back), unless the program had one pending before. */
static int launch_chunk(map_call *c, size_t k)
{
    const map_plan *p = c->p;
    ch_rt *rt = c->rt;
    int rc = rt->ops.stream_wait(rt->ops.ctx, NULL, c->s->ev[k % (size_t)p->slots]);
    if (rc != 0)
        return rc;
    void *dev[CH_RT_MAX_BUFFERS];
    for (size_t i = 0; i < c->nb; i++)
        dev[i] = (unsigned char *)c->st->dev[i] + k * p->per * p->esize[i];
    rc = c->launch(dev, count_of(p, k), c->ctx);
    if (rc < 0)
        rc = CH_RT_LAUNCHER_BAD_STATUS;
    if (rc == 0 && c->before == 0)
        rc = rt->ops.last_error(rt->ops.ctx, 0);
    return rc ? rc : rt->ops.record(rt->ops.ctx, c->st->done, NULL);
}

static int copy_chunk_out(map_call *c, size_t k)
{
    const map_plan *p = c->p;
    ch_rt *rt = c->rt;
    int rc = rt->ops.stream_wait(rt->ops.ctx, c->st->stream_out, c->st->done);
    size_t first = k * p->per, count = count_of(p, k);
    for (size_t i = 0; i < c->nb && rc == 0; i++) {
        if (p->route[i] == CH_RT_SKIP || !ch_rt_copies_out(c->bufs[i].dir))
            continue;
        size_t at = first * p->esize[i];
        void *dst = drained(p, c->bufs, i) ? (void *)slot_piece(c, k, p->out_at[i])
                                           : (unsigned char *)c->bufs[i].host + at;
        rc = rt->ops.copy(rt->ops.ctx, dst, (unsigned char *)c->st->dev[i] + at,
                          count * p->esize[i], CH_RT_D2H, c->st->stream_out);
    }
    return rc ? rc
              : rt->ops.record(rt->ops.ctx, c->s->ev_out[k % (size_t)p->slots], c->st->stream_out);
}

/* Step k: fill chunk k and drain chunk k - lag, then queue chunk k's copies and launch. */
static int step(map_call *c, size_t k)
{
    const map_plan *p = c->p;
    ch_rt *rt = c->rt;
    size_t slots = (size_t)p->slots;
    int fill = k < p->chunks, drain = k >= p->lag;
    int rc = 0;
    if (fill && k >= slots) /* the slot's in pieces were last read by chunk k - slots */
        rc = rt->ops.wait_event(rt->ops.ctx, c->s->ev[k % slots]);
    if (rc == 0 && drain)
        rc = rt->ops.wait_event(rt->ops.ctx, c->s->ev_out[(k - p->lag) % slots]);
    if (rc != 0)
        return rc;
    host_job j;
    j.tasks = j.parts = 0;
    if (fill)
        add_fill(c, &j, k);
    if (drain)
        add_drain(c, &j, k - p->lag);
    ch_rt_pool_run(&rt->pool, j.parts, run_part, &j);
    if (drain)
        c->returned = k - p->lag + 1;
    if (!fill)
        return 0;
    rc = copy_chunk_in(c, k);
    if (rc == 0)
        rc = launch_chunk(c, k);
    if (rc == 0)
        rc = copy_chunk_out(c, k);
    return rc;
}

/* After a failure: the inout chunks already written back, from the pre-image. */
static void restore(map_call *c)
{
    const map_plan *p = c->p;
    host_job j;
    j.tasks = j.parts = 0;
    size_t elems = c->returned * p->per < p->n ? c->returned * p->per : p->n;
    for (size_t i = 0; i < c->nb; i++)
        if (c->bufs[i].dir == CH_RT_INOUT && p->route[i] != CH_RT_SKIP)
            add_task(c->rt, &j, c->bufs[i].host, (unsigned char *)c->st->pre + p->pre_at[i],
                     elems * p->esize[i], 2);
    ch_rt_pool_run(&c->rt->pool, j.parts, run_part, &j);
}

/* Waits for everything the call queued (also after a failure: queued copies still read and
 * write the staging set and the pre-image); 0 or the first failure. */
static int settle(map_call *c)
{
    ch_rt *rt = c->rt;
    int rc = rt->ops.wait_stream(rt->ops.ctx, c->st->stream);
    int w = rt->ops.wait_event(rt->ops.ctx, c->st->done);
    rc = rc ? rc : w;
    w = rt->ops.wait_stream(rt->ops.ctx, c->st->stream_out);
    rc = rc ? rc : w;
    if (c->before == 0) {
        w = rt->ops.last_error(rt->ops.ctx, 1);
        rc = rc ? rc : w;
    }
    return rc;
}

static void count_bytes(const map_call *c, ch_rt_stats *stats)
{
    for (size_t i = 0; i < c->nb; i++) {
        if (c->p->route[i] == CH_RT_SKIP)
            continue;
        stats->staged += c->p->route[i] == CH_RT_STAGED;
        stats->direct += c->p->route[i] == CH_RT_DIRECT;
        stats->in_bytes += ch_rt_copies_in(c->bufs[i].dir) ? c->bufs[i].bytes : 0;
        stats->out_bytes += ch_rt_copies_out(c->bufs[i].dir) ? c->bufs[i].bytes : 0;
    }
    stats->chunks = c->p->chunks;
    stats->per = c->p->per;
}

static int pipeline(map_call *c, ch_rt_stats *stats)
{
    ch_rt *rt = c->rt;
    count_bytes(c, stats);
    int rc = 0;
    if (!c->st->stream_out)
        rc = rt->ops.stream_create(rt->ops.ctx, &c->st->stream_out);
    if (rc != 0)
        return rc;
    c->before = rt->ops.last_error(rt->ops.ctx, 0);
    for (size_t k = 0; rc == 0 && k < c->p->chunks + c->p->lag; k++)
        rc = step(c, k);
    int w = settle(c);
    rc = rc ? rc : w;
    if (rc != 0 && c->returned)
        restore(c);
    return rc;
}

/* ---- the call ---- */

typedef struct whole_ctx {
    ch_rt_launch_range_fn launch;
    size_t n;
    const void *ctx;
} whole_ctx;

/* The launcher over all n elements, as ch_rt_call's launcher. */
static int launch_whole(void *const *dev, const void *ctx)
{
    const whole_ctx *w = ctx;
    return w->launch(dev, w->n, w->ctx);
}

static int check_map(const ch_rt_site *site, const ch_rt_buffer *bufs, size_t nb, size_t n,
                     ch_rt_launch_range_fn launch)
{
    int rc = launch ? ch_rt_check_buffers(site, bufs, nb) : CH_RT_E_ARGS;
    for (size_t i = 0; rc == 0 && i < nb; i++)
        if (n ? bufs[i].bytes % n != 0 : bufs[i].bytes != 0)
            rc = CH_RT_E_ARGS;
    return rc;
}

/* The pipelined call when it fits (*cut set; its status), else 0 with *cut clear and nothing
 * done on the device. */
static int try_pipeline(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t nb,
                        size_t n, ch_rt_launch_range_fn launch, const void *ctx, ch_rt_stats *stats,
                        int *cut)
{
    *cut = 0;
    ch_rt_staging *s = ch_rt_staging_get(rt);
    if (!s)
        return 0;
    map_plan *p = malloc(sizeof *p);
    int rc = 0;
    if (p && plan_map(rt, bufs, nb, n, s, p) && preimage_ready(rt, st, p->pre_bytes) == 0) {
        map_call c = {rt, st, bufs, nb, p, s, launch, ctx, 0, 0};
        *cut = 1;
        rc = ch_rt_site_ready(rt, st);
        if (rc == 0)
            rc = ch_rt_buffers_ensure(rt, st, bufs, nb);
        if (rc == 0)
            rc = ch_rt_buffers_scrub(rt, st, bufs, nb);
        if (rc == 0)
            rc = pipeline(&c, stats);
    }
    free(p);
    ch_rt_staging_put(rt, s);
    return rc;
}

int ch_rt_call_map(ch_rt *rt, ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs, size_t n,
                   ch_rt_launch_range_fn launch, const void *ctx)
{
    int rc = check_map(site, bufs, n_bufs, n, launch);
    if (rc != 0 || n == 0)
        return rc;
    ch_rt_site_state *st = NULL;
    rc = ch_rt_call_enter(rt, site, &st);
    if (rc != 0)
        return rc;
    ch_rt_stats stats = {0};
    double t[4];
    t[0] = ch_rt_now_ms();
    int cut;
    rc = try_pipeline(rt, st, bufs, n_bufs, n, launch, ctx, &stats, &cut);
    t[1] = t[2] = t[3] = ch_rt_now_ms();
    if (!cut) {
        whole_ctx w = {launch, n, ctx};
        stats = (ch_rt_stats){0};
        rc = ch_rt_call_whole(rt, st, bufs, n_bufs, launch_whole, &w, &stats, t);
    }
    return ch_rt_call_leave(rt, st, rc, &stats, t);
}
