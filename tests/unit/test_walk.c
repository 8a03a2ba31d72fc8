/* The builtin agent's walk along a design's tuning axes (src/agent/builtin/walk.c, driven by
 * scripted feedback as evolution gives it: the parent is always the fastest candidate so far).
 *
 * Curves with a known minimum: the walk reaches it, one axis at a time, and stops at the plateau
 * after two neighbours without a gain; flat curves stop after two proposals; near the floor it
 * proposes nothing; illegal shapes (threads, shared memory, tiles their threads do not divide,
 * more work a thread while the centre spills) are never proposed, checked here by rules written
 * again, not by bi_shape_legal; shapes whose code is the same as one proposed are skipped; the
 * move that improved last is tried first. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ch/agent_walk.h"
#include "ch/strbuf.h"

/* ---- a scripted evolution ---------------------------------------------------------------- */

/* The time of a shape: a bowl in log2 of each axis around `opt`, weights per axis. */
typedef struct curve {
    bi_shape opt;
    double weight[BI_AX_COUNT_];
    int flat;          /* every shape takes 1 ms */
    int code_ignores;  /* bit per axis that does not change the code (the same hash) */
    int refuse_over_m; /* the translator refuses tiles taller than this (0: none) */
} curve;

static double lg(int v)
{
    return v > 0 ? log2((double)v) : 5.0; /* waves 0 (uncapped) sits past 16 */
}

static double time_of(const curve *c, const bi_shape *s)
{
    if (c->flat)
        return 1.0;
    double t = 1.0;
    bi_shape a = *s, o = c->opt;
    for (int x = 0; x < BI_AX_COUNT_; x++) {
        double d = lg(*bi_shape_axis(&a, (bi_axis)x)) - lg(*bi_shape_axis(&o, (bi_axis)x));
        t += c->weight[x] * d * d;
    }
    return t;
}

/* The code of a shape: its text, less the axes that do not change it. */
static uint64_t code_of(const curve *c, const bi_shape *s)
{
    bi_shape k = *s;
    for (int x = 0; x < BI_AX_COUNT_; x++)
        if (c->code_ignores & (1 << x))
            *bi_shape_axis(&k, (bi_axis)x) = 0;
    char *text = bi_shape_text(&k);
    uint64_t h = XXH3_64bits(text, strlen(text));
    free(text);
    return h;
}

typedef struct sim {
    const curve *c;
    bi_shape tried; /* the shape of the last try */
    int refused;    /* tries the translator refused */
} sim;

static int sim_try(void *ctx, const bi_shape *s, uint64_t *hash)
{
    sim *x = ctx;
    if (x->c->refuse_over_m && s->tm > x->c->refuse_over_m) {
        x->refused++;
        return 1;
    }
    x->tried = *s;
    *hash = code_of(x->c, s);
    return 0;
}

static void sim_take(void *ctx, int accept)
{
    (void)ctx;
    (void)accept;
}

/* Independent legality rules (what the translator and the device take). */
static void assert_legal(const bi_shape *s, bi_design d, const bi_limits *l)
{
    cr_assert(s->block1 >= 32 && s->block1 <= 1024 && s->block1 % 32 == 0, "block1 %d", s->block1);
    cr_assert(s->bx * s->by <= 1024 && (s->bx * s->by) % 32 == 0, "block2 %dx%d", s->bx, s->by);
    cr_assert(s->waves >= 0 && s->waves <= 16, "waves %d", s->waves);
    if (d == BI_DESIGN_ROWS)
        cr_assert(s->rows >= 2 && s->rows <= 16, "rows %d", s->rows);
    if (d == BI_DESIGN_TILES) {
        cr_assert(s->ty * s->tx <= 1024 && (s->ty * s->tx) % 32 == 0, "threads %dx%d", s->ty,
                  s->tx);
        cr_assert(s->tm % s->ty == 0 && s->tn % s->tx == 0, "tile %dx%d over %dx%d threads", s->tm,
                  s->tn, s->ty, s->tx);
        int elem = l->elem_bytes, pad = 16 / elem;
        long smem = (long)s->tk * (s->tm + pad + s->tn + pad) * elem;
        cr_assert(smem <= l->smem_bytes, "shared memory %ld over %ld", smem, l->smem_bytes);
        cr_assert((s->tm / s->ty) * (s->tn / s->tx) <= 64, "outputs a thread");
    }
}

static int same_shape(const bi_shape *a, const bi_shape *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* What a run of the walk did. */
typedef struct run {
    bi_shape best;
    double best_ms;
    int proposals;
    const char *stop; /* NULL: no neighbour left */
    int refused;      /* shapes the translator refused */
    bi_shape proposed[64];
    bi_axis axes[64];
    int dirs[64];
} run;

/* Evolution as the agent sees it: the parent is the fastest candidate so far; each round the
 * walk observes it and proposes a neighbour, which is timed. */
static void simulate(const curve *c, bi_design d, const bi_shape *start, const bi_limits *l,
                     double floor_ms, run *out)
{
    memset(out, 0, sizeof *out);
    bi_walk w;
    memset(&w, 0, sizeof w);
    sim x = {.c = c};
    out->best = *start;
    out->best_ms = time_of(c, start);
    uint64_t best_code = code_of(c, start);
    for (int round = 1; round < 64; round++) {
        bi_walk_feedback fb = {.parent_hash = best_code,
                               .parent_variant = 7,
                               .parent_shape = out->best,
                               .design = d,
                               .ms = out->best_ms,
                               .fraction = floor_ms > 0 ? floor_ms / out->best_ms : -1};
        out->stop = bi_walk_observe(&w, &fb);
        if (out->stop)
            break;
        bi_axis a;
        int dir;
        if (bi_walk_next(&w, l, sim_try, sim_take, &x, &a, &dir) != 0)
            break;
        int k = out->proposals++;
        out->proposed[k] = x.tried;
        out->axes[k] = a;
        out->dirs[k] = dir;
        assert_legal(&x.tried, d, l);
        for (int j = 0; j < k; j++)
            cr_assert(code_of(c, &out->proposed[j]) != code_of(c, &x.tried),
                      "proposal %d repeats the code of proposal %d", k, j);
        cr_assert(code_of(c, &x.tried) != code_of(c, start), "the start proposed again");
        double t = time_of(c, &x.tried);
        if (t < out->best_ms) {
            out->best = x.tried;
            out->best_ms = t;
            best_code = code_of(c, &x.tried);
        }
    }
    out->refused = x.refused;
    bi_walk_free(&w);
}

static const bi_limits fp32 = {.max_threads = 1024, .smem_bytes = 48 * 1024, .elem_bytes = 4};

/* ---- the walk reaches the minimum and stops ------------------------------------------------ */

/* A stencil from the fixed list's 4 rows a thread on 32x4 blocks; the minimum a neighbour
 * away (8 rows): reached, then rows again (16) and the block (32x8) without a gain: plateau. */
Test(walk, stencil_reaches_the_minimum_then_plateau)
{
    bi_shape start = {.block1 = 256, .bx = 32, .by = 4, .rows = 4};
    curve c = {.opt = {.block1 = 256, .bx = 32, .by = 4, .rows = 8}};
    c.weight[BI_AX_ROWS] = 0.3;
    c.weight[BI_AX_BY] = 0.2;
    c.weight[BI_AX_BX] = 0.2;
    run r;
    simulate(&c, BI_DESIGN_ROWS, &start, &fp32, 0, &r);
    cr_assert(same_shape(&r.best, &c.opt), "the walk ends at rows %d, %dx%d", r.best.rows,
              r.best.bx, r.best.by);
    cr_assert_str_eq(r.stop, "plateau");
    cr_assert_eq(r.proposals, 3);
    /* rows first (the stencil's most telling axis), up */
    cr_assert_eq(r.axes[0], BI_AX_ROWS);
    cr_assert_eq(r.dirs[0], 1);
    cr_assert_eq(r.proposed[0].rows, 8);
    /* after the gain along rows, rows again (16: worse), then the block */
    cr_assert_eq(r.axes[1], BI_AX_ROWS);
    cr_assert_eq(r.proposed[1].rows, 16);
    cr_assert_eq(r.axes[2], BI_AX_BY);
    cr_assert_eq(r.proposed[2].rows, 8, "the block moves from the new centre");
}

/* GEMM tiles from 64x64x16 on 16x16 threads to 128x128 (two axes, the second tried right after
 * the first stops gaining), single precision. */
Test(walk, gemm_tiles_reach_the_minimum)
{
    bi_shape start = {
        .block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16};
    curve c = {
        .opt = {
            .block1 = 256, .bx = 32, .by = 8, .tm = 128, .tn = 128, .tk = 16, .ty = 16, .tx = 16}};
    c.weight[BI_AX_TM] = c.weight[BI_AX_TN] = 0.4;
    c.weight[BI_AX_TY] = c.weight[BI_AX_TX] = c.weight[BI_AX_TK] = 0.1;
    run r;
    simulate(&c, BI_DESIGN_TILES, &start, &fp32, 0, &r);
    cr_assert(same_shape(&r.best, &c.opt), "ends at %dx%dx%d on %dx%d", r.best.tm, r.best.tn,
              r.best.tk, r.best.ty, r.best.tx);
    cr_assert_str_eq(r.stop, "plateau");
    cr_assert_eq(r.axes[0], BI_AX_TM);
    cr_assert_eq(r.proposed[0].tm, 128);
    cr_assert_eq(r.axes[2], BI_AX_TN, "tm 256 lost, the next axis");
    cr_assert_eq(r.proposed[2].tn, 128);
}

/* The minimum further along one axis: the walk keeps moving the way that improved. */
Test(walk, keeps_the_axis_that_improved)
{
    bi_shape start = {.block1 = 64, .bx = 32, .by = 8};
    curve c = {.opt = {.block1 = 1024, .bx = 32, .by = 8}};
    c.weight[BI_AX_BLOCK1] = 0.1;
    c.weight[BI_AX_WAVES] = c.weight[BI_AX_BX] = c.weight[BI_AX_BY] = 0.1;
    run r;
    simulate(&c, BI_DESIGN_PLAIN, &start, &fp32, 0, &r);
    cr_assert_eq(r.best.block1, 1024);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(r.axes[i], BI_AX_BLOCK1, "proposal %d moves %s", i, bi_axis_name(r.axes[i]));
        cr_assert_eq(r.proposed[i].block1, 128 << i);
    }
    cr_assert_str_eq(r.stop, "plateau");
}

/* The move that improved last goes first, before the axes in their order: from 2 rows a
 * thread (none fewer), 4 rows lose, a taller block gains, and the next proposal is a taller block
 * again, not 4 rows on the new block. */
Test(walk, the_move_that_improved_goes_first)
{
    bi_shape start = {.block1 = 256, .bx = 32, .by = 4, .rows = 2};
    curve c = {.opt = {.block1 = 256, .bx = 32, .by = 16, .rows = 2}};
    c.weight[BI_AX_ROWS] = 0.3;
    c.weight[BI_AX_BY] = 0.2;
    run r;
    simulate(&c, BI_DESIGN_ROWS, &start, &fp32, 0, &r);
    cr_assert_geq(r.proposals, 3);
    cr_assert_eq(r.axes[0], BI_AX_ROWS);
    cr_assert_eq(r.axes[1], BI_AX_BY);
    cr_assert_eq(r.proposed[1].by, 8);
    cr_assert_eq(r.axes[2], BI_AX_BY, "proposal 2 moves %s", bi_axis_name(r.axes[2]));
    cr_assert_eq(r.proposed[2].by, 16);
    cr_assert(same_shape(&r.best, &c.opt));
    cr_assert_str_eq(r.stop, "plateau");
}

/* ---- stops ------------------------------------------------------------------------------- */

Test(walk, flat_curve_stops_after_two_neighbours)
{
    bi_shape start = {.block1 = 256, .bx = 32, .by = 4, .rows = 4};
    curve c = {.flat = 1};
    run r;
    simulate(&c, BI_DESIGN_ROWS, &start, &fp32, 0, &r);
    cr_assert_eq(r.proposals, 2);
    cr_assert_str_eq(r.stop, "plateau");
    cr_assert(same_shape(&r.best, &start));
}

/* Gains under 3% are no gains: the walk stops as on a flat curve. */
Test(walk, small_gains_are_a_plateau)
{
    bi_shape start = {.block1 = 256, .bx = 32, .by = 8};
    curve c = {.opt = {.block1 = 1024, .bx = 32, .by = 8}};
    c.weight[BI_AX_BLOCK1] = 0.002; /* each doubling gains well under 3% */
    run r;
    simulate(&c, BI_DESIGN_PLAIN, &start, &fp32, 0, &r);
    cr_assert_eq(r.proposals, 2);
    cr_assert_str_eq(r.stop, "plateau");
}

Test(walk, near_the_floor_proposes_nothing)
{
    bi_shape start = {.block1 = 256, .bx = 32, .by = 4, .rows = 4};
    curve c = {.flat = 1};
    run r;
    simulate(&c, BI_DESIGN_ROWS, &start, &fp32, 0.95, &r); /* 95% of the floor */
    cr_assert_eq(r.proposals, 0);
    cr_assert_str_eq(r.stop, "near the floor");
}

/* ---- what is never proposed --------------------------------------------------------------- */

/* Double tiles at the shared-memory edge: every proposal passes the rules (assert_legal in
 * simulate) and the walk still moves. */
Test(walk, illegal_tiles_never_proposed)
{
    bi_limits fp64 = {.max_threads = 1024, .smem_bytes = 48 * 1024, .elem_bytes = 8};
    bi_shape start = {
        .block1 = 256, .bx = 32, .by = 8, .tm = 128, .tn = 128, .tk = 16, .ty = 16, .tx = 16};
    curve c = {.opt = {.block1 = 256,
                       .bx = 32,
                       .by = 8,
                       .tm = 256,
                       .tn = 256,
                       .tk = 64,
                       .ty = 8,
                       .tx = 8}}; /* far past what is legal: the walk pushes at every edge */
    for (int x = 0; x < BI_AX_COUNT_; x++)
        c.weight[x] = 0.05;
    run r;
    simulate(&c, BI_DESIGN_TILES, &start, &fp64, 0, &r);
    cr_assert_geq(r.proposals, 1);
    /* 128x128x16 of doubles is 33 KiB: 32 deep would be 66 KiB, over the limit */
    for (int i = 0; i < r.proposals; i++)
        cr_assert(!(r.proposed[i].tk == 32 && r.proposed[i].tm == 128 && r.proposed[i].tn == 128),
                  "proposal %d: 128x128x32 doubles", i);
    /* the edge checked directly: 1024 threads is the most, 2048 never */
    bi_shape big = {.block1 = 1024, .bx = 32, .by = 32}, n;
    cr_assert_not(bi_shape_neighbour(&big, BI_DESIGN_PLAIN, &fp32, BI_AX_BLOCK1, 1, &n));
    cr_assert_not(bi_shape_neighbour(&big, BI_DESIGN_PLAIN, &fp32, BI_AX_BY, 1, &n));
    /* a tile its threads do not divide: 16 rows over 32 threads */
    bi_shape t = {
        .block1 = 256, .bx = 32, .by = 8, .tm = 32, .tn = 64, .tk = 16, .ty = 32, .tx = 8};
    cr_assert_not(bi_shape_neighbour(&t, BI_DESIGN_TILES, &fp32, BI_AX_TM, -1, &n));
}

/* A centre that spills registers: no move gives a thread more to keep. */
Test(walk, spilling_centre_gets_no_heavier_threads)
{
    bi_limits spills = fp32;
    spills.spills = 1;
    bi_shape start = {
        .block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16};
    for (int a = 0; a < BI_AX_COUNT_; a++)
        for (int dir = -1; dir <= 1; dir += 2) {
            bi_shape n;
            if (bi_shape_neighbour(&start, BI_DESIGN_TILES, &spills, (bi_axis)a, dir, &n))
                cr_assert_leq(bi_shape_thread_work(&n, BI_DESIGN_TILES),
                              bi_shape_thread_work(&start, BI_DESIGN_TILES), "%s %+d",
                              bi_axis_name((bi_axis)a), dir);
        }
    bi_shape n;
    cr_assert_not(bi_shape_neighbour(&start, BI_DESIGN_TILES, &spills, BI_AX_TM, 1, &n));
    cr_assert(bi_shape_neighbour(&start, BI_DESIGN_TILES, &fp32, BI_AX_TM, 1, &n),
              "without spills the larger tile is legal");
    bi_shape rows = {.block1 = 256, .bx = 32, .by = 4, .rows = 4};
    cr_assert_not(bi_shape_neighbour(&rows, BI_DESIGN_ROWS, &spills, BI_AX_ROWS, 1, &n));
    cr_assert(bi_shape_neighbour(&rows, BI_DESIGN_ROWS, &spills, BI_AX_ROWS, -1, &n));
}

/* 1-D kernels whose code does not change with the 2-D block: those moves make the same code
 * and are skipped (simulate asserts no code twice), the walk goes on along the axes that do. */
Test(walk, same_code_skipped)
{
    bi_shape start = {.block1 = 128, .bx = 32, .by = 8};
    curve c = {.opt = {.block1 = 256, .bx = 32, .by = 8, .waves = 4},
               .code_ignores = (1 << BI_AX_BX) | (1 << BI_AX_BY)};
    c.weight[BI_AX_WAVES] = 0.2;
    c.weight[BI_AX_BLOCK1] = 0.2;
    run r;
    simulate(&c, BI_DESIGN_PLAIN, &start, &fp32, 0, &r);
    for (int i = 0; i < r.proposals; i++)
        cr_assert(r.axes[i] != BI_AX_BX && r.axes[i] != BI_AX_BY, "proposal %d moves %s", i,
                  bi_axis_name(r.axes[i]));
    cr_assert_eq(r.best.block1, 256);
    cr_assert_eq(r.best.waves, 4);
    cr_assert_str_eq(r.stop, "plateau");
}

/* Shapes the translator refuses are passed over like illegal ones. */
Test(walk, refused_shapes_skipped)
{
    bi_shape start = {
        .block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16};
    curve c = {.flat = 1, .refuse_over_m = 64};
    run r;
    simulate(&c, BI_DESIGN_TILES, &start, &fp32, 0, &r);
    cr_assert_geq(r.refused, 1);
    cr_assert_eq(r.proposals, 2);
    for (int i = 0; i < r.proposals; i++)
        cr_assert_leq(r.proposed[i].tm, 64);
    cr_assert_eq(r.proposed[0].tm, 32, "tm 128 refused: tm 32 next");
}

/* The shape's text is what the candidates' headers carry: it reads back. */
Test(walk, shape_text_round_trip)
{
    bi_shape s = {.block1 = 128,
                  .bx = 64,
                  .by = 2,
                  .waves = 8,
                  .rows = 2,
                  .tm = 32,
                  .tn = 64,
                  .tk = 8,
                  .ty = 8,
                  .tx = 16,
                  .row_block = 1},
             back;
    char *text = bi_shape_text(&s);
    cr_assert_eq(bi_shape_parse(text, &back), 0, "%s", text);
    cr_assert(same_shape(&s, &back));
    cr_assert_eq(bi_shape_parse("block1=128 block2=64", &back), -1);
    free(text);
    /* the code hash ignores the opening comment (variant and shape), not the code */
    uint64_t a = bi_code_hash("/* v1 */\nint x;"), b = bi_code_hash("/* v2\n * shape */\nint x;");
    cr_assert_eq(a, b);
    cr_assert_neq(a, bi_code_hash("/* v1 */\nint y;"));
}
