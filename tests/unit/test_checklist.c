/* Unit tests of the checklist module: expression evaluation, derivation from hand-built entries
 * (elementwise, 2-D array parameter, time-loop stencil, GEMM-like nest, gather, spec-decl),
 * JSON round trips and the validator's field-level messages on broken JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "ch/checklist.h"

/* ---- IR and entry builders ---- */

static ch_ir *var(const char *name, int pidx)
{
    ch_ir *v = ch_ir_new(CH_IR_VAR, 0, 0);
    v->text = ch_xstrdup(name);
    v->param_index = pidx;
    return v;
}

static ch_ir *lit(long long x)
{
    ch_ir *v = ch_ir_new(CH_IR_INT_LIT, 0, 0);
    v->text = ch_xasprintf("%lld", x);
    v->ival = x;
    v->type = CH_T_INT;
    return v;
}

static ch_ir *bin(const char *op, ch_ir *a, ch_ir *b)
{
    ch_ir *v = ch_ir_new(CH_IR_BINARY, 0, 0);
    v->text = ch_xstrdup(op);
    ch_ir_add(v, a);
    ch_ir_add(v, b);
    return v;
}

static ch_ir *idx(ch_ir *base, ch_ir *i)
{
    ch_ir *v = ch_ir_new(CH_IR_INDEX, 0, 0);
    ch_ir_add(v, base);
    ch_ir_add(v, i);
    return v;
}

static ch_ir *assign(const char *op, ch_ir *lhs, ch_ir *rhs)
{
    ch_ir *a = ch_ir_new(CH_IR_ASSIGN, 0, 0);
    a->text = ch_xstrdup(op);
    ch_ir_add(a, lhs);
    ch_ir_add(a, rhs);
    ch_ir *s = ch_ir_new(CH_IR_EXPR_STMT, 0, 0);
    ch_ir_add(s, a);
    return s;
}

static ch_ir *block(ch_ir *kid)
{
    ch_ir *b = ch_ir_new(CH_IR_BLOCK, 0, 0);
    if (kid)
        ch_ir_add(b, kid);
    return b;
}

/* for (int v = lo; v < hi; v++) body */
static ch_ir *loop(const char *v, ch_ir *lo, ch_ir *hi, ch_ir *body)
{
    ch_ir *f = ch_ir_new(CH_IR_FOR, 0, 0);
    ch_ir *d = ch_ir_new(CH_IR_DECL, 0, 0);
    d->text = ch_xstrdup(v);
    d->ctype = ch_xstrdup("int");
    ch_ir_add(d, lo);
    ch_ir_add(f, d);
    ch_ir_add(f, bin("<", var(v, -1), hi));
    ch_ir *inc = ch_ir_new(CH_IR_UNARY, 0, 0);
    inc->text = ch_xstrdup("++");
    inc->postfix = 1;
    ch_ir_add(inc, var(v, -1));
    ch_ir_add(f, inc);
    ch_ir_add(f, body);
    return f;
}

static ch_param *add_param(ch_entry *e, const char *name, const char *type, ch_role role,
                           ch_scalar elem, ch_dir dir, const char *extent)
{
    e->params = ch_xrealloc(e->params, (e->n_params + 1) * sizeof *e->params);
    ch_param *p = &e->params[e->n_params++];
    memset(p, 0, sizeof *p);
    p->name = ch_xstrdup(name);
    p->type = ch_xstrdup(type);
    p->role = role;
    p->elem = elem;
    p->dir = dir;
    p->extent = extent ? ch_xstrdup(extent) : NULL;
    return p;
}

static void start(ch_entry *e, const char *name, ch_kind kind, const char *sig, const char *spec)
{
    memset(e, 0, sizeof *e);
    e->name = ch_xstrdup(name);
    e->kind = kind;
    e->signature = ch_xstrdup(sig);
    e->spec = spec ? ch_xstrdup(spec) : NULL;
    e->return_type = CH_T_VOID;
}

static void add_tune(ch_entry *e, const char *name, const char *expr)
{
    ch_clauses *c = &e->clauses;
    c->tune = ch_xrealloc(c->tune, (c->n_tune + 1) * sizeof *c->tune);
    c->tune[c->n_tune].name = ch_xstrdup(name);
    c->tune[c->n_tune].expr = ch_xstrdup(expr);
    c->tune[c->n_tune].line = c->tune[c->n_tune].col = 1;
    c->n_tune++;
}

/* void saxpy(int n, float a, const float *x, float *y) { y[i] = a*x[i] + y[i] } */
static void make_saxpy(ch_entry *e)
{
    start(e, "saxpy", CH_KIND_C_DEF, "void saxpy(int n, float a, const float *x, float *y)", NULL);
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "a", "float", CH_ROLE_SCALAR, CH_T_FLOAT, CH_DIR_NONE, NULL);
    add_param(e, "x", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "n");
    add_param(e, "y", "float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_INOUT, "n");
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] + y "
                                "[ i ] ; }");
    ch_ir *rhs = bin("+", bin("*", var("a", 1), idx(var("x", 2), var("i", -1))),
                     idx(var("y", 3), var("i", -1)));
    e->body =
        block(loop("i", lit(0), var("n", 0), assign("=", idx(var("y", 3), var("i", -1)), rhs)));
}

/* void scale2d(int n, int m, double alpha, double A[n][m]) { A[i][j] *= alpha } */
static void make_scale2d(ch_entry *e)
{
    start(e, "scale2d", CH_KIND_C_DEF, "void scale2d(int n, int m, double alpha, double A[n][m])",
          NULL);
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "m", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "alpha", "double", CH_ROLE_SCALAR, CH_T_DOUBLE, CH_DIR_NONE, NULL);
    ch_param *a =
        add_param(e, "A", "double [n][m]", CH_ROLE_ARRAY, CH_T_DOUBLE, CH_DIR_INOUT, "n*m");
    a->dims = ch_xcalloc(2, sizeof *a->dims);
    a->dims[0] = ch_xstrdup("n");
    a->dims[1] = ch_xstrdup("m");
    a->ndims = 2;
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int i = 0 ; i < n ; i ++ ) { for ( int j = 0 ; j < m ; "
                                "j ++ ) { A [ i ] [ j ] *= alpha ; } } }");
    ch_ir *s = assign("*=", idx(idx(var("A", 3), var("i", -1)), var("j", -1)), var("alpha", 2));
    e->body =
        block(loop("i", lit(0), var("n", 0), block(loop("j", lit(0), var("m", 1), block(s)))));
}

/* void jacobi1d(int tsteps, int n, double *A, double *B): time loop around two sweeps */
static void make_jacobi(ch_entry *e)
{
    start(e, "jacobi1d", CH_KIND_C_DEF, "void jacobi1d(int tsteps, int n, double *A, double *B)",
          NULL);
    add_param(e, "tsteps", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "A", "double *", CH_ROLE_POINTER, CH_T_DOUBLE, CH_DIR_INOUT, "n");
    add_param(e, "B", "double *", CH_ROLE_POINTER, CH_T_DOUBLE, CH_DIR_INOUT, "n");
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int t = 0 ; t < tsteps ; t ++ ) { for ( int i = 1 ; i < "
                                "n - 1 ; i ++ ) B [ i ] = ( A [ i - 1 ] + A [ i ] + A [ i + 1 ] ) "
                                "/ 3 ; for ( int i = 1 ; i < n - 1 ; i ++ ) A [ i ] = B [ i ] ; } "
                                "}");
    ch_ir *sum = bin(
        "+",
        bin("+", idx(var("A", 2), bin("-", var("i", -1), lit(1))), idx(var("A", 2), var("i", -1))),
        idx(var("A", 2), bin("+", var("i", -1), lit(1))));
    ch_ir *s1 = loop("i", lit(1), bin("-", var("n", 1), lit(1)),
                     assign("=", idx(var("B", 3), var("i", -1)), bin("/", sum, lit(3))));
    ch_ir *s2 = loop("i", lit(1), bin("-", var("n", 1), lit(1)),
                     assign("=", idx(var("A", 2), var("i", -1)), idx(var("B", 3), var("i", -1))));
    ch_ir *tb = block(s1);
    ch_ir_add(tb, s2);
    e->body = block(loop("t", lit(0), var("tsteps", 0), tb));
}

/* void gemm(int n, const float *A, const float *B, float *C): three nested loops */
static void make_gemm(ch_entry *e)
{
    start(e, "gemm", CH_KIND_C_DEF, "void gemm(int n, const float *A, const float *B, float *C)",
          NULL);
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "A", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "n*n");
    add_param(e, "B", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "n*n");
    add_param(e, "C", "float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_INOUT, "n*n");
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int i = 0 ; i < n ; i ++ ) for ( int j = 0 ; j < n ; j "
                                "++ ) for ( int k = 0 ; k < n ; k ++ ) C [ i * n + j ] += A [ i * "
                                "n + k ] * B [ k * n + j ] ; }");
    ch_ir *ij = bin("+", bin("*", var("i", -1), var("n", 0)), var("j", -1));
    ch_ir *ik = bin("+", bin("*", var("i", -1), var("n", 0)), var("k", -1));
    ch_ir *kj = bin("+", bin("*", var("k", -1), var("n", 0)), var("j", -1));
    ch_ir *s =
        assign("+=", idx(var("C", 3), ij), bin("*", idx(var("A", 1), ik), idx(var("B", 2), kj)));
    e->body = block(loop("i", lit(0), var("n", 0),
                         loop("j", lit(0), var("n", 0), loop("k", lit(0), var("n", 0), s))));
}

/* void gather(int n, int m, int off, const int *idx, const float *x, float *y, unsigned *cnt) */
static void make_gather(ch_entry *e)
{
    start(e, "gather", CH_KIND_SPEC_DEF,
          "void gather(int n, int m, int off, const int *ix, const float *x, float *y, unsigned "
          "int *cnt)",
          "y[i] = x[ix[i]] + off");
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "m", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "off", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    ch_param *ix = add_param(e, "ix", "const int *", CH_ROLE_POINTER, CH_T_INT, CH_DIR_IN, "n");
    ix->is_index = 1;
    ix->index_hi = ch_xstrdup("m");
    add_param(e, "x", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "m");
    add_param(e, "y", "float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_OUT, "n");
    add_param(e, "cnt", "unsigned int *", CH_ROLE_POINTER, CH_T_UINT, CH_DIR_INOUT, "n");
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int i = 0 ; i < n ; i ++ ) { y [ i ] = x [ ix [ i ] ] + "
                                "off ; cnt [ i ] ++ ; } }");
    ch_ir *b =
        block(assign("=", idx(var("y", 5), var("i", -1)),
                     bin("+", idx(var("x", 4), idx(var("ix", 3), var("i", -1))), var("off", 2))));
    e->body = block(loop("i", lit(0), var("n", 0), b));
}

/* PolyBench's shape: fixed arrays, sizes that only bound loops, and a time loop.
 * void fixed(int tsteps, int ni, int nj, double C[40][1100], double A[40][1100]):
 *   for t < tsteps: for i < ni: for j <= nj: C[i][j] += A[i + 1][j - 1] */
static void make_fixed(ch_entry *e)
{
    start(e, "fixed", CH_KIND_C_DEF,
          "void fixed(int tsteps, int ni, int nj, double C[40][1100], double A[40][1100])", NULL);
    add_param(e, "tsteps", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "ni", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "nj", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    const char *names[2] = {"C", "A"};
    for (int k = 0; k < 2; k++) {
        ch_param *a = add_param(e, names[k], "double [40][1100]", CH_ROLE_ARRAY, CH_T_DOUBLE,
                                k ? CH_DIR_IN : CH_DIR_INOUT, "44000");
        a->dims = ch_xcalloc(2, sizeof *a->dims);
        a->dims[0] = ch_xstrdup("40");
        a->dims[1] = ch_xstrdup("1100");
        a->ndims = 2;
    }
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int t = 0 ; t < tsteps ; t ++ ) for ( int i = 0 ; i < ni "
                                "; i ++ ) for ( int j = 0 ; j <= nj ; j ++ ) C [ i ] [ j ] += A [ "
                                "i + 1 ] [ j - 1 ] ; }");
    ch_ir *s = assign(
        "+=", idx(idx(var("C", 3), var("i", -1)), var("j", -1)),
        idx(idx(var("A", 4), bin("+", var("i", -1), lit(1))), bin("-", var("j", -1), lit(1))));
    ch_ir *jl = loop("j", lit(0), var("nj", 2), s);
    free(jl->kids[1]->text);
    jl->kids[1]->text = ch_xstrdup("<=");
    e->body = block(loop("t", lit(0), var("tsteps", 0), loop("i", lit(0), var("ni", 1), jl)));
}

/* A stencil over fixed arrays: void st(int n, double B[1300][1300], double A[1300][1300]):
 *   for 1 <= i < n - 1: for 1 <= j < n - 1: B[i][j] = A[i + 1][j] */
static void make_fixed_stencil(ch_entry *e)
{
    start(e, "st", CH_KIND_C_DEF, "void st(int n, double B[1300][1300], double A[1300][1300])",
          NULL);
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    const char *names[2] = {"B", "A"};
    for (int k = 0; k < 2; k++) {
        ch_param *a = add_param(e, names[k], "double [1300][1300]", CH_ROLE_ARRAY, CH_T_DOUBLE,
                                k ? CH_DIR_IN : CH_DIR_INOUT, "1690000");
        a->dims = ch_xcalloc(2, sizeof *a->dims);
        a->dims[0] = ch_xstrdup("1300");
        a->dims[1] = ch_xstrdup("1300");
        a->ndims = 2;
    }
    e->has_body = 1;
    e->body_tokens = ch_xstrdup("{ for ( int i = 1 ; i < n - 1 ; i ++ ) for ( int j = 1 ; j < n - "
                                "1 ; j ++ ) B [ i ] [ j ] = A [ i + 1 ] [ j ] ; }");
    ch_ir *s = assign("=", idx(idx(var("B", 1), var("i", -1)), var("j", -1)),
                      idx(idx(var("A", 2), bin("+", var("i", -1), lit(1))), var("j", -1)));
    e->body = block(loop("i", lit(1), bin("-", var("n", 0), lit(1)),
                         loop("j", lit(1), bin("-", var("n", 0), lit(1)), s)));
}

static void make_vadd_decl(ch_entry *e)
{
    start(e, "vadd", CH_KIND_SPEC_DECL,
          "void vadd(int n, const float *a, const float *b, float *c)",
          "c[i] = a[i] + b[i] for every i below n");
    add_param(e, "n", "int", CH_ROLE_SCALAR, CH_T_INT, CH_DIR_NONE, NULL);
    add_param(e, "a", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "n");
    add_param(e, "b", "const float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_IN, "n");
    add_param(e, "c", "float *", CH_ROLE_POINTER, CH_T_FLOAT, CH_DIR_OUT, "n");
}

/* ---- helpers ---- */

static long long sz(const ch_ck_size *s, const char *name)
{
    long long v = -12345;
    cr_assert_eq(ch_ck_size_get(s, name, &v), 0, "size set lacks '%s'", name);
    return v;
}

static void derive_ok(const ch_entry *e, ch_checklist *c)
{
    ch_error err = {0};
    int rc = ch_checklist_derive(e, c, &err);
    cr_assert_eq(rc, 0, "derive failed: %s", err.msg);
}

static double total_bytes(const ch_checklist *c, const ch_ck_size *s)
{
    double b = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        long long ext;
        ch_error err;
        cr_assert_eq(ch_checklist_eval(p->extent, s, &ext, &err), 0, "%s", err.msg);
        b += (double)ext * (double)ch_scalar_size(p->elem);
    }
    return b;
}

static void assert_roundtrip(const ch_checklist *c)
{
    char *j1 = ch_checklist_to_json(c);
    ch_checklist back;
    ch_error err = {0};
    cr_assert_eq(ch_checklist_from_json(j1, &back, &err), 0, "from_json: %s\n%s", err.msg, j1);
    char *j2 = ch_checklist_to_json(&back);
    cr_assert_str_eq(j1, j2);
    free(j1);
    free(j2);
    ch_checklist_free(&back);
}

/* ---- expression evaluation ---- */

static ch_ck_size nm_size(void)
{
    ch_ck_size s = {0};
    ch_ck_size_set(&s, "n", 10);
    ch_ck_size_set(&s, "m", 3);
    ch_ck_size_set(&s, "big", 4611686018427387904LL);
    return s;
}

static long long eval_ok(const char *expr)
{
    ch_ck_size s = nm_size();
    ch_error err = {0};
    long long v = -999;
    int rc = ch_checklist_eval(expr, &s, &v, &err);
    ch_ck_size_free(&s);
    cr_assert_eq(rc, 0, "eval '%s': %s", expr, err.msg);
    return v;
}

static void eval_err(const char *expr, const char *msg)
{
    ch_ck_size s = nm_size();
    ch_error err = {0};
    long long v = -999;
    int rc = ch_checklist_eval(expr, &s, &v, &err);
    ch_ck_size_free(&s);
    cr_assert_eq(rc, -1, "eval '%s' should fail", expr);
    cr_assert_str_eq(err.msg, msg);
    cr_assert_eq(v, -999, "value must be untouched on error");
}

Test(eval, arithmetic_and_precedence)
{
    cr_assert_eq(eval_ok("n"), 10);
    cr_assert_eq(eval_ok("m*n"), 30);
    cr_assert_eq(eval_ok("n + m * 2"), 16);
    cr_assert_eq(eval_ok("(n + m) * 2"), 26);
    cr_assert_eq(eval_ok("n - m - 1"), 6);
    cr_assert_eq(eval_ok("n / m"), 3);
    cr_assert_eq(eval_ok("n % m"), 1);
    cr_assert_eq(eval_ok("-n + 1"), -9);
    cr_assert_eq(eval_ok("- -n"), 10);
    cr_assert_eq(eval_ok("min(n, m)"), 3);
    cr_assert_eq(eval_ok("max(n, m*4)"), 12);
    cr_assert_eq(eval_ok("min(max(n,1), 100) * (m+1)"), 40);
    cr_assert_eq(eval_ok("1 << 20"), 1048576);
    cr_assert_eq(eval_ok("0x10 + 7u"), 23);
    cr_assert_eq(eval_ok("(n-1)*m + (m-1) + 1"), 30);
    cr_assert_eq(eval_ok("  42  "), 42);
}

Test(eval, errors)
{
    eval_err("n / (m - 3)", "division by zero in 'n / (m - 3)'");
    eval_err("n % 0", "division by zero in 'n % 0'");
    eval_err("big * 2", "integer overflow in 'big * 2'");
    eval_err("big + big", "integer overflow in 'big + big'");
    eval_err("k * n", "unknown name 'k'");
    eval_err("n +", "expected an operand at end of 'n +'");
    eval_err("(n + m", "expected ')' at end of '(n + m'");
    eval_err("n m", "unexpected text at 'm' in 'n m'");
    eval_err("", "expected an operand at end of ''");
    eval_err("foo(n)", "unknown function 'foo' in 'foo(n)'");
    eval_err("min(n)", "expected ',' at ')' in 'min(n)'");
    eval_err("n # 2", "unexpected text at '# 2' in 'n # 2'");
    eval_err("99999999999999999999", "integer literal out of range in '99999999999999999999'");
}

Test(eval, names)
{
    ch_strvec v;
    ch_strvec_init(&v);
    ch_error err = {0};
    cr_assert_eq(ch_checklist_expr_names("min(n, m) * n + k / (q - q)", &v, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(v.len, 4);
    cr_assert_str_eq(v.items[0], "n");
    cr_assert_str_eq(v.items[1], "m");
    cr_assert_str_eq(v.items[2], "k");
    cr_assert_str_eq(v.items[3], "q");
    ch_strvec_free(&v);
    ch_strvec_init(&v);
    cr_assert_eq(ch_checklist_expr_names("n * (", &v, &err), -1);
    cr_assert_str_eq(err.msg, "expected an operand at end of 'n * ('");
    ch_strvec_free(&v);
}

/* ---- derivation ---- */

Test(derive, saxpy_elementwise)
{
    ch_entry e;
    make_saxpy(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    cr_assert_str_eq(c.name, "saxpy");
    cr_assert_eq(c.kind, CH_KIND_C_DEF);
    cr_assert_str_eq(c.reference, "{\n    for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];\n}");
    cr_assert_str_eq(c.description,
                     "C function void saxpy(int n, float a, const float *x, float *y)\n{\n    "
                     "for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];\n}");
    cr_assert_eq(c.n_params, 4);
    const ch_ck_param *n = ch_checklist_param(&c, "n"), *a = ch_checklist_param(&c, "a");
    const ch_ck_param *x = ch_checklist_param(&c, "x"), *y = ch_checklist_param(&c, "y");
    cr_assert(ch_ck_param_is_size(n));
    cr_assert(a->has_range && a->lo == -1 && a->hi == 1);
    cr_assert(x->has_range && x->lo == -1 && x->hi == 1);
    cr_assert_eq(x->dir, CH_DIR_IN);
    cr_assert_str_eq(x->extent, "n");
    cr_assert_eq(y->dir, CH_DIR_INOUT);
    cr_assert_eq(y->rtol, 1e-4);
    cr_assert_eq(y->atol, 1e-5);
    cr_assert_eq(x->rtol, 0);
    cr_assert_eq(c.n_smoke, 3);
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(c.smoke[i].n, 1);
        cr_assert_eq(sz(&c.smoke[i], "n"), (long long)i + 1);
    }
    cr_assert_eq(c.n_correctness, 3);
    cr_assert_eq(sz(&c.correctness[0], "n"), 37);
    cr_assert_eq(sz(&c.correctness[1], "n"), 129);
    cr_assert_eq(sz(&c.correctness[2], "n"), 1023);
    /* two float buffers of n elements: 8 bytes * 2^25 = 256 MiB exactly */
    cr_assert_eq(sz(&c.tune, "n"), 1LL << 25);
    cr_assert_eq(total_bytes(&c, &c.tune), 256.0 * 1024 * 1024);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, array_param_2d_and_tol_override)
{
    ch_entry e;
    make_scale2d(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    const ch_ck_param *A = ch_checklist_param(&c, "A");
    cr_assert_eq(A->role, CH_ROLE_ARRAY);
    cr_assert_str_eq(A->type, "double [n][m]");
    cr_assert_str_eq(A->extent, "n*m");
    cr_assert_eq(A->rtol, 1e-9);
    cr_assert_eq(A->atol, 1e-12);
    cr_assert(ch_checklist_param(&c, "alpha")->has_range);
    cr_assert(ch_ck_param_is_size(ch_checklist_param(&c, "m")));
    cr_assert_str_eq(c.reference, "{\n    for (int i = 0; i < n; i++) {\n        for (int j = 0; "
                                  "j < m; j++) {\n            A[i][j] *= alpha;\n        }\n    "
                                  "}\n}");
    /* 2-D: scaled down, odd, and distinct per dimension */
    cr_assert_eq(c.n_correctness, 3);
    long long want[3][2] = {{13, 15}, {37, 39}, {129, 131}};
    for (size_t i = 0; i < 3; i++) {
        long long vn = sz(&c.correctness[i], "n"), vm = sz(&c.correctness[i], "m");
        cr_assert_eq(vn, want[i][0]);
        cr_assert_eq(vm, want[i][1]);
        cr_assert(vn % 2 == 1 && vn % 32 != 0 && vm % 32 != 0);
    }
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(sz(&c.smoke[i], "n"), (long long)i + 1);
        cr_assert_eq(sz(&c.smoke[i], "m"), (long long)i + 1);
    }
    /* largest square with 8*s*s <= 256 MiB */
    cr_assert_eq(sz(&c.tune, "n"), 5792);
    cr_assert_eq(sz(&c.tune, "m"), 5792);
    ch_checklist_free(&c);

    e.clauses.has_tol = 1;
    e.clauses.tol = 1e-6;
    derive_ok(&e, &c);
    cr_assert_eq(ch_checklist_param(&c, "A")->rtol, 1e-6);
    cr_assert_eq(ch_checklist_param(&c, "A")->atol, 1e-12);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, stencil_with_time_loop)
{
    ch_entry e;
    make_jacobi(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    /* tsteps bounds a loop, so it is a size (not a ranged scalar) */
    cr_assert(ch_ck_param_is_size(ch_checklist_param(&c, "tsteps")));
    cr_assert_eq(c.n_smoke, 3);
    cr_assert_eq(sz(&c.smoke[2], "tsteps"), 3);
    cr_assert_eq(sz(&c.smoke[2], "n"), 3);
    long long ns[3] = {37, 129, 1023}, ts[3] = {5, 7, 11};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(sz(&c.correctness[i], "n"), ns[i]);
        cr_assert_eq(sz(&c.correctness[i], "tsteps"), ts[i]);
    }
    /* two double buffers: n = 256 MiB / 16 bytes; 100 time steps stay under the work cap */
    cr_assert_eq(sz(&c.tune, "n"), 16777216);
    cr_assert_eq(sz(&c.tune, "tsteps"), 100);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, gemm_work_cap)
{
    ch_entry e;
    make_gemm(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    long long n = sz(&c.tune, "n");
    /* buffers alone would allow n = 4729 (12 n^2 <= 256 MiB); the n^3 nest caps it */
    cr_assert_lt(n, 4729);
    double work = 2.0 * (double)n * n * n; /* two IR statements per innermost iteration */
    cr_assert_leq(work, 1.01e10, "n = %lld", n);
    cr_assert_gt(2.0 * (double)(n + 10) * (n + 10) * (n + 10), 1e10, "n = %lld too small", n);
    ch_checklist_free(&c);

    add_tune(&e, "n", "1 << 12");
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "n"), 4096); /* tune() wins over the cap */
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

/* Sizes that bound loops over fixed dimensions tune at the largest valid value (the size a
 * caller passes), not at the 100 of a time loop: ni < 40 - 1 (A[i + 1]), nj <= 1100 - 1 (C[i][j]
 * with j <= nj); tsteps bounds no subscript and stays a count of repeats. */
Test(derive, loop_sizes_over_fixed_dimensions)
{
    ch_entry e;
    make_fixed(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "ni"), 39);
    cr_assert_eq(sz(&c.tune, "nj"), 1099);
    cr_assert_eq(sz(&c.tune, "tsteps"), 100);
    /* the small sets stay within the same bounds */
    for (size_t i = 0; i < c.n_correctness; i++)
        cr_assert_leq(sz(&c.correctness[i], "ni"), 39);
    ch_checklist_free(&c);
    ch_entry_free(&e);

    /* a stencil's `i < n - 1` with A[i + 1]: i + 1 < 1300 for i up to n - 2, so n <= 1300 */
    make_fixed_stencil(&e);
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "n"), 1300);
    ch_checklist_free(&c);
    ch_entry_free(&e);

    /* the same with the subscript written 1 + i */
    make_fixed_stencil(&e);
    ch_ir *sub = e.body->kids[0]->kids[3]->kids[3]->kids[0]->kids[1]->kids[0]->kids[1];
    cr_assert_str_eq(sub->text, "+");
    ch_ir *t = sub->kids[0];
    sub->kids[0] = sub->kids[1];
    sub->kids[1] = t;
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "n"), 1300);
    ch_checklist_free(&c);
    ch_entry_free(&e);

    /* a counter that reaches a subscript through a local (int k = i + 1; ... A[k]) bounds
     * nothing the derivation can see: n stays a count of repeats, never past a real bound */
    make_fixed_stencil(&e);
    ch_ir *d = ch_ir_new(CH_IR_DECL, 0, 0);
    d->text = ch_xstrdup("k");
    d->ctype = ch_xstrdup("int");
    ch_ir_add(d, bin("+", var("i", -1), lit(1)));
    ch_ir *iloop = e.body->kids[0];
    ch_ir *jloop = iloop->kids[3];
    ch_ir *body = block(d);
    ch_ir_add(body, jloop);
    iloop->kids[3] = body;
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "n"), 100);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, gather_index_array)
{
    ch_entry e;
    make_gather(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    cr_assert_str_eq(c.description, "y[i] = x[ix[i]] + off");
    const ch_ck_param *ix = ch_checklist_param(&c, "ix");
    cr_assert_str_eq(ix->index_of, "x");
    cr_assert_str_eq(ix->index_hi, "m");
    cr_assert_eq(ix->has_range, 0);
    const ch_ck_param *off = ch_checklist_param(&c, "off");
    cr_assert(off->has_range && off->lo == -100 && off->hi == 100, "off is no size");
    const ch_ck_param *cnt = ch_checklist_param(&c, "cnt");
    cr_assert(cnt->has_range && cnt->lo == 0 && cnt->hi == 100);
    cr_assert_eq(cnt->rtol, 0);
    cr_assert_eq(cnt->atol, 0);
    const ch_ck_param *y = ch_checklist_param(&c, "y");
    cr_assert_eq(y->dir, CH_DIR_OUT);
    cr_assert_eq(y->rtol, 1e-4);
    cr_assert_eq(c.smoke[0].n, 2, "sizes n, m only");
    cr_assert_eq(sz(&c.correctness[0], "n"), 37);
    cr_assert_eq(sz(&c.correctness[0], "m"), 39);
    /* n*(4+4+4) + m*4 with n = m: 16 bytes per step */
    cr_assert_eq(sz(&c.tune, "n"), 16777216);
    cr_assert_eq(sz(&c.tune, "m"), 16777216);
    assert_roundtrip(&c);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, spec_decl)
{
    ch_entry e;
    make_vadd_decl(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    cr_assert_eq(c.kind, CH_KIND_SPEC_DECL);
    cr_assert_str_eq(c.description, "c[i] = a[i] + b[i] for every i below n");
    cr_assert_null(c.reference);
    cr_assert_eq(ch_checklist_param(&c, "c")->rtol, 1e-4);
    cr_assert_eq(sz(&c.smoke[0], "n"), 1);
    cr_assert_eq(sz(&c.correctness[2], "n"), 1023);
    cr_assert_eq(sz(&c.tune, "n"), 22369621); /* floor(256 MiB / 12 bytes) */
    assert_roundtrip(&c);
    ch_checklist_free(&c);

    add_tune(&e, "n", "1 << 20");
    e.clauses.device = 1;
    e.clauses.has_budget = 1;
    e.clauses.budget = 7;
    derive_ok(&e, &c);
    cr_assert_eq(sz(&c.tune, "n"), 1048576);
    cr_assert_eq(c.device, 1);
    cr_assert_eq(c.budget, 7);
    assert_roundtrip(&c);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(derive, deterministic)
{
    void (*makers[])(ch_entry *) = {make_saxpy, make_scale2d, make_jacobi,
                                    make_gemm,  make_gather,  make_vadd_decl};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
        ch_entry e1, e2;
        makers[i](&e1);
        makers[i](&e2);
        ch_checklist c1, c2;
        derive_ok(&e1, &c1);
        derive_ok(&e2, &c2);
        char *j1 = ch_checklist_to_json(&c1), *j2 = ch_checklist_to_json(&c2);
        cr_assert_str_eq(j1, j2);
        free(j1);
        free(j2);
        ch_checklist_free(&c1);
        ch_checklist_free(&c2);
        ch_entry_free(&e1);
        ch_entry_free(&e2);
    }
}

Test(derive, bad_tune_clause)
{
    ch_entry e;
    make_saxpy(&e);
    add_tune(&e, "n", "k * 2");
    ch_checklist c;
    ch_error err = {0};
    cr_assert_eq(ch_checklist_derive(&e, &c, &err), -1);
    cr_assert_str_eq(err.msg, "tune(n): unknown name 'k'");
    ch_entry_free(&e);
    make_saxpy(&e);
    add_tune(&e, "a", "3");
    cr_assert_eq(ch_checklist_derive(&e, &c, &err), -1);
    cr_assert_str_eq(err.msg, "tune(a): not an integer scalar parameter of saxpy");
    ch_entry_free(&e);
}

/* ---- JSON ---- */

Test(json, roundtrip_all_kinds)
{
    void (*makers[])(ch_entry *) = {make_saxpy, make_scale2d, make_jacobi,
                                    make_gemm,  make_gather,  make_vadd_decl};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
        ch_entry e;
        makers[i](&e);
        ch_checklist c;
        derive_ok(&e, &c);
        assert_roundtrip(&c);
        ch_checklist_free(&c);
        ch_entry_free(&e);
    }
}

Test(json, two_space_layout)
{
    ch_entry e;
    make_saxpy(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    char *j = ch_checklist_to_json(&c);
    if (getenv("CK_DUMP"))
        fprintf(stderr, "%s\n", j);
    cr_assert(strstr(j, "\n  \"name\": \"saxpy\",\n") != NULL, "2-space layout:\n%s", j);
    cr_assert(strchr(j, '\t') == NULL);
    free(j);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

/* ---- the validator on broken JSON ---- */

/* Derived JSON of an entry with the first occurrence of `from` replaced by `to`. */
static char *mutated(void (*maker)(ch_entry *), const char *from, const char *to)
{
    ch_entry e;
    maker(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    char *j = ch_checklist_to_json(&c);
    ch_checklist_free(&c);
    ch_entry_free(&e);
    char *at = strstr(j, from);
    cr_assert_not_null(at, "'%s' not in\n%s", from, j);
    char *out = ch_xasprintf("%.*s%s%s", (int)(at - j), j, to, at + strlen(from));
    free(j);
    return out;
}

static void expect_invalid(void (*maker)(ch_entry *), const char *from, const char *to,
                           const char *msg)
{
    char *j = mutated(maker, from, to);
    ch_checklist c;
    ch_error err = {0};
    int rc = ch_checklist_from_json(j, &c, &err);
    cr_expect_eq(rc, -1, "accepted broken JSON ('%s' -> '%s')", from, to);
    if (rc == 0)
        ch_checklist_free(&c);
    else
        cr_expect_str_eq(err.msg, msg, "for '%s' -> '%s'", from, to);
    free(j);
}

#define X_PARAM "\"name\": \"x\""

Test(validate, broken_json_catalog)
{
    /* syntax and top level */
    expect_invalid(make_saxpy, "\"kind\"", "kind\"", "checklist: invalid JSON at byte 24");
    expect_invalid(make_saxpy, "\"name\": \"saxpy\"", "\"name\": 7", "name: expected a string");
    expect_invalid(make_saxpy, "\"name\": \"saxpy\",", "", "name: missing");
    expect_invalid(make_saxpy, "\"name\": \"saxpy\"", "\"name\": \"sax py\"",
                   "name: 'sax py' is not a C identifier");
    expect_invalid(make_saxpy, "\"c-def\"", "\"cuda\"",
                   "kind: unknown kind 'cuda' (expected spec-decl, spec-def or c-def)");
    expect_invalid(make_saxpy, "\"device\": false", "\"device\": \"no\"",
                   "device: expected true or false");
    expect_invalid(make_saxpy, "\"budget\": null", "\"budget\": 2.5",
                   "budget: expected a positive integer (rounds) or null");
    expect_invalid(make_saxpy, "\"budget\": null", "\"budget\": null, \"extra\": 1",
                   "extra: unknown field");
    expect_invalid(make_saxpy, "\"reference\": \"{", "\"reference\": null, \"x\": \"{",
                   "x: unknown field");
    expect_invalid(make_saxpy, "\"params\": [{", "\"params\": [7, {",
                   "params[0]: expected an object");
    /* parameters */
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": \"k\"",
                   "params[2].extent: unknown name 'k'");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": \"n*a\"",
                   "params[2].extent: 'a' is not an integer scalar parameter");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": \"n*\"",
                   "params[2].extent: expected an operand at end of 'n*'");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": null",
                   "params[2].extent: missing (pointer parameters need an element count)");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": 5",
                   "params[2].extent: expected a string");
    expect_invalid(make_saxpy, "\"range\": [-1, 1]", "\"range\": [1, -1]",
                   "params[1].range: lo > hi");
    expect_invalid(make_saxpy, "\"range\": [-1, 1]", "\"range\": [-1]",
                   "params[1].range: expected [lo, hi] (two numbers)");
    expect_invalid(make_saxpy, "\"range\": [-1, 1]", "\"range\": null",
                   "params[1].range: missing (floating scalars need a value range)");
    expect_invalid(make_saxpy, "\"range\": null", "\"range\": [0, 10]",
                   "params[2].extent: 'n' has a value range, so it is not a size parameter");
    expect_invalid(make_saxpy, "\"direction\": null", "\"direction\": \"in\"",
                   "params[0].direction: scalar parameters have no direction");
    expect_invalid(make_saxpy, "\"direction\": \"in\"", "\"direction\": \"sideways\"",
                   "params[2].direction: unknown direction 'sideways' (expected in, out or inout)");
    expect_invalid(make_saxpy, "\"role\": \"pointer\"", "\"role\": \"ref\"",
                   "params[2].role: unknown role 'ref' (expected scalar, pointer or array)");
    expect_invalid(make_saxpy, "\"elem\": \"float\"", "\"elem\": \"quad\"",
                   "params[1].elem: unknown scalar type 'quad'");
    expect_invalid(make_saxpy, "\"name\": \"a\"", "\"name\": \"n\"",
                   "params[1].name: duplicate parameter 'n' (also params[0])");
    expect_invalid(make_saxpy, "\"type\": \"int\",", "", "params[0].type: missing");
    expect_invalid(make_saxpy, "\"index_of\": null", "\"index_of\": null, \"shape\": 1",
                   "params[0].shape: unknown field");
    expect_invalid(make_saxpy, "\"index_of\": null", "\"index_of\": null, \"index_of\": null",
                   "params[0].index_of: duplicate field");
    expect_invalid(make_saxpy, "\"rtol\": 0.0001", "\"rtol\": -1",
                   "params[3].rtol: must be a finite number >= 0");
    expect_invalid(make_saxpy, "\"rtol\": 0.0001", "\"rtol\": null",
                   "params[3].rtol: missing (outputs need a tolerance; 0 for exact)");
    expect_invalid(make_saxpy, "\"rtol\": null", "\"rtol\": 0.5",
                   "params[0].rtol: only outputs (out, inout) have a tolerance");
    expect_invalid(make_saxpy, "\"direction\": \"inout\"", "\"direction\": \"in\"",
                   "params[3].rtol: only outputs (out, inout) have a tolerance");
    /* unsigned and integer outputs */
    expect_invalid(make_gather, "\"range\": [0, 100]", "\"range\": [-1, 100]",
                   "params[6].range: lo -1 is below the minimum of unsigned int");
    expect_invalid(make_gather, "\"range\": [0, 100]", "\"range\": [0, 1.5]",
                   "params[6].range: bounds of unsigned int must be integers");
    expect_invalid(make_gather, "\"rtol\": 0,", "\"rtol\": 0.001,",
                   "params[6].rtol: integer outputs compare exactly (must be 0)");
    /* index arrays */
    expect_invalid(make_gather, "\"index_of\": \"x\"", "\"index_of\": \"q\"",
                   "params[3].index_of: unknown parameter 'q'");
    expect_invalid(make_gather, "\"index_of\": \"x\"", "\"index_of\": \"m\"",
                   "params[3].index_of: 'm' is not an array parameter");
    expect_invalid(make_gather, "\"index_of\": \"x\"", "\"index_of\": \"ix\"",
                   "params[3].index_of: an index array cannot index itself");
    expect_invalid(make_gather, "\"index_hi\": \"m\"", "\"index_hi\": null",
                   "params[3].index_hi: missing (index arrays need an exclusive bound)");
    expect_invalid(make_gather, "\"index_hi\": \"m\"", "\"index_hi\": \"m+j\"",
                   "params[3].index_hi: unknown name 'j'");
    /* (index_of is optional: a range() clause need not say what the values subscript) */
    expect_invalid(make_gather, "\"index_lo\": null,\n      \"index_hi\": \"m\"",
                   "\"index_lo\": \"j\",\n      \"index_hi\": \"m\"",
                   "params[3].index_lo: unknown name 'j'");
    expect_invalid(make_gather, "\"index_lo\": null,\n      \"index_hi\": \"m\"",
                   "\"index_lo\": \"m\",\n      \"index_hi\": \"m\"",
                   "sizes.smoke[0]: params[3] index range [m, m) is [1, 1) (no valid index)");
    /* sizes */
    expect_invalid(make_saxpy, "\"tune\": {\n      \"n\": 33554432\n    }", "\"tune\": {}",
                   "sizes.tune: missing value for 'n'");
    expect_invalid(make_saxpy, "\"tune\": {", "\"tune\": {\"k\": 3, ",
                   "sizes.tune: unknown parameter 'k'");
    expect_invalid(make_saxpy, "\"tune\": {", "\"tune\": {\"a\": 3, ",
                   "sizes.tune: 'a' is not a size parameter");
    expect_invalid(make_saxpy, "\"n\": 1\n", "\"n\": 1.5\n",
                   "sizes.smoke[0].n: expected an integer, got 1.5");
    expect_invalid(make_saxpy, "\"n\": 2\n", "\"n\": -2\n", "sizes.smoke[1].n: negative size -2");
    expect_invalid(make_saxpy, "\"n\": 37\n", "\"n\": \"37\"\n",
                   "sizes.correctness[0].n: expected an integer");
    expect_invalid(make_saxpy, "\"correctness\": [", "\"correctness\": [], \"old\": [",
                   "sizes.old: unknown field");
    expect_invalid(make_saxpy, "\"smoke\": [", "\"smoke\": 3, \"x\": [", "sizes.x: unknown field");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": \"n-2\"",
                   "sizes.smoke[0]: params[2].extent 'n-2' is -1");
    expect_invalid(make_saxpy, "\"extent\": \"n\"", "\"extent\": \"n/(n-1)\"",
                   "sizes.smoke[0]: params[2].extent: division by zero in 'n/(n-1)'");
    expect_invalid(make_gather, "\"index_hi\": \"m\"", "\"index_hi\": \"m-1\"",
                   "sizes.smoke[0]: params[3].index_hi 'm-1' is 0 (no valid index)");
    expect_invalid(make_saxpy, "\"direction\": \"inout\"", "\"direction\": \"in\", \"x\": 0",
                   "params[3].x: unknown field");
}

Test(validate, wrong_container_types)
{
    ch_checklist c;
    ch_error err = {0};
    const char *base = "{\"name\": \"f\", \"kind\": \"c-def\", \"signature\": \"void f(void)\", "
                       "\"description\": \"d\", \"reference\": \"r\", ";
    char *j = ch_xasprintf("%s\"params\": {}, \"sizes\": {}}", base);
    cr_assert_eq(ch_checklist_from_json(j, &c, &err), -1);
    cr_assert_str_eq(err.msg, "params: expected an array");
    free(j);
    j = ch_xasprintf("%s\"params\": [], \"sizes\": []}", base);
    cr_assert_eq(ch_checklist_from_json(j, &c, &err), -1);
    cr_assert_str_eq(err.msg, "sizes: expected an object");
    free(j);
    j = ch_xasprintf("%s\"params\": []}", base);
    cr_assert_eq(ch_checklist_from_json(j, &c, &err), -1);
    cr_assert_str_eq(err.msg, "sizes: missing");
    free(j);
    cr_assert_eq(ch_checklist_from_json("[1, 2]", &c, &err), -1);
    cr_assert_str_eq(err.msg, "checklist: expected a JSON object");
    cr_assert_eq(ch_checklist_from_json("{\"name\": \"f\"} trailing", &c, &err), -1);
    cr_assert_str_eq(err.msg, "checklist: invalid JSON at byte 14");
}

Test(validate, structure_rules)
{
    ch_entry e;
    make_saxpy(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    ch_error err = {0};
    cr_assert_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    /* no output at all */
    c.params[3].dir = CH_DIR_IN;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg, "params: no output (a kernel needs an out or inout buffer)");
    c.params[3].dir = CH_DIR_INOUT;
    /* body entries need a reference */
    char *ref = c.reference;
    c.reference = NULL;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg, "reference: missing (entries with a body need a reference)");
    c.reference = ref;
    /* an empty smoke list */
    size_t ns = c.n_smoke;
    c.n_smoke = 0;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg, "sizes.smoke: expected at least one size set");
    c.n_smoke = ns;
    /* index_of on a float buffer */
    c.params[2].index_of = ch_xstrdup("y");
    c.params[2].index_hi = ch_xstrdup("n");
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg, "params[2].index_of: index arrays need an integer element type");
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

/* attacks6 #19: an input range with equal ends makes every test value the same, so a kernel
 * that ignores the input passes; outputs may be one value (it is their fill). */
Test(validate, one_value_input_range)
{
    ch_entry e;
    make_saxpy(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    ch_error err = {0};
    c.params[2].lo = c.params[2].hi = 0; /* x, in */
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg,
                     "params[2].range: [0, 0] holds one value, so every test gives 'x' that one "
                     "value and a kernel that ignores it passes; give a range of the values the "
                     "function accepts (for example [-1, 1])");
    c.params[2].lo = 1;
    c.params[2].hi = 1 + 1e-12; /* two doubles, one float */
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert(strstr(err.msg, "params[2].range: [1, 1] holds one value"), "%s", err.msg);
    c.params[2].lo = -1;
    c.params[2].hi = 1;
    c.params[1].lo = c.params[1].hi = 2; /* a, scalar */
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert(strstr(err.msg, "params[1].range: [2, 2] holds one value"), "%s", err.msg);
    c.params[1].lo = -1;
    c.params[3].lo = c.params[3].hi = 0; /* y, inout */
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert(strstr(err.msg, "params[3].range"), "%s", err.msg);
    c.params[3].dir = CH_DIR_OUT; /* an output's fill may be one value */
    cr_assert_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

/* attacks7 #17: a floating range of a few values is one value in all but name; a range of
 * CH_CK_MIN_RANGE_VALUES values passes, one fewer does not, counted in the buffer's type. */
Test(validate, floating_range_of_a_few_values)
{
    ch_entry e;
    make_saxpy(&e);
    ch_checklist c;
    derive_ok(&e, &c);
    ch_error err = {0};
    c.params[2].lo = 0.5; /* x: float, two values of it */
    c.params[2].hi = 0.50000006;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert_str_eq(err.msg, "params[2].range: [0.5, 0.50000006] holds only 2 values of float, "
                              "too few to tell a kernel that ignores 'x' from one that uses it "
                              "(at least 1024); give a range of the values the function accepts "
                              "(for example [-1, 1])");
    c.params[2].hi = nextafterf(0.5f, 1.0f);
    for (int i = 2; i < CH_CK_MIN_RANGE_VALUES; i++)
        c.params[2].hi = nextafterf((float)c.params[2].hi, 1.0f);
    cr_assert_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    c.params[2].hi = nextafterf((float)c.params[2].hi, 0.0f);
    cr_assert_eq(ch_checklist_validate(&c, &err), -1, "1023 values accepted");
    /* across zero, counted on both sides; a scalar too */
    c.params[2].lo = -1e-43;
    c.params[2].hi = 1e-43;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert(strstr(err.msg, "holds only 143 values of float"), "%s", err.msg);
    c.params[2].lo = -1;
    c.params[2].hi = 1;
    c.params[1].lo = 1;
    c.params[1].hi = 1.0000001;
    cr_assert_eq(ch_checklist_validate(&c, &err), -1);
    cr_assert(strstr(err.msg, "params[1].range"), "%s", err.msg);
    ch_checklist_free(&c);
    ch_entry_free(&e);
}

Test(eval, bounded_nesting)
{
    cr_assert_eq(eval_ok("((((((((((n))))))))))"), 10);
    cr_assert_eq(eval_ok("- - - - n"), 10);
    size_t deep = 50000;
    char *e = ch_xcalloc(2 * deep + 2, 1);
    memset(e, '(', deep);
    e[deep] = 'n';
    memset(e + deep + 1, ')', deep);
    ch_ck_size s = nm_size();
    ch_error err = {0};
    long long v = -999;
    cr_assert_eq(ch_checklist_eval(e, &s, &v, &err), -1, "50000 parentheses refused");
    cr_assert(strstr(err.msg, "nested more than 256 levels"), "%s", err.msg);
    memset(e, '-', deep);
    cr_assert_eq(ch_checklist_eval(e, &s, &v, &err), -1, "50000 unary minus refused");
    cr_assert(strstr(err.msg, "nested more than 256 levels"), "%s", err.msg);
    ch_ck_size_free(&s);
    free(e);
}
