/* A block per row with the row in registers: the block-per-row kernel (rowwise.c) reads a row
 * once per loop over it. A softmax's three loops read x twice and y twice and write y twice,
 * five passes over a row where two (x in, y out) are the floor; the later passes mostly hit L2,
 * but the grid's rows in flight (a few thousand of 16 KiB) crowd it, and each loop's loads are
 * issued one iteration at a time.
 *
 * Here each thread owns the elements ch_k * blockDim.x + t (ch_k < R) of the row, in every loop
 * over it (in the block-per-row kernel a loop from 1 gives element j to thread j - 1): the loops
 * over the row become R unrolled steps, each under the loop's bounds, and every array the loops
 * reach at the same element of the row (x[r * n + j] in each) lives in R registers a thread
 * (templates/rowregs.cu): an element is loaded at its first read, and what the loops wrote is
 * stored once after the row's last loop. The first loop's loads are all issued together, which
 * keeps R loads a thread in flight.
 *
 * Why it is legal: a thread's registers hold only elements it owns, and every access of such an
 * array in the kernel is the owner's (the loops over the row reach element j through the
 * iteration j of each, run by its owner; nothing outside those loops touches an array that is
 * written); the loops' iterations run in their order on each thread, and the block-wide
 * reductions and barriers are the block-per-row kernel's. Arrays are distinct buffers (the
 * host-pointer convention; device pointers may alias: not taken). A row longer than R *
 * blockDim.x (or a loop starting below 0) takes the block-per-row path, in the same kernel: the
 * choice depends on the row and the block's size only, so a block's threads take the same path
 * and meet the same barriers. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "ch/cexpr.h"
#include "ch/embed.h"
#include "rowregs.h"

enum { ROLE_READ = 0, ROLE_PUT, ROLE_UPDATE };
enum { MAX_ACCESSES = 64, MAX_CACHED = 8, MAX_LOOPS = 16 };

/* One array access (the outermost CH_IR_INDEX of a subscript chain) of a kernel statement. */
typedef struct rr_access {
    const ch_ir *node;
    const ch_tr_stmt *stmt;
    size_t array; /* model index */
    int role;     /* ROLE_* */
    int in_row;   /* in a loop over the row */
    char *key;    /* the access with the counters named by level ("x[ch_L0 * n + ch_J]"), or
                     NULL when it is not at element j of the row */
} rr_access;

/* An array kept in registers. */
typedef struct rr_cached {
    size_t array;
    const char *name; /* the model's (borrowed) */
    const char *type; /* its element's C name (static) */
    int written;
    const rr_access *put; /* a write of it: the access the row's end stores through */
} rr_cached;

struct tr_rowregs {
    int r;        /* values a thread per array */
    size_t depth; /* the kernel's: c{depth} is the row, c{depth + 1} a loop over it */
    rr_access acc[MAX_ACCESSES];
    size_t n_acc;
    rr_cached cached[MAX_CACHED];
    size_t n_cached;
    isl_ast_node *loops[MAX_LOOPS]; /* the loops over the row (owned): the fit check's bounds */
    size_t n_loops;
    int ok;
    int counted; /* the kernel was counted in ch_tr_cuda_opts.n_row_regs */
};

/* --- the accesses --- */

/* How the counters of a statement print when its access is a key or is stored at the row's end:
 * the statement's loops by level. */
typedef struct rr_names {
    const printer *pr;
    const ch_tr_model *m;
    const ch_tr_stmt *s;
    size_t depth;
    int flush; /* "((int)c1)": the loops' iterators; else "ch_L0", ..., "ch_J" */
    char buf[64];
} rr_names;

static const char *rr_rename(void *ctx, const char *name)
{
    rr_names *n = ctx;
    for (size_t i = 0; i < n->s->n_loops && i <= n->depth + 1; i++) {
        const ch_tr_loop *l = &n->m->loops[n->s->loops[i]];
        if (strcmp(l->counter, name) != 0)
            continue;
        if (n->flush)
            snprintf(n->buf, sizeof n->buf, "((%s)c%zu)", tr_counter_type(n->pr, l), i);
        else if (i == n->depth + 1)
            snprintf(n->buf, sizeof n->buf, "ch_J");
        else
            snprintf(n->buf, sizeof n->buf, "ch_L%zu", i);
        return n->buf;
    }
    return NULL;
}

/* Whether subscript x reads only the statement's counters down to the row's loops and scalar
 * parameters (values that do not change along a row), and `lane` (when allowed). */
static int row_invariant(const printer *pr, const ch_tr_stmt *s, size_t depth, const ch_ir *x,
                         const char *lane)
{
    if (!x)
        return 1;
    switch (x->kind) {
    case CH_IR_INT_LIT:
        return 1;
    case CH_IR_VAR:
        if (x->param_index >= 0)
            return pr->e->params[x->param_index].role == CH_ROLE_SCALAR;
        if (lane && strcmp(x->text, lane) == 0)
            return 1;
        for (size_t i = 0; i < s->n_loops && i <= depth; i++)
            if (strcmp(pr->m->loops[s->loops[i]].counter, x->text) == 0)
                return 1;
        return 0;
    case CH_IR_BINARY:
        if (!x->text || strchr("+-*", x->text[0]) == NULL || x->text[1])
            return 0;
        return row_invariant(pr, s, depth, x->kids[0], lane) &&
               row_invariant(pr, s, depth, x->kids[1], lane);
    case CH_IR_UNARY:
        return x->text && strcmp(x->text, "-") == 0 &&
               row_invariant(pr, s, depth, x->kids[0], lane);
    case CH_IR_CAST:
        return row_invariant(pr, s, depth, x->kids[0], lane);
    default:
        return 0;
    }
}

/* The key of index (a statement of a loop over the row): the access with its counters named by
 * level when it reaches element j of the row (the last subscript j or e + j, e and the other
 * subscripts invariant along the row), else NULL. */
static char *row_key(const printer *pr, const ch_tr_stmt *s, size_t depth, const ch_ir *index)
{
    const char *lane = pr->m->loops[s->loops[depth + 1]].counter;
    const ch_ir *last = index->kids[1];
    const ch_ir *rest = NULL;
    if (!ch_ir_is_var(last, lane)) {
        if (last->kind != CH_IR_BINARY || !last->text || strcmp(last->text, "+") != 0)
            return NULL;
        rest = ch_ir_is_var(last->kids[0], lane)   ? last->kids[1]
               : ch_ir_is_var(last->kids[1], lane) ? last->kids[0]
                                                   : NULL;
        if (!rest || ch_ir_find(rest, CH_IR_VAR, lane) || !row_invariant(pr, s, depth, rest, NULL))
            return NULL;
    }
    for (const ch_ir *b = index->kids[0]; b->kind == CH_IR_INDEX; b = b->kids[0])
        if (ch_ir_find(b->kids[1], CH_IR_VAR, lane) ||
            !row_invariant(pr, s, depth, b->kids[1], NULL))
            return NULL;
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    rr_names names = {.pr = pr, .m = pr->m, .s = s, .depth = depth};
    ch_cx cx = {.entry = pr->e, .out = &sb, .rename = rr_rename, .ctx = &names};
    ch_cx_expr(&cx, index);
    return ch_strbuf_detach(&sb);
}

/* The parameter array an access chain starts from, or NULL. */
static const ch_ir *chain_root(const ch_ir *index)
{
    const ch_ir *b = index;
    while (b->kind == CH_IR_INDEX)
        b = b->kids[0];
    return b->kind == CH_IR_VAR ? b : NULL;
}

static void add_access(tr_rowregs *r, const printer *pr, const ch_tr_stmt *s, const ch_ir *index,
                       int role)
{
    const ch_ir *root = chain_root(index);
    if (r->n_acc == MAX_ACCESSES || !root) {
        r->ok = 0;
        return;
    }
    size_t a = (size_t)-1;
    for (size_t i = 0; i < pr->m->n_arrays; i++)
        if (strcmp(pr->m->arrays[i].name, root->text) == 0)
            a = i;
    if (a == (size_t)-1 || root->param_index < 0) {
        r->ok = 0; /* a local array: no such kernel has one */
        return;
    }
    rr_access *x = &r->acc[r->n_acc++];
    x->node = index;
    x->stmt = s;
    x->array = a;
    x->role = role;
    x->in_row = s->n_loops == r->depth + 2;
    x->key = x->in_row ? row_key(pr, s, r->depth, index) : NULL;
}

/* The accesses of expression x (role: what the statement does to x itself). */
static void collect(tr_rowregs *r, const printer *pr, const ch_tr_stmt *s, const ch_ir *x, int role)
{
    if (!x || !r->ok)
        return;
    if (x->kind == CH_IR_INDEX) {
        add_access(r, pr, s, x, role);
        for (const ch_ir *b = x; b->kind == CH_IR_INDEX; b = b->kids[0])
            collect(r, pr, s, b->kids[1], ROLE_READ);
        return;
    }
    if (x->kind == CH_IR_ASSIGN) {
        collect(r, pr, s, x->kids[0], strcmp(x->text, "=") == 0 ? ROLE_PUT : ROLE_UPDATE);
        collect(r, pr, s, x->kids[1], ROLE_READ);
        return;
    }
    if (x->kind == CH_IR_UNARY && x->text &&
        (strcmp(x->text, "++") == 0 || !strcmp(x->text, "--"))) {
        collect(r, pr, s, x->kids[0], ROLE_UPDATE);
        return;
    }
    if (x->kind == CH_IR_UNARY && x->text && strcmp(x->text, "&") == 0) {
        r->ok = 0; /* an address taken: where it goes is not followed */
        return;
    }
    for (size_t i = 0; i < x->nkids; i++)
        collect(r, pr, s, x->kids[i], ROLE_READ);
}

/* --- the kernel's shape in isl's AST --- */

static int id_is(isl_ast_expr *x, const char *name)
{
    if (isl_ast_expr_get_type(x) != isl_ast_expr_id)
        return 0;
    isl_id *id = isl_ast_expr_get_id(x);
    int same = strcmp(isl_id_get_name(id), name) == 0;
    isl_id_free(id);
    return same;
}

static int unit_step(isl_ast_node *f)
{
    isl_ast_expr *inc = isl_ast_node_for_get_inc(f);
    isl_val *v = isl_ast_expr_get_val(inc);
    int one = v && isl_val_is_one(v) == isl_bool_true;
    isl_val_free(v);
    isl_ast_expr_free(inc);
    return one;
}

typedef struct rr_walk {
    tr_rowregs *r;
    const printer *pr;
    const char *row_loop_name; /* c{depth + 1} */
} rr_walk;

static void walk_ast(rr_walk *w, isl_ast_node *node, int in_loop);

static void walk_list(rr_walk *w, isl_ast_node_list *l, int in_loop)
{
    for (isl_size i = 0; i < isl_ast_node_list_n_ast_node(l); i++) {
        isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
        walk_ast(w, c, in_loop);
        isl_ast_node_free(c);
    }
}

/* Each statement of a loop over the row sits in a unit-step, non-degenerate c{depth + 1} loop
 * and is bound to c0..c{depth + 1} as they are (its element j is c{depth + 1}); the loops are
 * kept for the fit check. */
static void user_ok(rr_walk *w, isl_ast_node *node, int in_loop)
{
    tr_rowregs *r = w->r;
    isl_ast_expr *call = isl_ast_node_user_get_expr(node);
    isl_ast_expr *fn = isl_ast_expr_op_get_arg(call, 0);
    isl_id *id = isl_ast_expr_get_id(fn);
    const ch_tr_stmt *s = NULL;
    for (size_t i = 0; i < w->pr->m->n_stmts; i++)
        if (strcmp(w->pr->m->stmts[i].name, isl_id_get_name(id)) == 0)
            s = &w->pr->m->stmts[i];
    isl_id_free(id);
    isl_ast_expr_free(fn);
    if (!s || s->n_loops < r->depth + 1 || s->n_loops > r->depth + 2 ||
        (s->n_loops == r->depth + 2) != in_loop)
        r->ok = 0;
    for (size_t i = 0; r->ok && i < s->n_loops; i++) {
        char it[32];
        snprintf(it, sizeof it, "c%zu", i);
        isl_ast_expr *a = isl_ast_expr_op_get_arg(call, (int)i + 1);
        r->ok = id_is(a, it);
        isl_ast_expr_free(a);
    }
    isl_ast_expr_free(call);
}

static void walk_ast(rr_walk *w, isl_ast_node *node, int in_loop)
{
    tr_rowregs *r = w->r;
    if (!r->ok)
        return;
    switch (isl_ast_node_get_type(node)) {
    case isl_ast_node_for: {
        isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
        int over_row = id_is(it, w->row_loop_name);
        isl_ast_expr_free(it);
        if (over_row) {
            isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
            r->ok = !in_loop && isl_ast_node_for_is_degenerate(node) == isl_bool_false &&
                    unit_step(node) && tr_mentions(cond, w->row_loop_name) &&
                    r->n_loops < MAX_LOOPS;
            isl_ast_expr_free(cond);
            if (r->ok)
                r->loops[r->n_loops++] = isl_ast_node_copy(node);
        }
        isl_ast_node *body = isl_ast_node_for_get_body(node);
        walk_ast(w, body, in_loop || over_row);
        isl_ast_node_free(body);
        return;
    }
    case isl_ast_node_if: {
        isl_ast_node *then = isl_ast_node_if_get_then_node(node);
        walk_ast(w, then, in_loop);
        isl_ast_node_free(then);
        if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
            isl_ast_node *els = isl_ast_node_if_get_else_node(node);
            walk_ast(w, els, in_loop);
            isl_ast_node_free(els);
        }
        return;
    }
    case isl_ast_node_block: {
        isl_ast_node_list *l = isl_ast_node_block_get_children(node);
        walk_list(w, l, in_loop);
        isl_ast_node_list_free(l);
        return;
    }
    case isl_ast_node_user:
        user_ok(w, node, in_loop);
        return;
    default:
        r->ok = 0;
        return;
    }
}

/* --- which arrays go to registers --- */

/* A write of an element its statement also reads (y[j] = 2 * y[j]) loads it first, whatever
 * order the compiler evaluates the two sides in: the read must not find the register marked
 * as holding the element before the element is in it. */
static void read_before_write(tr_rowregs *r)
{
    for (size_t i = 0; i < r->n_acc; i++)
        for (size_t j = 0; j < r->n_acc && r->acc[i].role == ROLE_PUT; j++)
            if (j != i && r->acc[j].stmt == r->acc[i].stmt && r->acc[j].array == r->acc[i].array)
                r->acc[i].role = ROLE_UPDATE;
}

static int kernel_runs(const printer *pr, const ch_tr_kernel *k, const ch_tr_stmt *s)
{
    isl_union_set *one = isl_union_set_from_set(isl_set_copy(s->domain));
    int in = isl_union_set_is_subset(one, k->domain) == isl_bool_true;
    isl_union_set_free(one);
    return in;
}

/* Array a goes to registers when the loops over the row reach it, each at the same element j of
 * the row; and, when the kernel writes it, nothing else touches it. */
static void consider(tr_rowregs *r, const printer *pr, size_t a)
{
    const char *key = NULL;
    int in_row = 0, written = 0, elsewhere = 0, same = 1;
    const rr_access *put = NULL;
    for (size_t i = 0; i < r->n_acc; i++) {
        const rr_access *x = &r->acc[i];
        if (x->array != a)
            continue;
        if (x->role != ROLE_READ) {
            written = 1;
            if (x->in_row && x->key && !put)
                put = x;
        }
        if (!x->in_row || !x->key) {
            elsewhere = 1;
            same = same && !x->in_row;
            continue;
        }
        in_row = 1;
        if (!key)
            key = x->key;
        same = same && strcmp(key, x->key) == 0;
    }
    if (!in_row || !same || (written && elsewhere) || r->n_cached == MAX_CACHED)
        return;
    rr_cached *c = &r->cached[r->n_cached++];
    c->array = a;
    c->name = pr->m->arrays[a].name;
    c->type = ch_scalar_name(ch_tr_array_elem(pr->m, a));
    c->written = written;
    c->put = put;
}

tr_rowregs *tr_rowregs_plan(const printer *pr, const ch_tr_kernel *k, isl_ast_node *mark)
{
    int r_vals = pr->o->row_regs;
    if (r_vals < 1 || r_vals > 32 || !k->warp_rows || k->n_mapped != 1 || pr->e->clauses.device)
        return NULL;
    tr_rowregs *r = ch_xcalloc(1, sizeof *r);
    r->r = r_vals;
    r->depth = k->depth;
    r->ok = 1;
    char name[32];
    snprintf(name, sizeof name, "c%zu", k->depth + 1);
    rr_walk w = {.r = r, .pr = pr, .row_loop_name = name};
    isl_ast_node *body = isl_ast_node_mark_get_node(mark);
    walk_ast(&w, body, 0);
    isl_ast_node_free(body);
    for (size_t s = 0; r->ok && s < pr->m->n_stmts; s++) {
        const ch_tr_stmt *S = &pr->m->stmts[s];
        if (!kernel_runs(pr, k, S))
            continue;
        const ch_ir *x =
            S->ir->kind == CH_IR_EXPR_STMT || S->ir->kind == CH_IR_DECL ? S->ir->kids[0] : NULL;
        r->ok = x != NULL || S->ir->kind == CH_IR_DECL;
        collect(r, pr, S, x, ROLE_READ);
        for (size_t g = 0; g < S->n_guards; g++)
            collect(r, pr, S, S->guards[g], ROLE_READ);
    }
    read_before_write(r);
    for (size_t a = 0; r->ok && a < pr->m->n_arrays; a++)
        consider(r, pr, a);
    if (!r->ok || r->n_cached == 0 || r->n_loops == 0) {
        tr_rowregs_free(r);
        return NULL;
    }
    return r;
}

void tr_rowregs_free(tr_rowregs *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_acc; i++)
        free(r->acc[i].key);
    for (size_t i = 0; i < r->n_loops; i++)
        isl_ast_node_free(r->loops[i]);
    free(r);
}

/* --- printing --- */

void tr_rowregs_comment(const printer *pr, ch_strbuf *out)
{
    const tr_rowregs *r = pr->regs;
    ch_strbuf_addf(out,
                   " * Rows of at most %d x blockDim.x elements stay in registers: thread t owns "
                   "elements\n"
                   " *   ch_k * blockDim.x + t (ch_k < %d) in every loop over the row, unrolled, "
                   "and keeps its\n"
                   " *   values of",
                   r->r, r->r);
    for (size_t c = 0; c < r->n_cached; c++)
        ch_strbuf_addf(out, "%s %s",
                       c == 0                 ? ""
                       : c + 1 == r->n_cached ? " and"
                                              : ",",
                       r->cached[c].name);
    ch_strbuf_adds(out, " (loaded at the first read, what the loops write stored\n"
                        " *   once at the row's end): one pass over memory a row. Longer rows "
                        "take the path above.\n");
}

static void declare_registers(const tr_rowregs *r, ch_strbuf *out, int indent)
{
    for (size_t c = 0; c < r->n_cached; c++) {
        const rr_cached *x = &r->cached[c];
        tr_indent_to(out, indent);
        ch_strbuf_addf(out, "%s ch_reg_%s[%d] = {0};\n", x->type, x->name, r->r);
        tr_indent_to(out, indent);
        if (x->written)
            ch_strbuf_addf(out, "unsigned ch_have_%s = 0u, ch_dirty_%s = 0u;\n", x->name, x->name);
        else
            ch_strbuf_addf(out, "unsigned ch_have_%s = 0u;\n", x->name);
    }
}

/* The stores of the written elements at the row's end. */
static void flush(printer *pr, const rr_cached *x, int indent)
{
    tr_rowregs *r = pr->regs;
    ch_strbuf *out = pr->out;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_k = 0; ch_k < %d; ch_k++) /* %s's written elements */\n", r->r,
                   x->name);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "if (ch_dirty_%s >> ch_k & 1u) {\n", x->name);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long c%zu = (long long)ch_k * blockDim.x + ch_lane;\n",
                   r->depth + 1);
    tr_indent_to(out, indent + 2);
    rr_names names = {.pr = pr, .m = pr->m, .s = x->put->stmt, .depth = r->depth, .flush = 1};
    ch_cx cx = {.entry = pr->e, .out = out, .rename = rr_rename, .ctx = &names};
    ch_cx_expr(&cx, x->put->node);
    ch_strbuf_addf(out, " = ch_reg_%s[ch_k];\n", x->name);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
}

static int non_negative_literal(isl_ast_expr *x)
{
    if (isl_ast_expr_get_type(x) != isl_ast_expr_int)
        return 0;
    isl_val *v = isl_ast_expr_get_val(x);
    int ok = isl_val_is_nonneg(v) == isl_bool_true;
    isl_val_free(v);
    return ok;
}

/* `!(cond)` at c{depth+1} = R * blockDim.x and `init >= 0` for every loop over the row. */
static void fit_check(printer *pr, int indent)
{
    tr_rowregs *r = pr->regs;
    ch_strbuf *out = pr->out;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out,
                   "/* the row fits the registers: every loop over it starts at 0 or later and "
                   "ends before\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, " * %d x blockDim.x (the same for the block's threads) */\n", r->r);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "int ch_fits;\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "{\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long c%zu = (long long)%d * blockDim.x;\n", r->depth + 1, r->r);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "ch_fits = ");
    for (size_t i = 0; i < r->n_loops; i++) {
        isl_ast_expr *cond = isl_ast_node_for_get_cond(r->loops[i]);
        isl_ast_expr *init = isl_ast_node_for_get_init(r->loops[i]);
        ch_strbuf_adds(out, i ? " && !" : "!");
        tr_print_expr(pr, out, cond);
        if (!non_negative_literal(init)) {
            ch_strbuf_adds(out, " && ");
            tr_print_expr(pr, out, init);
            ch_strbuf_adds(out, " >= 0");
        }
        isl_ast_expr_free(cond);
        isl_ast_expr_free(init);
    }
    ch_strbuf_adds(out, ";\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

void tr_rowregs_row(printer *pr, isl_ast_node *body, int indent)
{
    tr_rowregs *r = pr->regs;
    ch_strbuf *out = pr->out;
    if (!r->counted && pr->o->n_row_regs)
        (*pr->o->n_row_regs)++;
    r->counted = 1;
    fit_check(pr, indent);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "if (ch_fits) { /* the row in registers */\n");
    declare_registers(r, out, indent + 1);
    pr->regs_on = 1;
    tr_print_node(pr, body, indent + 1);
    pr->regs_on = 0;
    for (size_t c = 0; c < r->n_cached; c++)
        if (r->cached[c].written)
            flush(pr, &r->cached[c], indent + 1);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "} else { /* a longer row: the loops read it from memory */\n");
    tr_print_node(pr, body, indent + 1);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

void tr_rowregs_loop_open(printer *pr, isl_ast_node *f, const char *name, int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *init = isl_ast_node_for_get_init(f), *cond = isl_ast_node_for_get_cond(f);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out,
                   "for (int ch_k = 0; ch_k < %d; ch_k++) { /* this thread's elements of the "
                   "row */\n",
                   pr->regs->r);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long %s = (long long)ch_k * blockDim.x + ch_lane;\n", name);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "if (%s >= ", name);
    tr_print_expr(pr, out, init);
    ch_strbuf_adds(out, " && ");
    tr_print_expr(pr, out, cond);
    ch_strbuf_adds(out, ") {\n");
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
}

void tr_rowregs_loop_close(printer *pr, int indent)
{
    tr_indent_to(pr->out, indent + 1);
    ch_strbuf_adds(pr->out, "}\n");
}

int tr_rowregs_access(void *ctx, const ch_ir *index, ch_strbuf *out)
{
    printer *pr = ctx;
    const tr_rowregs *r = pr->regs;
    if (!r || !pr->regs_on || !pr->lanes)
        return 0;
    const rr_access *x = NULL;
    for (size_t i = 0; i < r->n_acc && !x; i++)
        if (r->acc[i].node == index)
            x = &r->acc[i];
    const rr_cached *c = NULL;
    for (size_t i = 0; x && i < r->n_cached && !c; i++)
        if (r->cached[i].array == x->array)
            c = &r->cached[i];
    if (!c)
        return 0;
    assert(x->in_row && x->key);
    if (x->role == ROLE_READ)
        ch_strbuf_addf(out, "ch_row_get(ch_reg_%s, ch_have_%s, ch_k, &", c->name, c->name);
    else
        ch_strbuf_addf(out, "ch_row_put(ch_reg_%s, ch_have_%s, ch_dirty_%s, ch_k, &", c->name,
                       c->name, c->name);
    tr_print_plain_expr(pr, index, out);
    ch_strbuf_adds(out, x->role == ROLE_READ ? ")" : x->role == ROLE_PUT ? ", 0)" : ", 1)");
    return 1;
}

/* Embedded by tools/embed.sh (build/gen/templates.c). */
extern const struct ch_embedded_file ch_template_files[];

void tr_rowregs_support(ch_strbuf *out, const char *code)
{
    if (!strstr(code, "ch_row_get(") && !strstr(code, "ch_row_put("))
        return;
    const char *tmpl = ch_embedded_text(ch_template_files, "rowregs.cu");
    assert(tmpl && "templates/rowregs.cu is built into the binary");
    ch_strbuf_adds(out, tmpl);
}
