/* Several values of c1 a thread, with 16-byte loads and stores (the columns variant of plain
 * 2-D kernels: stencils). The rows variant (cuda.c) gives each thread consecutive values of c0
 * so that neighbouring rows share loads; here each thread also takes a group of v consecutive
 * values of c1 that starts at a multiple of v (v: 16 bytes of the element, 4 floats or 2
 * doubles), and where the group is whole and every address allows it, each access of the
 * statement is served from 16-byte vector loads: the access a[e + j + d] (e the part that does
 * not vary with the column counter j, d a constant) needs the elements j + d .. j + v - 1 + d
 * of its row, which lie in the vectors lo .. hi of the window from a[e + j] (the aligned first
 * column), each loaded whole; the results go out as one 16-byte store. Accesses of the same row
 * at other offsets load the same vectors (nvcc keeps one load of each address: the arrays are
 * __restrict__). Fewer load instructions a thread for the same bytes, each moving 16 bytes: more
 * bytes in flight a thread, which is what a memory-bound stencil lacks.
 *
 * The checks at run time (cuda.c prints them): every vector's start is 16-byte aligned (the base
 * pointer and the row pitch) and every vector lies inside its array (a window past the first or
 * last element of an array would load elements the C code never reads). They are made first for
 * the thread's whole group of rows: when all pass, the rows run in one unrolled loop without a
 * branch, so that nvcc loads once the vectors neighbouring rows share (the row below's window is
 * the next row's own); else row by row, and a row that fails runs its values one by one as in
 * the rows variant. Legal: the points of a group are independent
 * (c1 carries no dependence, checked by isl), the statement writes X only, which it does not
 * read, and the arrays do not alias (host-pointer convention; device entries are not taken).
 * The statement must be `X = e` with X at offset 0 of the column, and e must read the counters
 * only inside subscripts (the vector path binds none for each value). */
#include <stdlib.h>
#include <string.h>

#include "ch/cexpr.h"
#include "cols.h"

/* Adds the terms of subscript x (a sum) with sign: *d the constants, *cols how many times the
 * column counter appears as a plain term (negated: -1). 0 when another term reads the column. */
static int split_terms(const ch_ir *x, int sign, const char *col, long *d, int *cols)
{
    if (x->kind == CH_IR_BINARY && x->text && (!strcmp(x->text, "+") || !strcmp(x->text, "-")))
        return split_terms(x->kids[0], sign, col, d, cols) &&
               split_terms(x->kids[1], strcmp(x->text, "-") ? sign : -sign, col, d, cols);
    if (x->kind == CH_IR_INT_LIT) {
        *d += sign * (long)x->ival;
        return x->ival < 1 << 20;
    }
    if (ch_ir_is_var(x, col)) {
        *cols += sign > 0 ? 1 : -8;
        return 1;
    }
    return !ch_ir_find(x, CH_IR_VAR, col);
}

/* The array access x as one along the columns, into *a; 0 for another shape. */
static int along_columns(const printer *pr, const ch_ir *x, const char *col, ch_scalar elem,
                         tr_cols_access *a)
{
    const ch_ir *root = x;
    while (root->kind == CH_IR_INDEX) {
        if (root != x && ch_ir_find(root->kids[1], CH_IR_VAR, col))
            return 0; /* an outer subscript varies along the row */
        root = root->kids[0];
    }
    if (root->kind != CH_IR_VAR || root->param_index < 0)
        return 0;
    const ch_param *pa = &pr->e->params[root->param_index];
    if (pa->role == CH_ROLE_SCALAR || pa->elem != elem)
        return 0;
    long d = 0;
    int cols = 0;
    if (!split_terms(x->kids[1], 1, col, &d, &cols) || cols != 1)
        return 0;
    int v = (int)(16 / ch_scalar_size(elem));
    a->node = x;
    a->pa = pa;
    a->d = d;
    /* floor divisions: the vectors holding elements d .. v - 1 + d of the window */
    a->lo = (int)(d >= 0 ? d / v : -((-d + v - 1) / v));
    a->hi = (int)((v - 1 + d) >= 0 ? (v - 1 + d) / v : -((-(v - 1 + d) + v - 1) / v));
    return 1;
}

/* The reads of e: every access along the columns, every other variable a scalar parameter. */
static int collect(const printer *pr, tr_cols *c, const ch_ir *x, const char *col)
{
    if (!x)
        return 1;
    switch (x->kind) {
    case CH_IR_INDEX:
        if (c->n_reads == COLS_MAX_ACCESSES ||
            !along_columns(pr, x, col, c->elem, &c->reads[c->n_reads]) ||
            strcmp(c->reads[c->n_reads].pa->name, c->target.pa->name) == 0)
            return 0; /* X read: its values would be the window's, not the stores' */
        c->n_reads++;
        return 1;
    case CH_IR_VAR:
        return x->param_index >= 0 && pr->e->params[x->param_index].role == CH_ROLE_SCALAR;
    case CH_IR_ASSIGN:
        return 0;
    case CH_IR_UNARY:
        if (x->text && (!strcmp(x->text, "&") || !strcmp(x->text, "*") || !strcmp(x->text, "++") ||
                        !strcmp(x->text, "--")))
            return 0;
        break;
    case CH_IR_CALL:
        if (!x->text || !ch_cx_known_call(x->text))
            return 0;
        break;
    default:
        break;
    }
    for (size_t i = 0; i < x->nkids; i++)
        if (!collect(pr, c, x->kids[i], col))
            return 0;
    return 1;
}

tr_cols *tr_cols_plan(const printer *pr, const ch_tr_stmt *s, const char *col, int max_v)
{
    const ch_ir *st = s->ir;
    if (pr->e->clauses.device || s->n_guards || st->kind != CH_IR_EXPR_STMT ||
        st->kids[0]->kind != CH_IR_ASSIGN || strcmp(st->kids[0]->text, "=") != 0)
        return NULL;
    const ch_ir *lhs = st->kids[0]->kids[0];
    if (lhs->kind != CH_IR_INDEX)
        return NULL;
    tr_cols *c = ch_xcalloc(1, sizeof *c);
    c->stmt = s;
    const ch_ir *root = lhs;
    while (root->kind == CH_IR_INDEX)
        root = root->kids[0];
    c->elem = root->kind == CH_IR_VAR && root->param_index >= 0
                  ? pr->e->params[root->param_index].elem
                  : CH_T_INT;
    c->v =
        c->elem == CH_T_FLOAT || c->elem == CH_T_DOUBLE ? (int)(16 / ch_scalar_size(c->elem)) : 0;
    if (c->v < 2 || c->v > max_v || !along_columns(pr, lhs, col, c->elem, &c->target) ||
        c->target.d != 0 || !collect(pr, c, st->kids[0]->kids[1], col) || !c->n_reads) {
        free(c);
        return NULL;
    }
    return c;
}

int tr_cols_access_hook(void *ctx, const ch_ir *index, ch_strbuf *out)
{
    const printer *pr = ctx;
    const tr_cols *c = pr->colplan;
    if (!c || pr->cols_on != 1)
        return 0;
    if (index == c->target.node) {
        ch_strbuf_adds(out, "ch_o[ch_t1]");
        return 1;
    }
    for (size_t i = 0; i < c->n_reads; i++)
        if (c->reads[i].node == index) {
            const tr_cols_access *a = &c->reads[i];
            ch_strbuf_addf(out, "ch_w%zu[ch_t1 + %ld]", i, a->d - (long)a->lo * c->v);
            return 1;
        }
    return 0;
}
