/* The walk along a design's tuning axes (the explanation is in ch/agent_walk.h): the legal
 * shapes, the neighbours of the centre one axis at a time, and what the feedback on the parent
 * says about the last neighbour.
 *
 * Invariants: the centre is always a shape some candidate was made of (the parent's); a move is
 * proposed at most once per centre, since its code hash is remembered and the same code is never
 * proposed twice. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ch/agent_walk.h"
#include "ch/strbuf.h"

enum { MAX_TILE_OUTPUTS = 64, MAX_ROWS = 16, MAX_WAVES = 16 };

static const char *const axis_names[BI_AX_COUNT_] = {
    "block1", "bx", "by", "waves", "rows", "tm", "tn", "tk", "ty", "tx", "row_block"};

const char *bi_axis_name(bi_axis a)
{
    return a >= 0 && a < BI_AX_COUNT_ ? axis_names[a] : "?";
}

size_t bi_design_axes(bi_design d, bi_axis *out)
{
    /* the axes that move the most first: a stencil's rows before its block, a tile's size and
     * outputs a thread before its depth */
    static const bi_axis plain[] = {BI_AX_BLOCK1, BI_AX_WAVES, BI_AX_BX, BI_AX_BY};
    static const bi_axis rows[] = {BI_AX_ROWS, BI_AX_BY, BI_AX_BX};
    static const bi_axis row_block[] = {BI_AX_BLOCK1, BI_AX_ROW_BLOCK};
    static const bi_axis tiles[] = {BI_AX_TM, BI_AX_TN, BI_AX_TY, BI_AX_TX, BI_AX_TK};
    const bi_axis *list = NULL;
    size_t n = 0;
    switch (d) {
    case BI_DESIGN_PLAIN:
        list = plain, n = sizeof plain / sizeof *plain;
        break;
    case BI_DESIGN_ROWS:
        list = rows, n = sizeof rows / sizeof *rows;
        break;
    case BI_DESIGN_ROW_BLOCK:
        list = row_block, n = sizeof row_block / sizeof *row_block;
        break;
    case BI_DESIGN_TILES:
        list = tiles, n = sizeof tiles / sizeof *tiles;
        break;
    case BI_DESIGN_NONE:
        break;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = list[i];
    return n;
}

/* ---- legal shapes ------------------------------------------------------------------------- */

static int max_threads(const bi_limits *l)
{
    return l && l->max_threads > 0 ? l->max_threads : 1024;
}

static int elem_bytes(const bi_limits *l)
{
    return l && l->elem_bytes > 0 ? l->elem_bytes : 8;
}

/* A block of n threads: whole warps, at most the limit. */
static int whole_warps(int n, const bi_limits *l)
{
    return n >= 32 && n % 32 == 0 && n <= max_threads(l);
}

static int pow2(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* The static shared memory of a tile of two operands (the tm- and tn-wide ones), each tk rows
 * padded by 16 bytes (tile.c). */
static long tile_smem(const bi_shape *s, int elem)
{
    int pad = 16 / elem;
    return (long)s->tk * (s->tm + pad + s->tn + pad) * elem;
}

int bi_shape_thread_work(const bi_shape *s, bi_design d)
{
    if (d == BI_DESIGN_TILES) {
        int threads = s->ty * s->tx;
        assert(threads > 0);
        return (s->tm / s->ty) * (s->tn / s->tx) +
               (s->tk * (s->tm + s->tn) + threads - 1) / threads;
    }
    return d == BI_DESIGN_ROWS ? s->rows : 1;
}

int bi_shape_legal(const bi_shape *s, bi_design d, const bi_limits *l)
{
    int plain = whole_warps(s->block1, l) && s->bx >= 8 && s->by >= 1 &&
                whole_warps(s->bx * s->by, l) && pow2(s->bx) && pow2(s->by) &&
                (s->waves == 0 || (pow2(s->waves) && s->waves <= MAX_WAVES));
    switch (d) {
    case BI_DESIGN_PLAIN:
        return plain && !s->row_block;
    case BI_DESIGN_ROW_BLOCK:
        return plain && (s->row_block == 0 || s->row_block == 1);
    case BI_DESIGN_ROWS:
        return plain && s->rows >= 2 && s->rows <= MAX_ROWS && pow2(s->rows);
    case BI_DESIGN_TILES: {
        long smem_limit = l && l->smem_bytes > 0 ? l->smem_bytes : 48L * 1024;
        if (!plain || s->ty < 1 || s->tx < 1 || !whole_warps(s->ty * s->tx, l) || s->tm < s->ty ||
            s->tn < s->tx || s->tm % s->ty || s->tn % s->tx)
            return 0;
        int outputs = (s->tm / s->ty) * (s->tn / s->tx);
        return pow2(s->tm) && pow2(s->tn) && pow2(s->tk) && s->tm <= 256 && s->tn <= 256 &&
               s->tk >= 4 && s->tk <= 64 && outputs <= MAX_TILE_OUTPUTS &&
               tile_smem(s, elem_bytes(l)) <= smem_limit;
    }
    case BI_DESIGN_NONE:
        break;
    }
    return 0;
}

/* Capped grids from one wave to MAX_WAVES, then uncapped (0): the more waves, the fewer items
 * each thread strides over. */
static int next_waves(int waves, int dir)
{
    if (dir > 0)
        return waves == 0 ? -1 : waves >= MAX_WAVES ? 0 : 2 * waves;
    return waves == 0 ? MAX_WAVES : waves <= 1 ? -1 : waves / 2;
}

int *bi_shape_axis(bi_shape *s, bi_axis a)
{
    int *const fields[BI_AX_COUNT_] = {&s->block1, &s->bx, &s->by, &s->waves, &s->rows,     &s->tm,
                                       &s->tn,     &s->tk, &s->ty, &s->tx,    &s->row_block};
    return fields[a];
}

int bi_shape_neighbour(const bi_shape *c, bi_design d, const bi_limits *l, bi_axis a, int dir,
                       bi_shape *out)
{
    assert(a >= 0 && a < BI_AX_COUNT_ && (dir == 1 || dir == -1));
    *out = *c;
    int *f = bi_shape_axis(out, a);
    if (a == BI_AX_WAVES) {
        *f = next_waves(*f, dir);
        if (*f < 0)
            return 0;
    } else if (a == BI_AX_ROW_BLOCK) {
        if (*f == (dir > 0))
            return 0;
        *f = dir > 0;
    } else if (dir > 0) {
        *f *= 2;
    } else {
        if (*f < 2 || *f % 2)
            return 0;
        *f /= 2;
    }
    if (!bi_shape_legal(out, d, l))
        return 0;
    /* a centre that spills gets no move that gives a thread more to keep */
    return !(l && l->spills) || bi_shape_thread_work(out, d) <= bi_shape_thread_work(c, d);
}

char *bi_shape_text(const bi_shape *s)
{
    return ch_xasprintf("block1=%d block2=%dx%d waves=%d rows=%d tile=%dx%dx%d threads=%dx%d "
                        "row_block=%d",
                        s->block1, s->bx, s->by, s->waves, s->rows, s->tm, s->tn, s->tk, s->ty,
                        s->tx, s->row_block);
}

int bi_shape_parse(const char *text, bi_shape *out)
{
    bi_shape s;
    memset(&s, 0, sizeof s);
    int n = sscanf(text,
                   "block1=%d block2=%dx%d waves=%d rows=%d tile=%dx%dx%d threads=%dx%d "
                   "row_block=%d",
                   &s.block1, &s.bx, &s.by, &s.waves, &s.rows, &s.tm, &s.tn, &s.tk, &s.ty, &s.tx,
                   &s.row_block);
    if (n != 11)
        return -1;
    *out = s;
    return 0;
}

/* ---- the walk ----------------------------------------------------------------------------- */

void bi_walk_free(bi_walk *w)
{
    free(w->seen);
    memset(w, 0, sizeof *w);
}

int bi_walk_seen(bi_walk *w, uint64_t hash)
{
    for (size_t i = 0; i < w->n_seen; i++)
        if (w->seen[i] == hash)
            return 1;
    return 0;
}

int bi_walk_mark(bi_walk *w, uint64_t hash)
{
    if (bi_walk_seen(w, hash))
        return 1;
    if (w->n_seen == w->cap_seen) {
        w->cap_seen = w->cap_seen ? 2 * w->cap_seen : 16;
        w->seen = ch_xrealloc(w->seen, w->cap_seen * sizeof *w->seen);
    }
    w->seen[w->n_seen++] = hash;
    return 0;
}

uint64_t bi_code_hash(const char *src)
{
    const char *end = src && strncmp(src, "/*", 2) == 0 ? strstr(src, "*/") : NULL;
    const char *code = end ? end + 2 : src ? src : "";
    return XXH3_64bits(code, strlen(code));
}

const char *bi_walk_observe(bi_walk *w, const bi_walk_feedback *fb)
{
    int first = !w->started;
    if (first) {
        w->started = 1;
        if (w->gain <= 0)
            w->gain = 0.03;
        if (w->floor <= 0)
            w->floor = 0.9;
        if (w->max_misses <= 0)
            w->max_misses = 2;
    } else if (w->proposed) {
        /* the parent is the neighbour only when evolution found it the fastest; it counts as a
         * gain when it beats the old centre by more than `gain` */
        int improved = fb->parent_hash == w->last_hash && fb->ms >= 0 && w->centre_ms > 0 &&
                       fb->ms < w->centre_ms * (1 - w->gain);
        if (improved) {
            w->misses = 0;
            w->has_preferred = 1;
            w->preferred_axis = w->last_axis;
            w->preferred_dir = w->last_dir;
        } else {
            w->misses++;
        }
    }
    w->proposed = 0;
    if (first || fb->parent_hash != w->centre_hash) {
        if (fb->design != w->design || fb->parent_variant != w->variant)
            w->has_preferred = 0; /* another design: its own axes */
        w->centre = fb->parent_shape;
        w->centre_hash = fb->parent_hash;
        w->variant = fb->parent_variant;
        w->design = fb->design;
    }
    w->centre_ms = fb->ms;
    bi_walk_mark(w, fb->parent_hash);
    if (fb->fraction >= w->floor)
        w->stop = "near the floor";
    else if (w->misses >= w->max_misses)
        w->stop = "plateau";
    return w->stop;
}

/* Tries the move (a, dir): 1 when it was taken. */
static int try_move(bi_walk *w, const bi_limits *l, bi_axis a, int dir, bi_walk_try try_shape,
                    bi_walk_take take, void *ctx)
{
    bi_shape s;
    uint64_t hash = 0;
    if (!bi_shape_neighbour(&w->centre, w->design, l, a, dir, &s) || try_shape(ctx, &s, &hash) != 0)
        return 0;
    if (bi_walk_seen(w, hash)) {
        take(ctx, 0);
        return 0;
    }
    take(ctx, 1);
    bi_walk_mark(w, hash);
    w->proposed = 1;
    w->last_hash = hash;
    w->last_axis = a;
    w->last_dir = dir;
    return 1;
}

int bi_walk_next(bi_walk *w, const bi_limits *l, bi_walk_try try_shape, bi_walk_take take,
                 void *ctx, bi_axis *axis, int *dir)
{
    assert(w->started && !w->stop);
    bi_axis axes[BI_AX_COUNT_];
    size_t n = bi_design_axes(w->design, axes);
    int taken = w->has_preferred &&
                try_move(w, l, w->preferred_axis, w->preferred_dir, try_shape, take, ctx);
    for (size_t i = 0; i < n && !taken; i++)
        for (int d = 1; d >= -1 && !taken; d -= 2)
            taken = try_move(w, l, axes[i], d, try_shape, take, ctx);
    if (!taken)
        return 1;
    *axis = w->last_axis;
    *dir = w->last_dir;
    return 0;
}
