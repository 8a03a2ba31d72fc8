/* CPU-side verification: test-data synthesis, the comparator, the static checker's catalog and
 * the sandbox (time limit, environment scrub, directory isolation). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/sandbox.h"
#include "ch/verify.h"
#include "verify_fixture.h"

/* ---- synthesis ---- */

Test(data, deterministic_per_seed_and_new_seed_differs)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_dataset a, b, d;
    ch_error err;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[1], 42, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[1], 42, &b, &err), 0);
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[1], 43, &d, &err), 0);
    cr_assert_eq(a.count[2], 4099);
    cr_assert_eq(*(int *)a.data[0], 4099);
    cr_assert(memcmp(a.data[2], b.data[2], 4099 * sizeof(float)) == 0);
    cr_assert(memcmp(a.data[3], b.data[3], 4099 * sizeof(float)) == 0);
    cr_assert(memcmp(a.data[2], d.data[2], 4099 * sizeof(float)) != 0);
    cr_assert_neq(ch_fresh_seed(), ch_fresh_seed());
    ch_dataset_free(&a);
    ch_dataset_free(&b);
    ch_dataset_free(&d);
    fx_free(&c);
}

Test(data, respects_ranges_and_has_edge_values)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_dataset a;
    ch_error err;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[2], 7, &a, &err), 0);
    const float *x = a.data[2];
    int zero = 0, one = 0, mone = 0;
    for (size_t i = 0; i < a.count[2]; i++) {
        cr_assert(x[i] >= -1 && x[i] <= 1, "x[%zu]=%g out of range", i, x[i]);
        zero += x[i] == 0;
        one += x[i] == 1;
        mone += x[i] == -1;
    }
    cr_assert(zero > 0 && one > 0 && mone > 0, "edge values 0, 1, -1 present");
    float av = *(float *)a.data[1];
    cr_assert(av >= -2 && av <= 2, "scalar a from its range");
    cr_assert_null(a.data[3] == NULL ? (void *)1 : NULL, "inout y has data");
    ch_dataset_free(&a);
    fx_free(&c);
}

Test(data, index_arrays_within_bound_and_out_buffers_empty)
{
    ch_checklist c;
    fx_gather(&c);
    ch_dataset a;
    ch_error err;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[0], 1, &a, &err), 0, "%s", err.msg);
    const int *idx = a.data[3];
    int hit_last = 0;
    for (size_t i = 0; i < 1001; i++) {
        cr_assert(idx[i] >= 0 && idx[i] < 77, "idx[%zu]=%d", i, idx[i]);
        hit_last |= idx[i] == 76;
    }
    cr_assert(hit_last, "the whole index range is used");
    cr_assert_null(a.data[4], "out buffer has no input data");
    cr_assert_eq(a.count[4], 1001);
    cr_assert_eq(a.count[2], 77);
    ch_dataset_free(&a);
    fx_free(&c);
}

static int all_equal(const float *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[0])
            return 0;
    return 1;
}

/* attacks6/13, /21: sets random data never gives, for a trigger on them to meet */
Test(data, structured_shapes_give_uniform_buffers_round_scalars_and_equal_buffers)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        ch_dataset u;
        cr_assert_eq(
            ch_data_synthesize_shaped(&c, &c.correctness[1], seed, CH_DATA_UNIFORM, &u, &err), 0,
            "%s", err.msg);
        const float *x = u.data[2], *y = u.data[3];
        float a = *(float *)u.data[1];
        cr_assert(all_equal(x, u.count[2]) && all_equal(y, u.count[3]), "one value a buffer");
        cr_assert(x[0] != y[0], "x and y differ: %g %g", x[0], y[0]);
        cr_assert(x[0] >= -1 && x[0] <= 1 && y[0] >= -1 && y[0] <= 1, "within the range");
        cr_assert(a * 8 == floorf(a * 8) && a != 0 && fabsf(a) != 1 && fabsf(a) != 2,
                  "a round, not an edge value: %g", a);
        cr_assert_eq(*(int *)u.data[0], 4099, "sizes as the set says");
        ch_dataset_free(&u);
        ch_dataset e;
        cr_assert_eq(
            ch_data_synthesize_shaped(&c, &c.correctness[1], seed, CH_DATA_EQUAL, &e, &err), 0);
        cr_assert(memcmp(e.data[2], e.data[3], 4099 * sizeof(float)) == 0, "y equals x");
        cr_assert(!all_equal(e.data[2], 4099), "random values");
        ch_dataset_free(&e);
    }
    fx_free(&c);
    /* index arrays keep their structure */
    fx_gather(&c);
    ch_dataset g;
    cr_assert_eq(ch_data_synthesize_shaped(&c, &c.correctness[0], 3, CH_DATA_UNIFORM, &g, &err), 0);
    const int *idx = g.data[3];
    int varied = 0;
    for (size_t i = 1; i < g.count[3]; i++)
        varied |= idx[i] != idx[0];
    cr_assert(varied, "the index array is not filled with one value");
    const double *src = g.data[2];
    for (size_t i = 1; i < g.count[2]; i++)
        cr_assert_eq(src[i], src[0]);
    ch_dataset_free(&g);
    fx_free(&c);
}

Test(data, integer_ranges_and_unknown_extent_name)
{
    ch_checklist c;
    fx_histo(&c, 0);
    ch_dataset a;
    ch_error err;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[0], 3, &a, &err), 0);
    const unsigned char *v = a.data[1];
    int seen255 = 0;
    for (size_t i = 0; i < 1000; i++)
        seen255 |= v[i] == 255;
    cr_assert(seen255);
    cr_assert_eq(a.count[2], 256);
    ch_dataset_free(&a);
    free(c.params[2].extent);
    c.params[2].extent = ch_xstrdup("k");
    cr_assert_neq(ch_data_synthesize(&c, &c.correctness[0], 3, &a, &err), 0);
    cr_assert(strstr(err.msg, "extent of h"), "%s", err.msg);
    fx_free(&c);
}

/* ---- comparator ---- */

Test(compare, tolerance_edges_float)
{
    float ref[4] = {1, 2, 3, 4}, got[4] = {1, 2, 3, 4};
    ch_cmp_result r;
    cr_assert(ch_compare(CH_T_FLOAT, got, ref, 4, 1e-3, 0, &r));
    got[3] = 4.0f * (1 + 0.9e-3f); /* inside atol(rtol*rms) + rtol*|ref| */
    cr_assert(ch_compare(CH_T_FLOAT, got, ref, 4, 1e-3, 0, &r), "%s", r.message);
    got[3] = 4.1f;
    cr_assert_not(ch_compare(CH_T_FLOAT, got, ref, 4, 1e-3, 0, &r));
    cr_assert_eq(r.n_bad, 1);
    cr_assert_eq(r.first[0].index, 3);
    cr_assert(strstr(r.pattern, "tail from index 3"), "%s", r.pattern);
}

Test(compare, unwritten_tail_with_elements_that_happen_to_match)
{
    /* elements 768.. were never written; two of them already held the right value */
    enum { N = 1000 };
    static float ref[N], got[N];
    for (int i = 0; i < N; i++)
        ref[i] = got[i] = (float)(i % 97) + 1.0f;
    for (int i = 768; i < N; i++)
        if (i != 800 && i != 900)
            got[i] = -5.0f;
    ch_cmp_result r;
    cr_assert_not(ch_compare(CH_T_FLOAT, got, ref, N, 0, -1, &r));
    cr_assert_eq(r.n_bad, 230);
    cr_assert(strstr(r.pattern, "tail from index 768"), "%s", r.pattern);
    /* scattered errors stay scattered */
    for (int i = 0; i < N; i++)
        got[i] = ref[i] + (i % 7 == 0 && i % 3 == 0 ? 5.0f : 0.0f);
    got[N - 1] = -5.0f;
    cr_assert_not(ch_compare(CH_T_FLOAT, got, ref, N, 0, -1, &r));
    cr_assert_not(strstr(r.pattern, "tail"), "%s", r.pattern);
}

Test(compare, nan_and_inf_where_reference_finite_fail)
{
    double ref[3] = {1, 2, 3}, got[3] = {1, NAN, 3};
    ch_cmp_result r;
    cr_assert_not(ch_compare(CH_T_DOUBLE, got, ref, 3, 0, -1, &r));
    cr_assert_eq(r.n_nonfinite, 1);
    cr_assert(strstr(r.message, "NaN/Inf"), "%s", r.message);
    got[1] = INFINITY;
    cr_assert_not(ch_compare(CH_T_DOUBLE, got, ref, 3, 0, -1, &r));
    /* the reference's own NaN and Inf must be reproduced */
    double ref2[2] = {NAN, -INFINITY}, got2[2] = {NAN, -INFINITY};
    cr_assert(ch_compare(CH_T_DOUBLE, got2, ref2, 2, 0, -1, &r), "%s", r.message);
    got2[1] = INFINITY;
    cr_assert_not(ch_compare(CH_T_DOUBLE, got2, ref2, 2, 0, -1, &r));
}

Test(compare, negative_zero_and_denormals)
{
    float ref[3] = {0.0f, 1e-40f, 1.0f}, got[3] = {-0.0f, 1.1e-40f, 1.0f};
    ch_cmp_result r;
    cr_assert(ch_compare(CH_T_FLOAT, got, ref, 3, 0, -1, &r), "%s", r.message);
    /* denormal references alone: the relative part decides */
    float dref[3] = {1e-40f, 2e-40f, 3e-40f}, dgot[3] = {1e-40f, 2e-40f, 6e-40f};
    cr_assert_not(ch_compare(CH_T_FLOAT, dgot, dref, 3, 0, -1, &r));
}

Test(compare, all_zero_and_constant_fail_even_inside_tolerance)
{
    double ref[4] = {1e-9, -2e-9, 3e-9, 1e-9}, zero[4] = {0, 0, 0, 0};
    ch_cmp_result r;
    /* atol 1e-6 would accept zeros elementwise */
    cr_assert_not(ch_compare(CH_T_DOUBLE, zero, ref, 4, 1e-3, 1e-6, &r));
    cr_assert(r.all_zero, "%s", r.message);
    double cst[4] = {1e-9, 1e-9, 1e-9, 1e-9};
    cr_assert_not(ch_compare(CH_T_DOUBLE, cst, ref, 4, 1e-3, 1e-6, &r));
    cr_assert(r.constant, "%s", r.message);
    /* a reference that is itself zero/constant accepts the same */
    cr_assert(ch_compare(CH_T_DOUBLE, zero, zero, 4, 0, -1, &r));
    cr_assert(ch_compare(CH_T_DOUBLE, cst, cst, 4, 0, -1, &r));
}

Test(compare, integers_exact_and_stride_pattern)
{
    long long ref[64], got[64];
    for (int i = 0; i < 64; i++)
        ref[i] = got[i] = (1LL << 60) + i;
    ch_cmp_result r;
    cr_assert(ch_compare(CH_T_LLONG, got, ref, 64, 0.5, 10, &r));
    got[5] += 1; /* 2^60+6: a double cannot tell; bits can */
    cr_assert_not(ch_compare(CH_T_LLONG, got, ref, 64, 0.5, 10, &r));
    got[5] -= 1;
    for (int i = 3; i < 64; i += 16)
        got[i] = 0;
    cr_assert_not(ch_compare(CH_T_LLONG, got, ref, 64, 0, 0, &r));
    cr_assert(strstr(r.pattern, "every 16th"), "%s", r.pattern);
    int a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
    cr_assert(ch_compare(CH_T_INT, a, b, 4, 0, 0, &r));
    for (int i = 0; i < 4; i++)
        a[i] = -7;
    cr_assert_not(ch_compare(CH_T_INT, a, b, 4, 0, 0, &r));
    cr_assert(strstr(r.pattern, "everywhere"));
}

Test(compare, lower_precision_fails_double_default)
{
    double ref[100], got[100];
    for (int i = 0; i < 100; i++) {
        ref[i] = sin(i * 0.37) * 3.1;
        got[i] = (float)ref[i];
    }
    ch_cmp_result r;
    cr_assert_not(ch_compare(CH_T_DOUBLE, got, ref, 100, 0, -1, &r), "float rounding of double");
    cr_assert(ch_compare(CH_T_DOUBLE, got, ref, 100, 1e-6, -1, &r), "tol() override accepts");
}

/* ---- static checker ---- */

#define GOOD_KERNEL                                                                                \
    "#include <cuda_runtime.h>\n"                                                                  \
    "__global__ void k(int n, float a, const float *x, float *y)\n"                                \
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
#define GOOD_LAUNCHER_BODY                                                                         \
    "{\n  float *dx, *dy; size_t b = n * sizeof(float);\n"                                         \
    "  cudaMalloc(&dx, b); cudaMalloc(&dy, b);\n"                                                  \
    "  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice); cudaMemcpy(dy, y, b, "                        \
    "cudaMemcpyHostToDevice);\n"                                                                   \
    "  k<<<(n + 255) / 256, 256>>>(n, a, dx, dy);\n"                                               \
    "  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost); cudaFree(dx); cudaFree(dy);\n}\n"
#define GOOD_LAUNCHER                                                                              \
    "extern \"C\" void saxpy_launcher(int n, float a, const float *__restrict__ x, float "         \
    "*y)\n" GOOD_LAUNCHER_BODY

static const struct {
    const char *name, *src, *expect; /* expect NULL: accepted */
} catalog[] = {
    {"good", GOOD_KERNEL GOOD_LAUNCHER, NULL},
    {"good with comments mentioning fopen and main()",
     "// do not call fopen(\"x\") here, nor main()\n" GOOD_KERNEL "/* getenv( */\n" GOOD_LAUNCHER,
     NULL},
    {"good with extern C block and thrust header",
     "#include <thrust/device_vector.h>\n#include <vector>\n#include <cmath>\n" GOOD_KERNEL
     "extern \"C\" {\nvoid saxpy_launcher(int n, float a, const float *x, float "
     "*y)\n" GOOD_LAUNCHER_BODY "}\n",
     NULL},
    {"no launcher", GOOD_KERNEL, "no definition of the launcher saxpy_launcher"},
    {"not extern C",
     GOOD_KERNEL
     "void saxpy_launcher(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "not declared extern \"C\""},
    {"wrong parameter type",
     GOOD_KERNEL "extern \"C\" void saxpy_launcher(int n, double a, const float *x, float "
                 "*y)\n" GOOD_LAUNCHER_BODY,
     "parameter 2 (a) has type 'double', the entry needs 'float'"},
    {"missing const",
     GOOD_KERNEL
     "extern \"C\" void saxpy_launcher(int n, float a, float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "needs 'const float *'"},
    {"too few parameters",
     GOOD_KERNEL
     "extern \"C\" void saxpy_launcher(int n, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "type 'const float *', the entry needs 'float'"},
    {"defines main", GOOD_KERNEL GOOD_LAUNCHER "int main(void) { return 0; }\n", "defines main"},
    {"fopen", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { fopen(\"/tmp/x\", \"w\"); }\n",
     "calls fopen"},
    {"system", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { system(\"ls\"); }\n",
     "calls system"},
    {"popen", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { popen (\"ls\", \"r\"); }\n",
     "calls popen"},
    {"fork", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { fork(); }\n", "calls fork"},
    {"execve", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { execve(0, 0, 0); }\n",
     "calls execve"},
    {"socket", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { socket(2, 1, 0); }\n",
     "calls socket"},
    {"getenv", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { getenv(\"KEY\"); }\n",
     "calls getenv"},
    {"dlopen", GOOD_KERNEL GOOD_LAUNCHER "static void f(void) { dlopen(0, 0); }\n", "calls dlopen"},
    {"unistd header", "#include <unistd.h>\n" GOOD_KERNEL GOOD_LAUNCHER, "includes <unistd.h>"},
    {"fstream header", "#include <fstream>\n" GOOD_KERNEL GOOD_LAUNCHER, "includes <fstream>"},
    {"quoted include", "#include \"secret.h\"\n" GOOD_KERNEL GOOD_LAUNCHER, "only system headers"},
    {"no kernel",
     "#include <cuda_runtime.h>\nextern \"C\" void saxpy_launcher(int n, float a, const float "
     "*x, float *y)\n{ for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i]; }\n",
     "no __global__ kernel"},
    {"kernel never launched",
     GOOD_KERNEL "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
                 "{ cudaDeviceSynchronize(); }\n",
     "never launched"},
    {"host computes output",
     GOOD_KERNEL "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
                 "{\n  k<<<1, 1>>>(0, a, 0, 0);\n  for (int i = 0; i < n; i++)\n    y[i] += a * "
                 "x[i];\n}\n",
     "writes output 'y' on the host"},
    {"host computes output through *p",
     GOOD_KERNEL "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *out)\n"
                 "{\n  k<<<1, 1>>>(0, a, 0, 0);\n  *out = 1.0f;\n}\n",
     "writes output 'out' on the host"},
    {"host memset of output",
     GOOD_KERNEL "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
                 "{\n  k<<<1, 1>>>(0, a, 0, 0);\n  memset(y, 0, n * 4);\n}\n",
     "writes output 'y' on the host"},
    /* the launcher under the entry's own name, as users write it */
    {"named as the entry",
     GOOD_KERNEL
     "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     NULL},
    {"named as the entry, declared first",
     GOOD_KERNEL "extern \"C\" void saxpy(int n, float a, const float *x, float *y);\n"
                 "void saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     NULL},
    {"named as the entry, wrong parameter type",
     GOOD_KERNEL
     "extern \"C\" void saxpy(int n, double a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "parameter 2 (a) has type 'double', the entry needs 'float'"},
    {"named as the entry, too few parameters",
     GOOD_KERNEL "extern \"C\" void saxpy(int n, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "type 'const float *', the entry needs 'float'"},
    {"named as the entry, not extern C",
     GOOD_KERNEL "void saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "the launcher saxpy is not declared extern \"C\""},
    {"named as the entry, returns int",
     GOOD_KERNEL
     "extern \"C\" int saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "must return void"},
    {"named as the entry, host computes output",
     GOOD_KERNEL "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n"
                 "{\n  k<<<1, 1>>>(0, a, 0, 0);\n  for (int i = 0; i < n; i++)\n    y[i] = 0;\n}\n",
     "writes output 'y' on the host"},
    {"a kernel named as the entry is no launcher",
     "#include <cuda_runtime.h>\n"
     "extern \"C\" __global__ void saxpy(int n, float a, const float *x, float *y)\n"
     "{ int i = threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n",
     "no definition of the launcher saxpy_launcher(...) { ... } (or of a host function saxpy"},
    {"launcher declared but defined only under the entry's name",
     GOOD_KERNEL
     "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y);\n"
     "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY,
     "no definition of the launcher saxpy_launcher"},
};

Test(static_check, catalog)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++) {
        cJSON *d = NULL;
        int rc = ch_static_check(&c, catalog[i].src, &msg, &d);
        if (!catalog[i].expect) {
            cr_expect_eq(rc, 0, "%s: rejected: %s", catalog[i].name, msg.data);
        } else {
            cr_expect_eq(rc, 1, "%s: accepted", catalog[i].name);
            cr_expect(strstr(msg.data, catalog[i].expect) != NULL, "%s: message '%s'",
                      catalog[i].name, msg.data);
            cr_expect_not_null(d, "%s: details", catalog[i].name);
        }
        cJSON_Delete(d);
    }
    ch_strbuf_free(&msg);
    fx_free(&c);
}

Test(static_check, device_convention_allows_pointer_use_and_array_params_are_pointers)
{
    ch_checklist c;
    fx_jacobi(&c);
    const char *src = "#include <cuda_runtime.h>\n"
                      "__global__ void k(int n, int m, const double *a, double *b) { }\n"
                      "extern \"C\" void jacobi_launcher(int n, int m, const double *a, double *b)"
                      "\n{ k<<<1, 1>>>(n, m, a, b); }\n";
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_assert_eq(ch_static_check(&c, src, &msg, NULL), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    fx_free(&c);
}

/* The copy the verifier compiles and the emitted unit holds: NAME renamed NAME_launcher. */
Test(static_check, launcher_form_renames_the_entry_name_only)
{
    const char *src =
        "#include <thrust/saxpy.h>\n" /* a header name is no identifier */
        "// saxpy: the launcher\n"
        "__global__ void saxpy_kernel(int n) { }\n"
        "extern \"C\" void saxpy(int n, float a, const float *x, float *y);\n"
        "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n"
        "{\n  const char *why = \"saxpy\";\n  lib::saxpy(n); obj.saxpy(); p->saxpy();\n"
        "  saxpy_kernel<<<1, 1>>>(n);\n}\n";
    char *got = ch_candidate_launcher_form("saxpy", src);
    const char *want =
        "#include <thrust/saxpy.h>\n"
        "// saxpy: the launcher\n"
        "__global__ void saxpy_kernel(int n) { }\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y);\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
        "{\n  const char *why = \"saxpy\";\n  lib::saxpy(n); obj.saxpy(); p->saxpy();\n"
        "  saxpy_kernel<<<1, 1>>>(n);\n}\n";
    cr_expect_str_eq(got, want);
    free(got);

    /* a candidate with NAME_launcher, or one whose NAME is a kernel, is left as it is */
    const char *keep[] = {GOOD_KERNEL GOOD_LAUNCHER,
                          GOOD_KERNEL GOOD_LAUNCHER "static void saxpy(void) { }\n",
                          "__global__ void saxpy(int n, float *y) { y[0] = n; }\n",
                          "__device__ void saxpy(int n, float *y) { y[0] = n; }\n"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        got = ch_candidate_launcher_form("saxpy", keep[i]);
        cr_expect_str_eq(got, keep[i], "case %zu", i);
        free(got);
    }
    /* __host__ __device__ is a host function */
    got = ch_candidate_launcher_form("f", "__host__ __device__ void f(int n) { }\n");
    cr_expect_str_eq(got, "__host__ __device__ void f_launcher(int n) { }\n");
    free(got);
}

/* What stage 0 accepts in the entry-name form, stage 1 compiles: the renamed copy passes the
 * check as an ordinary NAME_launcher candidate. */
Test(static_check, launcher_form_passes_as_a_launcher)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    char *src = ch_candidate_launcher_form(
        "saxpy", GOOD_KERNEL
        "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n" GOOD_LAUNCHER_BODY);
    cr_expect(strstr(src, "void saxpy_launcher(int n") != NULL, "%s", src);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_static_check(&c, src, &msg, NULL), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    free(src);
    fx_free(&c);
}

/* ---- sandbox ---- */

Test(sandbox, wall_time_kills_the_process_group)
{
    ch_error err;
    char *dir = ch_make_temp_dir("sbtest", &err);
    cr_assert_not_null(dir);
    ch_sandbox_opts o = {0};
    o.dir = dir;
    o.wall_seconds = 0.5;
    o.allow_spawn = 1; /* a shell that forks: the filter would refuse it (test_sandbox.c) */
    char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
    ch_proc_result r;
    ch_proc_result_init(&r);
    cr_assert_eq(ch_sandbox_run(&o, argv, &r, &err), 0, "%s", err.msg);
    cr_assert(r.timed_out);
    cr_assert(r.wall_used < 5, "killed promptly (%.1f s)", r.wall_used);
    ch_proc_result_free(&r);
    ch_remove_tree(dir, &err);
    free(dir);
}

Test(sandbox, environment_scrubbed_home_is_the_dir)
{
    ch_error err;
    char *dir = ch_make_temp_dir("sbtest", &err);
    setenv("CH_TEST_SECRET_API_KEY", "sk-very-secret", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    ch_sandbox_opts o = {0};
    o.dir = dir;
    o.allow_spawn = 1; /* a shell that forks: the filter would refuse it (test_sandbox.c) */
    char *argv[] = {"sh", "-c", "env; echo PWD=$(pwd)", NULL};
    ch_proc_result r;
    ch_proc_result_init(&r);
    cr_assert_eq(ch_sandbox_run(&o, argv, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.exit_code, 0);
    cr_assert_null(strstr(r.out.data, "sk-very-secret"), "secret leaked: %s", r.out.data);
    cr_assert_null(strstr(r.out.data, "CH_TEST_SECRET"));
    cr_assert_not_null(strstr(r.out.data, "CUDA_VISIBLE_DEVICES=0"));
    cr_assert_not_null(strstr(r.out.data, "PATH="));
    char *home = ch_xasprintf("HOME=%s\n", dir);
    cr_assert_not_null(strstr(r.out.data, home), "%s", r.out.data);
    free(home);
    ch_proc_result_free(&r);
    ch_remove_tree(dir, &err);
    free(dir);
}

Test(sandbox, runs_in_its_directory_with_file_size_limit_and_runner)
{
    ch_error err;
    char *dir = ch_make_temp_dir("sbtest", &err);
    char *f = ch_path_join(dir, "input.bin");
    ch_write_file_atomic(f, "x", 1, 0, &err);
    ch_sandbox_opts o = {0};
    o.dir = dir;
    o.file_size_bytes = 4096;
    o.runner = "env CH_RUNNER_MARK=1";
    char *argv[] = {"sh", "-c",
                    "ls; echo mark=$CH_RUNNER_MARK; head -c 100000 /dev/zero > big 2>/dev/null; "
                    "wc -c < big",
                    NULL};
    ch_proc_result r;
    ch_proc_result_init(&r);
    cr_assert_eq(ch_sandbox_run(&o, argv, &r, &err), 0, "%s", err.msg);
    cr_assert_not_null(strstr(r.out.data, "input.bin"), "%s", r.out.data);
    cr_assert_not_null(strstr(r.out.data, "mark=1"), "runner prefix used");
    cr_assert_not_null(strstr(r.out.data, "4096"), "file size limited: %s", r.out.data);
    ch_proc_result_free(&r);
    ch_remove_tree(dir, &err);
    free(dir);
    free(f);
}

/* ---- testing at the constants (magic_sizes.c) ---- */

Test(magic, harvests_compared_constants_and_residues_not_comments_or_strings)
{
    ch_magic_consts k = {0};
    ch_magic_harvest("/* n == 424242 */ // n != 434343\n"
                     "const char *s = \"n == 5555\"; char q = '7';\n"
                     "if (n > 100000 && n % 7 == 3) k = 0;\n"
                     "if (0xF4243 == n || n % 4 == 0 || 1.5e3 < x) k = 1;\n"
                     "switch (m) { case 65537: break; }\n"
                     "for (int i = 0; i < n; i++) y[(i + 255) / 256] = 0;\n",
                     &k);
    long long want[] = {100000, 3, 1000003, 65537};
    cr_assert_eq(k.n_thr, 4, "thresholds: %zu", k.n_thr);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(k.thr[i], want[i], "threshold %zu: %lld", i, k.thr[i]);
    cr_assert_eq(k.n_res, 1, "residues: %zu (powers of two are not kept)", k.n_res);
    cr_expect(k.res[0].m == 7 && k.res[0].r == 3);
    /* a second source adds, without duplicates */
    ch_magic_harvest("if (n >= 100000 && n % 7 != 3 && n == 999983) return;", &k);
    cr_expect_eq(k.n_thr, 5);
    cr_expect_eq(k.thr[4], 999983);
    cr_expect_eq(k.n_res, 1);
}

/* attacks6/22: the threshold has a name, so only its definition holds the digits */
Test(magic, harvests_named_constants_wherever_they_are_defined)
{
    ch_magic_consts k = {0};
    ch_magic_harvest("static const int kBig = 100000000;\n"
                     "#define LIMIT (70001)\n"
                     "enum { EDGE = 0x3039, OTHER };\n"
                     "constexpr long kWide{123457};\n"
                     "if (n > kBig && last) return;\n"
                     "if (LIMIT <= n) return;\n"
                     "switch (n) { case EDGE: break; }\n"
                     "if (n == kWide) return;\n"
                     "if (n > kUnknown) return;\n"
                     "int kUnused = 777777;\n"
                     "if (n == LATE) return;\n"
                     "#define LATE 4243\n",
                     &k);
    long long want[] = {100000000, 70001, 12345, 123457, 4243};
    cr_assert_eq(k.n_thr, 5, "thresholds: %zu", k.n_thr);
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(k.thr[i], want[i], "threshold %zu: %lld", i, k.thr[i]);
}

/* attacks8 #49: a size tested against a power of two by a shift, in a reference */
Test(magic, harvests_the_powers_of_two_a_reference_shifts_by)
{
    ch_magic_consts k = {0};
    ch_magic_harvest_shifts("int m = (n >> 21) ? (1 << 21) : n; /* n >> 9 */\n"
                            "int w = (1u << 12) + (x << 3) + (n >> 1) + (n >> 50);\n",
                            &k);
    long long want[] = {1LL << 21, 1LL << 12};
    cr_assert_eq(k.n_thr, 2, "thresholds: %zu", k.n_thr);
    for (size_t i = 0; i < 2; i++)
        cr_expect_eq(k.thr[i], want[i], "threshold %zu: %lld", i, k.thr[i]);
}

/* attacks8 #48: the literals compared with, in either order, floating or not, exponents whole */
Test(magic, values_are_the_literals_beside_a_comparison)
{
    double v[CH_MAGIC_MAX_CONSTS];
    size_t n = ch_magic_values("if (!(x[i] > 100.0f)) y[i] = 0; /* x < 7 */\n"
                               "if (2.5e-3 >= d && k == 12 && x[i] < 0 && z != 1) return;\n"
                               "y[i] = 3.0 * x[i] + 1e30;\n",
                               v, CH_MAGIC_MAX_CONSTS);
    double want[] = {100.0, 2.5e-3, 12};
    cr_assert_eq(n, 3, "values: %zu", n);
    for (size_t i = 0; i < 3; i++)
        cr_expect_eq(v[i], want[i], "value %zu: %g", i, v[i]);
}

/* A threshold the reference computes from literals or names rather than spells: the value it
 * compares with, not its first literal (a reference skipping x > 50.0f * 2 draws x at 100) */
Test(magic, values_are_computed_from_the_constants_beside_a_comparison)
{
    double v[CH_MAGIC_MAX_CONSTS];
    size_t n = ch_magic_values("#define LIMIT 40\n"
                               "if (!(x[i] > 50.0f * 2)) y[i] = 0;\n"
                               "if ((LIMIT + 2) / 2 <= x[i] || x[i] < -(3e2 - 50)) return;\n"
                               "if (x[i] < 5 - z) y[i] = 1;\n",
                               v, CH_MAGIC_MAX_CONSTS);
    double want[] = {100.0, 21.0, -250.0, 5.0};
    cr_assert_eq(n, 4, "values: %zu", n);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(v[i], want[i], "value %zu: %g", i, v[i]);
}

static void expect_sizes(const ch_ck_size *got, size_t n, const long long *want, size_t nw)
{
    cr_assert_eq(n, nw, "%zu sizes, want %zu", n, nw);
    for (size_t i = 0; i < n; i++) {
        long long v = -1;
        cr_expect_eq(ch_ck_size_get(&got[i], "n", &v), 0);
        cr_expect_eq(v, want[i], "size %zu: n=%lld, want %lld", i, v, want[i]);
    }
}

Test(magic, sizes_hit_residues_next_to_thresholds_then_each_side_within_bounds)
{
    ch_checklist c;
    fx_saxpy(&c, 0); /* correctness sizes n = 1000, 4099, 100003 */
    ch_magic_consts k = {0};
    ch_magic_harvest("if (n > 100000 && n % 7 == 3) a = 0;", &k); /* ref01 */
    ch_ck_size out[CH_MAGIC_MAX_SIZES];
    size_t n = ch_magic_sizes(&c, &k, 1e9, out, CH_MAGIC_MAX_SIZES);
    /* 3 mod 7 just above and below 100000, above 3; then 100000 and its neighbours */
    long long want[] = {100005, 99998, 10, 100000, 100001, 99999};
    expect_sizes(out, n, want, 6);
    for (size_t i = 0; i < n; i++)
        ch_ck_size_free(&out[i]);
    /* bounded by the bytes a test may use (8 bytes an element): the large ones drop out, and a
     * size the checklist already has (4099) is not repeated */
    ch_magic_consts k2 = {0};
    ch_magic_harvest("if (n == 999983 || n > 4099) a = 0;", &k2);
    n = ch_magic_sizes(&c, &k2, 8.0 * 50000, out, CH_MAGIC_MAX_SIZES);
    long long want2[] = {4100, 4098};
    expect_sizes(out, n, want2, 2);
    for (size_t i = 0; i < n; i++)
        ch_ck_size_free(&out[i]);
    /* nothing compared: no extra size */
    ch_magic_consts none = {0};
    ch_magic_harvest("for (int i = 0; i < n; i++) y[i] += a * x[i];", &none);
    cr_expect_eq(ch_magic_sizes(&c, &none, 1e9, out, CH_MAGIC_MAX_SIZES), 0);
    fx_free(&c);
}
