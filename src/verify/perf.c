/* The memory floor's denominator: copy bandwidths measured once per device (a generated CUDA
 * program: device-to-device cudaMemcpy for DRAM, pinned host<->device copies for PCIe/C2C) and
 * cached under the cache directory, keyed by architecture and runner. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "verify_internal.h"

extern const struct ch_embedded_file ch_template_files[];

/* FP32 lanes per SM by compute capability (CUDA programming guide, arithmetic instructions). */
static int fp32_lanes(int cc)
{
    if (cc >= 86 || (cc >= 50 && cc < 60) || cc == 61 || cc == 62)
        return 128;
    return cc >= 60 ? 64 : 0;
}

static int parse_calib(const char *text, ch_calib *c)
{
    const char *p = strstr(text, "ch-calib:");
    if (!p)
        return -1;
    memset(c, 0, sizeof *c);
    if (sscanf(p, "ch-calib: name=%127s l2=%ld d2d_gbs=%lf h2d_gbs=%lf d2h_gbs=%lf", c->name,
               &c->l2_bytes, &c->d2d_gbs, &c->h2d_gbs, &c->d2h_gbs) != 5 ||
        c->d2d_gbs <= 0)
        return -1;
    /* the compute peak came later: older cached lines lack it */
    int sms = 0, khz = 0, cc = 0;
    const char *x = strstr(p, " sms=");
    c->fp32_gflops = -1;
    if (x && sscanf(x, " sms=%d clock_khz=%d cc=%d", &sms, &khz, &cc) == 3 && fp32_lanes(cc) > 0)
        c->fp32_gflops = (double)sms * fp32_lanes(cc) * 2.0 * khz / 1e6;
    return 0;
}

/* Where the calibration of arch under runner is cached, or NULL without a cache directory. */
static char *calib_cache_file(const char *arch, const char *runner, const char *cache_dir)
{
    if (!cache_dir || !*cache_dir)
        return NULL;
    unsigned long long h = 1469598103934665603ULL;
    for (const char *p = runner ? runner : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return ch_xasprintf("%s/verify/calib-v2-%s-%08llx.txt", cache_dir, arch, h & 0xffffffffULL);
}

int ch_calib_cached(const char *arch, const char *runner, const char *cache_dir, ch_calib *out,
                    char **cache_line)
{
    *cache_line = NULL;
    char *file = calib_cache_file(arch, runner, cache_dir);
    char *text = NULL;
    ch_error err;
    int rc =
        file && ch_read_file(file, &text, NULL, &err) == 0 && parse_calib(text, out) == 0 ? 0 : -1;
    if (rc == 0)
        *cache_line = text;
    else
        free(text);
    free(file);
    return rc;
}

int ch_calib_build(const char *nvcc, const char *arch, const char *dir, char **exe, ch_error *err)
{
    *exe = NULL;
    /* a directory of its own: the sandbox hands its run directory to the unprivileged user,
     * and the candidates' directories beside it change while it does (parallel builds) */
    char *calib_dir = ch_xasprintf("%s/calib.XXXXXX", dir);
    if (!mkdtemp(calib_dir)) {
        int rc = ch_error_set(err, "calibration: cannot create a directory in %s", dir);
        free(calib_dir);
        return rc;
    }
    const char *text = ch_embedded_text(ch_template_files, "calibrate.cu");
    assert(text); /* src/verify/templates/calibrate.cu is built in */
    char *src = ch_path_join(calib_dir, "calibrate.cu");
    char *out = ch_path_join(calib_dir, "calibrate");
    char *archflag = ch_xasprintf("-arch=%s", arch);
    int rc = ch_write_file_atomic(src, text, strlen(text), 0, err);
    if (rc == 0) {
        char *argv[] = {(char *)nvcc, "-O2", archflag, "-o", out, src, NULL};
        ch_strbuf log;
        ch_strbuf_init(&log);
        int st = ch_proc_capture(argv, &log, err);
        if (st != 0)
            rc = st < 0 ? -1
                        : ch_error_set(err, "calibration program does not build: %.500s", log.data);
        ch_strbuf_free(&log);
    }
    if (rc == 0)
        *exe = out;
    else
        free(out);
    free(src);
    free(archflag);
    free(calib_dir);
    return rc;
}

int ch_calib_run(const char *exe, const char *arch, const char *runner, const char *cache_dir,
                 ch_calib *out, char **cache_line, ch_error *err)
{
    *cache_line = NULL;
    /* ch-cc's own program (templates/calibrate.cu), not a candidate: it runs outside the
     * sandbox, whose unprivileged user could not reach it under the verifier's private
     * directories (Permission denied on the H200), with a time limit and captured output */
    char *dir = ch_xstrndup(exe, (size_t)(strrchr(exe, '/') - exe));
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.cwd = dir;
    po.capture_stdout = 1;
    po.capture_stderr = 1;
    po.stdin_path = "/dev/null";
    po.wall_seconds = 120;
    po.new_process_group = 1;
    po.capture_limit = 1 << 20;
    ch_strvec args;
    ch_strvec_init(&args);
    ch_sandbox_runner_args(runner, &args);
    ch_strvec_push(&args, exe);
    ch_proc_result r;
    ch_proc_result_init(&r);
    int rc = ch_proc_run(args.items, &po, &r, err);
    ch_strvec_free(&args);
    if (rc == 0 && (r.exit_code != 0 || parse_calib(r.out.data, out) != 0))
        rc = ch_error_set(err, "calibration failed (exit %d): %.500s", r.exit_code, r.err.data);
    if (rc == 0) {
        const char *line = strstr(r.out.data, "ch-calib:");
        *cache_line = ch_xstrdup(line);
        char *file = calib_cache_file(arch, runner, cache_dir);
        if (file) {
            /* a cache fault costs the next build a calibration, nothing else */
            ch_error ignored;
            char *vdir = ch_xstrndup(file, (size_t)(strrchr(file, '/') - file));
            if (ch_mkdir_p(vdir, &ignored) == 0)
                ch_write_file_atomic(file, line, strlen(line), 0, &ignored);
            free(vdir);
        }
        free(file);
    }
    ch_proc_result_free(&r);
    free(dir);
    return rc;
}

int ch_calibrate(const char *nvcc, const char *arch, const char *runner, const char *cache_dir,
                 const char *work_dir, ch_calib *out, char **cache_line, ch_error *err)
{
    if (ch_calib_cached(arch, runner, cache_dir, out, cache_line) == 0)
        return 0;
    char *exe = NULL;
    int rc = ch_calib_build(nvcc, arch, work_dir, &exe, err);
    if (rc == 0)
        rc = ch_calib_run(exe, arch, runner, cache_dir, out, cache_line, err);
    free(exe);
    return rc;
}
