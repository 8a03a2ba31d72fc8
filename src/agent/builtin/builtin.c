/* The builtin agent (DESIGN §4): offline and deterministic. Its kernel job translates a harness
 * function's C body to CUDA and walks through variants as evolution feeds back; entries
 * without a body need an LLM provider.
 *
 * The translator is src/translate (isl: model, dependences, schedule, mapping, CUDA); its
 * variants are a schedule strategy and block shapes. Bodies it cannot model yet (early
 * `return`s, while loops, loops with data-dependent bounds) go to the older direct mapper of
 * this folder (analysis.c, plan.c, codegen.c), which maps parallel loops as written. */
#include <stdlib.h>
#include <string.h>

#include "ch/agent.h"
#include "ch/agent_builtin.h"
#include "ch/agent_walk.h"
#include "ch/spec_reader.h"
#include "ch/translate.h"

/* The translator's variants: where the order comes from, the kernels' forms and their shape
 * (the axes evolution's walk moves along, ch/agent_walk.h). The first is what a new entry gets;
 * evolution asks for the others. */
typedef struct tr_variant {
    int id;
    ch_tr_strategy strategy;
    int flags;            /* ch_tr_plan_build's: CH_TR_PARALLEL_SUMS, CH_TR_WARP_ROWS */
    int block_private;    /* histograms through a per-block copy in shared memory */
    int mma;              /* fp64 tile sums on the tensor cores */
    int mma_stages;       /* and their tiles in flight through cp.async (tile_mma_pipe.c) */
    int library;          /* a call to cuBLAS when the whole body is a GEMM (library.c) */
    ch_tr_precision prec; /* library: the arithmetic, proposed only when tol() admits it */
    int block_rows;       /* warp-per-row kernels on a block of block1 threads per row */
    int row_regs;         /* and with row_regs values a thread of each row in registers */
    int transpose_tile;   /* transposes alone, through tiles this many points a side */
    int cols;             /* with rows: 16 bytes of values of c1 a thread, vector loads (cols.c) */
    /* block sizes, capped grids (waves: threads loop more), register-blocked tiles of
     * GEMM-like kernels, rows a thread in plain 2-D kernels (stencils) */
    bi_shape shape;
    int walk; /* a neighbour of the best candidate: the source names its shape */
} tr_variant;

#define PLAIN_256                                                                                  \
    {                                                                                              \
        .block1 = 256, .bx = 32, .by = 8                                                           \
    }

/* The first two keep the C body's order of every floating addition (results equal the host's
 * to the last bit); the third and fourth add floating sums in parallel too (under tol()), with
 * capped grids so that each thread adds many terms before its warp's one atomic. Reductions
 * exact in any order (integer sums and histograms, &, |, ^, min, max, integer scans) run in
 * parallel in all four. The variants differ in how a histogram is updated: the first and third
 * in a per-block copy in shared memory, the second and fourth straight in global memory. The
 * copy is the first form proposed because histograms are mostly a few hundred bins hit by
 * millions of updates: global atomics then serialise on the same few L2 lines, the copy turns
 * them into shared-memory atomics and one flush per block (its grid capped like the third's, so
 * that a block takes many updates per flush). Global atomics win when the bins are many and
 * rarely hit twice (the flush then costs more than it saves), and are what the second offers.
 * The fifth runs a warp per row where the rows' loops allow it (row norms, softmax), and is only
 * proposed when some kernel does; the twelfth runs a block of 256 threads per row instead
 * (rowwise.c: long rows, a softmax over thousands of columns). */
static const tr_variant tr_variants[] = {
    {.id = 0, .strategy = CH_TR_ISL_SCHEDULE, .block_private = 1, .shape = PLAIN_256},
    {.id = 1, .strategy = CH_TR_ORIGINAL, .shape = PLAIN_256},
    {.id = 2,
     .strategy = CH_TR_ISL_SCHEDULE,
     .flags = CH_TR_PARALLEL_SUMS,
     .block_private = 1,
     .shape = {.block1 = 128, .bx = 32, .by = 4, .waves = 4}},
    {.id = 3,
     .strategy = CH_TR_ORIGINAL,
     .flags = CH_TR_PARALLEL_SUMS,
     .shape = {.block1 = 128, .bx = 32, .by = 4, .waves = 4}},
    {.id = 4, .strategy = CH_TR_ORIGINAL, .flags = CH_TR_WARP_ROWS, .shape = PLAIN_256},
    {.id = 5,
     .strategy = CH_TR_ISL_SCHEDULE,
     .shape = {.block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16}},
    {.id = 6,
     .strategy = CH_TR_ISL_SCHEDULE,
     .shape =
         {.block1 = 256, .bx = 32, .by = 8, .tm = 128, .tn = 128, .tk = 8, .ty = 16, .tx = 16}},
    {.id = 7,
     .strategy = CH_TR_ISL_SCHEDULE,
     .shape = {.block1 = 256, .bx = 32, .by = 4, .rows = 4}},
    {.id = 8,
     .strategy = CH_TR_ISL_SCHEDULE,
     .mma = 1,
     .shape = {.block1 = 256, .bx = 32, .by = 8, .tm = 64, .tn = 64, .tk = 16, .ty = 16, .tx = 16}},
    {.id = 9, .strategy = CH_TR_ORIGINAL, .library = 1, .prec = CH_TR_PREC_NATIVE},
    {.id = 10, .strategy = CH_TR_ORIGINAL, .library = 1, .prec = CH_TR_PREC_TF32},
    {.id = 11,
     .strategy = CH_TR_ORIGINAL,
     .flags = CH_TR_WARP_ROWS,
     .block_rows = 1,
     .shape = {.block1 = 256, .bx = 32, .by = 8, .row_block = 1}},
    {.id = 12,
     .strategy = CH_TR_ORIGINAL,
     .flags = CH_TR_WARP_ROWS,
     .block_rows = 1,
     .row_regs = 16,
     .shape = {.block1 = 256, .bx = 32, .by = 8, .row_block = 1}},
    {.id = 13, .strategy = CH_TR_ISL_SCHEDULE, .transpose_tile = 64, .shape = PLAIN_256},
    {.id = 14,
     .strategy = CH_TR_ISL_SCHEDULE,
     .mma = 1,
     .mma_stages = 3,
     .shape =
         {.block1 = 256, .bx = 32, .by = 8, .tm = 128, .tn = 128, .tk = 16, .ty = 16, .tx = 16}},
    {.id = 15,
     .strategy = CH_TR_ISL_SCHEDULE,
     .cols = 1,
     .shape = {.block1 = 256, .bx = 32, .by = 4, .rows = 4}},
};
/* The order they are proposed in, after the exact first variant: cuBLAS (the tenth and
 * eleventh, proposed only when the whole body is a GEMM, the eleventh only when tol() admits
 * TF32), fp64 tiles on the tensor cores (the ninth, only when some kernel sums products of two
 * double tiles), shared-memory tiles (the sixth and seventh, only when some kernel is a
 * GEMM-like nest or a transpose) and four rows a thread (the eighth, only when some kernel is a
 * plain 2-D one: stencils), since they are where the speed of those kernels is. The eighth's
 * blocks are 32x4: with four rows a thread they cover 32x16 points (a 5-point stencil on the
 * H200: 75% of the copy floor, 72% with 32x8, 64% with two rows a thread, 60% with eight).
 * A block per row (the twelfth, only when some kernel takes a row-wise shape) comes right after
 * the first: a thread per row reached 7-30% of the copy floor on a softmax, a block per row
 * 51% and more in hand-written tests. The thirteenth, a block per row with the row in
 * registers (rowregs.c: 16 values a thread, rows up to 4096 on 256 threads, longer ones as the
 * twelfth), comes before it: a softmax then reads x once and writes y once, the floor's
 * traffic, where the twelfth makes five passes over a row (only when some kernel's loops over
 * a row reach its arrays at the same element). The fourteenth, transposes alone through 64x64
 * tiles on 64x4 threads (16 elements a thread each way, where the sixth's 32x32 tiles on 32x8
 * threads move 4: more loads in flight a thread, a quarter of the blocks), comes next, before
 * the GEMM variants that also tile transposes (only when some kernel is a transpose). The
 * fifteenth, fp64 tile sums on the tensor cores in 128 x 128 tiles with three 16-deep tiles of
 * each operand in flight (tile_mma_pipe.c: cp.async copies, each warp's 32 x 64 accumulators in
 * registers), comes right before the ninth, where it applies (the ninth, one tile in flight
 * through registers and the sums through shared memory, reached 36% of cuBLAS on the H200).
 * The sixteenth, the eighth's four rows a thread with 16 bytes of consecutive columns a thread
 * too, loaded and stored as 16-byte vectors where the addresses allow (cols.c: a 32x4 block
 * covers 128 columns of floats by 16 rows), comes right before the eighth, where a kernel's
 * statement reaches its arrays at constant offsets from the column (stencils). */
static const size_t tr_order[] = {0, 12, 11, 13, 9, 10, 14, 8, 5, 6, 15, 7, 1, 2, 3, 4};
#define N_TR_VARIANTS (sizeof tr_variants / sizeof *tr_variants)
#define TR_MARK       "ch-cc translator variant "
#define SHAPE_MARK    "ch-cc shape: "
_Static_assert(sizeof tr_order / sizeof *tr_order == N_TR_VARIANTS,
               "every variant has its place in the order");

#define NEED_LLM                                                                                   \
    "the builtin agent only translates C bodies; configure an LLM provider "                       \
    "(CH_CC_PROVIDER=openai|anthropic, CH_CC_MODEL, CH_CC_API_BASE)"

/* What the agent remembers per entry: the variants it has proposed. Owned by the agent. */
typedef struct bi_memory {
    char *key; /* entry name + signature */
    unsigned char *tried;
    unsigned char tr_tried[N_TR_VARIANTS];
    bi_walk walk; /* the walk along the best design's shape, and every code proposed */
} bi_memory;

typedef struct bi_state {
    bi_memory *mem;
    size_t n;
} bi_state;

static bi_memory *memory_for(bi_state *st, const ch_entry *e)
{
    char *key = ch_xasprintf("%s\n%s", e->name, e->signature ? e->signature : "");
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->mem[i].key, key) == 0) {
            free(key);
            return &st->mem[i];
        }
    st->mem = ch_xrealloc(st->mem, (st->n + 1) * sizeof *st->mem);
    bi_memory *m = &st->mem[st->n++];
    memset(m, 0, sizeof *m);
    m->key = key;
    m->tried = ch_xcalloc(bi_variant_count(), 1);
    return m;
}

/* The declaration has no body, so its tune size is bounded by bytes alone: a GEMM's would be
 * 4729 cubed, hours of host reference. The reference the spec reader wrote has the loop nest,
 * and the checklist derived from it bounds the work as for the user's own code. */
static void tune_from_reference(const ch_entry *e, const char *reference_c, ch_checklist *out)
{
    ch_entry_list from_reference;
    ch_entry_list_init(&from_reference);
    ch_error ignored;
    ch_checklist bounded;
    memset(&bounded, 0, sizeof bounded);
    if (ch_spec_reference_entry(e, reference_c, &from_reference, &ignored) == 0 &&
        ch_checklist_derive(&from_reference.items[0], &bounded, &ignored) == 0) {
        ch_ck_size keep = out->tune;
        out->tune = bounded.tune;
        bounded.tune = keep;
    }
    ch_checklist_free(&bounded);
    ch_entry_list_free(&from_reference);
}

static int builtin_checklist(ch_agent *ag, const ch_entry *e, ch_checklist *out, ch_error *err)
{
    (void)ag;
    if (e->kind != CH_KIND_SPEC_DECL && e->has_body)
        return ch_checklist_derive(e, out, err);
    /* a spec-only entry: the spec reader writes the reference from the words and the
     * declaration (or refuses, located); it travels to test_author in the checklist */
    ch_spec_reading reading;
    if (ch_spec_read(e, &reading, err) != 0)
        return -1;
    if (ch_checklist_derive(e, out, err) != 0) {
        ch_spec_reading_free(&reading);
        return -1;
    }
    tune_from_reference(e, reading.reference, out);
    free(out->reference);
    out->reference = reading.reference;
    reading.reference = NULL;
    ch_spec_reading_free(&reading);
    return 0;
}

static int builtin_test_author(ch_agent *ag, const ch_checklist *c, char **reference_c,
                               ch_error *err)
{
    (void)ag;
    *reference_c = NULL;
    if (c->kind == CH_KIND_SPEC_DECL && c->reference && strstr(c->reference, SPEC_READER_MARK)) {
        *reference_c = ch_xstrdup(c->reference);
        return 0;
    }
    if (c->kind == CH_KIND_SPEC_DECL)
        return ch_error_set(err, "%s: %s", c->name ? c->name : "entry", NEED_LLM);
    return ch_error_set(err,
                        "%s: the C body is the reference of this entry; no test author is "
                        "needed",
                        c->name ? c->name : "entry");
}

static int tr_variant_of_source(const char *src)
{
    const char *p = src ? strstr(src, TR_MARK) : NULL;
    int v = p ? atoi(p + strlen(TR_MARK)) : -1;
    return v >= 0 && (size_t)v < N_TR_VARIANTS ? v : -1;
}

/* One translation of the model by variant tv with `strategy`: the source (NULL when no plan
 * is found, err set), and how many kernels went into a warp per row and into tiles. */
typedef struct tr_output {
    char *src;
    ch_tr_strategy strategy;
    int warps, n_tiled, n_rows, n_cols, n_mma, n_block_rows, n_row_regs, n_transposed;
} tr_output;

static void tr_generate(const ch_agent *ag, const ch_tr_model *model, const ch_tr_deps *deps,
                        const tr_variant *tv, ch_tr_strategy strategy, tr_output *out,
                        ch_error *err)
{
    memset(out, 0, sizeof *out);
    out->strategy = strategy;
    ch_tr_plan *plan = NULL;
    if (ch_tr_plan_build(model, deps, strategy, tv->flags, &plan, err) != 0)
        return;
    int scatters = 0; /* some kernel updates a histogram atomically */
    for (size_t k = 0; k < plan->n_kernels; k++) {
        out->warps |= plan->kernels[k].warp_rows;
        scatters |= plan->kernels[k].atomic_each;
    }
    const bi_shape *sh = &tv->shape;
    char *tiles = sh->tm ? ch_xasprintf(", shared-memory tiles (GEMM-like nests in %dx%d "
                                        "of %dx%d threads, %d-deep; transposes in 32x32)",
                                        sh->tm, sh->tn, sh->ty, sh->tx, sh->tk)
                         : ch_xstrdup("");
    char *rows =
        sh->rows > 1 && tv->cols
            ? ch_xasprintf(", %d rows and 16 bytes of columns a thread in 2-D kernels (vector "
                           "loads)",
                           sh->rows)
        : sh->rows > 1 ? ch_xasprintf(", %d rows a thread in 2-D kernels", sh->rows)
        : tv->transpose_tile
            ? ch_xasprintf(", transposes in %dx%d tiles of %dx%d threads", tv->transpose_tile,
                           tv->transpose_tile, tv->transpose_tile, sh->block1 / tv->transpose_tile)
        : tv->mma_stages
            ? ch_xasprintf(", fp64 tile sums on tensor cores, %d tiles in flight (cp.async)",
                           tv->mma_stages)
            : ch_xstrdup(tv->mma ? ", fp64 tile sums on tensor cores" : "");
    char *waves = sh->waves ? ch_xasprintf(", grids of %d waves", sh->waves) : ch_xstrdup("");
    char *shape = tv->walk ? bi_shape_text(sh) : NULL;
    const char *form = tv->flags & CH_TR_PARALLEL_SUMS ? ", parallel sums"
                       : out->warps && tv->block_rows && tv->row_regs
                           ? ", a block per row, rows in registers"
                       : out->warps && tv->block_rows ? ", a block per row"
                       : out->warps                   ? ", a warp per row"
                                                      : "";
    /* the third variant has always said it; the first says it where it applies */
    const char *priv = tv->block_private && (tv->flags & CH_TR_PARALLEL_SUMS || scatters)
                           ? " (histograms per block)"
                           : "";
    char *head =
        ch_xasprintf(TR_MARK "%d: %s%s%s%s%s, 1-D blocks of %d threads, 2-D blocks "
                             "of %dx%d%s%s%s",
                     tv->id, ch_tr_strategy_name(strategy), form, priv, tiles, rows, sh->block1,
                     sh->bx, sh->by, waves, shape ? "\n * " SHAPE_MARK : "", shape ? shape : "");
    free(tiles);
    free(rows);
    free(waves);
    free(shape);
    int sm = ag->hw.sm_count > 0 ? ag->hw.sm_count : 132;
    ch_tr_cuda_opts o = {
        .block1 = sh->block1,
        .block2_x = sh->bx,
        .block2_y = sh->by,
        .grid_cap = sh->waves ? (long long)sh->waves * sm * (2048 / sh->block1) : 2147483647LL,
        .header = head,
        .block_private = tv->block_private,
        /* uncapped grids cap a per-block copy's kernel at four waves, as
         * the third variant's grids */
        .private_grid_cap = !sh->waves && sh->block1 > 0 ? 4LL * sm * (2048 / sh->block1) : 0,
        .tile_m = sh->tm,
        .tile_n = sh->tn,
        .tile_k = sh->tk,
        .tile_ty = sh->ty,
        .tile_tx = sh->tx,
        .n_tiled = &out->n_tiled,
        .rows = sh->rows,
        .n_rows = &out->n_rows,
        .cols = tv->cols,
        .n_cols = &out->n_cols,
        .tile_mma = tv->mma,
        .tile_mma_stages = tv->mma_stages,
        .n_mma = &out->n_mma,
        .block_rows = tv->block_rows,
        .n_block_rows = &out->n_block_rows,
        .row_regs = tv->row_regs,
        .n_row_regs = &out->n_row_regs,
        .transpose_tile = tv->transpose_tile,
        .n_transposed = &out->n_transposed};
    out->src = ch_tr_cuda(plan, &o);
    free(head);
    ch_tr_plan_free(plan);
}

/* The translation of variant tv: for tiles, the strategy whose order puts more kernels in
 * tiles (the isl scheduler fuses nests that the original order keeps apart, and the other
 * way round). 0 with out set; 1 with err set when no plan is found; 2 when the variant would
 * be the same as another (no warp per row, no tiles). */
static int tr_variant_source(const ch_agent *ag, const ch_tr_model *model, const ch_tr_deps *deps,
                             const tr_variant *tv, tr_output *out, ch_error *err)
{
    if (tv->library) {
        memset(out, 0, sizeof *out);
        out->strategy = tv->strategy;
        char *head = ch_xasprintf(TR_MARK "%d: cuBLAS GEMM, %s precision", tv->id,
                                  ch_tr_precision_name(tv->prec));
        out->src = ch_tr_library_cuda(model, tv->prec, head);
        free(head);
        return out->src ? 0 : 2;
    }
    tr_generate(ag, model, deps, tv, tv->strategy, out, err);
    if (!out->src)
        return 1;
    if (tv->shape.tm) {
        tr_output other;
        ch_error other_err = {0};
        tr_generate(ag, model, deps, tv, CH_TR_ORIGINAL, &other, &other_err);
        ch_error_clear(&other_err);
        if (other.src && other.n_tiled > out->n_tiled) {
            free(out->src);
            *out = other;
        } else {
            free(other.src);
        }
    }
    if ((tv->flags & CH_TR_WARP_ROWS && !out->warps) || (tv->shape.tm && !out->n_tiled) ||
        (tv->shape.rows > 1 && !out->n_rows) || (tv->cols && !out->n_cols) ||
        (tv->mma && !out->n_mma) || (tv->block_rows && !out->n_block_rows) ||
        (tv->row_regs && !out->n_row_regs) || (tv->transpose_tile && !out->n_transposed)) {
        free(out->src);
        out->src = NULL;
        return 2;
    }
    return 0;
}

/* The next translator variant for e: 0 with the source; 1 when the translator cannot translate
 * the body (err says why); 2 when it has proposed every variant it has. */
static int translate(ch_agent *ag, const ch_entry *e, bi_memory *mem, const ch_kernel_request *req,
                     char **cuda_src, char **design, ch_error *err)
{
    int parent = tr_variant_of_source(req->parent_source);
    if (parent >= 0)
        mem->tr_tried[parent] = 1;
    ch_tr_model *model = NULL;
    ch_tr_deps *deps = NULL;
    if (ch_tr_model_build(e, &model, err) != 0)
        return 1;
    int rc = 1;
    if (ch_tr_deps_compute(model, &deps, err) == 0)
        for (size_t step = 0; step < N_TR_VARIANTS && rc != 0; step++) {
            size_t v = tr_order[step];
            const tr_variant *tv = &tr_variants[v];
            if (mem->tr_tried[v]) {
                rc = 2;
                continue;
            }
            mem->tr_tried[v] = 1;
            tr_output out;
            int got = tr_variant_source(ag, model, deps, tv, &out, err);
            if (got != 0) {
                /* a library variant that does not apply says nothing of whether the
                 * translator maps the body: the direct mapper still gets its turn */
                if (got == 2 && !tv->library)
                    rc = 2;
                continue;
            }
            /* two variants may print the same kernels for a body (no tile, no row, no sum
             * to treat differently): the copy would cost a whole verification for nothing */
            if (bi_walk_mark(&mem->walk, bi_code_hash(out.src))) {
                free(out.src);
                rc = 2; /* its code was proposed: nothing new from it */
                continue;
            }
            *cuda_src = out.src;
            if (design)
                *design = tv->library
                              ? ch_xasprintf("translator v%d: cuBLAS GEMM (%s)", tv->id,
                                             ch_tr_precision_name(tv->prec))
                              : ch_xasprintf("translator v%d: %s%s%s", tv->id,
                                             ch_tr_strategy_name(out.strategy),
                                             out.n_tiled ? ", shared-memory tiles" : "",
                                             out.n_mma        ? ", tensor cores"
                                             : out.n_cols     ? ", rows and vector columns a thread"
                                             : out.n_rows     ? ", rows a thread"
                                             : out.n_row_regs ? ", rows in registers"
                                             : out.n_transposed ? ", transpose tiles"
                                             : out.n_block_rows ? ", a block per row"
                                                                : "");
            rc = 0;
        }
    ch_tr_deps_free(deps);
    ch_tr_model_free(model);
    return rc;
}

/* ---- the walk along the best design's shape (ch/agent_walk.h) ---- */

/* The design a variant's shape belongs to: which axes its walk moves along. */
static bi_design tr_design(const tr_variant *tv)
{
    if (tv->library)
        return BI_DESIGN_NONE;
    if (tv->shape.tm)
        return BI_DESIGN_TILES;
    if (tv->shape.rows > 1)
        return BI_DESIGN_ROWS;
    if (tv->flags & CH_TR_WARP_ROWS)
        return BI_DESIGN_ROW_BLOCK;
    return BI_DESIGN_PLAIN;
}

/* The shape a translator source of variant v was made with: the one its header names (a walk's
 * neighbour), else the variant's own. */
static bi_shape tr_shape_of_source(const char *src, int v)
{
    const char *p = strstr(src, SHAPE_MARK);
    bi_shape s;
    if (p && bi_shape_parse(p + strlen(SHAPE_MARK), &s) == 0)
        return s;
    return tr_variants[v].shape;
}

/* The largest element of the body's arrays: what a tile's shared memory is counted in. */
static int largest_elem(const ch_tr_model *m)
{
    int bytes = 4;
    for (size_t a = 0; a < m->n_arrays; a++) {
        int z = (int)ch_scalar_size(ch_tr_array_elem(m, a));
        if (z > bytes)
            bytes = z;
    }
    return bytes;
}

/* The translation of a neighbour the walk tries (its source kept until taken or dropped). */
typedef struct walk_try_ctx {
    const ch_agent *ag;
    const ch_tr_model *model;
    const ch_tr_deps *deps;
    tr_variant tv;
    char *src;
} walk_try_ctx;

static int walk_try(void *ctx, const bi_shape *s, uint64_t *hash)
{
    walk_try_ctx *x = ctx;
    x->tv.shape = *s;
    if (x->tv.flags & CH_TR_WARP_ROWS)
        x->tv.block_rows = s->row_block; /* a block or a warp per row: an axis of the walk */
    tr_output out;
    ch_error ignored = {0};
    if (tr_variant_source(x->ag, x->model, x->deps, &x->tv, &out, &ignored) != 0)
        return 1; /* the translator takes no such shape (tensor-core fragments, ...) */
    x->src = out.src;
    *hash = bi_code_hash(out.src);
    return 0;
}

static void walk_take(void *ctx, int accept)
{
    walk_try_ctx *x = ctx;
    if (!accept) {
        free(x->src);
        x->src = NULL;
    }
}

/* The walk's answer to performance feedback on a translator candidate: 0 with a neighbour of the
 * parent in *cuda_src; 1 when the walk stops (err says why); 2 when there is no walk here (no
 * figures, a fresh design asked for, a parent that is no parametrised design) or no new
 * neighbour: the fixed list of designs goes on. */
static int walk(ch_agent *ag, const ch_entry *e, bi_memory *mem, const ch_kernel_request *req,
                char **cuda_src, char **design, ch_error *err)
{
    const ch_kernel_perf *perf = req->perf;
    int v = tr_variant_of_source(req->parent_source);
    if (!perf || perf->ms < 0 || req->fresh_design || v < 0 ||
        tr_design(&tr_variants[v]) == BI_DESIGN_NONE)
        return 2;
    bi_walk_feedback fb = {.parent_hash = bi_code_hash(req->parent_source),
                           .parent_variant = v,
                           .parent_shape = tr_shape_of_source(req->parent_source, v),
                           .design = tr_design(&tr_variants[v]),
                           .ms = perf->ms,
                           .fraction = perf->fraction,
                           .spills = perf->spill_bytes > 0};
    bi_walk *w = &mem->walk;
    const char *stop = bi_walk_observe(w, &fb);
    if (stop) {
        ch_error_set(err,
                     "%s: the walk along translator v%d's shape stopped (%s): the best kernel "
                     "takes %.4f ms, %.0f%% of the floor; %d neighbour%s in a row without a "
                     "%.0f%% gain",
                     e->name, w->variant, stop, perf->ms, 100.0 * perf->fraction, w->misses,
                     w->misses == 1 ? "" : "s", 100.0 * w->gain);
        return 1;
    }
    ch_tr_model *model = NULL;
    ch_tr_deps *deps = NULL;
    ch_error ignored = {0};
    if (ch_tr_model_build(e, &model, &ignored) != 0)
        return 2;
    int rc = 2;
    if (ch_tr_deps_compute(model, &deps, &ignored) == 0) {
        long smem = ag->hw.smem_per_block > 0 && ag->hw.smem_per_block < 48L * 1024
                        ? ag->hw.smem_per_block
                        : 48L * 1024;
        bi_limits lim = {.max_threads = ag->hw.max_threads_per_block,
                         .smem_bytes = smem,
                         .elem_bytes = largest_elem(model),
                         .spills = fb.spills};
        walk_try_ctx x = {.ag = ag, .model = model, .deps = deps, .tv = tr_variants[v]};
        x.tv.walk = 1;
        bi_axis axis;
        int dir;
        if (bi_walk_next(w, &lim, walk_try, walk_take, &x, &axis, &dir) == 0) {
            *cuda_src = x.src;
            if (design) {
                bi_shape from = w->centre;
                char *text = bi_shape_text(&x.tv.shape);
                *design = ch_xasprintf("translator v%d (walk): %s %s from %d to %d; %s", v,
                                       bi_axis_name(axis), dir > 0 ? "up" : "down",
                                       *bi_shape_axis(&from, axis),
                                       *bi_shape_axis(&x.tv.shape, axis), text);
                free(text);
            }
            rc = 0;
        }
    }
    ch_tr_deps_free(deps);
    ch_tr_model_free(model);
    return rc;
}

static int builtin_kernel(ch_agent *ag, const ch_kernel_request *req, char **cuda_src,
                          char **design, ch_error *err)
{
    *cuda_src = NULL;
    if (design)
        *design = NULL;
    const ch_entry *e = req->entry;
    if (!e)
        return ch_error_set(err, "%s: %s",
                            req->checklist && req->checklist->name ? req->checklist->name : "entry",
                            NEED_LLM);
    const char *read = req->checklist ? req->checklist->reference : NULL;
    if ((!e->has_body || e->kind == CH_KIND_SPEC_DECL) && read && strstr(read, SPEC_READER_MARK)) {
        /* the spec reader's reference is the body the translator maps */
        ch_entry_list from_reference;
        ch_entry_list_init(&from_reference);
        if (ch_spec_reference_entry(e, read, &from_reference, err) != 0) {
            ch_entry_list_free(&from_reference);
            return -1;
        }
        ch_kernel_request as_body = *req;
        as_body.entry = &from_reference.items[0];
        int rc = builtin_kernel(ag, &as_body, cuda_src, design, err);
        ch_entry_list_free(&from_reference);
        return rc;
    }
    if (!e->has_body || !e->body || e->kind == CH_KIND_SPEC_DECL)
        return ch_error_at(err, e->file, e->line, e->col, "%s: %s", e->name, NEED_LLM);
    bi_memory *m = memory_for(ag->impl, e);
    int walked = walk(ag, e, m, req, cuda_src, design, err);
    if (walked != 2)
        return walked;
    ch_error tr_err = {0};
    int rc = translate(ag, e, m, req, cuda_src, design, &tr_err);
    if (rc != 1)
        return rc == 0 ? 0 : 1; /* a source, or the translator's variants were all there is */
    bi_program prog;
    if (bi_analyse(e, &prog, err) != 0) {
        /* the translator's reason is the one that names what to change */
        if (tr_err.msg[0])
            *err = tr_err;
        return -1;
    }
    int parent = bi_variant_of_source(req->parent_source);
    if (parent >= 0)
        m->tried[parent] = 1;
    int v =
        bi_variant_choose(m->tried, req->feedback, req->fresh_design, parent, !e->clauses.device);
    if (v < 0) {
        bi_program_free(&prog);
        return 1;
    }
    m->tried[v] = 1;
    *cuda_src = bi_generate(&prog, bi_variant_get((size_t)v), ag->hw.sm_count);
    if (design)
        *design = bi_variant_design(bi_variant_get((size_t)v));
    bi_program_free(&prog);
    return 0;
}

static void builtin_close(ch_agent *ag)
{
    bi_state *st = ag->impl;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++) {
        free(st->mem[i].key);
        free(st->mem[i].tried);
        bi_walk_free(&st->mem[i].walk);
    }
    free(st->mem);
    free(st);
    ag->impl = NULL;
}

static const ch_agent_ops builtin_ops = {
    .name = "builtin",
    .checklist = builtin_checklist,
    .test_author = builtin_test_author,
    .kernel = builtin_kernel,
    .close = builtin_close,
};

int ch_agent_builtin_open(ch_agent *ag, ch_error *err)
{
    (void)err;
    ag->ops = &builtin_ops;
    ag->impl = ch_xcalloc(1, sizeof(bi_state));
    return 0;
}
