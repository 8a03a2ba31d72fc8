/* Runtime, lifecycle (rt.h): instances, the state of each site, the device probe, turning the
 * GPU path off, fork and exit.
 *
 * Fork: a CUDA context does not survive fork, so a child forked after this process touched the
 * device (the probe is the first touch) never uses it: every call there returns CH_RT_E_OFF and
 * the dispatcher runs the host path. A child forked before that probes and uses the device as
 * any process would. The handlers hold every instance's lock and pool lock across fork, so the
 * child never inherits one of them held by a thread that does not exist there; sites' locks are
 * not needed by a child that leaves the device alone, and a child that may use it has no sites
 * yet (sites exist only after a probe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static pthread_mutex_t instances_lock = PTHREAD_MUTEX_INITIALIZER;
static ch_rt *instances;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void register_atfork(void)
{
    pthread_atfork(ch_rt_fork_prepare, ch_rt_fork_parent, ch_rt_fork_child);
}

void ch_rt_init(ch_rt *rt, const ch_rt_ops *ops, const ch_rt_tuning *t)
{
    pthread_once(&atfork_once, register_atfork);
    memset(rt, 0, sizeof *rt);
    rt->ops = *ops;
    rt->tune = *t;
    ch_rt_tuning_clamp(&rt->tune);
    pthread_mutex_init(&rt->lock, NULL);
    pthread_cond_init(&rt->staging_free, NULL);
    ch_rt_pool_init(&rt->pool);
    pthread_mutex_lock(&instances_lock);
    rt->next_instance = instances;
    instances = rt;
    pthread_mutex_unlock(&instances_lock);
}

static void free_site_device(ch_rt *rt, ch_rt_site_state *st)
{
    ch_rt_buffers_free(rt, st);
    if (st->stream)
        rt->ops.stream_destroy(rt->ops.ctx, st->stream);
    if (st->done)
        rt->ops.event_destroy(rt->ops.ctx, st->done);
    if (st->stream_out)
        rt->ops.stream_destroy(rt->ops.ctx, st->stream_out);
    if (st->pre)
        rt->ops.pinned_free(rt->ops.ctx, st->pre);
    st->stream = st->done = st->stream_out = st->pre = NULL;
    st->pre_cap = 0;
}

/* Unlinks and frees the staging sets nobody holds. Called with rt->lock held. */
static void free_idle_staging(ch_rt *rt, int all_shapes)
{
    for (ch_rt_staging **q = &rt->staging; *q;) {
        ch_rt_staging *s = *q;
        int keep =
            s->busy || (!all_shapes && s->chunk == rt->tune.chunk && s->slots == rt->tune.slots);
        if (keep) {
            q = &s->next;
            continue;
        }
        *q = s->next;
        rt->n_staging--;
        ch_rt_staging_free(rt, s);
    }
}

void ch_rt_destroy(ch_rt *rt)
{
    pthread_mutex_lock(&instances_lock);
    for (ch_rt **q = &instances; *q; q = &(*q)->next_instance)
        if (*q == rt) {
            *q = rt->next_instance;
            break;
        }
    pthread_mutex_unlock(&instances_lock);
    ch_rt_pool_destroy(&rt->pool);
    for (ch_rt_site_state *st = rt->sites, *next; st; st = next) {
        next = st->next;
        if (!rt->fork_off)
            free_site_device(rt, st);
        free(st->dev);
        free(st->cap);
        pthread_mutex_destroy(&st->lock);
        st->site->state = NULL;
        free(st);
    }
    rt->sites = NULL;
    if (!rt->fork_off)
        free_idle_staging(rt, 1);
    pthread_cond_destroy(&rt->staging_free);
    pthread_mutex_destroy(&rt->lock);
}

void ch_rt_release(ch_rt *rt)
{
    pthread_mutex_lock(&rt->lock);
    rt->off = 1; /* quietly: the process is ending */
    if (!rt->fork_off) {
        for (ch_rt_site_state *st = rt->sites; st; st = st->next)
            if (pthread_mutex_trylock(&st->lock) == 0) {
                free_site_device(rt, st);
                pthread_mutex_unlock(&st->lock);
            }
        free_idle_staging(rt, 1);
    }
    pthread_mutex_unlock(&rt->lock);
    ch_rt_pool_stop(&rt->pool);
}

int ch_rt_probe(ch_rt *rt)
{
    pthread_mutex_lock(&rt->lock);
    if (!rt->probed && !rt->fork_off) {
        rt->probed = 1;
        rt->used_device = 1; /* from here on a fork child must leave the device alone */
        rt->usable = rt->ops.probe(rt->ops.ctx) == 0;
    }
    int ok = rt->usable && !rt->off && !rt->fork_off;
    pthread_mutex_unlock(&rt->lock);
    return ok;
}

int ch_rt_setup(ch_rt *rt)
{
    if (!ch_rt_probe(rt))
        return 0;
    if (__atomic_load_n(&rt->set_up, __ATOMIC_ACQUIRE))
        return 1;
    void *one = NULL;
    if (rt->ops.dev_alloc(rt->ops.ctx, &one, 1) != 0) {
        /* the first call will find out whether the device works; nothing is set up */
        rt->ops.recover(rt->ops.ctx);
        return 1;
    }
    rt->ops.dev_free(rt->ops.ctx, one);
    ch_rt_staging *s = ch_rt_staging_get(rt);
    if (s)
        ch_rt_staging_put(rt, s);
    __atomic_store_n(&rt->set_up, 1, __ATOMIC_RELEASE);
    return 1;
}

int ch_rt_cold(ch_rt *rt, const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n)
{
    if (!__atomic_load_n(&rt->set_up, __ATOMIC_ACQUIRE))
        return CH_RT_COLD_DEVICE;
    ch_rt_site_state *st = site ? __atomic_load_n(&site->state, __ATOMIC_ACQUIRE) : NULL;
    if (!st)
        return CH_RT_COLD_BUFFERS;
    /* a call of the site holds its lock for the whole call: this one would queue behind it and
     * mostly find buffers of that call's size (calls of one site tend to have one size), so a
     * busy site counts as warm rather than making the caller wait to find out */
    if (pthread_mutex_trylock(&st->lock) != 0)
        return CH_RT_WARM;
    int fit = ch_rt_buffers_fit(st, bufs, n);
    pthread_mutex_unlock(&st->lock);
    return fit ? CH_RT_WARM : CH_RT_COLD_BUFFERS;
}

int ch_rt_is_off(ch_rt *rt)
{
    return __atomic_load_n(&rt->off, __ATOMIC_ACQUIRE) ||
           __atomic_load_n(&rt->fork_off, __ATOMIC_ACQUIRE);
}

void ch_rt_turn_off(ch_rt *rt, const char *why)
{
    pthread_mutex_lock(&rt->lock);
    int first = !rt->off;
    __atomic_store_n(&rt->off, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt->lock);
    if (first)
        fprintf(stderr,
                "ch-cc: runtime: %s; the GPU path is off for the rest of this process (the host "
                "path runs)\n",
                why);
}

ch_rt_site_state *ch_rt_site_state_of(ch_rt *rt, ch_rt_site *site)
{
    ch_rt_site_state *st = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
    if (st)
        return st;
    pthread_mutex_lock(&rt->lock);
    st = site->state;
    if (!st && (st = calloc(1, sizeof *st)) != NULL) {
        pthread_mutex_init(&st->lock, NULL);
        st->site = site;
        st->name = site->name ? site->name : "?";
        st->next = rt->sites;
        rt->sites = st;
        __atomic_store_n(&site->state, st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&rt->lock);
    return st;
}

void ch_rt_retune(ch_rt *rt, const ch_rt_tuning *t)
{
    pthread_mutex_lock(&rt->lock);
    rt->tune = *t;
    ch_rt_tuning_clamp(&rt->tune);
    free_idle_staging(rt, 0);
    pthread_cond_broadcast(&rt->staging_free);
    pthread_mutex_unlock(&rt->lock);
}

void ch_rt_fork_prepare(void)
{
    pthread_mutex_lock(&instances_lock);
    for (ch_rt *rt = instances; rt; rt = rt->next_instance) {
        pthread_mutex_lock(&rt->lock);
        ch_rt_pool_fork_prepare(&rt->pool);
    }
}

void ch_rt_fork_parent(void)
{
    for (ch_rt *rt = instances; rt; rt = rt->next_instance) {
        ch_rt_pool_fork_parent(&rt->pool);
        pthread_mutex_unlock(&rt->lock);
    }
    pthread_mutex_unlock(&instances_lock);
}

void ch_rt_fork_child(void)
{
    for (ch_rt *rt = instances; rt; rt = rt->next_instance) {
        ch_rt_pool_fork_child(&rt->pool);
        if (!ch_rt_child_may_use_device(rt->used_device))
            rt->fork_off = 1;
        pthread_mutex_init(&rt->lock, NULL);
        pthread_cond_init(&rt->staging_free, NULL);
    }
    pthread_mutex_init(&instances_lock, NULL);
}
