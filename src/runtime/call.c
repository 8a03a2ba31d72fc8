/* Runtime, the call protocol (rt.h): one host-pointer call of an entry.
 *
 *   site lock -> device buffers -> copy in -> device launcher -> wait -> copy out -> unlock
 *
 * Every step returns a status; the first nonzero one ends the call, and since the caller's
 * memory is written only by the last step (staging.c), the dispatcher's host path then starts
 * from the caller's data as it was. After a failure the device is asked whether it still works:
 * if not (a sticky error: an illegal address, a lost device) the GPU path is off for the rest of
 * the process, said once on stderr; a site whose calls keep failing otherwise takes the host
 * path from then on, said once too. A lack of device memory is neither: the next, smaller call
 * may fit. A map call (map.c) enters and leaves the same way, with its own middle. */
#include <stdio.h>
#include <time.h>

#include "rt.h"

#define FAILURES_BEFORE_OFF 3

double ch_rt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int ch_rt_check_buffers(const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n)
{
    if (!site || (n && !bufs) || n > CH_RT_MAX_BUFFERS)
        return CH_RT_E_ARGS;
    for (size_t i = 0; i < n; i++)
        if ((bufs[i].dir != CH_RT_IN && bufs[i].dir != CH_RT_OUT && bufs[i].dir != CH_RT_INOUT) ||
            (bufs[i].bytes && !bufs[i].host) || bufs[i].bytes > (size_t)1 << 48)
            return CH_RT_E_ARGS;
    return 0;
}

int ch_rt_site_ready(ch_rt *rt, ch_rt_site_state *st)
{
    int rc = 0;
    if (!st->stream)
        rc = rt->ops.stream_create(rt->ops.ctx, &st->stream);
    if (rc == 0 && !st->done)
        rc = rt->ops.event_create(rt->ops.ctx, &st->done);
    return rc;
}

/* Runs the device launcher and waits for its kernels. A launch error the launcher did not
 * report is taken from the thread's error state, unless that already held an error before the
 * launch (a call that finds the program's own error pending never gets here: CH_RT_E_PENDING). */
static int launch_and_wait(ch_rt *rt, ch_rt_site_state *st, ch_rt_launch_fn launch, const void *ctx)
{
    int before = rt->ops.last_error(rt->ops.ctx, 0);
    int rc = launch(st->dev, ctx);
    if (rc < 0)
        rc = CH_RT_LAUNCHER_BAD_STATUS;
    if (rc == 0)
        rc = rt->ops.record(rt->ops.ctx, st->done, NULL);
    if (rc == 0)
        rc = rt->ops.wait_event(rt->ops.ctx, st->done);
    if (before == 0) {
        int after = rt->ops.last_error(rt->ops.ctx, 1);
        if (rc == 0)
            rc = after;
    }
    return rc;
}

/* Judges a failed call; returns its status. */
static int failed(ch_rt *rt, ch_rt_site_state *st, int rc)
{
    if (rc == CH_RT_E_HOSTMEM || rc == CH_RT_E_DEVMEM)
        return rc;
    if (rt->ops.recover(rt->ops.ctx) != 0) {
        char why[256];
        snprintf(why, sizeof why, "%s in a call of %s left the device unusable",
                 ch_rt_status_name(rt, rc), st->name);
        ch_rt_turn_off(rt, why);
        return rc;
    }
    if (++st->failures >= FAILURES_BEFORE_OFF && !st->off) {
        st->off = 1;
        fprintf(stderr,
                "ch-cc: %s: the GPU path failed in %d calls in a row (last: %s); this function "
                "takes the host path from now on\n",
                st->name, st->failures, ch_rt_status_name(rt, rc));
    }
    return rc;
}

/* "12.0 MiB", "512 B" */
static void size_text(size_t bytes, char *buf, size_t cap)
{
    if (bytes >= 1024 * 1024)
        snprintf(buf, cap, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    else if (bytes >= 1024)
        snprintf(buf, cap, "%.1f KiB", (double)bytes / 1024.0);
    else
        snprintf(buf, cap, "%zu B", bytes);
}

static double gbps(size_t bytes, double ms)
{
    return ms > 0 ? (double)bytes / (ms * 1e6) : 0.0;
}

static void trace(ch_rt *rt, const ch_rt_site_state *st, const ch_rt_stats *s, const double t[4],
                  int rc)
{
    char in[32], out[32], how[1280];
    size_text(s->in_bytes, in, sizeof in);
    size_text(s->out_bytes, out, sizeof out);
    if (s->chunks) /* a map call: the three steps ran at once, chunk by chunk */
        snprintf(how, sizeof how,
                 "in %s, out %s overlapped with the kernels in %zu chunks of %zu elements, %.3f ms "
                 "(%.1f GB/s in, %.1f GB/s out)",
                 in, out, s->chunks, s->per, t[3] - t[0], gbps(s->in_bytes, t[3] - t[0]),
                 gbps(s->out_bytes, t[3] - t[0]));
    else
        snprintf(how, sizeof how,
                 "in %s %.3f ms (%.1f GB/s), kernels %.3f ms, out %s %.3f ms (%.1f GB/s)", in,
                 t[1] - t[0], gbps(s->in_bytes, t[1] - t[0]), t[2] - t[1], out, t[3] - t[2],
                 gbps(s->out_bytes, t[3] - t[2]));
    fprintf(stderr, "ch-cc: %s: runtime: %s; buffers %d staged, %d plain, %d direct%s%s\n",
            st->name, how, s->staged, s->plain, s->direct, rc ? "; failed: " : "",
            rc ? ch_rt_status_name(rt, rc) : "");
}

int ch_rt_call_enter(ch_rt *rt, ch_rt_site *site, ch_rt_site_state **out)
{
    if (!ch_rt_probe(rt))
        return CH_RT_E_OFF;
    /* An error of the program's own is pending (a failed call it has not checked yet): the
     * launchers were verified in a clean process, and one that reads the error state could
     * behave differently here, so the host path computes this call and the error stays for the
     * program to see. Not a failure of the site's: it does not count towards turning it off. */
    if (rt->ops.last_error(rt->ops.ctx, 0) != 0)
        return CH_RT_E_PENDING;
    ch_rt_site_state *st = ch_rt_site_state_of(rt, site);
    if (!st)
        return CH_RT_E_HOSTMEM;
    pthread_mutex_lock(&st->lock);
    if (st->off || ch_rt_is_off(rt)) {
        pthread_mutex_unlock(&st->lock);
        return CH_RT_E_OFF;
    }
    *out = st;
    return 0;
}

int ch_rt_call_whole(ch_rt *rt, ch_rt_site_state *st, const ch_rt_buffer *bufs, size_t n,
                     ch_rt_launch_fn launch, const void *ctx, ch_rt_stats *stats, double t[4])
{
    t[0] = ch_rt_now_ms();
    int rc = ch_rt_site_ready(rt, st);
    if (rc == 0)
        rc = ch_rt_buffers_ensure(rt, st, bufs, n);
    if (rc == 0)
        rc = ch_rt_buffers_scrub(rt, st, bufs, n);
    if (rc == 0)
        rc = ch_rt_copy_in(rt, st, bufs, n, stats);
    t[1] = ch_rt_now_ms();
    if (rc == 0)
        rc = launch_and_wait(rt, st, launch, ctx);
    t[2] = ch_rt_now_ms();
    if (rc == 0)
        rc = ch_rt_copy_out(rt, st, bufs, n, stats);
    t[3] = ch_rt_now_ms();
    return rc;
}

int ch_rt_call_leave(ch_rt *rt, ch_rt_site_state *st, int rc, const ch_rt_stats *stats,
                     const double t[4])
{
    if (rc != 0) {
        rc = failed(rt, st, rc);
    } else {
        st->failures = 0;
        __atomic_store_n(&rt->set_up, 1, __ATOMIC_RELEASE);
    }
    if (rt->trace)
        trace(rt, st, stats, t, rc);
    pthread_mutex_unlock(&st->lock);
    return rc;
}

int ch_rt_call(ch_rt *rt, ch_rt_site *site, const ch_rt_buffer *bufs, size_t n,
               ch_rt_launch_fn launch, const void *ctx)
{
    ch_rt_site_state *st = NULL;
    int rc = launch ? ch_rt_check_buffers(site, bufs, n) : CH_RT_E_ARGS;
    if (rc == 0)
        rc = ch_rt_call_enter(rt, site, &st);
    if (rc != 0)
        return rc;
    ch_rt_stats stats = {0};
    double t[4];
    rc = ch_rt_call_whole(rt, st, bufs, n, launch, ctx, &stats, t);
    return ch_rt_call_leave(rt, st, rc, &stats, t);
}

const char *ch_rt_status_name(ch_rt *rt, int status)
{
    switch (status) {
    case 0:
        return "success";
    case CH_RT_E_OFF:
        return "the GPU path is off";
    case CH_RT_E_ARGS:
        return "bad arguments (a negative or overflowing size, or a null buffer)";
    case CH_RT_E_HOSTMEM:
        return "no host memory for the runtime";
    case CH_RT_E_DEVMEM:
        return "no device memory for the call's buffers";
    case CH_RT_E_PARTIAL:
        return "the device failed while results were written back";
    case CH_RT_E_PENDING:
        return "a CUDA error of the program's was pending before the call";
    default:
        if (status > 0 && rt && rt->ops.error_name)
            return rt->ops.error_name(rt->ops.ctx, status);
        return "unknown status";
    }
}
