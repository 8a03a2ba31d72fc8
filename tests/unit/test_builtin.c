/* The builtin agent's C-to-CUDA translator on hand-built entries and IR: mappings, host loops,
 * precision, refusals with their locations, variants and feedback, staged copies (helpers,
 * their calls, the static check), and an nvcc compile of every kind of generated candidate.
 * The last part scans C as people write it (PolyBench style: C89 declarations, count-down and
 * strided loops, wide counters, math calls) and checks what the translator makes of it. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "scan_helpers.h"

#include "ch/agent.h"
#include "ch/agent_builtin.h"
#include "ch/checklist.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/verify.h"

/* ---- building entries and IR by hand ---- */

static ch_param params_[8];
static size_t nparams_;

static void begin(void)
{
    memset(params_, 0, sizeof params_);
    nparams_ = 0;
}

static void scalar(const char *name, ch_scalar t)
{
    ch_param *p = &params_[nparams_++];
    p->name = ch_xstrdup(name);
    p->type = ch_xstrdup(ch_scalar_name(t));
    p->role = CH_ROLE_SCALAR;
    p->elem = t;
}

static void pointer(const char *name, ch_scalar t, int is_const, const char *extent)
{
    ch_param *p = &params_[nparams_++];
    p->name = ch_xstrdup(name);
    p->type = ch_xasprintf("%s%s *", is_const ? "const " : "", ch_scalar_name(t));
    p->role = CH_ROLE_POINTER;
    p->elem = t;
    p->is_const = is_const;
    p->dir = is_const ? CH_DIR_IN : CH_DIR_INOUT;
    p->extent = ch_xstrdup(extent);
}

static void array2(const char *name, ch_scalar t, const char *d0, const char *d1)
{
    ch_param *p = &params_[nparams_++];
    p->name = ch_xstrdup(name);
    p->type = ch_xasprintf("%s [%s][%s]", ch_scalar_name(t), d0, d1);
    p->role = CH_ROLE_ARRAY;
    p->elem = t;
    p->dir = CH_DIR_INOUT;
    p->extent = ch_xasprintf("(%s) * (%s)", d0, d1);
    p->ndims = 2;
    p->dims = ch_xmalloc(2 * sizeof *p->dims);
    p->dims[0] = ch_xstrdup(d0);
    p->dims[1] = ch_xstrdup(d1);
}

static ch_ir *mk(ch_ir_kind k, const char *text)
{
    ch_ir *n = ch_ir_new(k, 1, 1);
    n->text = text ? ch_xstrdup(text) : NULL;
    return n;
}

static ch_ir *I(long long v)
{
    ch_ir *n = mk(CH_IR_INT_LIT, NULL);
    n->text = ch_xasprintf("%lld", v);
    n->ival = v;
    n->type = CH_T_INT;
    return n;
}

static ch_ir *F(double v, ch_scalar t)
{
    ch_ir *n = mk(CH_IR_FLOAT_LIT, NULL);
    n->fval = v;
    n->type = t;
    return n;
}

/* A variable: a parameter when its name is one of the entry's, else a local. */
static ch_ir *V(const char *name)
{
    ch_ir *n = mk(CH_IR_VAR, name);
    for (size_t i = 0; i < nparams_; i++)
        if (strcmp(params_[i].name, name) == 0) {
            n->param_index = (int)i;
            n->type = params_[i].role == CH_ROLE_SCALAR ? params_[i].elem : CH_T_UNKNOWN;
        }
    if (n->param_index < 0)
        n->type = CH_T_INT;
    return n;
}

static ch_ir *B(const char *op, ch_ir *a, ch_ir *b)
{
    ch_ir *n = mk(CH_IR_BINARY, op);
    ch_ir_add(n, a);
    ch_ir_add(n, b);
    n->type = a->type;
    return n;
}

static ch_ir *X(ch_ir *base, ch_ir *sub)
{
    ch_ir *n = mk(CH_IR_INDEX, NULL);
    ch_ir_add(n, base);
    ch_ir_add(n, sub);
    return n;
}

static ch_ir *A1(const char *name, ch_ir *sub)
{
    return X(V(name), sub);
}

static ch_ir *S(ch_ir *lhs, const char *op, ch_ir *rhs)
{
    ch_ir *a = mk(CH_IR_ASSIGN, op);
    ch_ir_add(a, lhs);
    ch_ir_add(a, rhs);
    ch_ir *s = ch_ir_new(CH_IR_EXPR_STMT, lhs->line, lhs->col);
    ch_ir_add(s, a);
    return s;
}

static ch_ir *CALL1(const char *f, ch_ir *arg, ch_scalar t)
{
    ch_ir *n = mk(CH_IR_CALL, f);
    ch_ir_add(n, arg);
    n->type = t;
    return n;
}

static ch_ir *DECL(const char *ctype, const char *name, ch_ir *init)
{
    ch_ir *d = mk(CH_IR_DECL, name);
    d->ctype = ch_xstrdup(ctype);
    ch_ir_add(d, init);
    return d;
}

static ch_ir *BLK(int n, ...)
{
    ch_ir *b = mk(CH_IR_BLOCK, NULL);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        ch_ir_add(b, va_arg(ap, ch_ir *));
    va_end(ap);
    return b;
}

/* for (int v = lo; v < hi; v++) body, at line:col */
static ch_ir *FOR(unsigned line, unsigned col, const char *v, ch_ir *lo, ch_ir *hi, ch_ir *body)
{
    ch_ir *f = ch_ir_new(CH_IR_FOR, line, col);
    ch_ir_add(f, DECL("int", v, lo));
    ch_ir_add(f, B("<", V(v), hi));
    ch_ir *inc = mk(CH_IR_UNARY, "++");
    inc->postfix = 1;
    ch_ir_add(inc, V(v));
    ch_ir_add(f, inc);
    ch_ir_add(f, body);
    return f;
}

static ch_entry *entry(const char *name, ch_ir *body)
{
    ch_entry *e = ch_xcalloc(1, sizeof *e);
    e->name = ch_xstrdup(name);
    e->kind = CH_KIND_C_DEF;
    e->file = ch_xstrdup("k.c");
    e->line = 3;
    e->col = 1;
    e->fn_line = 4;
    e->fn_col = 1;
    e->params = ch_xcalloc(nparams_ ? nparams_ : 1, sizeof *e->params);
    memcpy(e->params, params_, nparams_ * sizeof *params_);
    e->n_params = nparams_;
    ch_strbuf sig;
    ch_strbuf_init(&sig);
    ch_strbuf_addf(&sig, "void %s(", name);
    for (size_t i = 0; i < nparams_; i++)
        ch_strbuf_addf(&sig, "%s%s %s", i ? ", " : "", params_[i].type, params_[i].name);
    ch_strbuf_adds(&sig, ")");
    e->signature = ch_strbuf_detach(&sig);
    e->clauses_text = ch_xstrdup("");
    e->has_body = 1;
    e->body = body;
    nparams_ = 0;
    return e;
}

static void entry_free(ch_entry *e)
{
    ch_entry_free(e);
    free(e);
}

/* ---- the entries of the tests ---- */

/* void saxpy(int n, float a, const float *x, float *y) { for i: y[i] = a * x[i] + y[i]; } */
static ch_entry *saxpy(void)
{
    begin();
    scalar("n", CH_T_INT);
    scalar("a", CH_T_FLOAT);
    pointer("x", CH_T_FLOAT, 1, "n");
    pointer("y", CH_T_FLOAT, 0, "n");
    ch_ir *body = S(A1("y", V("i")), "=", B("+", B("*", V("a"), A1("x", V("i"))), A1("y", V("i"))));
    return entry("saxpy", BLK(1, FOR(5, 5, "i", I(0), V("n"), body)));
}

/* saxpy with `if (n <= 0) return;` first: the isl translator does not model early returns, so
 * the direct mapper and its variants take it. */
static ch_entry *saxpy_guarded(void)
{
    begin();
    scalar("n", CH_T_INT);
    scalar("a", CH_T_FLOAT);
    pointer("x", CH_T_FLOAT, 1, "n");
    pointer("y", CH_T_FLOAT, 0, "n");
    ch_ir *iff = mk(CH_IR_IF, NULL);
    ch_ir_add(iff, B("<=", V("n"), I(0)));
    ch_ir_add(iff, BLK(1, ch_ir_new(CH_IR_RETURN, 1, 1)));
    ch_ir *body = S(A1("y", V("i")), "=", B("+", B("*", V("a"), A1("x", V("i"))), A1("y", V("i"))));
    return entry("saxpy", BLK(2, iff, FOR(5, 5, "i", I(0), V("n"), body)));
}

static ch_ir *flat(const char *arr, const char *i, const char *m, const char *j)
{
    return A1(arr, B("+", B("*", V(i), V(m)), V(j)));
}

/* c[i*m+j] = a[i*m+j] + b[i*m+j] */
static ch_entry *add2d(void)
{
    begin();
    scalar("n", CH_T_INT);
    scalar("m", CH_T_INT);
    pointer("a", CH_T_FLOAT, 1, "n * m");
    pointer("b", CH_T_FLOAT, 1, "n * m");
    pointer("c", CH_T_FLOAT, 0, "n * m");
    ch_ir *s = S(flat("c", "i", "m", "j"), "=",
                 B("+", flat("a", "i", "m", "j"), flat("b", "i", "m", "j")));
    return entry("add2d",
                 BLK(1, FOR(5, 5, "i", I(0), V("n"), BLK(1, FOR(6, 9, "j", I(0), V("m"), s)))));
}

/* void scale2d(int n, int m, double s, double A[n][m]) { A[i][j] = s * A[i][j]; } */
static ch_entry *scale2d(void)
{
    begin();
    scalar("n", CH_T_INT);
    scalar("m", CH_T_INT);
    scalar("s", CH_T_DOUBLE);
    array2("A", CH_T_DOUBLE, "n", "m");
    ch_ir *s = S(X(A1("A", V("i")), V("j")), "=", B("*", V("s"), X(A1("A", V("i")), V("j"))));
    return entry("scale2d", BLK(1, FOR(5, 5, "i", I(0), V("n"), FOR(6, 9, "j", I(0), V("m"), s))));
}

/* y[i] = sum_j A[i*n+j] * x[j], the sum in a local declared inside the i loop */
static ch_entry *matvec(void)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("A", CH_T_DOUBLE, 1, "n * n");
    pointer("x", CH_T_DOUBLE, 1, "n");
    pointer("y", CH_T_DOUBLE, 0, "n");
    ch_ir *acc = S(V("s"), "+=", B("*", flat("A", "i", "n", "j"), A1("x", V("j"))));
    ch_ir *body = BLK(3, DECL("double", "s", F(0.0, CH_T_DOUBLE)),
                      FOR(7, 9, "j", I(0), V("n"), acc), S(A1("y", V("i")), "=", V("s")));
    return entry("matvec", BLK(1, FOR(5, 5, "i", I(0), V("n"), body)));
}

/* for t < tsteps { for i in [1, n-1): b[i] = (a[i-1]+a[i]+a[i+1]) / 3; for i: a[i] = b[i]; } */
static ch_entry *jacobi(void)
{
    begin();
    scalar("tsteps", CH_T_INT);
    scalar("n", CH_T_INT);
    pointer("a", CH_T_DOUBLE, 0, "n");
    pointer("b", CH_T_DOUBLE, 0, "n");
    ch_ir *sum = B("+", B("+", A1("a", B("-", V("i"), I(1))), A1("a", V("i"))),
                   A1("a", B("+", V("i"), I(1))));
    ch_ir *n1 = FOR(7, 9, "i", I(1), B("-", V("n"), I(1)),
                    S(A1("b", V("i")), "=", B("/", sum, F(3.0, CH_T_DOUBLE))));
    ch_ir *n2 =
        FOR(9, 9, "i", I(1), B("-", V("n"), I(1)), S(A1("a", V("i")), "=", A1("b", V("i"))));
    return entry("jacobi", BLK(1, FOR(5, 5, "t", I(0), V("tsteps"), BLK(2, n1, n2))));
}

/* two nests: y[i] = 2.0f * x[i]; z[i] = y[i] + 1.0f; */
static ch_entry *twonest(void)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("x", CH_T_FLOAT, 1, "n");
    pointer("y", CH_T_FLOAT, 0, "n");
    pointer("z", CH_T_FLOAT, 0, "n");
    ch_ir *f1 = FOR(5, 5, "i", I(0), V("n"),
                    S(A1("y", V("i")), "=", B("*", F(2.0, CH_T_FLOAT), A1("x", V("i")))));
    ch_ir *f2 = FOR(7, 5, "i", I(0), V("n"),
                    S(A1("z", V("i")), "=", B("+", A1("y", V("i")), F(1.0, CH_T_FLOAT))));
    return entry("twonest", BLK(2, f1, f2));
}

/* y[i] = sqrt(fabs(x[i])) on T: the scanner reports the C promotion (double) on the call */
static ch_entry *mathfn(const char *name, ch_scalar t)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("x", t, 1, "n");
    pointer("y", t, 0, "n");
    ch_ir *arg = A1("x", V("i"));
    arg->type = CH_T_DOUBLE;
    ch_ir *c = CALL1("sqrt", CALL1("fabs", arg, CH_T_DOUBLE), CH_T_DOUBLE);
    return entry(name, BLK(1, FOR(5, 5, "i", I(0), V("n"), S(A1("y", V("i")), "=", c))));
}

/* ---- helpers on results ---- */

static char *translate(const ch_entry *e, int variant, ch_error *err)
{
    bi_program p;
    if (bi_analyse(e, &p, err) != 0)
        return NULL;
    char *src = bi_generate(&p, bi_variant_get((size_t)variant), 132);
    bi_program_free(&p);
    return src;
}

static char *must_translate(const ch_entry *e, int variant)
{
    ch_error err = {0};
    char *src = translate(e, variant, &err);
    cr_assert(src, "translation of %s failed: %s", e->name, err.msg);
    return src;
}

static void refuse(const ch_entry *e, const char *where, const char *why)
{
    ch_error err = {0};
    char *src = translate(e, 0, &err);
    cr_assert_null(src, "%s should have been refused", e->name);
    cr_assert(strstr(err.msg, where), "location '%s' missing in: %s", where, err.msg);
    cr_assert(strstr(err.msg, why), "reason '%s' missing in: %s", why, err.msg);
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* nvcc's path, or NULL when this machine has none (on PATH or in /usr/local/cuda). */
static const char *nvcc_path(void)
{
    static char found[4096];
    if (ch_file_exists("/usr/local/cuda/bin/nvcc"))
        return "/usr/local/cuda/bin/nvcc";
    const char *path = getenv("PATH");
    for (const char *d = path; d && *d;) {
        size_t n = strcspn(d, ":");
        snprintf(found, sizeof found, "%.*s/nvcc", (int)n, d);
        if (n && ch_file_exists(found))
            return found;
        d += n + (d[n] == ':');
    }
    return NULL;
}

/* Compiles a candidate with nvcc -arch=sm_90 -c; asserts success. */
static void nvcc_compiles(const char *src, const char *tag)
{
    ch_error err = {0};
    char *dir = ch_make_temp_dir("builtin", &err);
    cr_assert(dir, "%s", err.msg);
    char *cu = ch_xasprintf("%s/%s.cu", dir, tag);
    char *obj = ch_xasprintf("%s/%s.o", dir, tag);
    cr_assert_eq(ch_write_file_atomic(cu, src, strlen(src), 0, &err), 0, "%s", err.msg);
    const char *nvcc =
        ch_file_exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    char *argv[] = {(char *)nvcc, "-arch=sm_90", "-Werror", "all-warnings", "-c", cu,
                    "-o",         obj,           NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    int rc = ch_proc_capture(argv, &out, &err);
    cr_assert_eq(rc, 0, "nvcc failed on %s (rc %d): %s\n%s\n---\n%s", tag, rc, err.msg, out.data,
                 src);
    cr_assert(ch_file_exists(obj));
    const char *keep = getenv("CH_BUILTIN_KEEP"); /* a directory to keep the candidates in */
    if (keep) {
        char *copy = ch_xasprintf("%s/%s.cu", keep, tag);
        ch_write_file_atomic(copy, src, strlen(src), 0, &err);
        free(copy);
    }
    ch_strbuf_free(&out);
    ch_remove_tree(dir, &err);
    free(cu);
    free(obj);
    free(dir);
}

/* ---- mappings ---- */

Test(builtin, saxpy_one_thread_per_element)
{
    ch_entry *e = saxpy();
    char *src = must_translate(e, 0);
    cr_assert(strstr(src, "extern \"C\" void saxpy_launcher(int n, float a, const float *x, "
                          "float *y)\n{"),
              "%s", src);
    cr_assert(strstr(src, "const long long ch_x = (long long)blockIdx.x * blockDim.x + "
                          "threadIdx.x;"));
    cr_assert(strstr(src, "const int i = (int)ch_x;"), "%s", src);
    cr_assert(strstr(src, "y[i] = a * x[i] + y[i];"), "%s", src);
    cr_assert(strstr(src, "ch_block(256)"));
    cr_assert(strstr(src, "ch-cc builtin variant 0: 1-D blocks of 256 threads"));
    /* host-pointer convention: buffers kept, x copied in only, y in and back */
    cr_assert(strstr(src, "static std::mutex ch_lock;"));
    cr_assert(strstr(src, "cudaMemcpy(ch_d_x, x, ch_n_x, cudaMemcpyHostToDevice)"));
    cr_assert(strstr(src, "cudaMemcpy(y, ch_d_y, ch_n_y, cudaMemcpyDeviceToHost)"));
    cr_assert_null(strstr(src, "cudaMemcpy(x, ch_d_x"));
    cr_assert(strstr(src, "if (cudaGetLastError() != cudaSuccess)"));
    nvcc_compiles(src, "saxpy_v0");
    free(src);
    src = must_translate(e, 1);
    cr_assert(strstr(src, "ch_x += (long long)gridDim.x * blockDim.x"), "%s", src);
    cr_assert(strstr(src, "saxpy_blocks(ch_cx, 256, 1056LL)"), "%s", src);
    nvcc_compiles(src, "saxpy_v1");
    free(src);
    entry_free(e);
}

Test(builtin, flat_2d_puts_unit_stride_loop_on_x)
{
    ch_entry *e = add2d();
    char *src = must_translate(e, 0);
    cr_assert(strstr(src, "const int j = (int)ch_x;"), "%s", src);
    cr_assert(strstr(src, "const int i = (int)ch_y;"), "%s", src);
    cr_assert(strstr(src, "ch_block(32, 8)"));
    cr_assert(strstr(src, "c[i * m + j] = a[i * m + j] + b[i * m + j];"), "%s", src);
    cr_assert(strstr(src, "extern \"C\" void add2d_launcher(int n, int m, const float *a, const "
                          "float *b, float *c)"));
    nvcc_compiles(src, "add2d");
    free(src);
    src = must_translate(e, 2);
    cr_assert(strstr(src, "ch_block(16, 16)"));
    free(src);
    src = must_translate(e, 4);
    cr_assert(strstr(src, "ch_block(32, 4)"));
    free(src);
    entry_free(e);
}

Test(builtin, array_param_is_flattened_row_major)
{
    ch_entry *e = scale2d();
    char *src = must_translate(e, 3);
    cr_assert(strstr(src, "A[(size_t)(i) * (m) + (j)] = s * A[(size_t)(i) * (m) + (j)];"), "%s",
              src);
    cr_assert(strstr(src, "const int j = (int)ch_x;"), "%s", src);
    cr_assert(strstr(src, "void scale2d_launcher(int n, int m, double s, double *A)"), "%s", src);
    cr_assert(strstr(src, "(size_t)((n) * (m)) * sizeof(double)"), "%s", src);
    nvcc_compiles(src, "scale2d");
    free(src);
    entry_free(e);
}

Test(builtin, matvec_keeps_inner_loop_sequential)
{
    ch_entry *e = matvec();
    char *src = must_translate(e, 0);
    cr_assert(strstr(src, "const int i = (int)ch_x;"), "%s", src);
    cr_assert(strstr(src, "for (int j = 0; j < n; j++) {"), "%s", src);
    cr_assert(strstr(src, "s += A[i * n + j] * x[j];"), "%s", src);
    cr_assert(strstr(src, "The inner loop over j stays sequential"), "%s", src);
    cr_assert_null(strstr(src, "ch_y"));
    nvcc_compiles(src, "matvec");
    free(src);
    entry_free(e);
}

Test(builtin, time_loop_becomes_host_loop_of_launches)
{
    ch_entry *e = jacobi();
    char *src = must_translate(e, 0);
    const char *hl = strstr(src, "for (int t = 0; t < tsteps; t++) {");
    cr_assert(hl, "%s", src);
    const char *l0 = strstr(hl, "jacobi_k0<<<");
    const char *l1 = strstr(hl, "jacobi_k1<<<");
    cr_assert(l0 && l1 && l0 < l1, "%s", src);
    cr_assert(strstr(src, "int t)\n{"), "the counter is a kernel argument: %s", src);
    /* copies happen once, outside the host loop */
    cr_assert(strstr(src, "cudaMemcpyHostToDevice") < hl);
    cr_assert(strstr(src, "cudaMemcpyDeviceToHost") > l1);
    cr_assert(strstr(src, "const int i = (int)((1) + ch_x);"), "%s", src);
    cr_assert(strstr(src, "(long long)(n - 1) - (long long)(1)"), "%s", src);
    cr_assert(strstr(src, "b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;"), "%s", src);
    nvcc_compiles(src, "jacobi");
    free(src);
    entry_free(e);
}

Test(builtin, two_nests_are_two_kernels_in_order)
{
    ch_entry *e = twonest();
    char *src = must_translate(e, 0);
    cr_assert_eq(count_of(src, "__global__"), 2);
    const char *l0 = strstr(src, "twonest_k0<<<"), *l1 = strstr(src, "twonest_k1<<<");
    cr_assert(l0 && l1 && l0 < l1);
    cr_assert(strstr(src, "y[i] = 2.0f * x[i];"), "%s", src);
    cr_assert(strstr(src, "z[i] = y[i] + 1.0f;"), "%s", src);
    nvcc_compiles(src, "twonest");
    free(src);
    entry_free(e);
}

Test(builtin, float_math_stays_float)
{
    ch_entry *e = mathfn("fmath", CH_T_FLOAT);
    char *src = must_translate(e, 0);
    cr_assert(strstr(src, "y[i] = sqrtf(fabsf(x[i]));"), "%s", src);
    cr_assert_null(strstr(src, "sqrt("));
    nvcc_compiles(src, "fmath");
    free(src);
    entry_free(e);
    e = mathfn("dmath", CH_T_DOUBLE);
    src = must_translate(e, 0);
    cr_assert(strstr(src, "y[i] = sqrt(fabs(x[i]));"), "%s", src);
    free(src);
    entry_free(e);
}

Test(builtin, device_clause_launches_on_caller_pointers)
{
    ch_entry *e = saxpy();
    e->clauses.device = 1;
    char *src = must_translate(e, 0);
    cr_assert_null(strstr(src, "cudaMemcpy"));
    cr_assert_null(strstr(src, "cudaMalloc"));
    cr_assert(strstr(src, "saxpy_k0<<<ch_grid, ch_block>>>(n, a, x, y);"), "%s", src);
    cr_assert(strstr(src, "cudaDeviceSynchronize()"));
    nvcc_compiles(src, "saxpy_dev");
    free(src);
    entry_free(e);
}

/* ---- staged copies ---- */

/* What every staged candidate of a host-pointer entry must hold: the ring and both helpers,
 * an NAME_h2d call for every buffer before the first launch (out buffers too: elements the body
 * leaves alone come back unchanged), an NAME_d2h call for every written buffer after the
 * launches and the synchronisation, none for const inputs, and no plain cudaMemcpy left in the
 * launcher. Kernels are the same as those of the plain twin. */
static void assert_staged(const ch_entry *e, int variant)
{
    char *src = must_translate(e, variant);
    char *plain = must_translate(e, variant - (int)bi_variant_count() / 2);
    const char *n = e->name;
    char *want = ch_xasprintf("static int %s_h2d(void *dst_dev, const void *src_host, size_t "
                              "bytes)\n{",
                              n);
    cr_assert(strstr(src, want), "%s: no h2d helper in\n%s", n, src);
    free(want);
    want =
        ch_xasprintf("static int %s_d2h(void *dst_host, const void *src_dev, size_t bytes)\n{", n);
    cr_assert(strstr(src, want), "%s: no d2h helper in\n%s", n, src);
    free(want);
    cr_assert(strstr(src, "#include <string.h>\n"));
    cr_assert(strstr(src, "cudaMallocHost("), "pinned staging buffers: %s", src);
    cr_assert(strstr(src, "cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)"));
    cr_assert(strstr(src, "cudaMemcpyAsync("));
    cr_assert(strstr(src, "cudaEventSynchronize("));
    cr_assert(strstr(src, "pinned staged copies"), "the header names the copy strategy");
    const char *launcher = strstr(src, "_launcher(");
    cr_assert(launcher);
    const char *first_launch = strstr(launcher, "<<<");
    const char *sync = strstr(launcher, "cudaDeviceSynchronize()");
    cr_assert(first_launch && sync && first_launch < sync);
    /* the first step: a kernel or a host loop of launches (copies happen once, before it) */
    const char *first_step = strstr(launcher, "{ /* kernel");
    const char *host_loop = strstr(launcher, "    for (");
    if (host_loop && host_loop < first_step)
        first_step = host_loop;
    cr_assert(first_step && first_step < first_launch);
    /* the device launcher after it (the kernels alone on device buffers, issue 15) copies
     * nothing: the trusted runtime moves its data */
    char *steps = ch_xasprintf("static void %s_steps(", n);
    const char *dev = strstr(launcher, steps);
    free(steps);
    cr_assert(dev, "%s: no device launcher in\n%s", n, src);
    char *dl = ch_xasprintf("extern \"C\" int %s_device_launcher(", n);
    cr_assert(strstr(dev, dl), "%s: no device launcher in\n%s", n, dev);
    free(dl);
    cr_assert_null(strstr(dev, "cudaMemcpy"), "%s", dev);
    cr_assert_null(strstr(dev, "_h2d("), "%s", dev);
    cr_assert_null(strstr(dev, "_d2h("), "%s", dev);
    cr_assert(strstr(dev, "<<<"), "%s: the device launcher launches the kernels:\n%s", n, dev);
    const char *last_launch = first_launch;
    for (const char *l = first_launch; l && l < dev; l = strstr(l + 1, "<<<"))
        last_launch = l;
    cr_assert_null(strstr(launcher, "cudaMemcpy("), "a plain copy is left in:\n%s", launcher);
    int buffers = 0, back = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *q = &e->params[i];
        if (q->role == CH_ROLE_SCALAR)
            continue;
        buffers++;
        char *in = ch_xasprintf("if (ch_n_%s && %s_h2d(ch_d_%s, %s, ch_n_%s) != 0)\n"
                                "        return;",
                                q->name, n, q->name, q->name, q->name);
        const char *at = strstr(launcher, in);
        cr_assert(at && at < first_step, "%s: '%s' missing before the kernels:\n%s", n, in,
                  launcher);
        free(in);
        char *out = ch_xasprintf("if (ch_n_%s && %s_d2h(%s, ch_d_%s, ch_n_%s) != 0)\n"
                                 "        return;",
                                 q->name, n, q->name, q->name, q->name);
        at = strstr(launcher, out);
        if (q->is_const) {
            cr_assert_null(at, "%s: const input %s is copied back", n, q->name);
        } else {
            back++;
            cr_assert(at && at > last_launch && at > sync, "%s: '%s' missing after the kernels", n,
                      out);
        }
        free(out);
    }
    char *calls = ch_xasprintf("%s_h2d(ch_d_", n);
    cr_assert_eq(count_of(launcher, calls), buffers);
    free(calls);
    calls = ch_xasprintf(" %s_d2h(", n);
    cr_assert_eq(count_of(launcher, calls), back);
    free(calls);
    /* the same kernels and launches as the plain twin: only the copies differ */
    size_t klen = (size_t)(strstr(src, "/* Blocks needed") - strstr(src, "__global__"));
    cr_assert_eq(strncmp(strstr(src, "__global__"), strstr(plain, "__global__"), klen), 0);
    const char *plain_launcher = strstr(plain, "_launcher(");
    size_t slen = (size_t)(sync - first_step);
    const char *twin = strstr(plain_launcher, "{ /* kernel");
    const char *twin_loop = strstr(plain_launcher, "    for (");
    if (twin_loop && twin_loop < twin)
        twin = twin_loop;
    cr_assert_eq(strncmp(first_step, twin, slen), 0, "launches differ from the plain twin's");
    free(plain);
    free(src);
}

Test(builtin, staged_variants_copy_through_pinned_helpers)
{
    ch_entry *es[] = {saxpy(), jacobi(), add2d(), twonest(), scale2d()};
    for (size_t i = 0; i < sizeof es / sizeof *es; i++) {
        for (size_t v = bi_variant_count() / 2; v < bi_variant_count(); v++)
            assert_staged(es[i], (int)v);
        entry_free(es[i]);
    }
}

Test(builtin, plain_variants_do_not_stage)
{
    ch_entry *e = jacobi();
    for (size_t v = 0; v < bi_variant_count(); v++) {
        const bi_variant *bv = bi_variant_get(v);
        cr_assert_eq(bv->id, (int)v);
        char *d = bi_variant_design(bv);
        cr_assert_eq(strstr(d, "pinned staged copies") != NULL, bv->staged, "%s", d);
        free(d);
        if (bv->staged)
            continue;
        char *src = must_translate(e, (int)v);
        cr_assert_null(strstr(src, "_h2d"), "variant %zu stages:\n%s", v, src);
        cr_assert_null(strstr(src, "_d2h"));
        cr_assert_null(strstr(src, "cudaMallocHost"));
        cr_assert_null(strstr(src, "staged"));
        cr_assert(strstr(src, "cudaMemcpyHostToDevice"));
        free(src);
    }
    entry_free(e);
}

Test(builtin, staging_is_moot_for_device_entries)
{
    ch_entry *e = saxpy();
    e->clauses.device = 1;
    size_t shapes = bi_variant_count() / 2;
    for (size_t v = 0; v < shapes; v++) {
        char *plain = must_translate(e, (int)v), *staged = must_translate(e, (int)(v + shapes));
        /* only the variant number in the first line differs */
        cr_assert_str_eq(strchr(plain, '\n'), strchr(staged, '\n'));
        cr_assert_null(strstr(staged, "_h2d"));
        free(plain);
        free(staged);
    }
    /* and the agent never proposes them: after success the next shape, not staging */
    unsigned char tried[64] = {0};
    cr_assert_leq(bi_variant_count(), sizeof tried);
    tried[0] = 1;
    cr_assert_eq(bi_variant_choose(tried, "performance: 0.3 ms", 0, 0, 0), 4);
    for (int k = 0;; k++) {
        int v = bi_variant_choose(tried, k % 2 ? "performance: 1 ms" : NULL, 0, -1, 0);
        if (v < 0)
            break;
        cr_assert_lt(v, (int)shapes, "variant %d is staged", v);
        tried[v] = 1;
    }
    entry_free(e);
}

Test(builtin, staged_variants_come_after_every_plain_one)
{
    unsigned char tried[64] = {0};
    size_t shapes = bi_variant_count() / 2;
    const char *perf = "correct; performance: launcher 4.1 ms, kernel 0.2 ms";
    /* after a success: the untried plain shapes first (staging measured slower), then staged */
    tried[0] = 1;
    int v = bi_variant_choose(tried, perf, 0, 0, 1);
    cr_assert_eq(v, 4);
    for (size_t k = 2; k < shapes; k++) {
        tried[v] = 1;
        v = bi_variant_choose(tried, perf, 0, v, 1);
        cr_assert_not(bi_variant_get((size_t)v)->staged, "variant %d before a plain one", v);
    }
    tried[v] = 1;
    v = bi_variant_choose(tried, perf, 0, v, 1);
    cr_assert(bi_variant_get((size_t)v)->staged, "%d", v);
    /* a failure goes to the safest plain variant, no feedback to the table's first */
    memset(tried, 0, sizeof tried);
    tried[6] = 1;
    cr_assert_eq(bi_variant_choose(tried, "smoke: mismatch", 0, 6, 1), 3);
    cr_assert_eq(bi_variant_choose(tried, NULL, 0, -1, 1), 0);
    /* every variant comes once */
    memset(tried, 0, sizeof tried);
    size_t n = 0;
    for (v = bi_variant_choose(tried, NULL, 0, -1, 1); v >= 0;
         v = bi_variant_choose(tried, perf, 0, v, 1)) {
        cr_assert_not(tried[v]);
        tried[v] = 1;
        n++;
    }
    cr_assert_eq(n, bi_variant_count());
}

/* The derived checklist of e and its static check of src: 0 when it passes, msg says why not. */
static int static_check(const ch_entry *e, const char *src, ch_strbuf *msg)
{
    ch_checklist c;
    memset(&c, 0, sizeof c);
    ch_error err = {0};
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    int outputs = 0;
    for (size_t i = 0; i < c.n_params; i++)
        outputs += c.params[i].role != CH_ROLE_SCALAR && c.params[i].dir != CH_DIR_IN;
    cr_assert_gt(outputs, 0, "the checklist of %s has no output to protect", e->name);
    int rc = ch_static_check(&c, src, msg, NULL);
    ch_checklist_free(&c);
    return rc;
}

Test(builtin, staged_candidates_pass_the_static_check)
{
    ch_entry *es[] = {saxpy(), jacobi(), twonest()};
    const char *outs[] = {"y", "a", "z"};
    for (size_t i = 0; i < sizeof es / sizeof *es; i++) {
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        for (size_t v = bi_variant_count() / 2; v < bi_variant_count(); v++) {
            char *src = must_translate(es[i], (int)v);
            cr_assert_eq(static_check(es[i], src, &msg), 0, "%s v%zu: %s", es[i]->name, v,
                         msg.data);
            free(src);
        }
        /* the check is not vacuous: the same launcher filling an output on the host fails */
        char *src = must_translate(es[i], 6);
        const char *body = strstr(strstr(src, "_launcher("), "{\n") + 2;
        char *bad =
            ch_xasprintf("%.*s    memset(%s, 0, 4);\n%s", (int)(body - src), src, outs[i], body);
        cr_assert_neq(static_check(es[i], bad, &msg), 0, "%s", bad);
        cr_assert(strstr(msg.data, "writes output"), "%s", msg.data);
        free(bad);
        free(src);
        ch_strbuf_free(&msg);
        entry_free(es[i]);
    }
}

Test(builtin, staged_candidates_compile)
{
    if (!nvcc_path())
        cr_skip("nvcc not found: staged candidates not compiled");
    ch_entry *e = saxpy();
    char *src = must_translate(e, 6);
    nvcc_compiles(src, "saxpy_v6");
    free(src);
    src = must_translate(e, 11);
    nvcc_compiles(src, "saxpy_v11");
    free(src);
    entry_free(e);
    e = jacobi();
    src = must_translate(e, 7);
    nvcc_compiles(src, "jacobi_v7");
    free(src);
    entry_free(e);
    e = add2d();
    src = must_translate(e, 8);
    nvcc_compiles(src, "add2d_v8");
    free(src);
    entry_free(e);
}

/* ---- refusals ---- */

Test(builtin, refuses_scalar_reduction)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("a", CH_T_FLOAT, 1, "n");
    pointer("out", CH_T_FLOAT, 0, "1");
    ch_ir *body = BLK(3, DECL("float", "s", F(0, CH_T_FLOAT)),
                      FOR(12, 3, "i", I(0), V("n"), S(V("s"), "+=", A1("a", V("i")))),
                      S(A1("out", I(0)), "=", V("s")));
    ch_entry *e = entry("sum", body);
    refuse(e, "k.c:12:3: error:", "reduction into 's'");
    entry_free(e);
}

Test(builtin, refuses_loop_carried_dependence)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("a", CH_T_INT, 0, "n");
    ch_ir *body = S(A1("a", V("i")), "=", B("+", A1("a", B("-", V("i"), I(1))), I(1)));
    ch_entry *e = entry("prefix", BLK(1, FOR(8, 5, "i", I(1), V("n"), body)));
    refuse(e, "k.c:8:5: error:", "carries a dependence: a[i - 1]");
    entry_free(e);
}

Test(builtin, refuses_non_affine_write)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("a", CH_T_FLOAT, 0, "n * n");
    ch_ir *body = S(A1("a", B("*", V("i"), V("i"))), "=", F(0, CH_T_FLOAT));
    ch_entry *e = entry("squares", BLK(1, FOR(9, 7, "i", I(0), V("n"), body)));
    refuse(e, "k.c:9:7: error:", "a[i * i] is not affine");
    entry_free(e);
}

Test(builtin, refuses_while_loop)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("a", CH_T_FLOAT, 0, "n");
    ch_ir *w = ch_ir_new(CH_IR_WHILE, 6, 5);
    ch_ir_add(w, B("<", V("n"), I(0)));
    ch_ir_add(w, BLK(0));
    ch_entry *e = entry("spin", BLK(1, w));
    refuse(e, "k.c:6:5: error:", "while loop is not translated");
    entry_free(e);
}

Test(builtin, refuses_unknown_call_with_its_location)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("a", CH_T_FLOAT, 0, "n");
    ch_ir *c = CALL1("rand", I(0), CH_T_INT);
    c->line = 10;
    c->col = 20;
    ch_entry *e = entry("noise", BLK(1, FOR(9, 5, "i", I(0), V("n"), S(A1("a", V("i")), "=", c))));
    refuse(e, "k.c:10:20: error:", "call to 'rand'");
    entry_free(e);
}

/* ---- the agent: variants, feedback, determinism, spec-only entries ---- */

static ch_agent *open_agent(void)
{
    ch_agent *ag = ch_xcalloc(1, sizeof *ag);
    ch_error err = {0};
    cr_assert_eq(ch_agent_builtin_open(ag, &err), 0);
    cr_assert_str_eq(ag->ops->name, "builtin");
    ag->hw.sm_count = 132;
    return ag;
}

static void close_agent(ch_agent *ag)
{
    ag->ops->close(ag);
    free(ag);
}

static int ask(ch_agent *ag, const ch_entry *e, const char *feedback, const char *parent, int round,
               char **src, char **design)
{
    ch_kernel_request req = {
        .entry = e, .feedback = feedback, .parent_source = parent, .round = round};
    ch_error err = {0};
    int rc = ag->ops->kernel(ag, &req, src, design, &err);
    cr_assert_geq(rc, 0, "kernel job failed: %s", err.msg);
    return rc;
}

/* A body the isl translator takes gets its variants (schedule strategies and block shapes),
 * each once and never two of the same kernels (for saxpy the isl schedule and the original
 * order print the same code: one verification would be wasted on the copy), then nothing new:
 * the direct mapper is not asked. */
Test(builtin, translator_variants_then_nothing_new)
{
    ch_entry *e = saxpy();
    ch_agent *ag = open_agent();
    char *src[8] = {0}, *design[8] = {0};
    int n = 0;
    while (n < 8 &&
           ask(ag, e, "performance: 0.2 ms", n ? src[n - 1] : NULL, n, &src[n], &design[n]) == 0)
        n++;
    cr_assert(n >= 2 && n < 4, "the translator's different variants, then nothing new (%d)", n);
    cr_assert_str_eq(design[0], "translator v0: isl scheduler");
    for (int i = 1; i < n; i++)
        cr_assert(strcmp(design[i], "translator v1: original loop order") != 0,
                  "v1 prints v0's kernels for saxpy: not proposed again");
    for (int i = 0; i < n; i++) {
        cr_assert(strstr(src[i], "ch-cc translator variant "), "%s", src[i]);
        cr_assert(strstr(src[i], "for (long long c0 = ch_g0; (c0 < n); c0 += ch_n0)"), "%s",
                  src[i]);
        for (int j = i + 1; j < n; j++)
            cr_assert_str_neq(strstr(src[i], "*/"), strstr(src[j], "*/"),
                              "variants %d and %d print the same code", i, j);
    }
    for (int i = 0; i < n; i++) {
        free(src[i]);
        free(design[i]);
    }
    close_agent(ag);
    entry_free(e);
}

Test(builtin, variants_follow_feedback_until_exhausted)
{
    ch_entry *e = saxpy_guarded();
    ch_agent *ag = open_agent();
    char *src[16] = {0}, *design[16] = {0};
    cr_assert_eq(ask(ag, e, NULL, NULL, 0, &src[0], &design[0]), 0);
    cr_assert_str_eq(design[0], "builtin v0: 1-D 256 threads, 2-D 32x8, one element per thread");
    /* a failure moves to the safest untried variant: grid-stride with small blocks */
    cr_assert_eq(ask(ag, e, "correctness: mismatch at index 7", src[0], 1, &src[1], &design[1]), 0);
    cr_assert(strstr(design[1], "v3: 1-D 128 threads") && strstr(design[1], "grid-stride"), "%s",
              design[1]);
    cr_assert(strstr(src[1], "ch_block(128)"));
    /* a success moves to an untried faster one: larger blocks, plain copies */
    cr_assert_eq(ask(ag, e, "correct; performance: kernel 0.21 ms, 71% of the floor", src[1], 2,
                     &src[2], &design[2]),
                 0);
    cr_assert_str_eq(design[2], "builtin v4: 1-D 512 threads, 2-D 32x4, one element per thread");
    cr_assert_null(strstr(src[2], "saxpy_h2d("));
    /* then the next faster shape */
    cr_assert_eq(ask(ag, e, "performance: launcher 3 ms", src[2], 3, &src[3], &design[3]), 0);
    cr_assert(strstr(design[3], "v1: 1-D 256 threads") && !strstr(design[3], "staged"), "%s",
              design[3]);
    int n = 4;
    while (ask(ag, e, "performance: 0.2 ms", src[n - 1], n, &src[n], &design[n]) == 0)
        n++;
    cr_assert_eq(n, 12, "every variant once, then nothing new");
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            cr_assert_str_neq(src[i], src[j], "variants %d and %d are equal", i, j);
    for (int i = 0; i < n; i++) {
        free(src[i]);
        free(design[i]);
    }
    close_agent(ag);
    entry_free(e);
}

Test(builtin, device_entries_walk_the_plain_variants_only)
{
    ch_entry *e = saxpy_guarded();
    e->clauses.device = 1;
    ch_agent *ag = open_agent();
    char *src[16] = {0}, *design[16] = {0};
    cr_assert_eq(ask(ag, e, NULL, NULL, 0, &src[0], &design[0]), 0);
    cr_assert_eq(ask(ag, e, "performance: kernel 0.2 ms", src[0], 1, &src[1], &design[1]), 0);
    cr_assert(strstr(design[1], "v4: 1-D 512 threads"), "%s", design[1]);
    int n = 2;
    while (ask(ag, e, "performance: 0.2 ms", src[n - 1], n, &src[n], &design[n]) == 0)
        n++;
    cr_assert_eq(n, 6, "the six plain variants, then nothing new");
    for (int i = 0; i < n; i++) {
        cr_assert_null(strstr(design[i], "staged"), "%s", design[i]);
        free(src[i]);
        free(design[i]);
    }
    close_agent(ag);
    entry_free(e);
}

Test(builtin, same_requests_give_same_candidates)
{
    ch_entry *e = jacobi();
    ch_agent *a1 = open_agent(), *a2 = open_agent();
    char *s1, *s2, *d1, *d2;
    ask(a1, e, NULL, NULL, 0, &s1, &d1);
    ask(a2, e, NULL, NULL, 0, &s2, &d2);
    cr_assert_str_eq(s1, s2);
    cr_assert_str_eq(d1, d2);
    free(s1);
    free(s2);
    free(d1);
    free(d2);
    ask(a1, e, "timeout after 10 s", NULL, 1, &s1, &d1);
    ask(a2, e, "timeout after 10 s", NULL, 1, &s2, &d2);
    cr_assert_str_eq(s1, s2);
    cr_assert_str_eq(d1, d2);
    free(s1);
    free(s2);
    free(d1);
    free(d2);
    close_agent(a1);
    close_agent(a2);
    entry_free(e);
}

Test(builtin, parent_variant_counts_as_tried)
{
    ch_entry *e = saxpy();
    ch_agent *a1 = open_agent(), *a2 = open_agent();
    char *s0, *d0, *s1, *d1;
    ask(a1, e, NULL, NULL, 0, &s0, &d0);
    /* a fresh agent handed the parent does not propose the parent again */
    ask(a2, e, NULL, s0, 1, &s1, &d1);
    cr_assert_str_neq(d0, d1);
    free(s0);
    free(d0);
    free(s1);
    free(d1);
    close_agent(a1);
    close_agent(a2);
    entry_free(e);
}

Test(builtin, spec_declarations_need_an_llm)
{
    begin();
    scalar("n", CH_T_INT);
    pointer("y", CH_T_FLOAT, 0, "n");
    ch_entry *e = entry("mystery", NULL);
    e->kind = CH_KIND_SPEC_DECL;
    e->has_body = 0;
    ch_agent *ag = open_agent();
    char *src = (char *)"x", *design = (char *)"x";
    ch_kernel_request req = {.entry = e};
    ch_error err = {0};
    cr_assert_eq(ag->ops->kernel(ag, &req, &src, &design, &err), -1);
    cr_assert_null(src);
    cr_assert(strstr(err.msg, "configure an LLM provider (CH_CC_PROVIDER=openai|anthropic"), "%s",
              err.msg);
    ch_checklist ck;
    memset(&ck, 0, sizeof ck);
    cr_assert_eq(ag->ops->checklist(ag, e, &ck, &err), -1);
    /* no words to read (the spec reader's cases: tests/unit/test_spec_reader.c) */
    cr_assert(strstr(err.msg, "k.c:3:1: error: mystery: there is no spec to read"), "%s", err.msg);
    ck.kind = CH_KIND_SPEC_DECL;
    ck.name = (char *)"mystery";
    char *ref = NULL;
    cr_assert_eq(ag->ops->test_author(ag, &ck, &ref, &err), -1);
    cr_assert(strstr(err.msg, "CH_CC_MODEL"));
    close_agent(ag);
    entry_free(e);
}

Test(builtin, launcher_constants_early_return_and_c89_counters)
{
    /* void half(int n, float *y) { int i; const int h = n / 2; if (n <= 0) return;
     *                              for (i = 0; i <= h; i++) y[i] = (float)h; } */
    begin();
    scalar("n", CH_T_INT);
    pointer("y", CH_T_FLOAT, 0, "n");
    ch_ir *ret = BLK(1, ch_ir_new(CH_IR_RETURN, 1, 1));
    ch_ir *iff = mk(CH_IR_IF, NULL);
    ch_ir_add(iff, B("<=", V("n"), I(0)));
    ch_ir_add(iff, ret);
    ch_ir *f = ch_ir_new(CH_IR_FOR, 6, 5);
    ch_ir *init = ch_ir_new(CH_IR_EXPR_STMT, 6, 10);
    ch_ir *a0 = mk(CH_IR_ASSIGN, "=");
    ch_ir_add(a0, V("i"));
    ch_ir_add(a0, I(0));
    ch_ir_add(init, a0);
    ch_ir_add(f, init);
    ch_ir_add(f, B("<=", V("i"), V("h")));
    ch_ir *inc = mk(CH_IR_ASSIGN, "+=");
    ch_ir_add(inc, V("i"));
    ch_ir_add(inc, I(1));
    ch_ir_add(f, inc);
    ch_ir *cast = mk(CH_IR_CAST, NULL);
    cast->ctype = ch_xstrdup("float");
    ch_ir_add(cast, V("h"));
    ch_ir_add(f, S(A1("y", V("i")), "=", cast));
    ch_entry *e = entry("half", BLK(4, DECL("int", "i", NULL),
                                    DECL("const int", "h", B("/", V("n"), I(2))), iff, f));
    char *src = must_translate(e, 0);
    cr_assert(strstr(src, "half_k0(int n, float *y, int h)"), "%s", src);
    cr_assert(strstr(src, "ch_x >= (long long)(h) + 1"), "%s", src);
    const char *hdecl = strstr(src, "    const int h = n / 2;\n    if (n <= 0) {\n        return;");
    const char *copy = strstr(src, "cudaMemcpyHostToDevice");
    cr_assert(hdecl && copy && hdecl < copy, "constants and early exits precede the copies: %s",
              src);
    cr_assert(strstr(src, "y[i] = (float)h;"), "%s", src);
    nvcc_compiles(src, "half");
    free(src);
    entry_free(e);
}

Test(builtin, checklist_job_derives_from_the_body)
{
    ch_entry *e = saxpy();
    ch_agent *ag = open_agent();
    ch_checklist ck;
    memset(&ck, 0, sizeof ck);
    ch_error err = {0};
    int rc = ag->ops->checklist(ag, e, &ck, &err);
    ch_checklist want;
    memset(&want, 0, sizeof want);
    ch_error err2 = {0};
    int rc2 = ch_checklist_derive(e, &want, &err2);
    cr_assert_eq(rc, rc2, "%s / %s", err.msg, err2.msg);
    cr_assert_eq(rc, 0, "derivation of a C body: %s", err.msg);
    if (rc == 0) {
        cr_assert_str_eq(ck.name, "saxpy");
        char *a = ch_checklist_to_json(&ck), *b = ch_checklist_to_json(&want);
        cr_assert_str_eq(a, b);
        free(a);
        free(b);
        ch_checklist_free(&ck);
        ch_checklist_free(&want);
    } else {
        cr_assert_str_eq(err.msg, err2.msg);
    }
    close_agent(ag);
    entry_free(e);
}

/* ---- C as people write it, scanned from source ---- */

/* Scans src as "t.c"; the list owns its entries (ch_entry_list_free). */
static ch_entry_list scanned(const char *src)
{
    ch_entry_list l;
    ch_error err = {0};
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    cr_assert_geq(l.len, 1);
    return l;
}

/* The candidates of variant 0 for every entry of src, one after the other: one nvcc run
 * compiles them all (their helpers are named after their entries). */
static char *translate_all(const ch_entry_list *l)
{
    ch_strbuf all;
    ch_strbuf_init(&all);
    for (size_t i = 0; i < l->len; i++) {
        char *src = must_translate(&l->items[i], 0);
        ch_strbuf_adds(&all, src);
        free(src);
    }
    return ch_strbuf_detach(&all);
}

/* The kernel of entry `name` in a translate_all result. */
static const char *kernel_of(const char *all, const char *name)
{
    char *sig = ch_xasprintf("__global__ void __launch_bounds__(256) %s_k0(", name);
    const char *k = strstr(all, sig);
    cr_assert(k, "no kernel %s in:\n%s", sig, all);
    free(sig);
    return k;
}

/* Whether `what` appears in the kernel starting at k (before its closing brace). */
static int in_kernel(const char *k, const char *what)
{
    const char *end = strstr(k, "\n}\n");
    const char *at = strstr(k, what);
    return at && end && at < end;
}

Test(builtin, c89_scalar_assigned_first_is_private_to_each_thread)
{
    /* PolyBench symm: the counters and temp2 are declared at the top of the function */
    ch_entry_list l = scanned(
        "#pragma harness\n"
        "void symm(int m, int n, double alpha, double beta, double C[m][n],\n"
        "          double A[m][m], double B[m][n])\n"
        "{\n"
        "    int i, j, k;\n"
        "    double temp2;\n"
        "    for (i = 0; i < m; i++)\n"
        "        for (j = 0; j < n; j++) {\n"
        "            temp2 = 0;\n"
        "            for (k = 0; k < i; k++) {\n"
        "                C[k][j] += alpha * B[i][j] * A[i][k];\n"
        "                temp2 += B[k][j] * A[i][k];\n"
        "            }\n"
        "            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;\n"
        "        }\n"
        "}\n");
    char *src = translate_all(&l);
    /* i carries a dependence (C[k][j] for k < i): a host loop around a kernel over j, each
     * thread a column, with its own temp2 declared before its first use */
    cr_assert(strstr(src, "    for (int i = 0; i < m; i++) {\n"), "%s", src);
    const char *k = kernel_of(src, "symm");
    const char *j = strstr(k, "    const int j = (int)ch_x;\n");
    const char *decl = strstr(k, "    double temp2;\n    temp2 = 0;\n");
    cr_assert(j && decl && j < decl && in_kernel(k, "double temp2;"), "%s", src);
    cr_assert(in_kernel(k, "each iteration assigns temp2 before use"), "%s", src);
    cr_assert(in_kernel(k, "for (int k = 0; k < i; k++) {"),
              "the inner counter stays its loop's: %s", src);
    cr_assert(in_kernel(k, "temp2 += B[(size_t)(k) * (n) + (j)] * A[(size_t)(i) * (m) + (k)];"),
              "%s", src);
    cr_assert_eq(count_of(src, "double temp2;"), 1, "%s", src);
    nvcc_compiles(src, "c89_symm");
    free(src);
    ch_entry_list_free(&l);
}

Test(builtin, c89_scalars_in_deeper_nests_2d_grids_and_counters_used_after_their_loop)
{
    ch_entry_list l = scanned(
        /* a private scalar in a kernel under a host loop */
        "#pragma harness\n"
        "void deep(int T, int n, double A[n][n], double *x, double *y)\n"
        "{\n"
        "    int t, i, j;\n"
        "    double s;\n"
        "    for (t = 0; t < T; t++)\n"
        "        for (i = 0; i < n; i++) {\n"
        "            s = 0;\n"
        "            for (j = 0; j < n; j++)\n"
        "                s += A[i][j] * x[j];\n"
        "            y[i] = s + y[i];\n"
        "        }\n"
        "}\n"
        /* one in the thread of a 2-D grid, assigned on both branches of an if */
        "#pragma harness\n"
        "void grid(int n, int m, double A[n][m], double B[n][m])\n"
        "{\n"
        "    int i, j;\n"
        "    double v;\n"
        "    for (i = 0; i < n; i++)\n"
        "        for (j = 0; j < m; j++) {\n"
        "            if (A[i][j] > 0)\n"
        "                v = A[i][j];\n"
        "            else\n"
        "                v = -A[i][j];\n"
        "            B[i][j] = v * v;\n"
        "        }\n"
        "}\n"
        /* a counter whose value after its loop is used: the thread declares it */
        "#pragma harness extent(a: n)\n"
        "void rank(int n, const float *a, const float *x, int *y)\n"
        "{\n"
        "    int i, k;\n"
        "    for (i = 0; i < n; i++) {\n"
        "        for (k = 0; k < n && a[k] < x[i]; k++)\n"
        "            ;\n"
        "        y[i] = k;\n"
        "    }\n"
        "}\n");
    cr_assert_eq(l.len, 3);
    char *src = translate_all(&l);
    cr_assert(strstr(src, "    for (int t = 0; t < T; t++) {\n"), "%s", src);
    const char *k = kernel_of(src, "deep");
    cr_assert(in_kernel(k, "    double s;\n    s = 0;\n    for (int j = 0; j < n; j++) {"), "%s",
              src);
    k = kernel_of(src, "grid");
    cr_assert(in_kernel(k, "        const int j = (int)ch_x;\n"), "%s", src);
    cr_assert(in_kernel(k, "        double v;\n        if (A[(size_t)(i) * (m) + (j)] > 0) {"),
              "%s", src);
    k = kernel_of(src, "rank");
    cr_assert(in_kernel(k, "    int k;\n    for (k = 0; k < n && a[k] < x[i]; k++) {"), "%s", src);
    cr_assert(in_kernel(k, "y[i] = k;"), "%s", src);
    nvcc_compiles(src, "c89_nests");
    free(src);
    ch_entry_list_free(&l);
}

Test(builtin, c89_scalar_whose_value_crosses_iterations_is_refused_where_it_is_read)
{
    /* read after the loop: the last iteration's value would be needed */
    ch_entry_list l = scanned("#pragma harness\n"
                              "void after(int n, const float *a, float *b, float *c)\n"
                              "{\n"
                              "    int i, j;\n"
                              "    float t;\n"
                              "    for (i = 0; i < n; i++) {\n"
                              "        t = a[i];\n"
                              "        b[i] = t;\n"
                              "    }\n"
                              "    for (j = 0; j < n; j++)\n"
                              "        c[j] = t;\n"
                              "}\n");
    refuse(&l.items[0], "t.c:6:5: error:",
           "assigns the scalar 't' (at 7:9) and the function reads it after the loop (at 11:16)");
    ch_entry_list_free(&l);
    /* read before this iteration assigns it */
    l = scanned("#pragma harness\n"
                "void shift(int n, const float *a, float *b)\n"
                "{\n"
                "    int i;\n"
                "    float t;\n"
                "    for (i = 0; i < n; i++) {\n"
                "        b[i] = t;\n"
                "        t = a[i];\n"
                "    }\n"
                "}\n");
    refuse(&l.items[0], "t.c:6:5: error:",
           "carries the scalar 't' from one iteration to the next: its read at 7:16");
    ch_entry_list_free(&l);
    /* assigned on one branch only: the other path reads an earlier iteration's value */
    l = scanned("#pragma harness\n"
                "void keep(int n, const float *a, float *b)\n"
                "{\n"
                "    int i;\n"
                "    float t;\n"
                "    for (i = 0; i < n; i++) {\n"
                "        if (a[i] > 0)\n"
                "            t = a[i];\n"
                "        b[i] = t;\n"
                "    }\n"
                "}\n");
    refuse(&l.items[0], "t.c:6:5: error:", "its read at 9:16 can see the value of an earlier");
    ch_entry_list_free(&l);
    /* accumulated across iterations: a reduction, as before */
    l = scanned("#pragma harness\n"
                "void total(int n, const float *a, float *out)\n"
                "{\n"
                "    int i;\n"
                "    float s = 0;\n"
                "    for (i = 0; i < n; i++)\n"
                "        s += a[i];\n"
                "    out[0] = s;\n"
                "}\n");
    refuse(&l.items[0], "t.c:6:5: error:", "reduction into 's'");
    ch_entry_list_free(&l);
    /* a global outlives the call */
    l = scanned("float g;\n"
                "#pragma harness\n"
                "void glob(int n, const float *a, float *b)\n"
                "{\n"
                "    for (int i = 0; i < n; i++) {\n"
                "        g = a[i];\n"
                "        b[i] = g;\n"
                "    }\n"
                "}\n");
    refuse(&l.items[0], "t.c:5:5: error:", "assigns 'g' (at 6:9), which is not declared in");
    ch_entry_list_free(&l);
}

/* Checks that a 1-D kernel of variant 0 runs its counter `var` over the same values as the C
 * loop `c_loop` (its header, `for (...)`, with the declarations it needs before it) for
 * n = 0 .. 11: a C program runs both, the kernel's count and index taken from its text. */
static void same_values(const char *src, const char *c_loop, const char *var)
{
    const char *c0 = strstr(src, "    if (ch_x >= ");
    cr_assert(c0, "%s", src);
    c0 += strlen("    if (ch_x >= ");
    const char *c1 = strstr(c0, ")\n        return;\n");
    cr_assert(c1, "%s", src);
    char *needle = ch_xasprintf(" %s = (", var);
    const char *d1 = strstr(c1, needle);
    cr_assert(d1, "%s", src);
    free(needle);
    const char *d0 = d1;
    while (d0 > c1 && d0[-1] != '\n')
        d0--;
    const char *d2 = strchr(d1, ';');
    char *prog = ch_xasprintf(
        "#include <stdio.h>\n#include <string.h>\n"
        "static int want[1024], got[1024];\n"
        "int main(void)\n{\n"
        "    for (int n = 0; n < 12; n++) {\n"
        "        memset(want, 0, sizeof want);\n"
        "        memset(got, 0, sizeof got);\n"
        "        %s\n            want[%s + 512]++;\n"
        "        for (long long ch_x = 0; ch_x < %.*s; ch_x++) {\n"
        "            %.*s\n            got[%s + 512]++;\n        }\n"
        "        if (memcmp(want, got, sizeof want) != 0) {\n"
        "            printf(\"n = %%d: the kernel's values differ from the loop's\\n\", n);\n"
        "            return 1;\n        }\n    }\n    return 0;\n}\n",
        c_loop, var, (int)(c1 - c0), c0, (int)(d2 + 1 - d0), d0, var);
    ch_error err = {0};
    char *dir = ch_make_temp_dir("builtin", &err);
    cr_assert(dir, "%s", err.msg);
    char *c = ch_xasprintf("%s/values.c", dir), *bin = ch_xasprintf("%s/values", dir);
    cr_assert_eq(ch_write_file_atomic(c, prog, strlen(prog), 0, &err), 0, "%s", err.msg);
    ch_strbuf out;
    ch_strbuf_init(&out);
    char *cc[] = {"cc", "-std=c11", "-Wall", "-Werror", "-o", bin, c, NULL};
    cr_assert_eq(ch_proc_capture(cc, &out, &err), 0, "cc: %s %s\n%s", err.msg, out.data, prog);
    char *run[] = {bin, NULL};
    cr_assert_eq(ch_proc_capture(run, &out, &err), 0, "%s\n%s\n---\n%s", out.data, prog, src);
    ch_strbuf_free(&out);
    ch_remove_tree(dir, &err);
    free(c);
    free(bin);
    free(dir);
    free(prog);
}

Test(builtin, count_down_and_strided_loops_cover_the_same_values)
{
    static const struct {
        const char *decl, *loop, *sub, *range;
    } loops[] = {
        /* PolyBench nussinov's outer loop, with its C89 counter */
        {"int i;", "for (i = n - 1; i >= 0; i--)", "i",
         "i in [0, n - 1], counting down from n - 1"},
        {"", "for (int i = n; i > 0; --i)", "i - 1", "i in (0, n], counting down from n"},
        {"", "for (long i = n - 1; 0 <= i; i -= 2)", "i",
         "i in [0, n - 1], counting down from n - 1, step 2"},
        {"", "for (long i = n; i >= 1; i = i - 3)", "i - 1",
         "i in [1, n], counting down from n, step 3"},
        {"", "for (int i = 1; n > i; i = i + 3)", "i", "i in [1, n), step 3"},
        {"", "for (int i = 0; i < n; i += 2)", "i", "i in [0, n), step 2"},
        {"", "for (unsigned i = 1; i <= n; i++)", "i - 1", "i in [1, n]"},
        {"", "for (size_t i = 0; i < (size_t)n; ++i)", "i", "i in [0, (unsigned long)n)"},
    };
    for (size_t t = 0; t < sizeof loops / sizeof *loops; t++) {
        char *text = ch_xasprintf("#include <stddef.h>\n"
                                  "#pragma harness extent(x: n, y: n)\n"
                                  "void f(int n, const float *x, float *y)\n"
                                  "{\n"
                                  "    %s\n"
                                  "    %s\n"
                                  "        y[%s] = 2.0f * x[%s];\n"
                                  "}\n",
                                  loops[t].decl, loops[t].loop, loops[t].sub, loops[t].sub);
        ch_entry_list l = scanned(text);
        char *src = must_translate(&l.items[0], 0);
        cr_assert(strstr(src, loops[t].range), "'%s' missing for %s:\n%s", loops[t].range,
                  loops[t].loop, src);
        char *c_loop = ch_xasprintf("%s %s", loops[t].decl, loops[t].loop);
        same_values(src, c_loop, "i");
        if (t == 0)
            nvcc_compiles(src, "count_down");
        free(c_loop);
        free(src);
        ch_entry_list_free(&l);
        free(text);
    }
}

Test(builtin, count_down_loop_that_carries_a_dependence_runs_in_order_on_the_host)
{
    ch_entry_list l = scanned("#pragma harness\n"
                              "void sweep(int n, int m, double A[n][m])\n"
                              "{\n"
                              "    int i, j;\n"
                              "    for (i = n - 1; i >= 1; i -= 2)\n"
                              "        for (j = 0; j < m; j++)\n"
                              "            A[i - 1][j] = A[i - 1][j] + A[i][j];\n"
                              "}\n");
    char *src = translate_all(&l);
    cr_assert(strstr(src, "in the C loop's order"), "%s", src);
    cr_assert(strstr(src, "    for (int i = n - 1; i >= 1; i -= 2) {\n        { /* kernel 0 */"),
              "%s", src);
    const char *k = kernel_of(src, "sweep");
    cr_assert(in_kernel(k, "const int j = (int)ch_x;"), "%s", src);
    cr_assert(in_kernel(k, "sweep_k0(int n, int m, double *A, int i)"), "%s", src);
    nvcc_compiles(src, "sweep");
    free(src);
    ch_entry_list_free(&l);
}

Test(builtin, loops_whose_step_or_direction_is_wrong_are_refused)
{
    ch_entry_list l = scanned("#pragma harness extent(a: n)\n"
                              "void stride(int n, int s, float *a)\n"
                              "{\n"
                              "    for (int i = 0; i < n; i += s)\n"
                              "        a[i] = 0;\n"
                              "}\n"
                              "#pragma harness extent(a: n)\n"
                              "void wrong(int n, float *a)\n"
                              "{\n"
                              "    for (int i = n - 1; i < n; i--)\n"
                              "        a[i] = 0;\n"
                              "}\n"
                              "#pragma harness extent(a: n)\n"
                              "void neq(int n, float *a)\n"
                              "{\n"
                              "    for (int i = 0; i != n; i++)\n"
                              "        a[i] = 0;\n"
                              "}\n");
    cr_assert_eq(l.len, 3);
    refuse(&l.items[0], "t.c:4:5: error:", "does not step its counter 'i' by a constant");
    refuse(&l.items[1], "t.c:10:5: error:",
           "decreases its counter 'i' but its condition `i < ...` bounds it from above");
    refuse(&l.items[2],
           "t.c:16:5: error:", "condition does not compare its counter 'i' with a bound");
    ch_entry_list_free(&l);
}

Test(builtin, inclusive_bounds_compound_assignments_and_wide_counters)
{
    ch_entry_list l = scanned("#include <stddef.h>\n"
                              "#pragma harness extent(x: n, y: n)\n"
                              "void ops(size_t n, float a, const float *x, float *y)\n"
                              "{\n"
                              "    size_t i;\n"
                              "    long j;\n"
                              "    unsigned k;\n"
                              "    float t;\n"
                              "    for (i = 1; i <= n; i++) {\n"
                              "        t = x[i - 1];\n"
                              "        t *= a;\n"
                              "        t -= 1.0f;\n"
                              "        y[i - 1] += t;\n"
                              "    }\n"
                              "    for (j = 0; j <= (long)n - 1; j++)\n"
                              "        y[j] *= 2.0f;\n"
                              "    for (k = 0; k < n; k++)\n"
                              "        y[k] /= a;\n"
                              "}\n");
    char *src = translate_all(&l);
    cr_assert(strstr(src, "const unsigned long i = (unsigned long)((1) + ch_x);"), "%s", src);
    cr_assert(strstr(src, "ch_x >= (long long)(n) - (long long)(1) + 1"), "%s", src);
    cr_assert(strstr(src, "    float t;\n    t = x[i - 1];\n    t *= a;\n    t -= 1.0f;\n"
                          "    y[i - 1] += t;\n"),
              "%s", src);
    cr_assert(strstr(src, "const long j = (long)ch_x;"), "%s", src);
    cr_assert(strstr(src, "y[j] *= 2.0f;"), "%s", src);
    cr_assert(strstr(src, "const unsigned int k = (unsigned int)ch_x;"), "%s", src);
    cr_assert(strstr(src, "y[k] /= a;"), "%s", src);
    cr_assert_eq(count_of(src, "__global__"), 3);
    nvcc_compiles(src, "ops");
    free(src);
    ch_entry_list_free(&l);
}

Test(builtin, math_calls_translate_in_the_precision_written)
{
    ch_entry_list l = scanned(
        "#include <math.h>\n"
        "#pragma harness\n"
        "void dm(int n, const double *x, double *y)\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        y[i] = sqrt(x[i]) + exp(x[i]) + pow(x[i], 2) + fabs(x[i]) + fmax(x[i], 0.0) +\n"
        "               fmin(x[i], 1) + log(x[i] + 1) + sin(x[i]) + cos(x[i]) + floor(x[i]) +\n"
        "               sqrt(n);\n"
        "}\n"
        "#pragma harness\n"
        "void fm(int n, const float *x, float *y)\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        y[i] = sqrtf(x[i]) + expf(x[i]) + powf(x[i], 2) + fabsf(x[i]) +\n"
        "               fmaxf(x[i], 0.0f) + fminf(x[i], 1) + logf(x[i] + 1) + sinf(x[i]) +\n"
        "               cosf(x[i]) + floorf(x[i]) + sqrtf(n);\n"
        "}\n");
    char *src = translate_all(&l);
    /* integer arguments are converted as C converts them: CUDA C++ would otherwise pick the
     * host library's integer overloads (`sqrt(n)`), which device code cannot call */
    cr_assert(in_kernel(kernel_of(src, "dm"),
                        "y[i] = sqrt(x[i]) + exp(x[i]) + pow(x[i], 2.0) + fabs(x[i]) + "
                        "fmax(x[i], 0.0) + fmin(x[i], 1.0) + log(x[i] + 1) + sin(x[i]) + "
                        "cos(x[i]) + floor(x[i]) + sqrt((double)n);"),
              "%s", src);
    cr_assert(in_kernel(kernel_of(src, "fm"),
                        "y[i] = sqrtf(x[i]) + expf(x[i]) + powf(x[i], 2.0f) + fabsf(x[i]) + "
                        "fmaxf(x[i], 0.0f) + fminf(x[i], 1.0f) + logf(x[i] + 1) + sinf(x[i]) + "
                        "cosf(x[i]) + floorf(x[i]) + sqrtf((float)n);"),
              "%s", src);
    nvcc_compiles(src, "math_calls");
    free(src);
    ch_entry_list_free(&l);
}

/* ---- the file's own functions, called from the body ---- */

Test(builtin_helpers, pure_static_helpers_become_device_functions)
{
    ch_entry_list l =
        scanned("typedef double real;\n#define SQ(x) ((x) * (x))\n"
                "static inline real sq(real v) { return SQ(v); }\n"
                "static real soft(real a) { real t = sq(a) - 1; return t > 0 ? t : 0; "
                "}\n"
                "#pragma harness\nvoid f(int n, const double *a, double *b)\n"
                "{ for (int i = 0; i < n; i++) b[i] = soft(a[i]) + sq(2.0); }\n");
    char *src = must_translate(&l.items[0], 0);
    /* callees first, each for host and device, renamed away from CUDA's own names */
    const char *sq = strstr(src, "__host__ __device__ static inline real sq(real v)");
    const char *soft = strstr(src, "__host__ __device__ static real soft(real a)");
    cr_expect(sq && soft && sq < soft, "%s", src);
    cr_expect(strstr(src, "#define sq ch_user_sq") != NULL);
    cr_expect(strstr(src, "typedef double real;") != NULL);
    cr_expect(strstr(src, "b[i] = soft(a[i]) + sq(2.0)") != NULL, "%s", src);
    nvcc_compiles(src, "helpers");
    free(src);
    ch_entry_list_free(&l);
}

Test(builtin_helpers, a_helper_with_state_is_refused_at_its_call)
{
    ch_entry_list l = scanned("int calls;\nstatic double count(double v) { calls++; return v; }\n"
                              "#pragma harness\nvoid f(int n, const double *a, double *b)\n"
                              "{ for (int i = 0; i < n; i++) b[i] = count(a[i]); }\n");
    refuse(&l.items[0], "t.c:5:", "the call to 'count' is not translated");
    ch_entry_list_free(&l);
}
