/* Runtime, the public interface (ch/runtime.h): the process's one instance over the CUDA
 * runtime, made on the first use, tuned from the environment (CH_CC_RT_*), tracing under
 * CH_CC_TRACE, with injected faults under CH_CC_RT_FAULT; its device memory is freed at exit
 * (the handler is registered after the first CUDA call, so it runs before CUDA's own).
 *
 * The device's set-up (driver load, context, the first staging set) costs a first call tens to
 * hundreds of milliseconds. CH_CC_DEVICE_INIT=load pays it before main instead, for programs
 * (and benchmarks) that time their calls and not their start; the default stays lazy, because
 * a process that touched the device gives its fork children the host path (lifecycle.c) and a
 * program that never calls a kernel should not hold a context. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"

/* cudaErrorUnknown: what an injected fault returns */
#define INJECTED_ERROR 999

static ch_rt g_rt;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static const char *env(const char *name)
{
    return getenv(name);
}

static int flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && *v != '0';
}

static void init_global(void)
{
    ch_rt_tuning t;
    ch_rt_tuning_default(&t, usable_cpus());
    ch_rt_tuning_env(&t, env);
    const ch_rt_ops *ops = ch_rt_cuda_ops();
    const char *fault = getenv("CH_CC_RT_FAULT");
    if (fault && *fault) {
        const ch_rt_ops *wrapped = ch_rt_faults_wrap(ops, fault, INJECTED_ERROR);
        ops = wrapped ? wrapped : ops;
    }
    ch_rt_init(&g_rt, ops, &t);
    g_rt.trace = flag("CH_CC_TRACE");
}

static void release_global(void)
{
    ch_rt_release(&g_rt);
}

static void register_exit(void)
{
    atexit(release_global);
}

ch_rt *ch_rt_global(void)
{
    pthread_once(&init_once, init_global);
    return &g_rt;
}

int ch_rt_usable_v1(void)
{
    int ok = ch_rt_probe(ch_rt_global());
    if (ok)
        pthread_once(&exit_once, register_exit);
    return ok;
}

int ch_rt_setup_v1(void)
{
    int ok = ch_rt_setup(ch_rt_global());
    if (ok)
        pthread_once(&exit_once, register_exit);
    return ok;
}

int ch_rt_cold_v1(const ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs)
{
    return ch_rt_cold(ch_rt_global(), site, bufs, n_bufs);
}

/* CH_CC_DEVICE_INIT=load: the set-up before main. A failure here only means the first call
 * finds the device unusable, as it would have without this. */
__attribute__((constructor)) static void device_init_at_load(void)
{
    const char *when = getenv("CH_CC_DEVICE_INIT");
    if (when && strcmp(when, "load") == 0)
        ch_rt_setup_v1();
}

int ch_rt_call_v1(ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs, ch_rt_launch_fn launch,
                  const void *ctx)
{
    if (!ch_rt_usable_v1())
        return CH_RT_E_OFF;
    return ch_rt_call(&g_rt, site, bufs, n_bufs, launch, ctx);
}

int ch_rt_call_map_v1(ch_rt_site *site, const ch_rt_buffer *bufs, size_t n_bufs, size_t n,
                      ch_rt_launch_range_fn launch, const void *ctx)
{
    if (!ch_rt_usable_v1())
        return CH_RT_E_OFF;
    return ch_rt_call_map(&g_rt, site, bufs, n_bufs, n, launch, ctx);
}

const char *ch_rt_strerror_v1(int status)
{
    return ch_rt_status_name(ch_rt_global(), status);
}
