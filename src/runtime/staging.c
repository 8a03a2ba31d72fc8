/* Runtime, copies (rt.h): host to device and back.
 *
 * Each buffer takes a route (plan.c): memory the device reaches itself (pinned, registered,
 * managed) is copied directly; small buffers go in one plain copy; the rest goes through a
 * staging set, a ring of pinned chunks. Copying in, the host threads fill chunk k while the DMA
 * of chunk k-1 runs, and a chunk is refilled only after the event recorded behind its last
 * transfer has passed. Copying out, the transfers of the first chunks are queued at once and
 * each chunk, once its event has passed, is drained by the host threads into the caller's memory
 * and queued again for a later chunk. All of a site's copies go through its own stream, so calls
 * of different entries overlap on the device.
 *
 * Writing back is all-or-nothing where it matters: out buffers come back first (the host path
 * rewrites every element of them if a later step fails), inout buffers last, and a failure after
 * a byte of an inout buffer was written is CH_RT_E_PARTIAL. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* ---- staging sets ---- */

void ch_rt_staging_free(ch_rt *rt, ch_rt_staging *s)
{
    for (int i = 0; i < CH_RT_MAX_SLOTS; i++) {
        if (s->mem[i])
            rt->ops.pinned_free(rt->ops.ctx, s->mem[i]);
        if (s->ev[i])
            rt->ops.event_destroy(rt->ops.ctx, s->ev[i]);
        if (s->ev_out[i])
            rt->ops.event_destroy(rt->ops.ctx, s->ev_out[i]);
    }
    free(s);
}

/* A new set of t's shape, or NULL. */
static ch_rt_staging *staging_new(ch_rt *rt, const ch_rt_tuning *t)
{
    ch_rt_staging *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->slots = t->slots;
    s->chunk = t->chunk;
    s->busy = 1;
    for (int i = 0; i < s->slots; i++)
        if (rt->ops.pinned_alloc(rt->ops.ctx, &s->mem[i], s->chunk) != 0 ||
            rt->ops.event_create(rt->ops.ctx, &s->ev[i]) != 0 ||
            rt->ops.event_create(rt->ops.ctx, &s->ev_out[i]) != 0) {
            rt->ops.last_error(rt->ops.ctx, 1);
            ch_rt_staging_free(rt, s);
            return NULL;
        }
    return s;
}

ch_rt_staging *ch_rt_staging_get(ch_rt *rt)
{
    pthread_mutex_lock(&rt->lock);
    for (;;) {
        if (rt->no_pinned) {
            pthread_mutex_unlock(&rt->lock);
            return NULL;
        }
        for (ch_rt_staging *s = rt->staging; s; s = s->next)
            if (!s->busy && s->chunk == rt->tune.chunk && s->slots == rt->tune.slots) {
                s->busy = 1;
                pthread_mutex_unlock(&rt->lock);
                return s;
            }
        if (rt->n_staging < rt->tune.sets)
            break;
        pthread_cond_wait(&rt->staging_free, &rt->lock);
    }
    rt->n_staging++; /* reserved: allocated below without the lock (it takes milliseconds) */
    ch_rt_tuning t = rt->tune;
    pthread_mutex_unlock(&rt->lock);
    ch_rt_staging *s = staging_new(rt, &t);
    pthread_mutex_lock(&rt->lock);
    if (s) {
        s->next = rt->staging;
        rt->staging = s;
    } else {
        rt->n_staging--;
        rt->no_pinned = 1; /* plain copies from now on rather than failing again */
        pthread_cond_broadcast(&rt->staging_free);
    }
    pthread_mutex_unlock(&rt->lock);
    return s;
}

void ch_rt_staging_put(ch_rt *rt, ch_rt_staging *s)
{
    pthread_mutex_lock(&rt->lock);
    s->busy = 0;
    if (s->chunk != rt->tune.chunk || s->slots != rt->tune.slots) { /* retuned meanwhile */
        for (ch_rt_staging **q = &rt->staging; *q; q = &(*q)->next)
            if (*q == s) {
                *q = s->next;
                break;
            }
        rt->n_staging--;
        ch_rt_staging_free(rt, s);
    }
    pthread_cond_broadcast(&rt->staging_free);
    pthread_mutex_unlock(&rt->lock);
}

/* ---- host copies on the pool ---- */

typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
    size_t len;
    int parts, nt;
} copy_job;

static void copy_part(void *arg, int part)
{
    copy_job *j = arg;
    size_t off, n;
    ch_rt_part_range(j->len, j->parts, part, &off, &n);
    ch_rt_copy_bytes(j->dst + off, j->src + off, n, j->nt);
}

/* nt: the bit of tune.nt for this direction */
static void host_copy(ch_rt *rt, void *dst, const void *src, size_t len, int nt)
{
    copy_job j = {dst, src, len, ch_rt_parts(len, &rt->tune), (rt->tune.nt & nt) != 0};
    ch_rt_pool_run(&rt->pool, j.parts, copy_part, &j);
}

/* ---- routes ---- */

/* Routes of the buffers that move in this direction (want(dir)); returns whether any is
 * staged. Small buffers skip the pointer query: the plain copy serves every kind of memory. */
static int plan_routes(ch_rt *rt, const ch_rt_buffer *bufs, size_t n, int (*want)(int),
                       int only_dir, ch_rt_route *routes)
{
    int staged = 0;
    for (size_t i = 0; i < n; i++) {
        routes[i] = CH_RT_SKIP;
        if (!want(bufs[i].dir) || (only_dir && bufs[i].dir != only_dir))
            continue;
        size_t bytes = bufs[i].bytes;
        int direct = bytes >= rt->tune.small && rt->ops.is_direct(rt->ops.ctx, bufs[i].host);
        routes[i] = ch_rt_route_for(bytes, direct, 1, &rt->tune);
        staged |= routes[i] == CH_RT_STAGED;
    }
    return staged;
}

/* Counts the routes into stats; returns how many buffers move at all. */
static int count_routes(const ch_rt_route *routes, size_t n, ch_rt_stats *stats)
{
    int moving = 0;
    for (size_t i = 0; i < n; i++) {
        stats->staged += routes[i] == CH_RT_STAGED;
        stats->plain += routes[i] == CH_RT_PLAIN;
        stats->direct += routes[i] == CH_RT_DIRECT;
        moving += routes[i] != CH_RT_SKIP;
    }
    return moving;
}

/* Staged buffers become plain when no staging set could be had. */
static void unstage(ch_rt_route *routes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (routes[i] == CH_RT_STAGED)
            routes[i] = CH_RT_PLAIN;
}

/* The direct or plain copies (route r) of one direction. */
static int copy_whole(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                      const ch_rt_route *routes, ch_rt_route r, int kind, int *wrote)
{
    for (size_t i = 0; i < n; i++) {
        if (routes[i] != r)
            continue;
        int rc = kind == CH_RT_H2D ? rt->ops.copy(rt->ops.ctx, st->dev[i], bufs[i].host,
                                                  bufs[i].bytes, kind, st->stream)
                                   : rt->ops.copy(rt->ops.ctx, bufs[i].host, st->dev[i],
                                                  bufs[i].bytes, kind, st->stream);
        /* a copy refused when issued wrote nothing, unless the device broke under it (a
         * copy from pageable memory may have written part of it before) */
        if (wrote && (rc == 0 || rt->ops.recover(rt->ops.ctx) != 0))
            *wrote = 1;
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The staging set's chunk size as the cursor's tuning (the set may predate a retune). */
static ch_rt_tuning set_tuning(const ch_rt *rt, const ch_rt_staging *s)
{
    ch_rt_tuning t = rt->tune;
    t.chunk = s->chunk;
    if (t.minchk > t.chunk)
        t.minchk = t.chunk;
    return t;
}

/* ---- in ---- */

static int staged_in(ch_rt *rt, ch_rt_site_state *st, ch_rt_staging *s, const ch_rt_buffer *bufs,
                     size_t n, const ch_rt_route *routes)
{
    ch_rt_tuning t = set_tuning(rt, s);
    ch_rt_cursor c;
    ch_rt_cursor_init(&c, bufs, routes, n, &t);
    size_t b, off, len, k = 0;
    while (ch_rt_cursor_next(&c, &b, &off, &len)) {
        int slot = (int)(k % (size_t)s->slots);
        int rc = 0;
        if (k >= (size_t)s->slots) /* the slot's last transfer must be over */
            rc = rt->ops.wait_event(rt->ops.ctx, s->ev[slot]);
        if (rc == 0) {
            host_copy(rt, s->mem[slot], (const unsigned char *)bufs[b].host + off, len, 1);
            rc = rt->ops.copy(rt->ops.ctx, (unsigned char *)st->dev[b] + off, s->mem[slot], len,
                              CH_RT_H2D, st->stream);
        }
        if (rc == 0)
            rc = rt->ops.record(rt->ops.ctx, s->ev[slot], st->stream);
        if (rc != 0)
            return rc;
        k++;
    }
    return 0;
}

int ch_rt_copy_in(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                  ch_rt_stats *stats)
{
    ch_rt_route routes[CH_RT_MAX_BUFFERS];
    ch_rt_staging *s = NULL;
    if (plan_routes(rt, bufs, n, ch_rt_copies_in, 0, routes) && !(s = ch_rt_staging_get(rt)))
        unstage(routes, n);
    if (!count_routes(routes, n, stats))
        return 0; /* nothing to wait for either */
    for (size_t i = 0; i < n; i++)
        stats->in_bytes += routes[i] != CH_RT_SKIP ? bufs[i].bytes : 0;
    /* direct transfers first: the DMA reads them while the host threads fill staging */
    int rc = copy_whole(rt, st, bufs, n, routes, CH_RT_DIRECT, CH_RT_H2D, NULL);
    if (rc == 0 && s)
        rc = staged_in(rt, st, s, bufs, n, routes);
    if (rc == 0)
        rc = copy_whole(rt, st, bufs, n, routes, CH_RT_PLAIN, CH_RT_H2D, NULL);
    /* wait even after a failure: a transfer still queued may read the staging set */
    int w = rt->ops.wait_stream(rt->ops.ctx, st->stream);
    if (s)
        ch_rt_staging_put(rt, s);
    return rc ? rc : w;
}

/* ---- out ---- */

typedef struct pending {
    size_t b, off, len;
} pending;

static int queue_out(ch_rt *rt, ch_rt_site_state *st, ch_rt_staging *s, int slot, const pending *p)
{
    int rc = rt->ops.copy(rt->ops.ctx, s->mem[slot], (const unsigned char *)st->dev[p->b] + p->off,
                          p->len, CH_RT_D2H, st->stream);
    return rc ? rc : rt->ops.record(rt->ops.ctx, s->ev[slot], st->stream);
}

static int staged_out(ch_rt *rt, ch_rt_site_state *st, ch_rt_staging *s, const ch_rt_buffer *bufs,
                      size_t n, const ch_rt_route *routes, int *wrote)
{
    ch_rt_tuning t = set_tuning(rt, s);
    ch_rt_cursor c;
    ch_rt_cursor_init(&c, bufs, routes, n, &t);
    pending ring[CH_RT_MAX_SLOTS];
    size_t queued = 0, drained = 0;
    int rc = 0;
    while (rc == 0 && queued < (size_t)s->slots &&
           ch_rt_cursor_next(&c, &ring[queued].b, &ring[queued].off, &ring[queued].len)) {
        rc = queue_out(rt, st, s, (int)queued, &ring[queued]);
        queued++;
    }
    while (rc == 0 && drained < queued) {
        int slot = (int)(drained % (size_t)s->slots);
        rc = rt->ops.wait_event(rt->ops.ctx, s->ev[slot]);
        if (rc != 0)
            break;
        pending *p = &ring[slot];
        if (wrote)
            *wrote = 1;
        host_copy(rt, (unsigned char *)bufs[p->b].host + p->off, s->mem[slot], p->len, 2);
        drained++;
        if (ch_rt_cursor_next(&c, &p->b, &p->off, &p->len)) {
            rc = queue_out(rt, st, s, slot, p);
            queued++;
        }
    }
    return rc;
}

/* The buffers of direction dir back from the device. wrote (may be NULL) is set once the
 * caller's memory may have been written. */
static int copy_out_dir(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                        int dir, ch_rt_stats *stats, int *wrote)
{
    ch_rt_route routes[CH_RT_MAX_BUFFERS];
    ch_rt_staging *s = NULL;
    if (plan_routes(rt, bufs, n, ch_rt_copies_out, dir, routes) && !(s = ch_rt_staging_get(rt)))
        unstage(routes, n);
    if (!count_routes(routes, n, stats))
        return 0;
    for (size_t i = 0; i < n; i++)
        stats->out_bytes += routes[i] != CH_RT_SKIP ? bufs[i].bytes : 0;
    int rc = 0;
    /* out buffers: direct transfers first, they run while staged chunks drain; inout buffers:
     * staged chunks first, so that a transfer failing before the first drain leaves them as
     * they were */
    if (dir == CH_RT_OUT)
        rc = copy_whole(rt, st, bufs, n, routes, CH_RT_DIRECT, CH_RT_D2H, wrote);
    if (rc == 0 && s)
        rc = staged_out(rt, st, s, bufs, n, routes, wrote);
    if (rc == 0 && dir != CH_RT_OUT)
        rc = copy_whole(rt, st, bufs, n, routes, CH_RT_DIRECT, CH_RT_D2H, wrote);
    if (rc == 0)
        rc = copy_whole(rt, st, bufs, n, routes, CH_RT_PLAIN, CH_RT_D2H, wrote);
    int w = rt->ops.wait_stream(rt->ops.ctx, st->stream);
    if (s)
        ch_rt_staging_put(rt, s);
    return rc ? rc : w;
}

int ch_rt_copy_out(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                   ch_rt_stats *stats)
{
    int rc = copy_out_dir(rt, st, bufs, n, CH_RT_OUT, stats, NULL);
    if (rc != 0)
        return rc; /* no inout byte written: the host path recomputes everything */
    int wrote = 0;
    rc = copy_out_dir(rt, st, bufs, n, CH_RT_INOUT, stats, &wrote);
    return rc != 0 && wrote ? CH_RT_E_PARTIAL : rc;
}
