/* Direction and extent inference on real loop shapes, scanned through libclang: each test
 * states a function and the exact "param:direction:extent" summary inference must give. */
#include "ch/checklist.h"
#include "ch/verify.h"
#include "scan_helpers.h"

static void expect(const char *src, const char *want)
{
    ch_entry_list l;
    ch_error err;
    const char *fn = strstr(src, "void ");
    char *text =
        ch_xasprintf("#include <stddef.h>\n%.*s\n#pragma harness\n%s\n", (int)(fn - src), src, fn);
    int rc = scan_text("t.c", text, CH_LANG_C, &l, &err);
    cr_assert_eq(rc, 0, "scan failed: %s", err.msg);
    cr_assert_eq(l.len, 1);
    char *got = summary(&l.items[0]);
    cr_expect_str_eq(got, want, "got %s for %s", got, src);
    free(got);
    free(text);
    ch_entry_list_free(&l);
}

Test(infer, elementwise)
{
    expect("void f(int n, const float *a, const float *b, float *c)"
           "{ for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; }",
           "a:in:n b:in:n c:out:n");
}

Test(infer, saxpy_inout)
{
    expect("void f(int n, float s, const float *x, float *y)"
           "{ for (int i = 0; i < n; i++) y[i] = s * x[i] + y[i]; }",
           "x:in:n y:inout:n");
}

Test(infer, compound_assign_is_inout)
{
    expect("void f(int n, float *y) { for (int i = 0; i < n; i++) y[i] *= 2.0f; }", "y:inout:n");
}

Test(infer, never_written_nonconst_is_in)
{
    expect("void f(int n, float *x, double *s) { double t = 0; for (int i = 0; i < n; i++) t += "
           "x[i]; s[0] = t; }",
           "x:in:n s:out:1");
}

Test(infer, flat_2d)
{
    expect("void f(int m, int n, const double *a, double *b)"
           "{ for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) b[i*n+j] = 2*a[i*n+j]; }",
           "a:in:m*n b:out:m*n");
}

Test(infer, flat_2d_transpose)
{
    expect("void f(int m, int n, const float *a, float *b)"
           "{ for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) b[j*m+i] = a[i*n+j]; }",
           "a:in:m*n b:out:m*n");
}

Test(infer, matmul)
{
    expect("void f(int m, int n, int k, const double *A, const double *B, double *C)"
           "{ for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { double s = 0;"
           "  for (int l = 0; l < k; l++) s += A[i*k+l] * B[l*n+j]; C[i*n+j] = s; } }",
           "A:in:k*m B:in:k*n C:out:m*n");
}

Test(infer, matvec_reduction_into_output)
{
    expect("void f(int n, const float *A, const float *x, float *y)"
           "{ for (int i = 0; i < n; i++) { y[i] = 0; for (int j = 0; j < n; j++) y[i] += "
           "A[i*n+j] * x[j]; } }",
           "A:in:n*n x:in:n y:out:n");
}

Test(infer, stencil_offsets)
{
    expect("void f(int n, const float *a, float *b)"
           "{ for (int i = 1; i < n - 1; i++) b[i] = a[i-1] + a[i] + a[i+1]; }",
           "a:in:n b:inout:n-1");
}

/* The checklist of one annotated function (the caller frees c). */
static void checklist_of(const char *fn, ch_checklist *c)
{
    ch_entry_list l;
    ch_error err;
    char *text = ch_xasprintf("#pragma harness\n%s\n", fn);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, &l, &err), 0, "scan failed: %s", err.msg);
    cr_assert_eq(l.len, 1);
    cr_assert_eq(ch_checklist_derive(&l.items[0], c, &err), 0, "derive: %s", err.msg);
    free(text);
    ch_entry_list_free(&l);
}

/* "written only": inout buffers the body never reads before writing (a stencil's b, inout
 * because its border is left as it was) against ones it reads (an update, a read of another
 * iteration's element, a compound assignment); in and out buffers never are. The JSON keeps
 * the flag; an in buffer that claims it is refused. */
Test(infer, written_only)
{
    static const struct {
        const char *fn, *param;
        int dir, written_only;
    } cases[] = {
        {"void f(int m, int n, const float *a, float *b)\n{ for (int i = 1; i < m - 1; i++) "
         "for (int j = 1; j < n - 1; j++) b[i * n + j] = a[i * n + j] + a[i * n + j + 1]; }",
         "b", CH_DIR_INOUT, 1},
        {"void f(int n, const float *a, float *b)\n{ for (int i = 1; i < n - 1; i++) { b[i] = "
         "a[i]; b[i] = b[i] * 2; } }",
         "b", CH_DIR_INOUT, 1},
        {"void f(int n, const float *a, float *b)\n{ for (int i = 1; i < n - 1; i++) b[i] = "
         "a[i] + b[i]; }",
         "b", CH_DIR_INOUT, 0},
        {"void f(int n, float *b)\n{ for (int i = 1; i < n - 1; i++) b[i] = b[i - 1] + 1; }", "b",
         CH_DIR_INOUT, 0},
        {"void f(int n, float *b)\n{ for (int i = 1; i < n - 1; i++) b[i] *= 2; }", "b",
         CH_DIR_INOUT, 0},
        {"void f(int n, const float *a, float *b)\n{ for (int i = 0; i < n; i++) b[i] = a[i]; }",
         "b", CH_DIR_OUT, 0},
        {"void f(int n, const float *a, float *b)\n{ for (int i = 0; i < n; i++) b[i] = a[i]; }",
         "a", CH_DIR_IN, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ch_checklist c;
        checklist_of(cases[k].fn, &c);
        const ch_ck_param *p = ch_checklist_param(&c, cases[k].param);
        cr_assert(p);
        cr_expect_eq((int)p->dir, cases[k].dir, "case %zu: direction %d", k, (int)p->dir);
        cr_expect_eq(p->written_only, cases[k].written_only, "case %zu: %s", k, cases[k].fn);
        char *json = ch_checklist_to_json(&c);
        cr_expect_eq(strstr(json, "\"written_only\":") != NULL, cases[k].written_only, "%s", json);
        ch_checklist back;
        ch_error err;
        cr_assert_eq(ch_checklist_from_json(json, &back, &err), 0, "%s", err.msg);
        cr_expect_eq(ch_checklist_param(&back, cases[k].param)->written_only,
                     cases[k].written_only);
        ch_checklist_free(&back);
        free(json);
        ch_checklist_free(&c);
    }
}

Test(infer, written_only_json_refused_on_in_buffers)
{
    ch_checklist c;
    checklist_of("void f(int n, const float *a, float *b)\n{ for (int i = 0; i < n; i++) b[i] = "
                 "a[i]; }",
                 &c);
    char *json = ch_checklist_to_json(&c);
    ch_checklist_free(&c);
    char *at = strstr(json, "\"direction\": \"in\"");
    cr_assert(at, "%s", json);
    char *bad = ch_xasprintf("%.*s\"written_only\": true, %s", (int)(at - json), json, at);
    ch_error err;
    cr_assert_eq(ch_checklist_from_json(bad, &c, &err), -1, "%s", bad);
    cr_expect(strstr(err.msg, "written_only: only inout buffers"), "%s", err.msg);
    free(bad);
    free(json);
}

Test(infer, offset_read_past_loop)
{
    expect("void f(int n, const double *a, double *d)"
           "{ for (int i = 0; i < n; i++) d[i] = a[i+1] - a[i]; }",
           "a:in:n+1 d:out:n");
}

Test(infer, stencil_2d_flat)
{
    expect("void f(int n, const double *a, double *b)"
           "{ for (int i = 1; i < n-1; i++) for (int j = 1; j < n-1; j++)"
           "  b[i*n+j] = a[(i-1)*n+j] + a[(i+1)*n+j] + a[i*n+j-1] + a[i*n+j+1]; }",
           "a:in:n*n-1 b:inout:n*n-n-1");
}

Test(infer, array_param_2d)
{
    expect("void f(int n, int m, double A[n][m], double B[n][m])"
           "{ for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) B[i][j] = A[i][j]; }",
           "A:in:m*n B:out:m*n");
}

Test(infer, array_param_const_3d)
{
    expect("void f(int n, const float A[n][n][n], float *s)"
           "{ float t = 0; for (int i = 0; i < n; i++) t += A[i][i][i]; s[0] = t; }",
           "A:in:n*n*n s:out:1");
}

Test(infer, array_param_unsized_outer)
{
    expect("void f(int n, int m, double A[][m])"
           "{ for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) A[i][j] = 0; }",
           "A:out:m*n");
}

Test(infer, triangular_lower)
{
    expect("void f(int n, const double *L, double *x)"
           "{ for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) x[i] += L[i*n+j]; }",
           "L:in:n*n x:inout:n");
}

Test(infer, triangular_packed_needs_clause)
{
    ch_entry_list l;
    ch_error err;
    const char *src = "\n#pragma harness\n"
                      "void f(int n, const double *a, double *s)"
                      "{ for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) s[i*(i-1)/2+j] = "
                      "a[j]; }\n";
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), -1);
    cr_expect_str_eq(err.msg, "t.c:3:102: error: cannot infer the extent of 's' in 'f': nothing "
                              "bounds this use of it (a sentinel loop or a moving pointer); add "
                              "extent(s: <number of elements>) to the #pragma harness at 2:1");
}

Test(infer, triangular_upper_from_i)
{
    expect("void f(int n, double *A)"
           "{ for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) A[i*n+j] = A[j*n+i]; "
           "}",
           "A:inout:n*n");
}

Test(infer, reduction_scalar_out)
{
    expect("void f(int n, const float *x, float *sum)"
           "{ float s = 0; for (int i = 0; i < n; i++) s += x[i]; *sum = s; }",
           "x:in:n sum:out:1");
}

Test(infer, reduction_into_element)
{
    expect("void f(int n, const double *x, double *r)"
           "{ r[0] = 0; for (int i = 0; i < n; i++) r[0] += x[i] * x[i]; }",
           "x:in:n r:out:1");
}

Test(infer, gather)
{
    expect("void f(int n, int m, const int *idx, const float *src, float *dst)"
           "{ for (int i = 0; i < m; i++) dst[i] = src[i]; for (int i = 0; i < n; i++) dst[i] = "
           "src[idx[i]]; }",
           "idx:in:n+idx<m src:in:m dst:out:(m > n ? m : n)");
}

Test(infer, scatter_add)
{
    expect("void f(int n, int m, const long *idx, const double *v, double *h)"
           "{ for (int j = 0; j < m; j++) h[j] = 0; for (int i = 0; i < n; i++) h[idx[i]] += "
           "v[i]; }",
           "idx:in:n+idx<m v:in:n h:inout:m");
}

/* b is read in a sibling loop of the one that wrote it: conservatively inout */
Test(infer, time_loop_swap)
{
    expect("void f(int T, int n, double *a, double *b)"
           "{ for (int t = 0; t < T; t++) { for (int i = 1; i < n-1; i++) b[i] = (a[i-1]+a[i+1])/2;"
           "  for (int i = 1; i < n-1; i++) a[i] = b[i]; } }",
           "a:inout:n b:inout:n-1");
}

Test(infer, size_t_loop_and_typedef)
{
    expect("typedef double real;\nvoid f(size_t n, const real *restrict x, real *restrict y)"
           "{ for (size_t i = 0; i < n; ++i) y[i] = 3.0 * x[i]; }",
           "x:in:n y:out:n");
}

Test(infer, local_bound_substituted)
{
    expect("void f(int m, int n, const float *a, float *b)"
           "{ int total = m * n; for (int i = 0; i < total; i++) b[i] = a[i]; }",
           "a:in:m*n b:out:m*n");
}

Test(infer, decreasing_loop)
{
    expect("void f(int n, const int *a, int *b)"
           "{ for (int i = n - 1; i >= 0; i--) b[n-1-i] = a[i]; }",
           "a:in:n b:out:n");
}

Test(infer, loop_var_declared_outside)
{
    expect("void f(int n, const float *a, float *b) { int i; for (i = 0; i < n; i += 1) b[i] = "
           "a[i]; }",
           "a:in:n b:out:n");
}

Test(infer, strided_access)
{
    expect("void f(int n, const float *a, float *b)"
           "{ for (int i = 0; i < n; i++) b[i] = a[2*i] + a[2*i+1]; }",
           "a:in:2*n b:out:n");
}

Test(infer, clause_overrides)
{
    ch_entry_list l;
    ch_error err;
    const char *src = "#pragma harness in(y) extent(x: n*2) inout(x)\n"
                      "void f(int n, float *x, float *y) { for (int i = 0; i < n; i++) x[i] = "
                      "y[i]; }\n";
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    char *got = summary(&l.items[0]);
    cr_expect_str_eq(got, "x:inout:2*n y:in:n");
    cr_expect(l.items[0].params[1].dir_explicit);
    cr_expect(l.items[0].params[1].extent_explicit);
    free(got);
    ch_entry_list_free(&l);
}

Test(infer, uninferable_extent_is_error)
{
    ch_entry_list l;
    ch_error err;
    const char *src = "#pragma harness\n"
                      "void f(int n, const int *p, const float *v, float *y)\n"
                      "{ for (int i = 0; i < n; i++) for (int k = p[i]; k < p[i+1]; k++) y[i] += "
                      "v[k]; }\n";
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), -1);
    cr_expect_str_eq(err.msg, "t.c:3:77: error: cannot infer the extent of 'v' in 'f': nothing "
                              "bounds this use of it (a sentinel loop or a moving pointer); add "
                              "extent(v: <number of elements>) to the #pragma harness at 1:1");
}

Test(infer, spmv_with_extent_clause)
{
    ch_entry_list l;
    ch_error err;
    const char *src =
        "#pragma harness extent(v: nnz, col: nnz, x: m)\n"
        "void f(int n, int m, int nnz, const int *p, const int *col, const float *v, const "
        "float *x, float *y)\n"
        "{ for (int i = 0; i < n; i++) { float s = 0; for (int k = p[i]; k < "
        "p[i+1]; k++) s += v[k] * x[col[k]]; y[i] = s; } }\n";
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    char *got = summary(&l.items[0]);
    cr_expect_str_eq(got, "p:in:n+1 col:in:nnz+idx<m v:in:nnz x:in:m y:out:n");
    free(got);
    ch_entry_list_free(&l);
}

Test(poly, simplify)
{
    const char *cases[][2] = {{"(m-1)*n+(n-1)+1", "m*n"},
                              {"n+1", "n+1"},
                              {"(n-2)+1+1", "n"},
                              {"2*(n+3)-6", "2*n"},
                              {"n*n-1+1", "n*n"},
                              {"(long)n*4/2", "2*n"},
                              {"0*n", "0"},
                              {"-n+2*n", "n"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *s = ch_poly_simplify(cases[i][0]);
        cr_expect_str_eq(s, cases[i][1], "%s", cases[i][0]);
        free(s);
    }
    cr_expect_null(ch_poly_simplify("n/3"));
    cr_expect_null(ch_poly_simplify("n<<1"));
}

/* CSR: rp's elements bound the k loop, whose counter subscripts val and col (extent nnz), so rp
 * is an offsets array with values in [0, nnz]; col subscripts x, so it is an index array into
 * [0, n). Test data for rp is non-decreasing from 0 to nnz (random values would send the
 * user's own reference out of bounds). */
Test(infer, csr_offsets_and_index_arrays)
{
    ch_entry_list l;
    ch_error err;
    const char *src =
        "#pragma harness extent(rp: m + 1, col: nnz, val: nnz, x: n, y: m)\n"
        "void spmv(int m, int n, int nnz, const int *rp, const int *col, const double *val, "
        "const double *x, double *y)\n{\n    for (int i = 0; i < m; i++) {\n        double s = 0;\n"
        "        for (int k = rp[i]; k < rp[i + 1]; k++)\n            s += val[k] * x[col[k]];\n"
        "        y[i] = s;\n    }\n}\n";
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    const ch_entry *e = &l.items[0];
    cr_assert_str_eq(ch_entry_param(e, "rp")->offsets_hi, "nnz");
    cr_assert_null(ch_entry_param(e, "col")->offsets_hi);
    cr_assert_str_eq(ch_entry_param(e, "col")->index_hi, "n");
    cr_assert_null(ch_entry_param(e, "val")->offsets_hi);

    ch_checklist c;
    cr_assert_eq(ch_checklist_derive(e, &c, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_checklist_validate(&c, &err), 0, "%s", err.msg);
    const ch_ck_param *rp = ch_checklist_param(&c, "rp");
    cr_assert_str_eq(rp->offsets_hi, "nnz");
    cr_assert_eq(rp->has_range, 0);
    ch_dataset d;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[0], 5, &d, &err), 0, "%s", err.msg);
    size_t irp = (size_t)(rp - c.params);
    long long nnz = -1;
    for (size_t i = 0; i < c.correctness[0].n; i++)
        if (strcmp(c.correctness[0].names[i], "nnz") == 0)
            nnz = c.correctness[0].values[i];
    const int *v = d.data[irp];
    cr_assert_gt(d.count[irp], 1);
    cr_assert_eq(v[0], 0);
    cr_assert_eq(v[d.count[irp] - 1], nnz);
    for (size_t k = 1; k < d.count[irp]; k++)
        cr_assert_leq(v[k - 1], v[k], "rp[%zu] = %d > rp[%zu] = %d", k - 1, v[k - 1], k, v[k]);
    ch_dataset_free(&d);
    ch_checklist_free(&c);
    ch_entry_list_free(&l);
}

/* A hostile extent() is a located error at the clause, never a crash or a wrong size. */
static void expect_extent_error(const char *extent, const char *want)
{
    ch_entry_list l;
    ch_error err;
    char *text = ch_xasprintf("#pragma harness extent(x: %s)\n"
                              "void f(int n, float *x) { for (int i = 0; i < n; i++) x[i] = 1; }\n",
                              extent);
    int rc = scan_text("t.c", text, CH_LANG_C, &l, &err);
    cr_expect_neq(rc, 0, "extent '%.40s' accepted", extent);
    if (rc != 0)
        cr_expect(strstr(err.msg, "t.c:1:24: error: bad extent(x: ...) of 'f'") &&
                      strstr(err.msg, want),
                  "%s", err.msg);
    else
        ch_entry_list_free(&l);
    free(text);
}

Test(infer, hostile_extents_are_located_errors)
{
    size_t deep = 50000;
    char *nested = ch_xcalloc(2 * deep + 2, 1);
    memset(nested, '(', deep);
    nested[deep] = 'n';
    memset(nested + deep + 1, ')', deep);
    expect_extent_error(nested, "nested too deeply");
    free(nested);
    expect_extent_error("3037000500*3037000500", "overflows 64 bits");
    expect_extent_error("n*3037000500*3037000500", "overflows 64 bits");
    expect_extent_error("0x1234567890123456789012345678901234567890", "too large for 64 bits");
    expect_extent_error("9223372036854775808", "too large for 64 bits");
    expect_extent_error("2-5", "negative");
}

Test(poly, bounded_and_checked)
{
    /* as deep as the limit still parses; one level more is refused, not a crash */
    char ok[2 * 256 + 2], bad[2 * 257 + 2];
    memset(ok, 0, sizeof ok);
    memset(ok, '(', 256);
    ok[256] = 'n';
    memset(ok + 257, ')', 256);
    char *s = ch_poly_simplify(ok);
    cr_expect_str_eq(s, "n");
    free(s);
    memset(bad, 0, sizeof bad);
    memset(bad, '(', 257);
    bad[257] = 'n';
    memset(bad + 258, ')', 257);
    cr_expect_null(ch_poly_simplify(bad));
    cr_expect_null(ch_poly_simplify("3037000500*3037000500"));
    cr_expect_null(ch_poly_simplify("-9223372036854775807-1-1"));
    s = ch_poly_simplify("3037000499*3037000499");
    cr_expect_str_eq(s, "9223372030926249001");
    free(s);
}
