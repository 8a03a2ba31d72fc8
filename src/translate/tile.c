/* Register-blocked shared-memory tiles for GEMM-like kernels (tr_print_tiled).
 *
 * The shape: a kernel with two mapped dimensions (c0 rows, c1 columns) whose per-thread body
 * is a sequence of statement instances and one loop c2 running a single sum `X += e` into an
 * element X that does not vary with c2. The operands of e that vary with c2 and one mapped
 * dimension (A[i][k] with c0, B[k][j] with c1, x[k] with c2 alone) are read by many threads of
 * a block: they come through shared memory, tile_k values of c2 at a time, and each thread
 * owns a register block of (tile_m / tile_ty) x (tile_n / tile_tx) outputs, so that every value
 * it takes from shared memory feeds several multiply-adds.
 *
 * Why it is legal: the mapped dimensions carry no dependence (isl checked that), so the
 * statement instances of different (c0, c1) points are independent and a thread may
 * interleave its points (a thread's points come in runs of 16 bytes' worth of consecutive ones
 * in each mapped dimension, the runs a block's width of runs apart, so that the threads of a warp
 * read their operands from shared memory as 16-byte vectors on distinct banks): the statements
 * before the sum for each
 * point, then the sum for all points c2 by c2 (each point still adds its terms in the order of c2,
 * as the C code does), then the statements after it for each point. The tiles are only read by the
 * sum, and the arrays they hold are written by no statement of the kernel, so a tile never goes
 * stale. The sum is kept in a register between its first and its last term: X is read once before
 * c2's first value and written once after its last, which is what the C code leaves in it.
 *
 * Floating products may contract into fused multiply-adds here (more accurate, not
 * bit-identical to the host): the candidate passes verification under the entry's tolerance
 * like any other. */
#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "ch/cexpr.h"
#include "printer.h"
#include "tile.h"

static void gemm_free(gemm *g)
{
    isl_ast_node_free(g->for0);
    isl_ast_node_free(g->for1);
    isl_ast_node_free(g->for2);
    isl_ast_node_list_free(g->items);
    isl_ast_node_free(g->sum_user);
    free(g->target_text);
    free(g->factor);
}

/* --- recognising the shape --- */

/* The iterator name of a for node into buf; 0 unless a unit-step loop. */
static int loop_iterator(isl_ast_node *f, char *buf, size_t size)
{
    if (!f || isl_ast_node_get_type(f) != isl_ast_node_for ||
        isl_ast_node_for_is_degenerate(f) == isl_bool_true)
        return 0;
    isl_ast_expr *inc = isl_ast_node_for_get_inc(f);
    isl_val *v = isl_ast_expr_get_val(inc);
    int unit = v && isl_val_is_one(v) == isl_bool_true;
    isl_val_free(v);
    isl_ast_expr_free(inc);
    isl_ast_expr *it = isl_ast_node_for_get_iterator(f);
    isl_id *id = isl_ast_expr_get_id(it);
    snprintf(buf, size, "%s", isl_id_get_name(id));
    isl_id_free(id);
    isl_ast_expr_free(it);
    return unit;
}

static const ch_tr_stmt *user_stmt(const printer *pr, isl_ast_node *user)
{
    isl_ast_expr *call = isl_ast_node_user_get_expr(user);
    isl_ast_expr *fn = isl_ast_expr_op_get_arg(call, 0);
    isl_id *id = isl_ast_expr_get_id(fn);
    const ch_tr_stmt *s = NULL;
    for (size_t i = 0; i < pr->m->n_stmts && !s; i++)
        if (strcmp(pr->m->stmts[i].name, isl_id_get_name(id)) == 0)
            s = &pr->m->stmts[i];
    isl_id_free(id);
    isl_ast_expr_free(fn);
    isl_ast_expr_free(call);
    return s;
}

/* Binds the sum's C counters to c0, c1, c2: each argument of its instance must be one of the
 * three iterators. */
static int bind_counters(gemm *g)
{
    isl_ast_expr *call = isl_ast_node_user_get_expr(g->sum_user);
    int ok = isl_ast_expr_op_get_n_arg(call) == (int)g->sum->n_loops + 1;
    for (size_t i = 0; ok && i < g->sum->n_loops; i++) {
        isl_ast_expr *a = isl_ast_expr_op_get_arg(call, (int)i + 1);
        ok = isl_ast_expr_get_type(a) == isl_ast_expr_id;
        if (ok) {
            isl_id *id = isl_ast_expr_get_id(a);
            int q = -1;
            for (int d = 0; d < 3; d++)
                if (strcmp(isl_id_get_name(id), g->it[d]) == 0)
                    q = d;
            isl_id_free(id);
            ok = q >= 0 && !g->counter[q];
            if (ok) {
                g->loop[q] = &g->pr->m->loops[g->sum->loops[i]];
                g->counter[q] = g->loop[q]->counter;
            }
        }
        isl_ast_expr_free(a);
    }
    isl_ast_expr_free(call);
    return ok;
}

/* The c-dimensions the variables of x vary with; -1 when x reads a variable that is neither a
 * counter of the sum nor a scalar parameter (a local whose value the tiling would move). */
static int dims_of(const gemm *g, const ch_ir *x, const char **last)
{
    if (!x)
        return 0;
    if (x->kind == CH_IR_VAR) {
        for (int d = 0; d < 3; d++)
            if (g->counter[d] && strcmp(x->text, g->counter[d]) == 0) {
                *last = g->counter[d];
                return 1 << d;
            }
        return x->param_index >= 0 && g->pr->e->params[x->param_index].role == CH_ROLE_SCALAR ? 0
                                                                                              : -1;
    }
    if (x->kind == CH_IR_INDEX || x->kind == CH_IR_CALL ||
        (x->kind == CH_IR_UNARY && x->text && strcmp(x->text, "*") == 0))
        return -1; /* an index read from memory */
    int m = 0;
    for (size_t i = 0; i < x->nkids; i++) {
        int d = dims_of(g, x->kids[i], last);
        if (d < 0)
            return -1;
        m |= d;
    }
    return m;
}

/* An access's parameter, or NULL when its base is not a parameter array. */
static const ch_param *access_param(const printer *pr, const ch_ir *x)
{
    while (x && x->kind == CH_IR_INDEX)
        x = x->kids[0];
    if (!x || x->kind != CH_IR_VAR || x->param_index < 0)
        return NULL;
    const ch_param *p = &pr->e->params[x->param_index];
    return p->role == CH_ROLE_SCALAR ? NULL : p;
}

char *tile_expr_text(const printer *pr, const ch_ir *x)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_cx cx = {.entry = pr->e, .out = &b};
    ch_cx_expr(&cx, x);
    return ch_strbuf_detach(&b);
}

/* Whether array `name` is written by a statement instance of kernel k. */
static int written_in_kernel(const gemm *g, const char *name)
{
    for (size_t a = 0; a < g->pr->m->n_arrays; a++) {
        const ch_tr_array *A = &g->pr->m->arrays[a];
        if (strcmp(A->name, name) != 0)
            continue;
        isl_union_map *w = isl_union_map_union(isl_union_map_copy(A->must_writes),
                                               isl_union_map_copy(A->may_writes));
        w = isl_union_map_intersect_domain(w, isl_union_set_copy(g->k->domain));
        int empty = isl_union_map_is_empty(w) == isl_bool_true;
        isl_union_map_free(w);
        return !empty;
    }
    return 0;
}

/* Sorts the reads of e: the target X (every read of it must be the element written), the
 * operands that go through tiles, and the rest (read from memory where they are). 0 when e
 * reads something the tiling would change. */
static int classify(gemm *g, const ch_ir *x)
{
    if (!x)
        return 1;
    if (x->kind == CH_IR_VAR && x->param_index < 0) {
        /* a local: the counters, or X itself when it is a scalar */
        for (int d = 0; d < 3; d++)
            if (g->counter[d] && strcmp(x->text, g->counter[d]) == 0)
                return 1;
        return g->scalar_target && strcmp(x->text, g->scalar_target) == 0;
    }
    if ((x->kind == CH_IR_BINARY || x->kind == CH_IR_ASSIGN) && x->text &&
        (strchr(x->text, '/') || strchr(x->text, '%')) &&
        ch_scalar_is_integer(ch_cx_expr_type(&(ch_cx){.entry = g->pr->e}, x)))
        return 0; /* points outside the domain are computed and dropped: no integer traps */
    if (x->kind == CH_IR_INDEX) {
        const ch_param *pa = access_param(g->pr, x);
        if (!pa)
            return 0;
        char *text = tile_expr_text(g->pr, x);
        int is_target = g->target_text && strcmp(text, g->target_text) == 0;
        free(text);
        if (is_target)
            return 1;
        if (g->target && access_param(g->pr, g->target) == pa)
            return 0; /* X at another element */
        /* the last counter of the innermost subscript (the outermost node's) */
        const char *last = NULL, *seen = NULL;
        int d = 0;
        for (const ch_ir *i = x; i && i->kind == CH_IR_INDEX; i = i->kids[0]) {
            int di = dims_of(g, i->kids[1], &seen);
            if (di < 0)
                return 0;
            if (i == x)
                last = seen;
            d |= di;
        }
        int tiled = (d & DIM_SUM) && (d & (DIM_ROW | DIM_COL)) != (DIM_ROW | DIM_COL);
        if (!tiled)
            return 1; /* read from memory: invariant in c2, or no reuse across the block */
        if (g->n_reads == MAX_READS || written_in_kernel(g, pa->name))
            return 0;
        /* the subscript written last (the innermost, usually unit-stride) decides which way
         * the block's threads walk the tile when they load it */
        tile_read *r = &g->reads[g->n_reads++];
        r->node = x;
        r->dims = d;
        r->pa = pa;
        r->sum_fast = d == DIM_SUM || (last && strcmp(last, g->counter[2]) == 0);
        return 1;
    }
    for (size_t i = 0; i < x->nkids; i++)
        if (!classify(g, x->kids[i]))
            return 0;
    return 1;
}

/* Whether e reads some parameter array along c1 (its innermost subscript's last counter is
 * c1's) and never reads X (the parameter written). */
static int reads_along(const gemm *g, const ch_ir *x, const ch_param *written)
{
    if (!x)
        return 0;
    if (x->kind == CH_IR_INDEX) {
        const ch_param *pa = access_param(g->pr, x);
        if (pa == written)
            return -1;
        const char *last = NULL;
        return pa && dims_of(g, x->kids[1], &last) >= 0 && last && strcmp(last, g->counter[1]) == 0;
    }
    int any = 0;
    for (size_t i = 0; i < x->nkids; i++) {
        int r = reads_along(g, x->kids[i], written);
        if (r < 0)
            return -1;
        any |= r;
    }
    return any;
}

/* The sum `X op= e` (or `X = X op e`): X an element that does not vary with c2, or a local
 * scalar of the threads. */
static int match_sum(gemm *g)
{
    const ch_tr_stmt *s = g->sum;
    if (!s->red_op || strcmp(s->red_op, "+") != 0 || s->n_guards || s->may ||
        s->ir->kind != CH_IR_EXPR_STMT || s->ir->kids[0]->kind != CH_IR_ASSIGN)
        return 0;
    const ch_ir *lhs = s->ir->kids[0]->kids[0];
    g->target = lhs;
    if (lhs->kind == CH_IR_VAR) {
        if (lhs->param_index >= 0)
            return 0;
        g->scalar_target = lhs->text;
    } else {
        const char *last = NULL;
        if (!access_param(g->pr, lhs))
            return 0;
        for (const ch_ir *i = lhs; i && i->kind == CH_IR_INDEX; i = i->kids[0]) {
            int d = dims_of(g, i->kids[1], &last);
            if (d < 0 || (d & DIM_SUM))
                return 0;
        }
        g->target_text = tile_expr_text(g->pr, lhs);
    }
    return classify(g, s->ir->kids[0]->kids[1]) && g->n_reads > 0;
}

/* Every local scalar the kernel uses other than X is refused: a thread's points would share
 * it across the interleaving. Scalars kept in device memory are refused too. */
static int locals_ok(const gemm *g)
{
    const printer *pr = g->pr;
    size_t ki = (size_t)(g->k - pr->p->kernels);
    for (size_t a = 0; a < pr->m->n_arrays; a++) {
        if (!pr->m->arrays[a].is_scalar && !pr->m->arrays[a].local_elems)
            continue;
        if (!pr->p->uses[ki * pr->m->n_arrays + a])
            continue;
        if (pr->m->arrays[a].local_elems || pr->p->storage[a] != CH_TR_THREAD_LOCAL)
            return 0;
        if (!g->scalar_target || strcmp(pr->m->arrays[a].name, g->scalar_target) != 0)
            return 0;
    }
    return 1;
}

/* Both shapes start alike: a kernel of two mapped dimensions (no reduction, scan or warp per
 * row of its own) whose mark holds the loop over c0 and directly inside it the loop over c1,
 * (c0's bounds do not depend on c1). Sets for0, for1 and their iterators. */
static int match_mapped_pair(gemm *g, isl_ast_node *mark)
{
    const ch_tr_kernel *k = g->k;
    if (k->n_mapped != 2 || k->depth != 0 || k->reduction != (size_t)-1 || k->warp_rows ||
        k->scan_store != (size_t)-1)
        return 0;
    g->for0 = isl_ast_node_mark_get_node(mark);
    if (!loop_iterator(g->for0, g->it[0], sizeof g->it[0]))
        return 0;
    g->for1 = isl_ast_node_for_get_body(g->for0);
    return loop_iterator(g->for1, g->it[1], sizeof g->it[1]) && !tr_for_mentions(g->for0, g->it[1]);
}

static int match(gemm *g, isl_ast_node *mark)
{
    if (!match_mapped_pair(g, mark))
        return 0;
    isl_ast_node *body = isl_ast_node_for_get_body(g->for1);
    if (isl_ast_node_get_type(body) == isl_ast_node_block) {
        g->items = isl_ast_node_block_get_children(body);
        isl_ast_node_free(body);
    } else {
        g->items = isl_ast_node_list_from_ast_node(body);
    }
    g->sum_item = -1;
    int n = isl_ast_node_list_n_ast_node(g->items);
    for (int i = 0; i < n; i++) {
        isl_ast_node *item = isl_ast_node_list_get_ast_node(g->items, i);
        enum isl_ast_node_type t = isl_ast_node_get_type(item);
        int ok = t == isl_ast_node_user;
        if (t == isl_ast_node_for && g->sum_item < 0 &&
            loop_iterator(item, g->it[2], sizeof g->it[2])) {
            isl_ast_node *inner = isl_ast_node_for_get_body(item);
            if (isl_ast_node_get_type(inner) == isl_ast_node_user) {
                g->sum_item = i;
                g->for2 = isl_ast_node_copy(item);
                g->sum_user = inner;
                inner = NULL;
                ok = 1;
            }
            isl_ast_node_free(inner);
        }
        isl_ast_node_free(item);
        if (!ok)
            return 0;
    }
    if (g->sum_item < 0)
        return 0;
    g->sum = user_stmt(g->pr, g->sum_user);
    if (!g->sum || !bind_counters(g) || !g->counter[2] || !match_sum(g) || !locals_ok(g))
        return 0;
    g->sum_rect = !tr_for_mentions(g->for2, g->it[0]) && !tr_for_mentions(g->for2, g->it[1]);
    return 1;
}

/* --- printing --- */

/* The inclusive upper bound of a unit-step loop from its condition (`c <= ub` or `c < ub`),
 * printed into out; 0 when the condition has another form. */
static int print_upper(const gemm *g, isl_ast_node *f, ch_strbuf *out)
{
    isl_ast_expr *cond = isl_ast_node_for_get_cond(f);
    enum isl_ast_expr_op_type t = isl_ast_expr_get_op_type(cond);
    int ok = (t == isl_ast_expr_op_le || t == isl_ast_expr_op_lt) &&
             isl_ast_expr_op_get_n_arg(cond) == 2;
    if (ok) {
        isl_ast_expr *ub = isl_ast_expr_op_get_arg(cond, 1);
        ch_strbuf_addc(out, '(');
        tr_print_expr(g->pr, out, ub);
        ch_strbuf_adds(out, t == isl_ast_expr_op_lt ? ") - 1" : ")");
        isl_ast_expr_free(ub);
    }
    isl_ast_expr_free(cond);
    return ok;
}

/* `c >= init && cond` for a loop whose iterator is in scope. */
static void print_in_loop(const gemm *g, isl_ast_node *f, const char *it, ch_strbuf *out)
{
    isl_ast_expr *init = isl_ast_node_for_get_init(f), *cond = isl_ast_node_for_get_cond(f);
    ch_strbuf_addf(out, "%s >= ", it);
    tr_print_expr(g->pr, out, init);
    ch_strbuf_adds(out, " && ");
    tr_print_expr(g->pr, out, cond);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
}

const tile_read *tile_read_of(const gemm *g, const ch_ir *node, size_t *index)
{
    for (size_t i = 0; i < g->n_reads; i++)
        if (g->reads[i].node == node) {
            *index = i;
            return &g->reads[i];
        }
    return NULL;
}

/* ch_cx hooks inside the sum: tiles for the operands, the register for X. */
static int sum_access(void *ctx, const ch_ir *x, ch_strbuf *out)
{
    gemm *g = ctx;
    size_t i;
    const tile_read *r = tile_read_of(g, x, &i);
    if (r) {
        if (r->dims == DIM_SUM)
            ch_strbuf_addf(out, "ch_t%zu[ch_kk]", i);
        else
            ch_strbuf_addf(out, "ch_t%zu[ch_kk][%s]", i, r->dims & DIM_ROW ? "ch_di" : "ch_dj");
        return 1;
    }
    if (!g->target_text || x->kind != CH_IR_INDEX)
        return 0;
    char *text = tile_expr_text(g->pr, x);
    int is_target = strcmp(text, g->target_text) == 0;
    free(text);
    if (is_target)
        ch_strbuf_adds(out, "ch_acc[ch_r][ch_c]");
    return is_target;
}

static const char *sum_rename(void *ctx, const char *name)
{
    gemm *g = ctx;
    return g->scalar_target && strcmp(name, g->scalar_target) == 0 ? "ch_acc[ch_r][ch_c]" : NULL;
}

/* `const int i = (int)c0;` for the counters of the sum among `dims`. */
void tile_bind(const gemm *g, ch_strbuf *out, int dims, int indent)
{
    for (int d = 0; d < 3; d++)
        if ((dims & (1 << d)) && g->counter[d]) {
            const char *t = tr_counter_type(g->pr, g->loop[d]);
            tr_indent_to(out, indent);
            ch_strbuf_addf(out, "const %s %s = (%s)%s;\n", t, g->counter[d], t, g->it[d]);
        }
}

/* The offset in the block of a thread's point in mapped dimension d (0: rows, by threadIdx.y
 * and ch_r; 1: columns, by threadIdx.x and ch_c). Runs of g->run consecutive points, the runs
 * of a block's threads side by side: a warp's threads then read one tile row as 16-byte
 * vectors that fall on distinct banks, where consecutive blocks of eight points would collide
 * two ways (on the H200 the 128 x 128 SGEMM tile went from 51% to 53% of cuBLAS by this alone). */
static void print_offset(const gemm *g, ch_strbuf *out, int d)
{
    if (g->stages) {
        tile_mma_pipe_offset(g, out, d);
        return;
    }
    const char *thread = d ? "threadIdx.x" : "threadIdx.y", *point = d ? "ch_c" : "ch_r";
    int threads = d ? g->tx : g->ty, per = d ? g->tn / g->tx : g->tm / g->ty;
    if (per <= g->run || per % g->run)
        ch_strbuf_addf(out, "%s * %d + %s", thread, per, point);
    else
        ch_strbuf_addf(out, "(%s / %d) * %d + %s * %d + %s %% %d", point, g->run, threads * g->run,
                       thread, g->run, point, g->run);
}

/* `const int ch_di = <offset>;` (d 0) or ch_dj (d 1). */
static void print_offset_decl(const gemm *g, ch_strbuf *out, int d, int indent)
{
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "const int %s = ", d ? "ch_dj" : "ch_di");
    print_offset(g, out, d);
    ch_strbuf_adds(out, ";\n");
}

/* The loops over this thread's register block with c0 and c1 of each point in scope. */
static void open_points(const gemm *g, ch_strbuf *out, int indent)
{
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_r = 0; ch_r < %d; ch_r++) {\n",
                   g->stages ? tile_mma_pipe_points(g, 0) : g->tm / g->ty);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "#pragma unroll\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "for (int ch_c = 0; ch_c < %d; ch_c++) {\n",
                   g->stages ? tile_mma_pipe_points(g, 1) : g->tn / g->tx);
    print_offset_decl(g, out, 0, indent + 2);
    print_offset_decl(g, out, 1, indent + 2);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long %s = ch_o0 + ch_di, %s = ch_o1 + ch_dj;\n", g->it[0],
                   g->it[1]);
}

static void close_points(ch_strbuf *out, int indent)
{
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

/* `if (the point is in the kernel's domain) {` */
static void open_valid(const gemm *g, ch_strbuf *out, int indent)
{
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "if (");
    print_in_loop(g, g->for0, g->it[0], out);
    ch_strbuf_adds(out, " && ");
    print_in_loop(g, g->for1, g->it[1], out);
    ch_strbuf_adds(out, ") {\n");
}

static void print_items(gemm *g, ch_strbuf *out, int from, int to, int indent)
{
    for (int i = from; i < to; i++) {
        isl_ast_node *item = isl_ast_node_list_get_ast_node(g->items, i);
        tr_print_user(g->pr, item, indent);
        isl_ast_node_free(item);
    }
}

static int uses_word(const char *text, const char *word);

/* The mapped counters X's subscripts use (none for a local scalar). */
static int target_dims(const gemm *g)
{
    char *text = tile_expr_text(g->pr, g->target);
    int used = 0;
    for (int d = 0; d < 2; d++)
        if (g->counter[d] && uses_word(text, g->counter[d]))
            used |= 1 << d;
    free(text);
    return used;
}

/* Whether X lives in a register across the sum: always, except with tensor cores into an
 * array element, which the epilogue updates in memory (the registers go to the fragments). */
static int keeps_acc(const gemm *g)
{
    return !g->mma || g->scalar_target;
}

/* The statements before the sum, X into the register and the block's range of c2. */
void tile_print_prologue(gemm *g, ch_strbuf *out, const char *t)
{
    open_points(g, out, 2);
    if (keeps_acc(g)) {
        tr_indent_to(out, 4);
        ch_strbuf_addf(out, "ch_acc[ch_r][ch_c] = (%s)0;\n", t);
    }
    open_valid(g, out, 4);
    print_items(g, out, 0, g->sum_item, 5);
    if (keeps_acc(g)) {
        tr_indent_to(out, 5);
        ch_strbuf_adds(out, "{ /* X into the register */\n");
        tile_bind(g, out, target_dims(g), 6);
        tr_indent_to(out, 6);
        ch_strbuf_adds(out, "ch_acc[ch_r][ch_c] = ");
        ch_cx cx = {.entry = g->pr->e, .out = out};
        ch_cx_expr(&cx, g->target);
        ch_strbuf_adds(out, ";\n");
        tr_indent_to(out, 5);
        ch_strbuf_adds(out, "}\n");
    }
    isl_ast_expr *init = isl_ast_node_for_get_init(g->for2);
    tr_indent_to(out, 5);
    ch_strbuf_adds(out, "atomicMin(&ch_klo, (long long)(");
    tr_print_expr(g->pr, out, init);
    ch_strbuf_adds(out, "));\n");
    isl_ast_expr_free(init);
    tr_indent_to(out, 5);
    ch_strbuf_adds(out, "atomicMax(&ch_khi, (long long)(");
    print_upper(g, g->for2, out);
    ch_strbuf_adds(out, "));\n");
    tr_indent_to(out, 4);
    ch_strbuf_adds(out, "}\n");
    close_points(out, 2);
}

/* The load of a tile element that no point of the domain may read (a triangle's corner):
 * only addresses inside the array are loaded. */
static void print_checked_load(const gemm *g, ch_strbuf *out, const tile_read *r)
{
    const char *t = ch_scalar_name(r->pa->elem);
    ch_cx cx = {.entry = g->pr->e, .out = out};
    char *ext = tr_extent_text(r->pa);
    ch_strbuf_addf(out, "                    const %s *ch_p = &", t);
    ch_cx_expr(&cx, r->node);
    ch_strbuf_addf(out,
                   ";\n                    if (ch_p >= %s && ch_p < %s + (size_t)(%s))\n"
                   "                        ch_v = *ch_p;\n                }\n",
                   r->pa->name, r->pa->name, ext);
    free(ext);
}

/* The tile's side (0: it varies with c0, 1: with c1, -1: with c2 alone) and width. */
static int tile_side(const gemm *g, const tile_read *r, int *width)
{
    int side = r->dims & DIM_ROW ? 0 : r->dims & DIM_COL ? 1 : -1;
    *width = side == 0 ? g->tm : side == 1 ? g->tn : 1;
    return side;
}

/* Whether every element of a tile inside the hull is one the C code reads (a box): then its
 * loads need no check beyond the hull. */
int tile_is_box(const gemm *g)
{
    return g->sum_rect && !tr_for_mentions(g->for1, g->it[0]);
}

/* The elements of tile r a thread loads at once: 16 bytes' worth where the tile's fast
 * dimension (c2 for A[i][k], the mapped one for B[k][j]) and the thread's share divide evenly
 * into such vectors, else 1. Whether the addresses are in fact consecutive and aligned is
 * checked where the loads run (a leading dimension may be odd). */
static int vector_width(const gemm *g, const tile_read *r)
{
    int width, side = tile_side(g, r, &width), threads = g->tx * g->ty;
    size_t size = ch_scalar_size(r->pa->elem);
    ch_scalar e = r->pa->elem;
    if (side < 0 || !tile_is_box(g) || (e != CH_T_FLOAT && e != CH_T_DOUBLE && e != CH_T_INT))
        return 1;
    int w = (int)(16 / size), fast = r->sum_fast ? g->tk : width;
    return fast % w == 0 && (g->tk * width) % (threads * w) == 0 ? w : 1;
}

/* The CUDA vector type of w elements of e (float4, double2, int4). */
static const char *vector_type(ch_scalar e, int w)
{
    return e == CH_T_DOUBLE ? "double2" : e == CH_T_INT ? "int4" : w == 4 ? "float4" : "float2";
}

/* Opens the loop over this thread's elements of tile i: ch_l, and ch_dk (c2's offset) and
 * ch_dx (the mapped dimension's) of each, walking along the unit-stride subscript; with
 * vectors, ch_l numbers the thread's vectors and ch_dk, ch_dx are the first element's. */
static void open_elements(const gemm *g, ch_strbuf *out, const tile_read *r)
{
    int width, side = tile_side(g, r, &width), threads = g->tx * g->ty;
    int total = g->tk * width / r->vec, fast = r->sum_fast ? g->tk : width;
    ch_strbuf_addf(out,
                   "#pragma unroll\n"
                   "            for (int ch_q = 0; ch_q < %d; ch_q++) {\n"
                   "                const int ch_l = ch_tid + ch_q * %d;\n",
                   (total + threads - 1) / threads, threads);
    if (side < 0)
        ch_strbuf_adds(out, "                const int ch_dk = ch_l;\n");
    else if (r->vec > 1)
        ch_strbuf_addf(
            out, "                const int ch_d%c = (ch_l %% %d) * %d, ch_d%c = ch_l / %d;\n",
            r->sum_fast ? 'k' : 'x', fast / r->vec, r->vec, r->sum_fast ? 'x' : 'k', fast / r->vec);
    else if (r->sum_fast)
        ch_strbuf_addf(out, "                const int ch_dk = ch_l %% %d, ch_dx = ch_l / %d;\n",
                       g->tk, g->tk);
    else
        ch_strbuf_addf(out, "                const int ch_dx = ch_l %% %d, ch_dk = ch_l / %d;\n",
                       width, width);
}

/* A vector of tile i for c2 from `k0` on: the elements' addresses (NULL outside the block's
 * range), one 16-byte load when they are consecutive and aligned, else one load each. */
static void print_vector_fetch(gemm *g, ch_strbuf *out, size_t i, const char *k0)
{
    const tile_read *r = &g->reads[i];
    const char *t = ch_scalar_name(r->pa->elem);
    int width, side = tile_side(g, r, &width), w = r->vec;
    const char *along_k = r->sum_fast ? " + ch_u" : "", *along_x = r->sum_fast ? "" : " + ch_u";
    ch_strbuf_addf(
        out,
        "                const %s *ch_p[%d]; /* NULL outside the block's range */\n"
        "#pragma unroll\n"
        "                for (int ch_u = 0; ch_u < %d; ch_u++) {\n"
        "                    const long long %s = %s + ch_dk%s;\n"
        "                    const long long %s = ch_o%d + ch_dx%s;\n"
        "                    ch_p[ch_u] = NULL;\n"
        "                    if (%s <= ch_khi && ch_dx%s + ch_o%d - ch_lo%d < ch_e%d) {\n",
        t, w, w, g->it[2], k0, along_k, g->it[side], side, along_x, g->it[2], along_x, side, side,
        side);
    tile_bind(g, out, r->dims, 6);
    tr_indent_to(out, 6);
    ch_strbuf_adds(out, "ch_p[ch_u] = &");
    ch_cx cx = {.entry = g->pr->e, .out = out};
    ch_cx_expr(&cx, r->node);
    ch_strbuf_addf(
        out,
        ";\n                    }\n                }\n"
        "                int ch_whole = ch_p[0] != NULL && ((size_t)ch_p[0] & 15) == 0;\n"
        "#pragma unroll\n"
        "                for (int ch_u = 1; ch_u < %d; ch_u++)\n"
        "                    ch_whole = ch_whole && ch_p[ch_u] == ch_p[0] + ch_u;\n"
        "                if (ch_whole) {\n"
        "                    const %s ch_v = *(const %s *)ch_p[0];\n",
        w, vector_type(r->pa->elem, w), vector_type(r->pa->elem, w));
    for (int e = 0; e < w; e++)
        ch_strbuf_addf(out, "                    ch_f%zu[ch_q * %d + %d] = ch_v.%c;\n", i, w, e,
                       "xyzw"[e]);
    ch_strbuf_addf(out,
                   "                } else {\n"
                   "#pragma unroll\n"
                   "                    for (int ch_u = 0; ch_u < %d; ch_u++)\n"
                   "                        ch_f%zu[ch_q * %d + ch_u] = ch_p[ch_u] ? *ch_p[ch_u] "
                   ": (%s)0;\n"
                   "                }\n            }\n",
                   w, i, w, t);
}

/* This thread's elements of tile i for c2 from `k0` on, from global memory into its
 * registers ch_f<i> (zero outside the block's range): issued before the multiply-adds of
 * the tile in shared memory, so that the loads are in flight while they run. */
static void print_fetch(gemm *g, ch_strbuf *out, size_t i, const char *k0)
{
    const tile_read *r = &g->reads[i];
    const char *t = ch_scalar_name(r->pa->elem);
    int width, side = tile_side(g, r, &width);
    open_elements(g, out, r);
    if (r->vec > 1) {
        print_vector_fetch(g, out, i, k0);
        return;
    }
    ch_strbuf_addf(out, "                const long long %s = %s + ch_dk;\n", g->it[2], k0);
    if (side >= 0)
        ch_strbuf_addf(out, "                const long long %s = ch_o%d + ch_dx;\n", g->it[side],
                       side);
    ch_strbuf_addf(
        out, "                %s ch_v = (%s)0;\n                if (ch_l < %d && %s <= ch_khi", t,
        t, g->tk * width, g->it[2]);
    if (side >= 0)
        ch_strbuf_addf(out, " && ch_dx + ch_o%d - ch_lo%d < ch_e%d", side, side, side);
    ch_strbuf_adds(out, ") {\n");
    tile_bind(g, out, r->dims, 5);
    ch_cx cx = {.entry = g->pr->e, .out = out};
    if (tile_is_box(g)) {
        tr_indent_to(out, 5);
        ch_strbuf_adds(out, "ch_v = ");
        ch_cx_expr(&cx, r->node);
        ch_strbuf_adds(out, ";\n                }\n");
    } else {
        print_checked_load(g, out, r);
    }
    ch_strbuf_addf(out, "                ch_f%zu[ch_q] = ch_v;\n            }\n", i);
}

/* This thread's registers ch_f<i> into tile i in shared memory. */
static void print_store(gemm *g, ch_strbuf *out, size_t i)
{
    const tile_read *r = &g->reads[i];
    int width, side = tile_side(g, r, &width);
    open_elements(g, out, r);
    if (r->vec > 1 && !r->sum_fast) {
        /* along a row of the tile: one 16-byte store (the rows are 16-byte aligned) */
        const char *vt = vector_type(r->pa->elem, r->vec);
        ch_strbuf_addf(out, "                *(%s *)&ch_t%zu[ch_dk][ch_dx] = make_%s(", vt, i, vt);
        for (int e = 0; e < r->vec; e++)
            ch_strbuf_addf(out, "%sch_f%zu[ch_q * %d + %d]", e ? ", " : "", i, r->vec, e);
        ch_strbuf_adds(out, ");\n            }\n");
        return;
    }
    if (r->vec > 1) { /* down a column of the tile: one store each */
        ch_strbuf_addf(
            out,
            "#pragma unroll\n"
            "                for (int ch_u = 0; ch_u < %d; ch_u++)\n"
            "                    ch_t%zu[ch_dk + ch_u][ch_dx] = ch_f%zu[ch_q * %d + ch_u];\n"
            "            }\n",
            r->vec, i, i, r->vec);
        return;
    }
    ch_strbuf_addf(out,
                   "                if (ch_l < %d)\n                    ch_t%zu[ch_dk]%s = "
                   "ch_f%zu[ch_q];\n            }\n",
                   g->tk * width, i, side < 0 ? "" : "[ch_dx]", i);
}

/* Whether `word` occurs in text as a whole identifier. */
static int uses_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return 1;
    }
    return 0;
}

/* One value of c2 for every point of the register block: only the names the statement
 * uses are bound (nvcc warns of the others). */
static void print_step(gemm *g, ch_strbuf *out, int indent)
{
    int inner = indent + 2 + !g->sum_rect;
    ch_strbuf stmt;
    ch_strbuf_init(&stmt);
    ch_cx cx = {.entry = g->pr->e,
                .out = &stmt,
                .rename = sum_rename,
                .access = sum_access,
                .ctx = g,
                .exact_mul = 0};
    ch_cx_stmt(&cx, g->sum->ir, inner);
    ch_strbuf pred;
    ch_strbuf_init(&pred);
    if (!g->sum_rect)
        print_in_loop(g, g->for2, g->it[2], &pred);
    int used = 0;
    for (int d = 0; d < 3; d++)
        if (g->counter[d] && uses_word(stmt.data, g->counter[d]))
            used |= 1 << d;
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_r = 0; ch_r < %d; ch_r++) {\n", g->tm / g->ty);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "for (int ch_c = 0; ch_c < %d; ch_c++) {\n", g->tn / g->tx);
    for (int d = 0; d < 3; d++)
        if ((used & (1 << d)) || uses_word(pred.len ? pred.data : "", g->it[d])) {
            tr_indent_to(out, indent + 2);
            if (d == 2) {
                ch_strbuf_addf(out, "const long long %s = ch_k0 + ch_kk;\n", g->it[d]);
                continue;
            }
            ch_strbuf_addf(out, "const long long %s = ch_o%d + ", g->it[d], d);
            print_offset(g, out, d);
            ch_strbuf_adds(out, ";\n");
        }
    if (uses_word(stmt.data, "ch_di"))
        print_offset_decl(g, out, 0, indent + 2);
    if (uses_word(stmt.data, "ch_dj"))
        print_offset_decl(g, out, 1, indent + 2);
    if (!g->sum_rect) {
        /* the points' ranges of c2 differ (a triangle): each adds only its own terms */
        tr_indent_to(out, indent + 2);
        ch_strbuf_addf(out, "if (%s) {\n", pred.data);
    }
    tile_bind(g, out, used, inner);
    ch_strbuf_add(out, stmt.data, stmt.len);
    if (!g->sum_rect) {
        tr_indent_to(out, indent + 2);
        ch_strbuf_adds(out, "}\n");
    }
    close_points(out, indent);
    ch_strbuf_free(&stmt);
    ch_strbuf_free(&pred);
}

void tile_print_epilogue(gemm *g, ch_strbuf *out)
{
    open_points(g, out, 2);
    const char *f = g->factor ? g->factor : "", *times = g->factor ? " * " : "";
    if (g->mma && keeps_acc(g)) {
        tr_indent_to(out, 4);
        ch_strbuf_addf(out, "ch_acc[ch_r][ch_c] += %s%sch_sum[ch_di][ch_dj];\n", f, times);
    }
    open_valid(g, out, 4);
    tr_indent_to(out, 5);
    ch_strbuf_adds(out,
                   keeps_acc(g) ? "{ /* the register into X */\n" : "{ /* the sum into X */\n");
    tile_bind(g, out, target_dims(g), 6);
    tr_indent_to(out, 6);
    ch_cx cx = {.entry = g->pr->e, .out = out};
    ch_cx_expr(&cx, g->target);
    if (keeps_acc(g))
        ch_strbuf_adds(out, " = ch_acc[ch_r][ch_c];\n");
    else /* the pipelined kernel's sums are its registers (tile_mma_pipe.c) */
        ch_strbuf_addf(out, " += %s%s%s;\n", f, times,
                       g->stages ? "ch_acc[ch_r][ch_c]" : "ch_sum[ch_di][ch_dj]");
    tr_indent_to(out, 5);
    ch_strbuf_adds(out, "}\n");
    print_items(g, out, g->sum_item + 1, isl_ast_node_list_n_ast_node(g->items), 5);
    tr_indent_to(out, 4);
    ch_strbuf_adds(out, "}\n");
    close_points(out, 2);
}

void tile_print_stmt_names(const gemm *g, ch_strbuf *out)
{
    for (int i = 0; i < isl_ast_node_list_n_ast_node(g->items); i++) {
        isl_ast_node *item = isl_ast_node_list_get_ast_node(g->items, i);
        const ch_tr_stmt *s = user_stmt(g->pr, i == g->sum_item ? g->sum_user : item);
        ch_strbuf_addf(out, " %s (line %u)", s->name, s->line);
        isl_ast_node_free(item);
    }
}

static void print_kernel(gemm *g, size_t fn, const char *t)
{
    if (g->stages) {
        tile_print_mma_pipe_kernel(g, fn, t);
        return;
    }
    printer *pr = g->pr;
    ch_strbuf *out = &pr->kernels;
    ch_strbuf_addf(out, "/* Kernel %zu runs", fn);
    tile_print_stmt_names(g, out);
    ch_strbuf_addf(out,
                   " in tiles: a GEMM-like nest.\n"
                   " * %s (c0) and %s (c1) carry no dependence (checked with isl); the sum over "
                   "%s (c2) is the\n"
                   " * reduction. Each block owns %d x %d points of (c0, c1); each of its %d x "
                   "%d threads keeps\n"
                   " * %d x %d of them in registers, and the operands that vary with c2 and one "
                   "of c0, c1\n"
                   " * come through shared memory %d values of c2 at a time:",
                   g->counter[0] ? g->counter[0] : g->it[0],
                   g->counter[1] ? g->counter[1] : g->it[1], g->counter[2], g->tm, g->tn, g->ty,
                   g->tx, g->tm / g->ty, g->tn / g->tx, g->tk);
    for (size_t i = 0; i < g->n_reads; i++) {
        char *text = tile_expr_text(pr, g->reads[i].node);
        ch_strbuf_addf(out, "%s ch_t%zu = %s", i ? "," : "", i, text);
        free(text);
    }
    /* two blocks an SM where the accumulators leave room (at most 128 registers a thread):
     * one block of 256 threads leaves the SM idle at every barrier (on the H200, 128 x 128
     * SGEMM tiles: 62% -> 65% of cuBLAS) */
    int points = (g->tm / g->ty) * (g->tn / g->tx), threads = g->tx * g->ty;
    int two = 2 * threads <= 1024 && points * (int)ch_scalar_size(g->acc) <= 64 * 4;
    ch_strbuf_addf(out,
                   ".\n * The statements before and after the sum run once per point. */\n"
                   "__global__ void __launch_bounds__(%d%s) %s_k%zu(",
                   threads, two ? ", 2" : "", pr->e->name, fn);
    tr_kernel_params(pr, out, 1);
    ch_strbuf_adds(out, ", long long ch_lo0, long long ch_lo1, long long ch_e0, long long ch_e1)\n"
                        "{\n");
    if (g->mma)
        tile_print_mma_shared(g, out);
    for (size_t i = 0; i < g->n_reads && !g->mma; i++) {
        const tile_read *r = &g->reads[i];
        const char *rt = ch_scalar_name(r->pa->elem);
        if (r->dims == DIM_SUM)
            ch_strbuf_addf(out, "    __shared__ %s ch_t%zu[%d];\n", rt, i, g->tk);
        else /* 16 bytes of padding a row: the loads along c2 spread over the banks, and the
              * rows stay aligned for the vector loads of a thread's consecutive points */
            ch_strbuf_addf(out, "    __shared__ __align__(16) %s ch_t%zu[%d][%d];\n", rt, i, g->tk,
                           (r->dims & DIM_ROW ? g->tm : g->tn) +
                               16 / (int)ch_scalar_size(r->pa->elem));
    }
    for (size_t i = 0; i < g->n_reads; i++) {
        int width;
        tile_side(g, &g->reads[i], &width);
        ch_strbuf_addf(out, "    %s ch_f%zu[%d]; /* this thread's part of the next tile */\n",
                       ch_scalar_name(g->reads[i].pa->elem), i,
                       (g->tk * width + threads - 1) / threads);
    }
    if (g->scalar_target)
        ch_strbuf_addf(out, "    %s %s;\n",
                       ch_scalar_name(ch_cx_local_type(pr->e, g->scalar_target)), g->scalar_target);
    ch_strbuf_addf(out,
                   "    __shared__ long long ch_klo, ch_khi; /* the block's range of c2 */\n"
                   "    const int ch_tid = threadIdx.y * %d + threadIdx.x;\n",
                   g->tx);
    if (keeps_acc(g))
        ch_strbuf_addf(out, "    %s ch_acc[%d][%d];\n", t, g->tm / g->ty, g->tn / g->tx);
    ch_strbuf_addf(
        out,
        "    /* the block's rows of points: grid-stride over tiles of c0 */\n"
        "    for (long long ch_b0 = blockIdx.y; ch_b0 * %d < ch_e0; ch_b0 += gridDim.y) {\n"
        "        const long long ch_o0 = ch_lo0 + ch_b0 * %d, ch_o1 = ch_lo1 + "
        "(long long)blockIdx.x * %d;\n"
        "        if (ch_tid == 0) {\n            ch_klo = LLONG_MAX;\n"
        "            ch_khi = LLONG_MIN;\n        }\n        __syncthreads();\n",
        g->tm, g->tm, g->tn);
    pr->out = out;
    tile_print_prologue(g, out, t);
    ch_strbuf_adds(out, "        __syncthreads();\n        {\n");
    for (size_t i = 0; i < g->n_reads; i++)
        print_fetch(g, out, i, "ch_klo");
    ch_strbuf_adds(out, "        }\n");
    if (g->mma) {
        tile_print_mma_fragments(g, out);
        tile_print_mma_fragments_loop(g, out, 0);
    }
    ch_strbuf_addf(out, "        for (long long ch_k0 = ch_klo; ch_k0 <= ch_khi; ch_k0 += %d) {\n",
                   g->tk);
    for (size_t i = 0; i < g->n_reads; i++)
        print_store(g, out, i);
    ch_strbuf_adds(out,
                   "            __syncthreads();\n"
                   "            /* the next tile's loads, in flight during this one's sums */\n");
    char *next = ch_xasprintf("(ch_k0 + %d)", g->tk);
    for (size_t i = 0; i < g->n_reads; i++)
        print_fetch(g, out, i, next);
    free(next);
    if (g->mma) {
        tile_print_mma_step(g, out);
        ch_strbuf_adds(out, "            __syncthreads();\n        }\n");
        tile_print_mma_fragments_loop(g, out, 1);
        tile_print_epilogue(g, out);
        ch_strbuf_adds(out,
                       "        __syncthreads(); /* ch_klo and the tiles are reused by the next "
                       "row of tiles */\n    }\n}\n\n");
        return;
    }
    ch_strbuf_addf(out,
                   "            if (ch_khi - ch_k0 >= %d) { /* a whole tile: unrolled */\n"
                   "#pragma unroll\n"
                   "                for (int ch_kk = 0; ch_kk < %d; ch_kk++) {\n",
                   g->tk - 1, g->tk);
    print_step(g, out, 5);
    ch_strbuf_adds(out,
                   "                }\n            } else {\n"
                   "                for (int ch_kk = 0; ch_kk <= ch_khi - ch_k0; ch_kk++) {\n");
    print_step(g, out, 5);
    ch_strbuf_adds(out,
                   "                }\n            }\n            __syncthreads();\n        }\n");
    tile_print_epilogue(g, out);
    ch_strbuf_adds(out, "        __syncthreads(); /* ch_klo is reset for the next row of tiles */\n"
                        "    }\n}\n\n");
}

/* The hull of the kernel's (c0, c1) points: its first values and extents (launch code). */
static void print_launch(gemm *g, size_t fn, int indent)
{
    printer *pr = g->pr;
    ch_strbuf *out = pr->out;
    isl_union_map *key =
        isl_union_map_from_multi_union_pw_aff(isl_multi_union_pw_aff_copy(g->k->thread_key));
    isl_union_set *pts = isl_union_set_apply(isl_union_set_copy(g->k->domain), key);
    isl_set *hull = isl_set_from_union_set(pts);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "{ /* kernel %zu: %d x %d tiles of points */\n", fn, g->tm, g->tn);
    for (int d = 0; d < 2; d++) {
        tr_indent_to(out, indent + 1);
        ch_strbuf_addf(out, "const long long ch_lo%d = ", d);
        tr_print_param_expr(pr, out, isl_set_dim_min(isl_set_copy(hull), d));
        ch_strbuf_addf(out, ", ch_e%d = ", d);
        isl_pw_aff *ext = isl_pw_aff_sub(isl_set_dim_max(isl_set_copy(hull), d),
                                         isl_set_dim_min(isl_set_copy(hull), d));
        ch_strbuf_adds(out, "1 + ");
        tr_print_param_expr(pr, out, ext);
        ch_strbuf_adds(out, ";\n");
    }
    isl_set_free(hull);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (ch_e0 > 0 && ch_e1 > 0) {\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long ch_gy = (ch_e0 + %d) / %d;\n", g->tm - 1, g->tm);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out,
                   "const dim3 ch_block(%d, %d), ch_grid((unsigned)((ch_e1 + %d) / %d), "
                   "(unsigned)(ch_gy < 65535 ? ch_gy : 65535));\n",
                   g->tx, g->ty, g->tn - 1, g->tn);
    char *smem = g->stages ? ch_xasprintf(", %d", tile_mma_pipe_smem(g)) : ch_xstrdup("");
    if (g->stages) { /* the stages' dynamic shared memory: past 48 KiB only when asked for */
        tr_indent_to(out, indent + 2);
        ch_strbuf_addf(out,
                       "(void)cudaFuncSetAttribute(%s_k%zu, "
                       "cudaFuncAttributeMaxDynamicSharedMemorySize, %d);\n",
                       pr->e->name, fn, tile_mma_pipe_smem(g));
    }
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu<<<ch_grid, ch_block%s>>>(", pr->e->name, fn, smem);
    free(smem);
    tr_kernel_params(pr, out, 0);
    ch_strbuf_adds(out, ", ch_lo0, ch_lo1, ch_e0, ch_e1);\n");
    tr_close_launch(out, indent);
}

/* --- transposes: writes along the other mapped dimension than the reads --- */

/* One statement `X[...] = e` per point of two mapped dimensions, whose write has its unit
 * stride along c0 while e reads along c1 (a transpose, a corner turn): the threads of a warp,
 * neighbours in c1, would each write another row. */
static int match_transpose(gemm *g, isl_ast_node *mark)
{
    if (!match_mapped_pair(g, mark))
        return 0;
    g->sum_user = isl_ast_node_for_get_body(g->for1);
    if (isl_ast_node_get_type(g->sum_user) != isl_ast_node_user)
        return 0;
    g->sum = user_stmt(g->pr, g->sum_user);
    const ch_tr_stmt *s = g->sum;
    if (!s || s->n_guards || s->may || s->ir->kind != CH_IR_EXPR_STMT ||
        s->ir->kids[0]->kind != CH_IR_ASSIGN || strcmp(s->ir->kids[0]->text, "=") != 0 ||
        !bind_counters(g) || !g->counter[0] || !g->counter[1] || g->counter[2])
        return 0;
    const ch_ir *lhs = s->ir->kids[0]->kids[0];
    const ch_param *pa = access_param(g->pr, lhs);
    if (!pa || lhs->kind != CH_IR_INDEX || !locals_ok(g))
        return 0;
    const char *last = NULL;
    if (dims_of(g, lhs->kids[1], &last) < 0 || !last || strcmp(last, g->counter[0]) != 0)
        return 0;
    g->target = lhs;
    g->target_text = tile_expr_text(g->pr, lhs);
    /* e reads something along c1, and nothing of X */
    return reads_along(g, s->ir->kids[0]->kids[1], pa) == 1;
}

/* `if (the point is in the kernel's domain) { const int i = (int)c0; ... ` */
static void print_point(gemm *g, ch_strbuf *out, const char *c0, const char *c1, int indent)
{
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "const long long %s = %s, %s = %s;\n", g->it[0], c0, g->it[1], c1);
    open_valid(g, out, indent);
    tile_bind(g, out, DIM_ROW | DIM_COL, indent + 1);
}

/* A thread's rows of a transpose's tile: the launch's blockDim.y is ty, so each thread takes
 * a fixed count of rows, unrolled, and issues all its loads before its first store (a loop
 * from threadIdx.y with a runtime trip count loaded, stored and loaded again). */
#define TILE_ROWS_LOOP                                                                             \
    "#pragma unroll\n"                                                                             \
    "        for (int ch_k = 0; ch_k < %d; ch_k++) {\n"                                            \
    "            const int ch_r = threadIdx.y + ch_k * %d;\n"

static void print_transpose_kernel(gemm *g, size_t fn, const char *t)
{
    assert(g->tm % g->ty == 0 && g->tn % g->ty == 0);
    printer *pr = g->pr;
    ch_strbuf *out = &pr->kernels;
    const ch_tr_stmt *s = g->sum;
    ch_strbuf_addf(out,
                   "/* Kernel %zu runs %s (line %u) through a tile in shared memory: a transpose.\n"
                   " * %s (c0) and %s (c1) carry no dependence (checked with isl). The reads run "
                   "along c1 and\n"
                   " * the write along c0, so each block takes %d x %d points twice: first its "
                   "threads compute\n"
                   " * the values with neighbouring threads on neighbouring values of c1, then "
                   "they store them\n"
                   " * with neighbouring threads on neighbouring values of c0; both global "
                   "accesses are whole\n"
                   " * lines. One column of padding keeps the tile's columns on different "
                   "banks. */\n"
                   "__global__ void __launch_bounds__(%d) %s_k%zu(",
                   fn, s->name, s->line, g->counter[0], g->counter[1], g->tm, g->tn, g->tx * g->ty,
                   pr->e->name, fn);
    tr_kernel_params(pr, out, 1);
    ch_strbuf_addf(
        out,
        ", long long ch_lo0, long long ch_lo1, long long ch_e0, long long ch_e1)\n{\n"
        "    __shared__ %s ch_tile[%d][%d];\n"
        "    for (long long ch_b0 = blockIdx.y; ch_b0 * %d < ch_e0; ch_b0 += gridDim.y) {\n"
        "        const long long ch_o0 = ch_lo0 + ch_b0 * %d, ch_o1 = ch_lo1 + "
        "(long long)blockIdx.x * %d;\n"
        "        /* the thread's values, all loaded before the first goes to the tile (points "
        "outside\n"
        "         * the domain leave a 0 there, which no point inside reads) */\n"
        "        %s ch_v[%d] = {0};\n"
        "        " TILE_ROWS_LOOP,
        t, g->tm, g->tn + 1, g->tm, g->tm, g->tn, t, g->tm / g->ty, g->tm / g->ty, g->ty);
    print_point(g, out, "ch_o0 + ch_r", "ch_o1 + threadIdx.x", 3);
    tr_indent_to(out, 4);
    ch_strbuf_adds(out, "ch_v[ch_k] = ");
    ch_cx cx = {.entry = pr->e, .out = out, .exact_mul = 1};
    ch_cx_expr(&cx, s->ir->kids[0]->kids[1]);
    ch_strbuf_addf(out,
                   ";\n            }\n        }\n"
                   "        #pragma unroll\n"
                   "        for (int ch_k = 0; ch_k < %d; ch_k++)\n"
                   "            ch_tile[threadIdx.y + ch_k * %d][threadIdx.x] = ch_v[ch_k];\n"
                   "        __syncthreads();\n"
                   "        " TILE_ROWS_LOOP,
                   g->tm / g->ty, g->ty, g->tn / g->ty, g->ty);
    print_point(g, out, "ch_o0 + threadIdx.x", "ch_o1 + ch_r", 3);
    tr_indent_to(out, 4);
    ch_cx_expr(&cx, g->target);
    ch_strbuf_adds(out, " = ch_tile[threadIdx.x][ch_r];\n            }\n        }\n"
                        "        __syncthreads(); /* the tile is reused by the next row */\n"
                        "    }\n}\n\n");
}

/* A transpose through a side x side tile on blocks of side x ty threads (each thread moves
 * side / ty elements each way). */
static int print_transposed(printer *pr, isl_ast_node *mark, size_t fn, int indent, int side,
                            int ty)
{
    gemm g = {.pr = pr,
              .k = &pr->p->kernels[tr_mark_kernel(pr, mark)],
              .tm = side,
              .tn = side,
              .tk = 1,
              .ty = ty,
              .tx = side};
    int ok = match_transpose(&g, mark);
    if (ok) {
        ch_strbuf *saved = pr->out;
        const ch_tr_kernel *was = pr->k;
        pr->k = g.k;
        print_transpose_kernel(&g, fn, ch_scalar_name(access_param(pr, g.target)->elem));
        pr->k = was;
        pr->out = saved;
        print_launch(&g, fn, indent);
    }
    gemm_free(&g);
    return ok;
}

int tr_print_tiled(printer *pr, isl_ast_node *mark, size_t fn, int indent)
{
    const ch_tr_cuda_opts *o = pr->o;
    gemm g = {.pr = pr,
              .k = &pr->p->kernels[tr_mark_kernel(pr, mark)],
              .tm = o->tile_m,
              .tn = o->tile_n,
              .tk = o->tile_k,
              .ty = o->tile_ty,
              .tx = o->tile_tx};
    assert(g.ty > 0 && g.tx > 0 && g.tm % g.ty == 0 && g.tn % g.tx == 0 && g.tk > 0);
    int ok = match(&g, mark);
    if (!ok) {
        gemm_free(&g);
        return print_transposed(pr, mark, fn, indent, 32, 8);
    }
    if (ok) {
        ch_scalar t = g.scalar_target ? ch_cx_local_type(pr->e, g.scalar_target)
                                      : access_param(pr, g.target)->elem;
        ok = t == CH_T_FLOAT || t == CH_T_DOUBLE;
        if (ok) {
            ch_strbuf *saved = pr->out;
            const ch_tr_kernel *was = pr->k;
            pr->k = g.k;
            pr->covered[0] = pr->covered[1] = 1;
            g.acc = t;
            g.run = (int)(16 / ch_scalar_size(t));
            for (size_t i = 0; i < g.n_reads; i++)
                g.reads[i].vec = vector_width(&g, &g.reads[i]);
            g.stages = o->tile_mma ? o->tile_mma_stages : 0;
            g.mma = o->tile_mma && tile_match_mma(&g);
            if (!g.mma)
                g.stages = 0;
            if (g.mma && o->n_mma)
                (*o->n_mma)++;
            print_kernel(&g, fn, ch_scalar_name(t));
            pr->k = was;
            pr->covered[0] = pr->covered[1] = 0;
            pr->out = saved;
            print_launch(&g, fn, indent);
        }
    }
    gemm_free(&g);
    return ok;
}

/* Transposes alone, through tiles of o->transpose_tile points a side (64: a block of 64 x 4
 * threads moves 64 x 64 elements, 16 a thread each way, where the GEMM variants' 32 x 32 tiles
 * move 4: four times the loads in flight a thread, and a quarter of the blocks). */
int tr_print_transpose(printer *pr, isl_ast_node *mark, size_t fn, int indent)
{
    int side = pr->o->transpose_tile, ty = side > 0 ? pr->o->block1 / side : 0;
    if (side < 32 || side > 64 || ty < 1 || side % ty != 0 || side * ty > 1024)
        return 0;
    return print_transposed(pr, mark, fn, indent, side, ty);
}
