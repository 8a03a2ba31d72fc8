/* The memory floor's denominator: copy bandwidths measured once per device (a generated CUDA
 * program: device-to-device cudaMemcpy for DRAM, pinned host<->device copies for PCIe/C2C) and
 * cached under the cache directory, keyed by architecture and runner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "verify_internal.h"

static const char calib_src[] =
    "/* ch-cc copy-bandwidth calibration: DRAM (device-to-device copy, read + write bytes) and\n"
    " * pinned host<->device copies; median of 5 after a warm-up. */\n"
    "#include <stdio.h>\n#include <algorithm>\n#include <vector>\n#include <cuda_runtime.h>\n\n"
    "#define CK(call)                                                                       \\\n"
    "    do {                                                                               \\\n"
    "        cudaError_t e_ = (call);                                                       \\\n"
    "        if (e_ != cudaSuccess) {                                                       \\\n"
    "            fprintf(stderr, \"calibrate: %s: %s\\n\", #call, cudaGetErrorString(e_));     \\\n"
    "            return 3;                                                                  \\\n"
    "        }                                                                              \\\n"
    "    } while (0)\n\n"
    "static double median(std::vector<double> v)\n{\n    std::sort(v.begin(), v.end());\n"
    "    return v[v.size() / 2];\n}\n\n"
    "int main(void)\n{\n"
    "    const size_t bytes = 512ull << 20;\n"
    "    void *a, *b, *h;\n"
    "    CK(cudaMalloc(&a, bytes));\n    CK(cudaMalloc(&b, bytes));\n"
    "    CK(cudaMallocHost(&h, bytes));\n"
    "    CK(cudaMemset(a, 1, bytes));\n    CK(cudaMemset(b, 2, bytes));\n"
    "    cudaEvent_t t0, t1;\n    CK(cudaEventCreate(&t0));\n    CK(cudaEventCreate(&t1));\n"
    "    std::vector<double> d2d, h2d, d2h;\n"
    "    for (int r = 0; r < 6; r++) {\n"
    "        float ms;\n"
    "        CK(cudaEventRecord(t0));\n"
    "        CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));\n"
    "        CK(cudaEventRecord(t1));\n        CK(cudaEventSynchronize(t1));\n"
    "        CK(cudaEventElapsedTime(&ms, t0, t1));\n"
    "        if (r) d2d.push_back(2.0 * bytes / (ms * 1e6));\n"
    "        CK(cudaEventRecord(t0));\n"
    "        CK(cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice));\n"
    "        CK(cudaEventRecord(t1));\n        CK(cudaEventSynchronize(t1));\n"
    "        CK(cudaEventElapsedTime(&ms, t0, t1));\n"
    "        if (r) h2d.push_back(bytes / (ms * 1e6));\n"
    "        CK(cudaEventRecord(t0));\n"
    "        CK(cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost));\n"
    "        CK(cudaEventRecord(t1));\n        CK(cudaEventSynchronize(t1));\n"
    "        CK(cudaEventElapsedTime(&ms, t0, t1));\n"
    "        if (r) d2h.push_back(bytes / (ms * 1e6));\n"
    "    }\n"
    "    int dev = 0, l2 = 0, sms = 0, khz = 0, major = 0, minor = 0;\n    cudaDeviceProp p;\n"
    "    CK(cudaGetDevice(&dev));\n    CK(cudaGetDeviceProperties(&p, dev));\n"
    "    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));\n"
    "    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));\n"
    "    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));\n"
    "    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));\n"
    "    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));\n"
    "    for (char *c = p.name; *c; c++)\n        if (*c == ' ') *c = '_';\n"
    "    printf(\"ch-calib: name=%s l2=%d d2d_gbs=%.3f h2d_gbs=%.3f d2h_gbs=%.3f sms=%d \"\n"
    "           \"clock_khz=%d cc=%d\\n\", p.name, l2, median(d2d), median(h2d), median(d2h), "
    "sms,\n"
    "           khz, major * 10 + minor);\n"
    "    return 0;\n}\n";

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

int ch_calibrate(const char *nvcc, const char *arch, const char *runner, const char *cache_dir,
                 const char *work_dir, ch_calib *out, char **cache_line, ch_error *err)
{
    char *cache_file = NULL;
    *cache_line = NULL;
    if (cache_dir && *cache_dir) {
        unsigned long long h = 1469598103934665603ULL;
        for (const char *p = runner ? runner : ""; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        char *dir = ch_path_join(cache_dir, "verify");
        cache_file = ch_xasprintf("%s/calib-v2-%s-%08llx.txt", dir, arch, h & 0xffffffffULL);
        char *text = NULL;
        if (ch_read_file(cache_file, &text, NULL, err) == 0 && parse_calib(text, out) == 0) {
            *cache_line = text;
            free(dir);
            free(cache_file);
            return 0;
        }
        free(text);
        ch_error_clear(err);
        ch_mkdir_p(dir, err);
        ch_error_clear(err);
        free(dir);
    }
    /* a directory of its own: the sandbox hands its run directory to the unprivileged user,
     * and the candidates' directories beside it change while it does (parallel builds) */
    char *calib_dir = ch_xasprintf("%s/calib.XXXXXX", work_dir);
    if (!mkdtemp(calib_dir)) {
        int rc = ch_error_set(err, "calibration: cannot create a directory in %s", work_dir);
        free(calib_dir);
        free(cache_file);
        return rc;
    }
    char *src = ch_path_join(calib_dir, "calibrate.cu");
    char *exe = ch_path_join(calib_dir, "calibrate");
    char *archflag = ch_xasprintf("-arch=%s", arch);
    int rc = ch_write_file_atomic(src, calib_src, strlen(calib_src), 0, err);
    if (rc == 0) {
        char *argv[] = {(char *)nvcc, "-O2", archflag, "-o", exe, src, NULL};
        ch_strbuf log;
        ch_strbuf_init(&log);
        int st = ch_proc_capture(argv, &log, err);
        if (st != 0)
            rc = st < 0 ? -1
                        : ch_error_set(err, "calibration program does not build: %.500s", log.data);
        ch_strbuf_free(&log);
    }
    if (rc == 0) {
        /* ch-cc's own program (calib_src above), not a candidate: it runs outside the sandbox,
         * whose unprivileged user could not reach it under the verifier's private directories
         * (Permission denied on the H200), with the same time limit and captured output */
        ch_proc_opts po;
        memset(&po, 0, sizeof po);
        po.cwd = calib_dir;
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
        rc = ch_proc_run(args.items, &po, &r, err);
        ch_strvec_free(&args);
        if (rc == 0 && (r.exit_code != 0 || parse_calib(r.out.data, out) != 0))
            rc = ch_error_set(err, "calibration failed (exit %d): %.500s", r.exit_code, r.err.data);
        if (rc == 0) {
            const char *line = strstr(r.out.data, "ch-calib:");
            *cache_line = ch_xstrdup(line);
            if (cache_file) {
                ch_write_file_atomic(cache_file, line, strlen(line), 0, err);
                ch_error_clear(err);
            }
        }
        ch_proc_result_free(&r);
    }
    free(src);
    free(exe);
    free(archflag);
    free(cache_file);
    free(calib_dir);
    return rc;
}
