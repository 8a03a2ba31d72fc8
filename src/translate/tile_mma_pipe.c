/* fp64 tensor-core tiles with a multistage pipeline (tile.c's GEMM-like kernels, g->stages):
 * the kernel tile_mma.c prints, rebuilt where its time went.
 *
 * - The tiles come to shared memory by cp.async (sm_80 and later), g->stages tiles of c2 in
 *   flight: while the warps multiply tile t, tiles t + 1 ... t + stages - 1 are on their way,
 *   with no registers held for them and no store to shared memory by the threads. A copy is
 *   16 bytes (two doubles along the operand's unit-stride subscript) where both are in range,
 *   consecutive and 16-byte aligned (checked at run time: a leading dimension may be odd), else
 *   one 8-byte copy each; a copy outside the block's range of c2 or the hull reads nothing and
 *   leaves zeros (cp.async's source size 0), so whole steps of the sum are always right.
 * - Each tile keeps the operand's layout in global memory (A[i][k] with k fastest stays so),
 *   its rows padded to 4 mod 16 doubles: the fragments' loads (lane l reads row l / 4, column
 *   l % 4 of an 8 x 4 piece, or the transpose) then fall on 16 distinct 8-byte bank pairs in
 *   each half-warp, whichever layout the operand has.
 * - Each warp owns (tm / wy) x (tn / 2) points, fm x fn fragments of 8 x 8, added to with the
 *   m8n8k4 fp64 mma.sync of the PTX ISA whose accumulator layout is documented: lane l holds
 *   C[l / 4][2 (l % 4)] and the next column. The accumulators are thus a thread's points, kept in
 *   registers from the first term to the last, and X gets f times its sum straight from them
 *   (no pass through shared memory as in tile_mma.c).
 * - One barrier a tile: after waiting for its own copies of tile t, a thread meets the others,
 *   which have then all finished tile t - 1, whose stage the copies of tile t + stages - 1 go to.
 *
 * Legal for the same reasons as tile.c's kernels (the mapped dimensions carry no dependence, the
 * tiles' arrays are written by no statement of the kernel); the rounding is the tensor cores'
 * (one product sum, then f), judged by the entry's tolerance like every candidate. Only for sums
 * into an array element (a local scalar keeps tile_mma.c's kernel). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cexpr.h"
#include "ch/embed.h"
#include "ch/strbuf.h"
#include "printer.h"
#include "tile.h"

enum {
    PIPE_MAX_FRAGMENTS = 32,    /* a warp's accumulators: 64 doubles a thread */
    PIPE_MAX_SMEM = 160 * 1024, /* the stages' shared memory (sm_80 allows 163 KiB) */
    PIPE_PAIR = 2               /* doubles a 16-byte copy moves */
};

/* A tile in shared memory: `rows` rows of `ld` doubles, the unit-stride subscript along a row
 * (c2 when sum_fast, else the mapped dimension); `width` values of its mapped dimension. */
typedef struct pipe_tile {
    int side;   /* 0: varies with c0 (A), 1: with c1 (B) */
    int width;  /* tm or tn */
    int fast;   /* a row's values: tk (sum_fast) or width */
    int rows;   /* width (sum_fast) or tk */
    int ld;     /* fast padded to 4 mod 16 */
    int offset; /* from the stage's start, in doubles */
} pipe_tile;

/* The row tile's index among the reads (A: varies with c0), and the column tile's. */
static void pipe_reads(const gemm *g, size_t *a, size_t *b)
{
    *a = g->reads[0].dims & DIM_ROW ? 0 : 1;
    *b = 1 - *a;
}

static pipe_tile pipe_tile_of(const gemm *g, int side)
{
    size_t ab[2];
    pipe_reads(g, &ab[0], &ab[1]);
    pipe_tile p = {.side = side, .width = side ? g->tn : g->tm};
    int fast = g->reads[ab[side]].sum_fast;
    p.fast = fast ? g->tk : p.width;
    p.rows = fast ? p.width : g->tk;
    p.ld = p.fast + (4 - p.fast % 16 + 16) % 16;
    if (side == 1) {
        pipe_tile a = pipe_tile_of(g, 0);
        p.offset = a.rows * a.ld;
    }
    return p;
}

/* Doubles a stage holds (both tiles). */
static int stage_size(const gemm *g)
{
    pipe_tile b = pipe_tile_of(g, 1);
    return b.offset + b.rows * b.ld;
}

int tile_mma_pipe_smem(const gemm *g)
{
    return g->stages * stage_size(g) * 8;
}

int tile_mma_pipe_fits(const gemm *g)
{
    int threads = g->tx * g->ty;
    mma_shape sh = mma_shape_of(g);
    if (g->stages < 2 || g->scalar_target || sh.fm * sh.fn > PIPE_MAX_FRAGMENTS)
        return 0;
    for (int side = 0; side < 2; side++) {
        pipe_tile p = pipe_tile_of(g, side);
        if (p.fast % PIPE_PAIR || (p.fast * p.rows / PIPE_PAIR) % threads)
            return 0; /* every thread the same whole number of copies */
    }
    return tile_mma_pipe_smem(g) <= PIPE_MAX_SMEM;
}

int tile_mma_pipe_points(const gemm *g, int d)
{
    mma_shape sh = mma_shape_of(g);
    return d ? 2 * sh.fn : sh.fm;
}

void tile_mma_pipe_offset(const gemm *g, ch_strbuf *out, int d)
{
    (void)g;
    if (d)
        ch_strbuf_adds(out, "ch_wn + (ch_c / 2) * 8 + (ch_lane % 4) * 2 + ch_c % 2");
    else
        ch_strbuf_adds(out, "ch_wm + ch_r * 8 + ch_lane / 4");
}

/* The copies of read i's tile of c2 from `k0` on into stage `stage` (C expressions). */
static void print_copies(gemm *g, ch_strbuf *out, size_t i, const char *stage, const char *k0)
{
    const tile_read *r = &g->reads[i];
    int side = r->dims & DIM_ROW ? 0 : 1, threads = g->tx * g->ty;
    pipe_tile p = pipe_tile_of(g, side);
    int pairs = p.fast / PIPE_PAIR;
    char *text = tile_expr_text(g->pr, r->node);
    ch_strbuf_addf(out,
                   "                { /* %s: %d copies a thread */\n"
                   "                    double *ch_s = ch_smem + (%s) * %d + %d;\n"
                   "#pragma unroll\n"
                   "                    for (int ch_q = 0; ch_q < %d; ch_q++) {\n"
                   "                        const int ch_l = ch_tid + ch_q * %d;\n",
                   text, p.fast * p.rows / PIPE_PAIR / threads, stage, stage_size(g), p.offset,
                   p.fast * p.rows / PIPE_PAIR / threads, threads);
    free(text);
    if (r->sum_fast)
        ch_strbuf_addf(out,
                       "                        const int ch_dk = (ch_l %% %d) * 2, ch_dx = ch_l "
                       "/ %d;\n",
                       pairs, pairs);
    else
        ch_strbuf_addf(out,
                       "                        const int ch_dx = (ch_l %% %d) * 2, ch_dk = ch_l "
                       "/ %d;\n",
                       pairs, pairs);
    const char *along_k = r->sum_fast ? " + ch_u" : "", *along_x = r->sum_fast ? "" : " + ch_u";
    ch_strbuf_addf(out,
                   "                        const double *ch_p[2]; /* NULL outside the block's "
                   "range */\n"
                   "#pragma unroll\n"
                   "                        for (int ch_u = 0; ch_u < 2; ch_u++) {\n"
                   "                            const long long %s = %s + ch_dk%s;\n"
                   "                            const long long %s = ch_o%d + ch_dx%s;\n"
                   "                            ch_p[ch_u] = NULL;\n"
                   "                            if (%s <= ch_khi && ch_dx%s + ch_o%d - ch_lo%d < "
                   "ch_e%d) {\n",
                   g->it[2], k0, along_k, g->it[side], side, along_x, g->it[2], along_x, side, side,
                   side);
    tile_bind(g, out, r->dims, 8);
    tr_indent_to(out, 8);
    ch_strbuf_adds(out, "ch_p[ch_u] = &");
    ch_cx cx = {.entry = g->pr->e, .out = out};
    ch_cx_expr(&cx, r->node);
    ch_strbuf_addf(out,
                   ";\n                            }\n                        }\n"
                   "                        double *ch_d = ch_s + ch_d%c * %d + ch_d%c;\n"
                   "                        if (ch_p[0] && ch_p[1] == ch_p[0] + 1 && "
                   "((size_t)ch_p[0] & 15) == 0)\n"
                   "                            ch_cp_async16(ch_d, ch_p[0], 16);\n"
                   "                        else if (!ch_p[0] && !ch_p[1])\n"
                   "                            ch_cp_async16(ch_d, %s, 0); /* zeros */\n"
                   "                        else {\n"
                   "                            ch_cp_async8(ch_d, ch_p[0] ? ch_p[0] : %s, "
                   "ch_p[0] ? 8 : 0);\n"
                   "                            ch_cp_async8(ch_d + 1, ch_p[1] ? ch_p[1] : %s, "
                   "ch_p[1] ? 8 : 0);\n"
                   "                        }\n"
                   "                    }\n"
                   "                }\n",
                   r->sum_fast ? 'x' : 'k', p.ld, r->sum_fast ? 'k' : 'x', r->pa->name, r->pa->name,
                   r->pa->name);
}

/* Both tiles of c2 from k0 on into stage `stage`. */
static void print_stage_copies(gemm *g, ch_strbuf *out, const char *stage, const char *k0)
{
    size_t a, b;
    pipe_reads(g, &a, &b);
    print_copies(g, out, a, stage, k0);
    print_copies(g, out, b, stage, k0);
}

/* The index in a tile of the fragment element this lane holds: `x` the mapped offset of the
 * fragment's first row (A) or column (B); the lane's value of c2 is ch_kk + ch_lane % 4. */
static char *fragment_index(const gemm *g, size_t i, const char *x)
{
    const tile_read *r = &g->reads[i];
    pipe_tile p = pipe_tile_of(g, r->dims & DIM_ROW ? 0 : 1);
    if (r->sum_fast)
        return ch_xasprintf("(%s + ch_lane / 4) * %d + ch_kk + ch_lane %% 4", x, p.ld);
    return ch_xasprintf("(ch_kk + ch_lane %% 4) * %d + %s + ch_lane / 4", p.ld, x);
}

/* The sums of the tile in stage ch_t % stages: tk / 4 steps of the warp's fragments. */
static void print_sums(gemm *g, ch_strbuf *out)
{
    size_t a, b;
    pipe_reads(g, &a, &b);
    mma_shape sh = mma_shape_of(g);
    char *ia = fragment_index(g, a, "ch_wm + ch_i * 8"),
         *ib = fragment_index(g, b, "ch_wn + ch_j * 8");
    int stage = stage_size(g);
    ch_strbuf_addf(
        out,
        "            { /* tile ch_t's sums: the warp's %d x %d fragments, 4 values of c2 a step "
        "*/\n"
        "                const double *ch_sa = ch_smem + (int)(ch_t %% %d) * %d + %d;\n"
        "                const double *ch_sb = ch_smem + (int)(ch_t %% %d) * %d + %d;\n"
        "#pragma unroll\n"
        "                for (int ch_kk = 0; ch_kk < %d; ch_kk += 4) {\n"
        "                    double ch_fa[%d], ch_fb[%d];\n"
        "#pragma unroll\n"
        "                    for (int ch_i = 0; ch_i < %d; ch_i++)\n"
        "                        ch_fa[ch_i] = ch_sa[%s];\n"
        "#pragma unroll\n"
        "                    for (int ch_j = 0; ch_j < %d; ch_j++)\n"
        "                        ch_fb[ch_j] = ch_sb[%s];\n"
        "#pragma unroll\n"
        "                    for (int ch_i = 0; ch_i < %d; ch_i++)\n"
        "#pragma unroll\n"
        "                        for (int ch_j = 0; ch_j < %d; ch_j++)\n"
        "                            ch_dmma(ch_acc[ch_i][2 * ch_j], ch_acc[ch_i][2 * ch_j + 1], "
        "ch_fa[ch_i], ch_fb[ch_j]);\n"
        "                }\n"
        "            }\n",
        sh.fm, sh.fn, g->stages, stage, pipe_tile_of(g, 0).offset, g->stages, stage,
        pipe_tile_of(g, 1).offset, g->tk, sh.fm, sh.fn, sh.fm, ia, sh.fn, ib, sh.fm, sh.fn);
    free(ia);
    free(ib);
}

static void print_head(gemm *g, size_t fn, ch_strbuf *out)
{
    mma_shape sh = mma_shape_of(g);
    ch_strbuf_addf(out, "/* Kernel %zu runs", fn);
    tile_print_stmt_names(g, out);
    ch_strbuf_addf(out,
                   " in tiles on the tensor cores: a GEMM-like\n"
                   " * nest of doubles. %s (c0) and %s (c1) carry no dependence (checked with "
                   "isl); the sum over\n"
                   " * %s (c2) is the reduction. Each block owns %d x %d points of (c0, c1), "
                   "each of its %d warps\n"
                   " * %d x %d of them: %d x %d fragments of 8 x 8 in registers, added to by the "
                   "m8n8k4 fp64\n"
                   " * multiply-adds. The operands that vary with c2 and one of c0, c1 come "
                   "through shared\n"
                   " * memory %d values of c2 at a time, %d tiles in flight (cp.async):",
                   g->counter[0] ? g->counter[0] : g->it[0],
                   g->counter[1] ? g->counter[1] : g->it[1], g->counter[2], g->tm, g->tn,
                   g->tx * g->ty / 32, g->tm / sh.wy, g->tn / MMA_WX, sh.fm, sh.fn, g->tk,
                   g->stages);
    for (size_t i = 0; i < g->n_reads; i++) {
        char *text = tile_expr_text(g->pr, g->reads[i].node);
        ch_strbuf_addf(out, "%s %s", i ? "," : "", text);
        free(text);
    }
    ch_strbuf_adds(out, ".\n * The statements before and after the sum run once per point. */\n");
}

void tile_print_mma_pipe_kernel(gemm *g, size_t fn, const char *t)
{
    printer *pr = g->pr;
    ch_strbuf *out = &pr->kernels;
    mma_shape sh = mma_shape_of(g);
    int threads = g->tx * g->ty;
    assert(g->mma && g->stages >= 2 && !g->scalar_target);
    print_head(g, fn, out);
    ch_strbuf_addf(out, "__global__ void __launch_bounds__(%d, 1) %s_k%zu(", threads, pr->e->name,
                   fn);
    tr_kernel_params(pr, out, 1);
    ch_strbuf_addf(
        out,
        ", long long ch_lo0, long long ch_lo1, long long ch_e0, long long ch_e1)\n"
        "{\n"
        "    /* %d stages of the two tiles, %d doubles each (rows padded to 4 mod 16 doubles) */\n"
        "    extern __shared__ __align__(16) double ch_smem[];\n"
        "    __shared__ long long ch_klo, ch_khi; /* the block's range of c2 */\n"
        "    const int ch_tid = threadIdx.y * %d + threadIdx.x, ch_lane = ch_tid %% 32;\n"
        "    /* this warp's %d x %d of the block's points */\n"
        "    const int ch_wm = (ch_tid / 32 / %d) * %d, ch_wn = (ch_tid / 32 %% %d) * %d;\n"
        "    %s ch_acc[%d][%d]; /* this thread's points: two of each fragment */\n"
        "    /* the block's rows of points: grid-stride over tiles of c0 */\n"
        "    for (long long ch_b0 = blockIdx.y; ch_b0 * %d < ch_e0; ch_b0 += gridDim.y) {\n"
        "        const long long ch_o0 = ch_lo0 + ch_b0 * %d, ch_o1 = ch_lo1 + "
        "(long long)blockIdx.x * %d;\n"
        "        if (ch_tid == 0) {\n            ch_klo = LLONG_MAX;\n"
        "            ch_khi = LLONG_MIN;\n        }\n"
        "#pragma unroll\n"
        "        for (int ch_r = 0; ch_r < %d; ch_r++)\n"
        "#pragma unroll\n"
        "            for (int ch_c = 0; ch_c < %d; ch_c++)\n"
        "                ch_acc[ch_r][ch_c] = (%s)0;\n"
        "        __syncthreads();\n",
        g->stages, stage_size(g), g->tx, g->tm / sh.wy, g->tn / MMA_WX, MMA_WX, g->tm / sh.wy,
        MMA_WX, g->tn / MMA_WX, t, sh.fm, 2 * sh.fn, g->tm, g->tm, g->tn, sh.fm, 2 * sh.fn, t);
    pr->out = out;
    tile_print_prologue(g, out, t);
    ch_strbuf_addf(out,
                   "        __syncthreads();\n"
                   "        const long long ch_nt = ch_klo <= ch_khi ? (ch_khi - ch_klo) / %d + 1 "
                   ": 0; /* tiles of c2 */\n"
                   "#pragma unroll\n"
                   "        for (int ch_t = 0; ch_t < %d; ch_t++) { /* the first tiles in flight "
                   "*/\n"
                   "            if (ch_t < ch_nt) {\n",
                   g->tk, g->stages - 1);
    char *k0 = ch_xasprintf("(ch_klo + ch_t * %d)", g->tk);
    print_stage_copies(g, out, "ch_t", k0);
    free(k0);
    ch_strbuf_addf(out,
                   "            }\n"
                   "            ch_cp_async_commit();\n"
                   "        }\n"
                   "        for (long long ch_t = 0; ch_t < ch_nt; ch_t++) {\n"
                   "            ch_cp_async_wait<%d>(); /* this thread's copies of tile ch_t are "
                   "in */\n"
                   "            __syncthreads(); /* everyone's; and tile ch_t - 1's stage is free "
                   "*/\n"
                   "            if (ch_t + %d < ch_nt) {\n"
                   "                const int ch_st = (int)((ch_t + %d) %% %d);\n"
                   "                const long long ch_k0 = ch_klo + (ch_t + %d) * %d;\n",
                   g->stages - 2, g->stages - 1, g->stages - 1, g->stages, g->stages - 1, g->tk);
    print_stage_copies(g, out, "ch_st", "ch_k0");
    ch_strbuf_adds(out, "            }\n            ch_cp_async_commit();\n");
    print_sums(g, out);
    ch_strbuf_adds(out, "        }\n        ch_cp_async_wait<0>();\n");
    tile_print_epilogue(g, out);
    ch_strbuf_adds(out, "        __syncthreads(); /* ch_klo and the stages are reused by the next "
                        "row of tiles */\n    }\n}\n\n");
}

extern const struct ch_embedded_file ch_template_files[];

void tr_mma_pipe_support(ch_strbuf *out, const char *code)
{
    if (!strstr(code, "ch_dmma(") && !strstr(code, "ch_cp_async16("))
        return;
    const char *tmpl = ch_embedded_text(ch_template_files, "mma_pipe.cu");
    assert(tmpl && "templates/mma_pipe.cu is built into the binary");
    ch_strbuf_adds(out, tmpl);
}
