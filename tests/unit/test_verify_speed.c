/* Verification speed and timing (issue 11): the scaffold's device-resident timing path and its
 * stopping rule, the verifier's plan chosen from the entry, the GPU lock (shared for the
 * functional stages, exclusive for timing), the device-code split for NVRTC, and evolution's
 * reuse of verdicts for identical sources. Everything here runs without a GPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "verify_fixture.h"

static const char *nvcc(void)
{
    return ch_file_exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
}

/* ---- the scaffold's device-resident timing ----------------------------------------------- */

static const char saxpy_kernel[] = FX_SAXPY_KERNEL;
static const char saxpy_host_launcher[] = FX_SAXPY_HOST_LAUNCHER;

static const char saxpy_device_launcher[] =
    "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n"
    "{ k<<<(n + 255) / 256, 256>>>(n, a, x, y); return (int)cudaGetLastError(); }\n";

/* Runs nvcc with args in dir; returns its exit status, the output in log. */
static int run_nvcc(const char *dir, char **args, ch_strbuf *log)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, nvcc());
    ch_strvec_push(&argv, "-arch=sm_90");
    for (char **a = args; *a; a++)
        ch_strvec_push(&argv, *a);
    /* a link: the scaffold's program is linked with its allocation functions wrapped, as
     * verification links it */
    if (strcmp(args[0], "-c") != 0)
        ch_scaffold_link_args(&argv);
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.cwd = dir;
    po.capture_stdout = 1;
    po.merge_stderr = 1;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    ch_error err;
    int rc = ch_proc_run(argv.items, &po, &pr, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    ch_strbuf_add(log, pr.out.data, pr.out.len);
    rc = pr.exit_code;
    ch_proc_result_free(&pr);
    ch_strvec_free(&argv);
    return rc;
}

static void write_in(const char *dir, const char *name, const char *text)
{
    ch_error err;
    char *p = ch_path_join(dir, name);
    cr_assert_eq(ch_write_file_atomic(p, text, strlen(text), 0, &err), 0, "%s", err.msg);
    free(p);
}

/* "nm" of an object or program, for the symbol checks. */
static char *nm_of(const char *path)
{
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    char *argv[] = {"nm", (char *)path, NULL};
    ch_proc_capture(argv, &out, &err);
    return ch_strbuf_detach(&out);
}

Test(scaffold_time, host_entry_times_the_device_launcher_on_resident_sets)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &s, &err), 0, "%s", err.msg);
    /* the weak declaration, the device sets, the events around the device call */
    cr_assert_not_null(strstr(s.data, "extern \"C\" int saxpy_device_launcher(int n, float a, "
                                      "const float *x, float *y) __attribute__((weak));"));
    cr_assert_not_null(strstr(s.data, "if (saxpy_device_launcher != NULL) {"));
    cr_assert_not_null(strstr(s.data, "CH_CHECK(cudaMalloc((void **)&x_dev[ch_s], x_bytes));"));
    const char *rec = strstr(s.data, "CH_CHECK(cudaEventRecord(ch_start, 0));\n"
                                     "            int ch_rc = saxpy_device_launcher(n, a, "
                                     "x_dev[ch_s], y_dev[ch_s]);\n"
                                     "            CH_CHECK(cudaEventRecord(ch_stop, 0));");
    cr_assert_not_null(rec, "events right around the device call:\n%s", s.data);
    cr_assert_not_null(strstr(s.data, "ch-kernel: kernel_ms="));
    /* the whole call still timed afterwards on host sets, as the dispatcher makes it: through
     * the trusted runtime when it is linked (else the candidate's launcher), saying which */
    const char *whole = strstr(s.data, "saxpy_ch_whole_call(n, a, x_set[ch_s], y_set[ch_s]);");
    cr_assert(whole && whole > rec, "whole call after the kernel timing");
    cr_assert_not_null(strstr(s.data, "ch_rt_path() ? \"runtime\" : \"launcher\""));
    cr_assert_not_null(strstr(s.data, "        saxpy_launcher(n, a, x, y);\n        return;"),
                       "the launcher when the runtime is not there");
    cr_assert_not_null(strstr(s.data, "x_set[ch_s] = (float *)malloc(x_bytes);"));
    cr_assert_not_null(strstr(s.data, "ch_stable("));
    cr_assert_null(strstr(s.data, "#include \"candidate"), "separate object: no #include");
    /* run mode judges the device launcher too: its own buffers, its outputs in P.dev.out.bin */
    const char *run_dev = strstr(s.data, "int ch_rc = saxpy_device_launcher(n, a, x_dl, y_dl);");
    cr_assert_not_null(run_dev, "run mode calls the device launcher");
    cr_assert_lt(run_dev, strstr(s.data, "static int ch_time("), "in run mode");
    cr_assert_not_null(strstr(s.data, "\".dev.out.bin\""));
    cr_assert_not_null(strstr(s.data, "ch-run: device_launcher=%d"));
    /* after the timing, both entry points agree on fresh inputs (else exit 5) */
    const char *agree = strstr(s.data, "if (size_t ch_at = ch_disagree(y_c, y_a, ch_count_y,");
    cr_assert(agree && agree > whole, "agreement check after the timing");
    cr_assert_not_null(strstr(s.data, "return 5;"));
    ch_strbuf_free(&s);
    fx_free(&c);
}

/* The gate (the verifier takes the GPU alone only then): in time mode, after the inputs are read,
 * their host copies made and the device set up, before any call of the entry. */
static void expect_gate_before_the_gpu(int device)
{
    ch_checklist c;
    fx_saxpy(&c, device);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &s, &err), 0, "%s", err.msg);
    const char *fn = strstr(s.data, "static int ch_time(");
    cr_assert_not_null(fn);
    /* the gate itself: says ready, then waits for the verifier's byte */
    const char *go = strstr(s.data, "static int ch_wait_for_go(void)\n{\n");
    cr_assert_not_null(go, "no gate function:\n%s", s.data);
    cr_assert_not_null(strstr(go, "    printf(\"ch-ready\\n\");\n    fflush(stdout);\n"
                                  "    if (fgetc(stdin) != EOF)\n        return 0;\n"),
                       "the gate does not say ready and wait:\n%s", go);
    const char *gate = strstr(fn, "    if (ch_wait_for_go() != 0)\n        return 2;\n");
    cr_assert_not_null(gate, "no gate in time mode:\n%s", fn);
    /* the device's set-up (its CUDA context) before the gate, the first call after it */
    const char *setup = strstr(fn, device ? "    cudaFree(0);\n" : "    ch_device_setup();\n");
    cr_assert(setup && setup < gate, "the device is set up before the gate:\n%s", fn);
    const char *call = strstr(fn, device ? "saxpy_launcher(" : "saxpy_ch_whole_call(");
    cr_assert(call && call > gate, "a call of the entry before the gate:\n%s", fn);
    const char *malloc_dev = strstr(fn, "cudaMalloc");
    cr_assert(!malloc_dev || malloc_dev > gate, "device memory before the gate");
    cr_assert_lt(strstr(fn, "ch_buf_read_into("), gate, "the inputs are read before the gate");
    if (!device)
        cr_assert_lt(strstr(fn, "memcpy(x_set[ch_s], x_in, x_bytes);"), gate,
                     "the host copies are made before the gate");
    ch_strbuf_free(&s);
    fx_free(&c);
}

/* The agreement check after the timing, compiled from the generated text and run on the host:
 * NaN and Inf where the launcher has them must be matched in kind (an entry whose inputs give
 * NaN still agrees with itself), a NaN where the launcher is finite never agrees, and an Inf
 * elsewhere does not widen the tolerance. */
Test(scaffold_time, the_agreement_check_judges_nan_and_inf_in_kind, .timeout = 120)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &s, &err), 0, "%s", err.msg);
    const char *fn = strstr(s.data, "template <typename T>\nstatic size_t ch_disagree(");
    cr_assert_not_null(fn);
    const char *end = strstr(fn, "\n}\n");
    cr_assert_not_null(end);
    char *dir = ch_make_temp_dir("disagree", &err);
    cr_assert_not_null(dir);
    char *text = ch_xasprintf(
        "#include <math.h>\n#include <stddef.h>\n%.*s\n"
        "int main(void)\n{\n"
        "    double n = NAN, inf = INFINITY;\n"
        "    double b1[] = {1, n, inf, -inf}, a1[] = {1, n, inf, -inf};\n"
        "    double a2[] = {1, 2, inf, -inf};              /* NaN lost */\n"
        "    double a3[] = {1, n, -inf, -inf};             /* Inf of the other sign */\n"
        "    double b4[] = {1, 2}, a4[] = {1, n};          /* NaN where b is finite */\n"
        "    double b5[] = {1, inf}, a5[] = {1.5, inf};    /* Inf: no infinite tolerance */\n"
        "    int i1[] = {3, 4}, i2[] = {3, 5};\n"
        "    return (ch_disagree(a1, b1, 4, 1e-3) != 0) | (ch_disagree(a2, b1, 4, 1e-3) != 2) << 1 "
        "|\n"
        "           (ch_disagree(a3, b1, 4, 1e-3) != 3) << 2 | (ch_disagree(a4, b4, 2, 1e-3) != 2) "
        "<< 3 |\n"
        "           (ch_disagree(a5, b5, 2, 1e-3) != 1) << 4 | (ch_disagree(i1, i1, 2, 0) != 0) << "
        "5 |\n"
        "           (ch_disagree(i2, i1, 2, 0) != 2) << 6;\n"
        "}\n",
        (int)(end + 3 - fn), fn);
    write_in(dir, "disagree.cc", text);
    char *cmd = ch_xasprintf(
        "cd '%s' && c++ -std=c++11 -Wall -Werror -o disagree disagree.cc && ./disagree", dir);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "did not run");
    cr_assert_eq(WEXITSTATUS(st), 0,
                 "failed cases (bits: 1 same kinds, 2 NaN lost, 4 Inf sign, "
                 "8 NaN where finite, 16 Inf widened, 32/64 integers): %d\n%s",
                 WEXITSTATUS(st), text);
    ch_remove_tree(dir, &err);
    free(cmd);
    free(text);
    free(dir);
    ch_strbuf_free(&s);
    fx_free(&c);
}

Test(scaffold_time, the_gpu_is_taken_alone_only_after_the_inputs_are_ready)
{
    expect_gate_before_the_gpu(0);
    expect_gate_before_the_gpu(1);
}

Test(scaffold_time, device_entry_has_no_device_launcher)
{
    ch_checklist c;
    fx_saxpy(&c, 1);
    ch_strbuf s, sig;
    ch_strbuf_init(&s);
    ch_strbuf_init(&sig);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(&c, NULL, &s, &err), 0, "%s", err.msg);
    cr_assert_null(strstr(s.data, "device_launcher"), "the launcher itself is device-resident");
    cr_assert_not_null(strstr(s.data, "CH_CHECK(cudaMalloc((void **)&x_set[ch_s], x_bytes));"));
    ch_scaffold_signatures(&c, &sig);
    cr_assert_null(strstr(sig.data, "device_launcher"));
    cr_assert_not_null(strstr(sig.data, "extern \"C\" void saxpy_launcher("));
    ch_strbuf_free(&s);
    ch_strbuf_free(&sig);
    fx_free(&c);
}

/* The scaffold of c and the signatures header a candidate is compiled with, written into dir
 * as scaffold.cu and sig.h (as the verifier's build writes them). */
static void write_scaffold(const ch_checklist *c, const char *dir)
{
    ch_strbuf s, sig;
    ch_strbuf_init(&s);
    ch_strbuf_init(&sig);
    ch_error err;
    cr_assert_eq(ch_scaffold_generate(c, NULL, &s, &err), 0, "%s", err.msg);
    ch_scaffold_signatures(c, &sig);
    write_in(dir, "scaffold.cu", s.data);
    write_in(dir, "sig.h", sig.data);
    ch_strbuf_free(&s);
    ch_strbuf_free(&sig);
}

/* The verifier's build: scaffold.o once, the candidate compiled with the signatures forced in
 * front, linked. A candidate with and one without a device launcher both link; only the first
 * defines the symbol the weak reference resolves to. */
Test(scaffold_time, separate_objects_compile_and_link_with_and_without_device_launcher,
     .timeout = 300)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("scafspeed", &err);
    cr_assert_not_null(dir);
    ch_strbuf log;
    ch_strbuf_init(&log);
    write_scaffold(&c, dir);
    char *with = ch_xasprintf("%s%s%s", saxpy_kernel, saxpy_host_launcher, saxpy_device_launcher);
    char *without = ch_xasprintf("%s%s", saxpy_kernel, saxpy_host_launcher);
    write_in(dir, "with.cu", with);
    write_in(dir, "without.cu", without);
    char *a0[] = {"-c", "-O2", "-o", "scaffold.o", "scaffold.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a0, &log), 0, "scaffold compiles:\n%s", log.data);
    char *a1[] = {"-c", "-include", "sig.h", "-o", "with.o", "with.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a1, &log), 0, "%s", log.data);
    char *a2[] = {"-c", "-include", "sig.h", "-o", "without.o", "without.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a2, &log), 0, "%s", log.data);
    char *l1[] = {"-o", "prog_with", "scaffold.o", "with.o", NULL};
    cr_assert_eq(run_nvcc(dir, l1, &log), 0, "%s", log.data);
    char *l2[] = {"-o", "prog_without", "scaffold.o", "without.o", NULL};
    cr_assert_eq(run_nvcc(dir, l2, &log), 0, "links without a device launcher:\n%s", log.data);
    char *so = ch_path_join(dir, "scaffold.o");
    char *nm = nm_of(so);
    cr_assert_not_null(strstr(nm, " w saxpy_device_launcher"), "weak reference:\n%s", nm);
    free(nm);
    char *pw = ch_path_join(dir, "prog_with"), *pwo = ch_path_join(dir, "prog_without");
    nm = nm_of(pw);
    cr_assert_not_null(strstr(nm, "T saxpy_device_launcher") ||
                           strstr(nm, "W saxpy_device_launcher"),
                       "defined in the program with it:\n%s", nm);
    free(nm);
    nm = nm_of(pwo);
    cr_assert_null(strstr(nm, "T saxpy_device_launcher"));
    free(nm);

    /* a device launcher with another signature is a compile error, not a wrong call */
    write_in(dir, "bad.cu",
             "extern \"C\" int saxpy_device_launcher(int n, float a, float *x, float *y)\n"
             "{ return 0; }\n");
    char *a3[] = {"-c", "-include", "sig.h", "-o", "bad.o", "bad.cu", NULL};
    ch_strbuf_reset(&log);
    cr_assert_neq(run_nvcc(dir, a3, &log), 0, "signature mismatch must not compile");

    /* the one-unit form (the candidate #included) compiles too, weak after the definition */
    ch_strbuf one;
    ch_strbuf_init(&one);
    cr_assert_eq(ch_scaffold_generate(&c, "with.cu", &one, &err), 0);
    write_in(dir, "one.cu", one.data);
    char *a4[] = {"-c", "-o", "one.o", "one.cu", NULL};
    ch_strbuf_reset(&log);
    cr_assert_eq(run_nvcc(dir, a4, &log), 0, "%s", log.data);
    ch_strbuf_free(&one);

    ch_remove_tree(dir, &err);
    free(so);
    free(pw);
    free(pwo);
    free(with);
    free(without);
    free(dir);
    ch_strbuf_free(&log);
    fx_free(&c);
}

/* The gate of time mode, run: a host entry's program built as the verifier builds it, in time
 * mode through the sandbox with a gate, says ch-ready after reading its inputs, waits, and goes
 * on once the gate opened (here, without a GPU, to its first CUDA error). */
static void count_gate(void *ctx)
{
    (*(int *)ctx)++;
}

Test(scaffold_time, time_mode_stops_at_the_gate_until_it_opens, .timeout = 300)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("scafgate", &err);
    cr_assert_not_null(dir);
    ch_strbuf log;
    ch_strbuf_init(&log);
    write_scaffold(&c, dir);
    char *with = ch_xasprintf("%s%s%s", saxpy_kernel, saxpy_host_launcher, saxpy_device_launcher);
    write_in(dir, "with.cu", with);
    char *a0[] = {"-c", "-O2", "-o", "scaffold.o", "scaffold.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a0, &log), 0, "scaffold compiles:\n%s", log.data);
    char *a1[] = {"-c", "-include", "sig.h", "-o", "with.o", "with.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a1, &log), 0, "%s", log.data);
    char *l1[] = {"-o", "prog", "scaffold.o", "with.o", NULL};
    cr_assert_eq(run_nvcc(dir, l1, &log), 0, "%s", log.data);
    char *set = ch_path_join(dir, "tune/0");
    cr_assert_eq(ch_mkdir_p(set, &err), 0);
    int n = 1000;
    float a = 2, x[1000], y[1000];
    for (int i = 0; i < n; i++)
        x[i] = y[i] = (float)i;
    const char *names[] = {"n.bin", "a.bin", "x.bin", "y.bin"};
    const void *data[] = {&n, &a, x, y};
    ch_scalar types[] = {CH_T_INT, CH_T_FLOAT, CH_T_FLOAT, CH_T_FLOAT};
    size_t counts[] = {1, 1, 1000, 1000};
    for (int i = 0; i < 4; i++) {
        char *f = ch_path_join(set, names[i]);
        cr_assert_eq(ch_buf_write(f, types[i], data[i], counts[i], &err), 0, "%s", err.msg);
        free(f);
    }
    char *tune = ch_path_join(dir, "tune"), *prog = ch_path_join(dir, "prog");
    int opened = 0;
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = tune;
    so.wall_seconds = 60;
    so.gate_line = "ch-ready";
    so.gate = count_gate;
    so.gate_ctx = &opened;
    char *argv[] = {prog, "time", tune, "1", "1", "3", "1", NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    cr_assert_eq(ch_sandbox_run(&so, argv, &pr, &err), 0, "%s", err.msg);
    cr_assert_eq(opened, 1, "the gate opened %d times; out: %s; err: %s", opened,
                 pr.out.data ? pr.out.data : "", pr.err.data ? pr.err.data : "");
    cr_assert(!pr.timed_out, "the program hung after the gate; out: %s; err: %s",
              pr.out.data ? pr.out.data : "", pr.err.data ? pr.err.data : "");
    cr_assert(pr.out.data && strncmp(pr.out.data, "ch-ready\n", 9) == 0,
              "ch-ready is the first line: %s", pr.out.data ? pr.out.data : "");
    cr_assert(!pr.err.data || !strstr(pr.err.data, "gave no go"), "the go byte was not read: %s",
              pr.err.data);
    ch_proc_result_free(&pr);
    ch_remove_tree(dir, &err);
    free(set);
    free(tune);
    free(prog);
    free(with);
    free(dir);
    ch_strbuf_free(&log);
    fx_free(&c);
}

/* ---- the stopping rule, compiled from the generated text and run ---------------------------- */

static const char stable_main[] =
    "#include <stdio.h>\n"
    "int main(void)\n"
    "{\n"
    "    double flat[8] = {1.00, 1.01, 0.995, 1.0, 1.005, 1, 1, 1};\n"
    "    double noisy[8] = {1.0, 1.3, 0.8, 1.2, 0.9, 1.1, 0.7, 1.4};\n"
    "    double late[12] = {5, 4, 3, 2, 1.5, 1.0, 1.0, 1.005, 1.0, 0.995, 1, 1};\n"
    "    double zero[6] = {0, 0, 0, 0, 0, 0};\n"
    "    printf(\"%d %d %d %d %d %d %d %d %d %d %d\\n\",\n"
    "           ch_stable(flat, 4, 3, 100, 0),    /* fewer than K: go on */\n"
    "           ch_stable(flat, 5, 3, 100, 0),    /* K within 2%: stable */\n"
    "           ch_stable(flat, 5, 6, 100, 0),    /* below the minimum: go on */\n"
    "           ch_stable(noisy, 8, 3, 100, 0),   /* noisy: go on */\n"
    "           ch_stable(noisy, 8, 3, 8, 0),     /* at the maximum */\n"
    "           ch_stable(noisy, 6, 3, 100, 5000), /* budget spent */\n"
    "           ch_stable(noisy, 2, 3, 100, 5000), /* budget, below the minimum: stops */\n"
    "           ch_stable(noisy, 0, 3, 100, 5000), /* budget, no sample yet: go on */\n"
    "           ch_stable(late, 6, 3, 100, 0),    /* still falling */\n"
    "           ch_stable(late, 10, 3, 100, 0),   /* settled */\n"
    "           ch_stable(zero, 6, 3, 100, 0));   /* zero times never count as stable */\n"
    "    /* the whole call's rule: 5% and 400 ms; the kernel's: 2% and 3 s */\n"
    "    double pcie[6] = {10.0, 10.3, 9.9, 10.2, 9.95, 10.25};\n"
    "    printf(\"%d %d %d %d %d\\n\",\n"
    "           ch_stable(pcie, 6, 3, 100, 0),        /* 4% spread: not within 2% */\n"
    "           ch_call_stable(pcie, 6, 3, 100, 0),   /* within 5%: the whole call settles */\n"
    "           ch_call_stable(noisy, 8, 3, 100, 0),  /* 40% spread: go on */\n"
    "           ch_call_stable(noisy, 8, 3, 100, 500), /* its budget is spent at 400 ms */\n"
    "           ch_stable(noisy, 8, 3, 100, 500));     /* the kernel's is not */\n"
    "    printf(\"%s %s %s %s\\n\", ch_stop_name(1), ch_stop_name(2), ch_stop_name(3),\n"
    "           ch_stop_name(4));\n"
    "    printf(\"%d %d %d %d %d\\n\",\n"
    "           ch_hopeless(500, 1, 100),  /* the first sample over the bound */\n"
    "           ch_hopeless(50, 1, 100),   /* under it: timed as before */\n"
    "           ch_hopeless(500, 2, 100),  /* only the first sample counts */\n"
    "           ch_hopeless(500, 1, 0),    /* no bound */\n"
    "           ch_hopeless(100, 1, 100)); /* at the bound: not over it */\n"
    "    return 0;\n"
    "}\n";

Test(scaffold_time, stopping_rule_as_generated)
{
    ch_error err;
    char *dir = ch_make_temp_dir("stable", &err);
    ch_strbuf code;
    ch_strbuf_init(&code);
    ch_scaffold_stable_code(&code);
    ch_strbuf_adds(&code, stable_main);
    write_in(dir, "stable.c", code.data);
    char *src = ch_path_join(dir, "stable.c"), *exe = ch_path_join(dir, "stable");
    ch_strbuf log;
    ch_strbuf_init(&log);
    char *cc[] = {"cc", "-std=c11", "-Wall", "-Werror", "-o", exe, src, NULL};
    cr_assert_eq(ch_proc_capture(cc, &log, &err), 0, "the rule is valid C: %s", log.data);
    ch_strbuf_reset(&log);
    char *run[] = {exe, NULL};
    cr_assert_eq(ch_proc_capture(run, &log, &err), 0);
    cr_assert_str_eq(log.data,
                     "0 1 0 0 2 3 3 0 0 1 0\n0 1 0 3 0\nstable max budget hopeless\n1 0 0 0 0\n");
    ch_strbuf_reset(&log);
    char *cxx[] = {"c++", "-Wall", "-Werror", "-x", "c++", "-o", exe, src, NULL};
    cr_assert_eq(ch_proc_capture(cxx, &log, &err), 0, "and valid C++: %s", log.data);
    ch_remove_tree(dir, &err);
    ch_strbuf_free(&log);
    ch_strbuf_free(&code);
    free(src);
    free(exe);
    free(dir);
}

/* ---- the scaffold run on a fake CUDA runtime (tests/unit/data/fake_cudart.c) ----------------- */

/* saxpy on the host (the fake runtime runs no kernels): a null write at n == 7, and 700 ms a
 * call from n == 1000 on (a slow candidate, for the time budget) */
static const char host_saxpy[] =
    "#include <time.h>\n"
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    if (n == 7)\n"
    "        *(volatile int *)0 = 1;\n"
    "    if (n >= 1000) {\n"
    "        struct timespec d = {0, 700000000};\n"
    "        nanosleep(&d, 0);\n"
    "    }\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n";

/* The program built as the verifier builds it (scaffold.o, the candidate compiled with the
 * signatures forced in front, linked), on the fake runtime; returns its path. */
static char *build_on_fake_runtime(const ch_checklist *c, const char *dir, const char *cand)
{
    ch_strbuf log;
    ch_strbuf_init(&log);
    char *fake = fx_fake_cudart(dir);
    cr_assert_not_null(fake, "the fake CUDA runtime builds");
    write_scaffold(c, dir);
    write_in(dir, "candidate.cu", cand);
    char *a0[] = {"-c", "-O2", "-o", "scaffold.o", "scaffold.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a0, &log), 0, "scaffold compiles:\n%s", log.data);
    char *a1[] = {"-c", "-include", "sig.h", "-o", "candidate.o", "candidate.cu", NULL};
    cr_assert_eq(run_nvcc(dir, a1, &log), 0, "%s", log.data);
    char *l1[] = {"-cudart=none", "-o", "prog", "scaffold.o", "candidate.o", fake, NULL};
    cr_assert_eq(run_nvcc(dir, l1, &log), 0, "%s", log.data);
    free(fake);
    ch_strbuf_free(&log);
    return ch_path_join(dir, "prog");
}

/* saxpy's input set of n elements in DIR/0 (x[i] = i, y[i] = 1, a = 2) */
static void write_saxpy_set(const char *dir, int n)
{
    ch_error err;
    char *set = ch_path_join(dir, "0");
    cr_assert_eq(ch_mkdir_p(set, &err), 0, "%s", err.msg);
    float a = 2, *x = calloc((size_t)n, sizeof *x), *y = calloc((size_t)n, sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = (float)i, y[i] = 1;
    const char *names[] = {"n.bin", "a.bin", "x.bin", "y.bin"};
    const void *data[] = {&n, &a, x, y};
    ch_scalar types[] = {CH_T_INT, CH_T_FLOAT, CH_T_FLOAT, CH_T_FLOAT};
    size_t counts[] = {1, 1, (size_t)n, (size_t)n};
    for (int i = 0; i < 4; i++) {
        char *f = ch_path_join(set, names[i]);
        cr_assert_eq(ch_buf_write(f, types[i], data[i], counts[i], &err), 0, "%s", err.msg);
        free(f);
    }
    free(x);
    free(y);
    free(set);
}

/* 1 when DIR/0/y.out.bin holds saxpy's n results for write_saxpy_set's inputs */
static int saxpy_out_right(const char *dir, int n)
{
    char *f = ch_xasprintf("%s/0/y.out.bin", dir);
    void *got = NULL;
    ch_error err;
    int ok = ch_buf_read(f, CH_T_FLOAT, (size_t)n, &got, NULL, &err) == 0;
    for (int i = 0; ok && i < n; i++)
        ok = ((float *)got)[i] == 2.0f * (float)i + 1.0f;
    free(got);
    free(f);
    return ok;
}

/* lines in a file of the fake runtime's traces (0: none) */
static int trace_lines(const char *dir, const char *name)
{
    char *f = ch_path_join(dir, name), *text = NULL;
    ch_error err;
    int n = 0;
    if (ch_read_file(f, &text, NULL, &err) == 0)
        for (const char *p = text; *p; p++)
            n += *p == '\n';
    free(text);
    free(f);
    return n;
}

/* fx_saxpy's host entry in c, a temp directory (*dir, caller frees) and the program of
 * candidate cand built in it on the fake runtime (returned, caller frees) */
static char *fake_saxpy_prog(ch_checklist *c, const char *tag, const char *cand, char **dir)
{
    fx_saxpy(c, 0);
    ch_error err;
    *dir = ch_make_temp_dir(tag, &err);
    cr_assert_not_null(*dir, "%s", err.msg);
    return build_on_fake_runtime(c, *dir, cand);
}

static ch_proc_result run_prog(const char *dir, char **argv, ch_sandbox_opts *so)
{
    ch_error err;
    so->dir = dir;
    if (!so->wall_seconds)
        so->wall_seconds = 60;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    cr_assert_eq(ch_sandbox_run(so, argv, &pr, &err), 0, "%s", err.msg);
    return pr;
}

/* Run mode takes several cases in one process (one CUDA context for a stage's sizes), names
 * each on stdout before it starts, and writes every case's outputs as one run of each would; a
 * crash in the second case leaves the first case's outputs and names the second last. */
Test(scaffold_fake_gpu, run_mode_takes_several_cases_in_one_process, .timeout = 300)
{
    ch_checklist c;
    ch_error err;
    char *dir;
    char *prog = fake_saxpy_prog(&c, "scafcases", host_saxpy, &dir);
    char *stage = ch_path_join(dir, "stage");
    char *a = ch_path_join(stage, "a"), *b = ch_path_join(stage, "b"),
         *d = ch_path_join(stage, "d");
    write_saxpy_set(a, 5);
    write_saxpy_set(b, 6);
    write_saxpy_set(d, 7);

    char *argv[] = {prog, "run", a, "1", b, "1", NULL};
    ch_sandbox_opts so = {0};
    ch_proc_result pr = run_prog(stage, argv, &so);
    cr_assert_eq(pr.exit_code, 0, "out: %s; err: %s", pr.out.data ? pr.out.data : "",
                 pr.err.data ? pr.err.data : "");
    char *want = ch_xasprintf(CH_SCAFFOLD_CASE " %s\nch-run: device_launcher=0\n" CH_SCAFFOLD_CASE
                                               " %s\nch-run: device_launcher=0\n",
                              a, b);
    cr_assert_str_eq(pr.out.data, want, "each case named as it starts");
    free(want);
    cr_assert(saxpy_out_right(a, 5), "the first case's outputs");
    cr_assert(saxpy_out_right(b, 6), "the second case's outputs");
    cr_assert_eq(trace_lines(stage, "cuda-processes"), 1, "one process for both cases");
    ch_proc_result_free(&pr);

    /* the second case crashes: the first is whole, the last case named is the second */
    char *a2 = ch_path_join(a, "0/y.out.bin");
    remove(a2);
    char *argv2[] = {prog, "run", a, "1", d, "1", NULL};
    memset(&so, 0, sizeof so);
    pr = run_prog(stage, argv2, &so);
    cr_assert(pr.signaled, "the null write kills it: exit %d", pr.exit_code);
    cr_assert(saxpy_out_right(a, 5), "the first case's outputs are written before the second");
    const char *last = strstr(pr.out.data, CH_SCAFFOLD_CASE " ");
    for (const char *p = last; p; p = strstr(p + 1, "\n" CH_SCAFFOLD_CASE " "))
        last = p[0] == '\n' ? p + 1 : p;
    char *named = ch_xasprintf(CH_SCAFFOLD_CASE " %s\n", d);
    cr_assert(last && strcmp(last, named) == 0, "the crash is in the second case: %s", pr.out.data);
    free(named);
    ch_proc_result_free(&pr);

    /* a bad NSETS of a later case fails before any case runs */
    char *argv3[] = {prog, "run", a, "1", b, "0", NULL};
    memset(&so, 0, sizeof so);
    pr = run_prog(stage, argv3, &so);
    cr_assert_eq(pr.exit_code, 2);
    cr_assert(!pr.out.data || !strstr(pr.out.data, CH_SCAFFOLD_CASE), "%s", pr.out.data);
    ch_proc_result_free(&pr);

    ch_remove_tree(dir, &err);
    free(a2);
    free(a);
    free(b);
    free(d);
    free(stage);
    free(prog);
    free(dir);
    fx_free(&c);
}

/* Time mode on a candidate whose call takes 700 ms: the device is set up before the gate (the
 * GPU is taken alone only for the timed calls), and the time budget (CH_TIME_BUDGET_MS, 3 s)
 * ends the warmup and the timed loop before MIN_REPEATS (10) samples: a slow candidate holds
 * the GPU a few seconds, not WARMUP + MIN_REPEATS calls. */
static void context_at_gate(void *ctx)
{
    const char *dir = ((const char **)ctx)[0];
    char *f = ch_path_join(dir, "cuda-context");
    ((const char **)ctx)[1] = ch_file_exists(f) ? "made" : "not made";
    free(f);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(scaffold_fake_gpu, time_mode_sets_up_before_the_gate_and_stops_at_the_budget, .timeout = 300)
{
    char *dir = NULL;
    ch_checklist c;
    char *prog = fake_saxpy_prog(&c, "scafbudget", host_saxpy, &dir),
         *tune = ch_path_join(dir, "tune");
    write_saxpy_set(tune, 1000);
    const char *gate[2] = {tune, NULL};
    ch_sandbox_opts so = {0};
    so.gate_line = CH_SCAFFOLD_READY;
    so.gate = context_at_gate;
    so.gate_ctx = gate;
    /* WARMUP 10, REPEATS 100, MIN_REPEATS 10 */
    char *argv[] = {prog, "time", tune, "1", "10", "100", "10", NULL};
    double t0 = wall_now();
    ch_proc_result pr = run_prog(tune, argv, &so);
    double took = wall_now() - t0;
    const char *out = pr.out.data ? pr.out.data : "";
    cr_assert_eq(pr.exit_code, 0, "out: %s; err: %s", out, pr.err.data ? pr.err.data : "");
    cr_assert_str_eq(gate[1] ? gate[1] : "", "made", "the CUDA context is made before the gate");
    cr_assert_eq(trace_lines(tune, "cuda-context"), 1, "set up once");
    cr_assert_not_null(strstr(out, "ch-cold: setup_ms="), "%s", out);
    const char *t = strstr(out, "ch-time: ");
    cr_assert_not_null(t, "%s", out);
    int repeats = 0;
    const char *r = strstr(t, " repeats=");
    cr_assert(r && sscanf(r, " repeats=%d", &repeats) == 1, "%s", t);
    cr_assert_not_null(strstr(t, " stop=budget "), "%s", t);
    cr_assert(repeats >= 1 && repeats < 10, "the budget stops before MIN_REPEATS: %d", repeats);
    /* 1 first call + about 5 warmup + about 5 timed calls of 0.7 s; without the budget's say
     * over warmup and MIN_REPEATS, 21 calls (14.7 s) */
    cr_assert_lt(took, 11.0, "the run took %.1f s", took);
    ch_proc_result_free(&pr);
    ch_error err;
    ch_remove_tree(dir, &err);
    free(tune);
    free(prog);
    free(dir);
    fx_free(&c);
}

/* ---- the "cannot win" bound of time mode (BOUND_MS) on the fake runtime -----------------------
 */

/* saxpy on the host with a device launcher; each entry point appends a line to calls-launcher or
 * calls-device in the run directory as it is called and sleeps by n: n == 1000 both 400 ms (the
 * launcher 500), n == 2000 the launcher 500 ms and the device launcher 1 ms, else both 1 ms. */
static const char host_saxpy_timed[] =
    "#include <stdio.h>\n"
    "#include <time.h>\n"
    "static void called(const char *trace, int ms)\n"
    "{\n"
    "    FILE *f = fopen(trace, \"a\");\n"
    "    if (f) {\n"
    "        fputs(\"1\\n\", f);\n"
    "        fclose(f);\n"
    "    }\n"
    "    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};\n"
    "    nanosleep(&d, 0);\n"
    "}\n"
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    called(\"calls-launcher\", n == 1000 || n == 2000 ? 500 : 1);\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    called(\"calls-device\", n == 1000 ? 400 : 1);\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "    return 0;\n"
    "}\n";

/* One time-mode run of prog on a fresh set of n elements in DIR/tN: WARMUP 3, REPEATS 100,
 * MIN_REPEATS 10, then bound (NULL: the argument left out, as before it existed); reply: what
 * the gate sends after the go byte (NULL: nothing). Its stdout goes into *out (caller frees);
 * *launcher and *device: the calls of each entry point. */
static void time_with_bound(const char *prog, const char *dir, int n, const char *bound,
                            const char *reply, char **out, int *launcher, int *device)
{
    /* removed at the end: each run has a fresh one */
    char *tune = ch_xasprintf("%s/t%d", dir, n);
    write_saxpy_set(tune, n);
    char *argv[] = {(char *)prog, "time", tune, "1", "3", "100", "10", (char *)bound, NULL};
    ch_sandbox_opts so = {0};
    int opened = 0;
    so.gate_line = CH_SCAFFOLD_READY;
    so.gate = count_gate;
    so.gate_ctx = &opened;
    so.gate_reply = reply;
    ch_proc_result pr = run_prog(tune, argv, &so);
    cr_assert_eq(pr.exit_code, 0, "out: %s; err: %s", pr.out.data ? pr.out.data : "",
                 pr.err.data ? pr.err.data : "");
    cr_assert_eq(opened, 1);
    *out = ch_xstrdup(pr.out.data ? pr.out.data : "");
    *launcher = trace_lines(tune, "calls-launcher");
    *device = trace_lines(tune, "calls-device");
    ch_proc_result_free(&pr);
    ch_error err;
    ch_remove_tree(tune, &err);
    free(tune);
}

/* the word after " KEY=" on the line starting with PREFIX in out, into w (empty: none) */
static void line_word(const char *out, const char *prefix, const char *key, char *w, size_t cap)
{
    *w = '\0';
    const char *l = strstr(out, prefix);
    if (!l)
        return;
    size_t len = strcspn(l, "\n");
    char *pat = ch_xasprintf(" %s=", key);
    const char *k = memmem(l, len, pat, strlen(pat));
    if (k) {
        k += strlen(pat);
        snprintf(w, cap, "%.*s", (int)strcspn(k, " \n"), k);
    }
    free(pat);
}

/* the word after " KEY=" on out's PREFIX line is want */
static void expect_word(const char *out, const char *prefix, const char *key, const char *want)
{
    char w[32];
    line_word(out, prefix, key, w, sizeof w);
    cr_assert_str_eq(w, want, "%s %s: %s", prefix, key, out);
}

static int line_int(const char *out, const char *prefix, const char *key)
{
    char w[32];
    line_word(out, prefix, key, w, sizeof w);
    return *w ? atoi(w) : -1;
}

static double line_ms(const char *out, const char *prefix, const char *key)
{
    char w[32];
    line_word(out, prefix, key, w, sizeof w);
    return *w ? atof(w) : -1;
}

/* The kernels' first sample (400 ms) over a 100 ms bound ends the kernel loop after 1 sample
 * and the whole call's warmup and timing with it: the device launcher is called for its 3
 * warmups and 1 sample, the launcher once (the process's first call, which stands for the whole
 * call), and neither again for the agreement check. Without the bound: until the 3 s budget in
 * both loops, then the agreement. */
/* attacks6/28: a launcher that never frees its scratch passes every functional test; time
 * mode's leak check sees the free device memory fall over the timed calls and again over as
 * many more ("ch-leak:"), and the verifier refuses it. One that frees its scratch is not named. */
static const char host_saxpy_scratch[] =
    "#include <cuda_runtime_api.h>\n"
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"
    "    void *scratch = 0;\n"
    "    if (cudaMalloc(&scratch, (size_t)16 << 20) != cudaSuccess)\n"
    "        return;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "    %s\n"
    "}\n";

Test(scaffold_fake_gpu, time_mode_names_a_call_that_leaks_device_memory, .timeout = 300)
{
    for (int leaks = 1; leaks >= 0; leaks--) {
        char *cand = ch_xasprintf(host_saxpy_scratch, leaks ? "" : "cudaFree(scratch);");
        char *dir = NULL;
        ch_checklist c;
        char *prog = fake_saxpy_prog(&c, "scafleak", cand, &dir), *tune = ch_path_join(dir, "tune");
        write_saxpy_set(tune, 100);
        char *argv[] = {prog, "time", tune, "1", "2", "20", "5", NULL};
        ch_sandbox_opts so = {0};
        so.gate_line = CH_SCAFFOLD_READY;
        so.gate = context_at_gate;
        const char *gate[2] = {tune, NULL};
        so.gate_ctx = gate;
        ch_proc_result pr = run_prog(tune, argv, &so);
        const char *out = pr.out.data ? pr.out.data : "";
        cr_assert_eq(pr.exit_code, 0, "out: %s; err: %s", out, pr.err.data ? pr.err.data : "");
        cr_assert_not_null(strstr(out, "ch-time: "), "%s", out);
        const char *leak = strstr(out, "ch-leak: calls=");
        if (leaks) {
            long long lost = 0;
            int calls = 0;
            cr_assert(leak && sscanf(leak, "ch-leak: calls=%d lost_bytes=%lld", &calls, &lost) == 2,
                      "%s", out);
            cr_assert(calls >= 10 && lost >= (long long)calls * (16 << 20),
                      "16 MiB a call: %d calls, %lld bytes", calls, lost);
        } else {
            cr_assert_null(leak, "a call that frees its scratch: %s", out);
        }
        ch_proc_result_free(&pr);
        ch_error err;
        ch_remove_tree(dir, &err);
        free(tune);
        free(prog);
        free(dir);
        free(cand);
        fx_free(&c);
    }
}

Test(scaffold_fake_gpu, a_first_kernel_sample_over_the_bound_ends_both_loops, .timeout = 300)
{
    char *dir = NULL;
    ch_checklist c;
    ch_error err;
    char *prog = fake_saxpy_prog(&c, "scafhopeless", host_saxpy_timed, &dir);
    char *out;
    int launcher, device;

    time_with_bound(prog, dir, 1000, "100", NULL, &out, &launcher, &device);
    cr_assert_eq(line_int(out, "ch-kernel:", "repeats"), 1, "%s", out);
    expect_word(out, "ch-kernel:", "stop", "hopeless");
    expect_word(out, "ch-hopeless:", "loop", "kernel");
    cr_assert_geq(line_ms(out, "ch-hopeless:", "sample_ms"), 100.0, "over the bound: %s", out);
    expect_word(out, "ch-time:", "stop", "hopeless");
    cr_assert_eq(line_int(out, "ch-time:", "repeats"), 0, "no whole call timed: %s", out);
    cr_assert_geq(line_ms(out, "ch-time:", "wall_ms"), 500.0, "the first call stands for it: %s",
                  out);
    cr_assert_eq(device, 3 + 1, "3 warmups and 1 sample of the kernels: %d", device);
    cr_assert_eq(launcher, 1, "only the first call: no warmup, timing or agreement: %d", launcher);
    free(out);

    /* the bound known only when the GPU is had (the gate's reply, a candidate timed while this
     * one waited) holds too; a larger or no reply leaves the argument's */
    const char *args[] = {NULL, "100", "100"}, *replies[] = {"100\n", "100000\n", "0\n"};
    for (int k = 0; k < 3; k++) {
        time_with_bound(prog, dir, 1000, args[k], replies[k], &out, &launcher, &device);
        expect_word(out, "ch-hopeless:", "loop", "kernel");
        expect_word(out, "ch-hopeless:", "bound_ms", "100.000000");
        cr_assert_eq(device, 3 + 1, "%d: %d", k, device);
        free(out);
    }

    /* bound 0: no bound, the old behaviour (each loop's budget ends it: the kernels' 3 s after
     * several 400 ms samples, the whole call's 400 ms after its first 500 ms one; the agreement
     * runs) */
    time_with_bound(prog, dir, 1000, "0", NULL, &out, &launcher, &device);
    expect_word(out, "ch-kernel:", "stop", "budget");
    expect_word(out, "ch-time:", "stop", "budget");
    cr_assert_null(strstr(out, "ch-hopeless:"), "%s", out);
    cr_assert_gt(line_int(out, "ch-kernel:", "repeats"), 1, "%s", out);
    cr_assert_eq(line_int(out, "ch-time:", "repeats"), 1, "%s", out);
    cr_assert_gt(launcher, 3, "warmup, timing and agreement: %d", launcher);
    free(out);

    ch_remove_tree(dir, &err);
    free(prog);
    free(dir);
    fx_free(&c);
}

/* Kernels under the bound are timed as before (10 samples at least); the whole call's first
 * sample (500 ms) over it ends that loop after its warmup (one call: its budget is 400 ms):
 * 1 sample, stop=hopeless, and the
 * agreement still runs (the kernels may still win). Calls under the bound, or with the bound
 * left out or 0, reach MIN_REPEATS and stop as before. */
Test(scaffold_fake_gpu, a_first_call_sample_over_the_bound_ends_its_loop_and_fast_calls_do_not,
     .timeout = 300)
{
    char *dir = NULL;
    ch_checklist c;
    ch_error err;
    char *prog = fake_saxpy_prog(&c, "scafhopeless2", host_saxpy_timed, &dir);
    char *out, w[32];
    int launcher, device;

    time_with_bound(prog, dir, 2000, "100", NULL, &out, &launcher, &device);
    int kr = line_int(out, "ch-kernel:", "repeats");
    cr_assert_geq(kr, 10, "the kernels under the bound: timed as before: %s", out);
    line_word(out, "ch-kernel:", "stop", w, sizeof w);
    cr_assert_str_neq(w, "hopeless", "%s", out);
    expect_word(out, "ch-hopeless:", "loop", "call");
    expect_word(out, "ch-time:", "stop", "hopeless");
    cr_assert_eq(line_int(out, "ch-time:", "repeats"), 1, "%s", out);
    /* first call + 1 warmup (500 ms: the whole call's 400 ms budget is spent) + 1 sample + the
     * agreement's call */
    cr_assert_eq(launcher, 1 + 1 + 1 + 1, "%d", launcher);
    cr_assert_eq(device, 3 + kr + 1, "%d", device);
    free(out);

    const char *bounds[] = {"100", "0", NULL};
    for (int k = 0; k < 3; k++) {
        time_with_bound(prog, dir, 500, bounds[k], NULL, &out, &launcher, &device);
        cr_assert_null(strstr(out, "ch-hopeless:"), "%s", out);
        cr_assert_geq(line_int(out, "ch-kernel:", "repeats"), 10, "%s", out);
        cr_assert_geq(line_int(out, "ch-time:", "repeats"), 10, "%s", out);
        line_word(out, "ch-time:", "stop", w, sizeof w);
        cr_assert(strcmp(w, "stable") == 0 || strcmp(w, "max") == 0, "%s", out);
        free(out);
    }

    /* a bound that is not a number >= 0 is a bad argument */
    char *tune = ch_path_join(dir, "bad");
    write_saxpy_set(tune, 5);
    char *argv[] = {prog, "time", tune, "1", "3", "100", "10", "-1", NULL};
    ch_sandbox_opts so = {0};
    ch_proc_result pr = run_prog(tune, argv, &so);
    cr_assert_eq(pr.exit_code, 2, "%s", pr.err.data ? pr.err.data : "");
    ch_proc_result_free(&pr);
    free(tune);

    ch_remove_tree(dir, &err);
    free(prog);
    free(dir);
    fx_free(&c);
}

/* ---- the plan ------------------------------------------------------------------------------ */

Test(plan, sizes_sets_and_sanitizer_size_follow_the_bytes)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_verify_plan p;
    ch_verify_plan_make(&c, &p);
    cr_assert_eq(p.n_correct, 3);
    cr_assert_float_eq(p.correct_bytes[0], 8000.0, 1e-9); /* 1000 x (x, y) floats */
    for (int k = 0; k < 3; k++)
        cr_assert_eq(p.correct_sets[k], 2, "small sizes: two sets each");
    cr_assert_eq(p.sanitize, 2, "the largest size within 1 MiB (800 KB)");
    cr_assert_float_eq(p.device_bytes, 2 * 800024.0, 1e-6);
    ch_verify_plan_free(&p);

    /* large sizes: one set above 64 MiB, skipped above 512 MiB; the smallest always runs */
    c.correctness[0].values[0] = 200000000; /* 1.6 GB */
    c.correctness[1].values[0] = 10000000;  /* 80 MB */
    c.correctness[2].values[0] = 300000000; /* 2.4 GB */
    ch_verify_plan_make(&c, &p);
    cr_assert_eq(p.correct_sets[0], 0);
    cr_assert_eq(p.correct_sets[1], 2, "the smallest size keeps two sets even at 80 MB");
    cr_assert_eq(p.correct_sets[2], 0);
    cr_assert_eq(p.sanitize, 1, "nothing within 1 MiB: the smallest");
    cr_assert_float_eq(p.device_bytes, 2 * 80e6, 1.0, "only what runs counts");
    ch_verify_plan_free(&p);
    c.correctness[0].values[0] = 9000000; /* 72 MB, now the smallest: two sets */
    ch_verify_plan_make(&c, &p);
    cr_assert_eq(p.correct_sets[0], 2);
    cr_assert_eq(p.correct_sets[1], 1, "80 MB beside a smaller size: one set");
    ch_verify_plan_free(&p);
    fx_free(&c);
}

Test(plan, no_correctness_sizes_sanitize_at_the_last_smoke_size)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    for (size_t i = 0; i < c.n_correctness; i++)
        fx_free_size(&c.correctness[i]);
    c.n_correctness = 0;
    ch_verify_plan p;
    ch_verify_plan_make(&c, &p);
    cr_assert_eq(p.sanitize, -1);
    cr_assert_float_eq(p.device_bytes, 2 * 3 * 8.0, 1e-9, "the smoke sizes' need");
    ch_verify_plan_free(&p);
    fx_free(&c);
}

Test(plan, perf_counts_from_the_expected_time)
{
    int w, mn, mx;
    ch_verify_perf_counts(512e6, 3000, &w, &mn, &mx); /* 0.17 ms: many cheap samples */
    cr_assert_eq(w, 3);
    cr_assert_eq(mn, 5);
    cr_assert_eq(mx, 100);
    ch_verify_perf_counts(16e9, 1000, &w, &mn, &mx); /* 16 ms */
    cr_assert_eq(w, 2);
    cr_assert_eq(mx, 62);
    ch_verify_perf_counts(16e9, 50, &w, &mn, &mx); /* 320 ms: few */
    cr_assert_eq(w, 1);
    cr_assert_eq(mx, 10);
    cr_assert_geq(mx, mn);
    ch_verify_perf_counts(0, -1, &w, &mn, &mx); /* nothing known */
    cr_assert_eq(mx, 100);
}

/* The "cannot win" bound: K times the smaller of the host path's time and the fastest earlier
 * whole call; an unknown one (<= 0) is left out; none known: no bound. */
Test(plan, hopeless_bound_is_k_times_the_smaller_known_time)
{
    int host = -1;
    cr_assert_float_eq(ch_verify_hopeless_bound(20, -1, &host), 4 * 20.0, 1e-12);
    cr_assert_eq(host, 1);
    cr_assert_float_eq(ch_verify_hopeless_bound(20, 5, &host), 4 * 5.0, 1e-12);
    cr_assert_eq(host, 0, "the earlier candidate sets it");
    cr_assert_float_eq(ch_verify_hopeless_bound(20, 30, &host), 4 * 20.0, 1e-12);
    cr_assert_eq(host, 1);
    cr_assert_float_eq(ch_verify_hopeless_bound(-1, 30, &host), 4 * 30.0, 1e-12);
    cr_assert_eq(host, 0, "no host time: the earlier candidate");
    cr_assert_float_eq(ch_verify_hopeless_bound(-1, -1, &host), 0.0, 1e-12, "no bound");
    cr_assert_float_eq(ch_verify_hopeless_bound(0, -1, NULL), 0.0, 1e-12);
    cr_assert_float_eq(CH_VERIFY_HOPELESS_FACTOR, 4.0, 1e-12);
}

/* The DRAM floor's bytes: a in (read), b inout and written only (a stencil's: written, never
 * read, yet copied in by a host-pointer call), y inout (read and written), c out (written):
 * the kernels move a + b + 2y + c, the call copies a + b + y in and b + y + c back. */
Test(plan, tune_bytes_count_written_only_buffers_once)
{
    ch_checklist c = {0};
    c.n_params = 5;
    c.params = ch_xcalloc(5, sizeof(ch_ck_param));
    c.params[0] = fx_scalar("n", CH_T_INT, 0, 0);
    c.params[1] = fx_ptr("a", "const float *", CH_T_FLOAT, CH_DIR_IN, "n", -1, 1);
    c.params[2] = fx_ptr("b", "float *", CH_T_FLOAT, CH_DIR_INOUT, "n", -1, 1);
    c.params[2].written_only = 1;
    c.params[3] = fx_ptr("y", "double *", CH_T_DOUBLE, CH_DIR_INOUT, "n", -1, 1);
    c.params[4] = fx_ptr("c", "float *", CH_T_FLOAT, CH_DIR_OUT, "n", -1, 1);
    size_t count[5] = {0, 100, 200, 300, 400};
    ch_verify_bytes b;
    ch_verify_tune_bytes(&c, count, &b);
    cr_expect_float_eq(b.kernel, 400 + 800 + 2 * 2400 + 1600, 1e-9, "%g", b.kernel);
    cr_expect_float_eq(b.in, 400 + 800 + 2400, 1e-9, "%g", b.in);
    cr_expect_float_eq(b.out, 800 + 2400 + 1600, 1e-9, "%g", b.out);
    cr_expect_float_eq(b.out_only, 1600, 1e-9);
    cr_expect_float_eq(b.set, 400 + 800 + 2400 + 1600, 1e-9);
    /* without the flag b is read too */
    c.params[2].written_only = 0;
    ch_verify_tune_bytes(&c, count, &b);
    cr_expect_float_eq(b.kernel, 400 + 2 * 800 + 2 * 2400 + 1600, 1e-9, "%g", b.kernel);
    fx_free(&c);
}

/* ---- the GPU lock ---------------------------------------------------------------------------- */

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
    nanosleep(&ts, NULL);
}

/* A child process: after delay_ms takes the lock, holds it hold_ms, writes "got released" (ms
 * since t0) to fd. Each process has its own process-wide part, so only the file orders them. */
static pid_t lock_child(const char *path, int exclusive, double t0, double delay_ms, double hold_ms,
                        int fd)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        sleep_ms(delay_ms);
        ch_gpu_lock l;
        ch_error err;
        int rc = ch_gpu_lock_acquire(path, exclusive, &l, &err);
        double got = mono_ms() - t0;
        sleep_ms(hold_ms);
        double rel = mono_ms() - t0;
        ch_gpu_lock_release(&l);
        double out[2] = {rc == 0 ? got : -1, rel};
        if (write(fd, out, sizeof out) != sizeof out)
            _exit(1);
        _exit(0);
    }
    return pid;
}

static void child_times(int fd, double out[2])
{
    cr_assert_eq(read(fd, out, 2 * sizeof(double)), (ssize_t)(2 * sizeof(double)));
}

Test(gpu_lock, shared_runs_together_exclusive_waits_and_is_not_starved, .timeout = 30)
{
    ch_error err;
    char *dir = ch_make_temp_dir("gpulock", &err);
    char *path = ch_path_join(dir, "locks/gpu-0.lock");
    int p1[2], p2[2], p3[2], p4[2];
    cr_assert(pipe(p1) == 0 && pipe(p2) == 0 && pipe(p3) == 0 && pipe(p4) == 0);
    double t0 = mono_ms();
    /* A shared 0..2400; B shared from 200 (together with A); C exclusive from 600 (waits for
     * A and B); D shared from 1200: C waits, so D queues behind it instead of joining A. The
     * gaps are wide so that a loaded machine (a CI run beside other builds) still starts the
     * four in this order; the checks compare the holders' own times, not the clock. */
    pid_t a = lock_child(path, 0, t0, 0, 2400, p1[1]);
    pid_t b = lock_child(path, 0, t0, 200, 800, p2[1]);
    pid_t c = lock_child(path, 1, t0, 600, 800, p3[1]);
    pid_t d = lock_child(path, 0, t0, 1200, 40, p4[1]);
    double ta[2], tb[2], tc[2], td[2];
    child_times(p1[0], ta);
    child_times(p2[0], tb);
    child_times(p3[0], tc);
    child_times(p4[0], td);
    int st;
    waitpid(a, &st, 0);
    waitpid(b, &st, 0);
    waitpid(c, &st, 0);
    waitpid(d, &st, 0);
    cr_assert(ta[0] >= 0 && tb[0] >= 0 && tc[0] >= 0 && td[0] >= 0, "all locked");
    cr_assert_lt(tb[0], ta[1], "two shared holders at once (B got it at %.0f ms, A out %.0f)",
                 tb[0], ta[1]);
    cr_assert_geq(tc[0], ta[1] - 5, "exclusive after the shared holders (C %.0f, A out %.0f)",
                  tc[0], ta[1]);
    cr_assert_geq(td[0], tc[1] - 5,
                  "a shared taker queues behind a waiting exclusive one (D %.0f, "
                  "C out %.0f)",
                  td[0], tc[1]);
    ch_remove_tree(dir, &err);
    free(path);
    free(dir);
}

/* Threads of one process: the process-wide part orders them even without a lock file. */
typedef struct thr {
    int exclusive;
    double t0, delay, hold, got, rel;
} thr;

static void *lock_thread(void *arg)
{
    thr *t = arg;
    sleep_ms(t->delay);
    ch_gpu_lock l;
    ch_error err;
    ch_gpu_lock_acquire(NULL, t->exclusive, &l, &err);
    t->got = mono_ms() - t->t0;
    sleep_ms(t->hold);
    t->rel = mono_ms() - t->t0;
    ch_gpu_lock_release(&l);
    return NULL;
}

Test(gpu_lock, threads_without_a_file, .timeout = 30)
{
    double t0 = mono_ms();
    thr t[3] = {{0, t0, 0, 300, 0, 0}, {0, t0, 30, 100, 0, 0}, {1, t0, 60, 50, 0, 0}};
    pthread_t id[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&id[i], NULL, lock_thread, &t[i]);
    for (int i = 0; i < 3; i++)
        pthread_join(id[i], NULL);
    cr_assert_lt(t[1].got, 100, "shared with shared");
    cr_assert_geq(t[2].got, t[0].rel - 5, "exclusive after both");
    cr_assert_geq(t[2].got, t[1].rel - 5);
}

/* ---- the report's timing ------------------------------------------------------------------- */

Test(report, kernel_and_whole_call_are_named_apart)
{
    ch_verify_report r;
    ch_verify_report_init(&r);
    r.correct = r.passed = 1;
    r.stage = CH_STAGE_PERF;
    r.launcher_ms = 50.5;
    r.kernel_ms = 0.25;
    r.kernel_resident = 1;
    r.dram_floor_ms = 0.2;
    r.floor_ms = 0.2;
    r.fraction = 0.8;
    r.pcie_floor_ms = 10.0;
    r.call_fraction = 10.0 / 50.5;
    r.host_ms = 40;
    r.peak_gflops = 60000;
    char *json = ch_verify_report_json(&r);
    cJSON *o = cJSON_Parse(json);
    cJSON *t = cJSON_GetObjectItem(o, "timing");
    cr_assert_float_eq(cJSON_GetObjectItem(t, "kernel_ms")->valuedouble, 0.25, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(t, "launcher_ms")->valuedouble, 50.5, 1e-12);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(t, "kernel_resident")));
    cr_assert_float_eq(cJSON_GetObjectItem(t, "kernel_fraction_of_dram_floor")->valuedouble, 0.8,
                       1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(t, "pcie_floor_ms")->valuedouble, 10.0, 1e-12);
    cr_assert_null(cJSON_GetObjectItem(t, "kernel_note"));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(t, "small_size_launcher_ms")));
    cJSON_Delete(o);
    free(json);
    char *fb = ch_verify_feedback(&r);
    cr_assert_not_null(strstr(fb, "Kernel time 0.2500 ms at the tune size (device-resident data, "
                                  "no copies): 80% of the DRAM floor 0.2000 ms"),
                       "%s", fb);
    cr_assert_not_null(strstr(fb, "Whole call (copies included) 50.5000 ms against a PCIe floor"),
                       "%s", fb);
    cr_assert_not_null(strstr(fb, "60000 GFLOP/s"), "%s", fb);
    free(fb);

    /* no device launcher: the kernel time includes the copies, and says so */
    r.kernel_resident = 0;
    r.kernel_ms = 50.0;
    json = ch_verify_report_json(&r);
    o = cJSON_Parse(json);
    t = cJSON_GetObjectItem(o, "timing");
    cr_assert_not_null(strstr(cJSON_GetObjectItem(t, "kernel_note")->valuestring, "copies"));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(t, "kernel_fraction_of_dram_floor")));
    cJSON_Delete(o);
    free(json);
    fb = ch_verify_feedback(&r);
    cr_assert_not_null(strstr(fb, "host-device copies included"), "%s", fb);
    free(fb);
    ch_verify_report_free(&r);
}

/* ---- NVRTC: the device-code split and the verdict ----------------------------------------------
 */

/* The shape the translator writes: helpers and a launcher on the host, a kernel, C headers. */
static const char translated[] =
    "#include <cuda_runtime.h>\n" /* 1 */
    "#include <limits.h>\n"       /* 2 */
    "#include <mutex>\n"          /* 3 */
    "static unsigned blocks(long long n, int per) { return (unsigned)((n + per - 1) / per); }\n"
    "static void *ch_buf = NULL;\n"               /* 5 */
    "static const int BLOCK = 256;\n"             /* 6 */
    "typedef struct pair { float a, b; } pair;\n" /* 7 */
    "template <int N = 2> __device__ float twice(float v) { return N * v; }\n"
    "__global__ void __launch_bounds__(256) k(int n, float a, const float *x, float *y)\n"
    "{\n"                                                  /* 10 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n" /* 11 */
    "    if (i < n && i < INT_MAX) y[i] = twice(a) * x[i] + y[i] + BLOCK * 0;\n"
    "}\n" /* 13 */
    "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float *y)\n"
    "{\n"                                               /* 15 */
    "    static std::mutex m;\n"                        /* 16 */
    "    std::lock_guard<std::mutex> g(m);\n"           /* 17 */
    "    k<<<blocks(n, BLOCK), BLOCK>>>(n, a, x, y);\n" /* 18 */
    "}\n"                                               /* 19 */
    "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, float *y)\n"
    "{ k<<<blocks(n, BLOCK), BLOCK>>>(n, a, x, y); return (int)cudaGetLastError(); }\n";

Test(nvrtc, split_blanks_host_code_and_keeps_lines)
{
    ch_device_split d;
    ch_device_code(translated, &d);
    cr_assert_eq(strlen(d.code), strlen(translated), "same length");
    cr_assert(d.has_kernel);
    cr_assert_eq(d.dropped_includes, 1, "only <mutex> dropped");
    cr_assert_not_null(strstr(d.code, "#include <cuda_runtime.h>"));
    cr_assert_not_null(strstr(d.code, "#include <limits.h>"),
                       "a C header NVRTC gets a stand-in for");
    cr_assert_null(strstr(d.code, "<mutex>"));
    cr_assert_null(strstr(d.code, "blocks(long long"), "host helper blanked");
    cr_assert_null(strstr(d.code, "ch_buf"), "host variable blanked");
    cr_assert_not_null(strstr(d.code, "static const int BLOCK = 256;"), "constants stay");
    cr_assert_not_null(strstr(d.code, "typedef struct pair"));
    cr_assert_not_null(strstr(d.code, "__device__ float twice"));
    cr_assert_not_null(strstr(d.code, "y[i] = twice(a)"));
    cr_assert_null(strstr(d.code, "saxpy_launcher"));
    cr_assert_null(strstr(d.code, "saxpy_device_launcher"));
    cr_assert_not_null(strstr(d.host_text, "saxpy_launcher"));
    int lines = 0;
    for (const char *p = d.code; *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, 21, "newlines kept");
    cr_assert(d.device_line[8] && d.device_line[9] && d.device_line[12]);
    cr_assert_not(d.device_line[4] || d.device_line[6] || d.device_line[16]);
    ch_device_split_free(&d);

    /* namespaces and extern "C" blocks are looked into; comments and strings do not confuse */
    const char *nested = "namespace {\n"
                         "__device__ int dev_table[4];\n"
                         "int host_table[4] = {1, 2, 3, 4}; // a host { brace in a comment\n"
                         "}\n"
                         "extern \"C\" {\n"
                         "__global__ void g(int *o) { o[0] = dev_table[0]; }\n"
                         "void host(const char *s = \"}{\") { (void)s; }\n"
                         "}\n";
    ch_device_code(nested, &d);
    cr_assert(d.has_kernel);
    cr_assert_not_null(strstr(d.code, "__device__ int dev_table[4];"));
    cr_assert_null(strstr(d.code, "host_table"));
    cr_assert_null(strstr(d.code, "void host("));
    cr_assert_not_null(strstr(d.code, "__global__ void g(int *o)"));
    cr_assert(d.device_line[2] && d.device_line[6]);
    ch_device_split_free(&d);
}

Test(nvrtc, classify_trusts_only_errors_the_split_cannot_cause)
{
    ch_device_split d;
    ch_device_code(translated, &d);
    const char *typo = "candidate.cu(12): error: identifier \"undefined_variable\" is undefined\n";
    cr_assert_eq(ch_nvrtc_classify(typo, "candidate.cu", &d), CH_NVRTC_FAIL);
    const char *type = "candidate.cu(11): error: a value of type \"float *\" cannot be used to "
                       "initialize an entity of type \"int\"\n";
    cr_assert_eq(ch_nvrtc_classify(type, "candidate.cu", &d), CH_NVRTC_FAIL);
    const char *macro = "candidate.cu(12): error: identifier \"FLT_MAX\" is undefined\n";
    cr_assert_eq(ch_nvrtc_classify(macro, "candidate.cu", &d), CH_NVRTC_UNSURE, "header-like");
    const char *blanked = "candidate.cu(12): error: identifier \"blocks\" is undefined\n";
    cr_assert_eq(ch_nvrtc_classify(blanked, "candidate.cu", &d), CH_NVRTC_UNSURE,
                 "a name of blanked host code");
    const char *host_line = "candidate.cu(17): error: something\n";
    cr_assert_eq(ch_nvrtc_classify(host_line, "candidate.cu", &d), CH_NVRTC_UNSURE);
    const char *header = "/usr/local/cuda/include/x.h(3): error: something\n";
    cr_assert_eq(ch_nvrtc_classify(header, "candidate.cu", &d), CH_NVRTC_UNSURE);
    const char *std = "candidate.cu(12): error: namespace \"std\" has no member \"min\"\n";
    cr_assert_eq(ch_nvrtc_classify(std, "candidate.cu", &d), CH_NVRTC_UNSURE);
    char *mixed = ch_xasprintf("%s%s", typo, host_line);
    cr_assert_eq(ch_nvrtc_classify(mixed, "candidate.cu", &d), CH_NVRTC_UNSURE, "all or nothing");
    free(mixed);
    cr_assert_eq(ch_nvrtc_classify("", "candidate.cu", &d), CH_NVRTC_UNSURE, "no error found");
    ch_device_split_free(&d);
}

static int have_nvrtc(void)
{
    return ch_file_exists("/usr/local/cuda/lib64/libnvrtc.so");
}

static ch_nvrtc_verdict nvrtc_of(const char *src, ch_strbuf *log)
{
    ch_strbuf_reset(log);
    return ch_nvrtc_check(src, "candidate.cu", "sm_90", "/usr/local/cuda", log);
}

Test(nvrtc, real_compiles_agree_with_nvcc, .timeout = 120)
{
    if (!have_nvrtc()) {
        cr_log_warn("no /usr/local/cuda/lib64/libnvrtc.so: NVRTC check not exercised");
        return;
    }
    ch_strbuf log;
    ch_strbuf_init(&log);
    cr_assert_eq(nvrtc_of(translated, &log), CH_NVRTC_PASS, "%s", log.data);
    cr_assert_not_null(strstr(log.data, "registers"), "ptxas -v lines: %s", log.data);
    /* the verifier's own broken example: a typo in the kernel */
    const char *typo = "#include <cuda_runtime.h>\n"
                       "__global__ void k(int n, float a, const float *x, float *y)\n"
                       "{ y[0] = undefined_variable; }\n"
                       "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float "
                       "*y)\n{ k<<<1, 1>>>(n, a, x, y); }\n";
    cr_assert_eq(nvrtc_of(typo, &log), CH_NVRTC_FAIL, "%s", log.data);
    cr_assert_not_null(strstr(log.data, "candidate.cu(3): error"), "%s", log.data);
    /* a host-side error is not NVRTC's to find: nvcc will */
    const char *host_err = "#include <cuda_runtime.h>\n#include <vector>\n"
                           "__global__ void k(float *y) { y[0] = 1; }\n"
                           "extern \"C\" void l(float *y) { std::vector<int> v; not_declared(v); "
                           "k<<<1, 1>>>(y); }\n";
    cr_assert_eq(nvrtc_of(host_err, &log), CH_NVRTC_PASS, "%s", log.data);
    /* a type error in a kernel */
    const char *type_err = "__global__ void k(float *y) { int *p = y; p[0] = 1; }\n";
    cr_assert_eq(nvrtc_of(type_err, &log), CH_NVRTC_FAIL, "%s", log.data);
    /* a member function using the host API in a class the kernel uses: unsure, not a failure */
    const char *member = "#include <cuda_runtime.h>\n"
                         "struct Buf { float *p; void alloc(int n) { cudaMalloc(&p, n * 4); }\n"
                         "  __device__ float get(int i) const { return p[i]; } };\n"
                         "__global__ void k(Buf b, float *y) { y[0] = b.get(0); }\n";
    cr_assert_neq(nvrtc_of(member, &log), CH_NVRTC_FAIL, "%s", log.data);
    /* C headers' constants in device code */
    const char *consts = "#include <float.h>\n#include <stdint.h>\n#include <math.h>\n"
                         "__global__ void k(float *y, uint32_t *z) { y[0] = FLT_MAX + M_PI + "
                         "INFINITY; z[0] = UINT32_MAX; }\n";
    cr_assert_eq(nvrtc_of(consts, &log), CH_NVRTC_PASS, "%s", log.data);
    /* no kernel (a library call only): nothing to check */
    cr_assert_eq(nvrtc_of("extern \"C\" void l(float *y) { }\n", &log), CH_NVRTC_SKIP);
    ch_strbuf_free(&log);
}

/* ---- the verifier's stage 1 end to end --------------------------------------------------------
 */

static const char saxpy_user_tu[] = "void saxpy(int n, float a, const float *x, float *y)\n"
                                    "{ for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i]; }\n";

Test(verifier_speed, nvrtc_rejects_a_kernel_typo_before_nvcc_and_the_build_links_once,
     .timeout = 300)
{
    ch_checklist c;
    fx_saxpy(&c, 0);
    ch_error err;
    char *dir = ch_make_temp_dir("vspeed", &err);
    setenv("TMPDIR", dir, 1); /* keep (below) leaves the verifier's directories: in here */
    char *tu = ch_path_join(dir, "user.c");
    ch_write_file_atomic(tu, saxpy_user_tu, strlen(saxpy_user_tu), 0, &err);
    char *cc_argv[] = {"cc", NULL};
    ch_verify_setup s = {0};
    s.checklist = &c;
    s.oracle = (ch_oracle){tu, cc_argv, NULL, 0, NULL, NULL, 0};
    s.nvcc = nvcc();
    s.arch = "sm_90";
    s.last_stage = CH_STAGE_COMPILE;
    s.seed = 7;
    s.keep = 1;
    ch_verifier *v;
    cr_assert_eq(ch_verifier_open(&s, &v, &err), 0, "%s", err.msg);

    const char *typo = "#include <cuda_runtime.h>\n"
                       "__global__ void k(int n, float a, const float *x, float *y)\n"
                       "{ y[0] = undefined_variable; }\n"
                       "extern \"C\" void saxpy_launcher(int n, float a, const float *x, float "
                       "*y)\n{ k<<<1, 1>>>(n, a, x, y); }\n";
    ch_verify_report r;
    cr_assert_eq(ch_verifier_run(v, typo, &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.stage, CH_STAGE_COMPILE);
    cr_assert_not_null(strstr(r.message, "undefined_variable"), "%s", r.message);
    cJSON *st = cJSON_GetObjectItem(r.details, "compile");
    if (have_nvrtc()) {
        cr_assert_str_eq(cJSON_GetObjectItem(st, "kernel_check")->valuestring, "nvrtc");
        cr_assert_str_eq(
            cJSON_GetObjectItem(cJSON_GetObjectItem(st, "nvrtc"), "verdict")->valuestring, "fail");
        char *obj = ch_path_join(r.work_dir, "candidate.o");
        cr_assert_not(ch_file_exists(obj), "nvcc never ran");
        free(obj);
    }
    char *fb = ch_verify_feedback(&r);
    cr_assert_not_null(strstr(fb, "candidate.cu(3)"), "%s", fb);
    free(fb);
    ch_remove_tree(r.work_dir, &err);
    ch_verify_report_free(&r);

    /* two good candidates, one with a device launcher: both link against the one scaffold
     * object; only the first program defines the device launcher */
    char *with = ch_xasprintf("%s%s%s", saxpy_kernel, saxpy_host_launcher, saxpy_device_launcher);
    char *without = ch_xasprintf("%s%s", saxpy_kernel, saxpy_host_launcher);
    const char *srcs[2] = {with, without};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(ch_verifier_run(v, srcs[i], &r, &err), 0, "%s", err.msg);
        cr_assert_eq(r.status[CH_STAGE_COMPILE], CH_ST_PASS, "%s", r.message);
        st = cJSON_GetObjectItem(r.details, "compile");
        if (have_nvrtc())
            cr_assert_str_eq(
                cJSON_GetObjectItem(cJSON_GetObjectItem(st, "nvrtc"), "verdict")->valuestring,
                "pass");
        char *prog = ch_path_join(r.work_dir, "prog");
        cr_assert(ch_file_exists(prog));
        char *nm = nm_of(prog);
        int defined =
            strstr(nm, "T saxpy_device_launcher") || strstr(nm, "W saxpy_device_launcher");
        cr_assert_eq(defined, i == 0, "%s", nm);
        free(nm);
        free(prog);
        ch_remove_tree(r.work_dir, &err);
        ch_verify_report_free(&r);
    }
    free(with);
    free(without);
    ch_verifier_close(v);
    ch_remove_tree(dir, &err);
    free(tu);
    free(dir);
    fx_free(&c);
}
