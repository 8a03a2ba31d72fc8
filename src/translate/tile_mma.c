/* Tensor cores for tile.c's GEMM-like kernels: when the sum is a product of the two tiles on
 * doubles, the warps add it with nvcuda::wmma's m8n8k4 multiply-adds instead of each thread's
 * register block (see the comment below for the layout and why whole steps are right). */
#include <stdlib.h>
#include <string.h>

#include "ch/cexpr.h"
#include "printer.h"
#include "tile.h"

/* --- tensor cores (fp64) ---
 *
 * A sum of products of two tiles, X += f * A[i][k] * B[k][j] with f invariant (alpha, a
 * literal), on doubles: the block's 8 warps each own a 16 x 32 part of the 64 x 64 points and
 * add the products with the m8n8k4 double-precision multiply-adds of the tensor cores
 * (nvcuda::wmma, sm_80 and later), 4 values of c2 a step, from the same tiles in shared memory
 * (A's is c2-major: column-major 8 x 4 fragments; B's row-major 4 x 8). The fragments' layout in
 * the registers is the hardware's, so the sums go through shared memory (over the tiles, which
 * are dead by then) to each thread's points, where X gets f times its sum. The tiles hold zeros
 * outside the block's range of c2 and the hull, so whole steps are always right. Only for box
 * tiles (every point sums over the same c2). Rounding differs from the C code's (one product
 * sum, then f): the entry's tolerance judges it, as for every candidate. */

/* The leaves of a product tree (a * b * c), at most max; 0 when there are more. */
static int product_leaves(const ch_ir *x, const ch_ir **leaves, size_t *n, size_t max)
{
    if (x->kind == CH_IR_BINARY && x->text && strcmp(x->text, "*") == 0)
        return product_leaves(x->kids[0], leaves, n, max) &&
               product_leaves(x->kids[1], leaves, n, max);
    if (*n == max)
        return 0;
    leaves[(*n)++] = x;
    return 1;
}

/* A factor that varies with nothing: a literal, or a scalar parameter (possibly cast). */
static int invariant_factor(const gemm *g, const ch_ir *x)
{
    if (x->kind == CH_IR_INT_LIT || x->kind == CH_IR_FLOAT_LIT)
        return 1;
    if (x->kind == CH_IR_CAST)
        return invariant_factor(g, x->kids[0]);
    return x->kind == CH_IR_VAR && x->param_index >= 0 &&
           g->pr->e->params[x->param_index].role == CH_ROLE_SCALAR;
}

/* The e of the sum `X += e` or `X = X + e`, or NULL. */
static const ch_ir *sum_terms(const gemm *g)
{
    const ch_ir *as = g->sum->ir->kids[0];
    if (strcmp(as->text, "+=") == 0)
        return as->kids[1];
    const ch_ir *r = as->kids[1];
    if (strcmp(as->text, "=") || r->kind != CH_IR_BINARY || strcmp(r->text, "+") || !g->target)
        return NULL;
    char *x = tile_expr_text(g->pr, r->kids[0]), *t = tile_expr_text(g->pr, g->target);
    int same = strcmp(x, t) == 0;
    free(x);
    free(t);
    return same ? r->kids[1] : NULL;
}

mma_shape mma_shape_of(const gemm *g)
{
    int wy = g->tx * g->ty / 32 / MMA_WX;
    mma_shape sh = {wy, g->tm / wy / 8, g->tn / MMA_WX / 8};
    return sh;
}

/* Whether the sum goes through tensor cores (see above); sets g->factor. Whole warps in pairs
 * along c1, 8 x 8 fragments that tile the block's points, at most 16 of them a warp, and the
 * sums (tm x (tn + 4) doubles) within 48 KiB of shared memory. */
int tile_match_mma(gemm *g)
{
    int threads = g->tx * g->ty;
    if (g->acc != CH_T_DOUBLE || g->n_reads != 2 || !tile_is_box(g) || threads < 64 ||
        threads % 64 || g->tk % 4)
        return 0;
    mma_shape sh = mma_shape_of(g);
    if (g->tm % (8 * sh.wy) || g->tn % (8 * MMA_WX) ||
        (!g->stages && (sh.fm * sh.fn > 16 || g->tm * (g->tn + 4) * 8 > 48 * 1024)))
        return 0;
    const ch_ir *e = sum_terms(g), *leaves[8];
    size_t n = 0;
    if (!e || !product_leaves(e, leaves, &n, 8))
        return 0;
    int rows = 0, cols = 0;
    ch_strbuf f;
    ch_strbuf_init(&f);
    ch_cx cx = {.entry = g->pr->e, .out = &f};
    for (size_t i = 0; i < n; i++) {
        size_t r;
        const tile_read *t = tile_read_of(g, leaves[i], &r);
        if (t && t->pa->elem == CH_T_DOUBLE && t->dims == (DIM_ROW | DIM_SUM))
            rows++;
        else if (t && t->pa->elem == CH_T_DOUBLE && t->dims == (DIM_COL | DIM_SUM))
            cols++;
        else if (invariant_factor(g, leaves[i])) {
            ch_strbuf_adds(&f, f.len ? " * " : "");
            ch_cx_expr(&cx, leaves[i]);
        } else
            rows = -8;
    }
    if (rows != 1 || cols != 1 || (g->stages && !tile_mma_pipe_fits(g))) {
        ch_strbuf_free(&f);
        return 0;
    }
    g->factor = f.len ? ch_strbuf_detach(&f) : NULL;
    ch_strbuf_free(&f);
    return 1;
}

/* The row tile's index among the reads (A: varies with c0), and the column tile's. */
static void mma_tiles(const gemm *g, size_t *a, size_t *b)
{
    *a = g->reads[0].dims & DIM_ROW ? 0 : 1;
    *b = 1 - *a;
}

/* The shared memory of an mma kernel: one buffer holding the two tiles while the sum runs and
 * the block's sums after it. */
void tile_print_mma_shared(const gemm *g, ch_strbuf *out)
{
    size_t a, b;
    mma_tiles(g, &a, &b);
    int lda = g->tm + 2, ldb = g->tn + 2, ldc = g->tn + 4;
    int tiles = g->tk * (lda + ldb), sums = g->tm * ldc;
    ch_strbuf_addf(out,
                   "    /* the tiles (rows 16-byte padded: each 8 x 4 fragment starts 32-byte "
                   "aligned), then the\n     * block's sums over them */\n"
                   "    __shared__ __align__(32) double ch_smem[%d];\n"
                   "    double (*ch_t%zu)[%d] = reinterpret_cast<double (*)[%d]>(ch_smem);\n"
                   "    double (*ch_t%zu)[%d] = reinterpret_cast<double (*)[%d]>(ch_smem + %d);\n"
                   "    double (*ch_sum)[%d] = reinterpret_cast<double (*)[%d]>(ch_smem);\n",
                   tiles > sums ? tiles : sums, a, lda, lda, b, ldb, ldb, g->tk * lda, ldc, ldc);
}

/* This warp's part of the points and its accumulator fragments. */
void tile_print_mma_fragments(const gemm *g, ch_strbuf *out)
{
    mma_shape sh = mma_shape_of(g);
    ch_strbuf_addf(
        out,
        "    /* this warp's %d x %d of the block's points: %d x %d fragments of 8 x 8 */\n"
        "    const int ch_wm = (ch_tid / 32 / %d) * %d, ch_wn = (ch_tid / 32 %% %d) * "
        "%d;\n"
        "    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 8, 8, 4, double> "
        "ch_fc[%d][%d];\n",
        g->tm / sh.wy, g->tn / MMA_WX, sh.fm, sh.fn, MMA_WX, g->tm / sh.wy, MMA_WX, g->tn / MMA_WX,
        sh.fm, sh.fn);
}

/* The sum of one tile: tk / 4 steps of the warp's fragments. */
void tile_print_mma_step(const gemm *g, ch_strbuf *out)
{
    size_t a, b;
    mma_tiles(g, &a, &b);
    mma_shape sh = mma_shape_of(g);
    ch_strbuf_addf(
        out,
        "#pragma unroll\n"
        "            for (int ch_kk = 0; ch_kk < %d; ch_kk += 4) { /* whole tiles: zeros past "
        "the range */\n"
        "                nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 8, 8, 4, double, "
        "nvcuda::wmma::col_major> ch_fa[%d];\n"
        "                nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 8, 8, 4, double, "
        "nvcuda::wmma::row_major> ch_fb[%d];\n"
        "#pragma unroll\n"
        "                for (int ch_i = 0; ch_i < %d; ch_i++)\n"
        "                    nvcuda::wmma::load_matrix_sync(ch_fa[ch_i], &ch_t%zu[ch_kk][ch_wm + "
        "ch_i * 8], %d);\n"
        "#pragma unroll\n"
        "                for (int ch_j = 0; ch_j < %d; ch_j++)\n"
        "                    nvcuda::wmma::load_matrix_sync(ch_fb[ch_j], &ch_t%zu[ch_kk][ch_wn + "
        "ch_j * 8], %d);\n"
        "#pragma unroll\n"
        "                for (int ch_i = 0; ch_i < %d; ch_i++)\n"
        "#pragma unroll\n"
        "                    for (int ch_j = 0; ch_j < %d; ch_j++)\n"
        "                        nvcuda::wmma::mma_sync(ch_fc[ch_i][ch_j], ch_fa[ch_i], "
        "ch_fb[ch_j], ch_fc[ch_i][ch_j]);\n"
        "            }\n",
        g->tk, sh.fm, sh.fn, sh.fm, a, g->tm + 2, sh.fn, b, g->tn + 2, sh.fm, sh.fn);
}

/* The fragments zeroed (before a row of tiles), or stored to the sums (after it). */
void tile_print_mma_fragments_loop(const gemm *g, ch_strbuf *out, int store)
{
    mma_shape sh = mma_shape_of(g);
    ch_strbuf_addf(out,
                   "#pragma unroll\n"
                   "        for (int ch_i = 0; ch_i < %d; ch_i++)\n"
                   "#pragma unroll\n"
                   "            for (int ch_j = 0; ch_j < %d; ch_j++)\n",
                   sh.fm, sh.fn);
    if (store)
        ch_strbuf_addf(
            out,
            "                nvcuda::wmma::store_matrix_sync(&ch_sum[ch_wm + ch_i * "
            "8][ch_wn + ch_j * 8], ch_fc[ch_i][ch_j], %d, nvcuda::wmma::mem_row_major);\n"
            "        __syncthreads();\n",
            g->tn + 4);
    else
        ch_strbuf_adds(out,
                       "                nvcuda::wmma::fill_fragment(ch_fc[ch_i][ch_j], 0.0);\n");
}
