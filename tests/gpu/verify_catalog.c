/* GPU catalog: every hand-written candidate in tests/gpu/candidates/ through the real verifier,
 * each expected to stop at a given stage with a given message (or to pass with timings).
 * Prints TAP. Usage: verify_catalog CANDIDATE_DIR [FILE,FILE...]: with a list, only those
 * catalog files run (bench/verify.sh uses it for timings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/verify.h"
#include "verify_fixture.h"

static const char saxpy_tu[] = "void saxpy(int n, float a, const float *x, float *y)\n"
                               "{ for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i]; }\n";
static const char jacobi_tu[] =
    "void jacobi(int n, int m, const double a[n][m], double b[n][m])\n"
    "{ for (int i = 1; i < n - 1; i++) for (int j = 1; j < m - 1; j++)\n"
    "    b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]); }\n";
static const char gather_ref[] = "void gather_reference(int n, int m, const double *src, const "
                                 "int *idx, double *out)\n"
                                 "{ for (int i = 0; i < n; i++) out[i] = src[idx[i]]; }\n";

enum { SAXPY, SAXPY_DEV, GATHER, JACOBI };
/* what a refusal of a hostile candidate says (static check or object check) */
#define HOSTILE "calls |object check|not an allowed header|asm"
static const struct {
    const char *file;
    int entry;
    int stage, alt_stage; /* -1: passes every stage */
    const char *expect;   /* substring of the message ("" for a pass) */
} catalog[] = {
    {"saxpy_ok.cu", SAXPY, -1, -1, ""},
    {"saxpy_dev_ok.cu", SAXPY_DEV, -1, -1, ""},
    {"saxpy_dev_naive.cu", SAXPY_DEV, -1, -1, ""},
    {"gather_ok.cu", GATHER, -1, -1, ""},
    {"jacobi_ok.cu", JACOBI, -1, -1, ""},
    {"saxpy_tail.cu", SAXPY, 3, 3, "tail from index"},
    {"gather_tail.cu", GATHER, 3, 3, "tail from index"},
    {"saxpy_offbyone.cu", SAXPY, 2, 2, "y[0] expected"},
    {"saxpy_oob.cu", SAXPY, 4, 4, "memcheck reports errors"},
    /* a count kept in a block the allocator hands back: the hardening zeroes every allocation
     * the candidate names, so its count starts at 0 every call and it computes right (20000
     * calls: tests/gpu/kept_state_gpu.t); initcheck was the layer before that */
    {"saxpy_stale_block.cu", SAXPY, -1, -1, ""},
    {"jacobi_race.cu", JACOBI, 4, 3, "racecheck reports errors|differ"},
    {"saxpy_wrong.cu", SAXPY, 2, 2, "elements differ"},
    {"saxpy_modin.cu", SAXPY, 2, 2, "input buffer x was modified"},
    {"saxpy_hostcompute.cu", SAXPY, 0, 0, "writes output 'y' on the host"},
    {"saxpy_cached.cu", SAXPY, 3, 3, "second call with other inputs"},
    {"saxpy_dev_stream.cu", SAXPY_DEV, 2, 2, "differ"},
    {"saxpy_loop.cu", SAXPY, 2, 2, "timed out"},
    {"jacobi_float.cu", JACOBI, 3, 2, "differ"},
    /* skipped work: the kept-state rule refuses it before it runs; the memory floor is the
     * layer behind */
    {"saxpy_dev_skip.cu", SAXPY_DEV, 0, 5,
     "(kept state: 'seen_y')|faster than physically possible: skipped work"},
    /* hostile: each computes the right answer too, so only a refusal stops it (stage 0: the
     * text check, stage 1: the object check); the sandbox is the layer behind (test_sandbox) */
    {"saxpy_steal_expected.cu", SAXPY, 0, 1, HOSTILE},
    {"saxpy_write_home.cu", SAXPY, 0, 1, HOSTILE},
    {"saxpy_socket.cu", SAXPY, 0, 1, HOSTILE},
    {"saxpy_shell.cu", SAXPY, 0, 1, HOSTILE},
    {"saxpy_ptrace.cu", SAXPY, 0, 1, HOSTILE},
    {"saxpy_raw_syscall.cu", SAXPY, 0, 1, HOSTILE},
};

static int matches(const char *msg, const char *alts)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", alts);
    for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
        if (strstr(msg, tok))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s CANDIDATE_DIR [FILE,...]\n", argv[0]);
        return 2;
    }
    ch_error err;
    char *dir = ch_make_temp_dir("catalog", &err);
    ch_checklist cl[4];
    fx_saxpy(&cl[SAXPY], 0);
    fx_saxpy(&cl[SAXPY_DEV], 1);
    fx_gather(&cl[GATHER]);
    fx_jacobi(&cl[JACOBI]);
    const char *tus[4] = {saxpy_tu, saxpy_tu, NULL, jacobi_tu};
    ch_verifier *v[4] = {0};
    const char *arch = getenv("CH_CC_ARCH");
    char *cc_argv[] = {"cc", "-std=c11", "-O2", NULL};
    for (int e = 0; e < 4; e++) {
        ch_verify_setup s = {0};
        s.checklist = &cl[e];
        if (tus[e]) {
            char *tu = ch_xasprintf("%s/tu%d.c", dir, e);
            ch_write_file_atomic(tu, tus[e], strlen(tus[e]), 0, &err);
            s.oracle.tu_path = tu; /* leaked on purpose: lives as long as the verifier */
            s.oracle.cc_argv = cc_argv;
        } else {
            s.oracle.reference_c = gather_ref;
        }
        s.arch = arch && *arch ? arch : "sm_90";
        s.cache_dir = getenv("CH_CC_CACHE_DIR");
        s.runner = getenv("CH_CC_RUNNER");
        s.last_stage = -1;
        s.wall_seconds = 10;
        if (ch_verifier_open(&s, &v[e], &err) != 0) {
            printf("Bail out! reference for entry %d: %s\n", e, err.msg);
            return 1;
        }
    }
    size_t n = sizeof catalog / sizeof catalog[0];
    size_t planned = 0;
    for (size_t i = 0; i < n; i++)
        planned += argc < 3 || strstr(argv[2], catalog[i].file) != NULL;
    printf("1..%zu\n", planned);
    int failed = 0;
    size_t t = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc == 3 && !strstr(argv[2], catalog[i].file))
            continue;
        t++;
        char *path = ch_path_join(argv[1], catalog[i].file);
        char *src = NULL;
        if (ch_read_file(path, &src, NULL, &err) != 0) {
            printf("not ok %zu - %s: %s\n", t, catalog[i].file, err.msg);
            failed = 1;
            free(path);
            continue;
        }
        ch_verify_report r;
        if (ch_verifier_run(v[catalog[i].entry], src, &r, &err) != 0) {
            printf("not ok %zu - %s: internal error: %s\n", t, catalog[i].file, err.msg);
            failed = 1;
        } else {
            int ok;
            if (catalog[i].stage < 0)
                ok = r.passed && r.correct && r.launcher_ms > 0;
            else
                ok = !r.passed &&
                     (r.stage == catalog[i].stage || r.stage == catalog[i].alt_stage) &&
                     matches(r.message, catalog[i].expect);
            printf("%s %zu - %s: stage %d (%s): %s\n", ok ? "ok" : "not ok", t, catalog[i].file,
                   r.stage, ch_stage_name(r.stage), r.message);
            printf("# stage seconds:");
            for (int s = 0; s < CH_STAGE_COUNT_; s++)
                printf(" %s=%.2f", ch_stage_name(s), r.seconds[s]);
            printf("\n");
            if (r.launcher_ms >= 0)
                printf("# launcher %.4f ms, kernel %.4f ms, floor %.4f ms, fraction %.2f\n",
                       r.launcher_ms, r.kernel_ms, r.floor_ms, r.fraction);
            if (!ok) {
                char *j = ch_verify_report_json(&r);
                for (char *l = strtok(j, "\n"); l; l = strtok(NULL, "\n"))
                    printf("#   %s\n", l);
                free(j);
                failed = 1;
            }
        }
        ch_verify_report_free(&r);
        free(src);
        free(path);
    }
    for (int e = 0; e < 4; e++) {
        ch_verifier_close(v[e]);
        fx_free(&cl[e]);
    }
    ch_remove_tree(dir, &err);
    free(dir);
    return failed;
}
