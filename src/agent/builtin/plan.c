/* Variants of the builtin agent's mapping (block shapes, one element per thread or grid-stride,
 * plain or pinned staged host<->device copies) and the policy that picks the next one from
 * verification feedback: a failure moves to a safer untried variant, a success (feedback about
 * performance) to an untried faster one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ch/agent_builtin.h"

/* Variant 0 is the default: 256 threads (32x8 in 2-D), one element per thread; it keeps every
 * SM busy with 8 warps per block and coalesces along x. Grid-stride variants launch at most a
 * few waves of blocks and loop, which survives any problem size and grid limit. Variants
 * 6-11 are the same shapes again with staged copies: a host-pointer launcher moves its
 * buffers through pinned staging memory in pipelined chunks instead of pageable cudaMemcpy,
 * which is most of a host-pointer call's time (DESIGN §2). Staging means nothing for `device`
 * entries, whose launchers copy nothing: they never get those variants. */
static const bi_variant variants[] = {
    {0, 256, 32, 8, 0, "one element per thread", 0},  {1, 256, 32, 8, 1, "grid-stride", 0},
    {2, 128, 16, 16, 0, "one element per thread", 0}, {3, 128, 16, 16, 1, "grid-stride", 0},
    {4, 512, 32, 4, 0, "one element per thread", 0},  {5, 512, 32, 4, 1, "grid-stride", 0},
    {6, 256, 32, 8, 0, "one element per thread", 1},  {7, 256, 32, 8, 1, "grid-stride", 1},
    {8, 128, 16, 16, 0, "one element per thread", 1}, {9, 128, 16, 16, 1, "grid-stride", 1},
    {10, 512, 32, 4, 0, "one element per thread", 1}, {11, 512, 32, 4, 1, "grid-stride", 1},
};

#define N_VARIANTS (sizeof variants / sizeof *variants)
/* Variant v (v < N_SHAPES) has plain copies, v + N_SHAPES is the same shape staged. */
#define N_SHAPES (N_VARIANTS / 2)

/* After a failure: grid-stride and small blocks first (no grid limits, fewer registers), plain
 * copies before staged ones (the fewest moving parts). */
static const int safer_order[N_VARIANTS] = {3, 1, 2, 5, 0, 4, 9, 7, 8, 11, 6, 10};
/* After a success: the variants most likely to be faster for memory-bound nests first, plain
 * copies before staged ones. Staging copies each chunk into pinned memory on the calling
 * thread, and one core's memcpy (7-10 GB/s on the H200 machine) is no faster than the driver's
 * pageable path: measured there, staged launchers were 20-50% slower per call. They stay as
 * variants (the evolution keeps whichever is faster) but come last. */
static const int faster_order[N_VARIANTS] = {4, 1, 5, 2, 3, 0, 10, 7, 11, 8, 9, 6};
/* Without usable feedback: the table's order. */
static const int plain_order[N_VARIANTS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

size_t bi_variant_count(void)
{
    return N_VARIANTS;
}

const bi_variant *bi_variant_get(size_t i)
{
    return i < N_VARIANTS ? &variants[i] : NULL;
}

char *bi_variant_design(const bi_variant *v)
{
    return ch_xasprintf("builtin v%d: 1-D %d threads, 2-D %dx%d, %s%s", v->id, v->block1, v->bx,
                        v->by, v->strategy, v->staged ? ", pinned staged copies" : "");
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0)
            return 1;
    return 0;
}

/* 1: the parent failed, 2: the parent passed (feedback is about performance), 0: unknown. */
static int classify(const char *fb)
{
    static const char *const bad[] = {"fail",      "error",     "mismatch",  "wrong",
                                      "nan",       "timeout",   "timed out", "illegal",
                                      "sanitizer", "incorrect", "crash",     "abort"};
    static const char *const good[] = {"performance", "time",  " ms",    "gb/s",
                                       "floor",       "speed", "faster", "throughput"};
    if (!fb || !*fb)
        return 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (contains_ci(fb, bad[i]))
            return 1;
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (contains_ci(fb, good[i]))
            return 2;
    return 0;
}

int bi_variant_choose(const unsigned char *tried, const char *feedback, int fresh_design,
                      int parent, int host_pointers)
{
    int cls = classify(feedback);
    const int *order = cls == 1 ? safer_order : cls == 2 ? faster_order : plain_order;
    (void)fresh_design; /* a fresh design is any untried variant: the order decides */
    (void)parent;
    for (size_t i = 0; i < N_VARIANTS; i++)
        if (!tried[order[i]] && (host_pointers || !variants[order[i]].staged))
            return order[i];
    return -1;
}

int bi_variant_of_source(const char *src)
{
    if (!src)
        return -1;
    const char *p = strstr(src, "ch-cc builtin variant ");
    if (!p)
        return -1;
    int v = atoi(p + strlen("ch-cc builtin variant "));
    return v >= 0 && (size_t)v < N_VARIANTS ? v : -1;
}
