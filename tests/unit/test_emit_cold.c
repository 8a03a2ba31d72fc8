/* Unit tests of the dispatcher's first-call costs (issue 14): the cold thresholds from the warm
 * curve and the measured cold costs, the dispatcher that uses them, and that dispatcher compiled
 * by nvcc and run against a fake runtime that says which state the device is in. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_fixture.h"
#include "scan_helpers.h"

static const char saxpy_src[] = "#pragma harness tune(n = 1000)\n"
                                "void saxpy(int n, float a, const float *x, float *y)\n"
                                "{\n"
                                "    for (int i = 0; i < n; i++)\n"
                                "        y[i] = a * x[i] + y[i];\n"
                                "}\n";

static ch_entry_list scan_saxpy(void)
{
    ch_entry_list l;
    ch_error err = {0};
    cr_assert_eq(scan_text("s.c", saxpy_src, CH_LANG_C, &l, &err), 0, "%s", err.msg);
    cr_assert_eq(l.len, 1);
    return l;
}

/* a warm curve where the GPU wins from about 3.4e4 elements: host 0.01, 1, 10 ms against the
 * whole call's 0.1, 0.5, 2 ms at 1e3, 1e5, 1e6 elements (the later of the linear crossing,
 * 1.6e4, and the power laws', 1e3 * 10^(1 / 0.651)) */
static const ch_dispatch_point warm_curve[] = {{1e3, 0.01, 0.1}, {1e5, 1.0, 0.5}, {1e6, 10, 2}};

Test(emit_cold, thresholds_with_first_call_costs)
{
    long long warm = ch_emit_dispatch_threshold(warm_curve, 3);
    cr_assert(warm > 34000 && warm < 35000, "%lld", warm);
    cr_assert_eq(ch_emit_cold_threshold(warm_curve, 3, 0, 0), warm, "no cold cost: the warm one");
    cr_assert_eq(ch_emit_cold_threshold(warm_curve, 3, -5, -1), warm, "negative costs are none");
    /* a 200 ms set-up is not paid back at the largest measured size (8 ms of advantage there):
     * a first call never takes the GPU, however large (the advantage would repay it past
     * 2.4e7 elements if it kept growing, but nothing was measured there) */
    cr_assert_eq(ch_emit_cold_threshold(warm_curve, 3, 200, 0), LLONG_MAX);
    cr_assert_eq(ch_emit_cold_threshold(warm_curve, 3, 200, 1e-6), LLONG_MAX);
    /* a first use that costs more per element than the GPU gains: a cold call never wins */
    cr_assert_eq(ch_emit_cold_threshold(warm_curve, 3, 0, 1e-5), LLONG_MAX);
    /* a small set-up the middle point already repays: the crossing moves within the curve */
    long long small = ch_emit_cold_threshold(warm_curve, 3, 0.2, 0);
    cr_assert(small > warm && small < 100000, "%lld", small);
    /* never below the warm threshold, which starts at the smallest measured size */
    const ch_dispatch_point gpu_everywhere[] = {{1e3, 1, 0.5}, {1e5, 100, 1}};
    cr_assert_eq(ch_emit_dispatch_threshold(gpu_everywhere, 2), 1000);
    long long c2 = ch_emit_cold_threshold(gpu_everywhere, 2, 10, 0);
    cr_assert(c2 > 1000 && c2 < 100000, "%lld", c2);
    cr_assert_eq(ch_emit_cold_threshold(NULL, 0, 10, 0), 0, "no curve: the warm rule (always)");
}

static ch_emit_kernel kernel_with(const ch_entry *e, const char *src, ch_emit_cold cold)
{
    ch_emit_kernel k = {e, src, NULL, NULL, NULL, "((long long)n)", 100, cold};
    return k;
}

/* a candidate with both launchers, as the translator writes them */
static const char device_kernel[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void k(int n, float a, const float *x, float *y)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
    "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n"
    "{\n    if (n > 0)\n        k<<<(n + 255) / 256, 256>>>(n, a, x, y);\n"
    "    return (int)cudaGetLastError();\n}\n"
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n    float *dx, *dy;\n    size_t b = (size_t)n * sizeof(float);\n"
    "    if (cudaMalloc(&dx, b + 4) || cudaMalloc(&dy, b + 4))\n        return;\n"
    "    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);\n"
    "    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);\n"
    "    if (saxpy_device_launcher(n, a, dx, dy) == 0 && cudaDeviceSynchronize() == 0)\n"
    "        cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);\n"
    "    cudaFree(dx);\n    cudaFree(dy);\n}\n";

Test(emit_cold, dispatcher_weighs_the_state_of_the_device)
{
    ch_entry_list l = scan_saxpy();
    ch_emit_cold cold = {5000, 1000000, 250.5, 1e-3};
    ch_emit_kernel k = kernel_with(&l.items[0], device_kernel, cold);
    ch_strbuf out;
    ch_strbuf_init(&out);
    emit_unit(&k, &out);
    const char *want[] = {
        /* the runtime is asked about this call's buffers, never loading the driver */
        "static int ch_saxpy_rt_cold(int n, float a, const float *x, float *y)",
        "    if (!ch_rt_cold_v1 || !ch_rt_call_v1)\n        return -1;\n",
        "    return ch_rt_cold_v1(&ch_saxpy_rt_site, ch_bufs, 2);\n",
        "    int state = ch_saxpy_rt_cold(n, a, x, y);\n",
        "    ch_saxpy_loaded = ch_init && strcmp(ch_init, \"load\") == 0;\n",
        "    int ch_cold = ch_size >= 100.0 || ch_saxpy_trace ? ch_saxpy_cold(n, a, x, y) : 0;\n",
        "    double ch_from = ch_cold == 2 ? 1000000.0 : ch_cold == 1 ? 5000.0 : 100.0;\n",
        "    double ch_cost = (ch_cold == 2 ? 250.5 : 0.0) + 0.001 * ch_size;\n",
        /* the rent: twenty times the set-up's cost spent on the host path first */
        "__ATOMIC_RELAXED) >= ch_cost * 20000.0;\n",
        "    int large = ch_saxpy_force || ch_size >= ch_from || ch_bought;\n",
        "GPU from %.3g warm / %.3g cold (%s): %s%s",
        "            __atomic_store_n(&ch_saxpy_gpu_done, 1, __ATOMIC_RELAXED);\n",
        "        __atomic_add_fetch(&ch_saxpy_rent_us,",
    };
    expect_all_in(out.data, want, sizeof want / sizeof *want);

    /* unknown cold costs (a cache entry from before they were measured): as before */
    ch_emit_cold none = {0, 0, 0, 0};
    k = kernel_with(&l.items[0], device_kernel, none);
    emit_unit(&k, &out);
    cr_assert_not(ch_emit_cold_known(&k));
    cr_assert(strstr(out.data, "int large = ch_saxpy_force || ch_size >= 100.0;"), "%s", out.data);
    cr_assert_null(strstr(out.data, "ch_rt_cold_v1(&"), "%s", out.data);
    cr_assert_null(strstr(out.data, "ch_saxpy_rent_us"), "%s", out.data);
    /* a GPU that never wins warm has nothing to weigh; nor has a cold threshold at the warm one */
    k.gpu_min_size = LLONG_MAX;
    k.cold = cold;
    cr_assert_not(ch_emit_cold_known(&k));
    k.gpu_min_size = 5000;
    k.cold = (ch_emit_cold){5000, 5000, 1, 0};
    cr_assert_not(ch_emit_cold_known(&k));

    /* a candidate with only its own launcher is not linked (issue 15): no GPU path, no first
     * calls to weigh */
    const char *plain = "extern \"C\" void saxpy_launcher(int n, float a, const float *x, "
                        "float *y) {}\n";
    k = kernel_with(&l.items[0], plain, cold);
    emit_unit(&k, &out);
    cr_assert_null(strstr(out.data, "ch_saxpy_cold"), "%s", out.data);
    cr_assert_null(strstr(out.data, "saxpy_launcher"), "%s", out.data);
    ch_strbuf_free(&out);
    ch_entry_list_free(&l);
}

/* ---- the dispatcher compiled and run ---- */

/* A runtime that does not move data: it says the state main() sets and counts the calls. */
static const char fake_runtime[] =
    "#include <stddef.h>\n"
    "int fake_state = 2, fake_calls;\n"
    "int ch_rt_usable_v1(void) { return 1; }\n"
    "int ch_rt_setup_v1(void) { return 1; }\n"
    "int ch_rt_cold_v1(const void *site, const void *bufs, size_t n)\n"
    "{ (void)site; (void)bufs; (void)n; return fake_state; }\n"
    "int ch_rt_call_v1(void *site, const void *bufs, size_t n, void *launch, const void *ctx)\n"
    "{ (void)site; (void)bufs; (void)n; (void)launch; (void)ctx; fake_calls++; return 0; }\n"
    "int ch_rt_call_map_v1(void *site, const void *bufs, size_t nb, size_t n, void *launch,\n"
    "                      const void *ctx)\n"
    "{ (void)site; (void)bufs; (void)nb; (void)n; (void)launch; (void)ctx; fake_calls++;\n"
    "  return 0; }\n"
    "const char *ch_rt_strerror_v1(int status) { (void)status; return \"fake\"; }\n";

/* main: the states and sizes of the calls, then calls at a size between the warm and the cold
 * thresholds while the device stays cold, until one takes the GPU path (the rent is paid) */
static const char fake_main[] =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "void saxpy(int n, float a, const float *x, float *y);\n"
    "/* weak: a program linked without the fake runtime has its own */\n"
    "__attribute__((weak)) int fake_state, fake_calls;\n"
    "int main(int argc, char **argv)\n{\n"
    "    float *x = calloc(2000000, sizeof *x), *y = calloc(2000000, sizeof *y);\n"
    "    int states[] = {2, 1, 0, 2, 1};\n"
    "    int sizes[] = {1000, 1000, 1000, 2000000, 20000};\n"
    "    for (int i = 0; i < 5; i++) {\n"
    "        fake_state = states[i];\n"
    "        saxpy(sizes[i], 2.0f, x, y);\n"
    "    }\n"
    "    printf(\"calls %d\\n\", fake_calls);\n"
    "    int before = fake_calls, rented = 0;\n"
    "    if (argc > 1 && argv[1][0] == 'n') /* no runtime: no GPU call will end the loop */\n"
    "        before = -1;\n"
    "    fake_state = 2;\n"
    "    while (fake_calls == before && rented < 1000000) {\n"
    "        saxpy(1000, 2.0f, x, y);\n"
    "        rented++;\n"
    "    }\n"
    "    printf(\"rented %d\\n\", rented);\n"
    "    free(x);\n    free(y);\n    return 0;\n}\n";

/* Links main, the merged object and extra (NULL: no runtime) into dir/prog, runs it with
 * CH_CC_TRACE=1 and mode as its argument and returns its output (stdout and stderr). */
static void run_linked(const char *dir, const char *merged, const char *extra, const char *mode,
                       ch_strbuf *out)
{
    ch_error err;
    char *mo = compile_c(dir, "main", fake_main);
    char *prog = ch_path_join(dir, "prog");
    char *argv[] = {"cc",
                    mo,
                    (char *)merged,
                    (char *)(extra ? extra : merged),
                    "-o",
                    prog,
                    "-L/usr/local/cuda/lib64",
                    "-lcudart_static",
                    "-lrt",
                    "-lpthread",
                    "-ldl",
                    "-lstdc++",
                    "-lm",
                    NULL};
    if (!extra) /* the merged object once */
        memmove(&argv[3], &argv[4], sizeof argv - 4 * sizeof *argv);
    ch_strbuf_reset(out);
    cr_assert_eq(ch_proc_capture(argv, out, &err), 0, "link: %s", out->data);
    char *run[] = {prog, (char *)mode, NULL};
    setenv("CH_CC_TRACE", "1", 1);
    ch_strbuf_reset(out);
    int rc = ch_proc_capture(run, out, &err);
    unsetenv("CH_CC_TRACE");
    cr_assert_eq(rc, 0, "%s", out->data);
    free(mo);
    free(prog);
}

static void link_and_run(const char *dir, const char *merged, const char *extra, ch_strbuf *out)
{
    run_linked(dir, merged, extra, extra ? "rent" : "no-rent", out);
}

/* The n-th line of text that contains needle, or NULL. */
static const char *nth_line_with(const char *text, const char *needle, int n)
{
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
        if (n-- == 0)
            return p;
    return NULL;
}

Test(emit_cold, first_call_below_the_cold_threshold_takes_the_host_path, .timeout = 600)
{
    char *nvcc = find_nvcc();
    if (!nvcc)
        cr_skip("nvcc not installed");
    ch_entry_list l = scan_saxpy();
    ch_error err;
    char *dir = ch_make_temp_dir("emitcold", &err);
    /* warm from 100, buffers from 5000, cold from 1e6; the set-up 0.5 ms, buffers 1e-4 ms per
     * element (0.1 ms for 1000, far more than one host call of 1000 elements takes): some
     * hundred host calls of 1000 elements pay the rent */
    ch_emit_cold cold = {5000, 1000000, 0.5, 1e-4};
    ch_emit_kernel k = kernel_with(&l.items[0], device_kernel, cold);
    char *merged = merged_unit(&k, saxpy_src, nvcc, dir);
    char *fake = compile_c(dir, "fake", fake_runtime);
    ch_strbuf out;
    ch_strbuf_init(&out);
    link_and_run(dir, merged, fake, &out);
    const char *tag = "ch-cc: saxpy: size ";
    const char *expect[] = {
        "ch-cc: saxpy: size 1e+03, GPU from 100 warm / 1e+06 cold (device not set up): host\n",
        "ch-cc: saxpy: size 1e+03, GPU from 100 warm / 5e+03 cold (buffers to allocate): host\n",
        "ch-cc: saxpy: size 1e+03, GPU from 100 warm / 1e+06 cold (device set up): gpu\n",
        "ch-cc: saxpy: size 2e+06, GPU from 100 warm / 1e+06 cold (device not set up): gpu\n",
        "ch-cc: saxpy: size 2e+04, GPU from 100 warm / 5e+03 cold (buffers to allocate): gpu\n",
    };
    for (int i = 0; i < 5; i++) {
        const char *line = nth_line_with(out.data, tag, i);
        cr_assert(line && strncmp(line, expect[i], strlen(expect[i])) == 0,
                  "call %d: want %s in:\n%.3000s", i, expect[i], out.data);
    }
    cr_assert(strstr(out.data, "calls 3\n"), "the runtime ran the three GPU calls: %.3000s",
              out.data);
    /* cold calls the GPU would win warm: host, until their time reaches the set-up's cost */
    const char *rented = strstr(out.data, "rented ");
    cr_assert(rented, "%.3000s", out.data);
    int n = atoi(rented + 7);
    cr_assert(n >= 1 && n < 1000000, "the rent took %d calls", n);
    cr_assert(strstr(out.data, "cold (device not set up): gpu (the host path has spent the "
                               "set-up's cost)\n"),
              "%.3000s", out.data);

    /* without the runtime: the entry's own record, cold until its first GPU call; the driver is
     * not loaded for a call below the cold threshold */
    link_and_run(dir, merged, NULL, &out);
    cr_assert(strstr(out.data, "size 1e+03, GPU from 100 warm / 1e+06 cold (device not set up): "
                               "host\n"),
              "%.3000s", out.data);
    /* and a call the GPU would take runs the host path: the candidate's own launcher is never
     * called with the caller's pointers */
    cr_assert(strstr(out.data, "ch-cc: saxpy: host (the trusted runtime is not linked)\n"),
              "%.3000s", out.data);
    ch_remove_tree(dir, &err);
    ch_strbuf_free(&out);
    free(fake);
    free(merged);
    free(dir);
    free(nvcc);
    ch_entry_list_free(&l);
}
