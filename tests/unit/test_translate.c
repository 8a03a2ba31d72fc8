/* The isl translator's first stage (src/translate): polyhedral model, exact dependences and
 * parallel loops, on real loop shapes scanned through libclang. Each test gives a harness
 * function and the exact summary ch_tr_print must give; its comment says why that answer is
 * right, so a reader can check it by hand. Line:col in the goldens count from the pragma on
 * line 1. The PolyBench kernels are the kernel functions of PolyBench/C 4.2.1 (shared/suites),
 * with _PB_N and friends written as the size parameters and C99 array parameters. */
#include "ch/translate.h"
#include "scan_helpers.h"

/* Scans "#pragma harness CLAUSES\nBODY", builds the model and dependences, and compares the
 * summary. */
static void expect(const char *clauses, const char *body, int what, const char *want)
{
    ch_entry_list l;
    ch_error err;
    char *text = ch_xasprintf("#pragma harness%s%s\n%s", *clauses ? " " : "", clauses, body);
    int rc = scan_text("t.c", text, CH_LANG_C, &l, &err);
    cr_assert_eq(rc, 0, "scan failed: %s", err.msg);
    cr_assert_eq(l.len, 1);
    ch_tr_model *m = NULL;
    ch_tr_deps *d = NULL;
    cr_assert_eq(ch_tr_model_build(&l.items[0], &m, &err), 0, "model: %s", err.msg);
    cr_assert_eq(ch_tr_deps_compute(m, &d, &err), 0, "deps: %s", err.msg);
    ch_strbuf got;
    ch_strbuf_init(&got);
    ch_tr_print(&got, m, d, what);
    cr_expect_str_eq(got.data, want, "got:\n%s\nwant:\n%s", got.data, want);
    ch_strbuf_free(&got);
    ch_tr_deps_free(d);
    ch_tr_model_free(m);
    free(text);
    ch_entry_list_free(&l);
}

/* Scans a function the model must refuse; the message (after the temp directory) must be
 * want. */
static void expect_refusal(const char *prelude, const char *body, const char *want)
{
    ch_entry_list l;
    ch_error err;
    char *text = ch_xasprintf("%s#pragma harness\n%s", prelude, body);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, &l, &err), 0, "scan failed: %s", err.msg);
    cr_assert_eq(l.len, 1);
    ch_tr_model *m = NULL;
    cr_assert_neq(ch_tr_model_build(&l.items[0], &m, &err), 0);
    cr_assert_null(m);
    const char *at = strstr(err.msg, "t.c:");
    cr_assert(at, "%s", err.msg);
    cr_expect_str_eq(at, want);
    free(text);
    ch_entry_list_free(&l);
}

/* C[i][j] += A[i][k]*B[k][j]: iteration (i, j, k) reads and writes only C[i][j], so two
 * iterations that differ in i or j touch different elements of C (i and j are parallel) and
 * iterations that differ only in k update the same element one after the other: k carries the
 * flow, anti and output dependence k -> k+1, a + reduction into C. */
Test(translate, gemm_reduction_on_k)
{
    expect(
        "",
        "void gemm(int ni, int nj, int nk, double C[ni][nj], double A[ni][nk], double B[nk][nj])\n"
        "{\n"
        "    for (int i = 0; i < ni; i++)\n"
        "        for (int j = 0; j < nj; j++)\n"
        "            for (int k = 0; k < nk; k++)\n"
        "                C[i][j] += A[i][k] * B[k][j];\n"
        "}\n",
        CH_TR_PRINT_ALL,
        "S1 at 7:17: C[i][j] += A[i][k] * B[k][j];\n"
        "  [ni, nj, nk] -> { S1[i, j, k] : 0 <= i < ni and 0 <= j < nj and 0 <= k < nk }\n"
        "loop i at 4:5: parallel\n"
        "loop j at 5:9: parallel\n"
        "loop k at 6:13: carries flow/anti/output S1 -> S1 on C (reduction on C (+))\n"
        "flow S1 -> S1 on C: [ni, nj, nk] -> { S1[i, j, k] -> S1[i' = i, j' = j, k' = 1 + k] : 0 "
        "<= i < ni and 0 <= j < nj and 0 <= k <= -2 + nk }\n"
        "anti S1 -> S1 on C: [ni, nj, nk] -> { S1[i, j, k] -> S1[i' = i, j' = j, k' = 1 + k] : 0 "
        "<= i < ni and 0 <= j < nj and 0 <= k <= -2 + nk }\n"
        "output S1 -> S1 on C: [ni, nj, nk] -> { S1[i, j, k] -> S1[i' = i, j' = j, k' = 1 + k] : 0 "
        "<= i < ni and 0 <= j < nj and 0 <= k <= -2 + nk }\n");
}

/* B[i] is computed from A[i-1..i+1], then copied back to A[i]. Within one t the first i loop
 * writes only B (its own element) and the second only A (its own element): both parallel. Time
 * step t+1 reads the A that step t wrote (flow S2 -> S1) and overwrites B and A again (anti,
 * output): t carries. */
Test(translate, stencil_time_loop)
{
    expect("",
           "void stencil(int tsteps, int n, double A[n], double B[n])\n"
           "{\n"
           "    for (int t = 0; t < tsteps; t++) {\n"
           "        for (int i = 1; i < n - 1; i++)\n"
           "            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n"
           "        for (int i = 1; i < n - 1; i++)\n"
           "            A[i] = B[i];\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_LOOPS | CH_TR_PRINT_DEPS,
           "loop t at 4:5: carries flow S2 -> S1 on A, anti S2 -> S1 on B, output S1 -> S1 on B, "
           "output S2 -> S2 on A\n"
           "loop i at 5:9: parallel\n"
           "loop i at 7:9: parallel\n"
           "flow S1 -> S2 on B: [tsteps, n] -> { S1[t, i] -> S2[t' = t, i' = i] : 0 <= t < tsteps "
           "and 0 < i <= -2 + n }\n"
           "flow S2 -> S1 on A: [tsteps, n] -> { S2[t, i] -> S1[t' = 1 + t, i'] : 0 <= t <= -2 + "
           "tsteps and 0 < i <= -2 + n and i' >= -1 + i and 0 < i' <= 1 + i and i' <= -2 + n }\n"
           "anti S2 -> S1 on B: [tsteps, n] -> { S2[t, i] -> S1[t' = 1 + t, i' = i] : 0 <= t <= -2 "
           "+ tsteps and 0 < i <= -2 + n }\n"
           "anti S1 -> S2 on A: [tsteps, n] -> { S1[t, i] -> S2[t' = t, i'] : 0 <= t < tsteps and "
           "0 < i <= -2 + n and i' >= -1 + i and 0 < i' <= 1 + i and i' <= -2 + n }\n"
           "output S1 -> S1 on B: [tsteps, n] -> { S1[t, i] -> S1[t' = 1 + t, i' = i] : 0 <= t <= "
           "-2 + tsteps and 0 < i <= -2 + n }\n"
           "output S2 -> S2 on A: [tsteps, n] -> { S2[t, i] -> S2[t' = 1 + t, i' = i] : 0 <= t <= "
           "-2 + tsteps and 0 < i <= -2 + n }\n");
}

/* j <= i and j < i + 1 give the same exact triangle 0 <= j <= i. Each iteration writes its own
 * element; the second nest only reads A: all four loops are parallel. */
Test(translate, triangular)
{
    expect("",
           "void tri(int n, const double *a, double A[n][n], double B[n][n])\n"
           "{\n"
           "    for (int i = 0; i < n; i++)\n"
           "        for (int j = 0; j <= i; j++)\n"
           "            A[i][j] = a[i] * a[j];\n"
           "    for (int i = 0; i < n; i++)\n"
           "        for (int j = 0; j < i + 1; j++)\n"
           "            B[i][j] = A[i][j] + A[j][j];\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 6:13: A[i][j] = a[i] * a[j];\n"
           "  [n] -> { S1[i, j] : 0 <= i < n and 0 <= j <= i }\n"
           "S2 at 9:13: B[i][j] = A[i][j] + A[j][j];\n"
           "  [n] -> { S2[i, j] : 0 <= i < n and 0 <= j <= i }\n"
           "loop i at 4:5: parallel\n"
           "loop j at 5:9: parallel\n"
           "loop i at 7:5: parallel\n"
           "loop j at 8:9: parallel\n");
}

/* The first loop counts down by one over [0, n-1]; the second by two from n-1 while i > 1, so
 * its domain keeps the parity of n-1 (the mod constraint) and it reads y[i-1], an element of
 * the other parity that it never writes: both loops are parallel. */
Test(translate, count_down)
{
    expect("",
           "void down(int n, const float *x, float *y)\n"
           "{\n"
           "    for (int i = n - 1; i >= 0; i--)\n"
           "        y[i] = x[i] + 1.0f;\n"
           "    for (int i = n - 1; i > 1; i -= 2)\n"
           "        y[i] = y[i - 1] * 2.0f;\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 5:9: y[i] = x[i] + 1.0f;\n"
           "  [n] -> { S1[i] : 0 <= i < n }\n"
           "S2 at 7:9: y[i] = y[i - 1] * 2.0f;\n"
           "  [n] -> { S2[i] : (1 + n + i) mod 2 = 0 and 2 <= i < n }\n"
           "loop i at 4:5: parallel\n"
           "loop i at 6:5: parallel\n");
}

/* s[i] reads s[i-1], written by the previous iteration: a flow dependence of distance 1 carried
 * by i; s[i-1] is not the element written, so it is not a reduction. */
Test(translate, prefix_sum)
{
    expect("",
           "void prefix(int n, const double *a, double *s)\n"
           "{\n"
           "    for (int i = 1; i < n; i++)\n"
           "        s[i] = s[i - 1] + a[i];\n"
           "}\n",
           CH_TR_PRINT_ALL,
           "S1 at 5:9: s[i] = s[i - 1] + a[i];\n"
           "  [n] -> { S1[i] : 0 < i < n }\n"
           "loop i at 4:5: carries flow S1 -> S1 on s\n"
           "flow S1 -> S1 on s: [n] -> { S1[i] -> S1[i' = 1 + i] : 0 < i <= -2 + n }\n");
}

/* Iteration (i, j >= i) writes c[i][j] and c[j][i]. Another iteration (i', j') writes the same
 * element only if (i', j') = (j, i), which needs j' = i >= j = i', so i = j: the same
 * iteration. Each element is written by one iteration: i and j are both parallel (the only
 * dependence is S1 -> S2 on the diagonal, inside one iteration). */
Test(translate, symmetric_fill)
{
    expect("",
           "void sym(int n, const double *x, double c[n][n])\n"
           "{\n"
           "    for (int i = 0; i < n; i++)\n"
           "        for (int j = i; j < n; j++) {\n"
           "            c[i][j] = x[i] * x[j];\n"
           "            c[j][i] = x[i] * x[j];\n"
           "        }\n"
           "}\n",
           CH_TR_PRINT_ALL,
           "S1 at 6:13: c[i][j] = x[i] * x[j];\n"
           "  [n] -> { S1[i, j] : 0 <= i < n and i <= j < n }\n"
           "S2 at 7:13: c[j][i] = x[i] * x[j];\n"
           "  [n] -> { S2[i, j] : 0 <= i < n and i <= j < n }\n"
           "loop i at 4:5: parallel\n"
           "loop j at 5:9: parallel\n"
           "output S1 -> S2 on c: [n] -> { S1[i, j = i] -> S2[i' = i, j' = i] : 0 <= i < n }\n");
}

/* t is written by S1 before S2 reads it in every iteration, and not read after the loop: it is
 * private to i, so its anti and output dependences between iterations do not count and i is
 * parallel. */
Test(translate, scalar_temp_privatised)
{
    expect("",
           "void scalar(int n, const float *a, float *b)\n"
           "{\n"
           "    float t;\n"
           "    for (int i = 0; i < n; i++) {\n"
           "        t = a[i] * 2.0f;\n"
           "        b[i] = t + 1.0f;\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_ALL,
           "S1 at 6:9: t = a[i] * 2.0f;\n"
           "  [n] -> { S1[i] : 0 <= i < n }\n"
           "S2 at 7:9: b[i] = t + 1.0f;\n"
           "  [n] -> { S2[i] : 0 <= i < n }\n"
           "loop i at 5:5: parallel (private t)\n"
           "flow S1 -> S2 on t: [n] -> { S1[i] -> S2[i' = i] : 0 <= i < n }\n"
           "anti S2 -> S1 on t: [n] -> { S2[i] -> S1[i' = 1 + i] : 0 <= i <= -2 + n }\n"
           "output S1 -> S1 on t: [n] -> { S1[i] -> S1[i' = 1 + i] : 0 <= i <= -2 + n }\n");
}

/* h[idx[i]] has a subscript that is not affine: the write may reach any element of h, so any
 * two iterations may conflict (flow, anti, output from every i to every later i'); it is
 * still a + update of one statement, a reduction (atomics) candidate. */
Test(translate, histogram_overapproximated)
{
    expect("extent(h: 256)",
           "void hist(int n, const int *idx, int *h)\n"
           "{\n"
           "    for (int i = 0; i < n; i++)\n"
           "        h[idx[i]] += 1;\n"
           "}\n",
           CH_TR_PRINT_ALL,
           "S1 at 5:9: h[idx[i]] += 1;\n"
           "  [n] -> { S1[i] : 0 <= i < n }\n"
           "loop i at 4:5: carries flow/anti/output S1 -> S1 on h (reduction on h (+))\n"
           "flow S1 -> S1 on h: [n] -> { S1[i] -> S1[i'] : i >= 0 and i < i' < n }\n"
           "anti S1 -> S1 on h: [n] -> { S1[i] -> S1[i'] : i >= 0 and i < i' < n }\n"
           "output S1 -> S1 on h: [n] -> { S1[i] -> S1[i'] : i >= 0 and i < i' < n }\n");
}

/* b[i*n+j]: i*n is not affine, but the subscript is a row-major linearisation whose inner part
 * j stays within 0..n-1, so it splits into b[i][j] (delin.c) and both loops are parallel, with
 * the dependences exact. b[i*i + j] is no linearisation (i*i holds no parameter): the write is
 * over-approximated as all of b and both loops carry output dependences (an honest
 * over-approximation). */
Test(translate, flat_product_subscript)
{
    expect("",
           "void flat(int m, int n, const double *a, double *b)\n"
           "{\n"
           "    for (int i = 0; i < m; i++)\n"
           "        for (int j = 0; j < n; j++)\n"
           "            b[i * n + j] = 2 * a[i * n + j];\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 6:13: b[i * n + j] = 2 * a[i * n + j];\n"
           "  [m, n] -> { S1[i, j] : 0 <= i < m and 0 <= j < n }\n"
           "array b: flattened, subscripts split as b[*][n]\n"
           "array a: flattened, subscripts split as a[*][n]\n"
           "loop i at 4:5: parallel\n"
           "loop j at 5:9: parallel\n");
    expect("extent(b: m * m + n)",
           "void sq(int m, int n, const double *a, double *b)\n"
           "{\n"
           "    for (int i = 0; i < m; i++)\n"
           "        for (int j = 0; j < n; j++)\n"
           "            b[i * i + j] = 2 * a[j];\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 6:13: b[i * i + j] = 2 * a[j];\n"
           "  [m, n] -> { S1[i, j] : 0 <= i < m and 0 <= j < n }\n"
           "loop i at 4:5: carries output S1 -> S1 on b\n"
           "loop j at 5:9: carries output S1 -> S1 on b\n");
}

/* acc += x[i]*y[i]: acc is read after the loop (out[0] = acc) and carries its value from one
 * iteration to the next, so it is not private; the loop carries a + reduction on acc. */
Test(translate, dot_scalar_reduction)
{
    expect("",
           "void dot(int n, const float *x, const float *y, float *out)\n"
           "{\n"
           "    float acc = 0.0f;\n"
           "    for (int i = 0; i < n; i++)\n"
           "        acc += x[i] * y[i];\n"
           "    out[0] = acc;\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 4:5: float acc = 0.0f;\n"
           "  [n] -> { S1[] }\n"
           "S2 at 6:9: acc += x[i] * y[i];\n"
           "  [n] -> { S2[i] : 0 <= i < n }\n"
           "S3 at 7:5: out[0] = acc;\n"
           "  [n] -> { S3[] }\n"
           "loop i at 5:5: carries flow/anti/output S2 -> S2 on acc (reduction on acc (+))\n");
}

/* acc += x[i]; y[i] = acc: S3 reads acc inside the loop, so the carried dependences are not only
 * S2 -> S2 (anti S3 -> S2): a scan, not a reduction. */
Test(translate, scan_is_not_reduction)
{
    expect("",
           "void scan(int n, const float *x, float *y)\n"
           "{\n"
           "    float acc = 0.0f;\n"
           "    for (int i = 0; i < n; i++) {\n"
           "        acc += x[i];\n"
           "        y[i] = acc;\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 4:5: float acc = 0.0f;\n"
           "  [n] -> { S1[] }\n"
           "S2 at 6:9: acc += x[i];\n"
           "  [n] -> { S2[i] : 0 <= i < n }\n"
           "S3 at 7:9: y[i] = acc;\n"
           "  [n] -> { S3[i] : 0 <= i < n }\n"
           "loop i at 5:5: carries flow/anti/output S2 -> S2 on acc, anti S3 -> S2 on acc\n");
}

/* y[i] = 0 is element-wise (parallel). In the i nest, tmp[i] is summed over j (j carries a +
 * reduction on tmp), then every i adds into all of y[j] (i carries a + reduction on y, the
 * second j loop is parallel). */
Test(translate, polybench_atax)
{
    expect(
        "",
        "void kernel_atax(int m, int n, double A[m][n], double x[n], double y[n], double tmp[m])\n"
        "{\n"
        "    int i, j;\n"
        "    for (i = 0; i < n; i++)\n"
        "        y[i] = 0;\n"
        "    for (i = 0; i < m; i++) {\n"
        "        tmp[i] = 0.0;\n"
        "        for (j = 0; j < n; j++)\n"
        "            tmp[i] = tmp[i] + A[i][j] * x[j];\n"
        "        for (j = 0; j < n; j++)\n"
        "            y[j] = y[j] + A[i][j] * tmp[i];\n"
        "    }\n"
        "}\n",
        CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
        "S1 at 6:9: y[i] = 0;\n"
        "  [m, n] -> { S1[i] : 0 <= i < n }\n"
        "S2 at 8:9: tmp[i] = 0.0;\n"
        "  [m, n] -> { S2[i] : 0 <= i < m }\n"
        "S3 at 10:13: tmp[i] = tmp[i] + A[i][j] * x[j];\n"
        "  [m, n] -> { S3[i, j] : 0 <= i < m and 0 <= j < n }\n"
        "S4 at 12:13: y[j] = y[j] + A[i][j] * tmp[i];\n"
        "  [m, n] -> { S4[i, j] : 0 <= i < m and 0 <= j < n }\n"
        "loop i at 5:5: parallel\n"
        "loop i at 7:5: carries flow/anti/output S4 -> S4 on y (reduction on y (+))\n"
        "loop j at 9:9: carries flow/anti/output S3 -> S3 on tmp (reduction on tmp (+))\n"
        "loop j at 11:9: parallel\n");
}

/* Forward substitution: x[i] reads x[j] for j < i, written by S3 in earlier i (i carries flow
 * S3 -> S2); the j loop accumulates into x[i] but its right side reads x (x[j]), so it is not
 * recognised as a reduction. */
Test(translate, polybench_trisolv)
{
    expect("",
           "void kernel_trisolv(int n, double L[n][n], double x[n], double b[n])\n"
           "{\n"
           "    int i, j;\n"
           "    for (i = 0; i < n; i++) {\n"
           "        x[i] = b[i];\n"
           "        for (j = 0; j < i; j++)\n"
           "            x[i] -= L[i][j] * x[j];\n"
           "        x[i] = x[i] / L[i][i];\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 6:9: x[i] = b[i];\n"
           "  [n] -> { S1[i] : 0 <= i < n }\n"
           "S2 at 8:13: x[i] -= L[i][j] * x[j];\n"
           "  [n] -> { S2[i, j] : 0 <= i < n and 0 <= j < i }\n"
           "S3 at 9:9: x[i] = x[i] / L[i][i];\n"
           "  [n] -> { S3[i] : 0 <= i < n }\n"
           "loop i at 5:5: carries flow S3 -> S2 on x\n"
           "loop j at 7:9: carries flow/anti/output S2 -> S2 on x\n");
}

/* As the stencil above but both sweeps are 3-point: t carries every dependence between the two
 * sweeps; each i loop writes its own element of one array and reads the other: parallel. */
Test(translate, polybench_jacobi_1d)
{
    expect("",
           "void kernel_jacobi_1d(int tsteps, int n, double A[n], double B[n])\n"
           "{\n"
           "    int t, i;\n"
           "    for (t = 0; t < tsteps; t++) {\n"
           "        for (i = 1; i < n - 1; i++)\n"
           "            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n"
           "        for (i = 1; i < n - 1; i++)\n"
           "            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 7:13: B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);\n"
           "  [tsteps, n] -> { S1[t, i] : 0 <= t < tsteps and 0 < i <= -2 + n }\n"
           "S2 at 9:13: A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);\n"
           "  [tsteps, n] -> { S2[t, i] : 0 <= t < tsteps and 0 < i <= -2 + n }\n"
           "loop t at 5:5: carries flow S2 -> S1 on A, anti S2 -> S1 on B, output S1 -> S1 on B, "
           "output S2 -> S2 on A\n"
           "loop i at 6:9: parallel\n"
           "loop i at 8:9: parallel\n");
}

/* mean: j parallel, i sums into mean[j] (+ reduction). data[i][j] -= mean[j]: element-wise.
 * cov: (i, j >= i) writes cov[i][j] and its mirror cov[j][i], one iteration per element (as in
 * symmetric_fill): i and j parallel; k sums into cov[i][j] (+ reduction). */
Test(translate, polybench_covariance)
{
    expect("",
           "void kernel_covariance(int m, int n, double float_n, double data[n][m], double "
           "cov[m][m],\n"
           "                       double mean[m])\n"
           "{\n"
           "    int i, j, k;\n"
           "    for (j = 0; j < m; j++) {\n"
           "        mean[j] = 0.0;\n"
           "        for (i = 0; i < n; i++)\n"
           "            mean[j] += data[i][j];\n"
           "        mean[j] /= float_n;\n"
           "    }\n"
           "    for (i = 0; i < n; i++)\n"
           "        for (j = 0; j < m; j++)\n"
           "            data[i][j] -= mean[j];\n"
           "    for (i = 0; i < m; i++)\n"
           "        for (j = i; j < m; j++) {\n"
           "            cov[i][j] = 0.0;\n"
           "            for (k = 0; k < n; k++)\n"
           "                cov[i][j] += data[k][i] * data[k][j];\n"
           "            cov[i][j] /= (float_n - 1.0);\n"
           "            cov[j][i] = cov[i][j];\n"
           "        }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 7:9: mean[j] = 0.0;\n"
           "  [m, n] -> { S1[j] : 0 <= j < m }\n"
           "S2 at 9:13: mean[j] += data[i][j];\n"
           "  [m, n] -> { S2[j, i] : 0 <= j < m and 0 <= i < n }\n"
           "S3 at 10:9: mean[j] /= float_n;\n"
           "  [m, n] -> { S3[j] : 0 <= j < m }\n"
           "S4 at 14:13: data[i][j] -= mean[j];\n"
           "  [m, n] -> { S4[i, j] : 0 <= i < n and 0 <= j < m }\n"
           "S5 at 17:13: cov[i][j] = 0.0;\n"
           "  [m, n] -> { S5[i, j] : 0 <= i < m and i <= j < m }\n"
           "S6 at 19:17: cov[i][j] += data[k][i] * data[k][j];\n"
           "  [m, n] -> { S6[i, j, k] : 0 <= i < m and i <= j < m and 0 <= k < n }\n"
           "S7 at 20:13: cov[i][j] /= float_n - 1.0;\n"
           "  [m, n] -> { S7[i, j] : 0 <= i < m and i <= j < m }\n"
           "S8 at 21:13: cov[j][i] = cov[i][j];\n"
           "  [m, n] -> { S8[i, j] : 0 <= i < m and i <= j < m }\n"
           "loop j at 6:5: parallel\n"
           "loop i at 8:9: carries flow/anti/output S2 -> S2 on mean (reduction on mean (+))\n"
           "loop i at 12:5: parallel\n"
           "loop j at 13:9: parallel\n"
           "loop i at 15:5: parallel\n"
           "loop j at 16:9: parallel\n"
           "loop k at 18:13: carries flow/anti/output S6 -> S6 on cov (reduction on cov (+))\n");
}

/* C[i][j] (j <= i) is scaled, then for each k all of row i is updated: i and both j loops touch
 * distinct elements; k revisits C[i][j] with +=: a + reduction. */
Test(translate, polybench_syrk)
{
    expect("",
           "void kernel_syrk(int n, int m, double alpha, double beta, double C[n][n], double "
           "A[n][m])\n"
           "{\n"
           "    int i, j, k;\n"
           "    for (i = 0; i < n; i++) {\n"
           "        for (j = 0; j <= i; j++)\n"
           "            C[i][j] *= beta;\n"
           "        for (k = 0; k < m; k++) {\n"
           "            for (j = 0; j <= i; j++)\n"
           "                C[i][j] += alpha * A[i][k] * A[j][k];\n"
           "        }\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 7:13: C[i][j] *= beta;\n"
           "  [n, m] -> { S1[i, j] : 0 <= i < n and 0 <= j <= i }\n"
           "S2 at 10:17: C[i][j] += alpha * A[i][k] * A[j][k];\n"
           "  [n, m] -> { S2[i, k, j] : 0 <= i < n and 0 <= k < m and 0 <= j <= i }\n"
           "loop i at 5:5: parallel\n"
           "loop j at 6:9: parallel\n"
           "loop k at 8:9: carries flow/anti/output S2 -> S2 on C (reduction on C (+))\n"
           "loop j at 9:13: parallel\n");
}

/* A while loop has a data-dependent trip count: refused at the loop, never skipped. */
Test(translate, while_refused)
{
    expect_refusal("",
                   "void wh(int n, float x[n])\n"
                   "{\n"
                   "    int i = 0;\n"
                   "    while (i < n) {\n"
                   "        x[i] = 0;\n"
                   "        i++;\n"
                   "    }\n"
                   "}\n",
                   "t.c:5:5: error: cannot translate wh: a while or do loop (only canonical for "
                   "loops are modelled)");
}

/* A call the translator cannot see into may write anything: refused at the call. */
Test(translate, opaque_call_refused)
{
    expect_refusal("void g(float *p);\n",
                   "void f(int n, float x[n])\n"
                   "{\n"
                   "    for (int i = 0; i < n; i++)\n"
                   "        x[i] = 0;\n"
                   "    g(x);\n"
                   "}\n",
                   "t.c:7:5: error: cannot translate f: an expression statement that is not an "
                   "assignment");
}

/* A condition that is not affine keeps the whole domain and makes the write a may-write: the
 * statement is marked (may), and since x[i] is still its own element per iteration, i stays
 * parallel. An affine condition (i < m) restricts the domain exactly. */
Test(translate, conditions)
{
    expect("",
           "void f(int n, int m, const float *a, float *x)\n"
           "{\n"
           "    for (int i = 0; i < n; i++) {\n"
           "        if (a[i] > 0)\n"
           "            x[i] = a[i];\n"
           "        if (i < m)\n"
           "            x[i] += 1;\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 6:13 (may): x[i] = a[i];\n"
           "  [n, m] -> { S1[i] : 0 <= i < n }\n"
           "S2 at 8:13: x[i] += 1;\n"
           "  [n, m] -> { S2[i] : 0 <= i < m and i < n }\n"
           "loop i at 4:5: parallel\n");
}

/* Row sums through a scalar: s is set to 0 at the top of every i iteration, so every read of s
 * in an iteration of i sees a write of that iteration and nothing after the loop reads it: s
 * is private to i, which is parallel. The j loop carries the + reduction on s. The temporary t
 * declared inside the loop body is private the same way. */
Test(translate, private_accumulator)
{
    expect("",
           "void f(int m, int n, double A[m][n], double y[m], double z[m])\n"
           "{\n"
           "    double s;\n"
           "    for (int i = 0; i < m; i++) {\n"
           "        s = 0;\n"
           "        for (int j = 0; j < n; j++)\n"
           "            s += A[i][j];\n"
           "        y[i] = s;\n"
           "        double t = y[i] * 2;\n"
           "        z[i] = t;\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_LOOPS,
           "loop i at 5:5: parallel (private s, t)\n"
           "loop j at 7:9: carries flow/anti/output S2 -> S2 on s (reduction on s (+))\n");
}

/* The counter's value after its loop is not modelled: refused where it is read. */
Test(translate, counter_after_loop_refused)
{
    expect_refusal("",
                   "void f(int n, float x[n])\n"
                   "{\n"
                   "    int i;\n"
                   "    for (i = 0; i < n; i++)\n"
                   "        x[i] = 0;\n"
                   "    x[0] = i;\n"
                   "}\n",
                   "t.c:7:12: error: cannot translate f: a loop counter used after its loop (its "
                   "last value is not modelled)");
}

/* C[i][j] *= beta, then for each k every C[i][j] of row i gets alpha*A[i][k]*B[k][j] added: i and
 * both j loops touch distinct elements of C; k revisits the same C[i][j]: a + reduction. */
Test(translate, polybench_gemm)
{
    expect("",
           "void kernel_gemm(int ni, int nj, int nk, double alpha, double beta, double C[ni][nj],\n"
           "                 double A[ni][nk], double B[nk][nj])\n"
           "{\n"
           "    int i, j, k;\n"
           "    for (i = 0; i < ni; i++) {\n"
           "        for (j = 0; j < nj; j++)\n"
           "            C[i][j] *= beta;\n"
           "        for (k = 0; k < nk; k++) {\n"
           "            for (j = 0; j < nj; j++)\n"
           "                C[i][j] += alpha * A[i][k] * B[k][j];\n"
           "        }\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 8:13: C[i][j] *= beta;\n"
           "  [ni, nj, nk] -> { S1[i, j] : 0 <= i < ni and 0 <= j < nj }\n"
           "S2 at 11:17: C[i][j] += alpha * A[i][k] * B[k][j];\n"
           "  [ni, nj, nk] -> { S2[i, k, j] : 0 <= i < ni and 0 <= k < nk and 0 <= j < nj }\n"
           "loop i at 6:5: parallel\n"
           "loop j at 7:9: parallel\n"
           "loop k at 9:9: carries flow/anti/output S2 -> S2 on C (reduction on C (+))\n"
           "loop j at 10:13: parallel\n");
}

/* Gauss-Seidel in place: A[i][j] reads A[i-1][*] and A[i][j-1], written earlier in the same t
 * (flow carried by i and by j), and A[i+1][*], A[i][j+1], written later (anti carried by i and
 * j); t repeats everything: every loop carries (no loop is parallel without skewing). */
Test(translate, polybench_seidel_2d)
{
    expect("",
           "void kernel_seidel_2d(int tsteps, int n, double A[n][n])\n"
           "{\n"
           "    int t, i, j;\n"
           "    for (t = 0; t <= tsteps - 1; t++)\n"
           "        for (i = 1; i <= n - 2; i++)\n"
           "            for (j = 1; j <= n - 2; j++)\n"
           "                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - "
           "1] + A[i][j] +\n"
           "                           A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + "
           "1]) /\n"
           "                          9.0;\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 8:17: A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + "
           "A[i][j] + A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;\n"
           "  [tsteps, n] -> { S1[t, i, j] : 0 <= t < tsteps and 0 < i <= -2 + n and 0 < j <= -2 + "
           "n }\n"
           "loop t at 5:5: carries flow/anti/output S1 -> S1 on A\n"
           "loop i at 6:9: carries flow/anti S1 -> S1 on A\n"
           "loop j at 7:13: carries flow/anti S1 -> S1 on A\n");
}

/* Iteration (k, i, j) reads path[i][k] and path[k][j], which iterations (k, i, k) and (k, k, j)
 * of the same k write: at the level of memory the i and j loops carry flow and anti
 * dependences (that those writes do not change the values needs arithmetic the dependence
 * test does not know), and k carries all three. */
Test(translate, polybench_floyd_warshall)
{
    expect("",
           "void kernel_floyd_warshall(int n, double path[n][n])\n"
           "{\n"
           "    int i, j, k;\n"
           "    for (k = 0; k < n; k++) {\n"
           "        for (i = 0; i < n; i++)\n"
           "            for (j = 0; j < n; j++)\n"
           "                path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j]\n"
           "                                                                  : path[i][k] + "
           "path[k][j];\n"
           "    }\n"
           "}\n",
           CH_TR_PRINT_STMTS | CH_TR_PRINT_LOOPS,
           "S1 at 8:17: path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : "
           "path[i][k] + path[k][j];\n"
           "  [n] -> { S1[k, i, j] : 0 <= k < n and 0 <= i < n and 0 <= j < n }\n"
           "loop k at 5:5: carries flow/anti/output S1 -> S1 on path\n"
           "loop i at 6:9: carries flow/anti S1 -> S1 on path\n"
           "loop j at 7:13: carries flow/anti S1 -> S1 on path\n");
}
