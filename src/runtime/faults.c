/* Runtime, injected faults (rt.h): CH_CC_RT_FAULT=OP[:N] makes the Nth use (default the first)
 * of one device operation fail, so that tests on a real GPU can watch a call fail at each step
 * and the dispatcher take the host path with the data intact. The device itself stays healthy:
 * the failure is not sticky. Harmless in production: it can only send calls to the host path. */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

enum { F_ALLOC, F_PINNED, F_H2D, F_D2H, F_LAUNCH, F_SYNC, F_COUNT };

static const char *const fault_names[F_COUNT] = {"alloc", "pinned", "h2d", "d2h", "launch", "sync"};

static ch_rt_ops base;
static ch_rt_ops wrapped;
static int fault_op = -1;
static long fault_nth = 1;
static long fault_seen;
static int fault_err;

/* Whether this use of op is the one to fail. */
static int hit(int op)
{
    return op == fault_op && __atomic_add_fetch(&fault_seen, 1, __ATOMIC_SEQ_CST) == fault_nth;
}

static int dev_alloc(void *ctx, void **p, size_t bytes)
{
    return hit(F_ALLOC) ? fault_err : base.dev_alloc(ctx, p, bytes);
}

static int pinned_alloc(void *ctx, void **p, size_t bytes)
{
    return hit(F_PINNED) ? fault_err : base.pinned_alloc(ctx, p, bytes);
}

static int copy(void *ctx, void *dst, const void *src, size_t bytes, int kind, void *stream)
{
    if (hit(kind == CH_RT_H2D ? F_H2D : F_D2H))
        return fault_err;
    return base.copy(ctx, dst, src, bytes, kind, stream);
}

static int record(void *ctx, void *event, void *stream)
{
    if (!stream && hit(F_LAUNCH))
        return fault_err;
    return base.record(ctx, event, stream);
}

static int wait_event(void *ctx, void *event)
{
    return hit(F_SYNC) ? fault_err : base.wait_event(ctx, event);
}

static int wait_stream(void *ctx, void *stream)
{
    return hit(F_SYNC) ? fault_err : base.wait_stream(ctx, stream);
}

static const char *error_name(void *ctx, int err)
{
    return err == fault_err ? "an injected failure (CH_CC_RT_FAULT)" : base.error_name(ctx, err);
}

const ch_rt_ops *ch_rt_faults_wrap(const ch_rt_ops *ops, const char *spec, int err)
{
    size_t len = strcspn(spec, ":");
    int op = -1;
    for (int i = 0; i < F_COUNT; i++)
        if (strlen(fault_names[i]) == len && strncmp(spec, fault_names[i], len) == 0)
            op = i;
    long nth = 1;
    if (spec[len] == ':') {
        char *end;
        nth = strtol(spec + len + 1, &end, 10);
        if (*end || nth < 1)
            return NULL;
    }
    if (op < 0)
        return NULL;
    base = *ops;
    wrapped = *ops;
    wrapped.dev_alloc = dev_alloc;
    wrapped.pinned_alloc = pinned_alloc;
    wrapped.copy = copy;
    wrapped.record = record;
    wrapped.wait_event = wait_event;
    wrapped.wait_stream = wait_stream;
    wrapped.error_name = error_name;
    fault_op = op;
    fault_nth = nth;
    fault_seen = 0;
    fault_err = err;
    return &wrapped;
}
