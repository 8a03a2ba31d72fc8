/* Runtime, device buffers (rt.h): each site keeps one device buffer per parameter across calls,
 * grown (never shrunk) when a call needs more. Allocating is what a kernel call cannot afford
 * every time (cudaMalloc + cudaFree of 256 MiB: 0.23 ms), and a site's calls take turns, so one
 * set per site is enough. When the device has no memory left, the site lets go of its own
 * buffers and of the buffers of sites nobody is calling, then tries once more at the exact
 * size; after that the call takes the host path. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Room for n buffers in st's arrays; 0 or CH_RT_E_HOSTMEM. */
static int room_for(ch_rt_site_state *st, size_t n)
{
    if (st->n_dev >= n)
        return 0;
    void **dev = realloc(st->dev, n * sizeof *dev);
    if (!dev)
        return CH_RT_E_HOSTMEM;
    st->dev = dev;
    size_t *cap = realloc(st->cap, n * sizeof *cap);
    if (!cap)
        return CH_RT_E_HOSTMEM;
    st->cap = cap;
    for (size_t i = st->n_dev; i < n; i++) {
        st->dev[i] = NULL;
        st->cap[i] = 0;
    }
    st->n_dev = n;
    return 0;
}

void ch_rt_buffers_free(ch_rt *rt, ch_rt_site_state *st)
{
    for (size_t i = 0; i < st->n_dev; i++) {
        if (st->dev[i])
            rt->ops.dev_free(rt->ops.ctx, st->dev[i]);
        st->dev[i] = NULL;
        st->cap[i] = 0;
    }
}

/* Bytes past the end of every device buffer that no call uses: the next allocation can never
 * begin where a buffer's data ends, so a launcher's `y == x + n` (two buffers carved from one
 * allocation, as a user's program may do and verification may test) is never true of the
 * runtime's buffers, whatever cudaMalloc packs together (attacks7 #07). Call sizes are below
 * 2^48 (ch_rt_check_buffers), so the sum cannot overflow. */
#define GUARD_BYTES 256

int ch_rt_buffers_fit(const ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n)
{
    if (st->n_dev < (n ? n : 1))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!st->dev[i] || st->cap[i] < bufs[i].bytes + GUARD_BYTES)
            return 0;
    return 1;
}

int ch_rt_buffers_scrub(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        assert(st->dev[i] && st->cap[i] >= bufs[i].bytes + GUARD_BYTES); /* after ensure */
        size_t from = bufs[i].dir == CH_RT_OUT ? 0 : bufs[i].bytes;
        rc = rt->ops.zero(rt->ops.ctx, (unsigned char *)st->dev[i] + from, st->cap[i] - from);
    }
    return rc;
}

/* Allocates what the buffers lack: grown capacities, or exactly what they need. */
static int allocate(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n, int exact)
{
    for (size_t i = 0; i < n; i++) {
        size_t need = bufs[i].bytes + GUARD_BYTES;
        if (st->dev[i] && st->cap[i] >= need)
            continue;
        size_t want = exact ? ch_rt_grow(0, need) : ch_rt_grow(st->cap[i], need);
        if (st->dev[i])
            rt->ops.dev_free(rt->ops.ctx, st->dev[i]);
        st->dev[i] = NULL;
        st->cap[i] = 0;
        void *p = NULL;
        int rc = rt->ops.dev_alloc(rt->ops.ctx, &p, want);
        if (rc != 0)
            return rc;
        st->dev[i] = p;
        st->cap[i] = want;
    }
    return 0;
}

/* Frees the buffers of every other site that no call holds now. */
static void evict_idle(ch_rt *rt, ch_rt_site_state *self)
{
    pthread_mutex_lock(&rt->lock);
    for (ch_rt_site_state *st = rt->sites; st; st = st->next)
        if (st != self && pthread_mutex_trylock(&st->lock) == 0) {
            ch_rt_buffers_free(rt, st);
            pthread_mutex_unlock(&st->lock);
        }
    pthread_mutex_unlock(&rt->lock);
}

int ch_rt_buffers_ensure(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n)
{
    if (room_for(st, n ? n : 1) != 0)
        return CH_RT_E_HOSTMEM;
    int rc = allocate(rt, st, bufs, n, 0);
    if (rc == 0)
        return 0;
    /* a device that fails for another reason than memory is the caller's to judge */
    if (rt->ops.recover(rt->ops.ctx) != 0)
        return rc;
    ch_rt_buffers_free(rt, st);
    evict_idle(rt, st);
    if (allocate(rt, st, bufs, n, 1) == 0)
        return 0;
    rt->ops.recover(rt->ops.ctx); /* clears the thread's allocation error */
    ch_rt_buffers_free(rt, st);
    return CH_RT_E_DEVMEM;
}
