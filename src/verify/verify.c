/* Progressive verification of one candidate (DESIGN §3): static checks, compile, smoke,
 * correctness, sanitizer, performance, stopping at the first failing stage.
 *
 * Isolation: the verifier owns a private reference directory (test inputs and reference
 * outputs, keyed by seed, stage and size so each is computed once); every candidate gets its
 * own work directory where each program run sees a fresh case directory holding only copies of
 * its inputs, under the sandbox. All comparisons happen here, in the parent. */
#include <assert.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "ch/fsutil.h"
#include "ch/harden.h"
#include "ch/static_child.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "sanitize_tools.h"
#include "verify_internal.h"

static void *scaffold_thread(void *arg);

/* A sanitizer verdict kept for a candidate source (its XXH3-128, hex): identical sources are
 * checked once. */
typedef struct sanitized {
    char hash[33];
    int failed;
    char *message;     /* stage_fail text, owned (NULL when passed) */
    char *tool_output; /* owned, may be NULL */
} sanitized;

/* Shared by the threads that build and test candidates of one entry at once (ch/verify.h).
 * Which race each lock handles:
 * - mu: the memory budget of concurrent tests (mem_used, waited on with mem_cv), the
 *   calibration and host time measured once (both also run under the exclusive GPU lock, mu
 *   only makes the result visible to every thread), and the sanitizer verdicts (san);
 * - best_mu: the fastest times so far (best_*_ms), read again once a timing has the GPU alone
 *   (perf_bound_update), where mu may be held by a calibration waiting for that GPU;
 * - scaffold_mu: the scaffold object, compiled by the first build that needs it while the others
 *   wait (seconds: not under mu, so tests are not held up);
 * - the GPU lock (ch_gpu_lock_acquire, per test): timing against every other GPU user of the
 *   machine; reference directories: a lock file each (reference_case). */
struct ch_verifier {
    ch_verify_setup s;
    char *nvcc, *arch, *sanitizer;
    char *runtime_lib; /* libch_runtime.a linked into scaffold programs, or NULL */
    char *cuda_home;   /* the toolkit of nvcc (NVRTC and its headers), or NULL */
    char *ref_root;    /* private: inputs + reference outputs, the scaffold object */
    char *ref_exe;
    ch_verify_plan plan;
    char ck_hash[33]; /* XXH3-128 of the checklist JSON: part of the sanitizer cache key */
    pthread_mutex_t mu;
    pthread_cond_t mem_cv;
    double mem_used; /* device bytes reserved by running tests (plan.device_bytes each) */
    int have_calib;
    ch_calib calib;
    int host_timed; /* host_ms measured (it does not depend on the candidate) */
    double host_ms;
    int curve_host_timed; /* the host path at the curve's smallest and middle sets, likewise */
    double small_host_ms, mid_host_ms;
    pthread_mutex_t best_mu;
    double best_kernel_ms; /* the least resident kernel time and whole call timed so far, -1 */
    double best_call_ms;   /* before one (fastest_so_far) */
    pthread_mutex_t scaffold_mu; /* held while the scaffold object is made (seconds) */
    pthread_t scaffold_tid;      /* makes it from ch_verifier_open on, beside the first builds */
    int scaffold_started, scaffold_rc;
    ch_error scaffold_err;
    int scaffold_state; /* 0: not built yet, 1: scaffold.o built, -1: it failed (log kept) */
    char *scaffold_obj, *scaffold_log, *signatures;
    pthread_t calib_tid; /* compiles the calibration program from ch_verifier_open on, when */
    int calib_started;   /* no calibration is cached: never under the exclusive GPU hold */
    char *calib_exe;     /* the program once that thread was joined, NULL if it did not build */
    sanitized *san;
    size_t n_san, cap_san;
    atomic_uint isolation_failed; /* CH_ISO_* steps any sandboxed run could not set up */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t z = seed ^ (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^
                 (c * 0x165667B19E3779F9ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) | 1;
}

/* The toolkit directory of nvcc (BIN/.. of the nvcc found), else CUDA_HOME, else NULL. */
static char *find_cuda_home(const char *nvcc)
{
    char *path = strchr(nvcc, '/') ? ch_xstrdup(nvcc) : ch_find_executable(nvcc, 0);
    char *home = NULL;
    if (path) {
        char *bin = ch_path_dir(path);
        home = ch_path_dir(bin);
        free(bin);
        free(path);
    }
    if (!home || !ch_is_dir(home)) {
        free(home);
        const char *env = getenv("CUDA_HOME");
        home = env && *env && ch_is_dir(env) ? ch_xstrdup(env) : NULL;
    }
    return home;
}

static char *find_sanitizer(const char *given)
{
    if (given && *given)
        return ch_file_exists(given) ? ch_xstrdup(given) : NULL;
    char *p = ch_find_executable("compute-sanitizer", 0);
    if (p)
        return p;
    const char *home = getenv("CUDA_HOME");
    char *q = ch_xasprintf("%s/bin/compute-sanitizer", home && *home ? home : "/usr/local/cuda");
    if (ch_file_exists(q))
        return q;
    free(q);
    return NULL;
}

static void *calib_thread(void *arg)
{
    ch_verifier *v = arg;
    ch_error err;
    if (ch_calib_build(v->nvcc, v->arch, v->ref_root, &v->calib_exe, &err) != 0)
        v->calib_exe = NULL; /* perf_calibration tries again and reports why */
    return NULL;
}

/* Starts compiling the calibration program when timing will need it and none is cached. */
static void calib_start(ch_verifier *v)
{
    const ch_verify_setup *s = &v->s;
    if (s->last_stage >= 0 && s->last_stage < CH_STAGE_PERF)
        return;
    char *line = NULL;
    if (ch_calib_cached(v->arch, s->runner, s->cache_dir, &v->calib, &line) == 0)
        v->have_calib = 1;
    else
        v->calib_started = pthread_create(&v->calib_tid, NULL, calib_thread, v) == 0;
    free(line);
}

/* The calibration program, once its thread is done; the caller holds v->mu. perf_prepare
 * waits for it before the exclusive hold (a compile takes seconds), so that the hold only
 * runs it. */
static void calib_join_locked(ch_verifier *v)
{
    if (v->calib_started) {
        pthread_join(v->calib_tid, NULL);
        v->calib_started = 0;
    }
}

static void calib_join(ch_verifier *v)
{
    pthread_mutex_lock(&v->mu);
    calib_join_locked(v);
    pthread_mutex_unlock(&v->mu);
}

int ch_verifier_open(const ch_verify_setup *s, ch_verifier **out, ch_error *err)
{
    *out = NULL;
    if (!s->checklist)
        return ch_error_set(err, "verify: no checklist");
    ch_verifier *v = ch_xcalloc(1, sizeof *v);
    v->s = *s;
    pthread_mutex_init(&v->mu, NULL);
    pthread_mutex_init(&v->best_mu, NULL);
    v->best_kernel_ms = v->best_call_ms = -1;
    pthread_mutex_init(&v->scaffold_mu, NULL);
    pthread_cond_init(&v->mem_cv, NULL);
    ch_verify_plan_make(s->checklist, &v->plan);
    v->nvcc = ch_xstrdup(s->nvcc && *s->nvcc ? s->nvcc : "nvcc");
    v->arch = ch_xstrdup(s->arch && *s->arch ? s->arch : "sm_90");
    v->sanitizer = find_sanitizer(s->sanitizer);
    v->runtime_lib = s->runtime_lib && *s->runtime_lib ? ch_xstrdup(s->runtime_lib) : NULL;
    v->cuda_home = find_cuda_home(v->nvcc);
    v->ref_root = ch_make_temp_dir("ref", err);
    if (!v->ref_root) {
        ch_verifier_close(v);
        return -1;
    }
    chmod(v->ref_root, 0700);
    char *ck_json = ch_checklist_to_json(s->checklist);
    XXH128_hash_t h = XXH3_128bits(ck_json, strlen(ck_json));
    snprintf(v->ck_hash, sizeof v->ck_hash, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
    free(ck_json);
    ch_strbuf log;
    ch_strbuf_init(&log);
    int rc = ch_reference_build(s->checklist, &s->oracle, v->ref_root, &v->ref_exe, &log, err);
    ch_strbuf_free(&log);
    if (rc) {
        ch_verifier_close(v);
        return -1;
    }
    /* the scaffold does not depend on any candidate: compiled now, it is ready when the first
     * candidates (proposed meanwhile) have compiled */
    ch_strbuf sig;
    ch_strbuf_init(&sig);
    ch_scaffold_signatures(s->checklist, &sig);
    v->signatures = ch_strbuf_detach(&sig);
    if (s->last_stage < 0 || s->last_stage >= CH_STAGE_COMPILE)
        v->scaffold_started = pthread_create(&v->scaffold_tid, NULL, scaffold_thread, v) == 0;
    calib_start(v);
    *out = v;
    return 0;
}

void ch_verifier_close(ch_verifier *v)
{
    if (!v)
        return;
    if (v->scaffold_started)
        pthread_join(v->scaffold_tid, NULL);
    if (v->calib_started)
        pthread_join(v->calib_tid, NULL);
    free(v->calib_exe);
    if (v->ref_root && !v->s.keep) {
        ch_error e;
        ch_remove_tree(v->ref_root, &e);
    }
    free(v->ref_root);
    free(v->ref_exe);
    free(v->nvcc);
    free(v->arch);
    free(v->sanitizer);
    free(v->runtime_lib);
    free(v->cuda_home);
    free(v->scaffold_obj);
    free(v->scaffold_log);
    free(v->signatures);
    for (size_t i = 0; i < v->n_san; i++) {
        free(v->san[i].message);
        free(v->san[i].tool_output);
    }
    free(v->san);
    ch_verify_plan_free(&v->plan);
    pthread_mutex_destroy(&v->mu);
    pthread_mutex_destroy(&v->best_mu);
    pthread_mutex_destroy(&v->scaffold_mu);
    pthread_cond_destroy(&v->mem_cv);
    free(v);
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* The first lines of text that mention errors (or the first lines), at most max_lines. */
static char *relevant_lines(const char *text, int max_lines, const char *strip_prefix)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int n = 0, pass;
    for (pass = 0; pass < 2 && n == 0; pass++) {
        for (const char *l = text; l && *l && n < max_lines;) {
            const char *e = strchr(l, '\n');
            size_t len = e ? (size_t)(e - l) : strlen(l);
            int want = pass == 1 || (memmem(l, len, "error", 5) || memmem(l, len, "Error", 5) ||
                                     memmem(l, len, "ERROR", 5) || memmem(l, len, "Invalid", 7) ||
                                     memmem(l, len, "hazard", 6) || memmem(l, len, "warning", 7));
            if (want && len) {
                size_t pl = strip_prefix ? strlen(strip_prefix) : 0;
                if (pl && len > pl && strncmp(l, strip_prefix, pl) == 0)
                    l += pl, len -= pl;
                ch_strbuf_add(&sb, l, len);
                ch_strbuf_addc(&sb, '\n');
                n++;
            }
            l = e ? e + 1 : NULL;
        }
    }
    return ch_strbuf_detach(&sb);
}

static cJSON *stage_obj(ch_verify_report *r, int stage)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(r->details, ch_stage_name(stage));
    if (!o)
        o = cJSON_AddObjectToObject(r->details, ch_stage_name(stage));
    return o;
}

static int stage_fail(ch_verify_report *r, int stage, char *msg)
{
    r->stage = stage;
    r->status[stage] = CH_ST_FAIL;
    free(r->message);
    r->message = ch_xasprintf("%s: %s", ch_stage_name(stage), msg);
    cJSON_AddStringToObject(stage_obj(r, stage), "message", msg);
    free(msg);
    return 1;
}

/* Describes a failed program run, or returns NULL when it exited 0. */
static char *run_problem(const ch_proc_result *pr, double limit)
{
    if (pr->timed_out)
        return ch_xasprintf("timed out after %.0f s (infinite loop or deadlock?); process group "
                            "killed",
                            limit);
    if (pr->signaled)
        return ch_xasprintf("killed by signal %d", pr->exit_code - 128);
    if (pr->exit_code == 5) {
        char *l = relevant_lines(pr->err.data, 1, "ch-scaffold: ");
        char *m = ch_xasprintf("the device launcher stopped computing what the launcher does when "
                               "called repeatedly (skipped work?): %s",
                               l);
        free(l);
        size_t n = strlen(m);
        while (n && m[n - 1] == '\n')
            m[--n] = '\0';
        return m;
    }
    if (pr->exit_code == 3) {
        char *l = relevant_lines(pr->err.data, 3, NULL);
        char *m = ch_xasprintf("CUDA error after the launcher returned: %s", l);
        free(l);
        size_t n = strlen(m);
        while (n && m[n - 1] == '\n')
            m[--n] = '\0';
        return m;
    }
    if (pr->exit_code != 0) {
        char *l = relevant_lines(pr->err.data, 3, NULL);
        char *m = ch_xasprintf("the scaffold exited with status %d%s%s", pr->exit_code,
                               *l ? ": " : "", l);
        free(l);
        size_t n = strlen(m);
        while (n && m[n - 1] == '\n')
            m[--n] = '\0';
        return m;
    }
    return NULL;
}

/* Sandbox options for a run in dir: the reference outputs and the cache hidden from it. */
static void sandbox_opts_for(ch_verifier *v, ch_sandbox_opts *so, const char *dir)
{
    memset(so, 0, sizeof *so);
    so->dir = dir;
    so->hide[0] = v->ref_root;
    so->hide[1] = v->s.cache_dir;
}

/* ch_sandbox_run, remembering which isolation steps failed for the reports. */
static int sandbox_run(ch_verifier *v, const ch_sandbox_opts *so, char *const *argv,
                       ch_proc_result *pr, ch_error *err)
{
    int rc = ch_sandbox_run(so, argv, pr, err);
    atomic_fetch_or(&v->isolation_failed, pr->isolation_failed);
    return rc;
}

/* Adds seconds to the number key of rep's gpu_lock details (made when missing). */
static void gpu_lock_add(ch_verify_report *rep, const char *key, double seconds)
{
    cJSON *gl = cJSON_GetObjectItemCaseSensitive(rep->details, "gpu_lock");
    if (!gl)
        gl = cJSON_AddObjectToObject(rep->details, "gpu_lock");
    cJSON *w = cJSON_GetObjectItemCaseSensitive(gl, key);
    if (w)
        cJSON_SetNumberValue(w, w->valuedouble + seconds);
    else
        cJSON_AddNumberToObject(gl, key, seconds);
}

/* Takes the GPU lock (shared or exclusive) into *lk for rep's candidate and adds the wait to
 * its details (gpu_lock.shared_wait_seconds or exclusive_wait_seconds). A lock file that cannot
 * be had is noted once and the run goes on (its times may be off); the process-wide part is
 * held either way, so the caller always releases *lk. */
static void gpu_lock_take(ch_verifier *v, int exclusive, ch_verify_report *rep, ch_gpu_lock *lk)
{
    double t0 = now();
    ch_error lerr;
    int failed = ch_gpu_lock_acquire(v->s.gpu_lock, exclusive, lk, &lerr) != 0;
    double waited = now() - t0;
    gpu_lock_add(rep, exclusive ? "exclusive_wait_seconds" : "shared_wait_seconds", waited);
    cJSON *gl = cJSON_GetObjectItemCaseSensitive(rep->details, "gpu_lock");
    if (failed && !cJSON_GetObjectItemCaseSensitive(gl, "error"))
        cJSON_AddStringToObject(gl, "error", lerr.msg);
}

/* Whether word is one of argv's (NULL-terminated). */
static int argv_has(char *const *argv, const char *word)
{
    for (; *argv; argv++)
        if (strcmp(*argv, word) == 0)
            return 1;
    return 0;
}

typedef struct shared_gate {
    ch_verifier *v;
    ch_verify_report *rep;
    ch_gpu_lock lk;
} shared_gate;

static void take_gpu_shared(void *ctx)
{
    shared_gate *g = ctx;
    gpu_lock_take(g->v, 0, g->rep, &g->lk);
}

/* A functional run on the GPU (smoke, correctness, sanitizer) under a shared hold of the GPU
 * lock, taken for this run alone: the work around it (reference outputs, inputs written,
 * outputs compared) holds nothing. A shared hold keeps a timing run off the GPU meanwhile, and
 * a waiting timing run stops new shared takers (cache/lock.c), so the longer shared holds are,
 * the longer every entry's timing waits and the more functional runs queue behind it: with
 * holds over whole stages, sixteen entries built at once (make -j16) mostly waited. The wait
 * is added up in the report's details (gpu_lock.shared_wait_seconds).
 * The hold starts at the program's gate (`prog grun`, include/ch/scaffold.h), after its CUDA
 * context exists: a context takes 0.3 s alone, seconds beside other builds, and a sanitizer's
 * start more; held from the process start, every timing run of every other entry waited
 * through them. A program that ends before its gate never held the GPU. */
static int gpu_shared_run(ch_verifier *v, const ch_sandbox_opts *so_in, char *const *argv,
                          ch_proc_result *pr, ch_verify_report *rep, ch_error *err)
{
    assert(argv_has(argv, "grun")); /* only a gated run prints the line the hold waits for */
    ch_sandbox_opts so = *so_in;
    shared_gate g = {.v = v, .rep = rep};
    so.gate_line = CH_SCAFFOLD_READY;
    so.gate = take_gpu_shared;
    so.gate_ctx = &g;
    so.gate_reply = NULL;
    int rc = sandbox_run(v, &so, argv, pr, err);
    if (pr->gate_opened)
        ch_gpu_lock_release(&g.lk);
    return rc;
}

/* Time mode's "cannot win" bound (ch_verify_hopeless_bound) for one timing: the host path's
 * time is known before the run; the fastest whole call of an earlier candidate is read before
 * it (the BOUND_MS argument) and again once the GPU is had alone (the gate's reply), as the
 * candidates of a round wait for the GPU together and those timed meanwhile may have lowered
 * it. */
typedef struct perf_bound {
    double host_ms;   /* -1: unknown */
    double bound;     /* ms, 0: none */
    double base_ms;   /* the time it multiplies */
    int against_host; /* 1: host_ms sets it, 0: an earlier candidate */
    char reply[40];   /* bound as the program reads it after the go byte */
} perf_bound;

static void perf_bound_update(ch_verifier *v, perf_bound *pb)
{
    pthread_mutex_lock(&v->best_mu);
    double best = v->best_call_ms;
    pthread_mutex_unlock(&v->best_mu);
    pb->bound = ch_verify_hopeless_bound(pb->host_ms, best, &pb->against_host);
    pb->base_ms = pb->against_host ? pb->host_ms : best;
    snprintf(pb->reply, sizeof pb->reply, "%.9g\n", pb->bound);
}

typedef struct timed_gate {
    ch_verifier *v;
    ch_verify_report *rep;
    ch_gpu_lock lk;
    double taken;   /* now() when the GPU was had alone */
    perf_bound *pb; /* refreshed then, or NULL */
} timed_gate;

static void take_gpu_alone(void *ctx)
{
    timed_gate *g = ctx;
    gpu_lock_take(g->v, 1, g->rep, &g->lk);
    g->taken = now();
    if (g->pb)
        perf_bound_update(g->v, g->pb);
}

static void give_gpu_back(void *ctx)
{
    timed_gate *g = ctx;
    ch_gpu_lock_release(&g->lk);
    /* how long every other build waited on this one (the timeline shows it) */
    gpu_lock_add(g->rep, "exclusive_held_seconds", now() - g->taken);
}

/* A timing run with the GPU alone, taken only once the program is ready to time: the
 * scaffold's time mode prints CH_SCAFFOLD_READY after starting, reading its inputs and making
 * its host copies of them (hundreds of MiB at a tune size), then waits for the verifier's go
 * (ch_proc_opts.gate). Held from the process start, as before, every other entry's timing and
 * functional runs waited through that preparation too: sixteen entries at once (make -j16)
 * spent most of their time queued behind it. rep gets the wait.
 * pb: the timing's bound, sent again when the GPU is had (NULL: none). */
static int gpu_timed_run(ch_verifier *v, ch_sandbox_opts *so, char *const *argv, ch_proc_result *pr,
                         ch_verify_report *rep, perf_bound *pb, ch_error *err)
{
    assert(rep); /* the wait goes into its details */
    timed_gate g = {.v = v, .rep = rep, .pb = pb};
    so->gate_line = CH_SCAFFOLD_READY;
    so->gate = take_gpu_alone;
    so->gate_ctx = &g;
    so->gate_reply = pb ? pb->reply : NULL;
    /* released as soon as the timed calls are over: freeing a tune size's sets, comparing its
     * outputs and tearing the context down took seconds more, every other build waiting */
    so->release_line = CH_SCAFFOLD_TIMED;
    so->release = give_gpu_back;
    int rc = sandbox_run(v, so, argv, pr, err);
    if (pr->gate_opened && !pr->released)
        give_gpu_back(&g);
    return rc;
}

#define SLOW_MARK ".slow" /* beside .done: the reference ran past a size's soft limit */

/* Runs the reference on the dataset written into dir and marks dir done. With a soft limit
 * (seconds, 0 for none), a run past it marks dir slow and returns 1: the size is left out,
 * not the candidate failed. */
static int compute_reference(ch_verifier *v, const char *dir, const char *done,
                             const ch_dataset *ds, double soft_limit, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    if (ch_mkdir_p(dir, err) != 0 || ch_dataset_write(c, ds, dir, err) != 0)
        return -1;
    ch_sandbox_opts so;
    sandbox_opts_for(v, &so, dir);
    so.cpu_only = 1;
    so.wall_seconds = soft_limit > 0 ? soft_limit : 600;
    so.cpu_seconds = so.wall_seconds;
    char *argv[] = {v->ref_exe, (char *)dir, NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    if (sandbox_run(v, &so, argv, &pr, err) != 0) {
        ch_proc_result_free(&pr);
        return -1;
    }
    if (soft_limit > 0 && pr.timed_out) {
        ch_proc_result_free(&pr);
        char *slow = ch_path_join(dir, SLOW_MARK);
        int rc = ch_write_file_atomic(slow, "", 0, 0, err);
        free(slow);
        return rc == 0 ? 1 : -1;
    }
    char *prob = run_problem(&pr, so.wall_seconds);
    int rc = 0;
    if (prob) {
        /* a crash on synthesized data says which clause would describe valid inputs */
        char *why = ch_reference_failure(c, v->ref_exe, &pr, NULL);
        rc = ch_error_set(err, "%s", why);
        free(why);
        free(prob);
    }
    ch_proc_result_free(&pr);
    return rc == 0 ? ch_write_file_atomic(done, "", 0, 0, err) : -1;
}

/* Reference outputs for (stage, size index, set) at seed: computed once in the private
 * directory. Returns that directory (caller frees) with the dataset in *ds. Candidates tested at
 * once with the same seed (a fixed one) share it: a lock file beside it lets one compute while
 * the others wait, instead of both writing the same files. */
static char *reference_case(ch_verifier *v, uint64_t seed, int stage, size_t k, int set,
                            const ch_ck_size *sz, ch_data_shape shape, double soft_limit, int *slow,
                            ch_dataset *ds, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    uint64_t sseed = mix(seed, (uint64_t)stage, k, (uint64_t)set);
    if (ch_reference_inputs_shaped(c, v->ref_exe, sz, sseed, shape, ds, err) != 0)
        return NULL;
    char *dir =
        ch_xasprintf("%s/%016llx-%d-%zu-%d", v->ref_root, (unsigned long long)seed, stage, k, set);
    char *done = ch_path_join(dir, ".done"), *slow_mark = ch_path_join(dir, SLOW_MARK);
    int rc = soft_limit > 0 && ch_file_exists(slow_mark); /* an earlier candidate's try */
    free(slow_mark);
    if (rc == 0 && !ch_file_exists(done)) {
        char *lock_path = ch_xasprintf("%s.lock", dir);
        int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        free(lock_path);
        if (fd >= 0)
            flock(fd, LOCK_EX);
        if (!ch_file_exists(done))
            rc = compute_reference(v, dir, done, ds, soft_limit, err);
        if (fd >= 0)
            close(fd);
    }
    free(done);
    *slow = rc == 1;
    if (rc == 0)
        return dir;
    free(dir);
    ch_dataset_free(ds);
    return NULL;
}

/* Compares one set's outputs (got_dir/P<suffix>: ".out.bin" from the launcher, ".dev.out.bin"
 * from the device launcher); returns NULL when right, else a message, filling `mm` with the
 * first mismatches (strings with input context). */
static char *compare_set(const ch_checklist *c, const ch_dataset *ds, const char *ref_dir,
                         const char *got_dir, const char *suffix, cJSON *mm, cJSON *norms,
                         ch_error *err)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        char *gp = ch_xasprintf("%s/%s%s", got_dir, p->name, suffix);
        void *got = NULL;
        ch_error e2;
        int rc = ch_buf_read(gp, p->elem, ds->count[i], &got, NULL, &e2);
        free(gp);
        if (rc != 0)
            return ch_xasprintf("cannot read output %s: %s", p->name, e2.msg);
        if (p->dir == CH_DIR_IN) {
            size_t bytes = ds->count[i] * ch_scalar_size(p->elem);
            if (bytes && memcmp(got, ds->data[i], bytes) != 0) {
                size_t k = 0;
                size_t es = ch_scalar_size(p->elem);
                while (k < ds->count[i] &&
                       memcmp((char *)got + k * es, (char *)ds->data[i] + k * es, es) == 0)
                    k++;
                char *m = ch_xasprintf("input buffer %s was modified (first at index %zu: was %g, "
                                       "now %g); in buffers must be left unchanged",
                                       p->name, k, ch_elem_value(p->elem, ds->data[i], k),
                                       ch_elem_value(p->elem, got, k));
                free(got);
                return m;
            }
            free(got);
            continue;
        }
        char *rp = ch_xasprintf("%s/%s.out.bin", ref_dir, p->name);
        void *ref = NULL;
        rc = ch_buf_read(rp, p->elem, ds->count[i], &ref, NULL, err);
        free(rp);
        if (rc != 0) {
            free(got);
            return ch_xasprintf("internal: reference output %s unreadable: %s", p->name, err->msg);
        }
        ch_cmp_result cr;
        ch_compare(p->elem, got, ref, ds->count[i], p->rtol, p->rtol > 0 ? p->atol : -1, &cr);
        cJSON *nm = cJSON_CreateObject();
        cJSON_AddStringToObject(nm, "buffer", p->name);
        cJSON_AddNumberToObject(nm, "max_abs_err", cr.max_abs_err);
        cJSON_AddNumberToObject(nm, "rel_l2", isfinite(cr.rel_l2) ? cr.rel_l2 : -1);
        cJSON_AddNumberToObject(nm, "bad", (double)cr.n_bad);
        cJSON_AddItemToArray(norms, nm);
        char *msg = NULL;
        if (!cr.ok) {
            for (size_t k = 0; k < cr.n_first && k < 5; k++) {
                ch_strbuf sb;
                ch_strbuf_init(&sb);
                size_t idx = cr.first[k].index;
                ch_strbuf_addf(&sb, "%s[%zu]: expected %.9g, got %.9g", p->name, idx,
                               cr.first[k].expected, cr.first[k].got);
                /* input context: same-length inputs at the same index, and the scalars */
                int ctx = 0;
                for (size_t j = 0; j < c->n_params; j++) {
                    const ch_ck_param *q = &c->params[j];
                    if (!ds->data[j] || j == i)
                        continue;
                    if (q->role == CH_ROLE_SCALAR)
                        ch_strbuf_addf(&sb, "%s%s=%g", ctx++ ? ", " : " (", q->name,
                                       ch_elem_value(q->elem, ds->data[j], 0));
                    else if (ds->count[j] == ds->count[i])
                        ch_strbuf_addf(&sb, "%s%s[%zu]=%g", ctx++ ? ", " : " (", q->name, idx,
                                       ch_elem_value(q->elem, ds->data[j], idx));
                }
                if (ctx)
                    ch_strbuf_addc(&sb, ')');
                cJSON_AddItemToArray(mm, cJSON_CreateString(sb.data));
                ch_strbuf_free(&sb);
            }
            if (cr.n_first)
                msg = ch_xasprintf("%s: %s; first: %s[%zu] expected %.9g, got %.9g", p->name,
                                   cr.message, p->name, cr.first[0].index, cr.first[0].expected,
                                   cr.first[0].got);
            else
                msg = ch_xasprintf("%s: %s", p->name, cr.message);
        }
        free(got);
        free(ref);
        if (msg)
            return msg;
    }
    return NULL;
}

/* One case of a smoke or correctness stage: nsets input sets of one size, all through the
 * same buffers. Its inputs and the reference outputs are prepared before the stage's run; the
 * datasets (owned, freed by stage_case_free) are kept to judge the outputs. */
typedef struct stage_case {
    size_t k;          /* the size's index in the checklist's smoke or correctness list */
    int nsets;         /* 1..4 */
    int structured;    /* the sets are shaped: set s is STRUCTURED_SHAPES[s] */
    int at_constant;   /* a size at a candidate's constant (ch_magic_sizes): its reference
                          has CH_MAGIC_REF_SECONDS, else the size is left out */
    char *dir;         /* work/<stage>/<k>: the sets' inputs and the program's outputs */
    char *sizes;       /* the size as reports name it */
    char *ref_dirs[4]; /* reference outputs per set */
    ch_dataset ds[4];  /* the inputs per set */
} stage_case;

static void stage_case_free(stage_case *sc)
{
    for (int s = 0; s < 4; s++) {
        free(sc->ref_dirs[s]);
        ch_dataset_free(&sc->ds[s]);
    }
    free(sc->dir);
    free(sc->sizes);
    memset(sc, 0, sizeof *sc);
}

/* The structured case of the correctness stage: one set of each shape at the smallest
 * correctness size, after the random ones (attacks6/13, /21: a kernel wrong only when an
 * array holds one value or a scalar is round passed every random set). */
static const ch_data_shape STRUCTURED_SHAPES[] = {CH_DATA_UNIFORM, CH_DATA_EQUAL};
#define N_STRUCTURED ((int)(sizeof STRUCTURED_SHAPES / sizeof STRUCTURED_SHAPES[0]))
/* its index for the reference outputs' directory: past the checklist's sizes and magic_key's */
#define STRUCTURED_KEY ((size_t)2000000000u)

static const char *structured_what(int set)
{
    return STRUCTURED_SHAPES[set] == CH_DATA_UNIFORM
               ? "every input buffer filled with one value, floating scalars round"
               : "input buffers of one type and length equal to each other";
}

/* Writes the case's input sets into its directory, with their reference outputs computed: 0,
 * or 1 when the case is at a constant and its reference is too slow (left out), -1 on error. */
static int stage_case_prepare(ch_verifier *v, const char *stage_dir, uint64_t seed, int stage,
                              stage_case *sc, const ch_ck_size *sz, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    assert(sc->nsets >= 1 && sc->nsets <= 4);
    sc->dir = ch_xasprintf("%s/%zu", stage_dir, sc->k);
    sc->sizes = ch_ck_size_text(sz);
    double soft_limit = !sc->at_constant             ? 0
                        : v->s.magic_ref_seconds > 0 ? v->s.magic_ref_seconds
                                                     : CH_MAGIC_REF_SECONDS;
    for (int s = 0; s < sc->nsets; s++) {
        ch_data_shape shape = sc->structured ? STRUCTURED_SHAPES[s] : CH_DATA_RANDOM;
        int slow = 0;
        sc->ref_dirs[s] =
            reference_case(v, seed, stage, sc->k, s, sz, shape, soft_limit, &slow, &sc->ds[s], err);
        if (slow)
            return 1;
        if (!sc->ref_dirs[s])
            return -1;
        char *sd = ch_xasprintf("%s/%d", sc->dir, s);
        int rc = ch_mkdir_p(sd, err) != 0 || ch_dataset_write(c, &sc->ds[s], sd, err) != 0;
        free(sd);
        if (rc)
            return -1;
    }
    return 0;
}

/* Judges one case's outputs (the launcher's sets, then the device launcher's when dev): 1 and
 * the stage failed in rep on the first wrong set, 0 when all are right. */
static int stage_case_judge(ch_verifier *v, int stage, const stage_case *sc, int dev,
                            ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, stage);
    for (int s = 0; s < sc->nsets * (dev ? 2 : 1); s++) {
        int d = s >= sc->nsets, set = s % sc->nsets;
        cJSON *mm = cJSON_CreateArray(), *norms = cJSON_CreateArray();
        char *gd = ch_xasprintf("%s/%d", sc->dir, set);
        char *m = compare_set(c, &sc->ds[set], sc->ref_dirs[set], gd,
                              d ? ".dev.out.bin" : ".out.bin", mm, norms, err);
        free(gd);
        if (m && d) {
            char *dm = ch_xasprintf("%s_device_launcher (device buffers): %s", c->name, m);
            free(m);
            m = dm;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(st, "norms");
        cJSON_AddItemToObject(st, "norms", norms);
        if (m) {
            cJSON_AddItemToObject(st, "mismatches", mm);
            cJSON_AddStringToObject(st, "size", sc->sizes);
            cJSON_AddNumberToObject(st, "call", set + 1);
            char *full =
                sc->structured
                    ? ch_xasprintf("wrong on structured inputs (%s), where random ones pass: a "
                                   "kernel must be right on every valid input: %s at %s",
                                   structured_what(set), m, sc->sizes)
                : set > 0 ? ch_xasprintf("second call with other inputs in the same buffers is "
                                         "wrong (outputs cached or state kept across calls?): %s "
                                         "at %s",
                                         m, sc->sizes)
                          : ch_xasprintf("%s at %s", m, sc->sizes);
            free(m);
            return stage_fail(rep, stage, full);
        }
        cJSON_Delete(mm);
    }
    return 0;
}

/* The cases of out (the run's stdout): how many started (CH_SCAFFOLD_CASE lines) and, for each
 * of the first n, whether its section says the program has a device launcher. */
static int cases_started(const char *out, int *dev, int n)
{
    int started = 0;
    const char *line = "\n" CH_SCAFFOLD_CASE " ", *mark = CH_SCAFFOLD_CASE " ";
    for (int i = 0; i < n; i++)
        dev[i] = 0;
    for (const char *p = out; p && *p;) {
        const char *next = strstr(p, line);
        const char *end = next ? next + 1 : p + strlen(p);
        if (p == out && strncmp(p, mark, strlen(mark)) != 0) {
            p = next ? next + 1 : NULL; /* text before the first case */
            continue;
        }
        started++;
        const char *dl = strstr(p, "ch-run: device_launcher=1");
        if (started <= n && dl && dl < end)
            dev[started - 1] = 1;
        p = next ? next + 1 : NULL;
    }
    return started;
}

/* A smoke or correctness stage's cases in one scaffold run (`prog run DIR NSETS ...`): one
 * process and one CUDA context for all sizes, where a process each made context creations queue
 * in the driver when builds ran at once. Verdicts are as if each case ran alone, in order: the
 * cases that finished are judged first; a crash or timeout is reported at the size whose
 * CH_SCAFFOLD_CASE line came last. *ran: the cases judged (the failing one included); *dev: the
 * last case's device launcher flag. 1 failed, 0 passed, -1 error. */
static int run_cases(ch_verifier *v, const char *prog, const char *stage_dir, int stage,
                     stage_case *cases, int n, int *ran, int *dev, ch_verify_report *rep,
                     ch_error *err)
{
    *ran = 0;
    *dev = 0;
    if (n == 0)
        return 0;
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, prog);
    ch_strvec_push(&argv, "grun");
    for (int i = 0; i < n; i++) {
        char nbuf[16];
        snprintf(nbuf, sizeof nbuf, "%d", cases[i].nsets);
        ch_strvec_push(&argv, cases[i].dir);
        ch_strvec_push(&argv, nbuf);
    }
    ch_sandbox_opts so;
    /* the stage's directory, holding every case: the only one the program may write */
    sandbox_opts_for(v, &so, stage_dir);
    so.runner = v->s.runner;
    /* the per-case limits times the cases */
    so.wall_seconds = (v->s.wall_seconds > 0 ? v->s.wall_seconds : 20) * n;
    so.cpu_seconds = CH_SANDBOX_CPU_SECONDS * n;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    int rc = gpu_shared_run(v, &so, argv.items, &pr, rep, err);
    ch_strvec_free(&argv);
    if (rc != 0) {
        ch_proc_result_free(&pr);
        return -1;
    }
    int *devs = ch_xcalloc((size_t)n, sizeof *devs);
    int started = cases_started(pr.out.data, devs, n);
    char *prob = run_problem(&pr, so.wall_seconds);
    ch_proc_result_free(&pr);
    /* without a problem every case ran; with one, those before the last started are whole */
    int whole = prob ? (started > 0 ? started - 1 : 0) : n;
    if (whole > n)
        whole = n;
    int failed = 0;
    for (int i = 0; i < whole && !failed; i++) {
        failed = stage_case_judge(v, stage, &cases[i], devs[i], rep, err);
        *ran = i + 1;
        *dev = devs[i];
    }
    if (prob && !failed) {
        int at = whole < n ? whole : n - 1;
        failed = stage_fail(rep, stage, ch_xasprintf("%s at %s", prob, cases[at].sizes));
        *ran = at + 1;
        *dev = 0;
    }
    free(prob);
    free(devs);
    return failed;
}

/* The correctness sizes at the constants the candidate (src) and a model-written reference
 * compare sizes with (ch_magic_sizes), within the memory the plan reserves a test. */
static size_t magic_extra(const ch_verifier *v, const char *src, ch_ck_size *extra)
{
    ch_magic_consts k = {0};
    ch_magic_harvest(src, &k);
    if (v->s.oracle.reference_c)
        ch_magic_harvest(v->s.oracle.reference_c, &k);
    double max_bytes = v->plan.device_bytes / 2;
    if (max_bytes < CH_MAGIC_MAX_BYTES)
        max_bytes = CH_MAGIC_MAX_BYTES;
    return ch_magic_sizes(v->s.checklist, &k, max_bytes, extra, CH_MAGIC_MAX_SIZES);
}

/* An extra size's index for its reference outputs' directory: past the checklist's sizes and
 * set by the size itself, so that candidates sharing a seed never share a directory for
 * different sizes. */
static size_t magic_key(const ch_ck_size *sz)
{
    char *t = ch_ck_size_text(sz);
    size_t k = 1000000 + (size_t)(XXH3_64bits(t, strlen(t)) % 1000000000u);
    free(t);
    return k;
}

/* A smoke or correctness stage: every size with sets to run (correctness: the plan's sets per
 * size; 0 is a size too large beside a smaller one, then one set at each size the candidate's
 * or the reference's constants ask for) prepared, then run in one process. */
static int stage_functional(ch_verifier *v, const char *work, const char *prog, const char *src,
                            uint64_t seed, int stage, int *dev, ch_verify_report *rep,
                            ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    size_t n = stage == CH_STAGE_SMOKE ? c->n_smoke : c->n_correctness;
    const ch_ck_size *sizes = stage == CH_STAGE_SMOKE ? c->smoke : c->correctness;
    ch_ck_size extra[CH_MAGIC_MAX_SIZES];
    size_t ne = stage == CH_STAGE_CORRECT && src ? magic_extra(v, src, extra) : 0;
    stage_case *cases = ch_xcalloc(n + ne + 1, sizeof *cases);
    int nc = 0, rc = 0, failed = 0, ran = 0, skipped = 0;
    char *stage_dir = ch_path_join(work, ch_stage_name(stage));
    for (size_t k = 0; k < n && rc == 0; k++) {
        int nsets = stage == CH_STAGE_SMOKE ? 1 : v->plan.correct_sets[k];
        skipped += nsets == 0;
        if (nsets == 0)
            continue;
        cases[nc].k = k;
        cases[nc].nsets = nsets;
        rc = stage_case_prepare(v, stage_dir, seed, stage, &cases[nc++], &sizes[k], err);
    }
    size_t too_slow = 0;
    for (size_t j = 0; j < ne && rc == 0; j++) {
        cases[nc].k = magic_key(&extra[j]);
        cases[nc].nsets = 1;
        cases[nc].at_constant = 1;
        rc = stage_case_prepare(v, stage_dir, seed, stage, &cases[nc++], &extra[j], err);
        if (rc == 1) {
            stage_case_free(&cases[--nc]);
            too_slow++;
            rc = 0;
        }
    }
    /* the structured sets at the smallest correctness size that has sets */
    for (size_t k = 0; stage == CH_STAGE_CORRECT && k < n && rc == 0; k++) {
        if (v->plan.correct_sets[k] == 0)
            continue;
        cases[nc].k = STRUCTURED_KEY + k;
        cases[nc].nsets = N_STRUCTURED;
        cases[nc].structured = 1;
        rc = stage_case_prepare(v, stage_dir, seed, stage, &cases[nc++], &sizes[k], err);
        break;
    }
    for (size_t j = 0; j < ne; j++)
        ch_ck_size_free(&extra[j]);
    if (rc == 0)
        failed = run_cases(v, prog, stage_dir, stage, cases, nc, &ran, dev, rep, err);
    /* the structured case is the last: its sets are counted apart from the sizes */
    int structured_ran = nc > 0 && cases[nc - 1].structured && ran == nc;
    for (int i = 0; i < nc; i++)
        stage_case_free(&cases[i]);
    free(cases);
    if (!v->s.keep) {
        ch_error e2;
        ch_remove_tree(stage_dir, &e2);
    }
    free(stage_dir);
    if (rc != 0 || failed < 0)
        return -1;
    cJSON_AddNumberToObject(stage_obj(rep, stage), "sizes", (double)(ran - structured_ran));
    if (structured_ran)
        cJSON_AddNumberToObject(stage_obj(rep, stage), "structured_sets", N_STRUCTURED);
    if (ne)
        cJSON_AddNumberToObject(stage_obj(rep, stage), "sizes_at_constants",
                                (double)(ne - too_slow));
    if (too_slow) {
        double limit = v->s.magic_ref_seconds > 0 ? v->s.magic_ref_seconds : CH_MAGIC_REF_SECONDS;
        char *note = ch_xasprintf("%zu size%s at the candidate's constants left out: the "
                                  "reference takes over %g s there",
                                  too_slow, too_slow == 1 ? "" : "s", limit);
        cJSON_AddStringToObject(stage_obj(rep, stage), "note", note);
        free(note);
    }
    if (skipped && !failed)
        cJSON_AddNumberToObject(stage_obj(rep, stage), "sizes_skipped_as_too_large",
                                (double)skipped);
    return failed;
}

/* ---- stages -------------------------------------------------------------------------------- */

/* Parses ptxas -v lines into resource objects. */
static void parse_resources(const char *log, cJSON *arr)
{
    char fn[256] = "";
    for (const char *l = log; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        char line[512];
        size_t n = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, l, n);
        line[n] = '\0';
        const char *q;
        if ((q = strstr(line, "entry function '")) ||
            (q = strstr(line, "Function properties for "))) {
            const char *b = strchr(q, '\'') ? strchr(q, '\'') + 1 : q + 24;
            size_t fl = strcspn(b, "'\n");
            if (fl >= sizeof fn)
                fl = sizeof fn - 1;
            memcpy(fn, b, fl);
            fn[fl] = '\0';
        }
        if ((q = strstr(line, "Used ")) && strstr(line, "registers")) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "function", fn);
            cJSON_AddNumberToObject(o, "registers", atoi(q + 5));
            const char *sm = strstr(line, "bytes smem");
            if (sm) {
                const char *b = sm;
                while (b > line && b[-1] == ' ')
                    b--;
                while (b > line && b[-1] >= '0' && b[-1] <= '9')
                    b--;
                cJSON_AddNumberToObject(o, "smem_bytes", atoi(b));
            }
            cJSON_AddStringToObject(o, "line", strstr(line, "Used "));
            cJSON_AddItemToArray(arr, o);
        }
        if ((q = strstr(line, "bytes spill stores"))) {
            cJSON *last = cJSON_GetArrayItem(arr, cJSON_GetArraySize(arr) - 1);
            const char *b = q;
            while (b > line && b[-1] == ' ')
                b--;
            while (b > line && b[-1] >= '0' && b[-1] <= '9')
                b--;
            if (atoi(b) > 0) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "function", fn);
                cJSON_AddNumberToObject(o, "spill_store_bytes", atoi(b));
                cJSON_AddStringToObject(o, "line", line);
                cJSON_AddItemToArray(arr, o);
            }
            (void)last;
        }
        l = e ? e + 1 : NULL;
    }
}

/* nvcc on the candidate's (or the scaffold's) source in work, sandboxed: a compiler bug or a
 * plugin trick reaches neither the user's files, the cache, the reference outputs nor the
 * network. cancel_fd: ch_sandbox_opts.cancel_fd (0: none). */
static int run_nvcc(ch_verifier *v, const char *work, char **args, int cancel_fd, ch_strbuf *log,
                    int *status, ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, v->nvcc);
    for (char **a = args; *a; a++)
        ch_strvec_push(&argv, *a);
    for (char *const *a = v->s.nvcc_flags; a && *a; a++)
        ch_strvec_push(&argv, *a);
    ch_sandbox_opts so;
    sandbox_opts_for(v, &so, work);
    so.compiler = 1;
    so.merge_output = 1;
    so.wall_seconds = 300;
    so.cpu_seconds = 300;
    /* the trusted runtime the link takes, wherever ch-cc is installed */
    so.expose[0] = v->runtime_lib;
    so.cancel_fd = cancel_fd;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    int rc = sandbox_run(v, &so, argv.items, &pr, err);
    ch_strvec_free(&argv);
    if (rc == 0) {
        ch_strbuf_add(log, pr.out.data, pr.out.len);
        *status = pr.timed_out ? 124 : pr.exit_code;
    }
    ch_proc_result_free(&pr);
    return rc;
}

/* The first diagnostic lines of a failed compile as the stage's failure: "WHAT failed: ...". */
static int compile_fail(ch_verify_report *rep, cJSON *st, const char *what, const char *log)
{
    char *d = relevant_lines(log, 20, NULL);
    cJSON_DeleteItemFromObjectCaseSensitive(st, "diagnostics");
    cJSON_AddStringToObject(st, "diagnostics", d);
    char *first = ch_xstrndup(d, strcspn(d, "\n"));
    int failed = stage_fail(rep, CH_STAGE_COMPILE, ch_xasprintf("%s failed: %s", what, first));
    free(first);
    free(d);
    return failed;
}

/* Compiles the entry's scaffold object into the private directory: v->scaffold_state 1 (built,
 * v->scaffold_obj) or -1 (failed, v->scaffold_log); -1 with err for internal failures. */
static int build_scaffold(ch_verifier *v, ch_error *err)
{
    char *dir = ch_path_join(v->ref_root, "scaffold");
    ch_strbuf text, log;
    ch_strbuf_init(&text);
    ch_strbuf_init(&log);
    char *sp = ch_path_join(dir, "scaffold.cu");
    char *archflag = ch_xasprintf("-arch=%s", v->arch);
    int status = 0;
    int rc = ch_mkdir_p(dir, err) || ch_scaffold_generate(v->s.checklist, NULL, &text, err) ||
                     ch_write_file_atomic(sp, text.data, text.len, 0, err)
                 ? -1
                 : 0;
    char *args[] = {"-c", "-O2", archflag, "-o", "scaffold.o", "scaffold.cu", NULL};
    if (rc == 0)
        rc = run_nvcc(v, dir, args, 0, &log, &status, err);
    if (rc == 0) {
        v->scaffold_state = status == 0 ? 1 : -1;
        v->scaffold_obj = ch_path_join(dir, "scaffold.o");
        v->scaffold_log = ch_strbuf_detach(&log);
    }
    free(archflag);
    free(sp);
    free(dir);
    ch_strbuf_free(&text);
    ch_strbuf_free(&log);
    return rc;
}

static void *scaffold_thread(void *arg)
{
    ch_verifier *v = arg;
    ch_error_clear(&v->scaffold_err);
    v->scaffold_rc = build_scaffold(v, &v->scaffold_err);
    return NULL;
}

/* The entry's scaffold object, made once per verifier (ch_verifier_open starts it): the
 * scaffold does not depend on the candidate, so each candidate costs one nvcc compile and a
 * link. Builds that need it wait for it. Returns 1 when it built (v->scaffold_obj), 0 when it
 * failed (v->scaffold_log), -1 internal. */
static int scaffold_object(ch_verifier *v, ch_error *err)
{
    pthread_mutex_lock(&v->scaffold_mu);
    int rc = 0;
    if (v->scaffold_started) {
        pthread_join(v->scaffold_tid, NULL);
        v->scaffold_started = 0;
        if ((rc = v->scaffold_rc) < 0)
            *err = v->scaffold_err;
    } else if (v->scaffold_state == 0) {
        rc = build_scaffold(v, err);
    }
    pthread_mutex_unlock(&v->scaffold_mu);
    return rc < 0 ? -1 : v->scaffold_state == 1;
}

/* The scaffold did not compile: it does not depend on the candidate, so no candidate of this
 * entry can be judged, and trying the next one would only spend the budget. The cause is the
 * toolchain or the target (an architecture this nvcc does not build for: a project's arch
 * setting, a build's -arch), so the entry ends with that said once. Returns -1 with err. */
static int scaffold_unbuildable(const ch_verifier *v, ch_error *err)
{
    char *d = relevant_lines(v->scaffold_log ? v->scaffold_log : "", 3, NULL);
    char *first = ch_xstrndup(d, strcspn(d, "\n"));
    ch_error_set(err,
                 "the verification scaffold does not compile for %s, so no candidate can be "
                 "judged (%s); check the arch setting (CH_CC_ARCH, .ch-cc.conf) and the -arch "
                 "options",
                 v->arch, *first ? first : "nvcc failed");
    free(first);
    free(d);
    return -1;
}

/* Puts the scaffold object into the candidate's directory, so that linker messages name it
 * there (never the private reference directory; the signatures header is there already). A
 * copy, never a link: the sandboxed link runs as the owner of that directory's files, and must
 * not own the scaffold every other candidate links. */
static int stage_scaffold_files(ch_verifier *v, const char *work, ch_error *err)
{
    char *op = ch_path_join(work, "scaffold.o");
    char *data = NULL;
    size_t len = 0;
    int rc = ch_read_file(v->scaffold_obj, &data, &len, err) ||
                     ch_write_file_atomic(op, data, len, 0, err)
                 ? -1
                 : 0;
    free(data);
    free(op);
    return rc;
}

/* NVRTC's verdict on a unit's device code: run beside nvcc (side_checks), recorded after. */
typedef struct nvrtc_result {
    int ran;
    ch_nvrtc_verdict verdict;
    ch_strbuf log;
    double seconds;
} nvrtc_result;

static void nvrtc_run(const ch_verifier *v, const char *unit, nvrtc_result *r)
{
    r->ran = !v->s.no_nvrtc; /* r->log: initialised by the caller */
    if (!r->ran)
        return;
    double t0 = now();
    r->verdict = ch_nvrtc_check(unit, "candidate.cu", v->arch, v->cuda_home, &r->log);
    r->seconds = now() - t0;
}

/* r recorded in stage 1's details (after nvcc ran); 1 when the stage failed. */
static int nvrtc_record(nvrtc_result *r, ch_verify_report *rep)
{
    static const char *const names[] = {"pass", "fail", "unsure (nvcc decides)", "skipped"};
    if (!r->ran)
        return 0;
    cJSON *st = stage_obj(rep, CH_STAGE_COMPILE);
    cJSON *o = cJSON_AddObjectToObject(st, "nvrtc");
    cJSON_AddStringToObject(o, "verdict", names[r->verdict]);
    cJSON_AddNumberToObject(o, "seconds", r->seconds);
    /* nvcc decides; when both failed, NVRTC's diagnostics are the ones shown (they name the
     * kernel's line, without nvcc's host-side noise) */
    if (r->verdict != CH_NVRTC_FAIL || rep->status[CH_STAGE_COMPILE] != CH_ST_FAIL)
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(st, "kernel_check");
    cJSON_AddStringToObject(st, "kernel_check", "nvrtc");
    cJSON_DeleteItemFromObjectCaseSensitive(st, "message");
    return compile_fail(rep, st, "kernel compile", r->log.data);
}

/* The device-code check (ch_ptx_check) on the PTX nvcc left in work: 0 passed, 1 refused or no
 * PTX to judge (why filled). The PTX, not the source, is the authority: libraries and macros
 * hide the source spelling of what the compiled code does (issue 15). */
static int device_code_check(const char *work, ch_strbuf *why)
{
    char *pp = ch_path_join(work, "candidate.ptx");
    char *ptx = NULL;
    size_t len = 0;
    ch_error e;
    int rc = ch_read_file_max(pp, 256u << 20, &ptx, &len, &e);
    free(pp);
    if (rc != 0) {
        ch_strbuf_addf(why, "the device-code check has no PTX to judge (nvcc -keep left no "
                            "candidate.ptx)");
        return 1;
    }
    rc = ch_ptx_check(ptx, "candidate.cu", why);
    free(ptx);
    return rc;
}

/* Stage 1 but NVRTC's verdict (side_checks): the candidate compiled once (its object is what
 * the object check judges and what the program links), linked with the entry's scaffold
 * object. unit: the candidate as candidate.cu holds it. cancel_fd: readable once stage 0's
 * AST half refused the candidate, which makes its compile moot (0: none). */
static int stage_compile(ch_verifier *v, const char *work, const char *src, const char *unit,
                         int cancel_fd, ch_verify_report *rep, ch_error *err)
{
    cJSON *st = stage_obj(rep, CH_STAGE_COMPILE);
    char *hp = ch_path_join(work, "signatures.h");
    int hrc = ch_write_file_atomic(hp, v->signatures, strlen(v->signatures), 0, err);
    free(hp);
    if (hrc != 0)
        return -1;
    char *archflag = ch_xasprintf("-arch=%s", v->arch);
    ch_strbuf log;
    ch_strbuf_init(&log);
    int status = 0, failed = 0;
    /* a whole object, not a cubin: its host side is what the object check judges; the
     * signatures forced in front make a launcher of another type a compile error; -keep leaves
     * the PTX its device code was made from (candidate.ptx) for the device-code check, and
     * -lineinfo lets that check (and compute-sanitizer) name the candidate's lines */
    char *a1[] = {"-c",          "-O2",          archflag,   "-Xptxas",      "-v",
                  "-lineinfo",   "-keep",        "-include", "signatures.h", "-o",
                  "candidate.o", "candidate.cu", NULL};
    int rc = run_nvcc(v, work, a1, cancel_fd, &log, &status, err);
    cJSON_AddStringToObject(st, "kernel_check", "nvcc -c -Xptxas -v");
    if (rc == 0 && status != 0) {
        /* a scaffold that does not compile either is no fault of the candidate's */
        int built = scaffold_object(v, err);
        if (built < 0)
            rc = -1;
        else if (!built)
            rc = scaffold_unbuildable(v, err);
        else
            failed = compile_fail(rep, st, "kernel compile", log.data);
    }
    if (rc == 0 && !failed) {
        ch_strbuf why;
        ch_strbuf_init(&why);
        char *obj = ch_path_join(work, "candidate.o");
        if (ch_object_check_libs(obj, ch_object_libraries_declared(src), &why) != 0 ||
            device_code_check(work, &why) != 0)
            failed = stage_fail(rep, CH_STAGE_COMPILE, ch_strbuf_detach(&why));
        ch_strbuf_free(&why);
        free(obj);
    }
    if (rc == 0 && !failed) {
        cJSON *res = cJSON_AddArrayToObject(st, "resources");
        parse_resources(log.data, res);
        /* the scaffold object, made meanwhile (ch_verifier_open) */
        int built = scaffold_object(v, err);
        if (built < 0 || (built && stage_scaffold_files(v, work, err) != 0))
            rc = -1;
        else if (!built)
            rc = scaffold_unbuildable(v, err);
    }
    if (rc == 0 && !failed) {
        int cublas = strstr(src, "cublas") != NULL;
        ch_strvec a2;
        ch_strvec_init(&a2);
        const char *const base[] = {archflag, "-o", "prog", "scaffold.o", "candidate.o"};
        for (size_t i = 0; i < sizeof base / sizeof *base; i++)
            ch_strvec_push(&a2, base[i]);
        /* the scaffold counts the device memory the program holds through these (its leak
         * check) */
        ch_scaffold_link_args(&a2);
        if (v->runtime_lib) {
            /* the trusted runtime, for the whole call's timing (the scaffold declares it weak:
             * without it the candidate's launcher is timed) */
            ch_strvec_push(&a2, "-Xlinker");
            ch_strvec_push(&a2, "--undefined=ch_rt_call_v1");
            ch_strvec_push(&a2, v->runtime_lib);
        }
        if (cublas)
            ch_strvec_push(&a2, "-lcublas");
        ch_strbuf_reset(&log);
        rc = run_nvcc(v, work, a2.items, cancel_fd, &log, &status, err);
        ch_strvec_free(&a2);
        if (rc == 0 && status != 0)
            failed = compile_fail(rep, st, "scaffold link", log.data);
    }
    ch_strbuf_free(&log);
    free(archflag);
    return rc ? -1 : failed;
}

/* compute-sanitizer's tools in the order of the CH_SAN_* bits; a verdict recorded for a source
 * is keyed by them too, so a tool added later also judges sources that passed before it */
static const char *const sanitizer_tool_names[] = {"memcheck", "racecheck", "synccheck",
                                                   "initcheck"};
#define N_SANITIZER_TOOLS (sizeof sanitizer_tool_names / sizeof *sanitizer_tool_names)

/* The sanitizer tools of mask (CH_SAN_* bits) at size sz: 1 failed (stage_fail done), 0
 * passed, -1 internal. The tools left out are listed in the stage's details. */
static int run_sanitizer(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                         const ch_ck_size *sz, unsigned mask, ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, CH_STAGE_SANITIZE);
    char *sizes = ch_ck_size_text(sz);
    cJSON_AddStringToObject(st, "size", sizes);
    const char *const *tools = sanitizer_tool_names;
    assert(CH_SAN_ALL == (1u << N_SANITIZER_TOOLS) - 1);
    cJSON *ran = cJSON_AddArrayToObject(st, "tools");
    cJSON *left = cJSON_AddArrayToObject(st, "tools_not_needed");
    for (size_t t = 0; t < N_SANITIZER_TOOLS; t++)
        cJSON_AddItemToArray(mask & (1u << t) ? ran : left, cJSON_CreateString(tools[t]));
    int failed = 0, rc = 0;
    for (size_t t = 0; t < N_SANITIZER_TOOLS && !failed && rc == 0; t++) {
        if (!(mask & (1u << t)))
            continue;
        char *case_dir = ch_xasprintf("%s/sanitize-%s", work, tools[t]);
        char *sd = ch_path_join(case_dir, "0");
        ch_dataset ds;
        rc = ch_reference_inputs(c, v->ref_exe, sz, mix(seed, 99, t, 0), &ds, err);
        if (rc == 0) {
            rc = ch_mkdir_p(sd, err) || ch_dataset_write(c, &ds, sd, err) ? -1 : 0;
            ch_dataset_free(&ds);
        }
        if (rc == 0) {
            ch_sandbox_opts so;
            sandbox_opts_for(v, &so, case_dir);
            /* compute-sanitizer is trusted and starts the program itself */
            so.allow_spawn = 1;
            so.expose[0] = prog;
            so.runner = v->s.runner;
            so.wall_seconds = 10 * (v->s.wall_seconds > 0 ? v->s.wall_seconds : 20);
            char *argv[] = {v->sanitizer,
                            "--tool",
                            (char *)tools[t],
                            "--error-exitcode",
                            "86",
                            "--print-limit",
                            "20",
                            (char *)prog,
                            "grun",
                            case_dir,
                            "1",
                            NULL};
            ch_proc_result pr;
            ch_proc_result_init(&pr);
            rc = gpu_shared_run(v, &so, argv, &pr, rep, err);
            if (rc == 0) {
                ch_strbuf all;
                ch_strbuf_init(&all);
                ch_strbuf_add(&all, pr.out.data, pr.out.len);
                ch_strbuf_add(&all, pr.err.data, pr.err.len);
                int errors = pr.exit_code == 86;
                const char *sum = strstr(all.data, "ERROR SUMMARY: ");
                if (sum && atoi(sum + 15) > 0)
                    errors = 1;
                if (errors || pr.timed_out || pr.exit_code != 0) {
                    char *d = relevant_lines(all.data, 12, "========= ");
                    cJSON_AddStringToObject(st, "tool_output", d);
                    char *first = ch_xstrndup(d, strcspn(d, "\n"));
                    failed = stage_fail(
                        rep, CH_STAGE_SANITIZE,
                        pr.timed_out ? ch_xasprintf("%s timed out at %s", tools[t], sizes)
                        : errors
                            ? ch_xasprintf("%s reports errors at %s: %s", tools[t], sizes, first)
                            : ch_xasprintf("%s: the program failed (exit %d) "
                                           "at %s: %s",
                                           tools[t], pr.exit_code, sizes, first));
                    free(first);
                    free(d);
                }
                ch_strbuf_free(&all);
            }
            ch_proc_result_free(&pr);
        }
        if (!v->s.keep) {
            ch_error e2;
            ch_remove_tree(case_dir, &e2);
        }
        free(sd);
        free(case_dir);
    }
    free(sizes);
    return rc ? -1 : failed;
}

/* The sanitizer cache key of a candidate source: the checklist, the architecture and the
 * source (XXH3-128, hex). */
static void sanitizer_key(const ch_verifier *v, const char *src, char out[33])
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, v->ck_hash, strlen(v->ck_hash));
    XXH3_128bits_update(st, v->arch, strlen(v->arch) + 1);
    for (size_t t = 0; t < N_SANITIZER_TOOLS; t++)
        XXH3_128bits_update(st, sanitizer_tool_names[t], strlen(sanitizer_tool_names[t]) + 1);
    XXH3_128bits_update(st, src, strlen(src));
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

/* A verdict this verifier already reached for the same source, applied to rep: 1 found. */
static int sanitized_before(ch_verifier *v, const char *key, ch_verify_report *rep)
{
    int found = 0, failed = 0;
    char *message = NULL, *tool_output = NULL;
    pthread_mutex_lock(&v->mu);
    for (size_t i = 0; i < v->n_san && !found; i++)
        if (strcmp(v->san[i].hash, key) == 0) {
            found = 1;
            failed = v->san[i].failed;
            message = v->san[i].message ? ch_xstrdup(v->san[i].message) : NULL;
            tool_output = v->san[i].tool_output ? ch_xstrdup(v->san[i].tool_output) : NULL;
        }
    pthread_mutex_unlock(&v->mu);
    if (!found)
        return 0;
    cJSON *st = stage_obj(rep, CH_STAGE_SANITIZE);
    cJSON_AddStringToObject(st, "note", "the verdict of an identical source, checked before");
    if (tool_output)
        cJSON_AddStringToObject(st, "tool_output", tool_output);
    if (failed)
        stage_fail(rep, CH_STAGE_SANITIZE, message ? message : ch_xstrdup("failed before"));
    else
        free(message);
    free(tool_output);
    return 1;
}

static void sanitized_record(ch_verifier *v, const char *key, const ch_verify_report *rep)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(rep->details, "sanitizer");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(st, "message");
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(st, "tool_output");
    pthread_mutex_lock(&v->mu);
    if (v->n_san == v->cap_san) {
        v->cap_san = v->cap_san ? 2 * v->cap_san : 8;
        v->san = ch_xrealloc(v->san, v->cap_san * sizeof *v->san);
    }
    sanitized *e = &v->san[v->n_san++];
    memset(e, 0, sizeof *e);
    snprintf(e->hash, sizeof e->hash, "%s", key);
    e->failed = rep->status[CH_STAGE_SANITIZE] == CH_ST_FAIL;
    e->message = e->failed && cJSON_IsString(msg) ? ch_xstrdup(msg->valuestring) : NULL;
    e->tool_output = cJSON_IsString(out) ? ch_xstrdup(out->valuestring) : NULL;
    pthread_mutex_unlock(&v->mu);
}

/* Where a passed sanitizer run of a source is remembered across builds (cache directory), or
 * NULL without one. Caller frees. */
static char *sanitized_file(const ch_verifier *v, const char *key)
{
    if (!v->s.cache_dir || !*v->s.cache_dir)
        return NULL;
    return ch_xasprintf("%s/verify/sanitized/%s", v->s.cache_dir, key);
}

/* Stage 4, once per distinct candidate source: the sanitizer runs 10-100x slower than the
 * program, and an identical source (a pending candidate verified again, an agent repeating
 * itself) gets the same verdict. Passes are also remembered in the cache directory. */
static int stage_sanitize(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                          const char *src, ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, CH_STAGE_SANITIZE);
    if (!v->sanitizer) {
        rep->status[CH_STAGE_SANITIZE] = CH_ST_SKIP;
        cJSON_AddStringToObject(st, "note", "compute-sanitizer not found: stage skipped");
        return 0;
    }
    /* a small size that still spans several blocks (ch_verify_plan) */
    int k = v->plan.sanitize;
    const ch_ck_size *sz = k >= 0 ? &c->correctness[k] : k == -1 ? &c->smoke[c->n_smoke - 1] : NULL;
    if (!sz) {
        rep->status[CH_STAGE_SANITIZE] = CH_ST_SKIP;
        cJSON_AddStringToObject(st, "note", "no size to run the sanitizer at");
        return 0;
    }
    char key[33];
    sanitizer_key(v, src, key);
    if (sanitized_before(v, key, rep))
        return rep->status[CH_STAGE_SANITIZE] == CH_ST_FAIL;
    char *file = sanitized_file(v, key);
    if (file && ch_file_exists(file)) {
        cJSON_AddStringToObject(st, "note", "passed before for an identical source (cache)");
        free(file);
        return 0;
    }
    /* racecheck and synccheck only where the kernel has shared memory or synchronisation,
     * initcheck only where the candidate allocates device memory itself */
    const cJSON *compile =
        cJSON_GetObjectItemCaseSensitive(rep->details, ch_stage_name(CH_STAGE_COMPILE));
    unsigned mask = ch_sanitizer_tools(src, cJSON_GetObjectItemCaseSensitive(compile, "resources"));
    int rc = run_sanitizer(v, work, prog, seed, sz, mask, rep, err);
    if (rc >= 0)
        sanitized_record(v, key, rep);
    if (rc == 0 && file) {
        ch_error e2;
        char *dir = ch_path_dir(file);
        if (ch_mkdir_p(dir, &e2) == 0)
            ch_write_file_atomic(file, key, strlen(key), 0, &e2);
        free(dir);
    }
    free(file);
    return rc;
}

/* The first "ch-time: NAME=<ms>" value of a program's output, or -1. */
static double time_value(const ch_proc_result *pr, const char *name)
{
    char *key = ch_xasprintf("%s=", name);
    const char *t = pr->exit_code == 0 && pr->out.data ? strstr(pr->out.data, key) : NULL;
    double ms = t ? atof(t + strlen(key)) : -1;
    free(key);
    return ms;
}

/* The host path (the oracle) on the set in set_dir, run in case_dir, or -1. */
static double oracle_ms(ch_verifier *v, const char *case_dir, const char *set_dir)
{
    ch_sandbox_opts so;
    sandbox_opts_for(v, &so, case_dir);
    so.cpu_only = 1;
    so.wall_seconds = 600;
    so.cpu_seconds = 600;
    char *argv[] = {v->ref_exe, (char *)set_dir, "time", NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    ch_error err;
    double ms = sandbox_run(v, &so, argv, &pr, &err) == 0 ? time_value(&pr, "host_ms") : -1;
    ch_proc_result_free(&pr);
    return ms;
}

/* The host path's time at the tune size: the oracle called on the tune set in set_dir (run in
 * case_dir). Measured once per verifier: it does not depend on the candidate. -1 when it
 * cannot be measured, which only costs the launcher its dispatch by size. */
static double host_time(ch_verifier *v, const char *case_dir, const char *set_dir)
{
    if (v->host_timed)
        return v->host_ms;
    v->host_timed = 1;
    v->host_ms = oracle_ms(v, case_dir, set_dir);
    return v->host_ms;
}

/* The inputs of set sz (seed) written into set_dir; when bytes is not NULL, the bytes a call
 * at sz moves (ch_verify_tune_bytes). */
static int write_set(ch_verifier *v, const char *set_dir, const ch_ck_size *sz, uint64_t seed,
                     ch_verify_bytes *bytes, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    ch_dataset ds;
    if (ch_reference_inputs(c, v->ref_exe, sz, seed, &ds, err) != 0)
        return -1;
    if (bytes)
        ch_verify_tune_bytes(c, ds.count, bytes);
    int rc = ch_mkdir_p(set_dir, err) || ch_dataset_write(c, &ds, set_dir, err) ? -1 : 0;
    ch_dataset_free(&ds);
    return rc;
}

/* The whole call at size set sz (what a call of that size costs: launches, copies,
 * synchronisation) into *call_ms and, when host_ms is not NULL, the host path's time there;
 * the device's set-up in that fresh process into *setup_ms; -1 for what cannot be measured. tag
 * names the work directory; its inputs are those perf_prepare wrote there, else made now.
 * known_host_ms (> 0: the host path's time there, measured before) bounds the timing as the
 * tune size's does (ch_verify_hopeless_bound): a call that many times slower than the host path
 * is never dispatched at that size, so one sample says enough; *hopeless says it stopped so. */
static void point_time(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                       const ch_ck_size *sz, const char *tag, ch_verify_report *rep,
                       double known_host_ms, double *call_ms, double *host_ms, double *setup_ms,
                       int *hopeless)
{
    *call_ms = *setup_ms = -1;
    *hopeless = 0;
    if (host_ms)
        *host_ms = -1;
    ch_error err;
    char *case_dir = ch_path_join(work, tag);
    char *sd = ch_path_join(case_dir, "0");
    if (ch_is_dir(sd) || write_set(v, sd, sz, mix(seed, 6, 0, 0), NULL, &err) == 0) {
        ch_sandbox_opts so;
        sandbox_opts_for(v, &so, case_dir);
        so.runner = v->s.runner;
        so.wall_seconds = v->s.wall_seconds > 0 ? v->s.wall_seconds : 20;
        char bb[32];
        snprintf(bb, sizeof bb, "%.9g", ch_verify_hopeless_bound(known_host_ms, -1, NULL));
        char *argv[] = {(char *)prog, "time", case_dir, "1", "3", "15", "5", bb, NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        if (gpu_timed_run(v, &so, argv, &pr, rep, NULL, &err) == 0) {
            *call_ms = time_value(&pr, "wall_ms");
            *setup_ms = time_value(&pr, "setup_ms");
            *hopeless = *call_ms >= 0 && strstr(pr.out.data, "\nch-hopeless: ") != NULL;
        }
        ch_proc_result_free(&pr);
        if (host_ms)
            *host_ms = oracle_ms(v, case_dir, sd);
    }
    if (!v->s.keep)
        ch_remove_tree(case_dir, &err);
    free(sd);
    free(case_dir);
}

/* The elements of every buffer of c at sz (the size a set stands for), or -1. */
static double set_elements(const ch_checklist *c, const ch_ck_size *sz)
{
    double total = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        long long n = 0;
        ch_error err;
        if (p->role == CH_ROLE_SCALAR)
            continue;
        if (!p->extent || ch_checklist_eval(p->extent, sz, &n, &err) != 0)
            return -1;
        total += (double)n;
    }
    return total;
}

/* The correctness or smoke set between lo and hi elements (exclusive) nearest their geometric
 * mean: the dispatch curve's middle point; NULL when none lies between. */
static const ch_ck_size *middle_set(const ch_checklist *c, double lo, double hi)
{
    const ch_ck_size *best = NULL;
    double want = log(sqrt(lo > 1 ? lo : 1) * sqrt(hi > 1 ? hi : 1)), gap = 0;
    for (size_t k = 0; k < c->n_smoke + c->n_correctness; k++) {
        const ch_ck_size *sz = k < c->n_smoke ? &c->smoke[k] : &c->correctness[k - c->n_smoke];
        double n = set_elements(c, sz);
        if (!(n > lo && n < hi))
            continue;
        double d = fabs(log(n) - want);
        if (!best || d < gap) {
            best = sz;
            gap = d;
        }
    }
    return best;
}

/* The dispatch curve's middle set, or NULL. */
static const ch_ck_size *curve_middle(const ch_checklist *c)
{
    if (c->n_smoke == 0)
        return NULL;
    double lo = set_elements(c, &c->smoke[0]), hi = set_elements(c, &c->tune);
    return lo >= 0 && hi > lo ? middle_set(c, lo, hi) : NULL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of the values of v that were measured (>= 0; the mean of the middle two for an
 * even count), or -1 when none was. Sorts v. */
static double median_known(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= 0)
            v[m++] = v[i];
    if (m == 0)
        return -1;
    qsort(v, m, sizeof *v, by_value);
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

/* The dispatch curve into rep (host path and whole call at the smallest smoke set, a middle set
 * and tune; rep->host_ms and launcher_ms hold tune's); rep->small_ms is the smallest's call. */
static void curve_time(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                       ch_verify_report *rep, cJSON *st)
{
    const ch_checklist *c = v->s.checklist;
    rep->n_curve = 0;
    if (c->n_smoke == 0 || rep->host_ms < 0 || rep->launcher_ms < 0)
        return;
    double small_host = -1, mid_host = -1, mid_call = -1, setup[2] = {-1, -1};
    /* the host path's times do not depend on the candidate: measured for the first one */
    pthread_mutex_lock(&v->mu);
    int host_known = v->curve_host_timed;
    if (host_known) {
        small_host = v->small_host_ms;
        mid_host = v->mid_host_ms;
    }
    pthread_mutex_unlock(&v->mu);
    int stopped[2] = {0, 0}; /* by the bound (point_time) */
    point_time(v, work, prog, seed, &c->smoke[0], "small", rep, small_host, &rep->small_ms,
               host_known ? NULL : &small_host, &setup[0], &stopped[0]);
    const ch_ck_size *mid = curve_middle(c);
    if (mid)
        point_time(v, work, prog, seed, mid, "middle", rep, mid_host, &mid_call,
                   host_known ? NULL : &mid_host, &setup[1], &stopped[1]);
    if (!host_known) {
        pthread_mutex_lock(&v->mu);
        v->curve_host_timed = 1;
        v->small_host_ms = small_host;
        v->mid_host_ms = mid_host;
        pthread_mutex_unlock(&v->mu);
    }
    /* the set-up varies from process to process (0.15-0.4 s on the H200, more while other
     * builds load the machine): the median of the fresh processes measured (the tune run's and
     * these), so that one busy moment does not send a single-call program to the host for good */
    double setups[3] = {rep->setup_ms, setup[0], setup[1]};
    rep->setup_ms = median_known(setups, 3);
    const ch_ck_size *sets[3] = {&c->smoke[0], mid, &c->tune};
    double host[3] = {small_host, mid_host, rep->host_ms};
    double call[3] = {rep->small_ms, mid_call, rep->launcher_ms};
    cJSON *curve = cJSON_AddArrayToObject(st, "dispatch_curve");
    for (int k = 0; k < 3; k++) {
        if (!sets[k] || host[k] < 0 || call[k] < 0)
            continue;
        rep->curve_set[rep->n_curve] = sets[k];
        rep->curve_host_ms[rep->n_curve] = host[k];
        rep->curve_call_ms[rep->n_curve] = call[k];
        rep->n_curve++;
        cJSON *pt = cJSON_CreateObject();
        cJSON_AddNumberToObject(pt, "elements", set_elements(c, sets[k]));
        cJSON_AddNumberToObject(pt, "host_ms", host[k]);
        cJSON_AddNumberToObject(pt, "call_ms", call[k]);
        if (k < 2 && stopped[k])
            cJSON_AddStringToObject(pt, "stopped", "hopeless");
        cJSON_AddItemToArray(curve, pt);
    }
}

/* The value of " KEY=" on the output line that starts with prefix ("ch-kernel:"), or -1; *word
 * (optional, size cap) receives it as text. */
static double line_value(const char *out, const char *prefix, const char *key, char *word,
                         size_t cap)
{
    const char *l = out ? strstr(out, prefix) : NULL;
    if (word && cap)
        *word = '\0';
    if (!l || (l != out && l[-1] != '\n'))
        return -1;
    size_t len = strcspn(l, "\n");
    char *pat = ch_xasprintf(" %s=", key);
    const char *k = memmem(l, len, pat, strlen(pat));
    double v = -1;
    if (k) {
        k += strlen(pat);
        v = atof(k);
        if (word && cap) {
            size_t n = strcspn(k, " \n");
            snprintf(word, cap, "%.*s", (int)(n < cap ? n : cap - 1), k);
        }
    }
    free(pat);
    return v;
}

/* The calibration (copy bandwidths, L2, compute peak), measured once per verifier; it runs
 * under the exclusive GPU lock like every timing (taken here: the performance stage as a whole
 * holds nothing, its timing runs take the lock when ready, gpu_timed_run). */
static void perf_calibration(ch_verifier *v, const char *work, cJSON *st)
{
    pthread_mutex_lock(&v->mu);
    if (!v->have_calib) {
        char *line = NULL;
        ch_error err;
        /* another build may have cached it meanwhile; else the program compiled beside the
         * first builds (calib_start), or, when that failed, compiled now */
        calib_join_locked(v);
        int rc = ch_calib_cached(v->arch, v->s.runner, v->s.cache_dir, &v->calib, &line);
        if (rc != 0) {
            /* measured with the GPU alone; another build may have cached it while we waited */
            ch_gpu_lock lk;
            ch_error lerr;
            if (ch_gpu_lock_acquire(v->s.gpu_lock, 1, &lk, &lerr) != 0) {
                /* the process-wide part is held: measured anyway, perhaps less exactly */
            }
            free(line);
            line = NULL;
            rc = ch_calib_cached(v->arch, v->s.runner, v->s.cache_dir, &v->calib, &line);
            if (rc != 0 && v->calib_exe)
                rc = ch_calib_run(v->calib_exe, v->arch, v->s.runner, v->s.cache_dir, &v->calib,
                                  &line, &err);
            else if (rc != 0)
                rc = ch_calibrate(v->nvcc, v->arch, v->s.runner, v->s.cache_dir, work, &v->calib,
                                  &line, &err);
            ch_gpu_lock_release(&lk);
        }
        if (rc != 0)
            cJSON_AddStringToObject(st, "calibration_error", err.msg);
        else
            v->have_calib = 1;
        free(line);
    }
    if (v->have_calib) {
        cJSON *cb = cJSON_AddObjectToObject(st, "calibration");
        cJSON_AddStringToObject(cb, "device", v->calib.name);
        cJSON_AddNumberToObject(cb, "l2_bytes", (double)v->calib.l2_bytes);
        cJSON_AddNumberToObject(cb, "dram_copy_gbs", v->calib.d2d_gbs);
        cJSON_AddNumberToObject(cb, "pinned_h2d_gbs", v->calib.h2d_gbs);
        cJSON_AddNumberToObject(cb, "pinned_d2h_gbs", v->calib.d2h_gbs);
        if (v->calib.fp32_gflops > 0)
            cJSON_AddNumberToObject(cb, "fp32_peak_gflops", v->calib.fp32_gflops);
    }
    pthread_mutex_unlock(&v->mu);
}

/* Floors, fractions and the "faster than physically possible" checks from the measured times
 * (rep) and the calibration. Returns 1 when a check failed (stage_fail done). */
static int perf_floors(ch_verifier *v, const ch_verify_bytes *b, cJSON *st, ch_verify_report *rep)
{
    const ch_checklist *c = v->s.checklist;
    if (!v->have_calib)
        return 0;
    const ch_calib *cb = &v->calib;
    double dram = b->kernel / (cb->d2d_gbs * 1e6);
    rep->dram_floor_ms = dram;
    if (!c->device && cb->h2d_gbs > 0 && cb->d2h_gbs > 0) {
        rep->pcie_floor_ms = b->in / (cb->h2d_gbs * 1e6) + b->out / (cb->d2h_gbs * 1e6);
        rep->call_fraction = rep->launcher_ms > 0 ? rep->pcie_floor_ms / rep->launcher_ms : -1;
    }
    rep->peak_gflops = cb->fp32_gflops > 0 ? cb->fp32_gflops : -1;
    double measured;
    if (rep->kernel_resident) {
        /* what evolution tunes: the kernels against DRAM; the copies are reported apart */
        rep->floor_ms = dram;
        measured = rep->kernel_ms;
    } else {
        /* no device launcher: the whole call is all there is (copies included) */
        rep->floor_ms = rep->pcie_floor_ms > dram ? rep->pcie_floor_ms : dram;
        measured = c->device ? rep->kernel_ms : rep->launcher_ms;
    }
    rep->fraction = measured > 0 ? rep->floor_ms / measured : -1;
    cJSON_AddNumberToObject(st, "dram_floor_ms", dram);
    if (rep->pcie_floor_ms >= 0)
        cJSON_AddNumberToObject(st, "pcie_floor_ms", rep->pcie_floor_ms);
    cJSON_AddNumberToObject(st, "floor_ms", rep->floor_ms);
    cJSON_AddNumberToObject(st, "fraction_of_floor", rep->fraction);
    cJSON_AddStringToObject(st, "floor_of",
                            rep->kernel_resident ? "kernel_ms against the DRAM floor"
                            : c->device          ? "kernel_ms (the launcher) against the DRAM floor"
                                        : "launcher_ms against the larger of PCIe and DRAM floors");
    cJSON_AddStringToObject(st, "compute_floor",
                            "unknown: the checklist gives no flop count (only the memory floor "
                            "applies)");
    /* Skipped work: a whole host-pointer call that moves fewer bytes than its buffers hold
     * (as before), and kernels faster than writing their out buffers, which correctness proved
     * are written whole. Only where the data is larger than the L2 (else caches flatter). */
    int big = b->in + b->out > 2 * (cb->l2_bytes > 0 ? (double)cb->l2_bytes : 60e6);
    cJSON_AddBoolToObject(st, "floor_enforced", big);
    if (!big)
        return 0;
    double call_floor = c->device ? -1 : rep->kernel_resident ? rep->pcie_floor_ms : rep->floor_ms;
    if (call_floor > 0 && rep->launcher_ms < 0.8 * call_floor)
        return stage_fail(rep, CH_STAGE_PERF,
                          ch_xasprintf("faster than physically possible: skipped work (%.4f ms "
                                       "for %.0f MB that must move, floor %.4f ms)",
                                       rep->launcher_ms, (b->in + b->out) / 1e6, call_floor));
    /* a device entry's launcher is its kernels: the whole DRAM floor, as always; a device
     * launcher only the bytes it surely writes (its agreement with the launcher after the
     * timing is checked by the scaffold) */
    double write_floor = b->out_only / (cb->d2d_gbs * 1e6);
    double kfloor = c->device ? dram : rep->kernel_resident ? write_floor : -1;
    if (kfloor > 0 && rep->kernel_ms < 0.8 * kfloor)
        return stage_fail(rep, CH_STAGE_PERF,
                          ch_xasprintf("kernels faster than physically possible: skipped work "
                                       "(%.4f ms, floor %.4f ms)",
                                       rep->kernel_ms, kfloor));
    return 0;
}

/* The text after "runtime: " on the last such line of err (CH_CC_TRACE's line for a call the
 * trusted runtime moved), or NULL. */
static char *last_runtime_line(const char *err)
{
    static const char mark[] = ": runtime: ";
    const char *last = NULL;
    for (const char *p = err ? strstr(err, mark) : NULL; p; p = strstr(p + 1, mark))
        last = p;
    if (!last)
        return NULL;
    last += sizeof mark - 1;
    size_t n = strcspn(last, "\n");
    return ch_xstrndup(last, n);
}

/* Reads the scaffold's timing lines into rep; NULL or what went wrong (caller frees). The
 * kernel line counts only when correctness judged the device launcher's outputs (dev). */
static char *perf_parse(const ch_checklist *c, const ch_proc_result *pr, int dev, cJSON *st,
                        ch_verify_report *rep)
{
    const char *out = pr->out.data;
    double ev = line_value(out, "ch-time:", "event_ms", NULL, 0);
    double wall = line_value(out, "ch-time:", "wall_ms", NULL, 0);
    if (ev < 0 || wall < 0)
        return ch_xstrdup("no timing line from the scaffold");
    /* device memory that the calls keep taking (the scaffold's leak check): a program calling
     * the entry in a loop would run the device out of memory */
    double lost = line_value(out, "ch-leak:", "lost_bytes", NULL, 0);
    if (lost > 0)
        return ch_xasprintf("the calls leak device memory: %.1f MiB lost over %.0f calls after "
                            "the warmup (every buffer a call allocates must be freed or kept "
                            "for the next call)",
                            lost / 1048576.0, line_value(out, "ch-leak:", "calls", NULL, 0));
    char stop[16];
    rep->launcher_ms = wall;
    cJSON *call = cJSON_AddObjectToObject(st, "whole_call");
    cJSON_AddNumberToObject(call, "wall_ms", wall);
    cJSON_AddNumberToObject(call, "event_ms", ev);
    cJSON_AddNumberToObject(call, "repeats", line_value(out, "ch-time:", "repeats", NULL, 0));
    line_value(out, "ch-time:", "stop", stop, sizeof stop);
    cJSON_AddStringToObject(call, "stopped", stop);
    if (strcmp(stop, "hopeless") == 0 && line_value(out, "ch-time:", "repeats", NULL, 0) == 0)
        cJSON_AddStringToObject(call, "timed",
                                "the process's first call only: the kernels alone were over the "
                                "bound");
    char path[16];
    line_value(out, "ch-time:", "call_path", path, sizeof path);
    rep->call_runtime = strcmp(path, "runtime") == 0;
    /* the first call in this fresh process (issue 14), before the warm-up */
    double setup = line_value(out, "ch-cold:", "setup_ms", NULL, 0);
    double first = line_value(out, "ch-cold:", "first_call_ms", NULL, 0);
    if (setup >= 0 && first >= 0) {
        rep->setup_ms = setup;
        rep->first_use_ms = first > wall ? first - wall : 0;
        cJSON *cold = cJSON_AddObjectToObject(st, "first_call");
        cJSON_AddNumberToObject(cold, "device_setup_ms", setup);
        cJSON_AddNumberToObject(cold, "first_call_ms", first);
        cJSON_AddNumberToObject(cold, "first_use_ms", rep->first_use_ms);
    }
    /* "runtime": through ch_rt_call_v1 as the dispatcher calls it; "launcher": NAME_launcher */
    cJSON_AddStringToObject(call, "call_path", rep->call_runtime ? "runtime" : "launcher");
    char *moved = last_runtime_line(pr->err.data);
    if (moved) {
        cJSON_AddStringToObject(call, "runtime_last_call", moved);
        free(moved);
    }
    double k = c->device || !dev ? -1 : line_value(out, "ch-kernel:", "kernel_ms", NULL, 0);
    if (c->device || k >= 0) {
        rep->kernel_ms = c->device ? ev : k;
        rep->kernel_resident = 1;
        cJSON *kern = cJSON_AddObjectToObject(st, "kernel");
        cJSON_AddNumberToObject(kern, "event_ms", rep->kernel_ms);
        cJSON_AddStringToObject(kern, "through",
                                c->device ? "the launcher (device pointers)"
                                          : "NAME_device_launcher on device-resident data");
        if (!c->device) {
            cJSON_AddNumberToObject(kern, "repeats",
                                    line_value(out, "ch-kernel:", "repeats", NULL, 0));
            line_value(out, "ch-kernel:", "stop", stop, sizeof stop);
            cJSON_AddStringToObject(kern, "stopped", stop);
        }
    } else {
        rep->kernel_ms = ev;
        cJSON_AddStringToObject(st, "kernel_note",
                                "kernel_ms includes the host-device copies: the candidate defines "
                                "no NAME_device_launcher, so only the whole call could be timed");
    }
    cJSON_AddNumberToObject(st, "event_ms", ev);
    cJSON_AddNumberToObject(st, "wall_ms", wall);
    cJSON_AddNumberToObject(st, "kernel_ms", rep->kernel_ms);
    cJSON_AddBoolToObject(st, "kernel_resident", rep->kernel_resident);
    return NULL;
}

/* The host path's times at the tune, smallest and middle sets in work (the sets perf_prepare
 * wrote), once per verifier: they do not depend on the candidate and need no GPU, so they are
 * measured before the GPU is taken alone (a reference at the tune size can take seconds, which
 * other entries' timing would have waited for). A curve set that could not be written leaves
 * its time to curve_time. */
static void host_times_prepare(ch_verifier *v, const char *work, int has_mid)
{
    pthread_mutex_lock(&v->mu);
    char *tune = ch_path_join(work, "tune"), *tune_set = ch_path_join(work, "tune/0");
    char *small = ch_path_join(work, "small"), *small_set = ch_path_join(work, "small/0");
    char *mid = ch_path_join(work, "middle"), *mid_set = ch_path_join(work, "middle/0");
    host_time(v, tune, tune_set);
    if (!v->curve_host_timed && ch_is_dir(small_set) && (!has_mid || ch_is_dir(mid_set))) {
        v->small_host_ms = oracle_ms(v, small, small_set);
        v->mid_host_ms = has_mid ? oracle_ms(v, mid, mid_set) : -1;
        v->curve_host_timed = 1;
    }
    pthread_mutex_unlock(&v->mu);
    free(tune);
    free(tune_set);
    free(small);
    free(small_set);
    free(mid);
    free(mid_set);
}

/* The timed runs' inputs (the tune set, and the dispatch curve's smallest and middle sets),
 * synthesised and written before the GPU is taken alone: a tune set is often hundreds of MiB,
 * and making it holds no GPU, so another entry's timing runs meanwhile instead of waiting. The
 * tune set's bytes go into *bytes. */
static int perf_prepare(ch_verifier *v, const char *work, uint64_t seed, ch_verify_bytes *bytes,
                        ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    char *sd = ch_path_join(work, "tune/0");
    int rc = write_set(v, sd, &c->tune, mix(seed, 5, 0, 0), bytes, err);
    free(sd);
    const ch_ck_size *mid = curve_middle(c);
    const ch_ck_size *curve[2] = {c->n_smoke ? &c->smoke[0] : NULL, mid};
    const char *tags[2] = {"small/0", "middle/0"};
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!curve[k])
            continue;
        /* a set that cannot be made here is tried again (and left out) by point_time */
        ch_error ignored;
        char *dir = ch_path_join(work, tags[k]);
        write_set(v, dir, curve[k], mix(seed, 6, 0, 0), NULL, &ignored);
        free(dir);
    }
    if (rc == 0)
        host_times_prepare(v, work, mid != NULL);
    calib_join(v);
    return rc;
}

/* Whether rep could be the evolution's winner by what it has timed so far, recording its times.
 * The evolution ranks two candidates by their kernels' times when both were timed on resident
 * data, else by their whole calls: so a winner had the least kernel time of the resident ones
 * timed before it, or the least whole call of all of them. The dispatch curve (two more
 * processes with the GPU alone) is measured only for such a candidate, and only the winner's
 * curve is read. */
static int fastest_so_far(ch_verifier *v, const ch_verify_report *rep)
{
    double kernel = rep->kernel_resident ? rep->kernel_ms : -1, call = rep->launcher_ms;
    pthread_mutex_lock(&v->best_mu);
    int fastest = (kernel >= 0 && (v->best_kernel_ms < 0 || kernel <= v->best_kernel_ms)) ||
                  call < 0 || v->best_call_ms < 0 || call <= v->best_call_ms;
    if (kernel >= 0 && (v->best_kernel_ms < 0 || kernel < v->best_kernel_ms))
        v->best_kernel_ms = kernel;
    if (call >= 0 && (v->best_call_ms < 0 || call < v->best_call_ms))
        v->best_call_ms = call;
    pthread_mutex_unlock(&v->best_mu);
    return fastest;
}

/* The bound a timing ran under (pb, as the gate last set it) into st; when the scaffold says it
 * stopped the timing ("ch-hopeless:" line), after what sample and against what. The candidate
 * keeps the times it was given; it cannot win. */
static void perf_hopeless(const char *out, cJSON *st, const perf_bound *pb)
{
    if (pb->bound <= 0)
        return;
    cJSON_AddNumberToObject(st, "hopeless_bound_ms", pb->bound);
    cJSON_AddStringToObject(st, "hopeless_bound_of",
                            pb->against_host ? "host path" : "earlier candidate");
    double sample = line_value(out, "ch-hopeless:", "sample_ms", NULL, 0);
    if (sample < 0)
        return;
    char loop[16];
    line_value(out, "ch-hopeless:", "loop", loop, sizeof loop);
    int kernels = strcmp(loop, "kernel") == 0;
    cJSON_AddStringToObject(st, "stop", "hopeless");
    cJSON_AddStringToObject(st, "stop_loop", kernels ? "kernel" : "whole_call");
    char *note = ch_xasprintf("stopped after 1 sample: %.3f ms%s against %s %.3f ms (over %gx: %s)",
                              sample, kernels ? " (the kernels alone)" : "",
                              pb->against_host ? "the host path's" : "an earlier candidate's",
                              pb->base_ms, CH_VERIFY_HOPELESS_FACTOR,
                              pb->against_host ? "never dispatched" : "it cannot win");
    cJSON_AddStringToObject(st, "stop_note", note);
    free(note);
}

/* The performance stage on the inputs perf_prepare wrote (tune_bytes: what a call at the tune
 * size moves). */
static int stage_perf(ch_verifier *v, const char *work, const char *prog, int dev,
                      const ch_verify_bytes *tune_bytes, ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, CH_STAGE_PERF);
    perf_calibration(v, work, st);
    ch_verify_bytes b = *tune_bytes;
    char *case_dir = ch_path_join(work, "tune");
    char *sd = ch_path_join(case_dir, "0");
    assert(ch_is_dir(sd)); /* perf_prepare wrote it */
    int rc = 0;
    double l2 = v->have_calib && v->calib.l2_bytes > 0 ? (double)v->calib.l2_bytes : 60e6;
    int nsets = b.set > 0 ? (int)ceil(3 * l2 / b.set) : 2;
    if (nsets < 2)
        nsets = 2;
    if (nsets > 8)
        nsets = 8;
    while (nsets > 1 && nsets * b.set > 16e9)
        nsets--;
    int warmup, min_r, max_r;
    ch_verify_perf_counts(b.set, v->have_calib ? v->calib.d2d_gbs : -1, &warmup, &min_r, &max_r);
    int failed = 0;
    if (rc == 0) {
        ch_sandbox_opts so;
        sandbox_opts_for(v, &so, case_dir);
        so.runner = v->s.runner;
        so.wall_seconds = 6 * (v->s.wall_seconds > 0 ? v->s.wall_seconds : 20);
        /* the runtime says how it moved each call's data (staged, plain or direct copies and
         * their GB/s): the report keeps the last call's line, to see why a whole call is slow */
        static char *const runtime_trace[] = {"CH_CC_TRACE=1", NULL};
        if (!c->device)
            so.extra_env = runtime_trace;
        /* a first sample over the bound ends the timing: the GPU is held alone meanwhile; the
         * host path's time was measured before (perf_prepare) */
        perf_bound pb = {.host_ms = -1};
        pthread_mutex_lock(&v->mu);
        if (v->host_timed)
            pb.host_ms = v->host_ms;
        pthread_mutex_unlock(&v->mu);
        perf_bound_update(v, &pb);
        char nb[16], wb[16], maxb[16], minb[16], bb[32];
        snprintf(nb, sizeof nb, "%d", nsets);
        snprintf(wb, sizeof wb, "%d", warmup);
        snprintf(maxb, sizeof maxb, "%d", max_r);
        snprintf(minb, sizeof minb, "%d", min_r);
        snprintf(bb, sizeof bb, "%.9g", pb.bound);
        char *argv[] = {(char *)prog, "time", case_dir, nb, wb, maxb, minb, bb, NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        rc = gpu_timed_run(v, &so, argv, &pr, rep, &pb, err);
        if (rc == 0) {
            char *prob = run_problem(&pr, so.wall_seconds);
            if (!prob)
                prob = perf_parse(c, &pr, dev, st, rep);
            if (!prob)
                perf_hopeless(pr.out.data, st, &pb);
            if (prob) {
                char *sizes = ch_ck_size_text(&c->tune);
                failed = stage_fail(rep, CH_STAGE_PERF, ch_xasprintf("%s at %s", prob, sizes));
                free(sizes);
                free(prob);
            } else {
                pthread_mutex_lock(&v->mu);
                rep->host_ms = host_time(v, case_dir, sd);
                pthread_mutex_unlock(&v->mu);
                cJSON_AddNumberToObject(st, "sets", nsets);
                cJSON_AddNumberToObject(st, "bytes_moved", b.in + b.out);
                cJSON_AddNumberToObject(st, "kernel_bytes", b.kernel);
                failed = perf_floors(v, &b, st, rep);
                if (!failed && fastest_so_far(v, rep))
                    curve_time(v, work, prog, rep->seed, rep, st);
                else if (!failed)
                    cJSON_AddStringToObject(st, "dispatch_curve",
                                            "not measured: slower than a candidate timed before "
                                            "(only the winner's curve is used)");
                if (rep->host_ms >= 0)
                    cJSON_AddNumberToObject(st, "host_ms", rep->host_ms);
                if (rep->small_ms >= 0)
                    cJSON_AddNumberToObject(st, "small_size_launcher_ms", rep->small_ms);
            }
        }
        ch_proc_result_free(&pr);
    }
    if (!v->s.keep) {
        ch_error e2;
        ch_remove_tree(case_dir, &e2);
    }
    free(sd);
    free(case_dir);
    return rc ? -1 : failed;
}

/* ---- the run ------------------------------------------------------------------------------- */

struct ch_verify_build {
    char *work;          /* the candidate's private directory */
    char *prog;          /* its scaffold program */
    int last;            /* the last stage to run */
    int device_launcher; /* the program has NAME_device_launcher and its outputs were judged */
    ch_verify_bytes tune_bytes; /* what a call at the tune size moves (perf_prepare) */
};

static int run_stage(ch_verifier *v, ch_verify_build *b, const char *src, int stage,
                     ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    uint64_t seed = rep->seed;
    int rc = 0, failed = 0;
    switch (stage) {
    case CH_STAGE_STATIC: {
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        cJSON *d = NULL;
        if (ch_static_check(c, src, &msg, &d)) {
            if (d)
                cJSON_AddItemToObject(rep->details, "static", d);
            failed = stage_fail(rep, stage, ch_strbuf_detach(&msg));
        } else {
            cJSON_Delete(d);
        }
        ch_strbuf_free(&msg);
        break;
    }
    case CH_STAGE_SMOKE:
    case CH_STAGE_CORRECT: {
        int dev = 0;
        int r = stage_functional(v, b->work, b->prog, src, seed, stage, &dev, rep, err);
        if (stage == CH_STAGE_CORRECT && r == 0)
            b->device_launcher = dev;
        if (r < 0)
            rc = -1;
        else
            failed = r;
        break;
    }
    case CH_STAGE_SANITIZE:
        rc = (failed = stage_sanitize(v, b->work, b->prog, seed, src, rep, err)) < 0 ? -1 : 0;
        break;
    case CH_STAGE_PERF:
        if (c->tune.n == 0) {
            rep->status[stage] = CH_ST_SKIP;
            cJSON_AddStringToObject(stage_obj(rep, stage), "note", "no tune size");
        } else {
            rc = (failed = stage_perf(v, b->work, b->prog, b->device_launcher, &b->tune_bytes, rep,
                                      err)) < 0
                     ? -1
                     : 0;
        }
        break;
    }
    return rc ? -1 : failed;
}

/* One line a stage for CH_CC_TIMELINE=FILE (a diagnostic for builds run at once, e.g. make
 * -j16: which stages of which entries overlapped and what each waited for the GPU): wall-clock
 * start and seconds, the process, the entry, the candidate's work directory, the stage, its
 * status, the GPU lock waits so far and the seconds this candidate held the GPU alone so far
 * (what the others waited on it). One write with O_APPEND, so lines of concurrent
 * processes do not interleave. */
static void timeline_note(const ch_verifier *v, const ch_verify_build *b, int stage, double t0,
                          const ch_verify_report *rep)
{
    const char *file = getenv("CH_CC_TIMELINE");
    if (!file || !*file)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* the stage's own seconds: stage 0's AST half ends before the compile it ran beside */
    double end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9, took = rep->seconds[stage];
    double start = end - (now() - t0);
    const cJSON *gl = cJSON_GetObjectItemCaseSensitive(rep->details, "gpu_lock");
    const cJSON *sw = cJSON_GetObjectItemCaseSensitive(gl, "shared_wait_seconds");
    const cJSON *xw = cJSON_GetObjectItemCaseSensitive(gl, "exclusive_wait_seconds");
    const cJSON *xh = cJSON_GetObjectItemCaseSensitive(gl, "exclusive_held_seconds");
    const char *cand = strrchr(b->work, '/');
    char *line = ch_xasprintf(
        "%.3f %.3f %ld %s %s %d %d shared_wait=%.3f exclusive_wait=%.3f exclusive_held=%.3f\n",
        start, took, (long)getpid(), v->s.checklist->name, cand ? cand + 1 : b->work, stage,
        (int)rep->status[stage], cJSON_IsNumber(sw) ? sw->valuedouble : 0.0,
        cJSON_IsNumber(xw) ? xw->valuedouble : 0.0, cJSON_IsNumber(xh) ? xh->valuedouble : 0.0);
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, strlen(line));
        (void)w; /* a diagnostic: a short write loses a line, nothing else */
        close(fd);
    }
    free(line);
}

/* Runs stages from..to, stopping at the first failure: 1 failed, 0 passed, -1 error. */
static int run_stages(ch_verifier *v, ch_verify_build *b, const char *src, int from, int to,
                      ch_verify_report *rep, ch_error *err)
{
    int failed = 0;
    for (int stage = from; stage <= to && !failed; stage++) {
        double t0 = now();
        rep->stage = stage;
        failed = run_stage(v, b, src, stage, rep, err);
        rep->seconds[stage] = now() - t0;
        timeline_note(v, b, stage, t0, rep);
        if (failed < 0)
            return -1;
        if (!failed && rep->status[stage] == CH_ST_NOT_RUN)
            rep->status[stage] = CH_ST_PASS;
    }
    return failed;
}

/* The verdict once the last stage ran (or one failed), and the work directory's fate. */
static void finish(ch_verifier *v, ch_verify_build *b, int failed, ch_verify_report *rep)
{
    rep->passed = !failed;
    rep->correct = 1;
    for (int s = 0; s <= CH_STAGE_SANITIZE; s++)
        if (rep->status[s] != CH_ST_PASS && rep->status[s] != CH_ST_SKIP)
            rep->correct = 0;
    /* A failed timing disqualifies too: the stage fails a kernel caught skipping work (faster
     * than its bytes allow, or a device launcher that stopped computing on repeated calls),
     * which passed every correctness check by construction, and a kernel that could not be
     * timed has no figure to weigh against the host path. Either way it must not be linked. */
    if (rep->status[CH_STAGE_PERF] == CH_ST_FAIL)
        rep->correct = 0;
    if (!rep->message)
        rep->message = rep->correct ? ch_xasprintf("passed stages 0-%d", b->last)
                                    : ch_xasprintf("stopped after stage %d", b->last);
    ch_verify_build_free(v, b, rep);
}

void ch_verify_build_free(ch_verifier *v, ch_verify_build *b, ch_verify_report *rep)
{
    if (rep)
        rep->isolation_failed |= atomic_load(&v->isolation_failed);
    if (!b)
        return;
    if (v->s.keep && rep && !rep->work_dir)
        rep->work_dir = ch_xstrdup(b->work);
    else if (!v->s.keep) {
        ch_error e2;
        ch_remove_tree(b->work, &e2);
    }
    free(b->work);
    free(b->prog);
    free(b);
}

/* Stage 0's AST half and NVRTC's verdict, in a thread beside nvcc: parsing the candidate with
 * the CUDA headers takes seconds, as does NVRTC, and nvcc only compiles, in the sandbox, what
 * passed the text checks; nothing of the candidate runs before both halves passed. */
typedef struct side_checks {
    ch_verifier *v;
    const char *src, *unit;
    int refused; /* ch_static_check_subset's verdict, its message and details */
    ch_strbuf msg;
    cJSON *details;
    double seconds; /* the subset check's */
    nvrtc_result nvrtc;
    int refused_w; /* a byte here once refused: stops nvcc beside (-1: none) */
} side_checks;

static void *side_checks_run(void *arg)
{
    side_checks *sc = arg;
    double t0 = now();
    sc->refused = ch_static_check_subset(sc->v->s.checklist, sc->src, &sc->msg, &sc->details);
    sc->seconds = now() - t0;
    if (sc->refused && sc->refused_w >= 0) {
        char stop = 's';
        ssize_t w = write(sc->refused_w, &stop, 1);
        (void)w; /* an empty pipe takes a byte; were it lost, nvcc would just run to its end */
    }
    if (!sc->refused)
        nvrtc_run(sc->v, sc->unit, &sc->nvrtc);
    return NULL;
}

/* Stages 0 and 1 (the text checks, then the AST checks and NVRTC beside nvcc): 1 failed, 0
 * passed, -1 error. A candidate the AST check refuses is reported as failing stage 0, with
 * nothing of its compile kept. */
static int build_stages(ch_verifier *v, ch_verify_build *b, const char *src, ch_verify_report *rep,
                        ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    double t0 = now();
    rep->stage = CH_STAGE_STATIC;
    side_checks sc = {.v = v, .src = src, .refused_w = -1};
    ch_strbuf_init(&sc.msg);
    ch_strbuf_init(&sc.nvrtc.log);
    int failed = ch_static_check_text(c, src, &sc.msg, &sc.details);
    double text_seconds = now() - t0;
    if (failed) {
        if (sc.details)
            cJSON_AddItemToObject(rep->details, "static", sc.details);
        stage_fail(rep, CH_STAGE_STATIC, ch_strbuf_detach(&sc.msg));
        rep->seconds[CH_STAGE_STATIC] = text_seconds;
        timeline_note(v, b, CH_STAGE_STATIC, t0, rep);
        ch_strbuf_free(&sc.msg);
        ch_strbuf_free(&sc.nvrtc.log);
        return 1;
    }
    /* the scaffold calls NAME_launcher: a candidate defining NAME is compiled renamed; and
     * its locals start written, as in the unit linked into a user's program (ch/harden.h) */
    char *named = ch_candidate_launcher_form(c->name, src);
    char *unit = NULL;
    ch_strbuf hwhy;
    ch_strbuf_init(&hwhy);
    int hrc = ch_harden_locals_bounded(named, &unit, &hwhy);
    free(named);
    if (hrc != 0) {
        stage_fail(rep, CH_STAGE_STATIC, ch_strbuf_detach(&hwhy));
        rep->seconds[CH_STAGE_STATIC] = now() - t0;
        timeline_note(v, b, CH_STAGE_STATIC, t0, rep);
        ch_strbuf_free(&sc.msg);
        ch_strbuf_free(&sc.nvrtc.log);
        return 1;
    }
    ch_strbuf_free(&hwhy);
    /* the hardening is stage 0's work too: the AST check and the compile start after it */
    text_seconds = now() - t0;
    sc.unit = unit;
    /* a candidate the AST half refuses needs no compile: a compile bomb stops with the parse */
    int stop[2] = {-1, -1};
    if (pipe2(stop, O_CLOEXEC) == 0)
        sc.refused_w = stop[1];
    int cancel_fd = stop[0] > 0 ? stop[0] : 0;
    pthread_t tid;
    int threaded = pthread_create(&tid, NULL, side_checks_run, &sc) == 0;
    if (!threaded)
        side_checks_run(&sc);
    double t1 = now();
    char *cp = ch_path_join(b->work, "candidate.cu");
    int rc = ch_write_file_atomic(cp, unit, strlen(unit), 0, err);
    free(cp);
    rep->stage = CH_STAGE_COMPILE;
    if (rc == 0)
        rc = (failed = stage_compile(v, b->work, src, unit, cancel_fd, rep, err)) < 0 ? -1 : 0;
    double compile_seconds = now() - t1;
    if (threaded)
        pthread_join(tid, NULL);
    for (int i = 0; i < 2; i++)
        if (stop[i] >= 0)
            close(stop[i]);
    rep->seconds[CH_STAGE_STATIC] = text_seconds + sc.seconds;
    if (rc == 0 && sc.refused) {
        /* refused: stage 1's results go, as if it had not run */
        cJSON_DeleteItemFromObjectCaseSensitive(rep->details, ch_stage_name(CH_STAGE_COMPILE));
        rep->status[CH_STAGE_COMPILE] = CH_ST_NOT_RUN;
        if (sc.details)
            cJSON_AddItemToObject(rep->details, "static", sc.details);
        sc.details = NULL;
        failed = stage_fail(rep, CH_STAGE_STATIC, ch_strbuf_detach(&sc.msg));
        timeline_note(v, b, CH_STAGE_STATIC, t0, rep);
    } else if (rc == 0) {
        rep->status[CH_STAGE_STATIC] = CH_ST_PASS;
        timeline_note(v, b, CH_STAGE_STATIC, t0, rep);
        failed = nvrtc_record(&sc.nvrtc, rep) || failed;
        rep->seconds[CH_STAGE_COMPILE] = compile_seconds;
        if (!failed)
            rep->status[CH_STAGE_COMPILE] = CH_ST_PASS;
        timeline_note(v, b, CH_STAGE_COMPILE, t1, rep);
    }
    cJSON_Delete(sc.details);
    ch_strbuf_free(&sc.msg);
    ch_strbuf_free(&sc.nvrtc.log);
    free(unit);
    return rc ? -1 : failed;
}

int ch_verifier_build(ch_verifier *v, const char *src, ch_verify_report *rep, ch_verify_build **out,
                      ch_error *err)
{
    *out = NULL;
    ch_verify_report_init(rep);
    rep->seed = v->s.seed ? v->s.seed : ch_fresh_seed();
    ch_verify_build *b = ch_xcalloc(1, sizeof *b);
    b->last =
        v->s.last_stage < 0 || v->s.last_stage > CH_STAGE_PERF ? CH_STAGE_PERF : v->s.last_stage;
    b->work = ch_make_temp_dir("cand", err);
    if (!b->work) {
        free(b);
        return -1;
    }
    b->prog = ch_path_join(b->work, "prog");
    int failed = b->last < CH_STAGE_COMPILE
                     ? run_stages(v, b, src, CH_STAGE_STATIC, CH_STAGE_STATIC, rep, err)
                     : build_stages(v, b, src, rep, err);
    if (failed < 0) {
        ch_verify_build_free(v, b, NULL);
        return -1;
    }
    if (failed || b->last <= CH_STAGE_COMPILE)
        finish(v, b, failed, rep);
    else
        *out = b;
    return 0;
}

/* Device memory of one functional test: waits while concurrent tests of this verifier hold the
 * budget; a test always runs when none does (its need may exceed the budget alone). */
static void mem_reserve(ch_verifier *v, double bytes)
{
    double budget = v->s.device_mem_budget > 0 ? v->s.device_mem_budget : 8.0 * (1 << 30);
    pthread_mutex_lock(&v->mu);
    while (v->mem_used > 0 && v->mem_used + bytes > budget)
        pthread_cond_wait(&v->mem_cv, &v->mu);
    v->mem_used += bytes;
    pthread_mutex_unlock(&v->mu);
}

static void mem_release(ch_verifier *v, double bytes)
{
    pthread_mutex_lock(&v->mu);
    v->mem_used -= bytes;
    if (v->mem_used < 1)
        v->mem_used = 0;
    pthread_cond_broadcast(&v->mem_cv);
    pthread_mutex_unlock(&v->mu);
}

int ch_verifier_test(ch_verifier *v, ch_verify_build *b, const char *src, ch_verify_report *rep,
                     ch_error *err)
{
    /* the functional stages share the GPU (and this verifier's memory budget); timing alone */
    int last_shared = b->last < CH_STAGE_SANITIZE ? b->last : CH_STAGE_SANITIZE;
    double need = v->plan.device_bytes;
    mem_reserve(v, need);
    /* each GPU run of these stages takes its own shared hold (gpu_shared_run) */
    int failed = run_stages(v, b, src, CH_STAGE_SMOKE, last_shared, rep, err);
    mem_release(v, need);
    if (failed == 0 && b->last >= CH_STAGE_PERF) {
        /* inputs are made outside the exclusive hold (perf_prepare says why) */
        failed = perf_prepare(v, b->work, rep->seed, &b->tune_bytes, err);
        if (failed == 0)
            /* each timing run takes the GPU alone once it is ready (gpu_timed_run), the
             * calibration for its own run (perf_calibration) */
            failed = run_stages(v, b, src, CH_STAGE_PERF, b->last, rep, err);
    }
    if (failed < 0) {
        ch_verify_build_free(v, b, NULL);
        return -1;
    }
    finish(v, b, failed, rep);
    return 0;
}

int ch_verifier_run(ch_verifier *v, const char *src, ch_verify_report *rep, ch_error *err)
{
    ch_verify_build *b = NULL;
    if (ch_verifier_build(v, src, rep, &b, err) != 0)
        return -1;
    return b ? ch_verifier_test(v, b, src, rep, err) : 0;
}
