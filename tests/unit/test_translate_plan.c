/* The translator's schedule, mapping and CUDA (src/translate: schedule.c, cuda.c) on small
 * bodies of each class: for each, the exact plan of both strategies (which statements each
 * kernel runs, which schedule dimensions go to threads, in the statements' own terms, and where
 * scalars live), as --harness-plan prints it, and the lines of CUDA that carry the mapping.
 * Each comment says why the answer is right. Line:col count from the pragma on line 1. */
#include "ch/proc.h"
#include "ch/translate.h"
#include "scan_helpers.h"

/* The model of "#pragma harness CLAUSES\nBODY"; the caller frees m, d and l. */
static void model_of(const char *clauses, const char *body, ch_entry_list *l, ch_tr_model **m,
                     ch_tr_deps **d)
{
    ch_error err;
    char *text = ch_xasprintf("#pragma harness%s%s\n%s", *clauses ? " " : "", clauses, body);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, l, &err), 0, "scan failed: %s", err.msg);
    free(text);
    cr_assert_eq(l->len, 1);
    cr_assert_eq(ch_tr_model_build(&l->items[0], m, &err), 0, "model: %s", err.msg);
    cr_assert_eq(ch_tr_deps_compute(*m, d, &err), 0, "deps: %s", err.msg);
}

/* The statements (without their domains), loops and both strategies' plans equal want. */
static void expect_plan(const char *clauses, const char *body, const char *want)
{
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of(clauses, body, &l, &m, &d);
    ch_strbuf all, got;
    ch_strbuf_init(&all);
    ch_strbuf_init(&got);
    ch_tr_print(&all, m, d, CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS);
    for (int s = CH_TR_ISL_SCHEDULE; s <= CH_TR_ORIGINAL; s++) {
        ch_tr_plan *p = NULL;
        ch_error err;
        cr_assert_eq(ch_tr_plan_build(m, d, (ch_tr_strategy)s, 0, &p, &err), 0, "plan: %s",
                     err.msg);
        ch_tr_plan_print(&all, p);
        ch_tr_plan_free(p);
    }
    /* the domains are the model's tests' business */
    for (char *line = all.data, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (strncmp(line, "  [", 3) != 0)
            ch_strbuf_add(&got, line, nl ? (size_t)(nl - line) + 1 : strlen(line));
    }
    cr_expect_str_eq(got.data, want, "got:\n%s\nwant:\n%s", got.data, want);
    ch_strbuf_free(&all);
    ch_strbuf_free(&got);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
}

/* The CUDA of strategy s for the body (malloc'd). */
/* The CUDA of strategy s under options o (malloc'd). */
static char *cuda_with(const char *clauses, const char *body, ch_tr_strategy s,
                       const ch_tr_cuda_opts *o)
{
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of(clauses, body, &l, &m, &d);
    ch_tr_plan *p = NULL;
    ch_error err;
    cr_assert_eq(ch_tr_plan_build(m, d, s, 0, &p, &err), 0, "plan: %s", err.msg);
    char *src = ch_tr_cuda(p, o);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return src;
}

static char *cuda_of(const char *clauses, const char *body, ch_tr_strategy s)
{
    ch_tr_cuda_opts o = {.block1 = 256, .block2_x = 32, .block2_y = 8, .grid_cap = 1024};
    return cuda_with(clauses, body, s, &o);
}

static void expect_has(const char *src, const char *line)
{
    cr_expect(strstr(src, line), "missing \"%s\" in:\n%s", line, src);
}

/* The PTX nvcc makes of a candidate (-arch=sm_90 -O3, warnings are errors), malloc'd: what the
 * tests count loads and their order in. */
static char *ptx_of(const char *src)
{
    ch_error err = {0};
    char *dir = ch_make_temp_dir("tr_ptx", &err);
    cr_assert(dir, "%s", err.msg);
    char *cu = ch_path_join(dir, "k.cu"), *ptx = ch_path_join(dir, "k.ptx");
    cr_assert_eq(ch_write_file_atomic(cu, src, strlen(src), 0, &err), 0, "%s", err.msg);
    const char *nvcc =
        ch_file_exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    char *argv[] = {(char *)nvcc, "-arch=sm_90", "-O3", "-Werror", "all-warnings", "-ptx",
                    cu,           "-o",          ptx,   NULL};
    ch_strbuf log;
    ch_strbuf_init(&log);
    int rc = ch_proc_capture(argv, &log, &err);
    cr_assert_eq(rc, 0, "nvcc failed (rc %d): %s\n%s\n---\n%s", rc, err.msg, log.data, src);
    char *text = NULL;
    size_t n = 0;
    cr_assert_eq(ch_read_file(ptx, &text, &n, &err), 0, "%s", err.msg);
    ch_strbuf_free(&log);
    ch_remove_tree(dir, &err);
    free(cu);
    free(ptx);
    free(dir);
    return text;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
        n++;
    return n;
}

/* A symmetric matrix filled from its upper triangle: iteration (i, j) writes cov[i][j] and
 * cov[j][i], and no element is written by two iterations (for j >= i the pairs (i, j) are
 * distinct), so exact dependence analysis finds both loops parallel (the old "same affine form"
 * test refused this). isl's scheduler maps both to threads; the original order maps i. */
Test(translate_plan, cov_fill)
{
    expect_plan("",
                "void cov_fill(int n, const double *d, double cov[n][n])\n"
                "{\n"
                "    for (int i = 0; i < n; i++)\n"
                "        for (int j = i; j < n; j++) {\n"
                "            cov[i][j] = d[i] * d[j];\n"
                "            cov[j][i] = cov[i][j];\n"
                "        }\n"
                "}\n",
                "S1 at 6:13: cov[i][j] = d[i] * d[j];\n"
                "S2 at 7:13: cov[j][i] = cov[i][j];\n"
                "loop i at 4:5: parallel\n"
                "loop j at 5:9: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 2 parallel dimensions on threads: S1 S2\n"
                "  c0..c1: [n] -> [{ S2[i, j] -> [(i)]; S1[i, j] -> [(i)] }, { S2[i, j] -> [(j)]; "
                "S1[i, j] -> [(j)] }]\n"
                "strategy: original loop order\n"
                "kernel 0: 2 parallel dimensions on threads: S1 S2\n"
                "  c0..c1: [n] -> [{ S2[i, j] -> [(i)] : i >= 0 and i <= j < n; S1[i, j] -> [(i)] "
                ": i >= 0 and i <= j < n }, { S2[i, j] -> [(j)] : i >= 0 and i <= j < n; S1[i, j] "
                "-> [(j)] : i >= 0 and i <= j < n }]\n");
}

/* t is reset before each row's sum and read after it: private to iterations of i (its
 * dependences are limited to one i), so i is parallel and t is a variable of each thread,
 * while j carries the sum. */
Test(translate_plan, rowsum)
{
    expect_plan("",
                "void rowsum(int n, int m, const float a[n][m], float *y)\n"
                "{\n"
                "    float t;\n"
                "    for (int i = 0; i < n; i++) {\n"
                "        t = 0;\n"
                "        for (int j = 0; j < m; j++)\n"
                "            t += a[i][j];\n"
                "        y[i] = t;\n"
                "    }\n"
                "}\n",
                "S1 at 6:9: t = 0;\n"
                "S2 at 8:13: t += a[i][j];\n"
                "S3 at 9:9: y[i] = t;\n"
                "loop i at 5:5: parallel (private t)\n"
                "loop j at 7:9: carries flow/anti/output S2 -> S2 on t (reduction on t (+))\n"
                "strategy: isl scheduler\n"
                "kernel 0: 1 parallel dimension on threads: S1 S2 S3\n"
                "  c0..c0: [n, m] -> [{ S3[i] -> [(i)]; S2[i, j] -> [(i)]; S1[i] -> [(i)] }]\n"
                "scalar t: a variable of each thread\n"
                "strategy: original loop order\n"
                "kernel 0: 1 parallel dimension on threads: S1 S2 S3\n"
                "  c0..c0: [n, m] -> [{ S3[i] -> [(i)] : 0 <= i < n; S2[i, j] -> [(i)] : 0 <= i < "
                "n and 0 <= j < m; S1[i] -> [(i)] : 0 <= i < n }]\n"
                "scalar t: a variable of each thread\n");
}

/* A loop counting down: iteration i reads y[i+1], which the previous iteration (i+1) wrote.
 * The schedule runs the counter in decreasing order, so this is a flow dependence carried by
 * i, and the whole loop runs in order on one thread. */
Test(translate_plan, suffix)
{
    expect_plan("",
                "void suffix(int n, const float *x, float *y)\n"
                "{\n"
                "    for (int i = n - 2; i >= 0; i--)\n"
                "        y[i] = y[i + 1] + x[i];\n"
                "}\n",
                "S1 at 5:9: y[i] = y[i + 1] + x[i];\n"
                "loop i at 4:5: carries flow S1 -> S1 on y\n"
                "strategy: isl scheduler\n"
                "kernel 0: one thread: S1\n"
                "strategy: original loop order\n"
                "kernel 0: one thread: S1\n");
}

/* A statement outside any loop writes s, which every iteration reads: s lives in device
 * memory, written by a one-thread kernel before the parallel one reads it. */
Test(translate_plan, scale_then)
{
    expect_plan("",
                "void scale_then(int n, const double *r, double *y)\n"
                "{\n"
                "    double s = r[0] * 2.0;\n"
                "    for (int i = 0; i < n; i++)\n"
                "        y[i] = y[i] * s;\n"
                "}\n",
                "S1 at 4:5: double s = r[0] * 2.0;\n"
                "S2 at 6:9: y[i] = y[i] * s;\n"
                "loop i at 5:5: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: one thread: S1\n"
                "kernel 1: 1 parallel dimension on threads: S2\n"
                "  c0..c0: [n] -> [{ S2[i] -> [(i)] }]\n"
                "scalar s: in device memory\n"
                "strategy: original loop order\n"
                "kernel 0: one thread: S1\n"
                "kernel 1: 1 parallel dimension on threads: S2\n"
                "  c0..c0: [n] -> [{ S2[i] -> [(i)] : 0 <= i < n }]\n"
                "scalar s: in device memory\n");
}

/* The branches of an if whose condition is not affine: both statements keep the whole domain
 * (may-writes) and run under their condition (tested in the CUDA below); i stays parallel. */
Test(translate_plan, clampneg)
{
    expect_plan(
        "",
        "void clampneg(int n, const float *x, float *y)\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        if (x[i] > 0)\n"
        "            y[i] = x[i];\n"
        "        else\n"
        "            y[i] = 0;\n"
        "}\n",
        "S1 at 6:13 (may): y[i] = x[i];\n"
        "S2 at 8:13 (may): y[i] = 0;\n"
        "loop i at 4:5: parallel\n"
        "strategy: isl scheduler\n"
        "kernel 0: 1 parallel dimension on threads: S1 S2\n"
        "  c0..c0: [n] -> [{ S1[i] -> [(i)]; S2[i] -> [(i)] }]\n"
        "strategy: original loop order\n"
        "kernel 0: 1 parallel dimension on threads: S1 S2\n"
        "  c0..c0: [n] -> [{ S1[i] -> [(i)] : 0 <= i < n; S2[i] -> [(i)] : 0 <= i < n }]\n");
}

/* A local array is device scratch memory. isl fuses the two loops by reversing the first
 * (S1 at 63 - i), so each thread writes z[63 - i] and reads it back; the original order keeps
 * two kernels. */
Test(translate_plan, scratch)
{
    expect_plan("",
                "void scratch(int n, const double *x, double *y)\n"
                "{\n"
                "    double z[64];\n"
                "    for (int i = 0; i < 64; i++)\n"
                "        z[i] = x[i] * 2;\n"
                "    for (int i = 0; i < 64; i++)\n"
                "        y[i] = z[63 - i];\n"
                "}\n",
                "S1 at 6:9: z[i] = x[i] * 2;\n"
                "S2 at 8:9: y[i] = z[63 - i];\n"
                "loop i at 5:5: parallel\n"
                "loop i at 7:5: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 1 parallel dimension on threads: S1 S2\n"
                "  c0..c0: [n] -> [{ S1[i] -> [(63 - i)]; S2[i] -> [(i)] }]\n"
                "strategy: original loop order\n"
                "kernel 0: 1 parallel dimension on threads: S1\n"
                "  c0..c0: [n] -> [{ S1[i] -> [(i)] : 0 <= i <= 63 }]\n"
                "kernel 1: 1 parallel dimension on threads: S2\n"
                "  c0..c0: [n] -> [{ S2[i] -> [(i)] : 0 <= i <= 63 }]\n");
}

/* The i-k-j order: j, the unit-stride subscript, sits inside the reduction loop k. isl's
 * scheduler still maps i and j to threads (k runs inside each thread); the original order
 * can only map i. */
Test(translate_plan, gemm)
{
    expect_plan(
        "",
        "void gemm(int n, double C[n][n], const double A[n][n], const double B[n][n])\n"
        "{\n"
        "    for (int i = 0; i < n; i++)\n"
        "        for (int k = 0; k < n; k++)\n"
        "            for (int j = 0; j < n; j++)\n"
        "                C[i][j] += A[i][k] * B[k][j];\n"
        "}\n",
        "S1 at 7:17: C[i][j] += A[i][k] * B[k][j];\n"
        "loop i at 4:5: parallel\n"
        "loop k at 5:9: carries flow/anti/output S1 -> S1 on C (reduction on C (+))\n"
        "loop j at 6:13: parallel\n"
        "strategy: isl scheduler\n"
        "kernel 0: 2 parallel dimensions on threads: S1\n"
        "  c0..c1: [n] -> [{ S1[i, k, j] -> [(i)] }, { S1[i, k, j] -> [(j)] }]\n"
        "strategy: original loop order\n"
        "kernel 0: 1 parallel dimension on threads: S1\n"
        "  c0..c0: [n] -> [{ S1[i, k, j] -> [(i)] : 0 <= i < n and 0 <= k < n and 0 <= j < n }]\n");
}
/* The CUDA of the plans above carries the mapping: grid-stride loops over the mapped
 * dimensions, the counters bound to them, the conditions of the branches, the scalars where
 * the plan put them, the local array as a kept device buffer. */
Test(translate_plan, cuda_lines)
{
    char *src = cuda_of("",
                        "void gemm(int n, double C[n][n], const double A[n][n], const double "
                        "B[n][n])\n{\n    for (int i = 0; i < n; i++)\n        for (int k = 0; k "
                        "< n; k++)\n            for (int j = 0; j < n; j++)\n                "
                        "C[i][j] += A[i][k] * B[k][j];\n}\n",
                        CH_TR_ISL_SCHEDULE);
    /* i on y, j on x (neighbouring threads, neighbouring elements), k inside the thread */
    expect_has(src, "const long long ch_g0 = (long long)blockIdx.y * blockDim.y + threadIdx.y;");
    expect_has(src, "const long long ch_g1 = (long long)blockIdx.x * blockDim.x + threadIdx.x;");
    expect_has(src, "for (long long c0 = ch_g0; (c0 < n); c0 += ch_n0) {");
    expect_has(src, "for (long long c1 = ch_g1; (c1 < n); c1 += ch_n1) {");
    expect_has(src, "for (long long c2 = 0; (c2 < n); c2++) {");
    expect_has(src, "const int i = (int)c0;");
    expect_has(src, "const int k = (int)c2;");
    expect_has(src, "const int j = (int)c1;");
    /* the product rounds before the sum, as on the host: no fused multiply-add */
    expect_has(src, "C[(size_t)(i) * (n) + (j)] += __dmul_rn(A[(size_t)(i) * (n) + (k)], "
                    "B[(size_t)(k) * (n) + (j)]);");
    expect_has(src, "const dim3 ch_block(32, 8), ch_grid(gemm_blocks(ch_e1, 32, 1024LL), "
                    "gemm_blocks(ch_e0, 8, 65535LL));");
    free(src);

    src = cuda_of("",
                  "void clampneg(int n, const float *x, float *y)\n{\n    for (int i = 0; i < n; "
                  "i++)\n        if (x[i] > 0)\n            y[i] = x[i];\n        else\n          "
                  "  y[i] = 0;\n}\n",
                  CH_TR_ORIGINAL);
    expect_has(src, "if (x[i] > 0) {");
    expect_has(src, "if (!(x[i] > 0)) {");
    free(src);

    src = cuda_of("",
                  "void scale_then(int n, const double *r, double *y)\n{\n    double s = r[0] * "
                  "2.0;\n    for (int i = 0; i < n; i++)\n        y[i] = y[i] * s;\n}\n",
                  CH_TR_ORIGINAL);
    expect_has(src, "typedef struct scale_then_scalars {\n    double s;\n} scale_then_scalars;");
    expect_has(src, "ch_s->s = __dmul_rn(r[0], 2.0);");
    expect_has(src, "y[i] = __dmul_rn(y[i], ch_s->s);");
    expect_has(src, "const dim3 ch_block(1), ch_grid(1);");
    free(src);

    src = cuda_of("",
                  "void rowsum(int n, int m, const float a[n][m], float *y)\n{\n    float t;\n    "
                  "for (int i = 0; i < n; i++) {\n        t = 0;\n        for (int j = 0; j < m; "
                  "j++)\n            t += a[i][j];\n        y[i] = t;\n    }\n}\n",
                  CH_TR_ISL_SCHEDULE);
    expect_has(src, "    float t; /* private to each iteration that uses it */");
    free(src);

    src = cuda_of("",
                  "void scratch(int n, const double *x, double *y)\n{\n    double z[64];\n    for "
                  "(int i = 0; i < 64; i++)\n        z[i] = x[i] * 2;\n    for (int i = 0; i < "
                  "64; i++)\n        y[i] = z[63 - i];\n}\n",
                  CH_TR_ORIGINAL);
    expect_has(src, "const size_t ch_n_z = (size_t)64 * sizeof(double);");
    expect_has(src, "(double *)ch_d_z");
    free(src);
}

/* The argmin below: both strategies give the C order (see if_conversion). */
#define ARGMIN_ORIGINAL                                                                            \
    "strategy: original loop order\n"                                                              \
    "kernel 0: 1 parallel dimension on threads: S1 S2 S3 S4 S5 S6\n"                               \
    "  c0..c0: [n, k] -> [{ S3[i, j] -> [(i)] : 0 <= i < n and 0 < j < k; S4[i, j] -> "            \
    "[(i)] : 0 <= i < n and 0 < j < k; S5[i, j] -> [(i)] : 0 <= i < n and 0 < j < k; "             \
    "S1[i] -> [(i)] : 0 <= i < n; S6[i] -> [(i)] : 0 <= i < n; S2[i] -> [(i)] : 0 <= i "           \
    "< n }]\n"                                                                                     \
    "scalar best: a variable of each thread\n"                                                     \
    "scalar at: a variable of each thread\n"                                                       \
    "scalar ch_if1: a variable of each thread\n"

/* An if whose branch changes what its condition reads is if-converted: the condition is
 * evaluated once into ch_if1 (private to each iteration), so y[i] = 1 still runs exactly when
 * x[i] was positive before x[i] = 0. An argmin (the branch changes best, which the condition
 * reads) keeps its j loop in order inside each thread and its i loop parallel; isl's order
 * would split the live range of best, so both strategies keep the C order. */
Test(translate_plan, if_conversion)
{
    char *src = cuda_of("",
                        "void flip(int n, float *x, float *y)\n{\n    for (int i = 0; i < n; "
                        "i++)\n        if (x[i] > 0) {\n            x[i] = 0;\n            y[i] "
                        "= 1;\n        }\n}\n",
                        CH_TR_ISL_SCHEDULE);
    expect_has(src, "ch_if1 = x[i] > 0;");
    expect_has(src, "if (ch_if1) {\n                x[i] = 0;");
    expect_has(src, "if (ch_if1) {\n                y[i] = 1;");
    free(src);
    expect_plan(
        "extent(d: n * k, lab: n)",
        "void argmin(int n, int k, const float *d, int *lab)\n{\n    for (int i = 0; i < "
        "n; i++) {\n        float best = d[i * k];\n        int at = 0;\n        for "
        "(int j = 1; j < k; j++)\n            if (d[i * k + j] < best) {\n              "
        "  best = d[i * k + j];\n                at = j;\n            }\n        lab[i] "
        "= at;\n    }\n}\n",
        "S1 at 5:9: float best = d[i * k];\n"
        "S2 at 6:9: int at = 0;\n"
        "S3 at 8:13: int ch_if1 = d[i * k + j] < best;\n"
        "S4 at 9:17 (may): best = d[i * k + j];\n"
        "S5 at 10:17 (may): at = j;\n"
        "S6 at 12:9: lab[i] = at;\n"
        "loop i at 4:5: parallel (private best, at, ch_if1)\n"
        "loop j at 7:9: carries flow S4 -> S3 on best, anti S3 -> S4 on best, output S4 -> "
        "S4 on best, output S5 -> S5 on at (private ch_if1)\n" ARGMIN_ORIGINAL ARGMIN_ORIGINAL);
}

/* Flattened matrices: b[j*m + i] = a[i*n + j] is a transpose whose subscripts split into
 * b[j][i] and a[i][j] (0 <= i < m and 0 <= j < n keep the inner subscripts within their
 * sizes), so both loops are parallel and both go to threads, in either strategy (the original
 * order's i and j loops are perfectly nested: one band). Where the proof fails (j runs to n,
 * one past the row) the subscript is not split, the write is any element of b, and the loops
 * carry an output dependence: one thread, never a wrong kernel. */
Test(translate_plan, flattened_subscripts)
{
    expect_plan("extent(a: m * n, b: n * m)",
                "void tr(int m, int n, const float *a, float *b)\n{\n    for (int i = 0; i < m; "
                "i++)\n        for (int j = 0; j < n; j++)\n            b[j * m + i] = a[i * n "
                "+ j];\n}\n",
                "S1 at 6:13: b[j * m + i] = a[i * n + j];\n"
                "array b: flattened, subscripts split as b[*][m]\n"
                "array a: flattened, subscripts split as a[*][n]\n"
                "loop i at 4:5: parallel\n"
                "loop j at 5:9: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 2 parallel dimensions on threads: S1\n"
                "  c0..c1: [m, n] -> [{ S1[i, j] -> [(i)] }, { S1[i, j] -> [(j)] }]\n"
                "strategy: original loop order\n"
                "kernel 0: 2 parallel dimensions on threads: S1\n"
                "  c0..c1: [m, n] -> [{ S1[i, j] -> [(i)] : 0 <= i < m and 0 <= j < n }, { S1[i, "
                "j] -> [(j)] : 0 <= i < m and 0 <= j < n }]\n");
    expect_plan("extent(b: n * m + m)",
                "void past(int m, int n, float *b)\n{\n    for (int i = 0; i < m; i++)\n        "
                "for (int j = 0; j <= n; j++)\n            b[i * n + j] = 0;\n}\n",
                "S1 at 6:13: b[i * n + j] = 0;\n"
                "loop i at 4:5: carries output S1 -> S1 on b\n"
                "loop j at 5:9: carries output S1 -> S1 on b\n"
                "strategy: isl scheduler\n"
                "kernel 0: one thread: S1\n"
                "strategy: original loop order\n"
                "kernel 0: one thread: S1\n");
    /* three dimensions: ((i*n + j)*k + l) splits as [i][j][l] with sizes n and k */
    expect_plan("extent(v: m * n * k)",
                "void fill(int m, int n, int k, float *v)\n{\n    for (int i = 0; i < m; i++)\n  "
                "      for (int j = 0; j < n; j++)\n            for (int l = 0; l < k; l++)\n    "
                "            v[(i * n + j) * k + l] = i + j + l;\n}\n",
                "S1 at 7:17: v[(i * n + j) * k + l] = i + j + l;\n"
                "array v: flattened, subscripts split as v[*][n][k]\n"
                "loop i at 4:5: parallel\n"
                "loop j at 5:9: parallel\n"
                "loop l at 6:13: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 2 parallel dimensions on threads: S1\n"
                "  c0..c1: [m, n, k] -> [{ S1[i, j, l] -> [(i)] }, { S1[i, j, l] -> [(j)] }]\n"
                "strategy: original loop order\n"
                "kernel 0: 2 parallel dimensions on threads: S1\n"
                "  c0..c1: [m, n, k] -> [{ S1[i, j, l] -> [(i)] : 0 <= i < m and 0 <= j < n and 0 "
                "<= l < k }, { S1[i, j, l] -> [(j)] : 0 <= i < m and 0 <= j < n and 0 <= l < k "
                "}]\n");
}

/* `*out = s` writes out[0]: a dot product is modelled (and, as a floating sum without a
 * tolerance, keeps its order on one thread). */
Test(translate_plan, dereference_is_element_zero)
{
    expect_plan("extent(x: n, out: 1)",
                "void dot(int n, const float *x, float *out)\n{\n    float s = 0;\n    for (int i "
                "= 0; i < n; i++)\n        s += x[i] * x[i];\n    *out = s;\n}\n",
                "S1 at 4:5: float s = 0;\n"
                "S2 at 6:9: s += x[i] * x[i];\n"
                "S3 at 7:5: *out = s;\n"
                "loop i at 5:5: carries flow/anti/output S2 -> S2 on s (reduction on s (+))\n"
                "strategy: isl scheduler\n"
                "kernel 0: one thread: S1 S2 S3\n"
                "scalar s: a variable of each thread\n"
                "strategy: original loop order\n"
                "kernel 0: one thread: S1 S2 S3\n"
                "scalar s: a variable of each thread\n");
}

/* What the plan refuses, located: a loop whose bounds are data (CSR rows: no exact domain to
 * generate loops from; the builtin agent's direct mapper takes those). */
Test(translate_plan, refusals)
{
    ch_entry_list l;
    ch_error err;
    ch_tr_model *m = NULL;
    ch_tr_deps *d;
    model_of("extent(col: rowptr[n], val: rowptr[n], rowptr: n + 1, x: n)",
             "void spmv(int n, const int *rowptr, const int *col, const double *val, const double "
             "*x, double *y)\n{\n    for (int i = 0; i < n; i++) {\n        double s = 0;\n        "
             "for (int j = rowptr[i]; j < rowptr[i + 1]; j++)\n            s += val[j] * "
             "x[col[j]];\n        y[i] = s;\n    }\n}\n",
             &l, &m, &d);
    ch_tr_plan *p = NULL;
    cr_assert_neq(ch_tr_plan_build(m, d, CH_TR_ISL_SCHEDULE, 0, &p, &err), 0);
    cr_expect(strstr(err.msg, "t.c:7:13: error: cannot translate spmv: this statement is inside "
                              "a loop whose start or bound is not an affine expression"),
              "%s", err.msg);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
}

/* The plan of "#pragma harness CLAUSES\nBODY" with flags, as ch_tr_plan_print gives it. */
static char *plan_with(const char *clauses, const char *body, ch_tr_strategy s, int flags)
{
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of(clauses, body, &l, &m, &d);
    ch_tr_plan *p = NULL;
    ch_error err;
    cr_assert_eq(ch_tr_plan_build(m, d, s, flags, &p, &err), 0, "plan: %s", err.msg);
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_tr_plan_print(&out, p);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return ch_strbuf_detach(&out);
}

/* A sum into one element (a norm into the local s): every dependence of the loop is the sum's,
 * so with parallel sums and a stated tolerance its iterations go to threads, each adding its terms
 * to a partial sum and each warp adding its part atomically; s then lives in device memory (three
 * kernels use it). Without the flag the loop keeps the C order of the additions, on one thread. A
 * column sum s[j] += a[i][j] needs no atomics: j is parallel and each thread adds its column in
 * order. */
Test(translate_plan, parallel_sums)
{
    const char *norm = "void norm(int n, const double *x, double *out)\n{\n    double s = 0;\n    "
                       "for (int i = 0; i < n; i++)\n        s += x[i] * x[i];\n    out[0] = "
                       "sqrt(s);\n}\n";
    char *got =
        plan_with("extent(out: 1) tol(1e-6)", norm, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect_str_eq(got, "strategy: isl scheduler, parallel sums\n"
                          "kernel 0: one thread: S1\n"
                          "kernel 1: a sum on threads (S2, atomically): S2\n"
                          "  c0..c0: [n] -> [{ S2[i] -> [(i)] }]\n"
                          "kernel 2: one thread: S3\n"
                          "scalar s: in device memory\n");
    free(got);
    got = plan_with("extent(out: 1) tol(1e-6)", norm, CH_TR_ISL_SCHEDULE, 0);
    cr_expect_str_eq(got, "strategy: isl scheduler\n"
                          "kernel 0: one thread: S1 S2 S3\n"
                          "scalar s: a variable of each thread\n");
    free(got);
    /* without a stated tolerance a floating sum keeps the C order of its additions */
    got = plan_with("extent(out: 1)", norm, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect_str_eq(got, "strategy: isl scheduler, parallel sums\n"
                          "kernel 0: one thread: S1 S2 S3\n"
                          "scalar s: a variable of each thread\n");
    free(got);
    /* nor does it without the flag, whatever the clauses */
    got = plan_with("extent(out: 1)", norm, CH_TR_ORIGINAL, 0);
    cr_expect_str_eq(got, "strategy: original loop order\n"
                          "kernel 0: one thread: S1 S2 S3\n"
                          "scalar s: a variable of each thread\n");
    free(got);
    got = plan_with("",
                    "void colsum(int n, int m, const double a[n][m], double *s)\n{\n    for (int j "
                    "= 0; j < m; j++) {\n        s[j] = 0;\n        for (int i = 0; i < n; i++)\n "
                    "           s[j] += a[i][j];\n    }\n}\n",
                    CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect(strstr(got, "kernel 0: 1 parallel dimension on threads: S1 S2\n"), "%s", got);
    cr_expect_null(strstr(got, "atomically"), "%s", got);
    free(got);
}

/* The CUDA of the isl scheduler's plan with parallel sums for the body (malloc'd). */
static char *sums_cuda(const char *clauses, const char *body)
{
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of(clauses, body, &l, &m, &d);
    ch_tr_plan *p = NULL;
    ch_error err;
    cr_assert_eq(ch_tr_plan_build(m, d, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS, &p, &err), 0);
    ch_tr_cuda_opts o = {.block1 = 128, .block2_x = 32, .block2_y = 4, .grid_cap = 2112};
    char *src = ch_tr_cuda(p, &o);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return src;
}

/* The parallel sum's CUDA: the thread's partial sum, the element it belongs to, the warp's
 * shuffles and one atomic per warp. */
Test(translate_plan, parallel_sum_cuda)
{
    char *src = sums_cuda("extent(out: 1) tol(1e-5)",
                          "void dot(int n, const float *x, const float *y, float *out)\n{\n    "
                          "out[0] = 0;\n    for (int i = 0; i < n; i++)\n        out[0] += x[i] * "
                          "y[i];\n}\n");
    expect_has(src, "    float ch_acc = (float)0;\n    float *ch_target = NULL;\n");
    expect_has(src, "ch_target = &out[0];");
    expect_has(src, "ch_acc += __fmul_rn(x[i], y[i]);");
    expect_has(src, "ch_acc += __shfl_down_sync(0xffffffffu, ch_acc, ch_o);");
    expect_has(src, "if ((threadIdx.x & 31) == 0 && ch_target)\n        ch_atomic_add(ch_target, "
                    "ch_acc);");
    free(src);
}

/* A maximum (or minimum) is the same value in any order, so it runs on threads without a tol()
 * clause, in every plan (the flag only admits floating sums): each thread applies the C
 * statement to its partial result, the warp combines with ch_max, and lane 0 updates the element
 * with an atomic (a compare-and-swap loop for floating values, atomicMin for integers). */
Test(translate_plan, parallel_extrema)
{
    const char *vmax =
        "void vmax(int n, const float *x, float *out)\n{\n    float m = x[0];\n    "
        "for (int i = 1; i < n; i++)\n        m = fmaxf(m, x[i]);\n    *out = m;\n}\n";
#define VMAX_KERNELS                                                                               \
    "kernel 0: one thread: S1\n"                                                                   \
    "kernel 1: a maximum on threads (S2, atomically): S2\n"                                        \
    "  c0..c0: [n] -> [{ S2[i] -> [(i)] }]\n"                                                      \
    "kernel 2: one thread: S3\n"                                                                   \
    "scalar m: in device memory\n"
    char *got = plan_with("extent(out: 1)", vmax, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect_str_eq(got, "strategy: isl scheduler, parallel sums\n" VMAX_KERNELS);
    free(got);
    /* the first variant's plan (no flags) has the same kernels */
    got = plan_with("extent(out: 1)", vmax, CH_TR_ISL_SCHEDULE, 0);
    cr_expect_str_eq(got, "strategy: isl scheduler\n" VMAX_KERNELS);
    free(got);
#undef VMAX_KERNELS
    /* an integer minimum into an element, in the body's own order without flags */
    got = plan_with("extent(x: n, out: 1)",
                    "void imin(int n, const long *x, long *out)\n{\n    for (int i = 0; i < n; "
                    "i++)\n        out[0] = fmin(out[0], x[i]);\n}\n",
                    CH_TR_ORIGINAL, 0);
    cr_expect(strstr(got, "kernel 0: a minimum on threads (S1, atomically): S1\n"), "%s", got);
    free(got);

    char *src = sums_cuda("extent(x: n, out: 1)",
                          "void lmin(int n, const long *x, long *out)\n{\n    out[0] = x[0];\n    "
                          "for (int i = 1; i < n; i++)\n        out[0] = fmin(out[0], x[i]);\n}\n");
    expect_has(src, "    long ch_acc = (long)LONG_MAX;\n    long *ch_target = NULL;\n");
    expect_has(src, "ch_acc = fmin((double)ch_acc, (double)x[i]);");
    expect_has(src, "ch_acc = ch_min(ch_acc, __shfl_down_sync(0xffffffffu, ch_acc, ch_o));");
    expect_has(src, "atomicMin((long long *)p, (long long)v);");
    free(src);
    src = sums_cuda("extent(x: n, out: 1)",
                    "void dmax(int n, const double *x, double *out)\n{\n    out[0] = x[0];\n    "
                    "for (int i = 1; i < n; i++)\n        out[0] = fmax(x[i], out[0]);\n}\n");
    expect_has(src, "    double ch_acc = (double)-INFINITY;\n");
    expect_has(src, "ch_acc = fmax(x[i], ch_acc);");
    expect_has(src, "atomicCAS(a, old, want)");
    free(src);
}

/* Bitwise reductions (&, |, ^ into one element) are exact in any order: on threads under
 * parallel sums, each thread starting from the operation's identity (all ones for &), warps
 * combining with shuffles, lane 0 updating the element with atomicAnd/Or/Xor. */
Test(translate_plan, parallel_bitwise)
{
    char *src = sums_cuda("extent(x: n, out: 1)",
                          "void all(int n, const unsigned *x, unsigned *out)\n{\n    out[0] = "
                          "~0u;\n    for (int i = 0; i < n; i++)\n        out[0] &= x[i];\n}\n");
    expect_has(src, "kernel 1: a bitwise and on threads (S2, atomically): S2");
    expect_has(src, "unsigned int ch_acc = (unsigned int)~0ull;");
    expect_has(src, "ch_acc &= x[i];");
    expect_has(src, "ch_acc &= __shfl_down_sync(0xffffffffu, ch_acc, ch_o);");
    expect_has(src, "atomicAnd(p, v);");
    expect_has(src, "ch_atomic_and(ch_target, ch_acc);");
    free(src);
    src = sums_cuda("extent(x: n, out: 1)",
                    "void par(int n, const long long *x, long long *out)\n{\n    out[0] = 0;\n    "
                    "for (int i = 0; i < n; i++)\n        out[0] = out[0] ^ x[i];\n}\n");
    expect_has(src, "ch_acc ^= x[i];");
    expect_has(src, "atomicXor((unsigned long long *)p, (unsigned long long)v);");
    free(src);
    /* an OR in the first variant's plan (no flags): the same parallel kernel */
    char *got = plan_with("extent(x: n, out: 1)",
                          "void any(int n, const int *x, int *out)\n{\n    for (int i = 0; i < "
                          "n; i++)\n        out[0] |= x[i];\n}\n",
                          CH_TR_ISL_SCHEDULE, 0);
    cr_expect_str_eq(got, "strategy: isl scheduler\n"
                          "kernel 0: a bitwise or on threads (S1, atomically): S1\n"
                          "  c0..c0: [n] -> [{ S1[i] -> [(i)] }]\n");
    free(got);
}

/* A prefix sum: `acc += x[i]; y[i] = acc;` carries acc from each iteration to the next, but
 * with parallel sums it is one scan kernel (reduce, scan the tile sums from acc's value, scan
 * each tile): inclusive when the store follows the update, exclusive when it precedes it. When
 * acc is read after the loop, or the term reads y, the loop keeps its order on one thread. */
Test(translate_plan, prefix_sums)
{
    const char *inc = "void psum(int n, const int *x, int *y)\n{\n    int acc = 0;\n    for (int i "
                      "= 0; i < n; i++) {\n        acc += x[i];\n        y[i] = acc;\n    }\n}\n";
    char *got = plan_with("", inc, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect_str_eq(got, "strategy: isl scheduler, parallel sums\n"
                          "kernel 0: one thread: S1\n"
                          "kernel 1: an inclusive prefix sum on threads (S2, S3): S2 S3\n"
                          "  c0..c0: [n] -> [{ S3[i] -> [(i)]; S2[i] -> [(i)] }]\n"
                          "scalar acc: in device memory\n");
    free(got);
    char *src = sums_cuda("", inc);
    expect_has(src, "return (int)(x[i]);");
    expect_has(src, "int ch_at = (int)(ch_s->acc) + (threadIdx.x ? ch_run[threadIdx.x - 1] : 0);");
    expect_has(src,
               "        ch_at += ch_v[ch_q];\n        ch_tile[threadIdx.x * 8 + ch_q] = ch_at;");
    expect_has(src, "psum_k1_spine<<<1, 1024>>>((int *)ch_d_part1, ch_tiles, (psum_scalars "
                    "*)ch_d_ch_s);");
    free(src);
    src = sums_cuda("", "void esum(int n, const long long *x, long long *y)\n{\n    long long acc "
                        "= 5;\n    for (int i = 1; i < n; i++) {\n        y[i] = acc;\n        "
                        "acc += x[i];\n    }\n}\n");
    expect_has(src, "an exclusive prefix sum on threads (S3, S2)");
    expect_has(src,
               "        ch_tile[threadIdx.x * 8 + ch_q] = ch_at;\n        ch_at += ch_v[ch_q];");
    expect_has(src, "ch_lo = 1;");
    free(src);
    /* acc read after the loop: its final value is needed, which the scan does not give */
    got = plan_with("extent(last: 1)",
                    "void psum2(int n, const int *x, int *y, int *last)\n{\n    int acc = 0;\n    "
                    "for (int i = 0; i < n; i++) {\n        acc += x[i];\n        y[i] = acc;\n    "
                    "}\n    *last = acc;\n}\n",
                    CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect(!strstr(got, "prefix sum"), "%s", got);
    free(got);
    /* an integer scan is exact in any order: the first variant's plan (no flags) has it too */
    got = plan_with("", inc, CH_TR_ISL_SCHEDULE, 0);
    cr_expect(strstr(got, "kernel 1: an inclusive prefix sum on threads (S2, S3): S2 S3\n"), "%s",
              got);
    free(got);
    /* a floating scan reorders its additions: only under tol() and the flag */
    got = plan_with("tol(1e-5)",
                    "void fsum(int n, const float *x, float *y)\n{\n    float acc = 0;\n    for "
                    "(int i = 0; i < n; i++) {\n        acc += x[i];\n        y[i] = acc;\n    "
                    "}\n}\n",
                    CH_TR_ISL_SCHEDULE, 0);
    cr_expect(!strstr(got, "prefix sum"), "%s", got);
    free(got);
    got = plan_with("",
                    "void fsum(int n, const float *x, float *y)\n{\n    float acc = 0;\n    for "
                    "(int i = 0; i < n; i++) {\n        acc += x[i];\n        y[i] = acc;\n    "
                    "}\n}\n",
                    CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect(!strstr(got, "prefix sum"), "%s", got);
    free(got);
}

/* A warp per row: a row norm's i loop is parallel and its j loop a sum into the local s, so
 * with CH_TR_WARP_ROWS (in the C order) each warp takes a row, its lanes take every 32nd j,
 * lane 0 keeps s's start value while the others start from 0, the lanes' sums are combined
 * with shuffles and handed to every lane, and only lane 0 stores out[i]. A double sum without
 * tol() keeps its order: a thread per row. */
Test(translate_plan, warp_rows)
{
    const char *norm = "void rnorm(int m, int n, const float *a, float *out)\n{\n    for (int i = "
                       "0; i < m; i++) {\n        float s = 0;\n        for (int j = 0; j < n; "
                       "j++)\n            s += a[i * n + j] * a[i * n + j];\n        out[i] = "
                       "sqrtf(s);\n    }\n}\n";
    char *got =
        plan_with("extent(a: m * n, out: m) tol(1e-5)", norm, CH_TR_ORIGINAL, CH_TR_WARP_ROWS);
    cr_expect(strstr(got, "strategy: original loop order, a warp per row\nkernel 0: 1 parallel "
                          "dimension on warps, the loops below it on lanes: S1 S2 S3\n"),
              "%s", got);
    free(got);

    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of("extent(a: m * n, out: m) tol(1e-5)", norm, &l, &m, &d);
    ch_tr_plan *p = NULL;
    ch_error err;
    cr_assert_eq(ch_tr_plan_build(m, d, CH_TR_ORIGINAL, CH_TR_WARP_ROWS, &p, &err), 0);
    ch_tr_cuda_opts o = {.block1 = 256, .block2_x = 32, .block2_y = 8, .grid_cap = 1024};
    char *src = ch_tr_cuda(p, &o);
    expect_has(src, "const long long ch_g0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) "
                    ">> 5;");
    expect_has(src, "if (ch_lane != 0) /* lane 0 keeps the start value */\n            s = 0;");
    expect_has(src, "for (long long c1 = 0 + ch_lane; (c1 < n); c1 += 32) {");
    expect_has(src, "s += __shfl_down_sync(0xffffffffu, s, ch_o);");
    expect_has(src, "s = __shfl_sync(0xffffffffu, s, 0);");
    expect_has(src, "if (ch_lane == 0) {\n                out[i] = sqrtf(s);");
    expect_has(src, "ch_grid(rnorm_blocks(ch_e0 * 32, 256, 1024LL))");
    free(src);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);

    got = plan_with("extent(a: m * n, out: m)",
                    "void dnorm(int m, int n, const double *a, double *out)\n{\n    for (int i = "
                    "0; i < m; i++) {\n        double s = 0;\n        for (int j = 0; j < n; "
                    "j++)\n            s += a[i * n + j];\n        out[i] = s;\n    }\n}\n",
                    CH_TR_ORIGINAL, CH_TR_WARP_ROWS);
    cr_expect(strstr(got, "kernel 0: 1 parallel dimension on threads: S1 S2 S3\n"), "%s", got);
    free(got);
}

/* A histogram: h[data[i]]++ writes an element the model cannot name (a may-write), and its only
 * dependences are the increments' own: each iteration runs on a thread and increments its element
 * atomically. Integer increments give the same bins in any order, so every plan does so, with
 * or without parallel sums. */
Test(translate_plan, histogram_atomics)
{
    const char *hist = "void hist(int n, const unsigned char *data, int *h)\n{\n    for (int i = "
                       "0; i < n; i++)\n        h[data[i]]++;\n}\n";
    char *got = plan_with("extent(data: n, h: 256)", hist, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS);
    cr_expect_str_eq(got, "strategy: isl scheduler, parallel sums\n"
                          "kernel 0: updates on threads (S1, atomically): S1\n"
                          "  c0..c0: [n] -> [{ S1[i] -> [(i)] }]\n");
    free(got);
    got = plan_with("extent(data: n, h: 256)", hist, CH_TR_ISL_SCHEDULE, 0);
    cr_expect_str_eq(got, "strategy: isl scheduler\n"
                          "kernel 0: updates on threads (S1, atomically): S1\n"
                          "  c0..c0: [n] -> [{ S1[i] -> [(i)] }]\n");
    free(got);
    got = plan_with("extent(data: n, h: 256)", hist, CH_TR_ORIGINAL, 0);
    cr_expect(strstr(got, "kernel 0: updates on threads (S1, atomically): S1\n"), "%s", got);
    free(got);

    /* updates straight to global memory, or through a per-block copy in shared memory */
    char *src = sums_cuda("extent(data: n, h: 256)", hist);
    expect_has(src, "ch_atomic_add(&h[data[i]], 1);");
    cr_expect(!strstr(src, "__shared__"), "%s", src);
    free(src);
    ch_entry_list l;
    ch_tr_model *m;
    ch_tr_deps *d;
    model_of("extent(data: n, h: 256)", hist, &l, &m, &d);
    ch_tr_plan *p = NULL;
    ch_error err;
    cr_assert_eq(ch_tr_plan_build(m, d, CH_TR_ISL_SCHEDULE, CH_TR_PARALLEL_SUMS, &p, &err), 0);
    ch_tr_cuda_opts o = {
        .block1 = 128, .block2_x = 32, .block2_y = 4, .grid_cap = 2112, .block_private = 1};
    src = ch_tr_cuda(p, &o);
    expect_has(src, "    __shared__ int ch_priv[256];\n"
                    "    for (int ch_j = threadIdx.x; ch_j < 256; ch_j += blockDim.x)\n"
                    "        ch_priv[ch_j] = 0;\n    __syncthreads();\n");
    expect_has(src, "ch_atomic_add(&ch_priv[data[i]], 1);");
    expect_has(src, "        if (ch_priv[ch_j] != 0)\n            ch_atomic_add(&h[ch_j], "
                    "ch_priv[ch_j]);");
    free(src);
    ch_tr_plan_free(p);
    /* the first variant's plan (no flags) and options: a per-block copy on an uncapped grid,
     * whose histogram kernel alone is capped at private_grid_cap blocks so that each block's
     * one flush follows many updates */
    cr_assert_eq(ch_tr_plan_build(m, d, CH_TR_ISL_SCHEDULE, 0, &p, &err), 0);
    ch_tr_cuda_opts o0 = {.block1 = 256,
                          .block2_x = 32,
                          .block2_y = 8,
                          .grid_cap = 2147483647LL,
                          .block_private = 1,
                          .private_grid_cap = 4224};
    src = ch_tr_cuda(p, &o0);
    expect_has(src, "__shared__ int ch_priv[256];");
    expect_has(src, "ch_atomic_add(&ch_priv[data[i]], 1);");
    expect_has(src, "ch_grid(hist_blocks(ch_e0, 256, 4224LL))");
    free(src);
    ch_tr_plan_free(p);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    /* an extent that is not a constant: no fixed-size copy */
    src = sums_cuda("extent(data: n, h: k)",
                    "void hist2(int n, int k, const int *data, int *h)\n{\n    for (int i = 0; i "
                    "< n; i++)\n        h[data[i]]++;\n}\n");
    cr_expect(!strstr(src, "ch_priv"), "%s", src);
    free(src);
}

/* The CUDA of strategy s with GEMM-like tiles of tm x tm points, 8x8 threads, 8 deep, and
 * how many kernels went into tiles (malloc'd). */
static char *tiles_of(const char *clauses, const char *body, ch_tr_strategy s, int tm, int *n_tiled)
{
    *n_tiled = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 1024,
                         .tile_m = tm,
                         .tile_n = tm,
                         .tile_k = 8,
                         .tile_ty = 8,
                         .tile_tx = 8,
                         .n_tiled = n_tiled};
    return cuda_with(clauses, body, s, &o);
}

static char *tiled_cuda(const char *clauses, const char *body, ch_tr_strategy s, int *n_tiled)
{
    return tiles_of(clauses, body, s, 32, n_tiled);
}

/* GEMM through flattened pointers, in PolyBench's i-k-j order: the isl order puts C *= beta
 * and the sum over k below the two parallel loops, so the kernel goes into tiles: A[i][k]
 * varies with c0 and k, B[k][j] with c1 and k (both through shared memory, loaded along
 * their unit-stride subscript), C[i][j] lives in a register across k, and the statement
 * before the sum runs once per point. */
Test(translate_plan, gemm_tiles)
{
    int n = 0;
    char *src =
        tiled_cuda("",
                   "void f(int ni, int nj, int nk, float alpha, const float *A,\n"
                   "       const float *B, float *C)\n{\n"
                   "    for (int i = 0; i < ni; i++) {\n"
                   "        for (int j = 0; j < nj; j++)\n"
                   "            C[i * nj + j] *= 2.0f;\n"
                   "        for (int k = 0; k < nk; k++)\n"
                   "            for (int j = 0; j < nj; j++)\n"
                   "                C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];\n"
                   "    }\n}\n",
                   CH_TR_ISL_SCHEDULE, &n);
    cr_expect_eq(n, 1);
    expect_has(src, "in tiles: a GEMM-like nest");
    expect_has(src, "__shared__ __align__(16) float ch_t0[8][36];");
    expect_has(src, "__shared__ __align__(16) float ch_t1[8][36];");
    expect_has(src, "float ch_acc[4][4];");
    /* A[i][k] is loaded along k, B[k][j] along j, four floats a thread: one 16-byte load
     * where the addresses turn out consecutive and aligned, else one each */
    expect_has(src, "const int ch_dk = (ch_l % 2) * 4, ch_dx = ch_l / 2;");
    expect_has(src, "const int ch_dx = (ch_l % 8) * 4, ch_dk = ch_l / 8;");
    expect_has(src, "const float4 ch_v = *(const float4 *)ch_p[0];");
    expect_has(src, "ch_whole = ch_whole && ch_p[ch_u] == ch_p[0] + ch_u;");
    /* 4 x 4 points a thread: consecutive ones, two blocks an SM */
    expect_has(src, "const int ch_dj = threadIdx.x * 4 + ch_c;");
    expect_has(src, "__launch_bounds__(64, 2)");
    expect_has(src, "ch_acc[ch_r][ch_c] += alpha * ch_t0[ch_kk][ch_di] * ch_t1[ch_kk][ch_dj];");
    expect_has(src, "ch_acc[ch_r][ch_c] = C[");
    expect_has(src, "] = ch_acc[ch_r][ch_c];");
    expect_has(src, "*= 2.0f;");
    /* a box: no per-point range of k, no address checks */
    cr_expect(!strstr(src, "ch_p >= "), "%s", src);
    free(src);
}

/* 8 x 8 points a thread: runs of four consecutive points, the runs of the block's threads side
 * by side, so that a warp reads a tile row as 16-byte vectors on distinct banks. */
Test(translate_plan, gemm_point_runs)
{
    int n = 0;
    char *src = tiles_of("",
                         "void f(int n, const float *A, const float *B, float *C)\n{\n"
                         "    for (int i = 0; i < n; i++)\n"
                         "        for (int j = 0; j < n; j++) {\n"
                         "            float s = 0;\n"
                         "            for (int k = 0; k < n; k++)\n"
                         "                s += A[i * n + k] * B[k * n + j];\n"
                         "            C[i * n + j] = s;\n"
                         "        }\n}\n",
                         CH_TR_ORIGINAL, 64, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "float ch_acc[8][8];");
    expect_has(src, "const int ch_di = (ch_r / 4) * 32 + threadIdx.y * 4 + ch_r % 4;");
    expect_has(src, "const int ch_dj = (ch_c / 4) * 32 + threadIdx.x * 4 + ch_c % 4;");
    /* 64 floats of accumulators a thread still fit two blocks of 64 threads an SM */
    expect_has(src, "__launch_bounds__(64, 2)");
    free(src);
}

/* A triangle (syrk's j <= i) and a local accumulator: the tiles cover the block's hull, so
 * their loads check the address, and each point adds only the k of its own range. */
Test(translate_plan, triangle_tiles)
{
    int n = 0;
    char *src = tiled_cuda("",
                           "void f(int n, int m, double A[n][m], double C[n][n])\n{\n"
                           "    for (int i = 0; i < n; i++)\n"
                           "        for (int j = 0; j <= i; j++) {\n"
                           "            double s = 0;\n"
                           "            for (int k = j; k < m; k++)\n"
                           "                s += A[i][k] * A[j][k];\n"
                           "            C[i][j] = s;\n"
                           "        }\n}\n",
                           CH_TR_ORIGINAL, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "ch_acc[ch_r][ch_c] += ch_t0[ch_kk][ch_di] * ch_t1[ch_kk][ch_dj];");
    expect_has(src, "ch_p >= A && ch_p < A + ");
    expect_has(src, "if (c2 >= ");
    free(src);
}

/* No tiles where they would go stale or change the result: an operand written by the kernel
 * (trmm's in-place B), a sum whose element varies with k, a body without a sum. */
Test(translate_plan, no_tiles)
{
    const char *bodies[] = {
        "void f(int n, const double *A, double *B)\n{\n"
        "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
        "            for (int k = i + 1; k < n; k++)\n"
        "                B[k * n + j] += A[k * n + i] * B[k * n + j];\n}\n",
        "void f(int n, const float *x, float *y)\n{\n"
        "    for (int i = 0; i < n; i++)\n        y[i] = 2 * x[i];\n}\n",
    };
    for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
        for (int s = CH_TR_ISL_SCHEDULE; s <= CH_TR_ORIGINAL; s++) {
            int n = -1;
            char *src = tiled_cuda("", bodies[b], (ch_tr_strategy)s, &n);
            cr_expect_eq(n, 0, "body %zu strategy %d was tiled:\n%s", b, s, src);
            cr_expect(!strstr(src, "in tiles"), "%s", src);
            free(src);
        }
}

/* The CUDA of strategy s with 4 rows a thread in plain 2-D kernels, and how many kernels got
 * them (malloc'd). */
static char *rows_cuda(const char *clauses, const char *body, int *n_rows)
{
    *n_rows = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 1024,
                         .rows = 4,
                         .n_rows = n_rows};
    return cuda_with(clauses, body, CH_TR_ISL_SCHEDULE, &o);
}

/* A 5-point stencil: each thread runs four consecutive rows inside its column loop (unrolled,
 * so the rows above and below are loaded once), the grid has a quarter of the rows of blocks,
 * and the arrays, each in a device buffer of its own, are __restrict__. */
Test(translate_plan, stencil_rows)
{
    int n = 0;
    char *src = rows_cuda("",
                          "void f(int m, int n, const float *a, float *b)\n{\n"
                          "    for (int i = 1; i < m - 1; i++)\n"
                          "        for (int j = 1; j < n - 1; j++)\n"
                          "            b[i * n + j] = a[(i - 1) * n + j] + a[(i + 1) * n + j] +\n"
                          "                           a[i * n + j - 1] + a[i * n + j + 1];\n}\n",
                          &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "const float *__restrict__ a, float *__restrict__ b)");
    expect_has(src, "blockDim.y + threadIdx.y) * 4;");
    expect_has(src, "for (long long ch_b0 = ch_g0;; ch_b0 += ch_n0) {");
    expect_has(src, "for (int ch_t0 = 0; ch_t0 < 4; ch_t0++) { /* the group's rows */");
    expect_has(src, "const long long c0 = 1 + (ch_b0 + ch_t0);");
    expect_has(src, "_blocks(ch_e0, 32, 65535LL)");
    /* the rows' int counter counts from the group's first row in int arithmetic, so that nvcc
     * sees row t + 1's `i - 1` is row t's `i`: the four rows load the six rows of a they touch
     * once each, plus the two neighbours of each output (14 loads, not 4 x 4 = 16) */
    expect_has(src, "const long long ch_r0 = 1 + (ch_b0); /* the group's first row */");
    expect_has(src, "const int i = (int)ch_r0 + ch_t0;");
    expect_has(src, "const int j = (int)c1;");
    char *ptx = ptx_of(src);
    int loads = count_of(ptx, "ld.global");
    cr_expect_eq(loads, 6 + 2 * 4, "%d loads for 4 outputs:\n%s", loads, ptx);
    cr_expect_eq(count_of(ptx, "st.global"), 4, "%s", ptx);
    free(ptx);
    /* the rows are inside the column loop */
    const char *cols = strstr(src, "for (long long c1 = ");
    const char *rows = strstr(src, "for (int ch_t0 = 0;");
    cr_expect(cols && rows && cols < rows, "%s", src);
    free(src);
}

/* Rows of a counter that is not an int (a long) keep the long long row value: the int form
 * would wrap where the C body does not. */
Test(translate_plan, long_counter_rows_stay_long)
{
    int n = 0;
    char *src =
        rows_cuda("",
                  "void f(long m, long n, const float *a, float *b)\n{\n"
                  "    for (long i = 1; i < m - 1; i++)\n"
                  "        for (long j = 1; j < n - 1; j++)\n"
                  "            b[i * n + j] = a[(i - 1) * n + j] + a[(i + 1) * n + j];\n}\n",
                  &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "const long i = (long)c0;");
    cr_expect(!strstr(src, "(int)ch_r0"), "%s", src);
    free(ptx_of(src)); /* compiles without warnings (every variable is used) */
    free(src);
}

/* A transpose kernel's PTX issues its `per_thread` global loads before the first store to
 * the tile, and stores per_thread elements. */
static void expect_tile_loads_first(const char *src, int per_thread)
{
    char *ptx = ptx_of(src);
    const char *first_store = strstr(ptx, "st.shared");
    cr_assert(first_store, "%s", ptx);
    int loads = 0;
    for (const char *at = strstr(ptx, "ld.global"); at && at < first_store;
         at = strstr(at + 1, "ld.global"))
        loads++;
    cr_expect_eq(loads, per_thread, "loads before the first store to the tile:\n%s", ptx);
    cr_expect_eq(count_of(ptx, "st.global"), per_thread, "%s", ptx);
    free(ptx);
}

/* A transpose goes through a 32 x 33 tile (a column of padding) on 32 x 8 threads, each
 * moving 4 elements: a fixed count of rows a thread, unrolled, with all four loads issued
 * before the first store to the tile, and the stores of the transposed tile along c0. */
Test(translate_plan, transpose_tile)
{
    int n = 0;
    char *src = tiled_cuda("",
                           "void f(int m, int n, const float *a, float *b)\n{\n"
                           "    for (int i = 0; i < m; i++)\n"
                           "        for (int j = 0; j < n; j++)\n"
                           "            b[j * m + i] = a[i * n + j];\n}\n",
                           CH_TR_ISL_SCHEDULE, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "__shared__ float ch_tile[32][33];");
    expect_has(src, "float ch_v[4] = {0};");
    expect_has(src, "for (int ch_k = 0; ch_k < 4; ch_k++) {\n"
                    "            const int ch_r = threadIdx.y + ch_k * 8;");
    expect_has(src, "ch_v[ch_k] = a[i * n + j];");
    expect_has(src, "ch_tile[threadIdx.y + ch_k * 8][threadIdx.x] = ch_v[ch_k];");
    expect_has(src, "b[j * m + i] = ch_tile[threadIdx.x][ch_r];");
    expect_has(src, "ch_block(32, 8)");
    expect_tile_loads_first(src, 4);
    free(src);
}

/* Transposes alone through 64 x 65 tiles (variant 13's transpose_tile) on 64 x 4 threads of a
 * 256-thread block: 16 elements a thread each way, all 16 loads issued before the first store
 * to the tile, a quarter of the blocks of 32 x 32 tiles; a GEMM-like nest or an elementwise one
 * is not printed so (nothing counted). */
Test(translate_plan, transpose_tile_64)
{
    static const char *const transpose = "void f(int m, int n, const float *a, float *b)\n{\n"
                                         "    for (int i = 0; i < m; i++)\n"
                                         "        for (int j = 0; j < n; j++)\n"
                                         "            b[j * m + i] = a[i * n + j];\n}\n";
    int n = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 1024,
                         .transpose_tile = 64,
                         .n_transposed = &n};
    char *src = cuda_with("", transpose, CH_TR_ISL_SCHEDULE, &o);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "__shared__ float ch_tile[64][65];");
    expect_has(src, "float ch_v[16] = {0};");
    expect_has(src, "for (int ch_k = 0; ch_k < 16; ch_k++) {\n"
                    "            const int ch_r = threadIdx.y + ch_k * 4;");
    expect_has(src, "ch_tile[threadIdx.y + ch_k * 4][threadIdx.x] = ch_v[ch_k];");
    expect_has(src, "b[j * m + i] = ch_tile[threadIdx.x][ch_r];");
    expect_has(src, "ch_block(64, 4)");
    expect_has(src, "ch_grid((unsigned)((ch_e1 + 63) / 64)");
    expect_has(src, "__launch_bounds__(256)");
    expect_tile_loads_first(src, 16);
    free(src);

    static const char *const others[] = {
        "void f(int n, const float *A, const float *B, float *C)\n{\n"
        "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
        "            for (int k = 0; k < n; k++)\n"
        "                C[i * n + j] += A[i * n + k] * B[k * n + j];\n}\n",
        "void f(int m, int n, const float *a, float *b)\n{\n"
        "    for (int i = 0; i < m; i++)\n        for (int j = 0; j < n; j++)\n"
        "            b[i * n + j] = 2.0f * a[i * n + j];\n}\n",
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        n = 0;
        src = cuda_with("", others[i], CH_TR_ISL_SCHEDULE, &o);
        cr_expect_eq(n, 0, "body %zu:\n%s", i, src);
        cr_expect(!strstr(src, "ch_tile"), "body %zu:\n%s", i, src);
        free(src);
    }
}

/* A triangle (j's bounds depend on i): the rows cannot move inside the column loop, so the
 * kernel keeps one row a thread; with device pointers (which may overlap) no __restrict__. */
Test(translate_plan, triangle_no_rows)
{
    int n = 0;
    char *src = rows_cuda("device",
                          "void f(int n, const float *a, float *b)\n{\n"
                          "    for (int i = 0; i < n; i++)\n"
                          "        for (int j = 0; j <= i; j++)\n"
                          "            b[i * n + j] = 2.0f * a[i * n + j];\n}\n",
                          &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "ch_t0"), "%s", src);
    cr_expect(!strstr(src, "__restrict__"), "%s", src);
    free(src);
}

/* The CUDA of a GEMM-like body in 64x64 tiles of 16x16 threads, 16 deep, with fp64 tile sums
 * on the tensor cores where they apply; how many kernels went to them (malloc'd). */
static char *mma_cuda(const char *body, int *n_mma)
{
    int n_tiled = 0;
    *n_mma = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 1024,
                         .tile_m = 64,
                         .tile_n = 64,
                         .tile_k = 16,
                         .tile_ty = 16,
                         .tile_tx = 16,
                         .n_tiled = &n_tiled,
                         .tile_mma = 1,
                         .n_mma = n_mma};
    return cuda_with("", body, CH_TR_ISL_SCHEDULE, &o);
}

/* C += alpha * A * B on doubles: the warps add the products with m8n8k4 fragments from the
 * tiles, the sums go through shared memory, and C gets alpha times its sum in memory. */
Test(translate_plan, gemm_tensor_cores)
{
    int n = 0;
    char *src =
        mma_cuda("void f(int n, double alpha, const double *A, const double *B, double *C)\n"
                 "{\n    for (int i = 0; i < n; i++)\n"
                 "        for (int k = 0; k < n; k++)\n"
                 "            for (int j = 0; j < n; j++)\n"
                 "                C[i * n + j] += alpha * A[i * n + k] * B[k * n + j];\n}\n",
                 &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "#include <mma.h>");
    expect_has(src, "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 8, 8, 4, double> "
                    "ch_fc[2][4];");
    expect_has(src, "nvcuda::wmma::mma_sync(ch_fc[ch_i][ch_j], ch_fa[ch_i], ch_fb[ch_j], "
                    "ch_fc[ch_i][ch_j]);");
    expect_has(src, "nvcuda::wmma::store_matrix_sync(&ch_sum[");
    expect_has(src, "+= alpha * ch_sum[ch_di][ch_dj];");
    /* X stays in memory: no register block */
    cr_expect(!strstr(src, "ch_acc"), "%s", src);
    free(src);
}

/* Not on the tensor cores: floats, and a sum that is not a product of the two tiles. */
Test(translate_plan, no_tensor_cores)
{
    int n = 0;
    char *src = mma_cuda("void f(int n, const float *A, const float *B, float *C)\n"
                         "{\n    for (int i = 0; i < n; i++)\n"
                         "        for (int k = 0; k < n; k++)\n"
                         "            for (int j = 0; j < n; j++)\n"
                         "                C[i * n + j] += A[i * n + k] * B[k * n + j];\n}\n",
                         &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "wmma"), "%s", src);
    free(src);
    src = mma_cuda("void f(int n, const double *A, const double *B, double *C)\n"
                   "{\n    for (int i = 0; i < n; i++)\n"
                   "        for (int k = 0; k < n; k++)\n"
                   "            for (int j = 0; j < n; j++)\n"
                   "                C[i * n + j] += A[i * n + k] * B[k * n + j] + 1.0;\n}\n",
                   &n);
    cr_expect_eq(n, 0, "%s", src);
    cr_expect(!strstr(src, "wmma"), "%s", src);
    free(src);
}

/* The CUDA of a GEMM-like body in 128x128 tiles of 16x16 threads, 16 deep, with fp64 tile sums
 * on the tensor cores and `stages` tiles in flight (tile_mma_pipe.c); how many kernels went to
 * them (malloc'd). */
static char *mma_pipe_cuda_m(const char *body, int tile_m, int stages, int *n_mma)
{
    int n_tiled = 0;
    *n_mma = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 8,
                         .grid_cap = 1024,
                         .tile_m = tile_m,
                         .tile_n = 128,
                         .tile_k = 16,
                         .tile_ty = 16,
                         .tile_tx = 16,
                         .n_tiled = &n_tiled,
                         .tile_mma = 1,
                         .tile_mma_stages = stages,
                         .n_mma = n_mma};
    return cuda_with("", body, CH_TR_ISL_SCHEDULE, &o);
}

static char *mma_pipe_cuda(const char *body, int stages, int *n_mma)
{
    return mma_pipe_cuda_m(body, 128, stages, n_mma);
}

static const char *const dgemm_body =
    "void f(int n, double alpha, const double *A, const double *B, double *C)\n"
    "{\n    for (int i = 0; i < n; i++)\n"
    "        for (int k = 0; k < n; k++)\n"
    "            for (int j = 0; j < n; j++)\n"
    "                C[i * n + j] += alpha * A[i * n + k] * B[k * n + j];\n}\n";

/* Three tiles in flight: the copies are cp.async (16 bytes where aligned, zero-filled outside
 * the range), the tiles keep the operands' layouts with rows padded to 4 mod 16 doubles (A's
 * 128 rows of 16 + 4, B's 16 rows of 128 + 4), each warp's 4 x 8 fragments are its registers,
 * C gets alpha times them straight, and the launch asks for the three stages' dynamic shared
 * memory. The PTX has the m8n8k4 multiply-adds (4 steps of 32 a tile), both kinds of copies,
 * and no local memory (the accumulators stay in registers). */
Test(translate_plan, gemm_tensor_cores_pipelined)
{
    int n = 0;
    char *src = mma_pipe_cuda(dgemm_body, 3, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "__device__ __forceinline__ void ch_dmma(double &c0, double &c1, double a, "
                    "double b)");
    expect_has(src, "extern __shared__ __align__(16) double ch_smem[];");
    expect_has(src, "double ch_acc[4][16];");
    expect_has(src, "double *ch_d = ch_s + ch_dx * 20 + ch_dk;");
    expect_has(src, "double *ch_d = ch_s + ch_dk * 132 + ch_dx;");
    expect_has(src, "ch_fa[ch_i] = ch_sa[(ch_wm + ch_i * 8 + ch_lane / 4) * 20 + ch_kk + "
                    "ch_lane % 4];");
    expect_has(src, "ch_fb[ch_j] = ch_sb[(ch_kk + ch_lane % 4) * 132 + ch_wn + ch_j * 8 + "
                    "ch_lane / 4];");
    expect_has(src, "ch_cp_async_wait<1>();");
    expect_has(src, "+= alpha * ch_acc[ch_r][ch_c];");
    /* 3 x (128 x 20 + 16 x 132) doubles */
    expect_has(src, "cudaFuncAttributeMaxDynamicSharedMemorySize, 112128);");
    expect_has(src, "f_k0<<<ch_grid, ch_block, 112128>>>(");
    cr_expect(!strstr(src, "wmma::"), "%s", src);
    char *ptx = ptx_of(src);
    cr_expect_eq(count_of(ptx, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"), 128, "%s", ptx);
    cr_expect(strstr(ptx, "cp.async.cg.shared.global"), "%s", ptx);
    cr_expect(strstr(ptx, "cp.async.ca.shared.global"), "%s", ptx);
    cr_expect(!strstr(ptx, ".local"), "%s", ptx);
    free(ptx);
    free(src);
}

/* Four stages wait for two groups less; the tiles' layout follows each operand (B[j][k] keeps
 * c2 fastest: 128 rows of 16 + 4). */
Test(translate_plan, gemm_tensor_cores_pipelined_layouts)
{
    int n = 0;
    char *src = mma_pipe_cuda("void f(int n, const double *A, const double *B, double *C)\n"
                              "{\n    for (int i = 0; i < n; i++)\n"
                              "        for (int j = 0; j < n; j++)\n"
                              "            for (int k = 0; k < n; k++)\n"
                              "                C[i * n + j] += A[k * n + i] * B[j * n + k];\n}\n",
                              4, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "ch_cp_async_wait<2>();");
    expect_has(src, "ch_fa[ch_i] = ch_sa[(ch_kk + ch_lane % 4) * 132 + ch_wm + ch_i * 8 + "
                    "ch_lane / 4];");
    expect_has(src, "ch_fb[ch_j] = ch_sb[(ch_wn + ch_j * 8 + ch_lane / 4) * 20 + ch_kk + "
                    "ch_lane % 4];");
    expect_has(src, "+= ch_acc[ch_r][ch_c];");
    free(src);
    /* a neighbour the walk may ask for: 64 x 128 tiles (2 x 8 fragments a warp), 4 stages */
    src = mma_pipe_cuda_m(dgemm_body, 64, 4, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "double ch_acc[2][16];");
    char *ptx = ptx_of(src);
    cr_expect_eq(count_of(ptx, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"), 64, "%s", ptx);
    cr_expect(!strstr(ptx, ".local"), "%s", ptx);
    free(ptx);
    free(src);
}

/* Not pipelined: a sum into a local scalar (its register is the point's, not a fragment's),
 * floats; nothing counted and no cp.async printed. */
Test(translate_plan, no_pipelined_tensor_cores)
{
    static const char *const bodies[] = {
        "void f(int n, const double *A, const double *B, double *C)\n"
        "{\n    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < n; j++) {\n"
        "            double s = 0.0;\n"
        "            for (int k = 0; k < n; k++)\n"
        "                s += A[i * n + k] * B[k * n + j];\n"
        "            C[i * n + j] = s;\n        }\n}\n",
        "void f(int n, const float *A, const float *B, float *C)\n"
        "{\n    for (int i = 0; i < n; i++)\n"
        "        for (int k = 0; k < n; k++)\n"
        "            for (int j = 0; j < n; j++)\n"
        "                C[i * n + j] += A[i * n + k] * B[k * n + j];\n}\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        int n = 0;
        char *src = mma_pipe_cuda(bodies[i], 3, &n);
        cr_expect_eq(n, 0, "body %zu:\n%s", i, src);
        cr_expect(!strstr(src, "ch_cp_async") && !strstr(src, "ch_dmma"), "body %zu:\n%s", i, src);
        free(src);
    }
}

/* The CUDA of a body with four rows a thread and 16 bytes of columns a thread (cols.c); how
 * many kernels took the columns (malloc'd). */
static char *cols_cuda(const char *clauses, const char *body, int *n_cols)
{
    int n_rows = 0;
    *n_cols = 0;
    ch_tr_cuda_opts o = {.block1 = 256,
                         .block2_x = 32,
                         .block2_y = 4,
                         .grid_cap = 1024,
                         .rows = 4,
                         .n_rows = &n_rows,
                         .cols = 1,
                         .n_cols = n_cols};
    return cuda_with(clauses, body, CH_TR_ISL_SCHEDULE, &o);
}

static const char *const stencil5 =
    "void f(int m, int n, const float *a, float *b)\n{\n"
    "    for (int i = 1; i < m - 1; i++)\n"
    "        for (int j = 1; j < n - 1; j++)\n"
    "            b[i * n + j] = 0.2f * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] +\n"
    "                                   a[i * n + j - 1] + a[i * n + j + 1]);\n}\n";

/* A 5-point stencil: groups of 4 columns from a multiple of 4, each access's window of float4
 * vectors from the group's first column (the row's left neighbour: the vector before too, the
 * right one: the vector after), the checks of alignment and bounds at run time (for the whole
 * group of rows, then row by row), the results as one float4 store, and the value-by-value
 * path; the grid's x counts 128 columns a block. In
 * the PTX: 16-byte loads and stores, and no local memory (the windows are registers). */
Test(translate_plan, stencil_columns_vectors)
{
    int n = 0;
    char *src = cols_cuda("", stencil5, &n);
    cr_expect_eq(n, 1, "%s", src);
    expect_has(src, "for (long long ch_q1 = ((1) >= 0 ? (1) / 4 : -((4 - 1 - (1)) / 4)) + ch_g1;; "
                    "ch_q1 += ch_n1)");
    expect_has(src, "ch_p3 = &a[i * n + j - 1] - (-1);");
    expect_has(src, "((size_t)ch_p3 & 15) == 0 && ch_p3 + -4 >= a && ch_p3 + 4 <= a + ");
    expect_has(src, "((size_t)ch_p4 & 15) == 0 && ch_p4 + 0 >= a && ch_p4 + 8 <= a + ");
    expect_has(src, "const float4 ch_v = *(const float4 *)(ch_p3 + -4);");
    expect_has(src, "ch_o[ch_t1] = __fmul_rn(0.2f, ch_w0[ch_t1 + 0] + ch_w1[ch_t1 + 0] + "
                    "ch_w2[ch_t1 + 0] + ch_w3[ch_t1 + 3] + ch_w4[ch_t1 + 1]);");
    expect_has(src, "*(float4 *)ch_q = make_float4(ch_o[0], ch_o[1], ch_o[2], ch_o[3]);");
    /* the rows of a whole group in one loop without checks (nvcc shares their windows) */
    expect_has(src, "ch_all = ch_all && ((c0 < (m - 1)));");
    expect_has(src, "if (ch_all) { /* the group's rows without checks */");
    expect_has(src, "b[i * n + j] = __fmul_rn(0.2f, a[i * n + j] + ");
    expect_has(src, "ch_grid(f_blocks(ch_e1, 128, 1024LL), f_blocks(ch_e0, 16, 65535LL))");
    char *ptx = ptx_of(src);
    cr_expect(strstr(ptx, "ld.global.nc.v4.f32"), "%s", ptx);
    cr_expect(strstr(ptx, "st.global.v4.f32"), "%s", ptx);
    cr_expect(!strstr(ptx, ".local"), "%s", ptx);
    free(ptx);
    free(src);
}

/* Not in columns (the rows variant's kernel instead, nothing counted): a statement that reads
 * the array it writes, a column subscript scaled (2 * j), a counter read outside a subscript,
 * device pointers (which may alias), and a write at an offset from the column. */
Test(translate_plan, no_stencil_columns)
{
    static const char *const bodies[] = {
        "void f(int m, int n, float *b)\n{\n    for (int i = 1; i < m - 1; i++)\n"
        "        for (int j = 1; j < n - 1; j++)\n"
        "            b[i * n + j] = 0.5f * b[i * n + j];\n}\n",
        "void f(int m, int n, const float *a, float *b)\n{\n    for (int i = 0; i < m; i++)\n"
        "        for (int j = 0; j < n; j++)\n"
        "            b[i * n + j] = a[i * 2 * n + 2 * j];\n}\n",
        "void f(int m, int n, const float *a, float *b)\n{\n    for (int i = 0; i < m; i++)\n"
        "        for (int j = 0; j < n; j++)\n"
        "            b[i * n + j] = a[i * n + j] * j;\n}\n",
        "void f(int m, int n, const float *a, float *b)\n{\n    for (int i = 0; i < m; i++)\n"
        "        for (int j = 0; j < n - 1; j++)\n"
        "            b[i * n + j + 1] = a[i * n + j];\n}\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        int n = 0;
        char *src = cols_cuda("", bodies[i], &n);
        cr_expect_eq(n, 0, "body %zu:\n%s", i, src);
        cr_expect(!strstr(src, "ch_q1"), "body %zu:\n%s", i, src);
        free(src);
    }
    int n = 0;
    char *src = cols_cuda("device", stencil5, &n);
    cr_expect_eq(n, 0, "%s", src);
    free(src);
}

/* PolyBench's doitgen: sum is rewritten from scratch by every (r, q) iteration (each element
 * written before it is read), so its anti and output dependences between iterations are only
 * the reuse of one buffer. sum is private to r and q: they become parallel and map to threads,
 * and each thread works on its own copy of sum. sum is a parameter, live after the body: the
 * last iteration writes every element the others write, so its copy is what the C body leaves
 * in sum (the CUDA test below checks that iteration works on sum itself). isl's order does
 * not keep sum's life on one thread; the body's own order does, so both strategies give
 * that order. */
static const char doitgen[] =
    "void doitgen(int nr, int nq, int np, double A[nr][nq][np], const double C4[np][np],\n"
    "             double sum[np])\n"
    "{\n"
    "    for (int r = 0; r < nr; r++)\n"
    "        for (int q = 0; q < nq; q++) {\n"
    "            for (int p = 0; p < np; p++) {\n"
    "                sum[p] = 0.0;\n"
    "                for (int s = 0; s < np; s++)\n"
    "                    sum[p] += A[r][q][s] * C4[s][p];\n"
    "            }\n"
    "            for (int p = 0; p < np; p++)\n"
    "                A[r][q][p] = sum[p];\n"
    "        }\n"
    "}\n";

Test(translate_plan, doitgen_private_array)
{
    expect_plan("", doitgen,
                "S1 at 8:17: sum[p] = 0.0;\n"
                "S2 at 10:21: sum[p] += A[r][q][s] * C4[s][p];\n"
                "S3 at 13:17: A[r][q][p] = sum[p];\n"
                "loop r at 5:5: parallel (private array sum)\n"
                "loop q at 6:9: parallel (private array sum)\n"
                "loop p at 7:13: parallel\n"
                "loop s at 9:17: carries flow/anti/output S2 -> S2 on sum (reduction on sum "
                "(+))\n"
                "loop p at 12:13: parallel\n"
                "strategy: original loop order\n"
                "kernel 0: 2 parallel dimensions on threads: S1 S2 S3\n"
                "  c0..c1: [nr, nq, np] -> [{ S2[r, q, p, s] -> [(r)] : 0 <= r < nr and 0 <= q < "
                "nq and 0 <= p < np and 0 <= s < np; S1[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= "
                "q < nq and 0 <= p < np; S3[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= q < nq and "
                "0 <= p < np }, { S2[r, q, p, s] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 <= "
                "p < np and 0 <= s < np; S1[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq and "
                "0 <= p < np; S3[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 <= p < np "
                "}]\n"
                "array sum: a copy per thread, the last iteration in sum itself\n"
                "strategy: original loop order\n"
                "kernel 0: 2 parallel dimensions on threads: S1 S2 S3\n"
                "  c0..c1: [nr, nq, np] -> [{ S2[r, q, p, s] -> [(r)] : 0 <= r < nr and 0 <= q < "
                "nq and 0 <= p < np and 0 <= s < np; S1[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= "
                "q < nq and 0 <= p < np; S3[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= q < nq and "
                "0 <= p < np }, { S2[r, q, p, s] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 <= "
                "p < np and 0 <= s < np; S1[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq and "
                "0 <= p < np; S3[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 <= p < np "
                "}]\n"
                "array sum: a copy per thread, the last iteration in sum itself\n");
}

/* The same nest but for what it leaves in sum: read after the nest (sum[0] goes to A), or
 * only partly rewritten by the last iteration (iteration r writes sum[r..n-1], the last one
 * sum[n-1] alone, so its copy lacks what the others leave in sum[0..n-2]). Either way the
 * outer loop stays sequential (a host loop, or inside each thread in isl's order) and its line
 * in the plan says why. */
Test(translate_plan, doitgen_not_private)
{
    expect_plan("",
                "void f(int nr, int nq, int np, double A[nr][nq][np], const double C4[np][np],\n"
                "       double sum[np])\n"
                "{\n"
                "    for (int r = 0; r < nr; r++)\n"
                "        for (int q = 0; q < nq; q++) {\n"
                "            for (int p = 0; p < np; p++) {\n"
                "                sum[p] = 0.0;\n"
                "                for (int s = 0; s < np; s++)\n"
                "                    sum[p] += A[r][q][s] * C4[s][p];\n"
                "            }\n"
                "            for (int p = 0; p < np; p++)\n"
                "                A[r][q][p] = sum[p];\n"
                "        }\n"
                "    A[0][0][0] = sum[0];\n"
                "}\n",
                "S1 at 8:17: sum[p] = 0.0;\n"
                "S2 at 10:21: sum[p] += A[r][q][s] * C4[s][p];\n"
                "S3 at 13:17: A[r][q][p] = sum[p];\n"
                "S4 at 15:5: A[0][0][0] = sum[0];\n"
                "loop r at 5:5: carries anti/output S2 -> S1 on sum, anti S3 -> S1 on sum (array "
                "sum not private: its values are read after the loop)\n"
                "loop q at 6:9: carries anti/output S2 -> S1 on sum, anti S3 -> S1 on sum (array "
                "sum not private: its values are read after the loop)\n"
                "loop p at 7:13: parallel\n"
                "loop s at 9:17: carries flow/anti/output S2 -> S2 on sum (reduction on sum "
                "(+))\n"
                "loop p at 12:13: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 1 parallel dimension on threads, inside 2 host loops: S1 S2\n"
                "  c0..c2: [nr, nq, np] -> [{ S1[r, q, p] -> [(r)]; S2[r, q, p, s] -> [(r)] }, { "
                "S1[r, q, p] -> [(q)]; S2[r, q, p, s] -> [(q)] }, { S2[r, q, p, s] -> [(p)]; "
                "S1[r, q, p] -> [(p)] }]\n"
                "kernel 1: 1 parallel dimension on threads, inside 2 host loops: S3\n"
                "  c0..c2: [nr, nq, np] -> [{ S3[r, q, p] -> [(r)] }, { S3[r, q, p] -> [(q)] }, "
                "{ S3[r, q, p] -> [(p)] }]\n"
                "kernel 2: one thread: S4\n"
                "strategy: original loop order\n"
                "kernel 0: 1 parallel dimension on threads, inside 2 host loops: S1 S2\n"
                "  c0..c2: [nr, nq, np] -> [{ S1[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= q < nq "
                "and 0 <= p < np; S2[r, q, p, s] -> [(r)] : 0 <= r < nr and 0 <= q < nq and 0 <= "
                "p < np and 0 <= s < np }, { S1[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq "
                "and 0 <= p < np; S2[r, q, p, s] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 <= "
                "p < np and 0 <= s < np }, { S2[r, q, p, s] -> [(p)] : 0 <= r < nr and 0 <= q < "
                "nq and 0 <= p < np and 0 <= s < np; S1[r, q, p] -> [(p)] : 0 <= r < nr and 0 <= "
                "q < nq and 0 <= p < np }]\n"
                "kernel 1: 1 parallel dimension on threads, inside 2 host loops: S3\n"
                "  c0..c2: [nr, nq, np] -> [{ S3[r, q, p] -> [(r)] : 0 <= r < nr and 0 <= q < nq "
                "and 0 <= p < np }, { S3[r, q, p] -> [(q)] : 0 <= r < nr and 0 <= q < nq and 0 "
                "<= p < np }, { S3[r, q, p] -> [(p)] : 0 <= r < nr and 0 <= q < nq and 0 <= p < "
                "np }]\n"
                "kernel 2: one thread: S4\n");
    expect_plan("",
                "void f(int n, double A[n][n], double sum[n])\n"
                "{\n"
                "    for (int r = 0; r < n; r++) {\n"
                "        for (int p = r; p < n; p++)\n"
                "            sum[p] = A[r][p] * 2.0;\n"
                "        for (int p = r; p < n; p++)\n"
                "            A[r][p] = sum[p] * sum[p];\n"
                "    }\n"
                "}\n",
                "S1 at 6:13: sum[p] = A[r][p] * 2.0;\n"
                "S2 at 8:13: A[r][p] = sum[p] * sum[p];\n"
                "loop r at 4:5: carries anti S2 -> S1 on sum, output S1 -> S1 on sum (array sum "
                "not private: live after the body, and the last iteration does not write every "
                "element that the others write)\n"
                "loop p at 5:9: parallel\n"
                "loop p at 7:9: parallel\n"
                "strategy: isl scheduler\n"
                "kernel 0: 1 parallel dimension on threads: S1 S2\n"
                "  c0..c0: [n] -> [{ S2[r, p] -> [(p)]; S1[r, p] -> [(p)] }]\n"
                "strategy: original loop order\n"
                "kernel 0: 1 parallel dimension on threads, inside 1 host loop: S1\n"
                "  c0..c1: [n] -> [{ S1[r, p] -> [(r)] : r >= 0 and r <= p < n }, { S1[r, p] -> "
                "[(p)] : r >= 0 and r <= p < n }]\n"
                "kernel 1: 1 parallel dimension on threads, inside 1 host loop: S2\n"
                "  c0..c1: [n] -> [{ S2[r, p] -> [(r)] : r >= 0 and r <= p < n }, { S2[r, p] -> "
                "[(p)] : r >= 0 and r <= p < n }]\n");
}

/* doitgen's kernel, one launch: r on y and q on x, p and s inside each thread; each statement
 * points ch_c_sum at sum in the last iteration (r, q) = (nr - 1, nq - 1) and at the thread's
 * own slice of the copies otherwise; the launcher
 * sizes the copies for the launch's threads. The file compiles with nvcc without a warning. */
Test(translate_plan, doitgen_cuda)
{
    char *src = cuda_of("", doitgen, CH_TR_ORIGINAL);
    cr_expect_eq(count_of(src, "<<<"), 1, "one launch:\n%s", src);
    expect_has(src, " * c0 -> y: no dependence");
    expect_has(src, " * c1 -> x: no dependence");
    expect_has(src, "double *const ch_mine_sum = ch_copy_sum + ch_tid * (long long)(np);");
    /* every statement that touches sum goes through ch_c_sum, sum itself at (nr - 1, nq - 1) */
    cr_expect_eq(count_of(src, "double *const ch_c_sum = (c0) == ((nr - 1)) && (c1) == ((nq - "
                               "1)) ? sum : ch_mine_sum;"),
                 3, "%s", src);
    expect_has(src, "ch_c_sum[p] = 0.0;");
    expect_has(src, "ch_c_sum[p] += __dmul_rn(");
    expect_has(src, "A[((size_t)(r) * (nq) + (q)) * (np) + (p)] = ch_c_sum[p];");
    expect_has(src, "if (doitgen_reserve(&ch_d_ch_copy_sum, &ch_d_ch_copy_sum_bytes, ch_threads * "
                    "(size_t)(np) * sizeof(double)) != 0)");
    expect_has(src, "doitgen_k0<<<ch_grid, ch_block>>>(nr, nq, np, A, C4, sum, (double "
                    "*)ch_d_ch_copy_sum);");
    free(ptx_of(src));
    free(src);
}
