/* Library variants (src/translate/library.c): which bodies the translator recognises as a GEMM
 * and maps to one cuBLAS call (operands, transposes, sizes, leading dimensions, alpha and beta),
 * which near misses it refuses, when tol() admits TF32, that the candidate compiles with nvcc,
 * and that the object check accepts its cuBLAS calls only because it declares the library. */
#include "ch/checklist.h"
#include "ch/fsutil.h"
#include "ch/translate.h"
#include "ch/verify.h"
#include "scan_helpers.h"

/* The model of "#pragma harness CLAUSES\nBODY"; the caller frees m and l. */
static ch_tr_model *model_of(const char *clauses, const char *body, ch_entry_list *l)
{
    ch_error err;
    char *text = ch_xasprintf("#pragma harness%s%s\n%s", *clauses ? " " : "", clauses, body);
    cr_assert_eq(scan_text("t.c", text, CH_LANG_C, l, &err), 0, "scan failed: %s", err.msg);
    free(text);
    cr_assert_eq(l->len, 1);
    ch_tr_model *m = NULL;
    cr_assert_eq(ch_tr_model_build(&l->items[0], &m, &err), 0, "model: %s", err.msg);
    return m;
}

/* The GEMM the body is, as "C=A^T*B (m n k) ld(a b c) alpha beta", or "none". */
static char *gemm_of(const char *body)
{
    ch_entry_list l;
    ch_tr_model *m = model_of("tol(1e-3)", body, &l);
    ch_tr_gemm g;
    char *got = ch_xstrdup("none");
    if (ch_tr_gemm_match(m, &g)) {
        free(got);
        got = ch_xasprintf("%s %s=%s%s*%s%s (%s %s %s) ld(%s %s %s) %s %s", ch_scalar_name(g.elem),
                           g.c, g.a, g.trans_a ? "^T" : "", g.b, g.trans_b ? "^T" : "", g.m, g.n,
                           g.k, g.lda, g.ldb, g.ldc, g.alpha, g.beta);
        ch_tr_gemm_free(&g);
    }
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return got;
}

static void expect_gemm(const char *body, const char *want)
{
    char *got = gemm_of(body);
    cr_expect_str_eq(got, want, "body:\n%s", body);
    free(got);
}

#define SIG                                                                                        \
    "void g(int ni, int nj, int nk, float alpha, float beta, float C[ni][nj], const float "        \
    "A[ni][nk], const float B[nk][nj], const float At[nk][ni], const float Bt[nj][nk])\n"

/* PolyBench's gemm: each row scaled by beta, then the sums over k with alpha; row-major sizes
 * and leading dimensions come from the loops and the declared row lengths. */
Test(translate_library, polybench_gemm)
{
    expect_gemm(SIG "{\n    for (int i = 0; i < ni; i++) {\n        for (int j = 0; j < nj; j++)\n"
                    "            C[i][j] *= beta;\n        for (int k = 0; k < nk; k++)\n"
                    "            for (int j = 0; j < nj; j++)\n"
                    "                C[i][j] += alpha * A[i][k] * B[k][j];\n    }\n}\n",
                "float C=A*B (ni nj nk) ld(nk nj nj) (alpha) (beta)");
}

/* Operands read across (A[k][i], B[j][k]) are transposes; the factors' order does not matter;
 * `C = C + ...` is an accumulation; C = 0 first is beta 0; no first statement is beta 1. */
Test(translate_library, transposes_and_forms)
{
    expect_gemm(SIG "{\n    for (int i = 0; i < ni; i++)\n        for (int j = 0; j < nj; j++)\n"
                    "            for (int k = 0; k < nk; k++)\n"
                    "                C[i][j] += Bt[j][k] * At[k][i];\n}\n",
                "float C=At^T*Bt^T (ni nj nk) ld(ni nk nj) 1 1");
    expect_gemm(SIG "{\n    for (int i = 0; i < ni; i++)\n        for (int j = 0; j < nj; j++) {\n"
                    "            C[i][j] = 0;\n            for (int k = 0; k < nk; k++)\n"
                    "                C[i][j] = C[i][j] + A[i][k] * 2.0f * B[k][j];\n        }\n}\n",
                "float C=A*B (ni nj nk) ld(nk nj nj) (2.0f) 0");
    expect_gemm(SIG "{\n    for (int j = 0; j < nj; j++)\n        for (int i = 0; i < ni; i++)\n"
                    "            C[i][j] = beta * C[i][j];\n    for (int k = 0; k < nk; k++)\n"
                    "        for (int i = 0; i < ni; i++)\n"
                    "            for (int j = 0; j < nj; j++)\n"
                    "                C[i][j] += A[i][k] * B[k][j];\n}\n",
                "float C=A*B (ni nj nk) ld(nk nj nj) 1 (beta)");
    expect_gemm("void d(int n, double C[n][n], const double A[n][n], const double B[n][n])\n{\n"
                "    for (int i = 0; i < n; i++)\n        for (int k = 0; k < n; k++)\n"
                "            for (int j = 0; j < n; j++)\n"
                "                C[i][j] += A[i][k] * B[k][j];\n}\n",
                "double C=A*B (n n n) ld(n n n) 1 1");
}

/* Flattened pointers split into rows by the model (C[i * nj + j]) are matrices too: the row
 * length comes from the split, the subscripts from the exact access relations. Two different
 * reads of one pointer, or an operand indexed by the wrong counters, are no GEMM. */
Test(translate_library, flattened_pointers)
{
    expect_gemm("void s(int ni, int nj, int nk, float alpha, const float *A, const float *B, "
                "float beta, float *C)\n{\n    for (int i = 0; i < ni; i++) {\n"
                "        for (int j = 0; j < nj; j++)\n            C[i * nj + j] *= beta;\n"
                "        for (int k = 0; k < nk; k++)\n            for (int j = 0; j < nj; j++)\n"
                "                C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];\n"
                "    }\n}\n",
                "float C=A*B (ni nj nk) ld(nk nj nj) (alpha) (beta)");
    expect_gemm("void s(int ni, int nj, int nk, const float *A, const float *B, float *C)\n{\n"
                "    for (int i = 0; i < ni; i++)\n        for (int j = 0; j < nj; j++)\n"
                "            for (int k = 0; k < nk; k++)\n"
                "                C[i * nj + j] += A[k * ni + i] * B[j * nk + k];\n}\n",
                "float C=A^T*B^T (ni nj nk) ld(ni nk nj) 1 1");
    char *got = gemm_of("void s(int n, const float *A, float *C)\n{\n"
                        "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
                        "            for (int k = 0; k < n; k++)\n"
                        "                C[i * n + j] += A[i * n + k] * A[k * n + j];\n}\n");
    cr_expect_str_eq(got, "none", "two reads of one pointer");
    free(got);
    got = gemm_of("void s(int n, const float *A, const float *B, float *C)\n{\n"
                  "    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n"
                  "            for (int k = 0; k < n; k++)\n"
                  "                C[i * n + j] += A[i * n + k] * B[k * n + i];\n}\n");
    cr_expect_str_eq(got, "none", "B indexed by (k, i)");
    free(got);
}

/* Near misses get no library candidate: an operand indexed by the wrong loops (not a
 * transpose), the output read as an operand (aliasing), mixed element types, an alpha of
 * another type, an update that is not a sum, a store that is not an accumulation, a triangular
 * loop, an extra statement, a scaling after the sums, a loop that does not start at 0. */
Test(translate_library, near_misses)
{
    const char *const bodies[] = {
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] += A[i][k] * Bt[j][i];\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] += C[i][k] * B[k][j];\n}\n",
        "void g(int n, float C[n][n], const double A[n][n], const float B[n][n])\n{\n"
        " for (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++)\n"
        "   for (int k = 0; k < n; k++)\n    C[i][j] += A[i][k] * B[k][j];\n}\n",
        "void g(int n, double a, float C[n][n], const float A[n][n], const float B[n][n])\n{\n"
        " for (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++)\n"
        "   for (int k = 0; k < n; k++)\n    C[i][j] += a * A[i][k] * B[k][j];\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] -= A[i][k] * B[k][j];\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] = A[i][k] * B[k][j];\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < i; k++)\n    C[i][j] += A[i][k] * B[k][j];\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++) {\n"
            "   C[i][j] *= beta;\n   C[i][j] += 1;\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] += A[i][k] * B[k][j];\n  }\n}\n",
        SIG "{\n for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] += A[i][k] * B[k][j];\n"
            " for (int i = 0; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   C[i][j] *= beta;\n}\n",
        SIG "{\n for (int i = 1; i < ni; i++)\n  for (int j = 0; j < nj; j++)\n"
            "   for (int k = 0; k < nk; k++)\n    C[i][j] += A[i][k] * B[k][j];\n}\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char *got = gemm_of(bodies[i]);
        cr_expect_str_eq(got, "none", "near miss %zu recognised:\n%s", i, bodies[i]);
        free(got);
    }
}

#define GEMM_BODY                                                                                  \
    "void gemm(int ni, int nj, int nk, float alpha, float beta, float C[ni][nj], const float "     \
    "A[ni][nk], const float B[nk][nj])\n{\n    for (int i = 0; i < ni; i++) {\n"                   \
    "        for (int j = 0; j < nj; j++)\n            C[i][j] *= beta;\n"                         \
    "        for (int k = 0; k < nk; k++)\n            for (int j = 0; j < nj; j++)\n"             \
    "                C[i][j] += alpha * A[i][k] * B[k][j];\n    }\n}\n"

static char *library_source(const char *clauses, ch_tr_precision prec)
{
    ch_entry_list l;
    ch_tr_model *m = model_of(clauses, GEMM_BODY, &l);
    char *src = ch_tr_library_cuda(m, prec, NULL);
    ch_tr_model_free(m);
    ch_entry_list_free(&l);
    return src;
}

/* TF32 only under a tol() of at least 4 * 2^-10; the native variant always. */
Test(translate_library, tf32_needs_tol)
{
    const struct {
        const char *clauses;
        int tf32;
    } cases[] = {{"", 0}, {"tol(1e-4)", 0}, {"tol(3e-3)", 0}, {"tol(4e-3)", 1}, {"tol(1e-2)", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *tf = library_source(cases[i].clauses, CH_TR_PREC_TF32);
        cr_expect_eq(tf != NULL, cases[i].tf32, "'%s': tf32 %s", cases[i].clauses,
                     tf ? "proposed" : "not proposed");
        if (tf) {
            cr_expect(strstr(tf, "ch-cc precision: tf32"));
            cr_expect(strstr(tf, "CUBLAS_COMPUTE_32F_FAST_TF32"));
        }
        free(tf);
        char *native = library_source(cases[i].clauses, CH_TR_PREC_NATIVE);
        cr_expect(native && strstr(native, "ch-cc precision: fp32") &&
                  strstr(native, "CUBLAS_COMPUTE_32F,"));
        free(native);
    }
}

/* nvcc -c of src into dir; the object's path (caller frees). */
static char *compile(const char *dir, const char *name, const char *src)
{
    char *cu = ch_xasprintf("%s/%s.cu", dir, name), *obj = ch_xasprintf("%s/%s.o", dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(cu, src, strlen(src), 0, &err), 0, "%s", err.msg);
    char *cmd =
        ch_xasprintf("nvcc -c -O2 -arch=sm_90 -Werror all-warnings -o '%s' '%s' 2>&1", obj, cu);
    cr_assert_eq(system(cmd), 0, "nvcc failed on %s:\n%s", name, src);
    free(cmd);
    free(cu);
    return obj;
}

/* Both precisions compile; their objects pass the object check because they declare cuBLAS,
 * and fail it without the declaration; a hand-written launcher calling cuBLAS without
 * declaring it is refused. */
Test(translate_library, compiles_and_passes_object_check, .timeout = 300)
{
    ch_error err;
    char *dir = ch_make_temp_dir("library-test", &err);
    cr_assert(dir, "%s", err.msg);
    for (int prec = CH_TR_PREC_NATIVE; prec <= CH_TR_PREC_TF32; prec++) {
        char *src = library_source("tol(1e-2)", (ch_tr_precision)prec);
        cr_assert(src);
        char *obj = compile(dir, prec ? "tf32" : "native", src);
        unsigned libs = ch_object_libraries_declared(src);
        cr_expect_eq(libs, CH_OBJECT_LIB_CUBLAS);
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        cr_expect_eq(ch_object_check_libs(obj, libs, &msg), 0, "%s", msg.data ? msg.data : "");
        ch_strbuf_reset(&msg);
        cr_expect_eq(ch_object_check(obj, &msg), 1, "cuBLAS passed without the declaration");
        cr_expect(msg.data && strstr(msg.data, "cublas"), "%s", msg.data ? msg.data : "");
        ch_strbuf_free(&msg);
        free(obj);
        free(src);
    }
    const char *sneaky =
        "#include <cublas_v2.h>\n"
        "extern \"C\" int s_device_launcher(int n, float *x)\n{\n"
        "    cublasHandle_t h;\n    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)\n"
        "        return 1;\n    return (int)cublasSscal(h, n, x, x, 1);\n}\n";
    char *obj = compile(dir, "sneaky", sneaky);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check_libs(obj, ch_object_libraries_declared(sneaky), &msg), 1,
                 "an undeclared cuBLAS call passed");
    ch_strbuf_free(&msg);
    free(obj);
    ch_remove_tree(dir, &err);
    free(dir);
}

/* Both precisions pass the static check (stage 0) against the entry's checklist: allowed
 * headers, the launcher's signature, a library call as the GPU work. */
Test(translate_library, passes_static_check)
{
    for (int prec = CH_TR_PREC_NATIVE; prec <= CH_TR_PREC_TF32; prec++) {
        ch_entry_list l;
        ch_tr_model *m = model_of("tol(1e-2)", GEMM_BODY, &l);
        char *src = ch_tr_library_cuda(m, (ch_tr_precision)prec, NULL);
        cr_assert(src);
        ch_checklist c;
        ch_error err;
        cr_assert_eq(ch_checklist_derive(&l.items[0], &c, &err), 0, "%s", err.msg);
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        cr_expect_eq(ch_static_check(&c, src, &msg, NULL), 0, "%s", msg.data ? msg.data : "");
        ch_strbuf_free(&msg);
        ch_checklist_free(&c);
        free(src);
        ch_tr_model_free(m);
        ch_entry_list_free(&l);
    }
}
