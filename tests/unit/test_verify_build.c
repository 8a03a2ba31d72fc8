/* Builds what verification builds: scaffolds for several signatures compiled with nvcc (no GPU
 * needed to compile), the reference program from a user TU with static helpers, macros and its
 * own main (built and run on the CPU), and the verifier's stages 0-1 end to end. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "verify_fixture.h"
#include "verify_internal.h"

/* saxpy with the host-pointer launcher alone, copies and a kernel: every stage's sound case */
static const char saxpy_host_launcher[] = FX_SAXPY_KERNEL FX_SAXPY_HOST_LAUNCHER;

static const char *arch(void)
{
    const char *a = getenv("CH_CC_ARCH");
    return a && *a ? a : "sm_90";
}

static const char *nvcc(void)
{
    return ch_file_exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
}

/* Writes cand and the scaffold of c into a temp dir and compiles them; returns nvcc's status. */
static int build_scaffold(const ch_checklist *c, const char *cand, ch_strbuf *log)
{
    ch_error err;
    char *dir = ch_make_temp_dir("scaftest", &err);
    cr_assert_not_null(dir);
    char *cp = ch_path_join(dir, "candidate.cu"), *sp = ch_path_join(dir, "scaffold.cu");
    ch_strbuf s;
    ch_strbuf_init(&s);
    cr_assert_eq(ch_scaffold_generate(c, cp, &s, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_write_file_atomic(cp, cand, strlen(cand), 0, &err), 0);
    cr_assert_eq(ch_write_file_atomic(sp, s.data, s.len, 0, &err), 0);
    char *archf = ch_xasprintf("-arch=%s", arch());
    char *out = ch_path_join(dir, "prog");
    ch_strvec argv;
    ch_strvec_init(&argv);
    const char *const head[] = {nvcc(), archf, "-o", out, sp};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        ch_strvec_push(&argv, head[i]);
    ch_scaffold_link_args(&argv);
    int rc = ch_proc_capture(argv.items, log, &err);
    ch_strvec_free(&argv);
    if (rc == 0)
        cr_assert(ch_file_exists(out));
    ch_remove_tree(dir, &err);
    free(archf);
    free(out);
    free(cp);
    free(sp);
    free(dir);
    ch_strbuf_free(&s);
    return rc;
}

Test(scaffold, host_convention_float_compiles)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    const char *cand = saxpy_host_launcher;
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(build_scaffold(&c, cand, &log), 0, "%s", log.data);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    ch_scaffold_generate(&c, "candidate.cu", &s, &err);
    /* the contract the generated program keeps */
    cr_assert_not_null(strstr(s.data, "extern \"C\" void saxpy_launcher(int n, float a, const "
                                      "float *x, float *y);"));
    cr_assert_null(strstr(s.data, "memset(y_h"), "inout keeps its input: not poisoned");
    cr_assert_null(strstr(s.data, "memset(x_h"), "inputs are not poisoned");
    cr_assert_not_null(strstr(s.data, "cudaEventRecord"));
    char *snap = strstr(s.data, "memcpy(y_snap");
    char *sync = strstr(s.data, "CH_CHECK(cudaDeviceSynchronize());\n        ch_buf_write");
    cr_assert(snap && sync && snap < sync, "snapshot before synchronisation");
    /* time mode times a process's first call (issue 14): the device's set-up alone, through
     * the runtime when the call goes through it, then the first whole call, both before
     * anything else in the process touches the device */
    const char *time_mode = strstr(s.data, "static int ch_time(");
    cr_assert_not_null(time_mode);
    const char *setup = strstr(time_mode, "    ch_device_setup();\n");
    const char *first = strstr(time_mode, "    saxpy_ch_whole_call(n, a, x_set[0], y_set[0]);\n");
    const char *cold = strstr(time_mode, "ch-cold: setup_ms=%.6f first_call_ms=%.6f");
    const char *events = strstr(time_mode, "cudaEventCreate(&ch_start)");
    cr_assert(setup && first && cold && events, "%s", time_mode);
    cr_assert(setup < first && first < cold && cold < events, "set-up, first call, then the rest");
    cr_assert_not_null(strstr(s.data, "ch_rt_setup_v1 != NULL) {\n        ch_rt_setup_v1();"));
    ch_strbuf_free(&s);
    ch_strbuf_free(&log);
    fx_free(&c);
}

Test(scaffold, device_convention_int_output_compiles)
{
    ch_checklist c;
    fx_histo(&c, 1);
    const char *cand =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, const unsigned char *v, unsigned int *h)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&h[v[i]], 1u); }\n"
        "extern \"C\" void histo_launcher(int n, const unsigned char *v, unsigned int *h)\n"
        "{ cudaMemset(h, 0, 256 * sizeof(unsigned)); k<<<(n + 255) / 256, 256>>>(n, v, h); }\n";
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(build_scaffold(&c, cand, &log), 0, "%s", log.data);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    ch_scaffold_generate(&c, "candidate.cu", &s, &err);
    cr_assert_not_null(strstr(s.data, "cudaMemset(h_d, 0xA5"), "int outputs get the sentinel");
    cr_assert_not_null(strstr(s.data, "memset(h_h, 0xA5"));
    cr_assert_not_null(strstr(s.data, "histo_launcher(n, v_d, h_d)"), "device pointers passed");
    ch_strbuf_free(&s);
    ch_strbuf_free(&log);
    fx_free(&c);
}

Test(scaffold, array_params_and_index_arrays_compile)
{
    ch_checklist c;
    fx_jacobi(&c);
    const char *cand =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, int m, const double *a, double *b)\n"
        "{ int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i > 0 && i < n - 1 && j > 0 && j < m - 1)\n"
        "    b[i * m + j] = 0.25 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + "
        "a[i * m + j + 1]); }\n"
        "extern \"C\" void jacobi_launcher(int n, int m, const double *a, double *b)\n"
        "{ double *da, *db; size_t s = (size_t)n * m * sizeof(double);\n"
        "  cudaMalloc(&da, s); cudaMalloc(&db, s); cudaMemcpy(da, a, s, "
        "cudaMemcpyHostToDevice);\n"
        "  cudaMemcpy(db, b, s, cudaMemcpyHostToDevice);\n"
        "  k<<<dim3((m + 127) / 128, n), 128>>>(n, m, da, db);\n"
        "  cudaMemcpy(b, db, s, cudaMemcpyDeviceToHost); cudaFree(da); cudaFree(db); }\n";
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(build_scaffold(&c, cand, &log), 0, "%s", log.data);
    fx_free(&c);
    fx_gather(&c);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, "candidate.cu", &s, &err), 0);
    cr_assert_not_null(strstr(s.data, "ch_count_src = ch_count((long long)(m)"));
    ch_strbuf_free(&s);
    ch_strbuf_free(&log);
    fx_free(&c);
}

Test(scaffold, rejects_buffers_without_extent)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    free(c.params[2].extent);
    c.params[2].extent = NULL;
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    cr_assert_neq(ch_scaffold_generate(&c, "candidate.cu", &s, &err), 0);
    cr_assert_not_null(strstr(err.msg, "x has no extent"));
    ch_strbuf_free(&s);
    fx_free(&c);
}

/* ---- buffer files ---- */

Test(bufio, round_trip_and_validation)
{
    ch_error err;
    char *dir = ch_make_temp_dir("buftest", &err);
    char *p = ch_path_join(dir, "x.bin");
    float v[5] = {1, 2, 3, 4, 5};
    cr_assert_eq(ch_buf_write(p, CH_T_FLOAT, v, 5, &err), 0);
    void *d;
    size_t n;
    cr_assert_eq(ch_buf_read(p, CH_T_FLOAT, 5, &d, &n, &err), 0, "%s", err.msg);
    cr_assert(memcmp(d, v, sizeof v) == 0);
    free(d);
    cr_assert_neq(ch_buf_read(p, CH_T_DOUBLE, 5, &d, &n, &err), 0);
    cr_assert_not_null(strstr(err.msg, "element type f32"), "%s", err.msg);
    cr_assert_neq(ch_buf_read(p, CH_T_FLOAT, 6, &d, &n, &err), 0);
    /* flip one payload byte: checksum */
    char *text;
    size_t len;
    ch_read_file(p, &text, &len, &err);
    text[CH_BUF_HEADER + 2] ^= 1;
    ch_write_file_atomic(p, text, len, 0, &err);
    free(text);
    cr_assert_neq(ch_buf_read(p, CH_T_FLOAT, 5, &d, &n, &err), 0);
    cr_assert_not_null(strstr(err.msg, "checksum"), "%s", err.msg);
    ch_remove_tree(dir, &err);
    free(p);
    free(dir);
}

/* ---- reference program ---- */

static const char user_tu[] =
    "#include <math.h>\n"
    "#define SCALE(v) ((v) * 2.0f)\n"
    "static float helper(float a, float x) { return SCALE(a) * x; }\n"
    "#pragma harness\n"
    "void saxpy(int n, float a, const float *x, float *y)\n"
    "{ for (int i = 0; i < n; i++) y[i] = helper(a, x[i]) + y[i] + OFFSET; }\n"
    "int main(void) { return 42; }\n";

Test(reference, user_tu_with_static_helpers_macros_flags_and_main)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("reftest", &err);
    char *tu = ch_path_join(dir, "user.c");
    ch_write_file_atomic(tu, user_tu, strlen(user_tu), 0, &err);
    char *cc_argv[] = {"cc", "-std=c11", "-Wall", "-Werror", "-DOFFSET=0.5f", NULL};
    ch_oracle o = {tu, cc_argv, NULL, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(ch_reference_build(&c, &o, dir, &exe, &log, &err), 0, "%s", err.msg);
    /* a set directory, written as the verifier writes it */
    ch_dataset ds;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[0], 11, &ds, &err), 0);
    char *sd = ch_path_join(dir, "set");
    ch_mkdir_p(sd, &err);
    cr_assert_eq(ch_dataset_write(&c, &ds, sd, &err), 0);
    char *argv[] = {exe, sd, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "reference ran: %s", out.data);
    char *yp = ch_path_join(sd, "y.out.bin");
    void *y;
    cr_assert_eq(ch_buf_read(yp, CH_T_FLOAT, 1000, &y, NULL, &err), 0, "%s", err.msg);
    float a = *(float *)ds.data[1];
    const float *x = ds.data[2], *y0 = ds.data[3];
    for (int i = 0; i < 1000; i++) {
        float want = (a * 2.0f) * x[i] + y0[i] + 0.5f;
        cr_assert_float_eq(((float *)y)[i], want, 1e-6, "y[%d]", i);
    }
    char *xp = ch_path_join(sd, "x.out.bin");
    void *xo;
    cr_assert_eq(ch_buf_read(xp, CH_T_FLOAT, 1000, &xo, NULL, &err), 0);
    cr_assert(memcmp(xo, x, 1000 * sizeof(float)) == 0, "in buffer written back unchanged");
    /* time mode: the host path's cost for the dispatcher, and no outputs written */
    remove(yp);
    char *targv[] = {exe, sd, "time", NULL};
    ch_strbuf_reset(&out);
    cr_assert_eq(ch_proc_capture(targv, &out, &err), 0, "time mode ran: %s", out.data);
    double host_ms = -1;
    const char *t = strstr(out.data, "ch-time: host_ms=");
    cr_assert(t && sscanf(t, "ch-time: host_ms=%lf", &host_ms) == 1, "%s", out.data);
    cr_assert(host_ms >= 0 && host_ms < 1000, "%f", host_ms);
    cr_assert_not(ch_file_exists(yp), "time mode writes no outputs");
    free(xo);
    free(xp);
    free(y);
    free(yp);
    ch_strbuf_free(&out);
    ch_dataset_free(&ds);
    ch_remove_tree(dir, &err);
    free(sd);
    free(exe);
    free(tu);
    free(dir);
    ch_strbuf_free(&log);
    fx_free(&c);
}

Test(reference, spec_decl_reference_source_and_build_errors)
{
    ch_checklist c;
    fx_gather(&c);
    ch_error err;
    char *dir = ch_make_temp_dir("reftest", &err);
    const char *ref = "void gather_reference(int n, int m, const double *src, const int *idx, "
                      "double *out)\n{ for (int i = 0; i < n; i++) out[i] = src[idx[i]]; }\n";
    ch_oracle o = {NULL, NULL, ref, 0, NULL, NULL, 0};
    char *exe = NULL;
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(ch_reference_build(&c, &o, dir, &exe, &log, &err), 0, "%s", err.msg);
    ch_dataset ds;
    cr_assert_eq(ch_data_synthesize(&c, &c.correctness[0], 5, &ds, &err), 0);
    cr_assert_eq(ch_dataset_write(&c, &ds, dir, &err), 0);
    char *argv[] = {exe, dir, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "%s", out.data);
    char *op = ch_path_join(dir, "out.out.bin");
    void *got;
    cr_assert_eq(ch_buf_read(op, CH_T_DOUBLE, 1001, &got, NULL, &err), 0, "%s", err.msg);
    const double *src = ds.data[2];
    const int *idx = ds.data[3];
    for (int i = 0; i < 1001; i++)
        cr_assert_eq(((double *)got)[i], src[idx[i]]);
    free(got);
    free(op);
    free(exe);
    /* a broken reference is an error carrying the compiler's words */
    ch_oracle bad = {NULL, NULL, "void gather_reference(int n) { undeclared_thing(); }\n", 0, NULL,
                     NULL, 0};
    cr_assert_neq(ch_reference_build(&c, &bad, dir, &exe, &log, &err), 0);
    cr_assert_not_null(strstr(err.msg, "reference:"), "%s", err.msg);
    ch_strbuf_free(&out);
    ch_strbuf_free(&log);
    ch_dataset_free(&ds);
    ch_remove_tree(dir, &err);
    free(dir);
    fx_free(&c);
}

/* ---- the verifier, stages 0-1 (2 needs a GPU: here it must fail with a CUDA error) ---- */

/* The setup of a verifier of saxpy (c: fx_saxpy) whose oracle is user_tu, written into dir as
 * *tu (the caller frees it after closing the verifier), built with -DOFFSET=0.0f. */
static ch_verify_setup saxpy_setup(const ch_checklist *c, const char *dir, char **tu)
{
    static char *cc_argv[] = {"cc", "-DOFFSET=0.0f", NULL};
    ch_error err;
    *tu = ch_path_join(dir, "user.c");
    cr_assert_eq(ch_write_file_atomic(*tu, user_tu, strlen(user_tu), 0, &err), 0);
    ch_verify_setup s = {0};
    s.checklist = c;
    s.oracle = (ch_oracle){*tu, cc_argv, NULL, 0, NULL, NULL, 0};
    s.nvcc = nvcc();
    s.arch = arch();
    return s;
}

static ch_verifier *open_verifier(const ch_verify_setup *s)
{
    ch_error err;
    ch_verifier *v;
    cr_assert_eq(ch_verifier_open(s, &v, &err), 0, "%s", err.msg);
    return v;
}

/* saxpy_setup's verifier through last_stage; with runtime_lib, work directories are kept. */
static ch_verifier *open_saxpy_verifier(const ch_checklist *c, const char *dir, int last_stage,
                                        uint64_t seed, const char *runtime_lib, char **tu)
{
    ch_verify_setup s = saxpy_setup(c, dir, tu);
    s.last_stage = last_stage;
    s.keep = runtime_lib != NULL;
    s.seed = seed;
    s.runtime_lib = runtime_lib;
    return open_verifier(&s);
}

Test(verifier, stages_static_compile_and_no_device, .timeout = 240)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("vtest", &err);
    char *tu = NULL;
    ch_verifier *v = open_saxpy_verifier(&c, dir, -1, 1234, NULL, &tu);

    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, "extern \"C\" void saxpy_launcher(int n) {}\n", &r, &err), 0);
    cr_assert_eq(r.stage, CH_STAGE_STATIC);
    cr_assert_not(r.correct);
    cr_assert_eq(r.status[0], CH_ST_FAIL);
    cr_assert_not_null(strstr(r.message, "static: "), "%s", r.message);
    char *json = ch_verify_report_json(&r);
    cJSON *o = cJSON_Parse(json);
    cr_assert_not_null(o);
    cr_assert_str_eq(cJSON_GetObjectItem(o, "seed")->valuestring, "00000000000004d2");
    cJSON_Delete(o);
    free(json);
    ch_verify_report_free(&r);

    const char *broken = "#include <cuda_runtime.h>\n"
                         "__global__ void k(int n, float a, const float *x, float *y)\n"
                         "{ y[0] = undefined_variable; }\n"
                         "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float "
                         "*y)\n{ k<<<1, 1>>>(n, a, x, y); }\n";
    cr_assert_eq(ch_verifier_run(v, broken, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.stage, CH_STAGE_COMPILE, "%s", r.message);
    cr_assert_not_null(strstr(r.message, "undefined_variable"), "%s", r.message);
    char *fb = ch_verify_feedback(&r);
    cr_assert_not_null(strstr(fb, "candidate.cu(3)"), "diagnostic names the candidate line: %s",
                       fb);
    cr_assert_null(strstr(fb, "/tmp/"), "no paths in feedback: %s", fb);
    free(fb);
    ch_verify_report_free(&r);

    const char *good =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, float a, const float *x, float *y)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * a * x[i] + y[i]; "
        "}\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
        "{ float *dx, *dy; size_t b = n * sizeof(float); cudaMalloc(&dx, b); cudaMalloc(&dy, b);\n"
        "  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice); cudaMemcpy(dy, y, b, "
        "cudaMemcpyHostToDevice);\n"
        "  k<<<(n + 255) / 256, 256>>>(n, a, dx, dy);\n"
        "  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost); cudaFree(dx); cudaFree(dy); }\n";
    cr_assert_eq(ch_verifier_run(v, good, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.status[CH_STAGE_COMPILE], CH_ST_PASS, "%s", r.message);
    cJSON *res = cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "compile"), "resources");
    cr_assert(cJSON_GetArraySize(res) >= 1, "ptxas resource report kept");
    cr_assert_gt(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 0), "registers")->valueint, 0);
    if (system("nvidia-smi -L >/dev/null 2>&1") != 0) {
        cr_assert_eq(r.stage, CH_STAGE_SMOKE, "%s", r.message);
        cr_assert_not_null(strstr(r.message, "CUDA error"), "%s", r.message);
    }
    ch_verify_report_free(&r);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(tu);
    free(dir);
    fx_free(&c);
}

/* The start and seconds of stage 0 and the start of stage 1 in a CH_CC_TIMELINE file ("START
 * SECONDS PID ENTRY CANDIDATE STAGE STATUS ..." a line), -1 for a stage it does not note. */
static void timeline_stages(const char *path, double *start0, double *secs0, double *start1)
{
    char *text = NULL;
    ch_error err;
    cr_assert_eq(ch_read_file(path, &text, NULL, &err), 0, "%s", err.msg);
    *start0 = *secs0 = *start1 = -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        double start, secs;
        int stage;
        cr_assert_eq(sscanf(line, "%lf %lf %*d %*s %*s %d", &start, &secs, &stage), 3, "%s", line);
        if (stage == 0)
            *start0 = start, *secs0 = secs;
        else if (stage == 1)
            *start1 = start;
    }
    free(text);
}

/* Stage 0's AST half runs beside nvcc: a candidate it refuses fails stage 0 with the rule, and
 * nothing of the compile that ran meanwhile is kept (stage 1 not run); the timeline shows the
 * compile starting before the AST check ended. */
Test(verifier, ast_check_beside_the_compile, .timeout = 240)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("vtest", &err);
    char *timeline = ch_path_join(dir, "timeline.txt");
    setenv("CH_CC_TIMELINE", timeline, 1);
    char *tu = NULL;
    ch_verifier *v = open_saxpy_verifier(&c, dir, CH_STAGE_COMPILE, 99, NULL, &tu);
    /* a number made a pointer in the launcher: the text checks pass it, the AST check does not */
    const char *forged =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, float a, const float *x, float *y)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
        "{ float *dx = (float *)0x7f0000001000ull; float *dy = dx + n;\n"
        "  k<<<(n + 255) / 256, 256>>>(n, a, dx, dy); }\n";
    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, forged, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.stage, CH_STAGE_STATIC, "%s", r.message);
    cr_assert_eq(r.status[CH_STAGE_STATIC], CH_ST_FAIL);
    cr_assert_eq(r.status[CH_STAGE_COMPILE], CH_ST_NOT_RUN);
    cJSON *st = cJSON_GetObjectItem(r.details, "static");
    cr_assert_str_eq(cJSON_GetObjectItem(st, "check")->valuestring, "host-subset");
    cr_assert_null(cJSON_GetObjectItem(r.details, "compile"), "the compile's results are dropped");
    ch_verify_report_free(&r);
    double start0, secs0, start1;
    timeline_stages(timeline, &start0, &secs0, &start1);
    cr_assert_gt(secs0, 0, "stage 0 noted");
    cr_assert_eq(start1, -1, "a refused candidate notes no stage 1");

    /* a candidate both halves pass: its compile started before the AST check ended */
    char *timeline2 = ch_path_join(dir, "timeline2.txt");
    setenv("CH_CC_TIMELINE", timeline2, 1);
    const char *good = saxpy_host_launcher;
    cr_assert_eq(ch_verifier_run(v, good, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.status[CH_STAGE_STATIC], CH_ST_PASS, "%s", r.message);
    cr_assert_eq(r.status[CH_STAGE_COMPILE], CH_ST_PASS, "%s", r.message);
    cr_assert_not_null(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "compile"), "nvrtc"),
                       "NVRTC's verdict is recorded in stage 1");
    ch_verify_report_free(&r);
    timeline_stages(timeline2, &start0, &secs0, &start1);
    cr_assert_gt(start1, 0, "stage 1 noted");
    cr_assert_lt(start1, start0 + secs0, "nvcc started (%.3f) before the AST check ended (%.3f)",
                 start1, start0 + secs0);
    ch_verifier_close(v);
    unsetenv("CH_CC_TIMELINE");
    ch_remove_tree(dir, &err);
    free(timeline2);
    free(timeline);
    free(tu);
    free(dir);
    fx_free(&c);
}

/* A candidate with a device launcher: the verifier links its scaffold program with the trusted
 * runtime (the setup's runtime_lib), so that time mode's whole call goes through ch_rt_call_v1
 * as the dispatcher's does; the program defines ch_rt_call_v1 (not weak-undefined). */
Test(verifier, scaffold_program_links_the_runtime, .timeout = 240)
{
    const char *b = getenv("CH_CC_TEST_BUILD");
    char *lib = b ? ch_xasprintf("%s/lib/libch_runtime.a", b) : NULL;
    if (!lib || !ch_file_exists(lib)) {
        free(lib);
        cr_skip("the runtime library (CH_CC_TEST_BUILD/lib) is missing");
    }
    ch_checklist c;
    fx_saxpy(&c, 0);
    /* the scaffold's whole call: through the runtime when it is linked, and it says which */
    ch_strbuf src;
    ch_strbuf_init(&src);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &src, &err), 0, "%s", err.msg);
    cr_assert(strstr(src.data, "ch_rt_call_v1(&ch_rt_site_whole, ch_bufs, 2, ch_rt_thunk"), "%s",
              src.data);
    cr_assert(strstr(src.data, "{(void *)y, ch_count_y * sizeof *y, CH_RT_INOUT}"), "%s", src.data);
    cr_assert(strstr(src.data, "return saxpy_device_launcher(s->n, s->a, (const float *)dev[0], "
                               "(float *)dev[1]);"),
              "%s", src.data);
    cr_assert(strstr(src.data, "call_path=%s"), "%s", src.data);
    ch_strbuf_free(&src);
    /* an elementwise map (the checklist says so only from the user's body): the whole call is
     * the dispatcher's chunked one, the launcher called on a chunk's count */
    c.map = ch_xstrdup("n");
    ch_strbuf_init(&src);
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &src, &err), 0, "%s", err.msg);
    cr_assert(strstr(src.data, "ch_rt_call_map_v1(&ch_rt_site_whole, ch_bufs, 2, (size_t)n, "
                               "ch_rt_thunk, &ch_s);"),
              "%s", src.data);
    cr_assert(strstr(src.data, "static int ch_rt_thunk(void *const *dev, size_t count, const "
                               "void *ctx)"),
              "%s", src.data);
    cr_assert(strstr(src.data, "return saxpy_device_launcher((int)count, s->a, (const float "
                               "*)dev[0], (float *)dev[1]);"),
              "%s", src.data);
    cr_assert(strstr(src.data, "saxpy_device_launcher != NULL && ch_rt_call_map_v1 != NULL"), "%s",
              src.data);
    ch_strbuf_free(&src);
    free(c.map);
    c.map = NULL;

    char *dir = ch_make_temp_dir("vrt", &err);
    char *tu = NULL;
    /* kept: the program is read below */
    ch_verifier *v = open_saxpy_verifier(&c, dir, CH_STAGE_COMPILE, 99, lib, &tu);
    const char *cand =
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int n, float a, const float *x, float *y)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
        "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n"
        "{ if (n > 0) k<<<(n + 255) / 256, 256>>>(n, a, x, y); return (int)cudaGetLastError(); }\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
        "{ float *dx, *dy; size_t b = n * sizeof(float); cudaMalloc(&dx, b); cudaMalloc(&dy, b);\n"
        "  cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice); cudaMemcpy(dy, y, b, "
        "cudaMemcpyHostToDevice);\n"
        "  saxpy_device_launcher(n, a, dx, dy);\n"
        "  cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost); cudaFree(dx); cudaFree(dy); }\n";
    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, cand, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.status[CH_STAGE_COMPILE], CH_ST_PASS, "%s", r.message);
    cr_assert_not_null(r.work_dir);
    char *prog = ch_path_join(r.work_dir, "prog");
    char *cmd = ch_xasprintf("nm %s | grep -q ' T ch_rt_call_v1$'", prog);
    cr_assert_eq(system(cmd), 0, "%s does not define ch_rt_call_v1", prog);
    ch_remove_tree(r.work_dir, &err);
    free(cmd);
    free(prog);
    ch_verify_report_free(&r);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(tu);
    free(dir);
    free(lib);
    fx_free(&c);
}

/* ---- the verifier's smoke and correctness on a fake CUDA runtime (no GPU needed) ---------- */

/* saxpy as the oracle computes it (y = 2 a x + y) in a kernel the fake runtime emulates
 * (saxpy2), copies around it; a crash (SIGSEGV) where the condition `crash` on n holds */
static char *fake_gpu_candidate_when(const char *crash)
{
    return ch_xasprintf(
        "#include <cuda_runtime.h>\n"
        "__global__ void saxpy2(int n, float a, const float *x, float *y)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * a * x[i] + y[i]; "
        "}\n"
        "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    float *dx, *dy;\n"
        "    size_t b = n * sizeof(float);\n"
        "    cudaMalloc(&dx, b);\n"
        "    cudaMalloc(&dy, b);\n"
        "    /* where crash holds, a copy far past x's end (the fake runtime's memcpy faults) */\n"
        "    cudaMemcpy(dx, x, %s ? (size_t)1 << 40 : b, cudaMemcpyHostToDevice);\n"
        "    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);\n"
        "    saxpy2<<<(n + 255) / 256, 256>>>(n, a, dx, dy);\n"
        "    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);\n"
        "    cudaFree(dx);\n"
        "    cudaFree(dy);\n"
        "}\n",
        crash);
}

/* The same with a crash from n == BAD on (sizes run in increasing order), none when BAD < 0:
 * an ordering, which the magic-constant rule allows where `n == BAD` would be refused. */
static char *fake_gpu_candidate(int bad)
{
    char *cond = ch_xasprintf("n >= %d && %d > 0", bad, bad);
    char *src = fake_gpu_candidate_when(cond);
    free(cond);
    return src;
}

/* The GPU processes a verification started: lines in every trace the fake runtime left under
 * the work directory (one a process, in the run directory of each). */
static int processes_under(const char *work)
{
    char *cmd = ch_xasprintf("find '%s' -name cuda-processes -exec cat {} + | wc -l", work);
    char *argv[] = {"sh", "-c", cmd, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "%s", err.msg);
    int n = atoi(out.data);
    ch_strbuf_free(&out);
    free(cmd);
    return n;
}

/* One verification of fake_gpu_candidate(bad) through correctness, into r. */
static void verify_on_fake(ch_verifier *v, int bad, ch_verify_report *r)
{
    ch_error err;
    char *cand = fake_gpu_candidate(bad);
    cr_assert_eq(ch_verifier_run(v, cand, r, &err), 0, "%s", err.msg);
    cr_assert_not_null(r->work_dir, "kept");
    free(cand);
}

/* A verifier of saxpy (c: fx_saxpy) through last_stage whose programs run on the fake CUDA
 * runtime built into dir (*fake, *tu: the caller frees them after closing it); work kept. With
 * cache (a directory the caller keeps until it closes the verifier), the sanitizer is skipped
 * (none there) and a calibration is cached there (the fake runtime cannot run its program), for
 * the performance stage. */
static ch_verify_setup fake_setup(const ch_checklist *c, const char *dir, int last_stage,
                                  const char *cache, char **fake, char **tu)
{
    static char *nvcc_flags[] = {"-cudart=none", NULL};
    *fake = fx_fake_cudart(dir);
    cr_assert_not_null(*fake, "the fake CUDA runtime builds");
    ch_verify_setup s = saxpy_setup(c, dir, tu);
    s.nvcc_flags = nvcc_flags;
    /* the fake runtime goes in where the trusted runtime would: linked into every program */
    s.runtime_lib = *fake;
    s.last_stage = last_stage;
    s.keep = 1;
    s.seed = 7;
    s.no_nvrtc = 1;
    if (cache) {
        ch_error err;
        char *vdir = ch_path_join(cache, "verify");
        char *file = ch_xasprintf("%s/calib-v2-%s-%08llx.txt", vdir, arch(),
                                  1469598103934665603ULL & 0xffffffffULL);
        const char *text = "ch-calib: name=fake l2=52428800 d2d_gbs=3000 h2d_gbs=50 "
                           "d2h_gbs=50 sms=132 clock_khz=1980000 cc=90\n";
        cr_assert_eq(ch_mkdir_p(vdir, &err), 0, "%s", err.msg);
        cr_assert_eq(ch_write_file_atomic(file, text, strlen(text), 0, &err), 0, "%s", err.msg);
        free(file);
        free(vdir);
        s.cache_dir = cache;
        s.sanitizer = "/nonexistent/compute-sanitizer";
    }
    return s;
}

/* fake_setup's verifier through correctness */
static ch_verifier *open_fake_verifier(const ch_checklist *c, const char *dir, char **fake,
                                       char **tu)
{
    ch_verify_setup s = fake_setup(c, dir, CH_STAGE_CORRECT, NULL, fake, tu);
    return open_verifier(&s);
}

/* Smoke and correctness each run all their sizes in one scaffold process (one CUDA context,
 * not one a size), with the verdicts of one run a size: the outputs of every size judged, and a
 * crash reported at the stage and size that was running. */
Test(verifier, functional_stages_run_their_sizes_in_one_process, .timeout = 300)
{
    ch_error err;
    char *dir = ch_make_temp_dir("vcases", &err), *fake = NULL, *tu = NULL;
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_verifier *v = open_fake_verifier(&c, dir, &fake, &tu);

    /* sound: 3 smoke sizes, then 3 correctness sizes of 2 sets, in one process a stage */
    ch_verify_report r;
    verify_on_fake(v, -1, &r);
    cr_assert_eq(r.status[CH_STAGE_SMOKE], CH_ST_PASS, "%s", r.message ? r.message : "");
    cr_assert_eq(r.status[CH_STAGE_CORRECT], CH_ST_PASS, "%s", r.message ? r.message : "");
    cJSON *cj = cJSON_GetObjectItem(r.details, "correctness");
    cr_assert_eq(cJSON_GetObjectItem(cj, "sizes")->valueint, 3);
    /* and the structured sets (ch_data_shape), at the smallest size, in the same process */
    cr_assert_eq(cJSON_GetObjectItem(cj, "structured_sets")->valueint, 2);
    cr_assert_eq(processes_under(r.work_dir), 2, "one process for smoke, one for correctness");
    for (int k = 0; k < 3; k++)
        for (int set = 0; set < 2; set++) {
            char *out = ch_xasprintf("%s/correctness/%d/%d/y.out.bin", r.work_dir, k, set);
            cr_assert(ch_file_exists(out), "%s written", out);
            free(out);
        }
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);

    /* a crash at the second smoke size is stage 2's, at that size */
    verify_on_fake(v, 2, &r);
    cr_assert_eq(r.stage, CH_STAGE_SMOKE, "%s", r.message);
    cr_assert_eq(r.status[CH_STAGE_SMOKE], CH_ST_FAIL);
    cr_assert_str_eq(r.message, "smoke: killed by signal 11 at n=2");
    cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "smoke"), "sizes")->valueint,
                 2);
    cr_assert_eq(processes_under(r.work_dir), 1, "one process for the smoke sizes");
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);

    /* a crash at the second correctness size: smoke passed, correctness fails at 4099 */
    verify_on_fake(v, 4099, &r);
    cr_assert_eq(r.status[CH_STAGE_SMOKE], CH_ST_PASS, "%s", r.message);
    cr_assert_eq(r.stage, CH_STAGE_CORRECT, "%s", r.message);
    cr_assert_str_eq(r.message, "correctness: killed by signal 11 at n=4099");
    cr_assert_eq(processes_under(r.work_dir), 2);
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);

    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(fake);
    free(tu);
    free(dir);
    fx_free(&c);
}

/* Testing at the constants (ch_magic_sizes): a candidate wrong only inside (5000, 6000), which
 * none of the checklist's sizes (1000, 4099, 100003) reaches, fails at an extra size beside the
 * constants it compares n with. */
Test(verifier, extra_sizes_at_the_candidates_constants_catch_a_window, .timeout = 300)
{
    ch_error err;
    char *dir = ch_make_temp_dir("vmagic", &err), *fake = NULL, *tu = NULL;
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_verifier *v = open_fake_verifier(&c, dir, &fake, &tu);
    char *cand = fake_gpu_candidate_when("n > 5000 && n < 6000");
    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, cand, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.stage, CH_STAGE_CORRECT, "%s", r.message ? r.message : "(passed)");
    /* the constants largest first: 6000 (new), 6001, then 5999 inside the window */
    cr_assert_str_eq(r.message, "correctness: killed by signal 11 at n=5999");
    cJSON *cj = cJSON_GetObjectItem(r.details, "correctness");
    cr_assert_eq(cJSON_GetObjectItem(cj, "sizes_at_constants")->valueint, 6);
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);
    free(cand);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(fake);
    free(tu);
    free(dir);
    fx_free(&c);
}

/* A constant above every checklist size (attacks6/22: a trigger above the tune size) is
 * tested too, up to CH_MAGIC_MAX_BYTES; where the reference cannot compute such a size in
 * magic_ref_seconds, the size is left out with a note, not the candidate failed. */
Test(verifier, sizes_at_constants_reach_beyond_the_checklist_unless_the_reference_is_slow,
     .timeout = 300)
{
    ch_error err;
    char *dir = ch_make_temp_dir("vmagic2", &err), *fake = NULL, *tu = NULL;
    ch_checklist c;
    fx_saxpy(&c, 0);
    char *cand = fake_gpu_candidate_when("n > 3000000");
    ch_verifier *v = open_fake_verifier(&c, dir, &fake, &tu);
    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, cand, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.stage, CH_STAGE_CORRECT, "%s", r.message ? r.message : "(passed)");
    cr_assert_str_eq(r.message, "correctness: killed by signal 11 at n=3000001");
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(fake);
    free(tu);
    free(dir);

    /* the reference at about 1 us an element: 3 s at n = 3000000, over the 1 s allowed */
    dir = ch_make_temp_dir("vmagic3", &err);
    ch_verify_setup s = fake_setup(&c, dir, CH_STAGE_CORRECT, NULL, &fake, &tu);
    static char *slow_argv[] = {
        "cc",
        "-DOFFSET=({ volatile float s_ = 0; for (int k_ = 0; k_ < 600; k_++) s_ += k_; "
        "0.0f * s_; })",
        NULL};
    s.oracle.cc_argv = slow_argv;
    s.magic_ref_seconds = 1;
    v = open_verifier(&s);
    cr_assert_eq(ch_verifier_run(v, cand, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.status[CH_STAGE_CORRECT], CH_ST_PASS, "%s", r.message ? r.message : "");
    cJSON *cj = cJSON_GetObjectItem(r.details, "correctness");
    cr_assert_eq(cJSON_GetObjectItem(cj, "sizes_at_constants")->valueint, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(cj, "note")->valuestring,
                     "3 sizes at the candidate's constants left out: the reference takes over "
                     "1 s there");
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(fake);
    free(tu);
    free(dir);
    free(cand);
    fx_free(&c);
}

/* The performance stage's "cannot win" bound, passed to time mode and kept in the stage object:
 * for the first candidate CH_VERIFY_HOPELESS_FACTOR times the host path's time (measured
 * before the GPU is taken), for a later one that factor times the smaller of the host path's
 * time and the whole call of the first. The host path is made slow (about 0.5 us an element,
 * adding 0: a busy loop in OFFSET) so that the first candidate's call (a few ms on the fake
 * runtime) is the smaller. */
/* saxpy at a small tune size (the fake runtime copies and runs kernels on the host) through the
 * performance stage on the fake runtime, in a temp directory: fake_perf_setup, open_verifier
 * (changes to the setup in between), fake_perf_close. */
typedef struct fake_perf {
    ch_checklist c;
    char *dir, *cache, *fake, *tu;
} fake_perf;

static ch_verify_setup fake_perf_setup(fake_perf *f, const char *tag)
{
    ch_error err;
    f->dir = ch_make_temp_dir(tag, &err);
    cr_assert_not_null(f->dir, "%s", err.msg);
    fx_saxpy(&f->c, 0);
    f->c.tune.values[0] = 1 << 16;
    f->cache = ch_path_join(f->dir, "cache");
    return fake_setup(&f->c, f->dir, CH_STAGE_PERF, f->cache, &f->fake, &f->tu);
}

static void fake_perf_close(fake_perf *f, ch_verifier *v)
{
    ch_error err;
    ch_verifier_close(v);
    ch_remove_tree(f->dir, &err);
    free(f->cache);
    free(f->fake);
    free(f->tu);
    free(f->dir);
    fx_free(&f->c);
}

static double perf_number(const ch_verify_report *r, const char *key)
{
    cJSON *st = cJSON_GetObjectItem(r->details, "performance");
    cJSON *x = cJSON_GetObjectItem(st, key);
    cr_assert(cJSON_IsNumber(x), "performance.%s: %s", key, r->message ? r->message : "");
    return x->valuedouble;
}

Test(verifier, perf_bound_is_k_times_the_host_or_the_fastest_earlier_call, .timeout = 600)
{
    ch_error err;
    fake_perf f = {0};
    ch_verify_setup s = fake_perf_setup(&f, "vbound");
    static char *slow_argv[] = {
        "cc",
        "-DOFFSET=({ volatile float s_ = 0; for (int k_ = 0; k_ < 300; k_++) s_ += k_; "
        "0.0f * s_; })",
        NULL};
    s.oracle.cc_argv = slow_argv;
    ch_verifier *v = open_verifier(&s);

    ch_verify_report r1, r2;
    verify_on_fake(v, -1, &r1);
    cr_assert_eq(r1.status[CH_STAGE_PERF], CH_ST_PASS, "%s", r1.message ? r1.message : "");
    double host = perf_number(&r1, "host_ms");
    cr_assert_gt(host, 0);
    cr_assert_float_eq(perf_number(&r1, "hopeless_bound_ms"), CH_VERIFY_HOPELESS_FACTOR * host,
                       1e-9 * host, "the first candidate: the host path's time");
    cJSON *st1 = cJSON_GetObjectItem(r1.details, "performance");
    cr_assert_str_eq(cJSON_GetObjectItem(st1, "hopeless_bound_of")->valuestring, "host path");
    double call1 = r1.launcher_ms;
    cr_assert_gt(call1, 0);

    /* another source (never crashes either): the bound knows the first one's whole call */
    verify_on_fake(v, -2, &r2);
    cr_assert_eq(r2.status[CH_STAGE_PERF], CH_ST_PASS, "%s", r2.message ? r2.message : "");
    cr_assert_lt(call1, host, "the slow host path: %g ms, the first call %g ms", host, call1);
    double best = call1 < host ? call1 : host;
    cr_assert_float_eq(perf_number(&r2, "hopeless_bound_ms"), CH_VERIFY_HOPELESS_FACTOR * best,
                       1e-9 * best, "min(K x host %g, K x earlier %g)", host, call1);
    cJSON *st2 = cJSON_GetObjectItem(r2.details, "performance");
    cr_assert_str_eq(cJSON_GetObjectItem(st2, "hopeless_bound_of")->valuestring,
                     "earlier candidate");
    /* a stop by the bound is said with the sample and what it was held against */
    cJSON *stop = cJSON_GetObjectItem(st2, "stop");
    if (stop) {
        cr_assert_str_eq(stop->valuestring, "hopeless");
        const char *note = cJSON_GetObjectItem(st2, "stop_note")->valuestring;
        cr_assert(strncmp(note, "stopped after 1 sample: ", 24) == 0, "%s", note);
        cr_assert_str_eq(
            cJSON_GetObjectItem(cJSON_GetObjectItem(st2, "whole_call"), "stopped")->valuestring,
            "hopeless");
    }
    ch_remove_tree(r1.work_dir, &err);
    ch_remove_tree(r2.work_dir, &err);
    ch_verify_report_free(&r1);
    ch_verify_report_free(&r2);
    fake_perf_close(&f, v);
}

/* The dispatch curve's points are bounded by the host path's time at their size: at the
 * smallest (2 elements: tens of ns on the host, microseconds for any call on the fake runtime)
 * the first sample ends the timing and the point says so; a point that stopped so is over
 * CH_VERIFY_HOPELESS_FACTOR times its host time. */
Test(verifier, dispatch_curve_points_stop_at_their_hopeless_bound, .timeout = 600)
{
    ch_error err;
    fake_perf f = {0};
    ch_verify_setup s = fake_perf_setup(&f, "vcurve");
    ch_verifier *v = open_verifier(&s);
    ch_verify_report r;
    verify_on_fake(v, -1, &r);
    cr_assert_eq(r.status[CH_STAGE_PERF], CH_ST_PASS, "%s", r.message ? r.message : "");
    cJSON *curve =
        cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "performance"), "dispatch_curve");
    cr_assert_geq(cJSON_GetArraySize(curve), 2, "the first candidate's curve is measured");
    cJSON *small = cJSON_GetArrayItem(curve, 0);
    cr_assert_float_eq(cJSON_GetObjectItem(small, "elements")->valuedouble, 2.0, 1e-9);
    cJSON *stopped = cJSON_GetObjectItem(small, "stopped");
    cr_assert(cJSON_IsString(stopped) && strcmp(stopped->valuestring, "hopeless") == 0,
              "host %g ms, call %g ms", cJSON_GetObjectItem(small, "host_ms")->valuedouble,
              cJSON_GetObjectItem(small, "call_ms")->valuedouble);
    cJSON *pt;
    cJSON_ArrayForEach(pt, curve)
    {
        if (cJSON_GetObjectItem(pt, "stopped"))
            cr_assert_gt(cJSON_GetObjectItem(pt, "call_ms")->valuedouble,
                         CH_VERIFY_HOPELESS_FACTOR *
                             cJSON_GetObjectItem(pt, "host_ms")->valuedouble);
    }
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);
    fake_perf_close(&f, v);
}

/* The calibration program (src/verify/templates/calibrate.cu, built into the binary) compiles
 * on its own, as the verifier does it beside the first builds; a cached line is read back and a
 * damaged one is no calibration. (Running it needs a GPU.) */
Test(calibration, program_builds_and_cache_reads, .timeout = 240)
{
    ch_error err;
    char *dir = ch_make_temp_dir("calib", &err);
    char *exe = NULL;
    cr_assert_eq(ch_calib_build(nvcc(), arch(), dir, &exe, &err), 0, "%s", err.msg);
    cr_assert(ch_file_exists(exe), "%s", exe);
    free(exe);
    ch_calib cb;
    char *line = NULL;
    cr_assert_neq(ch_calib_cached(arch(), NULL, dir, &cb, &line), 0, "nothing cached yet");
    char *vdir = ch_path_join(dir, "verify");
    cr_assert_eq(ch_mkdir_p(vdir, &err), 0);
    char *file = ch_xasprintf("%s/calib-v2-%s-%08llx.txt", vdir, arch(),
                              1469598103934665603ULL & 0xffffffffULL);
    const char *text = "ch-calib: name=H200 l2=62914560 d2d_gbs=3900.5 h2d_gbs=55.1 "
                       "d2h_gbs=55.0 sms=132 clock_khz=1980000 cc=90\n";
    cr_assert_eq(ch_write_file_atomic(file, text, strlen(text), 0, &err), 0);
    cr_assert_eq(ch_calib_cached(arch(), NULL, dir, &cb, &line), 0);
    cr_assert_str_eq(cb.name, "H200");
    cr_assert_float_eq(cb.d2d_gbs, 3900.5, 1e-9);
    free(line);
    cr_assert_eq(ch_write_file_atomic(file, "ch-calib: name=x\n", 17, 0, &err), 0);
    cr_assert_neq(ch_calib_cached(arch(), NULL, dir, &cb, &line), 0, "a damaged line");
    ch_remove_tree(dir, &err);
    free(file);
    free(vdir);
    free(dir);
}
