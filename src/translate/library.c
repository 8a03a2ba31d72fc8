/* Library variants: a body that is exactly one BLAS operation becomes a candidate that calls
 * the library (cuBLAS) instead of kernels of its own. The recognition works on the translator's
 * model (the statements, the loops that enclose each, their IR) and is exact or nothing: every
 * statement of the body is part of the operation, each loop runs from 0 by 1 to a bound made
 * of scalar parameters, every subscript is a loop counter, the matrices are 2-D array
 * parameters of one element type whose row length gives the leading dimension, and the output
 * is none of the inputs. What does not fit gets no library candidate; the translator's own
 * variants still cover it. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "ch/embed.h"
#include "printer.h"

extern const struct ch_embedded_file ch_template_files[];

/* TF32 rounds each input to 10 mantissa bits (relative error at most 2^-11), so a product is
 * off by at most 2^-10 relative, and the sums stay in FP32. The verifier compares elementwise
 * with atol = tol * rms(reference) and the relative L2 error against tol; the error of a sum is
 * about 2^-10 times the size of its terms, which exceeds the size of the result when terms
 * cancel. A tol of 4 * 2^-10 (about 3.9e-3) leaves that factor 4 for cancellation; below it the
 * TF32 variant would mostly fail verification, so it is not proposed. */
#define TF32_MIN_TOL (4.0 / 1024.0)

int ch_tr_precision_admitted(const ch_entry *e, ch_tr_precision prec)
{
    if (prec == CH_TR_PREC_NATIVE)
        return 1;
    return e->clauses.has_tol && e->clauses.tol >= TF32_MIN_TOL;
}

const char *ch_tr_precision_name(ch_tr_precision prec)
{
    return prec == CH_TR_PREC_TF32 ? "tf32" : "native";
}

void ch_tr_gemm_free(ch_tr_gemm *g)
{
    char **texts[] = {&g->m, &g->n, &g->k, &g->lda, &g->ldb, &g->ldc, &g->alpha, &g->beta};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        free(*texts[i]);
        *texts[i] = NULL;
    }
}

/* An expression as C: ch_ir_print writes it as a statement, so without its ";\n". */
static char *expr_text(const ch_ir *x)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_ir_print(&b, x, 0, NULL, NULL);
    char *t = ch_strbuf_detach(&b);
    size_t n = strlen(t);
    while (n && (t[n - 1] == '\n' || t[n - 1] == ';' || t[n - 1] == ' '))
        t[--n] = '\0';
    return t;
}

static const ch_param *scalar_param(const ch_entry *e, const ch_ir *x)
{
    if (x->kind != CH_IR_VAR || x->param_index < 0 || (size_t)x->param_index >= e->n_params)
        return NULL;
    const ch_param *p = &e->params[x->param_index];
    return p->role == CH_ROLE_SCALAR ? p : NULL;
}

/* An expression of scalar parameters and literals only: the same value in every iteration. */
static int invariant(const ch_entry *e, const ch_ir *x)
{
    switch (x->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 1;
    case CH_IR_VAR:
        return scalar_param(e, x) != NULL;
    case CH_IR_UNARY:
        return strcmp(x->text, "-") == 0 && invariant(e, x->kids[0]);
    case CH_IR_BINARY:
        return strchr("+-*/", x->text[0]) && x->text[1] == '\0' && invariant(e, x->kids[0]) &&
               invariant(e, x->kids[1]);
    default:
        return 0;
    }
}

/* The number of iterations of loop l as C when it runs `for (c = 0; c < BOUND; c++)` (or
 * `c += 1`) with an invariant bound; else NULL. */
static char *loop_extent(const ch_entry *e, const ch_tr_loop *l)
{
    const ch_ir *f = l->ir, *start = NULL;
    const char *name = NULL;
    if (l->down || f->nkids < 4 || ch_ir_for_init(f, &name, &start) != 0 || !start ||
        start->kind != CH_IR_INT_LIT || start->ival != 0)
        return NULL;
    const ch_ir *cond = f->kids[1], *inc = f->kids[2];
    if (!cond || cond->kind != CH_IR_BINARY || strcmp(cond->text, "<") != 0 ||
        !ch_ir_is_var(cond->kids[0], name) || !invariant(e, cond->kids[1]) || !inc)
        return NULL;
    int step1 = (inc->kind == CH_IR_UNARY && strcmp(inc->text, "++") == 0 &&
                 ch_ir_is_var(inc->kids[0], name)) ||
                (inc->kind == CH_IR_ASSIGN && strcmp(inc->text, "+=") == 0 &&
                 ch_ir_is_var(inc->kids[0], name) && inc->kids[1]->kind == CH_IR_INT_LIT &&
                 inc->kids[1]->ival == 1);
    return step1 ? expr_text(cond->kids[1]) : NULL;
}

/* A read or write `X[r][c]` of a 2-D array parameter whose subscripts are counters of the
 * statement's loops: the parameter and the two loops' positions in s->loops. */
typedef struct matrix_ref {
    const ch_param *p;
    size_t row, col;   /* indices into s->loops */
    const char *shape; /* a flattened pointer's "[*][ROW_LENGTH]" (borrowed), else NULL */
} matrix_ref;

/* The row length a matrix is declared or split with, as C (malloc'd). */
static char *row_length(const matrix_ref *r)
{
    if (!r->shape)
        return ch_xstrdup(r->p->dims[1]);
    size_t n = strlen(r->shape);
    return ch_xstrndup(r->shape + 4, n - 5); /* between "[*][" and "]" */
}

static int loop_of_counter(const ch_tr_model *m, const ch_tr_stmt *s, const ch_ir *x, size_t *at)
{
    if (x->kind != CH_IR_VAR || x->param_index >= 0)
        return 0;
    for (size_t i = 0; i < s->n_loops; i++)
        if (strcmp(m->loops[s->loops[i]].counter, x->text) == 0) {
            *at = i;
            return 1;
        }
    return 0;
}

/* Output dimension `out` of an access is input dimension *at, with nothing added. */
static int copies_one_input(isl_multi_aff *ma, int out, size_t *at)
{
    isl_aff *aff = isl_multi_aff_get_aff(ma, out);
    isl_val *c = isl_aff_get_constant_val(aff);
    int ok = isl_val_is_zero(c) == isl_bool_true, found = 0;
    isl_val_free(c);
    isl_size n_in = isl_aff_dim(aff, isl_dim_in), n_par = isl_aff_dim(aff, isl_dim_param);
    for (int i = 0; ok && i < n_par; i++) {
        isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_param, i);
        ok = isl_val_is_zero(v) == isl_bool_true;
        isl_val_free(v);
    }
    for (int i = 0; ok && i < n_in; i++) {
        isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, i);
        if (isl_val_is_one(v) == isl_bool_true && !found) {
            found = 1;
            *at = (size_t)i;
        } else if (isl_val_is_zero(v) != isl_bool_true) {
            ok = 0;
        }
        isl_val_free(v);
    }
    isl_aff_free(aff);
    return ok && found;
}

/* A flattened pointer the model split into rows ("[*][nj]", model.c): its accesses in s (reads
 * and writes together) must be one element per instance, X[counter][counter]. */
static int flat_matrix_of(const ch_tr_model *m, const ch_tr_stmt *s, const ch_ir *x,
                          matrix_ref *out)
{
    const ch_ir *base = x->kids[0];
    const ch_entry *e = m->entry;
    if (base->kind != CH_IR_VAR || base->param_index < 0 ||
        (size_t)base->param_index >= e->n_params)
        return 0;
    const ch_param *p = &e->params[base->param_index];
    const ch_tr_array *a = NULL;
    for (size_t i = 0; i < m->n_arrays && !a; i++)
        if (!m->arrays[i].decl && strcmp(m->arrays[i].name, p->name) == 0)
            a = &m->arrays[i];
    if (p->role != CH_ROLE_POINTER || !a || a->ndims != 2 || !a->shape ||
        strncmp(a->shape, "[*][", 4) != 0)
        return 0;
    isl_union_map *acc =
        isl_union_map_union(isl_union_map_copy(a->reads), isl_union_map_copy(a->must_writes));
    acc = isl_union_map_union(acc, isl_union_map_copy(a->may_writes));
    acc = isl_union_map_intersect_domain(acc, isl_union_set_from_set(isl_set_copy(s->domain)));
    acc = isl_union_map_coalesce(acc);
    int ok = isl_union_map_n_map(acc) == 1 && isl_union_map_is_single_valued(acc) == isl_bool_true;
    if (ok) {
        /* without the domain's bounds, which the statement's loops already give */
        isl_map *map = isl_map_from_union_map(acc);
        map = isl_map_gist_domain(map, isl_map_domain(isl_map_copy(map)));
        isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(map);
        acc = NULL;
        ok = isl_pw_multi_aff_n_piece(pma) == 1;
        isl_multi_aff *ma = ok ? isl_pw_multi_aff_as_multi_aff(pma) : NULL;
        if (!ok)
            isl_pw_multi_aff_free(pma);
        ok = ok && copies_one_input(ma, 0, &out->row) && copies_one_input(ma, 1, &out->col);
        isl_multi_aff_free(ma);
    }
    isl_union_map_free(acc);
    if (!ok)
        return 0;
    out->p = p;
    out->shape = a->shape;
    return out->row != out->col;
}

static int matrix_of(const ch_tr_model *m, const ch_tr_stmt *s, const ch_ir *x, matrix_ref *out)
{
    if (x->kind == CH_IR_INDEX && x->kids[0]->kind == CH_IR_VAR)
        return flat_matrix_of(m, s, x, out);
    if (x->kind != CH_IR_INDEX || x->kids[0]->kind != CH_IR_INDEX)
        return 0;
    const ch_ir *base = x->kids[0]->kids[0];
    const ch_entry *e = m->entry;
    if (base->kind != CH_IR_VAR || base->param_index < 0 ||
        (size_t)base->param_index >= e->n_params)
        return 0;
    const ch_param *p = &e->params[base->param_index];
    if (p->role != CH_ROLE_ARRAY || p->ndims != 2 || !p->dims[1] || !*p->dims[1])
        return 0;
    out->p = p;
    out->shape = NULL;
    return loop_of_counter(m, s, x->kids[0]->kids[1], &out->row) &&
           loop_of_counter(m, s, x->kids[1], &out->col) && out->row != out->col;
}

/* The factors of a product (x * y * ...), in order; at most `cap`. */
static size_t factors(const ch_ir *x, const ch_ir **out, size_t n, size_t cap)
{
    if (x->kind == CH_IR_BINARY && strcmp(x->text, "*") == 0) {
        n = factors(x->kids[0], out, n, cap);
        return factors(x->kids[1], out, n, cap);
    }
    if (n < cap)
        out[n] = x;
    return n + 1;
}

/* The product of the invariant factors as C ("1" when none), or NULL when a factor that is not a
 * matrix read is not invariant or has another type than the matrices. */
static char *scale_of(const ch_entry *e, const ch_ir **f, size_t n, const ch_ir *skip1,
                      const ch_ir *skip2, ch_scalar elem)
{
    ch_strbuf b;
    ch_strbuf_init(&b);
    for (size_t i = 0; i < n; i++) {
        if (f[i] == skip1 || f[i] == skip2)
            continue;
        const ch_param *sp = scalar_param(e, f[i]);
        int literal = f[i]->kind == CH_IR_INT_LIT || f[i]->kind == CH_IR_FLOAT_LIT;
        if (!(literal || (sp && sp->elem == elem))) {
            ch_strbuf_free(&b);
            return NULL;
        }
        char *t = expr_text(f[i]);
        ch_strbuf_addf(&b, "%s(%s)", b.len ? " * " : "", t);
        free(t);
    }
    if (!b.len)
        ch_strbuf_adds(&b, "1");
    return ch_strbuf_detach(&b);
}

static const ch_ir *assignment(const ch_tr_stmt *s)
{
    const ch_ir *x = s->ir;
    if (x->kind != CH_IR_EXPR_STMT || x->nkids != 1 || x->kids[0]->kind != CH_IR_ASSIGN)
        return NULL;
    return x->kids[0];
}

static int plain(const ch_tr_stmt *s)
{
    return !s->may && !s->unbounded && s->n_guards == 0;
}

/* The accumulation `C[r][c] += SCALARS * A[..] * B[..]` (or `C = C + ...`) over three loops. */
static int match_update(const ch_tr_model *m, const ch_tr_stmt *s, ch_tr_gemm *g, matrix_ref *cref)
{
    const ch_ir *as = assignment(s);
    if (!as || !plain(s) || s->n_loops != 3 || !matrix_of(m, s, as->kids[0], cref))
        return 0;
    const ch_ir *sum = NULL;
    if (strcmp(as->text, "+=") == 0)
        sum = as->kids[1];
    else if (strcmp(as->text, "=") == 0 && as->kids[1]->kind == CH_IR_BINARY &&
             strcmp(as->kids[1]->text, "+") == 0) {
        const ch_ir *l = as->kids[1]->kids[0], *r = as->kids[1]->kids[1];
        sum = ch_ir_same(l, as->kids[0]) ? r : ch_ir_same(r, as->kids[0]) ? l : NULL;
    }
    if (!sum)
        return 0;
    const ch_ir *f[8];
    size_t n = factors(sum, f, 0, 8);
    if (n > 8)
        return 0;
    const ch_ir *fa = NULL, *fb = NULL;
    matrix_ref a = {0}, b = {0};
    size_t k = 3 - cref->row - cref->col; /* the loop that is not an output subscript */
    for (size_t i = 0; i < n; i++) {
        matrix_ref r;
        if (!matrix_of(m, s, f[i], &r))
            continue;
        int has_row = r.row == cref->row || r.col == cref->row;
        int has_col = r.row == cref->col || r.col == cref->col;
        int has_k = r.row == k || r.col == k;
        if (has_row && has_k && !fa) {
            fa = f[i];
            a = r;
        } else if (has_col && has_k && !fb) {
            fb = f[i];
            b = r;
        } else {
            return 0; /* a third matrix, or one that is no GEMM operand */
        }
    }
    if (!fa || !fb)
        return 0;
    ch_scalar t = cref->p->elem;
    if ((t != CH_T_FLOAT && t != CH_T_DOUBLE) || a.p->elem != t || b.p->elem != t ||
        cref->p->is_const || a.p == cref->p || b.p == cref->p)
        return 0;
    g->elem = t;
    g->c = cref->p->name;
    g->a = a.p->name;
    g->b = b.p->name;
    g->trans_a = a.row == k;
    g->trans_b = b.col == k;
    g->alpha = scale_of(m->entry, f, n, fa, fb, t);
    if (!g->alpha)
        return 0;
    const ch_entry *e = m->entry;
    g->m = loop_extent(e, &m->loops[s->loops[cref->row]]);
    g->n = loop_extent(e, &m->loops[s->loops[cref->col]]);
    g->k = loop_extent(e, &m->loops[s->loops[k]]);
    g->lda = row_length(&a);
    g->ldb = row_length(&b);
    g->ldc = row_length(cref);
    return g->m && g->n && g->k;
}

static int same_text(const char *a, char *b)
{
    int same = a && b && strcmp(a, b) == 0;
    free(b);
    return same;
}

/* The statement before the accumulation that sets beta: `C[r][c] *= BETA`, `C[r][c] = BETA *
 * C[r][c]` or `C[r][c] = 0`, over loops on the same ranges as the accumulation's. */
static int match_scale(const ch_tr_model *m, const ch_tr_stmt *s, ch_tr_gemm *g)
{
    const ch_ir *as = assignment(s);
    matrix_ref c;
    if (!as || !plain(s) || s->n_loops != 2 || !matrix_of(m, s, as->kids[0], &c) ||
        strcmp(c.p->name, g->c) != 0)
        return 0;
    const ch_entry *e = m->entry;
    if (!same_text(g->m, loop_extent(e, &m->loops[s->loops[c.row]])) ||
        !same_text(g->n, loop_extent(e, &m->loops[s->loops[c.col]])))
        return 0;
    if (strcmp(as->text, "*=") == 0) {
        const ch_ir *f[8];
        size_t n = factors(as->kids[1], f, 0, 8);
        g->beta = n <= 8 ? scale_of(e, f, n, NULL, NULL, g->elem) : NULL;
        return g->beta != NULL;
    }
    if (strcmp(as->text, "=") != 0)
        return 0;
    const ch_ir *rhs = as->kids[1];
    if ((rhs->kind == CH_IR_INT_LIT && rhs->ival == 0) ||
        (rhs->kind == CH_IR_FLOAT_LIT && rhs->fval == 0)) {
        g->beta = ch_xstrdup("0");
        return 1;
    }
    const ch_ir *f[8], *self = NULL;
    size_t n = factors(rhs, f, 0, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (ch_ir_same(f[i], as->kids[0]) && !self)
            self = f[i];
    g->beta = self && n <= 8 ? scale_of(e, f, n, self, NULL, g->elem) : NULL;
    return g->beta != NULL;
}

int ch_tr_gemm_match(const ch_tr_model *m, ch_tr_gemm *g)
{
    memset(g, 0, sizeof *g);
    if (m->n_stmts < 1 || m->n_stmts > 2 || m->converted)
        return 0;
    for (size_t a = 0; a < m->n_arrays; a++)
        if (m->arrays[a].decl)
            return 0; /* a local takes part: the body is more than the operation */
    matrix_ref c;
    int ok = match_update(m, &m->stmts[m->n_stmts - 1], g, &c);
    if (ok && m->n_stmts == 2)
        ok = match_scale(m, &m->stmts[0], g);
    else if (ok)
        g->beta = ch_xstrdup("1");
    if (!ok)
        ch_tr_gemm_free(g);
    return ok;
}

char *ch_tr_library_cuda(const ch_tr_model *m, ch_tr_precision prec, const char *header)
{
    const ch_entry *e = m->entry;
    ch_tr_gemm g;
    if (!ch_tr_precision_admitted(e, prec) || !ch_tr_gemm_match(m, &g))
        return NULL;
    if (prec == CH_TR_PREC_TF32 && g.elem != CH_T_FLOAT) {
        ch_tr_gemm_free(&g);
        return NULL;
    }
    ch_strbuf params, host;
    ch_strbuf_init(&params);
    ch_strbuf_init(&host);
    tr_launcher_params(e, &params);
    tr_emit_host_launcher(e, &host);
    char line[32];
    snprintf(line, sizeof line, "%u", e->fn_line);
    int dbl = g.elem == CH_T_DOUBLE;
    const char *vars[] = {"HEADER",
                          header ? header : "ch-cc translator",
                          "NAME",
                          e->name,
                          "FILE",
                          e->file,
                          "LINE",
                          line,
                          "T",
                          ch_scalar_name(g.elem),
                          "DT",
                          dbl ? "CUDA_R_64F" : "CUDA_R_32F",
                          "COMPUTE",
                          dbl                       ? "CUBLAS_COMPUTE_64F"
                          : prec == CH_TR_PREC_TF32 ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                                                    : "CUBLAS_COMPUTE_32F",
                          "PRECISION",
                          dbl                       ? "fp64"
                          : prec == CH_TR_PREC_TF32 ? "tf32"
                                                    : "fp32",
                          "A",
                          g.a,
                          "B",
                          g.b,
                          "C",
                          g.c,
                          "OPA",
                          g.trans_a ? "CUBLAS_OP_T" : "CUBLAS_OP_N",
                          "OPB",
                          g.trans_b ? "CUBLAS_OP_T" : "CUBLAS_OP_N",
                          "M",
                          g.m,
                          "N",
                          g.n,
                          "K",
                          g.k,
                          "LDA",
                          g.lda,
                          "LDB",
                          g.ldb,
                          "LDC",
                          g.ldc,
                          "ALPHA",
                          g.alpha,
                          "BETA",
                          g.beta,
                          "OPA_TEXT",
                          g.trans_a ? "transposed" : "",
                          "OPB_TEXT",
                          g.trans_b ? "transposed" : "",
                          "PARAMS",
                          params.data,
                          "HOST_LAUNCHER",
                          host.data,
                          NULL};
    const char *tmpl = ch_embedded_text(ch_template_files, "gemm_cublas.cu");
    assert(tmpl && "templates/gemm_cublas.cu is built into the binary");
    char *src = ch_template_fill(tmpl, vars);
    ch_strbuf_free(&params);
    ch_strbuf_free(&host);
    ch_tr_gemm_free(&g);
    return src;
}
