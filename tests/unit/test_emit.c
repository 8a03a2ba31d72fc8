/* Emit: the host copy of the user's file, the generated unit's dispatcher, the size measure
 * and the dispatch threshold, and the nvcc + ld -r path (when nvcc is installed). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "ch/checklist.h"
#include "emit_fixture.h"
#include "scan_helpers.h"

static const char saxpy_src[] = "#include <stddef.h>\n"
                                "#pragma harness tune(n = 1000)\n"
                                "void saxpy(int n, float a, const float *x, float *y)\n"
                                "{\n"
                                "    for (int i = 0; i < n; i++)\n"
                                "        y[i] = a * x[i] + y[i];\n"
                                "}\n"
                                "void caller(float *y);\n"
                                "void caller(float *y) { saxpy(1, 2.0f, y, y); }\n";

static const char jacobi_src[] =
    "#pragma harness\n"
    "void jacobi(int steps, int n, double A[n][n], double B[n][n])\n"
    "{\n"
    "    for (int t = 0; t < steps; t++)\n"
    "        for (int i = 1; i < n - 1; i++)\n"
    "            for (int j = 1; j < n - 1; j++)\n"
    "                B[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);\n"
    "}\n";

static ch_entry_list scan_one(const char *name, const char *src)
{
    ch_entry_list l;
    ch_error err = {0};
    cr_assert_eq(scan_text(name, src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    cr_assert_eq(l.len, 1);
    return l;
}

static int count_lines(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\n';
    return n;
}

Test(emit, host_source_renames_the_definition_and_keeps_lines)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    const ch_entry *e = &l.items[0];
    size_t len = 0;
    char *host = ch_emit_host_source(saxpy_src, strlen(saxpy_src), &e, 1, 1, &len);
    cr_assert_eq(count_lines(host, len), count_lines(saxpy_src, strlen(saxpy_src)),
                 "line numbers must stay the user's:\n%s", host);
    /* the pragma line became the host name's prototype; the definition carries the host name */
    cr_assert(strstr(host, "\nvoid saxpy__host(int n, float a, const float *x, float *y);\n"), "%s",
              host);
    cr_assert(strstr(host, "\nvoid saxpy__host(int n, float a, const float *x, float *y)\n{"), "%s",
              host);
    /* later calls in the file reach the dispatcher: the user's name is declared after the body */
    cr_assert(strstr(host, "} void saxpy(int n, float a, const float *x, float *y);\n"), "%s",
              host);
    cr_assert(strstr(host, "saxpy(1, 2.0f, y, y)"), "%s", host);
    cr_assert_null(strstr(host, "#pragma"));
    free(host);
    /* without entries to rename, only the pragma is blanked */
    host = ch_emit_host_source(saxpy_src, strlen(saxpy_src), NULL, 0, 1, &len);
    cr_assert_eq(len, strlen(saxpy_src));
    cr_assert_null(strstr(host, "__host"));
    cr_assert_null(strstr(host, "#pragma"));
    free(host);
    ch_entry_list_free(&l);
}

Test(emit, size_measure_counts_buffers_and_time_steps)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    char *plain = NULL, *c_expr = NULL;
    cr_assert_eq(ch_emit_size_expr(&l.items[0], &plain, &c_expr), 0);
    cr_assert_str_eq(plain, "(n) + (n)");
    cr_assert_str_eq(c_expr, "((double)((long long)n) + (double)((long long)n))");
    free(plain);
    free(c_expr);
    ch_entry_list_free(&l);
    /* the time-step count multiplies the work; products widen before they can overflow int */
    l = scan_one("j.c", jacobi_src);
    cr_assert_eq(ch_emit_size_expr(&l.items[0], &plain, &c_expr), 0);
    cr_assert_str_eq(plain, "((n*n) + (n*n)) * (steps)");
    cr_assert_str_eq(c_expr, "((double)((long long)n*(long long)n) + "
                             "(double)((long long)n*(long long)n)) * (double)steps");
    ch_ck_size sz = {0};
    ch_ck_size_set(&sz, "n", 100);
    ch_ck_size_set(&sz, "steps", 3);
    long long v = 0;
    ch_error err;
    cr_assert_eq(ch_checklist_eval(plain, &sz, &v, &err), 0, "%s", err.msg);
    cr_assert_eq(v, 60000);
    ch_ck_size_free(&sz);
    free(plain);
    free(c_expr);
    ch_entry_list_free(&l);
}

/* PolyBench passes constant-size arrays and its sizes as int parameters: every one of them
 * multiplies the measure, and five of them overflow 64 bits. The measure is taken in double. */
Test(emit, size_measure_of_many_size_parameters_does_not_overflow)
{
    ch_entry_list l = scan_one("m.c", "#pragma harness\n"
                                      "void k3(int ni, int nj, int nk, int nl, int nm,\n"
                                      "        double A[800][1000], double G[800][1100])\n"
                                      "{\n"
                                      "    for (int i = 0; i < ni; i++)\n"
                                      "        for (int j = 0; j < nj + nk + nl + nm; j++)\n"
                                      "            G[i][j % 1100] += A[i][j % 1000];\n"
                                      "}\n");
    ch_ck_size sz = {0};
    const char *names[] = {"ni", "nj", "nk", "nl", "nm"};
    for (int i = 0; i < 5; i++)
        ch_ck_size_set(&sz, names[i], 4000);
    double v = 0;
    cr_assert_eq(ch_emit_size_eval(&l.items[0], &sz, &v), 0);
    cr_assert_float_eq(v, (800.0 * 1000 + 800.0 * 1100) * 4000.0 * 4000 * 4000 * 4000 * 4000, 1e9);
    /* and it grows with each size: the order the dispatcher compares by */
    double smaller = 0;
    ch_ck_size_set(&sz, "nm", 3999);
    cr_assert_eq(ch_emit_size_eval(&l.items[0], &sz, &smaller), 0);
    cr_assert_lt(smaller, v);
    ch_ck_size_free(&sz);
    ch_entry_list_free(&l);
}

Test(emit, dispatch_threshold_from_the_measurements)
{
    /* no measurement: always the GPU */
    cr_assert_eq(ch_emit_gpu_min_size(1e6, -1, 2.0, 0.05), 0);
    cr_assert_eq(ch_emit_gpu_min_size(0, 10, 2.0, 0.05), 0);
    /* host faster per element (a copy-bound kernel): never the GPU */
    cr_assert_eq(ch_emit_gpu_min_size(1e6, 1.5, 2.0, 0.05), LLONG_MAX);
    /* the GPU wins from where its fixed cost is paid back: 0.05 / (10e-6 - 1.95e-6) = 6212 */
    long long at = ch_emit_gpu_min_size(1e6, 10.0, 2.0, 0.05);
    cr_assert(at >= 6200 && at <= 6220, "%lld", at);
    /* a small call no cheaper than the tune one, or none measured: no fixed cost is known, so
     * the GPU only where it was measured to win (from the tune size), never extrapolated down */
    cr_assert_eq(ch_emit_gpu_min_size(1e6, 10.0, 2.0, 3.0), 1000000);
    cr_assert_eq(ch_emit_gpu_min_size(1e6, 10.0, 2.0, -1), 1000000);
    cr_assert_eq(ch_emit_gpu_min_size(1e6, 1.0, 2.0, -1), LLONG_MAX);
    /* the host won at the tune size though the GPU is cheaper per element: the crossing would
     * lie past the tune size, where nothing was measured */
    cr_assert_eq(ch_emit_gpu_min_size(1e6, 1.9, 2.0, 0.5), LLONG_MAX);
}

/* The host path's time and the whole GPU call at each size (ms). */
static long long curve(const double *size, const double *host, const double *gpu, size_t n)
{
    ch_dispatch_point p[8];
    for (size_t i = 0; i < n; i++)
        p[i] = (ch_dispatch_point){size[i], host[i], gpu[i]};
    return ch_emit_dispatch_threshold(p, n);
}

Test(emit, curve_threshold_at_the_crossing_between_measured_points)
{
    /* saxpy-like: the host wins at 1e3 (advantage -0.05), the GPU at 1e5 (+0.5) and 1e7 */
    double size[] = {1e7, 1e3, 1e5}, host[] = {40.0, 0.001, 0.6}, gpu[] = {17.0, 0.051, 0.1};
    long long at = curve(size, host, gpu, 3);
    /* the advantage crosses 0 on the first segment: taken linear, at 1e3 + 0.05 * 99000 / 0.55
     * = 10000; the times taken as power laws (host ~ s^1.389, GPU ~ s^0.146 between the two
     * points) meet at 1e3 * 51^(1 / 1.243) = 23600: the later one, since nothing between the
     * points was measured */
    cr_assert(at >= 23400 && at <= 23800, "%lld", at);
    /* a straight line through two points would have said never the GPU here: the tune point
     * alone is not the curve */
    cr_assert(at > 1000 && at < 100000);
}

Test(emit, curve_host_always_faster_never_the_gpu)
{
    double size[] = {1e3, 1e5, 1e7}, host[] = {0.001, 0.1, 10.0}, gpu[] = {0.05, 0.3, 30.0};
    cr_assert_eq(curve(size, host, gpu, 3), LLONG_MAX);
}

Test(emit, curve_gpu_always_faster_from_the_smallest_measured_size)
{
    /* the GPU wins at every measured size: from the smallest one, not extrapolated below it
     * (the first segment would cross under 0, but the GPU's fixed cost is not paid back by
     * fewer elements than were measured) */
    double size[] = {1e3, 1e5, 1e7}, host[] = {1.0, 50.0, 5000.0}, gpu[] = {0.5, 1.0, 20.0};
    cr_assert_eq(curve(size, host, gpu, 3), 1000);
    double h2[] = {0.2, 2.0, 200.0}, g2[] = {0.1, 1.0, 100.0};
    cr_assert_eq(curve(size, h2, g2, 3), 1000);
    /* one point: the GPU from its size if it won there, else never */
    cr_assert_eq(curve(size + 1, host + 1, gpu + 1, 1), 100000);
    cr_assert_eq(curve(size + 1, gpu + 1, host + 1, 1), LLONG_MAX);
    /* a fractional size measure: the first whole size at or above it */
    double s3[] = {2.5, 10}, h3[] = {1, 2}, g3[] = {0.5, 1};
    cr_assert_eq(curve(s3, h3, g3, 2), 3);
}

/* A host path cheap per element in the caches (convex curve): measured at 1e3, 1e5, 1e6 the
 * linear advantage between 1e3 and 1e5 crosses early, the power laws later; the threshold is
 * never before the later one, and between the two crossings the linear model would have sent
 * calls to a slower GPU. */
Test(emit, curve_between_points_takes_the_later_crossing)
{
    double size[] = {1e3, 1e5, 1e6}, host[] = {0.0005, 0.2, 4.0}, gpu[] = {0.05, 0.1, 0.6};
    long long at = curve(size, host, gpu, 3);
    /* linear: 1e3 + 0.0495 * 99000 / 0.1495 = 33779; power: host ~ s^1.301, GPU ~ s^0.151,
     * 1e3 * 100^(1 / 1.151) = 54700 */
    cr_assert(at > 54000 && at < 55500, "%lld", at);
    /* never past the point where the GPU was measured to win */
    cr_assert_leq(at, 100000);
}

Test(emit, curve_noisy_points_never_gpu_where_the_host_measured_faster)
{
    /* GPU wins at 1e3, loses at 1e5 (noise or a cache effect), wins at 1e6 and 1e7: the
     * threshold is past the measured loss, at the crossing of the 1e5..1e6 segment */
    double size[] = {1e3, 1e5, 1e6, 1e7}, host[] = {0.1, 0.5, 5.0, 50.0},
           gpu[] = {0.05, 0.6, 1.0, 10.0};
    long long at = curve(size, host, gpu, 4);
    /* linear 1e5 + 0.1 * 9e5 / 4.1 = 121951, power laws 1e5 * 1.2^(1 / 0.778) = 126400 */
    cr_assert(at > 125000 && at < 128000, "%lld", at);
    /* the host wins at the largest size, even if the GPU's advantage grows there: past the
     * largest size nothing was measured, so never the GPU */
    double s2[] = {1e3, 1e5, 1e6}, h3[] = {0.1, 0.4, 4.0}, g3[] = {0.05, 1.0, 4.5};
    cr_assert_eq(curve(s2, h3, g3, 3), LLONG_MAX);
    /* the host wins at the largest size and the last segment does not cross: never */
    double g4[] = {0.05, 0.3, 6.0};
    cr_assert_eq(curve(s2, h3, g4, 3), LLONG_MAX);
    /* unmeasured points (negative times) are ignored; none left: always the GPU */
    double hneg[] = {-1, -1, -1};
    cr_assert_eq(curve(s2, hneg, g4, 3), 0);
}

/* a candidate exporting both launchers, as the translator writes them */
static const char saxpy_device_kernel[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(int n, float a, const float *x, float *y)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
    "/* the kernels alone: saxpy_device_launcher(n, a, x, y) { ... } in a comment is no "
    "definition */\n"
    "extern \"C\" int saxpy_device_launcher(int n, float a, const float *__restrict__ x,\n"
    "                                     float *y)\n"
    "{\n"
    "    if (n > 0)\n"
    "        k<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
    "    return (int)cudaGetLastError();\n"
    "}\n"
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    float *dx, *dy;\n"
    "    size_t b = (size_t)n * sizeof(float);\n"
    "    if (cudaMalloc(&dx, b + 4) || cudaMalloc(&dy, b + 4))\n"
    "        return;\n"
    "    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);\n"
    "    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);\n"
    "    if (saxpy_device_launcher(n, a, dx, dy) == 0 && cudaDeviceSynchronize() == 0)\n"
    "        cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);\n"
    "    cudaFree(dx);\n"
    "    cudaFree(dy);\n"
    "}\n";

Test(emit, dispatcher_uses_the_threshold_and_private_names)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    ch_emit_kernel k = {&l.items[0], saxpy_device_kernel, NULL, "test",
                        NULL,        "((long long)n)",    4096, {0, 0, 0, 0}};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, "double ch_size = ((long long)n);"), "%s", out.data);
    cr_assert(strstr(out.data, "int large = ch_saxpy_force || ch_size >= 4096.0;"), "%s", out.data);
    /* CH_CC_TRACE says each call's size, the threshold and the choice */
    cr_assert(strstr(out.data, "size %.0f, GPU from 4096 (measured curve): %s"), "%s", out.data);
    /* the candidate is read as verification read it: after the candidate's headers and no
     * macro of the unit, as candidate.cu from its line 1; the private names come later, in
     * the object (ch_emit_private_names) */
    const char *cand = strstr(out.data, "#line 1 \"candidate.cu\"\n");
    cr_assert(cand, "%s", out.data);
    cr_assert(strncmp(cand + strlen("#line 1 \"candidate.cu\"\n"), saxpy_device_kernel,
                      strlen(saxpy_device_kernel)) == 0,
              "%s", out.data);
    cr_assert_null(strstr(out.data, "#define saxpy_launcher"), "%s", out.data);
    for (const char *d = strstr(out.data, "#define"); d; d = strstr(d + 1, "#define"))
        cr_assert(d > cand, "a macro before the candidate: %s", out.data);
    cr_assert(strstr(cand, "#line "), "the unit's own lines again after the candidate");
    cr_assert(strstr(out.data, "extern \"C\" void saxpy__host("), "%s", out.data);
    ch_strbuf_reset(&out);
    k.gpu_min_size = LLONG_MAX;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, "int large = ch_saxpy_force;"), "%s", out.data);
    cr_assert(strstr(out.data, "the host path measured faster"), "%s", out.data);
    ch_strbuf_reset(&out);
    k.gpu_min_size = 0;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, "int large = 1;"), "%s", out.data);
    ch_strvec priv;
    ch_strvec_init(&priv);
    ch_emit_private_symbols(&l.items[0], &priv);
    cr_assert_eq(priv.len, 4);
    cr_assert_str_eq(priv.items[0], "saxpy__host");
    cr_assert_str_eq(priv.items[1], "saxpy__ch_launcher");
    cr_assert_str_eq(priv.items[3], "saxpy__ch_device_launcher");
    ch_strvec_free(&priv);
    ch_strbuf_free(&out);
    ch_entry_list_free(&l);
}

/* ---- the GPU path through the trusted runtime ---- */

Test(emit, device_launcher_definitions_are_told_from_mentions)
{
    cr_assert(ch_emit_has_device_launcher(saxpy_device_kernel, "saxpy"));
    cr_assert_not(ch_emit_has_device_launcher(saxpy_device_kernel, "sax"));
    cr_assert_not(ch_emit_has_device_launcher("extern \"C\" int f_device_launcher(int n);\n"
                                              "void g(void) { f_device_launcher(3); }\n",
                                              "f"),
                  "a prototype and a call are no definition");
    cr_assert_not(ch_emit_has_device_launcher("// int f_device_launcher(int n) {}\n"
                                              "const char *s = \"f_device_launcher(int) {\";\n",
                                              "f"));
    cr_assert(ch_emit_has_device_launcher("int f_device_launcher(int n /* (x) */, int (*g)(int))"
                                          " /* c */ {\n  return 0;\n}\n",
                                          "f"));
    cr_assert_not(ch_emit_has_device_launcher(NULL, "f"));
}

/* Issue 15: a verified candidate without NAME_device_launcher copies the caller's data itself;
 * a user's program never hands it the caller's pointers: the unit is the host path alone, with
 * the reason in CH_CC_TRACE's line, and none of the candidate's code. A `device` entry's
 * launcher gets the caller's device pointers as before. */
Test(emit, no_device_launcher_means_the_host_path)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    const char *own = "#include <cuda_runtime.h>\n__global__ void k(float *y) { y[0] = 1; }\n"
                      "extern \"C\" void saxpy_launcher(int n, float a, const float *x, "
                      "float *y) { k<<<1, 1>>>(y); }\n";
    ch_emit_kernel k = {&l.items[0], own, NULL, "test", "0123", "((long long)n)", 0, {0, 0, 0, 0}};
    char *why = ch_emit_gpu_refusal(&l.items[0], own);
    cr_assert_not_null(why);
    cr_assert_str_eq(why, "the candidate copies the caller's data itself (no "
                          "saxpy_device_launcher); ch-cc links only kernels whose data the "
                          "trusted runtime moves");
    cr_assert_null(ch_emit_gpu_refusal(&l.items[0], saxpy_device_kernel));
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    const char *want[] = {
        "extern \"C\" void saxpy(int n, float a, const float *x, float *y)\n{\n",
        "        fprintf(stderr, \"ch-cc: saxpy: host (%s)\\n\", \"the candidate copies the "
        "caller's data itself (no saxpy_device_launcher); ch-cc links only kernels whose data "
        "the trusted runtime moves\");\n"
        "    saxpy__host(n, a, x, y);\n}\n",
        "/* cache key 0123 */",
    };
    expect_all_in(out.data, want, sizeof want / sizeof *want);
    /* none of the candidate: no kernel, no launcher, no CUDA call */
    cr_assert_null(strstr(out.data, "__global__"), "%s", out.data);
    cr_assert_null(strstr(out.data, "saxpy_launcher"), "%s", out.data);
    cr_assert_null(strstr(out.data, "cuda"), "%s", out.data);
    free(why);
    char *nvcc = find_nvcc();
    if (nvcc) { /* it compiles, and the object check of units passes it */
        char *dir = ch_make_temp_dir("emit", &err);
        free(compile_unit(&k, nvcc, dir));
        ch_remove_tree(dir, &err);
        free(dir);
        free(nvcc);
    }

    /* an unknown extent: the runtime cannot size the copies, so the host path too */
    ch_entry_list nx;
    cr_assert_eq(scan_text("u.c",
                           "#pragma harness\nvoid u(int n, const float *x, float *y)\n"
                           "{\n    for (int i = 0; i < n; i++)\n        y[i] = x[i];\n}\n",
                           CH_LANG_C, &nx, &err),
                 0, "%s", err.msg);
    free(nx.items[0].params[1].extent);
    nx.items[0].params[1].extent = NULL;
    why = ch_emit_gpu_refusal(&nx.items[0], "int u_device_launcher(int n, const float *x, "
                                            "float *y) { return 0; }\n");
    cr_assert(why && strstr(why, "a buffer's extent is unknown"), "%s", why ? why : "(none)");
    free(why);
    ch_entry_list_free(&nx);

    /* `device`: the caller's pointers are device memory, and the candidate's launcher takes them */
    ch_entry_list sd;
    cr_assert_eq(scan_text("d.c",
                           "#pragma harness \"y = 2x\" device extent(x: n, y: n)\n"
                           "void twice(int n, const float *x, float *y);\n",
                           CH_LANG_C, &sd, &err),
                 0, "%s", err.msg);
    const char *dk = "extern \"C\" void twice_launcher(int n, const float *x, float *y) {}\n";
    cr_assert_null(ch_emit_gpu_refusal(&sd.items[0], dk));
    ch_emit_kernel kd = {&sd.items[0],
                         dk,
                         "void twice_reference(int n, const float *x, float *y) "
                         "{}\n",
                         NULL,
                         NULL,
                         NULL,
                         0,
                         {0, 0, 0, 0}};
    ch_strbuf_reset(&out);
    cr_assert_eq(ch_emit_entry_cu(&kd, 1, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, "        twice_launcher(n, x, y);\n"), "%s", out.data);
    /* the test author's reference is compiled alone, as C, as verified (attacks9: nvcc would
     * read it as C++, where sizeof('a') is 1), and read as ref_impl.c from its line 1 */
    cr_assert(
        strstr(out.data, "extern \"C\" void twice_reference(int n, const float *x, float *y);"),
        "%s", out.data);
    cr_assert_null(strstr(out.data, "twice_reference(int n, const float *x, float *y) {}"), "%s",
                   out.data);
    ch_strbuf_reset(&out);
    ch_emit_reference_unit(&kd, &out);
    cr_assert_str_eq(out.data, "#line 1 \"ref_impl.c\"\n"
                               "void twice_reference(int n, const float *x, float *y) {}\n");
    ch_strbuf_free(&out);
    ch_entry_list_free(&sd);
    ch_entry_list_free(&l);
}

/* A candidate whose code names shared memory: its unit zeroes shared memory before every
 * call of the launcher (attacks7 #01: a count kept in __shared__ across launches), through
 * the runtime's thunk; one that names none pays nothing. The unit compiles and passes the
 * object check of units (where nvcc is). */
Test(emit, shared_memory_is_scrubbed_before_each_call_of_a_candidate_that_names_it)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    static const char tiled[] =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, float a, const float *x, float *y)\n{\n"
        "    __shared__ float t[256];\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    t[threadIdx.x] = i < n ? x[i] : 0.0f;\n    __syncthreads();\n"
        "    if (i < n)\n        y[i] = a * t[threadIdx.x] + y[i];\n}\n"
        "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n{\n"
        "    if (n > 0)\n        k<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
        "    return (int)cudaGetLastError();\n}\n";
    ch_emit_kernel k = {&l.items[0],      tiled, NULL,        "test", NULL,
                        "((long long)n)", 4096,  {0, 0, 0, 0}};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    const char *want[] = {
        "__global__ void __launch_bounds__(1024) ch_saxpy_scrub_k(unsigned ch_words)\n",
        "cudaDevAttrMaxSharedMemoryPerBlockOptin",
        "    int ch_scrubbed = ch_saxpy_scrub(); /* shared memory as no call left it */\n"
        "    if (ch_scrubbed != 0)\n        return ch_scrubbed;\n"
        "    return saxpy_device_launcher(",
    };
    expect_all_in(out.data, want, sizeof want / sizeof *want);
    char *nvcc = find_nvcc();
    if (nvcc) {
        char *dir = ch_make_temp_dir("emit", &err);
        free(compile_unit(&k, nvcc, dir));
        ch_remove_tree(dir, &err);
        free(dir);
        free(nvcc);
    }
    k.kernel_src = saxpy_device_kernel;
    ch_strbuf_reset(&out);
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    cr_assert_null(strstr(out.data, "scrub"), "no shared memory, no scrub");
    ch_strbuf_free(&out);
    ch_entry_list_free(&l);
}

Test(emit, dispatcher_moves_data_through_the_runtime)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    ch_emit_kernel k = {&l.items[0], saxpy_device_kernel, NULL, "test",
                        NULL,        "((long long)n)",    4096, {0, 0, 0, 0}};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_emit_entry_cu(&k, 1, &out, &err), 0, "%s", err.msg);
    const char *want[] = {
        "#define CH_RT_DECL __attribute__((weak))\n",
        "CH_RT_DECL int ch_rt_call_v1(",
        "static ch_rt_site ch_saxpy_rt_site = CH_RT_SITE_INIT(\"saxpy\");",
        /* saxpy is an elementwise map: the runtime runs it chunk by chunk, n = the chunk's */
        "static int ch_saxpy_rt_device(void *const *dev, size_t count, const void *ctx)\n",
        "    return saxpy_device_launcher((int)count, s->a, (const float *)dev[0], (float "
        "*)dev[1]);\n",
        "    const long long ch_count_x = (long long)n;\n",
        "        {(void *)x, (size_t)ch_count_x * sizeof(float), CH_RT_IN},\n",
        "        {(void *)y, (size_t)ch_count_y * sizeof(float), CH_RT_INOUT},\n",
        "    if (!ch_rt_call_map_v1) /* an older libch_runtime.a */\n        return CH_RT_E_OFF;\n"
        "    return ch_rt_call_map_v1(&ch_saxpy_rt_site, ch_bufs, 2, (size_t)n, "
        "ch_saxpy_rt_device, &ch_s);\n",
        "        int status = ch_saxpy_rt_call(n, a, x, y);\n",
        "ch_saxpy_host = ch_saxpy_flag(\"CH_CC_FORCE_HOST\");",
        "    ch_saxpy_gpu = ch_saxpy_rt_usable();\n",
        /* the device is probed only for a call that would take the GPU path */
        "    if (large && ch_saxpy_gpu_usable()) {\n",
        /* without the library linked in: the host path, never the candidate's own launcher */
        "    if (!ch_rt_call_v1) /* libch_runtime.a is not linked in: the host path */\n"
        "        return CH_RT_E_OFF;\n",
        "    return ch_rt_call_v1 && ch_rt_usable_v1 && ch_rt_usable_v1();\n",
        ": !ch_rt_call_v1 ? \"the trusted runtime is not linked\"\n",
        "int large = ch_saxpy_force || ch_size >= 4096.0;",
    };
    expect_all_in(out.data, want, sizeof want / sizeof *want);
    /* the caller's pointers reach only the runtime: after the candidate, no call of its launcher */
    const char *ours = strstr(out.data, "---- GPU path through the runtime ----");
    cr_assert_not_null(ours);
    cr_assert_null(strstr(ours, "saxpy_launcher("), "%s", ours);
    ch_strbuf_free(&out);
    ch_entry_list_free(&l);

    /* arrays: counts are products in long long; the `device` clause keeps today's path */
    l = scan_one("j.c", jacobi_src);
    const char *jk = "extern \"C\" int jacobi_device_launcher(int steps, int n, double *A, "
                     "double *B) { return 0; }\n";
    ch_emit_kernel kj = {&l.items[0], jk, NULL, NULL, NULL, NULL, 0, {0, 0, 0, 0}};
    ch_strbuf_init(&out);
    cr_assert_eq(ch_emit_entry_cu(&kj, 1, &out, &err), 0, "%s", err.msg);
    cr_assert(strstr(out.data, "const long long ch_count_A = (long long)n*(long long)n;"), "%s",
              out.data);
    cr_assert(strstr(out.data, "(double *)dev[0], (double *)dev[1]);"), "%s", out.data);
    /* a stencil is no map: one call, one launch */
    cr_assert(strstr(out.data, "    return ch_rt_call_v1(&ch_jacobi_rt_site, ch_bufs, 2, "
                               "ch_jacobi_rt_device, &ch_s);\n"),
              "%s", out.data);
    cr_assert_null(strstr(out.data, "return ch_rt_call_map_v1("), "%s", out.data);
    cr_assert(strstr(out.data, "sizeof(double), CH_RT_IN},"), "%s", out.data);
    /* B's border is left as it was: inout, copied in as well */
    cr_assert(strstr(out.data, "(size_t)ch_count_B * sizeof(double), CH_RT_INOUT},"), "%s",
              out.data);
    ch_strbuf_free(&out);
    ch_entry_list_free(&l);
    ch_entry_list sd;
    cr_assert_eq(scan_text("d.c",
                           "#pragma harness \"y = 2x\" device extent(x: n, y: n)\n"
                           "void twice(int n, const float *x, float *y);\n",
                           CH_LANG_C, &sd, &err),
                 0, "%s", err.msg);
    cr_assert_not(ch_emit_runtime_eligible(&sd.items[0]), "device pointers: nothing to move");
    ch_entry_list_free(&sd);
}

/* The runtime library named by the test environment (CH_CC_TEST_BUILD/lib), or NULL. */
static char *test_runtime_library(void)
{
    const char *b = getenv("CH_CC_TEST_BUILD");
    char *lib = b ? ch_xasprintf("%s/lib/libch_runtime.a", b) : NULL;
    if (lib && !ch_file_exists(lib)) {
        free(lib);
        lib = NULL;
    }
    return lib;
}

/* Runs argv, returns its exit status; its output in out. */
static int run_capture(char **argv, ch_strbuf *out)
{
    ch_error err;
    ch_strbuf_reset(out);
    return ch_proc_capture(argv, out, &err);
}

/* The generated unit with the runtime path compiles with nvcc, merges with the user's object
 * and links into a program both with libch_runtime.a (its references resolved) and without it
 * (they stay weak); both programs compute the right result (here without a GPU: the host
 * path). */
Test(emit, runtime_unit_compiles_links_and_runs)
{
    char *nvcc = find_nvcc();
    char *lib = test_runtime_library();
    if (!nvcc || !lib) {
        free(nvcc);
        free(lib);
        cr_skip("nvcc or the runtime library (CH_CC_TEST_BUILD/lib) missing");
    }
    ch_entry_list l = scan_one("s.c", saxpy_src);
    const ch_entry *e = &l.items[0];
    ch_error err;
    char *dir = ch_make_temp_dir("emit", &err);
    ch_emit_kernel k = {e, saxpy_device_kernel, NULL, NULL, NULL, NULL, 0, {0, 0, 0, 0}};
    ch_strbuf outb;
    ch_strbuf_init(&outb);
    char *merged = merged_unit(&k, saxpy_src, nvcc, dir);
    const char *main_src =
        "#include <stdio.h>\n"
        "void saxpy(int n, float a, const float *x, float *y);\n"
        "int main(void)\n{\n"
        "    static float x[1000], y[1000];\n"
        "    for (int i = 0; i < 1000; i++) { x[i] = (float)i; y[i] = 1; }\n"
        "    saxpy(1000, 2.0f, x, y);\n"
        "    for (int i = 0; i < 1000; i++)\n"
        "        if (y[i] != 2.0f * (float)i + 1) { puts(\"wrong\"); return 1; }\n"
        "    puts(\"right\");\n    return 0;\n}\n";
    char *mc = ch_path_join(dir, "main.c"), *mo = ch_path_join(dir, "main.o");
    cr_assert_eq(ch_write_file_atomic(mc, main_src, strlen(main_src), 0, &err), 0);
    char *ccm[] = {"cc", "-c", mc, "-o", mo, NULL};
    cr_assert_eq(run_capture(ccm, &outb), 0, "%s", outb.data);
    for (int with = 1; with >= 0; with--) {
        char *prog = ch_path_join(dir, with ? "with" : "without");
        ch_strvec link;
        ch_strvec_init(&link);
        ch_strvec_push(&link, "cc");
        ch_strvec_push(&link, mo);
        ch_strvec_push(&link, merged);
        ch_strvec_push(&link, "-o");
        ch_strvec_push(&link, prog);
        if (with) {
            setenv("CH_CC_RUNTIME_LIB", lib, 1);
            ch_emit_runtime_link_args(&link);
            unsetenv("CH_CC_RUNTIME_LIB");
            cr_assert_eq(link.len, 7, "the library and its undefined reference");
        }
        const char *tail[] = {"-L/usr/local/cuda/lib64",
                              "-lcudart_static",
                              "-lrt",
                              "-lpthread",
                              "-ldl",
                              "-lstdc++",
                              "-lm"};
        for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
            ch_strvec_push(&link, tail[i]);
        cr_assert_eq(run_capture(link.items, &outb), 0, "link %s the runtime: %s",
                     with ? "with" : "without", outb.data);
        char *nm[] = {"nm", prog, NULL};
        cr_assert_eq(run_capture(nm, &outb), 0);
        cr_assert(strstr(outb.data, with ? " T ch_rt_call_v1\n" : " w ch_rt_call_v1\n"), "%s",
                  with ? "the runtime is linked in" : "a weak reference stays unresolved");
        char *run[] = {prog, NULL};
        setenv("CH_CC_TRACE", "1", 1);
        int rc = run_capture(run, &outb);
        unsetenv("CH_CC_TRACE");
        cr_assert_eq(rc, 0, "%s", outb.data);
        cr_assert(strstr(outb.data, "right"), "%s", outb.data);
        cr_assert(strstr(outb.data, "ch-cc: saxpy: "), "traced: %s", outb.data);
        if (!with) /* the candidate's own launcher is not the fallback: the host path is */
            cr_assert(strstr(outb.data, "host (the trusted runtime is not linked)"), "%s",
                      outb.data);
        ch_strvec_free(&link);
        free(prog);
    }
    ch_remove_tree(dir, &err);
    ch_strbuf_free(&outb);
    free(mc);
    free(mo);
    free(merged);
    free(dir);
    free(lib);
    free(nvcc);
    ch_entry_list_free(&l);
}

Test(emit, runtime_library_location)
{
    setenv("CH_CC_RUNTIME_LIB", "/nonexistent/libch_runtime.a", 1);
    cr_assert_null(ch_emit_runtime_library(), "a library that is not there is none");
    ch_strvec v;
    ch_strvec_init(&v);
    ch_emit_runtime_link_args(&v);
    cr_assert_eq(v.len, 0, "nothing to link: the weak references stay unresolved");
    unsetenv("CH_CC_RUNTIME_LIB");
    ch_strvec_free(&v);
}

/* nvcc compiles a generated unit, ld -r merges it with the host object, and only the user's
 * name stays global. */
Test(emit, unit_compiles_and_merges)
{
    char *nvcc = find_nvcc();
    if (!nvcc)
        cr_skip("nvcc not installed");
    ch_entry_list l = scan_one("s.c", saxpy_src);
    const ch_entry *e = &l.items[0];
    ch_error err;
    char *dir = ch_make_temp_dir("emit", &err);
    ch_emit_kernel k = {e, saxpy_device_kernel, NULL, NULL, NULL, NULL, 0, {0, 0, 0, 0}};
    char *uo = compile_unit(&k, nvcc, dir);
    /* the host half: the user's code with the body renamed */
    size_t len;
    char *host = ch_emit_host_source(saxpy_src, strlen(saxpy_src), &e, 1, 1, &len);
    char *hc = ch_path_join(dir, "h.c"), *ho = ch_path_join(dir, "h.o");
    cr_assert_eq(ch_write_file_atomic(hc, host, len, 0, &err), 0);
    char *cc[] = {"cc", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes",
                  "-c", hc,      "-o",      ho,        NULL};
    ch_strbuf ccout;
    ch_strbuf_init(&ccout);
    cr_assert_eq(ch_proc_capture(cc, &ccout, &err), 0, "%s", ccout.data);
    char *merged = ch_path_join(dir, "m.o");
    const char *objs[] = {ho, uo};
    ch_strvec priv;
    ch_strvec_init(&priv);
    ch_emit_private_symbols(e, &priv);
    cr_assert_eq(ch_emit_merge(objs, 2, priv.items, merged, &err), 0, "%s", err.msg);
    char *nm[] = {"nm", merged, NULL};
    ch_strbuf syms;
    ch_strbuf_init(&syms);
    cr_assert_eq(ch_proc_capture(nm, &syms, &err), 0);
    cr_assert(strstr(syms.data, " T saxpy\n"), "%s", syms.data);
    cr_assert(strstr(syms.data, " t saxpy__host\n"), "%s", syms.data);
    cr_assert(strstr(syms.data, " t saxpy__ch_launcher\n"), "%s", syms.data);
    cr_assert(strstr(syms.data, " T caller\n"), "%s", syms.data);
    /* a failed merge leaves nothing behind */
    const char *bad[] = {hc};
    char *none = ch_path_join(dir, "none.o");
    cr_assert_neq(ch_emit_merge(bad, 1, NULL, none, &err), 0);
    cr_assert_not(ch_file_exists(none));
    ch_remove_tree(dir, &err);
    free(none);
    ch_strbuf_free(&syms);
    ch_strvec_free(&priv);
    free(merged);
    ch_strbuf_free(&ccout);
    free(host);
    free(hc);
    free(ho);
    free(uo);
    free(dir);
    free(nvcc);
    ch_entry_list_free(&l);
}

/* The object key's runtime identity is the interface the units paste: a hash of ch/runtime.h
 * as built in, so a changed header (another interface) keys other objects. */
Test(emit, runtime_ident_is_the_pasted_interface)
{
    const char *src = getenv("CH_CC_SRC");
    char *path = ch_xasprintf("%s/include/ch/runtime.h", src && *src ? src : ".");
    size_t len = 0;
    ch_error err;
    char *text = NULL;
    cr_assert_eq(ch_read_file(path, &text, &len, &err), 0, "%s", err.msg);
    char want[17], got[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)XXH3_64bits(text, len));
    ch_emit_runtime_ident(got);
    cr_assert_str_eq(got, want);
    /* and the unit pastes exactly that text */
    ch_strbuf unit;
    ch_strbuf_init(&unit);
    ch_emit_runtime_interface(&unit);
    cr_assert(strstr(unit.data, text), "the pasted interface is ch/runtime.h");
    ch_strbuf_free(&unit);
    free(text);
    free(path);
}

/* ---- entries without a kernel: the trace unit ---- */

static const char static_src[] = "#pragma harness\n"
                                 "static void twice(int n, float *v)\n"
                                 "{\n"
                                 "    for (int i = 0; i < n; i++)\n"
                                 "        v[i] *= 2.0f;\n"
                                 "}\n"
                                 "void run(float *v);\n"
                                 "void run(float *v) { twice(2, v); }\n";

static const char trace_main[] = "#include <stdio.h>\n"
                                 "void saxpy(int n, float a, const float *x, float *y);\n"
                                 "void caller(float *y);\n"
                                 "void run(float *v);\n"
                                 "int main(void)\n"
                                 "{\n"
                                 "    float x[2] = {1, 2}, y[2] = {3, 4};\n"
                                 "    saxpy(2, 2.0f, x, y);\n"
                                 "    saxpy(2, 2.0f, x, y);\n"
                                 "    caller(y);\n"
                                 "    run(y);\n"
                                 "    printf(\"%g %g\\n\", y[0], y[1]);\n"
                                 "    return 0;\n"
                                 "}\n";

/* Runs a compile or link command; a failure fails the test with the compiler's output. */
static void cc_run(char **argv)
{
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "%s: %s", argv[0], out.data);
    ch_strbuf_free(&out);
}

/* The host copy of src (its entry renamed) compiled warning-free into dir/NAME.o. */
static char *host_object(const char *dir, const char *name, const char *src, const ch_entry *e)
{
    size_t len;
    char *host = ch_emit_host_source(src, strlen(src), &e, 1, 1, &len);
    char *c = ch_xasprintf("%s/%s.c", dir, name), *o = ch_xasprintf("%s/%s.o", dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(c, host, len, 0, &err), 0);
    char *argv[] = {"cc", "-Wall", "-Wextra", "-Werror", "-Wmissing-prototypes",
                    "-c", c,       "-o",      o,         NULL};
    cc_run(argv);
    free(c);
    free(host);
    return o;
}

/* Runs prog with CH_CC_TRACE set to trace (NULL: unset); its stdout and stderr. */
static void run_traced(const char *prog, const char *trace, ch_strbuf *out, ch_strbuf *err_out)
{
    char *cmd = trace ? ch_xasprintf("CH_CC_TRACE=%s %s 2>%s.err", trace, prog, prog)
                      : ch_xasprintf("env -u CH_CC_TRACE %s 2>%s.err", prog, prog);
    char *argv[] = {"sh", "-c", cmd, NULL};
    ch_error err;
    ch_strbuf_reset(out);
    cr_assert_eq(ch_proc_capture(argv, out, &err), 0, "%s", cmd);
    char *errfile = ch_xasprintf("%s.err", prog), *text;
    size_t len;
    cr_assert_eq(ch_read_file(errfile, &text, &len, &err), 0);
    ch_strbuf_reset(err_out);
    ch_strbuf_add(err_out, text, len);
    free(text);
    free(errfile);
    free(cmd);
}

/* The trace unit of a file's kernel-less entries (an external and a static function) compiles
 * warning-free, passes the unit's object check, merges with the user's renamed code and links
 * into a program that computes as before; with CH_CC_TRACE=1 each call prints one line with
 * the call's size (the dispatcher's measure) and the reason exactly as given (quotes, a comment
 * end, a percent sign and a question mark survive; only the first line of the reason is used),
 * and nothing without it. */
Test(emit, trace_unit_traces_each_call_of_entries_without_a_kernel)
{
    ch_entry_list l = scan_one("s.c", saxpy_src), ls = scan_one("t.c", static_src);
    const ch_entry *e = &l.items[0], *es = &ls.items[0];
    ch_error err;
    char *dir = ch_make_temp_dir("emit-trace", &err);
    const char *why = "no \"GPU\" */ here (100%s ?\?=)\nsecond line";
    ch_emit_traced t[] = {{e, "pending", why, 0}, {es, "refused", "t.c:4:5: a loop", 0}};
    ch_strbuf unit;
    ch_strbuf_init(&unit);
    ch_emit_trace_unit("s.c", t, 2, 1, &unit);
    for (const char *p = unit.data; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        cr_expect_leq(strcspn(p, "\n"), 100, "a line of the unit is wider than 100: %.*s",
                      (int)strcspn(p, "\n"), p);
    char *uc = ch_path_join(dir, "trace.c"), *uo = ch_path_join(dir, "trace.o");
    cr_assert_eq(ch_write_file_atomic(uc, unit.data, unit.len, 0, &err), 0);
    char *unit_cc[] = {"cc", "-O2", "-Wall", "-Wextra", "-Werror", "-c", uc, "-o", uo, NULL};
    cc_run(unit_cc);
    char *h1 = ch_emit_traced_host_name(&t[0]), *h2 = ch_emit_traced_host_name(&t[1]);
    cr_expect_str_eq(h1, "saxpy__host");
    cr_expect_str_eq(h2, "twice__ch_host");
    const char *extra[] = {h1, h2, NULL};
    ch_strbuf why_not;
    ch_strbuf_init(&why_not);
    cr_assert_eq(ch_object_check_as(uo, CH_OBJECT_UNIT, extra, 0, &why_not), 0, "%s", why_not.data);
    /* the same check refuses the unit as a model-written reference (it reads the environment) */
    cr_expect_neq(ch_object_check_as(uo, CH_OBJECT_REFERENCE, extra, 0, &why_not), 0);
    char *ho = host_object(dir, "s", saxpy_src, e), *hs = host_object(dir, "t", static_src, es);
    ch_strvec priv;
    ch_strvec_init(&priv);
    ch_emit_private_symbols(e, &priv);
    ch_emit_private_symbols(es, &priv);
    char *merged = ch_path_join(dir, "m.o");
    const char *objs[] = {ho, hs, uo};
    cr_assert_eq(ch_emit_merge(objs, 3, priv.items, merged, &err), 0, "%s", err.msg);
    char *mc = ch_path_join(dir, "main.c"), *prog = ch_path_join(dir, "prog");
    cr_assert_eq(ch_write_file_atomic(mc, trace_main, strlen(trace_main), 0, &err), 0);
    char *link[] = {"cc", mc, merged, "-o", prog, NULL};
    cc_run(link);
    /* what the program computes: the same sources built plainly (cc ignores the pragmas) */
    char *sc = ch_path_join(dir, "plain_s.c"), *tc = ch_path_join(dir, "plain_t.c");
    char *plain = ch_path_join(dir, "plain");
    cr_assert_eq(ch_write_file_atomic(sc, saxpy_src, strlen(saxpy_src), 0, &err), 0);
    cr_assert_eq(ch_write_file_atomic(tc, static_src, strlen(static_src), 0, &err), 0);
    char *plain_link[] = {"cc", mc, sc, tc, "-o", plain, NULL};
    cc_run(plain_link);
    ch_strbuf out, errs, expected_out;
    ch_strbuf_init(&out);
    ch_strbuf_init(&errs);
    ch_strbuf_init(&expected_out);
    run_traced(plain, NULL, &expected_out, &errs);
    run_traced(prog, NULL, &out, &errs);
    cr_expect_str_eq(out.data, expected_out.data, "the program computes as the plain one");
    cr_expect_str_eq(errs.data ? errs.data : "", "", "untraced runs print nothing");
    run_traced(prog, "1", &out, &errs);
    cr_expect_str_eq(out.data, expected_out.data, "stdout is the same traced");
    /* the size is the dispatcher's measure, the elements of x and y: 2 + 2, and 1 + 1 for the
     * caller's call; twice's v has 2 */
    const char *why_line = "no kernel linked, pending: no \"GPU\" */ here (100%s ?\?=))\n";
    char *expected = ch_xasprintf("ch-cc: saxpy: host (size 4, %sch-cc: saxpy: host (size 4, %s"
                                  "ch-cc: saxpy: host (size 2, %s"
                                  "ch-cc: twice: host (size 2, no kernel linked, refused: "
                                  "t.c:4:5: a loop)\n",
                                  why_line, why_line, why_line);
    cr_expect_str_eq(errs.data, expected, "one line per call (2 calls, the caller's, run's)");
    run_traced(prog, "0", &out, &errs);
    cr_expect_str_eq(errs.data ? errs.data : "", "", "CH_CC_TRACE=0 prints nothing");
    ch_remove_tree(dir, &err);
    free(expected);
    free(sc);
    free(tc);
    free(plain);
    ch_strbuf_free(&expected_out);
    ch_strbuf_free(&out);
    ch_strbuf_free(&errs);
    free(mc);
    free(prog);
    free(merged);
    ch_strvec_free(&priv);
    free(ho);
    free(hs);
    ch_strbuf_free(&why_not);
    free(h1);
    free(h2);
    free(uc);
    free(uo);
    ch_strbuf_free(&unit);
    free(dir);
    ch_entry_list_free(&l);
    ch_entry_list_free(&ls);
}

/* A reason too long for one line is cut, and says so: 240 of its bytes in the comment and 240
 * in the traced line, then "...". */
Test(emit, trace_line_of_a_long_reason_is_cut)
{
    ch_entry_list l = scan_one("s.c", saxpy_src);
    char why[400];
    memset(why, '@', sizeof why - 1);
    why[sizeof why - 1] = '\0';
    ch_emit_traced t = {&l.items[0], "failed", why, 0};
    ch_strbuf unit;
    ch_strbuf_init(&unit);
    ch_emit_trace_unit("s.c", &t, 1, 1, &unit);
    size_t ats = 0;
    for (const char *p = unit.data; *p; p++)
        ats += *p == '@';
    cr_expect_eq(ats, 2 * 240, "%s", unit.data);
    cr_expect(strstr(unit.data, "@@@...\";"), "%s", unit.data);
    ch_strbuf_free(&unit);
    ch_entry_list_free(&l);
}

/* An entry whose size the dispatcher cannot measure (an extent uses max): its traced line says
 * "size unknown", and the program, linked with the user's renamed body, computes as before. */
Test(emit, trace_line_of_an_unmeasurable_entry_says_size_unknown)
{
    static const char pick_src[] = "#pragma harness extent(x: max(n, m))\n"
                                   "void pick(int n, int m, const float *x, float *y)\n"
                                   "{\n"
                                   "    for (int i = 0; i < n; i++)\n"
                                   "        y[i] = x[i] + x[m - 1];\n"
                                   "}\n";
    static const char pick_main[] = "#include <stdio.h>\n"
                                    "void pick(int n, int m, const float *x, float *y);\n"
                                    "int main(void)\n"
                                    "{\n"
                                    "    float x[3] = {1, 2, 3}, y[2];\n"
                                    "    pick(2, 3, x, y);\n"
                                    "    printf(\"%g %g\\n\", y[0], y[1]);\n"
                                    "    return 0;\n"
                                    "}\n";
    ch_entry_list l = scan_one("p.c", pick_src);
    char *plain = NULL, *c_expr = NULL;
    cr_assert_neq(ch_emit_size_expr(&l.items[0], &plain, &c_expr), 0, "measurable: %s", plain);
    ch_error err;
    char *dir = ch_make_temp_dir("emit-trace-size", &err);
    ch_emit_traced t = {&l.items[0], "refused", "no loop to map", 0};
    ch_strbuf unit;
    ch_strbuf_init(&unit);
    ch_emit_trace_unit("p.c", &t, 1, 1, &unit);
    cr_expect(strstr(unit.data, "size is unknown"), "the comment says so: %s", unit.data);
    char *uc = ch_path_join(dir, "trace.c"), *uo = ch_path_join(dir, "trace.o");
    char *mc = ch_path_join(dir, "main.c"), *prog = ch_path_join(dir, "prog");
    cr_assert_eq(ch_write_file_atomic(uc, unit.data, unit.len, 0, &err), 0);
    cr_assert_eq(ch_write_file_atomic(mc, pick_main, strlen(pick_main), 0, &err), 0);
    char *unit_cc[] = {"cc", "-O2", "-Wall", "-Wextra", "-Werror", "-c", uc, "-o", uo, NULL};
    cc_run(unit_cc);
    char *ho = host_object(dir, "p", pick_src, &l.items[0]);
    char *link[] = {"cc", mc, ho, uo, "-o", prog, NULL};
    cc_run(link);
    ch_strbuf out, errs;
    ch_strbuf_init(&out);
    ch_strbuf_init(&errs);
    run_traced(prog, "1", &out, &errs);
    cr_expect_str_eq(out.data, "4 5\n", "the user's body ran");
    cr_expect_str_eq(errs.data,
                     "ch-cc: pick: host (size unknown, no kernel linked, refused: no loop to "
                     "map)\n");
    ch_remove_tree(dir, &err);
    ch_strbuf_free(&out);
    ch_strbuf_free(&errs);
    free(ho);
    free(prog);
    free(mc);
    free(uo);
    free(uc);
    ch_strbuf_free(&unit);
    free(dir);
    ch_entry_list_free(&l);
}
