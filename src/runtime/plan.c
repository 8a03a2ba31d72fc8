/* Runtime, the pure decisions (rt.h): tuning, directions, routes, chunks and their parts,
 * buffer growth, the host copy itself. No state, no device: unit-tested as is. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "rt.h"

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

void ch_rt_tuning_default(ch_rt_tuning *t, int ncpu)
{
    /* Measured on the H200 host: one thread copying into pinned memory is no faster than a
     * pageable cudaMemcpy, eight reach 25-35 GB/s; the DMA runs at 55 GB/s. So: up to twelve
     * threads on a chunk (with streaming stores, which spare the memory a read of every line
     * written), chunks large enough that waking them is noise. The chunk and slot counts are
     * the best of a sweep of five shapes on the H200 (2026-12-05, one run, 12 threads): 8 MiB
     * chunks, four in flight, a short buffer cut into chunks of at least 512 KiB moved 64, 256 and
     * 1024 MiB at 43.2/45.7, 40.6/47.0 and 41.4/48.5 GB/s in/out, where 16 MiB x 3 gave 40.9/34.2,
     * 39.1/47.0 and 38.6/52.0. (That run had one staging set; a single caller only ever uses
     * one, ch_rt_staging_get reuses a free set before it makes another.) The GPU test's sweep
     * (CH_CC_RT_SWEEP=1 tests/gpu/runtime_gpu.t) measures the alternatives. */
    t->chunk = 8 * MIB;
    t->minchk = 512 * KIB;
    t->slots = 4;
    t->threads = ncpu < 1 ? 1 : ncpu > 12 ? 12 : ncpu;
    t->piece = 512 * KIB;
    t->small = 256 * KIB;
    t->sets = 2;
    t->nt = 3;
    t->preimage = 1024 * MIB;
    t->map_min = 3; /* fewer chunks overlap too little to pay for their events and waits */
}

static size_t clamp_size(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void ch_rt_tuning_clamp(ch_rt_tuning *t)
{
    t->chunk = clamp_size(t->chunk, 64 * KIB, 1024 * MIB) / (64 * KIB) * (64 * KIB);
    t->minchk = clamp_size(t->minchk, 64 * KIB, t->chunk);
    t->slots = clamp_int(t->slots, 1, CH_RT_MAX_SLOTS);
    t->threads = clamp_int(t->threads, 1, CH_RT_MAX_THREADS);
    t->piece = clamp_size(t->piece, 4 * KIB, t->chunk);
    t->small = clamp_size(t->small, 0, 1024 * MIB);
    t->sets = clamp_int(t->sets, 1, 64);
    t->nt &= 3;
    t->preimage = clamp_size(t->preimage, 0, (size_t)1 << 48);
    t->map_min = t->map_min == 0 ? 0 : clamp_int(t->map_min, 2, 1 << 20);
}

/* A decimal number in [lo, hi] from name, else the old value. */
static long long env_number(const char *(*get)(const char *), const char *name, long long old,
                            long long lo, long long hi)
{
    const char *s = get(name);
    if (!s || !*s)
        return old;
    char *end;
    long long v = strtoll(s, &end, 10);
    return *end == '\0' && v >= lo && v <= hi ? v : old;
}

void ch_rt_tuning_env(ch_rt_tuning *t, const char *(*get)(const char *name))
{
    t->threads = (int)env_number(get, "CH_CC_RT_THREADS", t->threads, 1, CH_RT_MAX_THREADS);
    t->chunk =
        (size_t)env_number(get, "CH_CC_RT_CHUNK_KB", (long long)(t->chunk / KIB), 64, 1024 * 1024) *
        KIB;
    t->minchk = (size_t)env_number(get, "CH_CC_RT_MINCHUNK_KB", (long long)(t->minchk / KIB), 64,
                                   1024 * 1024) *
                KIB;
    t->slots = (int)env_number(get, "CH_CC_RT_SLOTS", t->slots, 1, CH_RT_MAX_SLOTS);
    t->small =
        (size_t)env_number(get, "CH_CC_RT_SMALL_KB", (long long)(t->small / KIB), 0, 1024 * 1024) *
        KIB;
    t->sets = (int)env_number(get, "CH_CC_RT_SETS", t->sets, 1, 64);
    t->nt = (int)env_number(get, "CH_CC_RT_NT", t->nt, 0, 3);
    t->preimage = (size_t)env_number(get, "CH_CC_RT_PREIMAGE_MB", (long long)(t->preimage / MIB), 0,
                                     1024 * 1024) *
                  MIB;
    t->map_min = (int)env_number(get, "CH_CC_RT_MAP_CHUNKS", t->map_min, 0, 1 << 20);
    ch_rt_tuning_clamp(t);
}

int ch_rt_copies_in(int dir)
{
    return dir == CH_RT_IN || dir == CH_RT_INOUT;
}

int ch_rt_copies_out(int dir)
{
    return dir == CH_RT_OUT || dir == CH_RT_INOUT;
}

ch_rt_route ch_rt_route_for(size_t bytes, int is_direct, int have_staging, const ch_rt_tuning *t)
{
    if (bytes == 0)
        return CH_RT_SKIP;
    if (is_direct)
        return CH_RT_DIRECT;
    if (bytes < t->small || !have_staging)
        return CH_RT_PLAIN;
    return CH_RT_STAGED;
}

static size_t round_up(size_t v, size_t to)
{
    return (v + to - 1) / to * to;
}

size_t ch_rt_chunk_len(size_t bytes, const ch_rt_tuning *t)
{
    if (bytes >= 4 * t->chunk)
        return t->chunk;
    size_t quarter = round_up((bytes + 3) / 4, 64 * KIB);
    size_t len = quarter < t->minchk ? t->minchk : quarter;
    return len > t->chunk ? t->chunk : len;
}

int ch_rt_parts(size_t len, const ch_rt_tuning *t)
{
    size_t by_size = len / (t->piece ? t->piece : 1);
    if (by_size < 1)
        by_size = 1;
    return by_size < (size_t)t->threads ? (int)by_size : t->threads;
}

void ch_rt_part_range(size_t len, int parts, int p, size_t *off, size_t *n)
{
    /* equal shares in 4 KiB pages, the last part takes the remainder */
    size_t pages = (len + 4 * KIB - 1) / (4 * KIB);
    size_t per = (pages + (size_t)parts - 1) / (size_t)parts;
    size_t start = (size_t)p * per * 4 * KIB, end = start + per * 4 * KIB;
    if (start > len)
        start = len;
    if (end > len || p == parts - 1)
        end = len;
    *off = start;
    *n = end - start;
}

size_t ch_rt_grow(size_t cap, size_t need)
{
    if (need <= cap && cap > 0)
        return cap;
    size_t want = need < MIB ? round_up(need ? need : 1, 256) : round_up(need, MIB);
    size_t more = round_up(cap + cap / 4, 256);
    if (cap > 0 && more > want)
        want = more;
    return want < 256 ? 256 : want;
}

size_t ch_rt_map_per_chunk(size_t n, size_t group, const ch_rt_tuning *t)
{
    if (n == 0 || group == 0 || group > t->chunk / CH_RT_MAP_ALIGN || t->map_min == 0)
        return 0;
    size_t per = t->chunk / group / CH_RT_MAP_ALIGN * CH_RT_MAP_ALIGN;
    if (n < 4 * per) { /* as ch_rt_chunk_len: filling one chunk overlaps the moves of others */
        size_t quarter = round_up((n + 3) / 4, CH_RT_MAP_ALIGN);
        size_t least = round_up((t->minchk + group - 1) / group, CH_RT_MAP_ALIGN);
        size_t len = quarter < least ? least : quarter;
        per = len < per ? len : per;
    }
    return (n + per - 1) / per >= (size_t)t->map_min ? per : 0;
}

void ch_rt_cursor_init(ch_rt_cursor *c, const ch_rt_buffer *bufs, const ch_rt_route *routes,
                       size_t n, const ch_rt_tuning *t)
{
    memset(c, 0, sizeof *c);
    c->bufs = bufs;
    c->routes = routes;
    c->n = n;
    c->t = t;
}

int ch_rt_cursor_next(ch_rt_cursor *c, size_t *buf, size_t *off, size_t *len)
{
    while (c->i < c->n && (c->routes[c->i] != CH_RT_STAGED || c->off >= c->bufs[c->i].bytes)) {
        c->i++;
        c->off = 0;
    }
    if (c->i >= c->n)
        return 0;
    size_t bytes = c->bufs[c->i].bytes, chunk = ch_rt_chunk_len(bytes, c->t);
    *buf = c->i;
    *off = c->off;
    *len = bytes - c->off < chunk ? bytes - c->off : chunk;
    c->off += *len;
    return 1;
}

int ch_rt_child_may_use_device(int parent_used_device)
{
    return !parent_used_device;
}

void ch_rt_copy_bytes(void *dst, const void *src, size_t n, int nt)
{
#if defined(__x86_64__) && defined(__SSE2__)
    /* Streaming stores skip reading the destination's lines into the cache first: a staging
     * chunk or an output buffer is written once and not read again by this thread. */
    if (nt && n >= 64 * KIB) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; n -= 64, d += 64, s += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)s);
            __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
            __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        memcpy(d, s, n);
        _mm_sfence(); /* the streamed bytes are visible before the DMA or the caller reads them */
        return;
    }
#else
    (void)nt;
#endif
    memcpy(dst, src, n);
}
