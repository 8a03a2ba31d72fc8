/* CUDA from a plan (ch_tr_cuda): isl generates the loops of the new order (isl_ast_build), and
 * this file prints them: the host part as the launcher, each marked subtree as a __global__
 * kernel.
 *
 * In a kernel, the loops over the mapped schedule dimensions become grid-stride loops: thread
 * g of n starts at the loop's first value plus g steps and moves by n steps. Each value of a
 * mapped dimension is then run by exactly one thread whatever the grid's size, in the order
 * the schedule gives, so the grid size is only a matter of speed (it is computed from the
 * dimension's extent). Code that isl placed outside a mapped loop (a dimension with a single
 * value there) runs on the thread whose index in that dimension is 0.
 *
 * A statement instance is printed as a block that binds the C loop counters to their values
 * in the new order (`const int i = c1;`) and then runs the statement as the user wrote it,
 * under the conditions the domain does not hold. Scalars the plan keeps in device memory are
 * fields of one struct (`ch_s->t`); scalars private to a kernel's threads are its locals.
 * An array private to an iteration (CH_TR_THREAD_COPY) is reached through `ch_c_NAME`: the
 * thread's slice of a scratch buffer the launcher sizes for the launch's threads, or the array
 * itself in the last iteration, whose values the C body leaves there. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "ch/cexpr.h"
#include "ch/embed.h"
#include "ch/translate.h"
#include "printer.h"
#include "cols.h"
#include "rowregs.h"
#include "rowwise.h"

void tr_indent_to(ch_strbuf *out, int n)
{
    for (int i = 0; i < n; i++)
        ch_strbuf_adds(out, "    ");
}

/* The barrier after a loop over a row spread over a warp's lanes (or a block's threads), and
 * after a statement that one of them alone runs: what one wrote, the others read next. */
static const char *lanes_sync(const printer *pr)
{
    return pr->block_rows ? "__syncthreads();\n" : "__syncwarp();\n";
}

/* --- isl AST expressions --- */

/* The C spelling of an isl name: the model appends '_' to parameter names that isl reads as
 * keywords. */
const char *tr_c_name(const printer *pr, const char *isl_name)
{
    size_t n = strlen(isl_name);
    if (n > 1 && isl_name[n - 1] == '_')
        for (size_t i = 0; i < pr->e->n_params; i++)
            if (strlen(pr->e->params[i].name) == n - 1 &&
                strncmp(pr->e->params[i].name, isl_name, n - 1) == 0)
                return pr->e->params[i].name;
    return isl_name;
}

void tr_print_expr(const printer *pr, ch_strbuf *out, isl_ast_expr *x);

static void print_args(const printer *pr, ch_strbuf *out, isl_ast_expr *x, int from,
                       const char *sep)
{
    isl_size n = isl_ast_expr_op_get_n_arg(x);
    for (int i = from; i < n; i++) {
        isl_ast_expr *a = isl_ast_expr_op_get_arg(x, i);
        if (i > from)
            ch_strbuf_adds(out, sep);
        tr_print_expr(pr, out, a);
        isl_ast_expr_free(a);
    }
}

/* min/max of n arguments as nested two-argument calls. */
static void print_minmax(const printer *pr, ch_strbuf *out, isl_ast_expr *x, const char *fn)
{
    isl_size n = isl_ast_expr_op_get_n_arg(x);
    for (int i = 0; i + 1 < n; i++)
        ch_strbuf_addf(out, "%s(", fn);
    for (int i = 0; i < n; i++) {
        isl_ast_expr *a = isl_ast_expr_op_get_arg(x, i);
        if (i)
            ch_strbuf_adds(out, ", ");
        tr_print_expr(pr, out, a);
        if (i)
            ch_strbuf_addc(out, ')');
        isl_ast_expr_free(a);
    }
}

static const char *binary_op(enum isl_ast_expr_op_type t)
{
    switch (t) {
    case isl_ast_expr_op_and:
    case isl_ast_expr_op_and_then:
        return " && ";
    case isl_ast_expr_op_or:
    case isl_ast_expr_op_or_else:
        return " || ";
    case isl_ast_expr_op_add:
        return " + ";
    case isl_ast_expr_op_sub:
        return " - ";
    case isl_ast_expr_op_mul:
        return " * ";
    case isl_ast_expr_op_div:
    case isl_ast_expr_op_pdiv_q:
        return " / ";
    case isl_ast_expr_op_pdiv_r:
    case isl_ast_expr_op_zdiv_r:
        return " % ";
    case isl_ast_expr_op_eq:
        return " == ";
    case isl_ast_expr_op_le:
        return " <= ";
    case isl_ast_expr_op_lt:
        return " < ";
    case isl_ast_expr_op_ge:
        return " >= ";
    case isl_ast_expr_op_gt:
        return " > ";
    default:
        return NULL;
    }
}

/* Fully parenthesised: the expressions are short and read as isl wrote them. */
void tr_print_expr(const printer *pr, ch_strbuf *out, isl_ast_expr *x)
{
    switch (isl_ast_expr_get_type(x)) {
    case isl_ast_expr_id: {
        isl_id *id = isl_ast_expr_get_id(x);
        ch_strbuf_adds(out, tr_c_name(pr, isl_id_get_name(id)));
        isl_id_free(id);
        return;
    }
    case isl_ast_expr_int: {
        isl_val *v = isl_ast_expr_get_val(x);
        ch_strbuf_addf(out, "%ld", isl_val_get_num_si(v));
        isl_val_free(v);
        return;
    }
    case isl_ast_expr_op:
        break;
    default:
        ch_strbuf_adds(out, "/* ? */ 0");
        return;
    }
    enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(x);
    const char *op = binary_op(t);
    if (op) {
        ch_strbuf_addc(out, '(');
        print_args(pr, out, x, 0, op);
        ch_strbuf_addc(out, ')');
        return;
    }
    switch (t) {
    case isl_ast_expr_op_max:
        print_minmax(pr, out, x, "ch_isl_max");
        return;
    case isl_ast_expr_op_min:
        print_minmax(pr, out, x, "ch_isl_min");
        return;
    case isl_ast_expr_op_minus:
        ch_strbuf_adds(out, "(-");
        print_args(pr, out, x, 0, "");
        ch_strbuf_addc(out, ')');
        return;
    case isl_ast_expr_op_fdiv_q:
        ch_strbuf_adds(out, "ch_isl_floord(");
        print_args(pr, out, x, 0, ", ");
        ch_strbuf_addc(out, ')');
        return;
    case isl_ast_expr_op_cond:
    case isl_ast_expr_op_select: {
        isl_ast_expr *c = isl_ast_expr_op_get_arg(x, 0), *a = isl_ast_expr_op_get_arg(x, 1),
                     *b = isl_ast_expr_op_get_arg(x, 2);
        ch_strbuf_addc(out, '(');
        tr_print_expr(pr, out, c);
        ch_strbuf_adds(out, " ? ");
        tr_print_expr(pr, out, a);
        ch_strbuf_adds(out, " : ");
        tr_print_expr(pr, out, b);
        ch_strbuf_addc(out, ')');
        isl_ast_expr_free(c);
        isl_ast_expr_free(a);
        isl_ast_expr_free(b);
        return;
    }
    default:
        ch_strbuf_adds(out, "/* unsupported isl expression */ 0");
        return;
    }
}

static int is_int(isl_ast_expr *x, long v)
{
    if (isl_ast_expr_get_type(x) != isl_ast_expr_int)
        return 0;
    isl_val *val = isl_ast_expr_get_val(x);
    int eq = isl_val_cmp_si(val, v) == 0;
    isl_val_free(val);
    return eq;
}

/* --- statements --- */

static size_t stmt_named(const ch_tr_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_stmts; i++)
        if (strcmp(m->stmts[i].name, name) == 0)
            return i;
    return (size_t)-1;
}

static size_t array_named(const ch_tr_model *m, const char *name)
{
    for (size_t i = 0; i < m->n_arrays; i++)
        if (strcmp(m->arrays[i].name, name) == 0)
            return i;
    return (size_t)-1;
}

static const char *rename_var(void *ctx, const char *name)
{
    printer *pr = ctx;
    size_t a = array_named(pr->m, name);
    if (a != (size_t)-1 && pr->k && pr->p->storage[a] == CH_TR_THREAD_COPY) {
        /* the statement's block points ch_c_NAME at the copy its iteration works on */
        snprintf(pr->rename, sizeof pr->rename, "ch_c_%s", name);
        return pr->rename;
    }
    if (a == (size_t)-1 || pr->p->storage[a] != CH_TR_DEVICE)
        return NULL;
    snprintf(pr->rename, sizeof pr->rename, "ch_s->%s", name);
    return pr->rename;
}

static int uses_var(const ch_tr_stmt *s, const char *name);

/* The element count of array a as a C expression (malloc'd): a parameter's extent, a local's
 * constant. */
static char *array_extent(const printer *pr, size_t a)
{
    const ch_param *p = ch_entry_param(pr->e, pr->m->arrays[a].name);
    if (p)
        return tr_extent_text(p);
    return ch_xasprintf("%lld", pr->m->arrays[a].local_elems);
}

/* For each array kept as a copy per thread that statement s uses: ch_c_NAME, the copy this
 * instance works on. The last iteration of the array's private loop (and the loops around it)
 * works on the array itself, since the C body leaves there what that iteration writes (deps.c
 * refuses the array otherwise); every other iteration works on this thread's slice. */
static void print_copy_pointers(printer *pr, isl_ast_expr *call, const ch_tr_stmt *s, int indent)
{
    const ch_tr_model *m = pr->m;
    for (size_t a = 0; a < m->n_arrays; a++) {
        if (pr->p->storage[a] != CH_TR_THREAD_COPY || !uses_var(s, m->arrays[a].name))
            continue;
        const char *name = m->arrays[a].name;
        isl_pw_multi_aff *last = pr->p->last[a];
        isl_size depth = isl_pw_multi_aff_dim(last, isl_dim_out);
        tr_indent_to(pr->out, indent + 1);
        ch_strbuf_adds(pr->out, "/* the last iteration (");
        for (isl_size i = 0; i < depth; i++)
            ch_strbuf_addf(pr->out, "%s%s", i ? ", " : "", m->loops[s->loops[i]].counter);
        ch_strbuf_addf(pr->out, ") works on %s itself, the others on this thread's copy */\n",
                       name);
        tr_indent_to(pr->out, indent + 1);
        ch_strbuf_addf(pr->out, "%s *const ch_c_%s = ", ch_scalar_name(ch_tr_array_elem(m, a)),
                       name);
        for (isl_size i = 0; i < depth; i++) {
            isl_ast_expr *v = isl_ast_expr_op_get_arg(call, (int)i + 1);
            ch_strbuf_adds(pr->out, i ? " && (" : "(");
            tr_print_expr(pr, pr->out, v);
            ch_strbuf_adds(pr->out, ") == (");
            tr_print_param_expr(pr, pr->out, isl_pw_multi_aff_get_pw_aff(last, (int)i));
            ch_strbuf_addc(pr->out, ')');
            isl_ast_expr_free(v);
        }
        ch_strbuf_addf(pr->out, "%s ? %s : ch_mine_%s;\n", depth > 0 ? "" : "1", name, name);
    }
}

/* A kernel's shared sum `X += e`, `X -= e`, `X = X + e`, `X = e + X`, `X = X - e`, X++ or
 * X--. With partial sums the thread remembers the element and adds e to its partial sum (see
 * print_marks); else it adds e to the element atomically. */
/* The suffix of the atomic helper of a sum or bitwise reduction: ch_atomic_add, _and, _or,
 * _xor. */
static const char *atomic_name(const char *op)
{
    return op[0] == '&' ? "and" : op[0] == '|' ? "or" : op[0] == '^' ? "xor" : "add";
}

static int is_extremum(const char *op)
{
    return strcmp(op, "min") == 0 || strcmp(op, "max") == 0;
}

/* The value a thread's part of a reduction starts from: nothing combined yet. */
static const char *identity_of(const char *op, ch_scalar t)
{
    static const struct {
        ch_scalar t;
        const char *max, *min; /* the identities of max and of min */
    } ids[] = {{CH_T_FLOAT, "-INFINITY", "INFINITY"},  {CH_T_DOUBLE, "-INFINITY", "INFINITY"},
               {CH_T_INT, "INT_MIN", "INT_MAX"},       {CH_T_UINT, "0u", "UINT_MAX"},
               {CH_T_LONG, "LONG_MIN", "LONG_MAX"},    {CH_T_ULONG, "0ul", "ULONG_MAX"},
               {CH_T_LLONG, "LLONG_MIN", "LLONG_MAX"}, {CH_T_ULLONG, "0ull", "ULLONG_MAX"}};
    if (strcmp(op, "&") == 0)
        return "~0ull"; /* all ones in any integer type */
    if (!is_extremum(op))
        return "0";
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (ids[i].t == t)
            return strcmp(op, "max") == 0 ? ids[i].max : ids[i].min;
    assert(!"no identity: parallel_sum admits only the types above");
    return "0";
}

/* A kernel's shared minimum or maximum `X = f(X, e)`: like a sum. Each thread runs f itself on
 * its partial result; the warp's and the element's are combined with ch_min/ch_max (C's fmin and
 * fmax, or < and > for integers). An atomic update converts e to X's type first, which is what
 * f does to it (fminf) or what the assignment does to f's result (fmin into a float: the
 * rounding is monotonic, so the order of the two does not change the value). */
static void print_partial_extremum(printer *pr, const ch_cx *cx, const ch_ir *x, const char *op,
                                   int indent)
{
    const ch_ir *lhs = x->kids[0], *call = x->kids[1];
    assert(call->kind == CH_IR_CALL && call->nkids == 2);
    const ch_ir *term = ch_ir_same(call->kids[0], lhs) ? call->kids[1] : call->kids[0];
    const char *t =
        ch_scalar_name(ch_tr_array_elem(pr->m, pr->m->stmts[pr->k->reduction].red_array));
    tr_indent_to(pr->out, indent);
    if (pr->k->atomic_each) {
        ch_strbuf_addf(pr->out, "ch_atomic_%s(&", op);
        ch_cx_expr(cx, lhs);
        ch_strbuf_addf(pr->out, ", (%s)(", t);
        ch_cx_expr(cx, term);
        ch_strbuf_adds(pr->out, "));\n");
        return;
    }
    ch_strbuf_adds(pr->out, "ch_target = &");
    ch_cx_expr(cx, lhs);
    ch_strbuf_adds(pr->out, ";\n");
    /* the thread's own step is the C statement with ch_acc for X */
    ch_ir acc = {.kind = CH_IR_VAR,
                 .line = lhs->line,
                 .col = lhs->col,
                 .text = (char *)"ch_acc",
                 .type = lhs->type,
                 .param_index = -1};
    ch_ir *args[2] = {call->kids[0], call->kids[1]};
    args[term == call->kids[0] ? 1 : 0] = &acc;
    ch_ir step = *call;
    step.kids = args;
    tr_indent_to(pr->out, indent);
    ch_strbuf_adds(pr->out, "ch_acc = ");
    ch_cx_expr(cx, &step);
    ch_strbuf_adds(pr->out, ";\n");
}

static void print_partial_sum(printer *pr, const ch_cx *cx, const ch_ir *x, int indent)
{
    const char *op = pr->m->stmts[pr->k->reduction].red_op;
    if (is_extremum(op)) {
        print_partial_extremum(pr, cx, x, op, indent);
        return;
    }
    const ch_ir *lhs = x->kids[0], *term = NULL;
    int minus = 0;
    if (x->kind == CH_IR_UNARY) {
        minus = strcmp(x->text, "--") == 0;
    } else {
        const ch_ir *rhs = x->kids[1];
        term = rhs;
        minus = strcmp(x->text, "-=") == 0;
        if (strcmp(x->text, "=") == 0 && rhs->kind == CH_IR_BINARY && rhs->nkids == 2) {
            minus = strcmp(rhs->text, "-") == 0;
            term = ch_ir_same(rhs->kids[0], lhs) ? rhs->kids[1] : rhs->kids[0];
        }
    }
    tr_indent_to(pr->out, indent);
    if (pr->k->atomic_each) {
        /* the element itself, or its place in the block's copy */
        ch_strbuf_addf(pr->out, "ch_atomic_%s(&%s", atomic_name(op), pr->priv ? "ch_priv[" : "");
        assert(!pr->priv || (lhs->kind == CH_IR_INDEX && lhs->nkids == 2));
        ch_cx_expr(cx, pr->priv ? lhs->kids[1] : lhs);
        ch_strbuf_addf(pr->out, "%s, %s", pr->priv ? "]" : "", minus ? "-(" : "");
        if (term)
            ch_cx_expr(cx, term);
        else
            ch_strbuf_adds(pr->out, "1");
        ch_strbuf_adds(pr->out, minus ? "));\n" : ");\n");
        return;
    }
    ch_strbuf_adds(pr->out, "ch_target = &");
    ch_cx_expr(cx, lhs);
    ch_strbuf_adds(pr->out, ";\n");
    tr_indent_to(pr->out, indent);
    ch_strbuf_addf(pr->out, "ch_acc %s= ", minus ? "-" : op);
    if (term)
        ch_cx_expr(cx, term);
    else
        ch_strbuf_adds(pr->out, "1");
    ch_strbuf_adds(pr->out, ";\n");
}

/* The C type a loop's counter was declared with. */
const char *tr_counter_type(const printer *pr, const ch_tr_loop *l)
{
    const ch_ir *init = l->ir->kids[0];
    if (init && init->kind == CH_IR_DECL && init->ctype)
        return init->ctype;
    ch_scalar t = ch_cx_local_type(pr->e, l->counter);
    return t != CH_T_UNKNOWN ? ch_scalar_name(t) : "long long";
}

/* Does statement s (or a condition guarding it) read variable name? */
static int uses_var(const ch_tr_stmt *s, const char *name)
{
    if (ch_ir_find(s->ir, CH_IR_VAR, name))
        return 1;
    for (size_t g = 0; g < s->n_guards; g++)
        if (ch_ir_find(s->guards[g], CH_IR_VAR, name))
            return 1;
    return 0;
}

void tr_comment_text(ch_strbuf *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (c[0] == '*' && c[1] == '/')
            ch_strbuf_adds(out, "* /");
        else if (*c == '\n')
            ch_strbuf_addc(out, ' ');
        else
            ch_strbuf_addc(out, *c);
        if (c[0] == '*' && c[1] == '/')
            c++;
    }
}

/* Whether the C counter of type t bound to v is an int that takes the row of a group of rows
 * (the rows variant: v is the c0 loop's iterator, stepping by one). It is bound as the group's
 * first row plus ch_t0 in int arithmetic: nvcc then sees that row t + 1's `i - 1` is row t's `i`
 * and loads each row once for the group (a long long c0 truncated per row hides it: a 5-point
 * stencil loaded 5 values an output with 4 rows, 3.5 now). The int cannot overflow where the
 * long long one would not: the counter is an int in the C body. */
static int is_row_counter(const printer *pr, isl_ast_expr *v, const char *t)
{
    if (!pr->rows_for || strcmp(t, "int") != 0 || isl_ast_expr_get_type(v) != isl_ast_expr_id)
        return 0;
    isl_ast_expr *it = isl_ast_node_for_get_iterator(pr->rows_for);
    isl_ast_expr *inc = isl_ast_node_for_get_inc(pr->rows_for);
    int same = isl_ast_expr_is_equal(v, it) == isl_bool_true && is_int(inc, 1);
    isl_ast_expr_free(it);
    isl_ast_expr_free(inc);
    return same;
}

/* The statement's C loop counters that it reads, bound from the instance's arguments. */
static void print_bindings(printer *pr, isl_ast_expr *call, const ch_tr_stmt *s, int indent)
{
    ch_strbuf *out = pr->out;
    for (size_t i = 0; i < s->n_loops; i++) {
        const ch_tr_loop *l = &pr->m->loops[s->loops[i]];
        if (!uses_var(s, l->counter))
            continue; /* bound only where the statement reads it */
        isl_ast_expr *v = isl_ast_expr_op_get_arg(call, (int)i + 1);
        const char *t = tr_counter_type(pr, l);
        tr_indent_to(out, indent + 1);
        if (is_row_counter(pr, v, t)) {
            ch_strbuf_addf(out,
                           "const int %s = (int)ch_r0 + ch_t0; /* rows as ints: nvcc shares "
                           "the loads of neighbouring rows */\n",
                           l->counter);
            isl_ast_expr_free(v);
            continue;
        }
        ch_strbuf_addf(out, "const %s %s = (%s)", t, l->counter, t);
        tr_print_expr(pr, out, v);
        ch_strbuf_adds(out, ";\n");
        isl_ast_expr_free(v);
    }
}

static void print_cols_user(printer *pr, isl_ast_node *node, int indent);

void tr_print_user(printer *pr, isl_ast_node *node, int indent)
{
    if (pr->colplan && pr->cols_for && !pr->cols_on) {
        print_cols_user(pr, node, indent);
        return;
    }
    ch_strbuf *out = pr->out;
    isl_ast_expr *call = isl_ast_node_user_get_expr(node);
    isl_ast_expr *fn = isl_ast_expr_op_get_arg(call, 0);
    isl_id *id = isl_ast_expr_get_id(fn);
    size_t si = stmt_named(pr->m, isl_id_get_name(id));
    isl_id_free(id);
    isl_ast_expr_free(fn);
    assert(si != (size_t)-1);
    const ch_tr_stmt *s = &pr->m->stmts[si];
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "{ /* %s (%s:%u): ", s->name, pr->e->file, s->line);
    tr_comment_text(out, s->text);
    ch_strbuf_adds(out, " */\n");
    print_bindings(pr, call, s, indent);
    print_copy_pointers(pr, call, s, indent);
    isl_ast_expr_free(call);
    int inner = indent + 1;
    /* a mapped dimension with a single value here: the thread at index 0 of it runs this */
    int guard = 0;
    for (int q = 0; pr->k && q < pr->k->n_mapped; q++)
        if (!pr->covered[q]) {
            if (!guard) {
                tr_indent_to(out, inner);
                ch_strbuf_adds(out, "if (");
            }
            ch_strbuf_addf(out, "%sch_g%d == 0", guard ? " && " : "", q);
            guard = 1;
        }
    if (guard) {
        ch_strbuf_adds(out, ") {\n");
        inner++;
    }
    /* in a warp per row, outside the lanes' loops: every lane runs the statement (each keeps
     * its own copy of the scalars), but only lane 0 writes memory */
    int lane0 = pr->k && pr->k->warp_rows && !pr->lanes && s->ir->kind == CH_IR_EXPR_STMT &&
                s->ir->kids[0]->kind == CH_IR_ASSIGN && s->ir->kids[0]->kids[0]->kind != CH_IR_VAR;
    if (lane0) {
        tr_indent_to(out, inner);
        ch_strbuf_adds(out, "if (ch_lane == 0) {\n");
        inner++;
    }
    ch_cx cx = {.entry = pr->e,
                .out = out,
                .rename = rename_var,
                .ctx = pr,
                .exact_mul = 1,
                .access = pr->regs_on ? tr_rowregs_access : NULL};
    for (size_t g = 0; g < s->n_guards; g++) {
        tr_indent_to(out, inner);
        ch_strbuf_adds(out, s->guard_neg[g] ? "if (!(" : "if (");
        ch_cx_expr(&cx, s->guards[g]);
        ch_strbuf_adds(out, s->guard_neg[g] ? ")) {\n" : ") {\n");
        inner++;
    }
    if (pr->k && pr->k->reduction == si) {
        print_partial_sum(pr, &cx, s->ir->kids[0], inner);
    } else if (s->ir->kind == CH_IR_DECL) {
        const char *as = rename_var(pr, s->ir->text);
        tr_indent_to(out, inner);
        ch_strbuf_addf(out, "%s = ", as ? as : s->ir->text);
        ch_cx_expr(&cx, s->ir->kids[0]);
        ch_strbuf_adds(out, ";\n");
    } else {
        ch_cx_stmt(&cx, s->ir, inner);
    }
    while (inner > indent + 1) {
        tr_indent_to(out, --inner);
        ch_strbuf_adds(out, "}\n");
    }
    if (lane0) {
        tr_indent_to(out, indent + 1);
        ch_strbuf_adds(out, lanes_sync(pr));
    }
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

void tr_print_plain_expr(printer *pr, const ch_ir *x, ch_strbuf *out)
{
    ch_cx cx = {.entry = pr->e, .out = out, .rename = rename_var, .ctx = pr, .exact_mul = 1};
    ch_cx_expr(&cx, x);
}

/* --- loops, conditions, kernels --- */

static void print_node(printer *pr, isl_ast_node *node, int indent);
size_t tr_mark_kernel(const printer *pr, isl_ast_node *node);
static void print_marks(printer *pr, isl_ast_node **marks, size_t n, int indent);

static int one_thread_mark(const printer *pr, isl_ast_node *node)
{
    return !pr->k && isl_ast_node_get_type(node) == isl_ast_node_mark &&
           pr->p->kernels[tr_mark_kernel(pr, node)].n_mapped == 0;
}

static void print_list(printer *pr, isl_ast_node_list *list, int indent)
{
    isl_size n = isl_ast_node_list_n_ast_node(list);
    for (int i = 0; i < n;) {
        isl_ast_node *c = isl_ast_node_list_get_ast_node(list, i);
        if (!one_thread_mark(pr, c)) {
            print_node(pr, c, indent);
            isl_ast_node_free(c);
            i++;
            continue;
        }
        /* consecutive kernels of one thread each: one launch */
        isl_ast_node **run = ch_xcalloc((size_t)(n - i), sizeof *run);
        size_t len = 0;
        run[len++] = c;
        for (i++; i < n; i++) {
            isl_ast_node *next = isl_ast_node_list_get_ast_node(list, i);
            if (!one_thread_mark(pr, next)) {
                isl_ast_node_free(next);
                break;
            }
            run[len++] = next;
        }
        print_marks(pr, run, len, indent);
        for (size_t j = 0; j < len; j++)
            isl_ast_node_free(run[j]);
        free(run);
    }
}

/* The mapped member whose iterator is `name` in the current kernel, or -1. */
static int mapped_member(const printer *pr, const char *name)
{
    for (int q = 0; pr->k && q < pr->k->n_mapped; q++) {
        char it[32];
        snprintf(it, sizeof it, "c%zu", pr->k->depth + (size_t)q);
        if (strcmp(name, it) == 0)
            return q;
    }
    return -1;
}

/* The first statement an AST subtree runs, or -1. */
static size_t first_stmt(const printer *pr, isl_ast_node *node)
{
    size_t s = (size_t)-1;
    isl_ast_node *kid = NULL;
    switch (isl_ast_node_get_type(node)) {
    case isl_ast_node_user: {
        isl_ast_expr *call = isl_ast_node_user_get_expr(node);
        isl_ast_expr *fn = isl_ast_expr_op_get_arg(call, 0);
        isl_id *id = isl_ast_expr_get_id(fn);
        s = stmt_named(pr->m, isl_id_get_name(id));
        isl_id_free(id);
        isl_ast_expr_free(fn);
        isl_ast_expr_free(call);
        return s;
    }
    case isl_ast_node_for:
        kid = isl_ast_node_for_get_body(node);
        break;
    case isl_ast_node_if:
        kid = isl_ast_node_if_get_then_node(node);
        break;
    case isl_ast_node_mark:
        kid = isl_ast_node_mark_get_node(node);
        break;
    case isl_ast_node_block: {
        isl_ast_node_list *l = isl_ast_node_block_get_children(node);
        kid = isl_ast_node_list_get_at(l, 0);
        isl_ast_node_list_free(l);
        break;
    }
    default:
        return s;
    }
    s = first_stmt(pr, kid);
    isl_ast_node_free(kid);
    return s;
}

/* Inside a warp-per-row kernel, the lane role of the AST loop `name` (the dimension just
 * below the mapped one), and the C loop it is; 0 elsewhere. */
static int lane_loop(const printer *pr, isl_ast_node *node, const char *name, size_t *loop)
{
    char it[32];
    if (!pr->k || !pr->k->warp_rows || pr->lanes)
        return 0;
    snprintf(it, sizeof it, "c%zu", pr->k->depth + 1);
    if (strcmp(name, it) != 0)
        return 0;
    size_t s = first_stmt(pr, node);
    if (s == (size_t)-1 || pr->m->stmts[s].n_loops <= pr->k->depth + 1)
        return 0;
    *loop = pr->m->stmts[s].loops[pr->k->depth + 1];
    return pr->p->lane_role[*loop];
}

/* The shuffles that combine the lanes' values of v (operation op, type t) into lane 0's. */
void tr_print_warp_combine(printer *pr, const char *v, const char *op, ch_scalar t,
                           const char *whose, int indent)
{
    ch_strbuf *out = pr->out;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_o = 16; ch_o > 0; ch_o /= 2) /* %s %ss of %s */\n", whose,
                   strcmp(op, "+") == 0 ? "sum" : op, v);
    tr_indent_to(out, indent + 1);
    if (strcmp(op, "+") == 0)
        ch_strbuf_addf(out, "%s += __shfl_down_sync(0xffffffffu, %s, ch_o);\n", v, v);
    else if (ch_scalar_is_float(t))
        ch_strbuf_addf(out, "%s = %s(%s, __shfl_down_sync(0xffffffffu, %s, ch_o));\n", v,
                       strcmp(op, "max") == 0 ? (t == CH_T_FLOAT ? "fmaxf" : "fmax")
                                              : (t == CH_T_FLOAT ? "fminf" : "fmin"),
                       v, v);
    else
        ch_strbuf_addf(out,
                       "{\n%*s%s ch_u = __shfl_down_sync(0xffffffffu, %s, ch_o);\n%*s%s = ch_u "
                       "%s %s ? ch_u : %s;\n%*s}\n",
                       4 * (indent + 2), "", ch_scalar_name(t), v, 4 * (indent + 2), "", v,
                       strcmp(op, "max") == 0 ? ">" : "<", v, v, 4 * (indent + 1), "");
}

/* Before a reduction loop spread over the lanes: every lane but 0 starts its part from the
 * operation's identity (lane 0 keeps the value the sum starts from); after it: the lanes'
 * parts combined with shuffles and lane 0's result given to every lane, which all continue
 * with the same value. */
static void lane_reduction(printer *pr, size_t loop, int after, int indent)
{
    size_t a = pr->p->lane_red[loop];
    const char *op = pr->p->lane_op[loop];
    const char *v = pr->m->arrays[a].name;
    ch_scalar t = ch_tr_array_elem(pr->m, a);
    ch_strbuf *out = pr->out;
    if (!after) {
        tr_indent_to(out, indent);
        if (strcmp(op, "+") == 0)
            ch_strbuf_addf(out, "if (ch_lane != 0) /* %s 0 keeps the start value */\n%*s%s = 0;\n",
                           pr->block_rows ? "thread" : "lane", 4 * (indent + 1), "", v);
        else
            ch_strbuf_addf(out, "/* %s: each %s may start from %s's value */\n", op,
                           pr->block_rows ? "thread" : "lane", v);
        return;
    }
    if (pr->block_rows) {
        tr_rowwise_reduce(pr, v, op, t, indent);
        return;
    }
    tr_print_warp_combine(pr, v, op, t, "the lanes'", indent);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "%s = __shfl_sync(0xffffffffu, %s, 0);\n", v, v);
}

/* `init + (ch_b0 + off) * inc` for the c0 loop f. */
static void print_row_value(printer *pr, isl_ast_node *f, const char *off)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *init = isl_ast_node_for_get_init(f), *inc = isl_ast_node_for_get_inc(f);
    if (!is_int(init, 0)) {
        tr_print_expr(pr, out, init);
        ch_strbuf_adds(out, " + ");
    }
    ch_strbuf_addf(out, "(ch_b0%s)", off);
    if (!is_int(inc, 1)) {
        ch_strbuf_adds(out, " * ");
        tr_print_expr(pr, out, inc);
    }
    isl_ast_expr_free(init);
    isl_ast_expr_free(inc);
}

/* `const long long c0 = <row>; if (!(cond)) break;` for the c0 loop f; the row is row + off
 * (off NULL: the group's first row, ch_r0). */
static void print_row_check(printer *pr, isl_ast_node *f, const char *name, const char *off,
                            int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *cond = isl_ast_node_for_get_cond(f);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "const long long %s = ", name);
    if (off)
        print_row_value(pr, f, off);
    else
        ch_strbuf_adds(out, "ch_r0");
    ch_strbuf_adds(out, ";\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "if (!(");
    tr_print_expr(pr, out, cond);
    ch_strbuf_adds(out, "))\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "break;\n");
    isl_ast_expr_free(cond);
}

/* The c0 loop of a kernel whose threads each run pr->rows consecutive values of c0 (the rows
 * variant): groups of rows, grid-stride; the rows of a group are unrolled inside the c1 loop
 * (print_rows_body), so that nvcc reuses between them what neighbouring rows both load (a
 * stencil's rows above and below: on the H200 a 5-point stencil went from 38% to 72% of the
 * copy floor with 4). nvcc only sees that they are the same loads when the int counters are
 * the group's first row, ch_r0, plus ch_t0 (is_row_counter). The loop's condition is an upper
 * bound on the iterator (isl's for nodes with a positive step): the first row that fails it
 * ends the group, and the groups. */
static void print_rows_loop(printer *pr, isl_ast_node *node, const char *name, int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_node *body = isl_ast_node_for_get_body(node);
    ch_strbuf_addf(out,
                   "for (long long ch_b0 = ch_g0;; ch_b0 += ch_n0) { /* %d values of %s a "
                   "thread (grid-stride) */\n",
                   pr->rows, name);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long ch_r0 = ");
    print_row_value(pr, node, "");
    ch_strbuf_adds(out, "; /* the group's first row */\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "{\n");
    print_row_check(pr, node, name, NULL, indent + 2);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    assert(!pr->rows_for);
    pr->rows_for = node;
    print_node(pr, body, indent + 1);
    pr->rows_for = NULL;
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    isl_ast_node_free(body);
}

/* The body of the c1 loop inside a group of rows: the rows, unrolled. */
static void print_rows_body(printer *pr, isl_ast_node *body, int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *it = isl_ast_node_for_get_iterator(pr->rows_for);
    isl_id *id = isl_ast_expr_get_id(it);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_t0 = 0; ch_t0 < %d; ch_t0++) { /* the group's rows */\n",
                   pr->rows);
    print_row_check(pr, pr->rows_for, isl_id_get_name(id), " + ch_t0", indent + 1);
    int was = pr->covered[0];
    pr->covered[0] = 1;
    print_node(pr, body, indent + 1);
    pr->covered[0] = was;
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    isl_id_free(id);
    isl_ast_expr_free(it);
}

/* --- groups of values of c1 with 16-byte loads (the columns variant, cols.c) --- */

/* `const long long c1 = <value>; ch_vec = ch_vec && (cond);` in a block: whether that value of
 * the group's c1 loop passes the loop's bounds (lower ones too when `lower`). */
static void print_cols_in_loop(printer *pr, const char *value, const char *flag, int lower,
                               int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_node *f = pr->cols_for;
    isl_ast_expr *it = isl_ast_node_for_get_iterator(f), *init = isl_ast_node_for_get_init(f);
    isl_ast_expr *cond = isl_ast_node_for_get_cond(f);
    isl_id *id = isl_ast_expr_get_id(it);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "{\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long %s = %s;\n", isl_id_get_name(id), value);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "%s = %s && ", flag, flag);
    if (lower) {
        ch_strbuf_addf(out, "%s >= ", isl_id_get_name(id));
        tr_print_expr(pr, out, init);
        ch_strbuf_adds(out, " && ");
    }
    ch_strbuf_adds(out, "(");
    tr_print_expr(pr, out, cond);
    ch_strbuf_adds(out, ");\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    isl_id_free(id);
    isl_ast_expr_free(it);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
}

/* The vector path's loads: each read's window, vectors lo .. hi from its first column. */
static void print_cols_windows(printer *pr, const tr_cols *c, int indent)
{
    ch_strbuf *out = pr->out;
    const char *t = ch_scalar_name(c->elem), *vt = c->elem == CH_T_DOUBLE ? "double2" : "float4";
    for (size_t i = 0; i < c->n_reads; i++) {
        const tr_cols_access *a = &c->reads[i];
        tr_indent_to(out, indent);
        ch_strbuf_addf(out, "%s ch_w%zu[%d];\n", t, i, (a->hi - a->lo + 1) * c->v);
        for (int m = a->lo; m <= a->hi; m++) {
            tr_indent_to(out, indent);
            ch_strbuf_addf(out, "{\n");
            tr_indent_to(out, indent + 1);
            ch_strbuf_addf(out, "const %s ch_v = *(const %s *)(ch_p%zu + %d);\n", vt, vt, i,
                           m * c->v);
            for (int e = 0; e < c->v; e++) {
                tr_indent_to(out, indent + 1);
                ch_strbuf_addf(out, "ch_w%zu[%d] = ch_v.%c;\n", i, (m - a->lo) * c->v + e,
                               "xyzw"[e]);
            }
            tr_indent_to(out, indent);
            ch_strbuf_addf(out, "}\n");
        }
    }
}

/* The addresses of the group's first column (declared when `decl`, else assigned) and whether
 * they allow the vector path, and'ed into `flag`: 16-byte aligned, every vector of a window
 * inside its array. */
static void print_cols_addresses(printer *pr, isl_ast_node *node, const tr_cols *c, int indent,
                                 int decl, const char *flag)
{
    ch_strbuf *out = pr->out;
    const char *t = ch_scalar_name(c->elem);
    isl_ast_expr *call = isl_ast_node_user_get_expr(node);
    print_bindings(pr, call, c->stmt, indent - 1);
    isl_ast_expr_free(call);
    for (size_t i = 0; i < c->n_reads; i++) {
        tr_indent_to(out, indent);
        if (decl)
            ch_strbuf_addf(out, "const %s *ch_p%zu = &", t, i);
        else
            ch_strbuf_addf(out, "ch_p%zu = &", i);
        tr_print_plain_expr(pr, c->reads[i].node, out);
        ch_strbuf_addf(out, " - (%ld);\n", c->reads[i].d);
    }
    tr_indent_to(out, indent);
    if (decl)
        ch_strbuf_addf(out, "%s *ch_q = &", t);
    else
        ch_strbuf_adds(out, "ch_q = &");
    tr_print_plain_expr(pr, c->target.node, out);
    ch_strbuf_adds(out, ";\n");
    if (!flag)
        return;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "%s = %s && ((size_t)ch_q & 15) == 0", flag, flag);
    for (size_t i = 0; i < c->n_reads; i++) {
        const tr_cols_access *a = &c->reads[i];
        char *ext = tr_extent_text(a->pa);
        ch_strbuf_adds(out, " &&\n");
        tr_indent_to(out, indent + 2);
        ch_strbuf_addf(out,
                       "((size_t)ch_p%zu & 15) == 0 && ch_p%zu + %d >= %s && ch_p%zu + %d <= %s + "
                       "(size_t)(%s)",
                       i, i, a->lo * c->v, a->pa->name, i, (a->hi + 1) * c->v, a->pa->name, ext);
        free(ext);
    }
    ch_strbuf_adds(out, ";\n");
}

/* The vector path: the windows' loads, the values of the group's columns, one 16-byte store. */
static void print_cols_vector(printer *pr, const tr_cols *c, int indent)
{
    ch_strbuf *out = pr->out;
    const char *t = ch_scalar_name(c->elem), *vt = c->elem == CH_T_DOUBLE ? "double2" : "float4";
    print_cols_windows(pr, c, indent);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "%s ch_o[%d];\n", t, c->v);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_t1 = 0; ch_t1 < %d; ch_t1++) {\n", c->v);
    pr->cols_on = 1;
    ch_cx cx = {.entry = pr->e,
                .out = out,
                .rename = rename_var,
                .ctx = pr,
                .exact_mul = 1,
                .access = tr_cols_access_hook};
    ch_cx_stmt(&cx, c->stmt->ir, indent + 1);
    pr->cols_on = 0;
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "*(%s *)ch_q = make_%s(", vt, vt);
    for (int e = 0; e < c->v; e++)
        ch_strbuf_addf(out, "%sch_o[%d]", e ? ", " : "", e);
    ch_strbuf_adds(out, ");\n");
}

/* The statement for the thread's group of values of c1 (from ch_c1): 16-byte loads and store
 * where the group is whole and the addresses allow it, else value by value (cols.c). */
static void print_cols_user(printer *pr, isl_ast_node *node, int indent)
{
    ch_strbuf *out = pr->out;
    const tr_cols *c = pr->colplan;
    const ch_tr_stmt *s = c->stmt;
    const char *t = ch_scalar_name(c->elem);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out,
                   "{ /* %s (%s:%u) for %d values of c1 from ch_c1: 16-byte loads and stores "
                   "where the\n",
                   s->name, pr->e->file, s->line, c->v);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "   * group is whole and the addresses allow them, else one by one */\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "int ch_vec = 1;\n");
    print_cols_in_loop(pr, "ch_c1", "ch_vec", 1, indent + 1);
    char *last = ch_xasprintf("ch_c1 + %d", c->v - 1);
    print_cols_in_loop(pr, last, "ch_vec", 0, indent + 1);
    free(last);
    for (size_t i = 0; i < c->n_reads; i++) {
        tr_indent_to(out, indent + 1);
        ch_strbuf_addf(out, "const %s *ch_p%zu = NULL;\n", t, i);
    }
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "%s *ch_q = NULL;\n", t);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (ch_vec) {\n");
    isl_ast_expr *it = isl_ast_node_for_get_iterator(pr->cols_for);
    isl_id *id = isl_ast_expr_get_id(it);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long %s = ch_c1;\n", isl_id_get_name(id));
    print_cols_addresses(pr, node, c, indent + 2, 0, "ch_vec");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (ch_vec) {\n");
    print_cols_vector(pr, c, indent + 2);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "} else {\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "for (int ch_t1 = 0; ch_t1 < %d; ch_t1++) {\n", c->v);
    tr_indent_to(out, indent + 3);
    ch_strbuf_adds(out, "int ch_in = 1;\n");
    print_cols_in_loop(pr, "ch_c1 + ch_t1", "ch_in", 1, indent + 3);
    tr_indent_to(out, indent + 3);
    ch_strbuf_addf(out, "if (ch_in) {\n");
    tr_indent_to(out, indent + 4);
    ch_strbuf_addf(out, "const long long %s = ch_c1 + ch_t1;\n", isl_id_get_name(id));
    pr->cols_on = 2; /* the statement as the rows variant prints it */
    tr_print_user(pr, node, indent + 4);
    pr->cols_on = 0;
    tr_indent_to(out, indent + 3);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    isl_id_free(id);
    isl_ast_expr_free(it);
}

/* The group's rows: when every row of the group is inside and every address allows it, the
 * vector path of all rows in one unrolled loop without checks, so that nvcc loads once what
 * neighbouring rows both read (the row below's window is this row's); else row by row, each
 * checking its own (print_cols_user). */
static void print_cols_rows(printer *pr, isl_ast_node *body, int indent)
{
    ch_strbuf *out = pr->out;
    const tr_cols *c = pr->colplan;
    isl_ast_node *f = pr->rows_for;
    isl_ast_expr *cond = isl_ast_node_for_get_cond(f), *it = isl_ast_node_for_get_iterator(f);
    isl_ast_expr *it1 = isl_ast_node_for_get_iterator(pr->cols_for);
    isl_id *id = isl_ast_expr_get_id(it), *id1 = isl_ast_expr_get_id(it1);
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "const long long ch_c1 = ch_q1 * %d;\n", c->v);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "int ch_all = 1; /* the whole group, every address 16-byte aligned */\n");
    print_cols_in_loop(pr, "ch_c1", "ch_all", 1, indent);
    char *last = ch_xasprintf("ch_c1 + %d", c->v - 1);
    print_cols_in_loop(pr, last, "ch_all", 0, indent);
    free(last);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "for (int ch_t0 = 0; ch_t0 < %d; ch_t0++) {\n", pr->rows);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long %s = ", isl_id_get_name(id));
    print_row_value(pr, f, " + ch_t0");
    ch_strbuf_adds(out, ";\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "ch_all = ch_all && (");
    tr_print_expr(pr, out, cond);
    ch_strbuf_adds(out, ");\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (ch_all) {\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long %s = ch_c1;\n", isl_id_get_name(id1));
    print_cols_addresses(pr, body, c, indent + 2, 1, "ch_all");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "if (ch_all) { /* the group's rows without checks */\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "#pragma unroll\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "for (int ch_t0 = 0; ch_t0 < %d; ch_t0++) {\n", pr->rows);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "const long long %s = ch_c1;\n", isl_id_get_name(id1));
    print_cols_addresses(pr, body, c, indent + 2, 1, NULL);
    print_cols_vector(pr, c, indent + 2);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "} else {\n");
    print_rows_body(pr, body, indent + 1);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    isl_id_free(id);
    isl_id_free(id1);
    isl_ast_expr_free(it);
    isl_ast_expr_free(it1);
    isl_ast_expr_free(cond);
}

/* The c1 loop of a columns kernel: each thread runs groups of v values of c1 that start at a
 * multiple of v (ch_q1 numbers them), grid-stride; a group whose first value fails the loop's
 * upper bound ends them. Inside, the group's rows as in the rows variant. */
static void print_cols_loop(printer *pr, isl_ast_node *node, const char *name, int indent)
{
    ch_strbuf *out = pr->out;
    int v = pr->colplan->v;
    isl_ast_expr *init = isl_ast_node_for_get_init(node);
    ch_strbuf lo;
    ch_strbuf_init(&lo);
    tr_print_expr(pr, &lo, init);
    isl_ast_expr_free(init);
    ch_strbuf_addf(out,
                   "for (long long ch_q1 = ((%s) >= 0 ? (%s) / %d : -((%d - 1 - (%s)) / %d)) + "
                   "ch_g1;; ch_q1 += ch_n1) { /* %d values of %s a thread from a multiple of %d "
                   "(grid-stride) */\n",
                   lo.data, lo.data, v, v, lo.data, v, v, name, v);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "int ch_go = 1;\n");
    pr->cols_for = node;
    char *first = ch_xasprintf("ch_q1 * %d < (%s) ? (%s) : ch_q1 * %d", v, lo.data, lo.data, v);
    print_cols_in_loop(pr, first, "ch_go", 0, indent + 1);
    free(first);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (!ch_go)\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_adds(out, "break;\n");
    isl_ast_node *body = isl_ast_node_for_get_body(node);
    int was = pr->covered[1];
    pr->covered[1] = 1;
    print_cols_rows(pr, body, indent + 1);
    pr->covered[1] = was;
    pr->cols_for = NULL;
    isl_ast_node_free(body);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    ch_strbuf_free(&lo);
}

static void print_for(printer *pr, isl_ast_node *node, int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
    isl_id *id = isl_ast_expr_get_id(it);
    const char *name = isl_id_get_name(id);
    isl_ast_expr *init = isl_ast_node_for_get_init(node);
    isl_ast_node *body = isl_ast_node_for_get_body(node);
    int q = mapped_member(pr, name);
    int host = !pr->k;
    size_t lane_l = 0;
    int lane = isl_ast_node_for_is_degenerate(node) != isl_bool_true
                   ? lane_loop(pr, node, name, &lane_l)
                   : 0;
    if (lane == CH_TR_LANES_REDUCTION)
        lane_reduction(pr, lane_l, 0, indent);
    tr_indent_to(out, indent);
    if (isl_ast_node_for_is_degenerate(node) == isl_bool_true) {
        if (q >= 0)
            ch_strbuf_addf(out, "if (ch_g%d == 0) { /* %s takes one value here */\n", q, name);
        else
            ch_strbuf_adds(out, "{\n");
        tr_indent_to(out, indent + 1);
        ch_strbuf_addf(out, "const long long %s = ", name);
        tr_print_expr(pr, out, init);
        ch_strbuf_adds(out, ";\n");
    } else if (lane && pr->regs_on) {
        tr_rowregs_loop_open(pr, node, name, indent);
    } else if (q == 1 && pr->rows_for && pr->colplan) {
        print_cols_loop(pr, node, name, indent);
        isl_ast_expr_free(init);
        isl_ast_node_free(body);
        isl_ast_expr_free(it);
        isl_id_free(id);
        return;
    } else if (q == 0 && pr->rows > 1) {
        print_rows_loop(pr, node, name, indent);
        isl_ast_expr_free(init);
        isl_ast_node_free(body);
        isl_ast_expr_free(it);
        isl_id_free(id);
        return;
    } else {
        isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
        isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
        int unit = is_int(inc, 1);
        ch_strbuf_addf(out, "for (long long %s = ", name);
        if (q < 0 || !is_int(init, 0))
            tr_print_expr(pr, out, init);
        if (lane) {
            ch_strbuf_adds(out, " + ch_lane");
            if (!unit) {
                ch_strbuf_adds(out, " * ");
                tr_print_expr(pr, out, inc);
            }
        }
        if (q >= 0) {
            ch_strbuf_addf(out, "%sch_g%d", is_int(init, 0) ? "" : " + ", q);
            if (!unit) {
                ch_strbuf_adds(out, " * ");
                tr_print_expr(pr, out, inc);
            }
        }
        ch_strbuf_adds(out, "; ");
        tr_print_expr(pr, out, cond);
        ch_strbuf_addf(out, "; %s", name);
        if (q >= 0) {
            ch_strbuf_addf(out, " += ch_n%d", q);
            if (!unit) {
                ch_strbuf_adds(out, " * ");
                tr_print_expr(pr, out, inc);
            }
        } else if (lane) {
            ch_strbuf_adds(out, pr->block_rows ? " += blockDim.x" : " += 32");
            if (!unit) {
                ch_strbuf_adds(out, " * ");
                tr_print_expr(pr, out, inc);
            }
        } else if (unit) {
            ch_strbuf_adds(out, "++");
        } else {
            ch_strbuf_adds(out, " += ");
            tr_print_expr(pr, out, inc);
        }
        ch_strbuf_addf(out, ") {%s\n",
                       q >= 0 && pr->block_rows     ? " /* a block per value (grid-stride) */"
                       : q >= 0 && pr->k->warp_rows ? " /* a warp per value (grid-stride) */"
                       : q >= 0                     ? " /* spread over the threads (grid-stride) */"
                       : host                   ? " /* carries a dependence: runs on the host */"
                       : lane && pr->block_rows ? lane == CH_TR_LANES_PARALLEL
                                                      ? " /* spread over the block's threads */"
                                                      : " /* a reduction spread over the "
                                                        "block's threads */"
                       : lane == CH_TR_LANES_PARALLEL ? " /* spread over the warp's lanes */"
                       : lane                         ? " /* a reduction spread over the lanes */"
                                                      : "");
        isl_ast_expr_free(cond);
        isl_ast_expr_free(inc);
    }
    if (host)
        ch_strvec_push(&pr->host_iters, name);
    int was = q >= 0 ? pr->covered[q] : 0;
    if (q >= 0)
        pr->covered[q] = 1;
    pr->lanes += lane != 0;
    if (q == 1 && pr->rows_for)
        print_rows_body(pr, body, indent + 1);
    else if (q == 0 && pr->regs)
        tr_rowregs_row(pr, body, indent + 1);
    else if (lane && pr->regs_on)
        print_node(pr, body, indent + 2);
    else
        print_node(pr, body, indent + 1);
    if (lane && pr->regs_on)
        tr_rowregs_loop_close(pr, indent);
    pr->lanes -= lane != 0;
    if (q >= 0)
        pr->covered[q] = was;
    if (host)
        free(pr->host_iters.items[--pr->host_iters.len]);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
    if (lane == CH_TR_LANES_REDUCTION)
        lane_reduction(pr, lane_l, 1, indent);
    if (lane) {
        /* what the lanes wrote, every lane sees before the next loop reads it */
        tr_indent_to(out, indent);
        ch_strbuf_adds(out, lanes_sync(pr));
    }
    isl_ast_node_free(body);
    isl_ast_expr_free(init);
    isl_id_free(id);
    isl_ast_expr_free(it);
}

static void print_if(printer *pr, isl_ast_node *node, int indent)
{
    ch_strbuf *out = pr->out;
    isl_ast_expr *cond = isl_ast_node_if_get_cond(node);
    isl_ast_node *then = isl_ast_node_if_get_then_node(node);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "if ");
    tr_print_expr(pr, out, cond);
    ch_strbuf_adds(out, " {\n");
    print_node(pr, then, indent + 1);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}");
    if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
        isl_ast_node *els = isl_ast_node_if_get_else_node(node);
        ch_strbuf_adds(out, " else {\n");
        print_node(pr, els, indent + 1);
        tr_indent_to(out, indent);
        ch_strbuf_adds(out, "}");
        isl_ast_node_free(els);
    }
    ch_strbuf_addc(out, '\n');
    isl_ast_node_free(then);
    isl_ast_expr_free(cond);
}

static const char *axis_of(const ch_tr_kernel *k, int q)
{
    return q == k->n_mapped - 1 ? "x" : "y";
}

/* The kernels' parameter list (decl: "double *A, long long c0") or the launch's arguments
 * ("(double *)ch_d_A, c0"): the entry's parameters, the local arrays, the scalar struct and the
 * host loops' iterators in scope, in that order. */
/* The qualifier of a kernel's array parameters. Under the host-pointer convention every
 * array reaches the kernels in a device buffer of its own (the launcher's or the runtime's
 * copy), so no two parameters alias: __restrict__ lets nvcc keep loads in flight across the
 * stores of a grid-stride loop and reuse them between unrolled iterations (on the H200 a copy
 * loop went from 73% to 90% of the device copy floor). Device pointers come from the caller
 * and may overlap: no qualifier. */
const char *tr_restrict(const printer *pr)
{
    return pr->e->clauses.device ? "" : "__restrict__ ";
}

void tr_kernel_params(printer *pr, ch_strbuf *out, int decl)
{
    const ch_entry *e = pr->e;
    const char *sep = "";
    for (size_t i = 0; i < e->n_params; i++, sep = ", ") {
        const ch_param *p = &e->params[i];
        const char *t = ch_scalar_name(p->elem);
        if (p->role == CH_ROLE_SCALAR)
            ch_strbuf_addf(out, decl ? "%s%s %s" : "%s%.0s%s", sep, t, p->name);
        else if (decl) /* restrict: see tr_restrict() */
            ch_strbuf_addf(out, "%s%s%s *%s%s", sep, p->is_const ? "const " : "", t,
                           tr_restrict(pr), p->name);
        else /* the device launcher's parameters are device pointers */
            ch_strbuf_addf(out, "%s%s", sep, p->name);
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->m->arrays[a].local_elems) {
            const char *t = ch_scalar_name(ch_cx_local_type(e, pr->m->arrays[a].name));
            if (decl)
                ch_strbuf_addf(out, "%s%s *%s%s", sep, t, tr_restrict(pr), pr->m->arrays[a].name);
            else
                ch_strbuf_addf(out, "%s(%s *)ch_d_%s", sep, t, pr->m->arrays[a].name);
            sep = ", ";
        }
    if (pr->any_device) {
        ch_strbuf_addf(out, decl ? "%s%s_scalars *ch_s" : "%s(%s_scalars *)ch_d_ch_s", sep,
                       e->name);
        sep = ", ";
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->p->storage[a] == CH_TR_THREAD_COPY) {
            /* no __restrict__: the copies' pointers and the array's meet in ch_c_NAME */
            const char *t = ch_scalar_name(ch_tr_array_elem(pr->m, a));
            ch_strbuf_addf(out, decl ? "%s%s *ch_copy_%s" : "%s(%s *)ch_d_ch_copy_%s", sep, t,
                           pr->m->arrays[a].name);
            sep = ", ";
        }
    for (size_t i = 0; i < pr->host_iters.len; i++, sep = ", ")
        ch_strbuf_addf(out, "%s%s%s", sep, decl ? "long long " : "", pr->host_iters.items[i]);
    if (decl && !*sep)
        ch_strbuf_adds(out, "void");
}

/* The statements a kernel function runs: those of the kernels of marks[0..n). */
static void comment_stmts(const printer *pr, ch_strbuf *out, isl_ast_node **marks, size_t n)
{
    const ch_tr_model *m = pr->m;
    for (size_t s = 0; s < m->n_stmts; s++) {
        isl_union_set *one = isl_union_set_from_set(isl_set_copy(m->stmts[s].domain));
        int in = 0;
        for (size_t i = 0; i < n && !in; i++)
            in = isl_union_set_is_subset(
                     one, pr->p->kernels[tr_mark_kernel(pr, marks[i])].domain) == isl_bool_true;
        if (in)
            ch_strbuf_addf(out, " %s (line %u)", m->stmts[s].name, m->stmts[s].line);
        isl_union_set_free(one);
    }
}

static void kernel_comment(printer *pr, ch_strbuf *out, isl_ast_node **marks, size_t n, size_t fn)
{
    const ch_tr_kernel *k = &pr->p->kernels[tr_mark_kernel(pr, marks[0])];
    ch_strbuf_addf(out, "/* Kernel %zu runs", fn);
    comment_stmts(pr, out, marks, n);
    ch_strbuf_adds(out, ".\n");
    if (k->n_mapped == 0) {
        ch_strbuf_adds(out, " * Every loop here carries a dependence (or there is none): one "
                            "thread runs them in\n * order, so that the data stays on the "
                            "device between the parallel kernels.\n");
    } else if (pr->block_rows) {
        tr_rowwise_comment(k, out);
        if (pr->regs)
            tr_rowregs_comment(pr, out);
    } else {
        for (int q = 0; q < k->n_mapped; q++)
            ch_strbuf_addf(out,
                           " * c%zu -> %s: no dependence is carried by this dimension of the "
                           "schedule (checked\n *   with isl), so its values run on different "
                           "threads, grid-stride.\n",
                           k->depth + (size_t)q, axis_of(k, q));
        if (k->n_mapped == 2)
            ch_strbuf_addf(out, " * The inner one is on x, so that neighbouring threads of a "
                                "warp take neighbouring\n * values of it (usually the "
                                "unit-stride subscript).\n");
        ch_strbuf_adds(out, " * Deeper dimensions run in order inside each thread (the statement "
                            "blocks bind the C\n * loop counters to them).\n");
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++) {
        int used = 0;
        for (size_t i = 0; i < n; i++)
            used |= pr->p->uses[tr_mark_kernel(pr, marks[i]) * pr->m->n_arrays + a];
        if (pr->p->storage[a] != CH_TR_THREAD_COPY || !used)
            continue;
        const char *name = pr->m->arrays[a].name;
        ch_strbuf_addf(out,
                       " * %s lives within one iteration of loop %s (each one writes what it "
                       "reads): it is\n *   what keeps the loops around it sequential in C, "
                       "so each thread works on its own\n *   copy (ch_mine_%s), and the last "
                       "iteration on %s itself%s.\n",
                       name, pr->m->loops[pr->p->copy_loop[a]].counter, name, name,
                       pr->m->arrays[a].decl
                           ? ""
                           : ", which then holds what the C\n *   body leaves there (that "
                             "iteration writes every element any iteration writes)");
    }
    if (pr->host_iters.len)
        ch_strbuf_addf(out,
                       " * Launched once per iteration of the host loop%s over %s..%s, "
                       "passed as arguments.\n",
                       pr->host_iters.len > 1 ? "s" : "", pr->host_iters.items[0],
                       pr->host_iters.items[pr->host_iters.len - 1]);
    ch_strbuf_adds(out, " */\n");
}

size_t tr_mark_kernel(const printer *pr, isl_ast_node *node)
{
    isl_id *id = isl_ast_node_mark_get_id(node);
    size_t ki = (size_t)(uintptr_t)isl_id_get_user(id) - 1;
    isl_id_free(id);
    assert(ki < pr->p->n_kernels);
    return ki;
}

/* The end of a launch block opened at `indent` with an `if` inside: a launch error ends the
 * call early. */
void tr_close_launch(ch_strbuf *out, int indent)
{
    tr_indent_to(out, indent + 2);
    ch_strbuf_adds(out, "if (cudaPeekAtLastError() != cudaSuccess)\n");
    tr_indent_to(out, indent + 3);
    ch_strbuf_adds(out, "return (int)cudaGetLastError();\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

/* --- prefix sums: a kernel template (templates/scan.cu) filled from the plan --- */

/* Embedded by tools/embed.sh (build/gen/templates.c). */
extern const struct ch_embedded_file ch_template_files[];

/* The names of the kernel parameters (tr_kernel_params' declarations), for calls inside the
 * kernels. */
static void kernel_arg_names(printer *pr, ch_strbuf *out)
{
    const char *sep = "";
    for (size_t i = 0; i < pr->e->n_params; i++, sep = ", ")
        ch_strbuf_addf(out, "%s%s", sep, pr->e->params[i].name);
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->m->arrays[a].local_elems) {
            ch_strbuf_addf(out, "%s%s", sep, pr->m->arrays[a].name);
            sep = ", ";
        }
    if (pr->any_device) {
        ch_strbuf_addf(out, "%sch_s", sep);
        sep = ", ";
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->p->storage[a] == CH_TR_THREAD_COPY) {
            ch_strbuf_addf(out, "%sch_copy_%s", sep, pr->m->arrays[a].name);
            sep = ", ";
        }
}

/* An isl piecewise expression over the parameters as C (consumes pa). */
void tr_print_param_expr(printer *pr, ch_strbuf *out, isl_pw_aff *pa)
{
    isl_ast_build *b =
        isl_ast_build_from_context(isl_set_universe(isl_space_params(isl_pw_aff_get_space(pa))));
    isl_ast_expr *x = isl_ast_build_expr_from_pw_aff(b, pa);
    if (x)
        tr_print_expr(pr, out, x);
    else
        ch_strbuf_adds(out, "0");
    isl_ast_expr_free(x);
    isl_ast_build_free(b);
}

/* The launches of a prefix-sum kernel at `indent`. */
static void print_scan_launch(printer *pr, const ch_tr_kernel *k, size_t fn, const char *t,
                              int indent)
{
    const ch_tr_stmt *U = &pr->m->stmts[k->reduction];
    const char *n = pr->e->name;
    ch_strbuf *out = pr->out;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "{ /* kernel %zu: a prefix sum in three launches */\n", fn);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "const long long ch_e0 = ");
    tr_print_param_expr(pr, out, isl_pw_aff_copy(k->extent[0]));
    ch_strbuf_adds(out, ", ch_lo = ");
    tr_print_param_expr(pr, out, isl_set_dim_min(isl_set_copy(U->domain), 0));
    ch_strbuf_adds(out, ";\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (ch_e0 > 0) {\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out,
                   "const long long ch_tiles = (ch_e0 + 2047) / 2048;\n%*sstatic void "
                   "*ch_d_part%zu = NULL;\n%*sstatic size_t ch_d_part%zu_bytes = 0;\n",
                   4 * (indent + 2), "", fn, 4 * (indent + 2), "", fn);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out,
                   "if (%s_reserve(&ch_d_part%zu, &ch_d_part%zu_bytes, (size_t)ch_tiles * "
                   "sizeof(%s)) != 0)\n",
                   n, fn, fn, t);
    tr_indent_to(out, indent + 3);
    ch_strbuf_adds(out, "return (int)cudaErrorMemoryAllocation;\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu_tiles<<<(unsigned)ch_tiles, 256>>>(", n, fn);
    tr_kernel_params(pr, out, 0);
    ch_strbuf_addf(out, ", ch_lo, ch_e0, (%s *)ch_d_part%zu);\n", t, fn);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu_spine<<<1, 1024>>>((%s *)ch_d_part%zu, ch_tiles", n, fn, t, fn);
    if (pr->any_device)
        ch_strbuf_addf(out, ", (%s_scalars *)ch_d_ch_s", n);
    ch_strbuf_adds(out, ");\n");
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu<<<(unsigned)ch_tiles, 256>>>(", n, fn);
    tr_kernel_params(pr, out, 0);
    ch_strbuf_addf(out, ", ch_lo, ch_e0, (const %s *)ch_d_part%zu);\n", t, fn);
    tr_close_launch(out, indent);
}

/* A prefix-sum kernel (schedule.c's scan_of): its three functions from the template, and their
 * launches at `indent`. */
static void print_scan(printer *pr, const ch_tr_kernel *k, size_t fn, int indent)
{
    const ch_tr_stmt *U = &pr->m->stmts[k->reduction], *W = &pr->m->stmts[k->scan_store];
    const ch_tr_loop *L = &pr->m->loops[U->loops[0]];
    const char *acc = pr->m->arrays[U->red_array].name;
    const char *t = ch_scalar_name(ch_tr_array_elem(pr->m, U->red_array));
    ch_strbuf params, args, term, spine, k_s, upd, store;
    ch_strbuf *all[] = {&params, &args, &term, &spine, &k_s, &upd, &store};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ch_strbuf_init(all[i]);
    tr_kernel_params(pr, &params, 1);
    kernel_arg_names(pr, &args);
    ch_cx cx = {.entry = pr->e, .out = &term, .rename = rename_var, .ctx = pr, .exact_mul = 1};
    ch_cx_expr(&cx, U->ir->kids[0]->kids[1]);
    /* acc's value before the loop lives in device memory, set by an earlier kernel */
    const char *dev = rename_var(pr, acc);
    char init[128];
    snprintf(init, sizeof init, "%s", dev ? dev : "0");
    if (pr->any_device)
        ch_strbuf_addf(&spine, ", %s_scalars *ch_s", pr->e->name);
    ch_strbuf_addf(&k_s, "%zu", fn);
    ch_strbuf_addf(&upd, "%s (%s:%u)", U->name, pr->e->file, U->line);
    ch_strbuf_addf(&store, "%s (%s:%u)", W->name, pr->e->file, W->line);
    const char *step = k->scan_exclusive ? "        ch_tile[threadIdx.x * 8 + ch_q] = ch_at;\n"
                                           "        ch_at += ch_v[ch_q];"
                                         : "        ch_at += ch_v[ch_q];\n"
                                           "        ch_tile[threadIdx.x * 8 + ch_q] = ch_at;";
    const char *vars[] = {"K",
                          k_s.data,
                          "UPD",
                          upd.data,
                          "STORE",
                          store.data,
                          "Y",
                          W->ir->kids[0]->kids[0]->kids[0]->text,
                          "I",
                          L->counter,
                          "ACC",
                          acc,
                          "WHEN",
                          k->scan_exclusive ? "before" : "after",
                          "NAME",
                          pr->e->name,
                          "T",
                          t,
                          "CT",
                          tr_counter_type(pr, L),
                          "TERM",
                          term.data,
                          "PARAMS",
                          params.data,
                          "ARGS",
                          args.data,
                          "INIT",
                          init,
                          "SPINE_PARAMS",
                          spine.len ? spine.data : "",
                          "STEP",
                          step,
                          NULL};
    const char *tmpl = ch_embedded_text(ch_template_files, "scan.cu");
    assert(tmpl && "templates/scan.cu is built into the binary");
    char *code = ch_template_fill(tmpl, vars);
    ch_strbuf_adds(&pr->kernels, code);
    free(code);
    print_scan_launch(pr, k, fn, t, indent);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ch_strbuf_free(all[i]);
}

/* The elements of the array a kernel's scattered sum updates, when a copy per block fits shared
 * memory: a sum (not a minimum or maximum) of the kernel's only statement into a parameter whose
 * extent is a constant of at most 8192 elements of 4 or 8 bytes; else 0. */
static long long private_elems(const printer *pr, const ch_tr_kernel *k)
{
    if (!pr->o->block_private || !k->atomic_each || k->n_mapped != 1 || k->reduction == (size_t)-1)
        return 0;
    const ch_tr_stmt *S = &pr->m->stmts[k->reduction];
    if (strcmp(S->red_op, "+") != 0 || S->ir->kind != CH_IR_EXPR_STMT ||
        S->ir->kids[0]->kids[0]->kind != CH_IR_INDEX)
        return 0;
    isl_union_set *only = isl_union_set_from_set(isl_set_copy(S->domain));
    int alone = isl_union_set_is_equal(only, k->domain) == isl_bool_true;
    isl_union_set_free(only);
    const ch_param *p = ch_entry_param(pr->e, pr->m->arrays[S->red_array].name);
    if (!alone || !p || !p->extent || ch_scalar_size(p->elem) < 4)
        return 0;
    char *end = NULL;
    long long n = strtoll(p->extent, &end, 10);
    return end && *end == '\0' && n > 0 && n <= 8192 ? n : 0;
}

/* The most blocks of kernel k's launch along x: a kernel with a per-block copy takes the lower
 * private_grid_cap, since its flush costs one atomic per element of the copy and block. */
static long long launch_cap(const printer *pr, const ch_tr_kernel *k)
{
    long long cap = pr->o->grid_cap, priv = pr->o->private_grid_cap;
    return priv > 0 && priv < cap && private_elems(pr, k) ? priv : cap;
}

/* Whether the isl expression mentions the identifier `name`. */
int tr_mentions(isl_ast_expr *x, const char *name)
{
    if (!x)
        return 0;
    if (isl_ast_expr_get_type(x) == isl_ast_expr_id) {
        isl_id *id = isl_ast_expr_get_id(x);
        int same = strcmp(isl_id_get_name(id), name) == 0;
        isl_id_free(id);
        return same;
    }
    if (isl_ast_expr_get_type(x) != isl_ast_expr_op)
        return 0;
    int found = 0;
    for (int i = 0; !found && i < isl_ast_expr_op_get_n_arg(x); i++) {
        isl_ast_expr *a = isl_ast_expr_op_get_arg(x, i);
        found = tr_mentions(a, name);
        isl_ast_expr_free(a);
    }
    return found;
}

int tr_for_mentions(isl_ast_node *f, const char *name)
{
    isl_ast_expr *init = isl_ast_node_for_get_init(f), *cond = isl_ast_node_for_get_cond(f);
    int m = tr_mentions(init, name) || tr_mentions(cond, name);
    isl_ast_expr_free(init);
    isl_ast_expr_free(cond);
    return m;
}

/* The iterator name of for node f is `name`. */
static int for_named(isl_ast_node *f, const char *name)
{
    isl_ast_expr *it = isl_ast_node_for_get_iterator(f);
    isl_id *id = isl_ast_expr_get_id(it);
    int same = strcmp(isl_id_get_name(id), name) == 0;
    isl_id_free(id);
    isl_ast_expr_free(it);
    return same;
}

/* The single for node a body is (itself, or the one node of a block), or NULL. */
static isl_ast_node *only_for(isl_ast_node *body)
{
    if (isl_ast_node_get_type(body) == isl_ast_node_for)
        return isl_ast_node_copy(body);
    if (isl_ast_node_get_type(body) != isl_ast_node_block)
        return NULL;
    isl_ast_node_list *l = isl_ast_node_block_get_children(body);
    isl_ast_node *f = NULL;
    if (isl_ast_node_list_n_ast_node(l) == 1) {
        f = isl_ast_node_list_get_ast_node(l, 0);
        if (isl_ast_node_get_type(f) != isl_ast_node_for)
            f = isl_ast_node_free(f);
    }
    isl_ast_node_list_free(l);
    return f;
}

/* What rows_nest_ok() looks for under a kernel's mark: the c0 loops and whether each is a
 * perfect nest around a c1 loop whose bounds do not depend on c0. */
typedef struct rows_scan {
    char c0[32], c1[32];
    int n_c0, ok;
} rows_scan;

static isl_bool rows_visit(isl_ast_node *node, void *user)
{
    rows_scan *rs = user;
    if (isl_ast_node_get_type(node) != isl_ast_node_for || !for_named(node, rs->c0))
        return isl_bool_true;
    rs->n_c0++;
    isl_ast_node *body = isl_ast_node_for_get_body(node);
    isl_ast_node *inner = only_for(body);
    int ok = inner && for_named(inner, rs->c1) && !tr_for_mentions(inner, rs->c0) &&
             isl_ast_node_for_is_degenerate(node) == isl_bool_false &&
             isl_ast_node_for_is_degenerate(inner) == isl_bool_false;
    rs->ok = rs->ok && ok;
    isl_ast_node_free(inner);
    isl_ast_node_free(body);
    return isl_bool_false; /* nothing below is a c0 loop */
}

/* Whether the threads of the kernel under `mark` may run several rows each: its one c0 loop
 * holds just the c1 loop, whose bounds do not depend on c0 (the rows are unrolled inside it). */
static int rows_nest_ok(const ch_tr_kernel *k, isl_ast_node *mark)
{
    rows_scan rs = {.ok = 1};
    snprintf(rs.c0, sizeof rs.c0, "c%zu", k->depth);
    snprintf(rs.c1, sizeof rs.c1, "c%zu", k->depth + 1);
    if (isl_ast_node_foreach_descendant_top_down(mark, rows_visit, &rs) < 0)
        return 0;
    return rs.n_c0 == 1 && rs.ok;
}

/* The values of c0 a thread of kernel k runs (the rows variant): pr->o->rows for a plain
 * 2-D kernel of one mark, 1 for the others (a warp per row, reductions and per-block copies
 * synchronise the block, and a thread that leaves its rows early must not miss a barrier). */
static int rows_of(const printer *pr, const ch_tr_kernel *k, isl_ast_node **marks, size_t n_marks)
{
    if (pr->o->rows <= 1 || n_marks != 1 || k->n_mapped != 2 || k->warp_rows ||
        k->reduction != (size_t)-1 || private_elems(pr, k) || !rows_nest_ok(k, marks[0]))
        return 1;
    return pr->o->rows;
}

/* What the columns variant needs of the kernel under mark (cols.c): its c1 loop steps by one
 * and holds one statement instance, which reaches its arrays at constant offsets from the C
 * counter bound to c1. */
typedef struct cols_scan {
    char c1[16];
    int n_for, n_user, ok;
    isl_ast_node *user; /* borrowed from the visit */
} cols_scan;

static isl_bool cols_visit(isl_ast_node *node, void *user)
{
    cols_scan *cs = user;
    if (isl_ast_node_get_type(node) == isl_ast_node_user) {
        cs->n_user++;
        isl_ast_node_free(cs->user);
        cs->user = isl_ast_node_copy(node);
        return isl_bool_false;
    }
    if (isl_ast_node_get_type(node) != isl_ast_node_for)
        return isl_bool_true;
    isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
    isl_id *id = isl_ast_expr_get_id(it);
    if (strcmp(isl_id_get_name(id), cs->c1) == 0) {
        cs->n_for++;
        isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
        isl_ast_node *body = isl_ast_node_for_get_body(node);
        cs->ok = cs->ok && is_int(inc, 1) && isl_ast_node_get_type(body) == isl_ast_node_user;
        isl_ast_expr_free(inc);
        isl_ast_node_free(body);
    }
    isl_id_free(id);
    isl_ast_expr_free(it);
    return isl_bool_true;
}

static tr_cols *cols_plan_of(const printer *pr, const ch_tr_kernel *k, isl_ast_node *mark)
{
    cols_scan cs = {.ok = 1};
    snprintf(cs.c1, sizeof cs.c1, "c%zu", k->depth + 1);
    tr_cols *c = NULL;
    if (isl_ast_node_foreach_descendant_top_down(mark, cols_visit, &cs) >= 0 && cs.ok &&
        cs.n_for == 1 && cs.n_user == 1) {
        isl_ast_expr *call = isl_ast_node_user_get_expr(cs.user);
        isl_ast_expr *fn = isl_ast_expr_op_get_arg(call, 0);
        isl_id *id = isl_ast_expr_get_id(fn);
        size_t si = stmt_named(pr->m, isl_id_get_name(id));
        const ch_tr_stmt *s = &pr->m->stmts[si];
        const char *col = NULL;
        for (size_t i = 0; i < s->n_loops; i++) {
            isl_ast_expr *v = isl_ast_expr_op_get_arg(call, (int)i + 1);
            if (isl_ast_expr_get_type(v) == isl_ast_expr_id) {
                isl_id *vid = isl_ast_expr_get_id(v);
                if (strcmp(isl_id_get_name(vid), cs.c1) == 0)
                    col = pr->m->loops[s->loops[i]].counter;
                isl_id_free(vid);
            }
            isl_ast_expr_free(v);
        }
        if (col)
            c = tr_cols_plan(pr, s, col, 4);
        isl_id_free(id);
        isl_ast_expr_free(fn);
        isl_ast_expr_free(call);
    }
    isl_ast_node_free(cs.user);
    return c;
}

/* The C expression of the bytes of array a's copy, when the kernels of marks[0..n) use it as
 * a copy per thread (malloc'd), else NULL. */
static char *copy_bytes(const printer *pr, isl_ast_node **marks, size_t n, size_t a)
{
    int used = 0;
    for (size_t i = 0; i < n; i++)
        used |= pr->p->uses[tr_mark_kernel(pr, marks[i]) * pr->m->n_arrays + a];
    if (pr->p->storage[a] != CH_TR_THREAD_COPY || !used)
        return NULL;
    char *ext = array_extent(pr, a);
    char *bytes =
        ch_xasprintf("(size_t)(%s) * sizeof(%s)", ext, ch_scalar_name(ch_tr_array_elem(pr->m, a)));
    free(ext);
    return bytes;
}

/* At the launch of a kernel with copies per thread (ch_grid and ch_block declared): a grid
 * small enough for the copies of all its threads to fit 256 MiB (a bound on the scratch, not
 * on correctness), and the scratch buffers grown to hold them. */
static void print_copies_reserve(printer *pr, isl_ast_node **marks, size_t n, int indent)
{
    ch_strbuf *out = pr->out, per;
    ch_strbuf_init(&per);
    for (size_t a = 0; a < pr->m->n_arrays; a++) {
        char *bytes = copy_bytes(pr, marks, n, a);
        if (bytes)
            ch_strbuf_addf(&per, "%s%s", per.len ? " + " : "", bytes);
        free(bytes);
    }
    static const char *const lines[] = {
        "/* each thread of the launch has its own copies (ch_per_thread bytes): fewer blocks\n",
        " * where they would pass 256 MiB (the loops are grid-stride, so any grid is correct) "
        "*/\n",
        "while ((size_t)ch_grid.x * ch_grid.y > 1 &&\n",
        "       (size_t)ch_grid.x * ch_grid.y * ch_block.x * ch_block.y * ch_per_thread >\n",
        "           ((size_t)256 << 20)) {\n",
        "    if (ch_grid.x >= ch_grid.y)\n",
        "        ch_grid.x = (ch_grid.x + 1) / 2;\n",
        "    else\n",
        "        ch_grid.y = (ch_grid.y + 1) / 2;\n",
        "}\n",
        "const size_t ch_threads = (size_t)ch_grid.x * ch_grid.y * ch_block.x * ch_block.y;\n",
    };
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "const size_t ch_per_thread = %s;\n", per.data);
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        tr_indent_to(out, indent);
        ch_strbuf_adds(out, lines[i]);
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++) {
        char *bytes = copy_bytes(pr, marks, n, a);
        if (!bytes)
            continue;
        const char *name = pr->m->arrays[a].name;
        tr_indent_to(out, indent);
        ch_strbuf_addf(out,
                       "if (%s_reserve(&ch_d_ch_copy_%s, &ch_d_ch_copy_%s_bytes, ch_threads * %s) "
                       "!= 0)\n",
                       pr->e->name, name, name, bytes);
        tr_indent_to(out, indent + 1);
        ch_strbuf_adds(out, "return (int)cudaErrorMemoryAllocation;\n");
        free(bytes);
    }
    ch_strbuf_free(&per);
}

/* Emits one kernel function for marks[0..n) (several only when they are consecutive kernels
 * of one thread: one launch instead of many) into pr->kernels, and its launch at `indent`. */
static void print_marks(printer *pr, isl_ast_node **marks, size_t n, int indent)
{
    size_t ki = tr_mark_kernel(pr, marks[0]);
    const ch_tr_kernel *k = &pr->p->kernels[ki];
    assert(n == 1 || k->n_mapped == 0);
    size_t fn = pr->n_functions++;
    if (k->scan_store != (size_t)-1) {
        print_scan(pr, k, fn, indent);
        return;
    }
    /* a kernel with copies per thread is printed plainly: the special shapes below give a
     * thread several values of a mapped dimension at once, or share them among threads */
    int copies = 0;
    for (size_t i = 0; i < n; i++)
        copies |= ch_tr_kernel_copies(pr->p, tr_mark_kernel(pr, marks[i]));
    if (n == 1 && !copies && pr->o->tile_m > 0 && tr_print_tiled(pr, marks[0], fn, indent)) {
        if (pr->o->n_tiled)
            (*pr->o->n_tiled)++;
        return;
    }
    if (n == 1 && !copies && pr->o->transpose_tile > 0 &&
        tr_print_transpose(pr, marks[0], fn, indent)) {
        if (pr->o->n_transposed)
            (*pr->o->n_transposed)++;
        return;
    }
    const ch_entry *e = pr->e;
    int threads = k->n_mapped == 2   ? pr->o->block2_x * pr->o->block2_y
                  : k->n_mapped == 1 ? pr->o->block1
                                     : 1;
    pr->block_rows = !copies && tr_rowwise_applies(pr, k);
    if (pr->block_rows && pr->o->n_block_rows)
        (*pr->o->n_block_rows)++;
    pr->regs = pr->block_rows && n == 1 ? tr_rowregs_plan(pr, k, marks[0]) : NULL;

    /* the kernel */
    ch_strbuf *out = &pr->kernels;
    kernel_comment(pr, out, marks, n, fn);
    ch_strbuf_addf(out, "__global__ void __launch_bounds__(%d) %s_k%zu(", threads, e->name, fn);
    tr_kernel_params(pr, out, 1);
    ch_strbuf_adds(out, ")\n{\n");
    if (pr->block_rows)
        tr_rowwise_prologue(out);
    else if (k->warp_rows)
        ch_strbuf_adds(out,
                       "    /* a warp per value of the mapped dimension: this warp's index "
                       "among the grid's\n     * warps, and this thread's lane */\n"
                       "    const long long ch_g0 = ((long long)blockIdx.x * blockDim.x + "
                       "threadIdx.x) >> 5;\n"
                       "    const long long ch_n0 = ((long long)gridDim.x * blockDim.x) >> 5;\n"
                       "    const int ch_lane = threadIdx.x & 31;\n");
    pr->rows = copies ? 0 : rows_of(pr, k, marks, n);
    if (pr->rows > 1 && pr->o->n_rows)
        (*pr->o->n_rows)++;
    pr->colplan = pr->rows > 1 && pr->o->cols ? cols_plan_of(pr, k, marks[0]) : NULL;
    if (pr->colplan && pr->o->n_cols)
        (*pr->o->n_cols)++;
    for (int q = 0; q < k->n_mapped && !k->warp_rows; q++) {
        const char *ax = axis_of(k, q);
        if (q == 0 && pr->rows > 1) {
            ch_strbuf_addf(
                out,
                "    /* each thread runs %d consecutive values of c%zu: the first "
                "of them, and the step\n     * between groups */\n"
                "    const long long ch_g0 = ((long long)blockIdx.%s * blockDim.%s + "
                "threadIdx.%s) * %d;\n    const long long ch_n0 = (long long)gridDim.%s * "
                "blockDim.%s * %d;\n",
                pr->rows, k->depth, ax, ax, ax, pr->rows, ax, ax, pr->rows);
            continue;
        }
        ch_strbuf_addf(out,
                       "    const long long ch_g%d = (long long)blockIdx.%s * blockDim.%s + "
                       "threadIdx.%s;\n    const long long ch_n%d = (long long)gridDim.%s * "
                       "blockDim.%s;\n",
                       q, ax, ax, ax, q, ax, ax);
    }
    if (copies)
        ch_strbuf_adds(out, "    /* this thread's index among the launch's threads: its slice of "
                            "the copies */\n    const long long ch_tid = ((long long)blockIdx.y * "
                            "blockDim.y + threadIdx.y) * ((long long)gridDim.x * blockDim.x) +\n"
                            "                             (long long)blockIdx.x * blockDim.x + "
                            "threadIdx.x;\n");
    for (size_t a = 0; a < pr->m->n_arrays; a++) {
        int used = 0;
        for (size_t i = 0; i < n; i++)
            used |= pr->p->uses[tr_mark_kernel(pr, marks[i]) * pr->m->n_arrays + a];
        if (pr->p->storage[a] == CH_TR_THREAD_COPY && used) {
            char *ext = array_extent(pr, a);
            const char *t = ch_scalar_name(ch_tr_array_elem(pr->m, a)),
                       *name = pr->m->arrays[a].name;
            ch_strbuf_addf(out,
                           "    /* this thread's copy of %s, reused by every iteration it runs "
                           "(each one writes an\n     * element before reading it) */\n"
                           "    %s *const ch_mine_%s = ch_copy_%s + ch_tid * (long long)(%s);\n",
                           name, t, name, name, ext);
            free(ext);
        }
        if (pr->p->storage[a] == CH_TR_THREAD_LOCAL && used) {
            ch_scalar t = ch_cx_local_type(e, pr->m->arrays[a].name);
            ch_strbuf_addf(out, "    %s %s; /* private to each iteration that uses it */\n",
                           ch_scalar_name(t), pr->m->arrays[a].name);
        }
    }
    const char *acc_t = NULL, *red_op = NULL;
    if (k->reduction != (size_t)-1 && !k->atomic_each) {
        ch_scalar t = ch_tr_array_elem(pr->m, pr->m->stmts[k->reduction].red_array);
        acc_t = ch_scalar_name(t);
        red_op = pr->m->stmts[k->reduction].red_op;
        ch_strbuf_addf(out,
                       "    /* this thread's part of the %s, and the element it goes to (the "
                       "same for every\n     * thread of the launch) */\n    %s ch_acc = (%s)%s;\n"
                       "    %s *ch_target = NULL;\n",
                       is_extremum(red_op) ? red_op : "sum", acc_t, acc_t, identity_of(red_op, t),
                       acc_t);
    }
    long long priv_n = private_elems(pr, k);
    const char *priv_t = NULL;
    if (priv_n) {
        pr->priv = pr->m->arrays[pr->m->stmts[k->reduction].red_array].name;
        priv_t = ch_scalar_name(ch_tr_array_elem(pr->m, pr->m->stmts[k->reduction].red_array));
        ch_strbuf_addf(out,
                       "    /* this block's own copy of %s (%lld elements) in shared memory: its "
                       "threads' updates\n     * go there, and the block adds it to %s once "
                       "at the end */\n"
                       "    __shared__ %s ch_priv[%lld];\n"
                       "    for (int ch_j = threadIdx.x; ch_j < %lld; ch_j += blockDim.x)\n"
                       "        ch_priv[ch_j] = 0;\n    __syncthreads();\n",
                       pr->priv, priv_n, pr->priv, priv_t, priv_n, priv_n);
    }
    ch_strbuf *saved = pr->out;
    pr->out = out;
    pr->k = k;
    pr->covered[0] = pr->covered[1] = 0;
    for (size_t i = 0; i < n; i++) {
        isl_ast_node *body = isl_ast_node_mark_get_node(marks[i]);
        print_node(pr, body, 1);
        isl_ast_node_free(body);
    }
    pr->k = NULL;
    pr->out = saved;
    if (priv_n)
        ch_strbuf_addf(out,
                       "    /* every thread gets here (the loop is grid-stride) */\n"
                       "    __syncthreads();\n"
                       "    for (int ch_j = threadIdx.x; ch_j < %lld; ch_j += blockDim.x)\n"
                       "        if (ch_priv[ch_j] != 0)\n"
                       "            ch_atomic_add(&%s[ch_j], ch_priv[ch_j]);\n",
                       priv_n, pr->priv);
    pr->priv = NULL;
    if (acc_t && !is_extremum(red_op))
        ch_strbuf_addf(out,
                       "    /* the warp's 32 partial sums are added with shuffles (every thread "
                       "gets here: the\n     * loops are grid-stride), then lane 0 adds "
                       "the warp's sum with one atomic */\n"
                       "    for (int ch_o = 16; ch_o > 0; ch_o /= 2) {\n"
                       "        ch_acc %s= __shfl_down_sync(0xffffffffu, ch_acc, ch_o);\n"
                       "        %s *ch_t = (%s *)__shfl_down_sync(0xffffffffu, "
                       "(unsigned long long)ch_target, ch_o);\n"
                       "        if (!ch_target)\n            ch_target = ch_t;\n    }\n"
                       "    if ((threadIdx.x & 31) == 0 && ch_target)\n"
                       "        ch_atomic_%s(ch_target, ch_acc);\n",
                       red_op, acc_t, acc_t, atomic_name(red_op));
    else if (acc_t)
        ch_strbuf_addf(out,
                       "    /* the warp's 32 partial results are combined with shuffles (every "
                       "thread gets here:\n     * the loops are grid-stride), then lane 0 "
                       "combines the warp's with the element in one\n     * atomic */\n"
                       "    for (int ch_o = 16; ch_o > 0; ch_o /= 2) {\n"
                       "        ch_acc = ch_%s(ch_acc, __shfl_down_sync(0xffffffffu, ch_acc, "
                       "ch_o));\n"
                       "        %s *ch_t = (%s *)__shfl_down_sync(0xffffffffu, "
                       "(unsigned long long)ch_target, ch_o);\n"
                       "        if (!ch_target)\n            ch_target = ch_t;\n    }\n"
                       "    if ((threadIdx.x & 31) == 0 && ch_target)\n"
                       "        ch_atomic_%s(ch_target, ch_acc);\n",
                       red_op, acc_t, acc_t, red_op);
    ch_strbuf_adds(out, "}\n\n");

    /* its launch */
    out = pr->out;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out, "{ /* kernel %zu */\n", fn);
    isl_ctx *ctx = pr->m->ctx;
    const char *cond = "1";
    for (int q = 0; q < k->n_mapped; q++) {
        isl_pw_aff *ext = isl_pw_aff_copy(k->extent[q]);
        isl_ast_build *b = isl_ast_build_from_context(
            isl_set_universe(isl_space_params(isl_pw_aff_get_space(ext))));
        isl_ast_expr *x = isl_ast_build_expr_from_pw_aff(b, ext);
        tr_indent_to(out, indent + 1);
        ch_strbuf_addf(out, "const long long ch_e%d = ", q);
        if (x)
            tr_print_expr(pr, out, x);
        else
            ch_strbuf_adds(out, "1");
        ch_strbuf_adds(out, "; /* values of c");
        ch_strbuf_addf(out, "%zu */\n", k->depth + (size_t)q);
        isl_ast_expr_free(x);
        isl_ast_build_free(b);
        cond = k->n_mapped == 2 ? "ch_e0 > 0 && ch_e1 > 0" : "ch_e0 > 0";
    }
    (void)ctx;
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "if (%s) {\n", cond);
    tr_indent_to(out, indent + 2);
    if (copies) /* the grid may shrink below to bound the copies */
        ch_strbuf_adds(out, "const dim3 ch_block");
    if (copies && k->n_mapped == 2)
        ch_strbuf_addf(out,
                       "(%d, %d);\n%*sdim3 ch_grid(%s_blocks(ch_e1, %d, %lldLL), %s_blocks(ch_e0, "
                       "%d, 65535LL));\n",
                       pr->o->block2_x, pr->o->block2_y, 4 * (indent + 2), "", e->name,
                       pr->o->block2_x, pr->o->grid_cap, e->name, pr->o->block2_y);
    else if (copies && k->n_mapped == 1)
        ch_strbuf_addf(out, "(%d);\n%*sdim3 ch_grid(%s_blocks(ch_e0, %d, %lldLL));\n",
                       pr->o->block1, 4 * (indent + 2), "", e->name, pr->o->block1,
                       pr->o->grid_cap);
    else if (copies)
        ch_strbuf_addf(out, "(1);\n%*sdim3 ch_grid(1);\n", 4 * (indent + 2), "");
    else if (k->n_mapped == 2)
        ch_strbuf_addf(out,
                       "const dim3 ch_block(%d, %d), ch_grid(%s_blocks(ch_e1, %d, %lldLL), "
                       "%s_blocks(ch_e0, %d, 65535LL));\n",
                       pr->o->block2_x, pr->o->block2_y, e->name,
                       pr->o->block2_x * (pr->colplan ? pr->colplan->v : 1), pr->o->grid_cap,
                       e->name, pr->o->block2_y * (pr->rows > 1 ? pr->rows : 1));
    else if (k->n_mapped == 1)
        ch_strbuf_addf(out, "const dim3 ch_block(%d), ch_grid(%s_blocks(ch_e0%s, %d, %lldLL));\n",
                       pr->o->block1, e->name, k->warp_rows && !pr->block_rows ? " * 32" : "",
                       pr->block_rows ? 1 : pr->o->block1, launch_cap(pr, k));
    else
        ch_strbuf_adds(out, "const dim3 ch_block(1), ch_grid(1);\n");
    if (copies)
        print_copies_reserve(pr, marks, n, indent + 2);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu<<<ch_grid, ch_block>>>(", e->name, fn);
    tr_kernel_params(pr, out, 0);
    ch_strbuf_adds(out, ");\n");
    tr_close_launch(out, indent);
    pr->rows = 0;
    pr->block_rows = 0;
    free(pr->colplan);
    pr->colplan = NULL;
    tr_rowregs_free(pr->regs);
    pr->regs = NULL;
}

void tr_print_node(printer *pr, isl_ast_node *node, int indent)
{
    print_node(pr, node, indent);
}

static void print_node(printer *pr, isl_ast_node *node, int indent)
{
    switch (isl_ast_node_get_type(node)) {
    case isl_ast_node_for:
        print_for(pr, node, indent);
        return;
    case isl_ast_node_if:
        print_if(pr, node, indent);
        return;
    case isl_ast_node_block: {
        isl_ast_node_list *l = isl_ast_node_block_get_children(node);
        print_list(pr, l, indent);
        isl_ast_node_list_free(l);
        return;
    }
    case isl_ast_node_mark:
        assert(!pr->k); /* kernels do not nest */
        print_marks(pr, &node, 1, indent);
        return;
    case isl_ast_node_user:
        assert(pr->k); /* every statement is inside a kernel */
        tr_print_user(pr, node, indent);
        return;
    default:
        tr_indent_to(pr->out, indent);
        ch_strbuf_adds(pr->out, "/* unsupported isl AST node */\n");
        return;
    }
}

/* --- the file --- */

char *tr_extent_text(const ch_param *p)
{
    if (p->extent)
        return ch_xasprintf("%s", p->extent);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t d = 0; d < p->ndims; d++)
        ch_strbuf_addf(&sb, "%s(%s)", d ? " * " : "", p->dims[d]);
    return ch_strbuf_detach(&sb);
}

/* ch_min/ch_max and their atomic forms for type t. Integers have atomicMin/atomicMax (64-bit
 * longs through the long long forms, the same bits); floating values go through a
 * compare-and-swap loop on their bits with C's fmin/fmax, which ignore a NaN as C's do. */
static void emit_extremum(ch_strbuf *out, const char *op, ch_scalar t)
{
    const char *tn = ch_scalar_name(t);
    int max = strcmp(op, "max") == 0, fl = t == CH_T_FLOAT, db = t == CH_T_DOUBLE;
    if (fl || db)
        ch_strbuf_addf(out, "static __device__ inline %s ch_%s(%s a, %s b) { return %s(a, b); }\n",
                       tn, op, tn, tn, fl ? (max ? "fmaxf" : "fminf") : (max ? "fmax" : "fmin"));
    else
        ch_strbuf_addf(out,
                       "static __device__ inline %s ch_%s(%s a, %s b) { return a %s b ? a : b; }\n",
                       tn, op, tn, tn, max ? ">" : "<");
    ch_strbuf_addf(
        out, "/* atomic %s for %s */\nstatic __device__ inline void ch_atomic_%s(%s *p, %s v)\n{\n",
        op, tn, op, tn, tn);
    if (fl || db) {
        const char *bits = fl ? "unsigned int" : "unsigned long long";
        ch_strbuf_addf(out,
                       "    %s *a = (%s *)p, old = *a;\n"
                       "    for (;;) {\n"
                       "        %s want = %s(ch_%s(%s(old), v));\n"
                       "        if (want == old)\n            return;\n"
                       "        %s seen = atomicCAS(a, old, want);\n"
                       "        if (seen == old)\n            return;\n"
                       "        old = seen;\n    }\n}\n\n",
                       bits, bits, bits,
                       fl ? "__float_as_uint" : "(unsigned long long)__double_as_longlong", op,
                       fl ? "__uint_as_float" : "__longlong_as_double", bits);
        return;
    }
    const char *cast = t == CH_T_LONG    ? "(long long *)"
                       : t == CH_T_ULONG ? "(unsigned long long *)"
                                         : "";
    const char *vcast = t == CH_T_LONG    ? "(long long)"
                        : t == CH_T_ULONG ? "(unsigned long long)"
                                          : "";
    ch_strbuf_addf(out, "    atomic%s(%sp, %sv);\n}\n\n", max ? "Max" : "Min", cast, vcast);
}

/* ch_atomic_and/_or/_xor for integer type t: atomicAnd/Or/Xor on int and unsigned, and
 * through the unsigned 64-bit form for 64-bit types (the same bits). */
static void emit_bitwise(ch_strbuf *out, const char *op, ch_scalar t)
{
    const char *tn = ch_scalar_name(t), *name = atomic_name(op);
    int narrow = t == CH_T_INT || t == CH_T_UINT;
    ch_strbuf_addf(out,
                   "/* atomic %s for %s */\nstatic __device__ inline void ch_atomic_%s(%s *p, %s "
                   "v)\n{\n    atomic%c%s(%sp, %sv);\n}\n\n",
                   name, tn, name, tn, tn, name[0] - 'a' + 'A', name + 1,
                   narrow ? "" : "(unsigned long long *)", narrow ? "" : "(unsigned long long)");
}

/* The file's helpers for `code` (the kernels and the launcher). */
static void emit_reserve(ch_strbuf *out, const char *n);

static void emit_support(printer *pr, ch_strbuf *out, const char *code)
{
    const char *n = pr->e->name;
    /* only what the kernels and the launcher use: nvcc warns of unused static functions */
    int atomics_done[CH_T_COUNT_] = {0}, extrema_done[2][CH_T_COUNT_] = {{0}};
    int bits_done[3][CH_T_COUNT_] = {{0}};
    for (size_t k = 0; k < pr->p->n_kernels; k++) {
        const ch_tr_kernel *K = &pr->p->kernels[k];
        if (K->reduction == (size_t)-1 || K->scan_store != (size_t)-1)
            continue;
        ch_scalar t = ch_tr_array_elem(pr->m, pr->m->stmts[K->reduction].red_array);
        const char *op = pr->m->stmts[K->reduction].red_op;
        if (is_extremum(op)) {
            if (!extrema_done[op[1] == 'a'][t]++)
                emit_extremum(out, op, t);
            continue;
        }
        if (op[0] != '+') {
            int which = op[0] == '&' ? 0 : op[0] == '|' ? 1 : 2;
            if (!bits_done[which][t]++)
                emit_bitwise(out, op, t);
            continue;
        }
        if (atomics_done[t]++)
            continue;
        const char *tn = ch_scalar_name(t);
        int wide = t == CH_T_LONG || t == CH_T_ULONG || t == CH_T_LLONG;
        ch_strbuf_addf(out,
                       "/* atomicAdd for %s%s */\nstatic __device__ inline void "
                       "ch_atomic_add(%s *p, %s v)\n{\n",
                       tn,
                       wide ? " (through the unsigned 64-bit form: a two's complement sum "
                              "has the same bits)"
                            : "",
                       tn, tn);
        if (wide)
            ch_strbuf_adds(out,
                           "    atomicAdd((unsigned long long *)p, (unsigned long long)v);\n}\n\n");
        else
            ch_strbuf_adds(out, "    atomicAdd(p, v);\n}\n\n");
    }
    static const struct {
        const char *name, *def;
    } helpers[] = {
        {"ch_isl_min(", "static __host__ __device__ inline long long ch_isl_min(long long a, long "
                        "long b) { return a < b ? a : b; }\n"},
        {"ch_isl_max(", "static __host__ __device__ inline long long ch_isl_max(long long a, long "
                        "long b) { return a > b ? a : b; }\n"},
        {"ch_isl_floord(", "/* floor(a / b) for b > 0 */\nstatic __host__ __device__ inline long "
                           "long ch_isl_floord(long long a, long long b)\n{\n    return a >= 0 ? "
                           "a / b : -((-a + b - 1) / b);\n}\n"},
    };
    int any = 0;
    for (size_t i = 0; i < sizeof helpers / sizeof *helpers; i++)
        if (strstr(code, helpers[i].name)) {
            if (!any++)
                ch_strbuf_adds(out, "/* Integer helpers of the loops isl generates. */\n");
            ch_strbuf_adds(out, helpers[i].def);
        }
    if (any)
        ch_strbuf_addc(out, '\n');
    if (strstr(code, "_blocks(ch_e"))
        ch_strbuf_addf(
            out,
            "/* Blocks needed for `count` values at `per_block` each, at most `cap` (the "
            "loops are\n * grid-stride, so fewer blocks are still correct). */\nstatic "
            "unsigned %s_blocks(long long count, int per_block, long long cap)\n{\n    "
            "long long b = (count + per_block - 1) / per_block;\n    return (unsigned)(b "
            "< 1 ? 1 : b < cap ? b : cap);\n}\n\n",
            n);
    if (pr->any_device) {
        ch_strbuf_addf(out,
                       "/* The C function's scalars that more than one kernel (or more than one "
                       "thread) uses:\n * one copy in device memory. */\ntypedef struct %s_scalars "
                       "{\n",
                       n);
        for (size_t a = 0; a < pr->m->n_arrays; a++)
            if (pr->p->storage[a] == CH_TR_DEVICE)
                ch_strbuf_addf(out, "    %s %s;\n",
                               ch_scalar_name(ch_cx_local_type(pr->e, pr->m->arrays[a].name)),
                               pr->m->arrays[a].name);
        ch_strbuf_addf(out, "} %s_scalars;\n\n", n);
    }
    /* the launchers' device buffers and the device launcher's scratch (a scan's tile sums) */
    char *reserve = ch_xasprintf("%s_reserve(", n);
    int reserves = strstr(code, reserve) != NULL;
    free(reserve);
    if (reserves)
        emit_reserve(out, n);
    tr_rowregs_support(out, code);
    tr_mma_pipe_support(out, code);
}

/* NAME_reserve: the launchers' device buffers kept across calls. */
static void emit_reserve(ch_strbuf *out, const char *n)
{
    ch_strbuf_addf(out,
                   "/* Grows a device buffer kept across calls to at least `bytes`; 0 on "
                   "success. */\nstatic int %s_reserve(void **buf, size_t *have, size_t bytes)\n"
                   "{\n    if (bytes <= *have)\n        return 0;\n    if (*buf) {\n"
                   "        cudaError_t rc = cudaFree(*buf);\n        *buf = NULL;\n"
                   "        *have = 0;\n        if (rc != cudaSuccess)\n            return -1;\n"
                   "    }\n    if (cudaMalloc(buf, bytes ? bytes : 1) != cudaSuccess) {\n"
                   "        *buf = NULL;\n        return -1;\n    }\n    *have = bytes;\n"
                   "    return 0;\n}\n\n",
                   n);
}

static int copied_back(const ch_param *p)
{
    return !p->is_const && (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT);
}

/* A device buffer kept across calls: `ch_d_NAME` of `bytes` (a C expression); `fail` is the
 * statement that ends the call when it cannot be allocated. */
static void emit_buffer(ch_strbuf *out, const char *entry, const char *name, const char *bytes,
                        const char *fail)
{
    ch_strbuf_addf(out,
                   "    static void *ch_d_%s = NULL;\n    static size_t ch_d_%s_bytes = 0;\n"
                   "    const size_t ch_n_%s = %s;\n"
                   "    if (%s_reserve(&ch_d_%s, &ch_d_%s_bytes, ch_n_%s) != 0)\n"
                   "        %s\n",
                   name, name, name, bytes, entry, name, name, name, fail);
}

/* The C function's parameters as the launchers declare them. */
static void launcher_params(const ch_entry *e, ch_strbuf *out)
{
    if (e->n_params)
        ch_entry_cxx_params(e, out);
    else
        ch_strbuf_adds(out, "void");
}

/* NAME_device_launcher: the kernels alone, on buffers already on the device (the contract every
 * caller relies on: the host launcher below, the verifier's kernel timing and the runtime that
 * moves the data). Scratch it owns (the C function's local arrays, the scalars kept on the
 * device) lives across calls under its own mutex. */
static void emit_device_launcher(printer *pr, ch_strbuf *out, isl_ast_node *tree)
{
    const ch_entry *e = pr->e;
    ch_strbuf_adds(out,
                   "/* The device launcher: the pointers are device pointers holding the "
                   "inputs. The kernels run in\n * the new order; loops that carry a "
                   "dependence run here and launch the kernels inside\n * them. Returns 0, "
                   "or the CUDA error that ended the call early; the caller synchronizes. */\n");
    ch_strbuf_addf(out, "extern \"C\" int %s_device_launcher(", e->name);
    launcher_params(e, out);
    ch_strbuf_adds(out, ")\n{\n");
    ch_strbuf body;
    ch_strbuf_init(&body);
    const char *fail = "return (int)cudaErrorMemoryAllocation;";
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->m->arrays[a].local_elems) {
            const char *name = pr->m->arrays[a].name;
            char *bytes = ch_xasprintf("(size_t)%lld * sizeof(%s)", pr->m->arrays[a].local_elems,
                                       ch_scalar_name(ch_cx_local_type(e, name)));
            ch_strbuf_addf(&body, "    /* the C function's local array %s */\n", name);
            emit_buffer(&body, e->name, name, bytes, fail);
            free(bytes);
        }
    if (pr->any_device) {
        char *bytes = ch_xasprintf("sizeof(%s_scalars)", e->name);
        emit_buffer(&body, e->name, "ch_s", bytes, fail);
        free(bytes);
    }
    for (size_t a = 0; a < pr->m->n_arrays; a++)
        if (pr->p->storage[a] == CH_TR_THREAD_COPY)
            ch_strbuf_addf(&body,
                           "    /* the copies of %s, one per thread of a launch (grown at the "
                           "launches) */\n    static void *ch_d_ch_copy_%s = NULL;\n"
                           "    static size_t ch_d_ch_copy_%s_bytes = 0;\n",
                           pr->m->arrays[a].name, pr->m->arrays[a].name, pr->m->arrays[a].name);
    ch_strbuf_addc(&body, '\n');
    pr->out = &body;
    print_node(pr, tree, 1);
    /* static scratch is shared by the host threads that call at once */
    if (strstr(body.data, "static "))
        ch_strbuf_adds(out, "    static std::mutex ch_lock;\n"
                            "    std::lock_guard<std::mutex> ch_guard(ch_lock);\n");
    ch_strbuf_add(out, body.data, body.len);
    ch_strbuf_free(&body);
    pr->out = NULL;
    ch_strbuf_adds(out, "    return (int)cudaGetLastError();\n}\n\n");
}

/* The arguments of a call to the device launcher from the host launcher. */
static void device_args(const ch_entry *e, ch_strbuf *out)
{
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *q = &e->params[i];
        if (i)
            ch_strbuf_adds(out, ", ");
        if (q->role == CH_ROLE_SCALAR || e->clauses.device)
            ch_strbuf_adds(out, q->name);
        else
            ch_strbuf_addf(out, "(%s *)ch_d_%s", ch_scalar_name(q->elem), q->name);
    }
}

static void emit_launcher(const ch_entry *e, ch_strbuf *out)
{
    int device = e->clauses.device;
    ch_strbuf_adds(out, "/* The launcher: ");
    if (device)
        ch_strbuf_adds(out, "the pointers are device pointers (`device` clause): the device "
                            "launcher, then a\n * synchronization. */\n");
    else
        ch_strbuf_adds(out, "host-pointer convention. Device buffers are kept across calls "
                            "(grown when a call\n * needs more) under a mutex. Every buffer is "
                            "copied in, out buffers too: the C body may\n * leave elements "
                            "untouched, and those must come back unchanged. A CUDA error ends "
                            "the call\n * early without output. */\n");
    ch_strbuf_addf(out, "extern \"C\" void %s_launcher(", e->name);
    launcher_params(e, out);
    ch_strbuf_adds(out, ")\n{\n");
    if (!device)
        ch_strbuf_adds(out, "    static std::mutex ch_lock;\n"
                            "    std::lock_guard<std::mutex> ch_guard(ch_lock);\n");
    for (size_t i = 0; !device && i < e->n_params; i++) {
        const ch_param *q = &e->params[i];
        if (q->role == CH_ROLE_SCALAR)
            continue;
        char *ext = tr_extent_text(q);
        char *bytes = ch_xasprintf("(size_t)(%s) * sizeof(%s)", ext, ch_scalar_name(q->elem));
        emit_buffer(out, e->name, q->name, bytes, "return;");
        ch_strbuf_addf(out,
                       "    if (ch_n_%s && cudaMemcpy(ch_d_%s, %s, ch_n_%s, "
                       "cudaMemcpyHostToDevice) != cudaSuccess)\n        return;\n",
                       q->name, q->name, q->name, q->name);
        free(bytes);
        free(ext);
    }
    ch_strbuf_addf(out, "    if (%s_device_launcher(", e->name);
    device_args(e, out);
    ch_strbuf_adds(out, ") != 0 || cudaDeviceSynchronize() != cudaSuccess)\n        return;\n");
    for (size_t i = 0; !device && i < e->n_params; i++) {
        const ch_param *q = &e->params[i];
        if (q->role == CH_ROLE_SCALAR || !copied_back(q))
            continue;
        ch_strbuf_addf(out,
                       "    if (ch_n_%s && cudaMemcpy(%s, ch_d_%s, ch_n_%s, "
                       "cudaMemcpyDeviceToHost) != cudaSuccess)\n        return;\n",
                       q->name, q->name, q->name, q->name);
    }
    ch_strbuf_adds(out, "}\n");
}

void tr_emit_host_launcher(const ch_entry *e, ch_strbuf *out)
{
    if (!e->clauses.device)
        emit_reserve(out, e->name);
    emit_launcher(e, out);
}

void tr_launcher_params(const ch_entry *e, ch_strbuf *out)
{
    launcher_params(e, out);
}

void tr_emit_reserve(ch_strbuf *out, const char *entry)
{
    emit_reserve(out, entry);
}

void tr_emit_launcher(const ch_entry *e, ch_strbuf *out)
{
    emit_launcher(e, out);
}

void tr_emit_opening(ch_strbuf *out, const ch_tr_plan *p, const ch_tr_cuda_opts *o,
                     size_t n_functions)
{
    const ch_tr_model *m = p->m;
    ch_strbuf_addf(out, "/* %s\n *\n", o->header ? o->header : "ch-cc translator");
    ch_strbuf_addf(out,
                   " * CUDA translation of %s (%s:%u) by the ch-cc translator on isl: the "
                   "statements' order\n * comes from the %s, checked against every "
                   "dependence; %zu kernel%s,\n * launched by %s_launcher.\n",
                   m->entry->name, m->entry->file, m->entry->fn_line,
                   ch_tr_strategy_name(p->strategy), n_functions, n_functions == 1 ? "" : "s",
                   m->entry->name);
    ch_strbuf_adds(out, " *\n * Plan:\n");
    ch_strbuf plan;
    ch_strbuf_init(&plan);
    ch_tr_plan_print(&plan, p);
    for (char *line = plan.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        ch_strbuf_adds(out, " *   ");
        ch_strbuf_add(out, line, nl ? (size_t)(nl - line) : strlen(line));
        ch_strbuf_addc(out, '\n');
    }
    ch_strbuf_free(&plan);
    ch_strbuf_adds(out, " */\n#include <cuda_runtime.h>\n#include <limits.h>\n#include "
                        "<math.h>\n#include <stddef.h>\n#include <mutex>\n");
    ch_strbuf_adds(out, o->tile_mma ? "#include <mma.h>\n\n" : "\n");
    ch_cx_helpers(m->entry, out);
}

char *ch_tr_cuda(const ch_tr_plan *p, const ch_tr_cuda_opts *o)
{
    if (p->argred)
        return tr_argred_cuda(p, o);
    const ch_tr_model *m = p->m;
    printer pr = {.p = p, .m = m, .e = m->entry, .o = o};
    ch_strbuf_init(&pr.kernels);
    ch_strvec_init(&pr.host_iters);
    for (size_t a = 0; a < m->n_arrays; a++)
        pr.any_device |= p->storage[a] == CH_TR_DEVICE;

    isl_ast_build *build = isl_ast_build_alloc(m->ctx);
    isl_ast_node *tree = isl_ast_build_node_from_schedule(build, isl_schedule_copy(p->schedule));
    isl_ast_build_free(build);
    ch_strbuf launcher;
    ch_strbuf_init(&launcher);
    emit_device_launcher(&pr, &launcher, tree);
    emit_launcher(pr.e, &launcher);
    isl_ast_node_free(tree);

    ch_strbuf out;
    ch_strbuf_init(&out);
    tr_emit_opening(&out, p, o, pr.n_functions);
    ch_strbuf code;
    ch_strbuf_init(&code);
    ch_strbuf_addf(&code, "%s%s", pr.kernels.data, launcher.data);
    emit_support(&pr, &out, code.data);
    ch_strbuf_free(&code);
    ch_strbuf_add(&out, pr.kernels.data, pr.kernels.len);
    ch_strbuf_add(&out, launcher.data, launcher.len);
    ch_strbuf_free(&launcher);
    ch_strbuf_free(&pr.kernels);
    ch_strvec_free(&pr.host_iters);
    return ch_strbuf_detach(&out);
}
