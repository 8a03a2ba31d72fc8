/* Progressive verification of one candidate (DESIGN §3): static checks, compile, smoke,
 * correctness, sanitizer, performance, stopping at the first failing stage.
 *
 * Isolation: the verifier owns a private reference directory (test inputs and reference
 * outputs, keyed by seed, stage and size so each is computed once); every candidate gets its
 * own work directory where each program run sees a fresh case directory holding only copies of
 * its inputs, under the sandbox. All comparisons happen here, in the parent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/verify.h"
#include "verify_internal.h"

struct ch_verifier {
    ch_verify_setup s;
    char *nvcc, *arch, *sanitizer;
    char *ref_root; /* private: inputs + reference outputs */
    char *ref_exe;
    int have_calib;
    ch_calib calib;
    int host_timed; /* host_ms measured (it does not depend on the candidate) */
    double host_ms;
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

int ch_verifier_open(const ch_verify_setup *s, ch_verifier **out, ch_error *err)
{
    *out = NULL;
    if (!s->checklist)
        return ch_error_set(err, "verify: no checklist");
    ch_verifier *v = ch_xcalloc(1, sizeof *v);
    v->s = *s;
    v->nvcc = ch_xstrdup(s->nvcc && *s->nvcc ? s->nvcc : "nvcc");
    v->arch = ch_xstrdup(s->arch && *s->arch ? s->arch : "sm_90");
    v->sanitizer = find_sanitizer(s->sanitizer);
    v->ref_root = ch_make_temp_dir("ref", err);
    if (!v->ref_root) {
        ch_verifier_close(v);
        return -1;
    }
    chmod(v->ref_root, 0700);
    ch_strbuf log;
    ch_strbuf_init(&log);
    int rc = ch_reference_build(s->checklist, &s->oracle, v->ref_root, &v->ref_exe, &log, err);
    ch_strbuf_free(&log);
    if (rc) {
        ch_verifier_close(v);
        return -1;
    }
    *out = v;
    return 0;
}

void ch_verifier_close(ch_verifier *v)
{
    if (!v)
        return;
    if (v->ref_root && !v->s.keep) {
        ch_error e;
        ch_remove_tree(v->ref_root, &e);
    }
    free(v->ref_root);
    free(v->ref_exe);
    free(v->nvcc);
    free(v->arch);
    free(v->sanitizer);
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

/* "n=100, m=7" */
static char *size_text(const ch_ck_size *sz)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < sz->n; i++)
        ch_strbuf_addf(&sb, "%s%s=%lld", i ? ", " : "", sz->names[i], sz->values[i]);
    return ch_strbuf_detach(&sb);
}

static double elem_at(ch_scalar t, const void *buf, size_t i)
{
    switch (t) {
    case CH_T_FLOAT:
        return ((const float *)buf)[i];
    case CH_T_DOUBLE:
        return ((const double *)buf)[i];
    case CH_T_INT:
        return ((const int *)buf)[i];
    case CH_T_UINT:
        return ((const unsigned *)buf)[i];
    case CH_T_LONG:
    case CH_T_LLONG:
        return (double)((const long long *)buf)[i];
    case CH_T_ULONG:
    case CH_T_ULLONG:
        return (double)((const unsigned long long *)buf)[i];
    case CH_T_SHORT:
        return ((const short *)buf)[i];
    case CH_T_USHORT:
        return ((const unsigned short *)buf)[i];
    case CH_T_CHAR:
        return ((const char *)buf)[i];
    case CH_T_SCHAR:
        return ((const signed char *)buf)[i];
    case CH_T_UCHAR:
    case CH_T_BOOL:
        return ((const unsigned char *)buf)[i];
    default:
        return 0;
    }
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

/* Reference outputs for (stage, size index, set) at seed: computed once in the private
 * directory. Returns that directory (caller frees) with the dataset in *ds. */
static char *reference_case(ch_verifier *v, uint64_t seed, int stage, size_t k, int set,
                            const ch_ck_size *sz, ch_dataset *ds, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    uint64_t sseed = mix(seed, (uint64_t)stage, k, (uint64_t)set);
    if (ch_data_synthesize(c, sz, sseed, ds, err) != 0)
        return NULL;
    char *dir =
        ch_xasprintf("%s/%016llx-%d-%zu-%d", v->ref_root, (unsigned long long)seed, stage, k, set);
    char *done = ch_path_join(dir, ".done");
    if (ch_file_exists(done)) {
        free(done);
        return dir;
    }
    if (ch_mkdir_p(dir, err) != 0 || ch_dataset_write(c, ds, dir, err) != 0)
        goto fail;
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = dir;
    so.wall_seconds = 600;
    so.cpu_seconds = 600;
    char *argv[] = {v->ref_exe, dir, NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    if (ch_sandbox_run(&so, argv, &pr, err) != 0) {
        ch_proc_result_free(&pr);
        goto fail;
    }
    char *prob = run_problem(&pr, 600);
    if (prob) {
        ch_error_set(err, "the reference program failed: %s %.500s", prob, pr.err.data);
        free(prob);
        ch_proc_result_free(&pr);
        goto fail;
    }
    ch_proc_result_free(&pr);
    if (ch_write_file_atomic(done, "", 0, 0, err) != 0)
        goto fail;
    free(done);
    return dir;
fail:
    free(done);
    free(dir);
    ch_dataset_free(ds);
    return NULL;
}

/* Compares one set's outputs; returns NULL when right, else a message, filling `mm` with the
 * first mismatches (strings with input context). */
static char *compare_set(const ch_checklist *c, const ch_dataset *ds, const char *ref_dir,
                         const char *got_dir, cJSON *mm, cJSON *norms, ch_error *err)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        char *gp = ch_xasprintf("%s/%s.out.bin", got_dir, p->name);
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
                                       p->name, k, elem_at(p->elem, ds->data[i], k),
                                       elem_at(p->elem, got, k));
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
                                       elem_at(q->elem, ds->data[j], 0));
                    else if (ds->count[j] == ds->count[i])
                        ch_strbuf_addf(&sb, "%s%s[%zu]=%g", ctx++ ? ", " : " (", q->name, idx,
                                       elem_at(q->elem, ds->data[j], idx));
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

/* One case: nsets input sets of size sz, all through the same buffers in one scaffold run. */
static int run_case(ch_verifier *v, const char *work, const char *prog, uint64_t seed, int stage,
                    size_t k, const ch_ck_size *sz, int nsets, ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    char *case_dir = ch_xasprintf("%s/%s-%zu", work, ch_stage_name(stage), k);
    char *ref_dirs[4] = {0};
    ch_dataset ds[4];
    memset(ds, 0, sizeof ds);
    int rc = 0, failed = 0;
    char *sizes = size_text(sz);
    for (int s = 0; s < nsets; s++) {
        ref_dirs[s] = reference_case(v, seed, stage, k, s, sz, &ds[s], err);
        if (!ref_dirs[s]) {
            rc = -1;
            goto done;
        }
        char *sd = ch_xasprintf("%s/%d", case_dir, s);
        if (ch_mkdir_p(sd, err) != 0 || ch_dataset_write(c, &ds[s], sd, err) != 0) {
            free(sd);
            rc = -1;
            goto done;
        }
        free(sd);
    }
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = case_dir;
    so.runner = v->s.runner;
    so.wall_seconds = v->s.wall_seconds > 0 ? v->s.wall_seconds : 20;
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", nsets);
    char *argv[] = {(char *)prog, "run", case_dir, nbuf, NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    if (ch_sandbox_run(&so, argv, &pr, err) != 0) {
        ch_proc_result_free(&pr);
        rc = -1;
        goto done;
    }
    char *prob = run_problem(&pr, so.wall_seconds);
    ch_proc_result_free(&pr);
    if (prob) {
        failed = stage_fail(rep, stage, ch_xasprintf("%s at %s", prob, sizes));
        free(prob);
        goto done;
    }
    cJSON *st = stage_obj(rep, stage);
    for (int s = 0; s < nsets; s++) {
        cJSON *mm = cJSON_CreateArray(), *norms = cJSON_CreateArray();
        char *gd = ch_xasprintf("%s/%d", case_dir, s);
        char *m = compare_set(c, &ds[s], ref_dirs[s], gd, mm, norms, err);
        free(gd);
        cJSON_DeleteItemFromObjectCaseSensitive(st, "norms");
        cJSON_AddItemToObject(st, "norms", norms);
        if (m) {
            cJSON_AddItemToObject(st, "mismatches", mm);
            cJSON_AddStringToObject(st, "size", sizes);
            cJSON_AddNumberToObject(st, "call", s + 1);
            char *full =
                s > 0 ? ch_xasprintf("second call with other inputs in the same buffers is wrong "
                                     "(outputs cached or state kept across calls?): %s at %s",
                                     m, sizes)
                      : ch_xasprintf("%s at %s", m, sizes);
            free(m);
            failed = stage_fail(rep, stage, full);
            goto done;
        }
        cJSON_Delete(mm);
    }
done:
    for (int s = 0; s < nsets; s++) {
        free(ref_dirs[s]);
        ch_dataset_free(&ds[s]);
    }
    if (!v->s.keep) {
        ch_error e2;
        ch_remove_tree(case_dir, &e2);
    }
    free(case_dir);
    free(sizes);
    return rc ? -1 : failed;
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

static int run_nvcc(ch_verifier *v, const char *work, char **args, ch_strbuf *log, int *status,
                    ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, v->nvcc);
    for (char **a = args; *a; a++)
        ch_strvec_push(&argv, *a);
    for (char *const *a = v->s.nvcc_flags; a && *a; a++)
        ch_strvec_push(&argv, *a);
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.cwd = work;
    po.capture_stdout = 1;
    po.merge_stderr = 1;
    po.stdin_path = "/dev/null";
    po.wall_seconds = 300;
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    int rc = ch_proc_run(argv.items, &po, &pr, err);
    ch_strvec_free(&argv);
    if (rc == 0) {
        ch_strbuf_add(log, pr.out.data, pr.out.len);
        *status = pr.timed_out ? 124 : pr.exit_code;
    }
    ch_proc_result_free(&pr);
    return rc;
}

static int stage_compile(ch_verifier *v, const char *work, const char *src, ch_verify_report *rep,
                         ch_error *err)
{
    cJSON *st = stage_obj(rep, CH_STAGE_COMPILE);
    char *archflag = ch_xasprintf("-arch=%s", v->arch);
    ch_strbuf log;
    ch_strbuf_init(&log);
    int status = 0, failed = 0;
    /* a whole object, not a cubin: its host side is what the object check judges */
    char *a1[] = {"-c", archflag, "-Xptxas", "-v", "-o", "candidate.o", "candidate.cu", NULL};
    int rc = run_nvcc(v, work, a1, &log, &status, err);
    cJSON_AddStringToObject(st, "kernel_check", "nvcc -c -Xptxas -v");
    if (rc == 0 && status != 0) {
        char *d = relevant_lines(log.data, 20, NULL);
        cJSON_AddStringToObject(st, "diagnostics", d);
        char *first = ch_xstrndup(d, strcspn(d, "\n"));
        failed =
            stage_fail(rep, CH_STAGE_COMPILE, ch_xasprintf("kernel compile failed: %s", first));
        free(first);
        free(d);
    }
    if (rc == 0 && !failed) {
        ch_strbuf why;
        ch_strbuf_init(&why);
        char *obj = ch_path_join(work, "candidate.o");
        if (ch_object_check(obj, &why) != 0)
            failed = stage_fail(rep, CH_STAGE_COMPILE, ch_strbuf_detach(&why));
        ch_strbuf_free(&why);
        free(obj);
    }
    if (rc == 0 && !failed) {
        cJSON *res = cJSON_AddArrayToObject(st, "resources");
        parse_resources(log.data, res);
        ch_strbuf scaf;
        ch_strbuf_init(&scaf);
        char *sp = ch_path_join(work, "scaffold.cu");
        rc = ch_scaffold_generate(v->s.checklist, "candidate.cu", &scaf, err);
        if (rc == 0)
            rc = ch_write_file_atomic(sp, scaf.data, scaf.len, 0, err);
        free(sp);
        ch_strbuf_free(&scaf);
        int cublas = strstr(src, "cublas") != NULL;
        char *a2[] = {"-O2", archflag, "-o", "prog", "scaffold.cu", cublas ? "-lcublas" : NULL,
                      NULL};
        ch_strbuf_reset(&log);
        if (rc == 0)
            rc = run_nvcc(v, work, a2, &log, &status, err);
        if (rc == 0 && status != 0) {
            char *d = relevant_lines(log.data, 20, NULL);
            cJSON_AddStringToObject(st, "diagnostics", d);
            char *first = ch_xstrndup(d, strcspn(d, "\n"));
            failed = stage_fail(rep, CH_STAGE_COMPILE,
                                ch_xasprintf("scaffold compile failed: %s", first));
            free(first);
            free(d);
        }
    }
    ch_strbuf_free(&log);
    free(archflag);
    return rc ? -1 : failed;
}

static int stage_sanitize(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                          ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, CH_STAGE_SANITIZE);
    if (!v->sanitizer) {
        rep->status[CH_STAGE_SANITIZE] = CH_ST_SKIP;
        cJSON_AddStringToObject(st, "note", "compute-sanitizer not found: stage skipped");
        return 0;
    }
    /* a small size that still spans several blocks: the first correctness size */
    const ch_ck_size *sz = c->n_correctness ? &c->correctness[0]
                           : c->n_smoke     ? &c->smoke[c->n_smoke - 1]
                                            : NULL;
    if (!sz) {
        rep->status[CH_STAGE_SANITIZE] = CH_ST_SKIP;
        cJSON_AddStringToObject(st, "note", "no size to run the sanitizer at");
        return 0;
    }
    char *sizes = size_text(sz);
    cJSON_AddStringToObject(st, "size", sizes);
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck"};
    int failed = 0, rc = 0;
    for (size_t t = 0; t < 3 && !failed && rc == 0; t++) {
        char *case_dir = ch_xasprintf("%s/sanitize-%s", work, tools[t]);
        char *sd = ch_path_join(case_dir, "0");
        ch_dataset ds;
        rc = ch_data_synthesize(c, sz, mix(seed, 99, t, 0), &ds, err);
        if (rc == 0) {
            rc = ch_mkdir_p(sd, err) || ch_dataset_write(c, &ds, sd, err) ? -1 : 0;
            ch_dataset_free(&ds);
        }
        if (rc == 0) {
            ch_sandbox_opts so;
            memset(&so, 0, sizeof so);
            so.dir = case_dir;
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
                            "run",
                            case_dir,
                            "1",
                            NULL};
            ch_proc_result pr;
            ch_proc_result_init(&pr);
            rc = ch_sandbox_run(&so, argv, &pr, err);
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

/* The first "ch-time: NAME=<ms>" value of a program's output, or -1. */
static double time_value(const ch_proc_result *pr, const char *name)
{
    char *key = ch_xasprintf("%s=", name);
    const char *t = pr->exit_code == 0 && pr->out.data ? strstr(pr->out.data, key) : NULL;
    double ms = t ? atof(t + strlen(key)) : -1;
    free(key);
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
    v->host_ms = -1;
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = case_dir;
    so.wall_seconds = 600;
    so.cpu_seconds = 600;
    char *argv[] = {v->ref_exe, (char *)set_dir, "time", NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    ch_error err;
    if (ch_sandbox_run(&so, argv, &pr, &err) == 0)
        v->host_ms = time_value(&pr, "host_ms");
    ch_proc_result_free(&pr);
    return v->host_ms;
}

/* The whole launcher call at the smallest smoke size (what a tiny call costs: launches,
 * copies, synchronisation), or -1. */
static double small_time(ch_verifier *v, const char *work, const char *prog, uint64_t seed)
{
    const ch_checklist *c = v->s.checklist;
    if (c->n_smoke == 0)
        return -1;
    ch_dataset ds;
    ch_error err;
    if (ch_data_synthesize(c, &c->smoke[0], mix(seed, 6, 0, 0), &ds, &err) != 0)
        return -1;
    char *case_dir = ch_path_join(work, "small");
    char *sd = ch_path_join(case_dir, "0");
    double ms = -1;
    if (ch_mkdir_p(sd, &err) == 0 && ch_dataset_write(c, &ds, sd, &err) == 0) {
        ch_sandbox_opts so;
        memset(&so, 0, sizeof so);
        so.dir = case_dir;
        so.runner = v->s.runner;
        so.wall_seconds = v->s.wall_seconds > 0 ? v->s.wall_seconds : 20;
        char *argv[] = {(char *)prog, "time", case_dir, "1", "3", "15", NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        if (ch_sandbox_run(&so, argv, &pr, &err) == 0)
            ms = time_value(&pr, "wall_ms");
        ch_proc_result_free(&pr);
    }
    ch_dataset_free(&ds);
    if (!v->s.keep)
        ch_remove_tree(case_dir, &err);
    free(sd);
    free(case_dir);
    return ms;
}

static int stage_perf(ch_verifier *v, const char *work, const char *prog, uint64_t seed,
                      ch_verify_report *rep, ch_error *err)
{
    const ch_checklist *c = v->s.checklist;
    cJSON *st = stage_obj(rep, CH_STAGE_PERF);
    if (!v->have_calib) {
        char *line = NULL;
        if (ch_calibrate(v->nvcc, v->arch, v->s.runner, v->s.cache_dir, work, &v->calib, &line,
                         err) != 0) {
            cJSON_AddStringToObject(st, "calibration_error", err->msg);
            ch_error_clear(err);
        } else {
            v->have_calib = 1;
        }
        free(line);
    }
    if (v->have_calib) {
        cJSON *cb = cJSON_AddObjectToObject(st, "calibration");
        cJSON_AddStringToObject(cb, "device", v->calib.name);
        cJSON_AddNumberToObject(cb, "l2_bytes", (double)v->calib.l2_bytes);
        cJSON_AddNumberToObject(cb, "dram_copy_gbs", v->calib.d2d_gbs);
        cJSON_AddNumberToObject(cb, "pinned_h2d_gbs", v->calib.h2d_gbs);
        cJSON_AddNumberToObject(cb, "pinned_d2h_gbs", v->calib.d2h_gbs);
    }
    ch_dataset ds;
    if (ch_data_synthesize(c, &c->tune, mix(seed, 5, 0, 0), &ds, err) != 0)
        return -1;
    double in_b = 0, out_b = 0, set_b = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        double b = (double)ds.count[i] * (double)ch_scalar_size(p->elem);
        set_b += b;
        if (p->dir != CH_DIR_OUT)
            in_b += b;
        if (p->dir != CH_DIR_IN)
            out_b += b;
    }
    char *case_dir = ch_path_join(work, "tune");
    char *sd = ch_path_join(case_dir, "0");
    int rc = ch_mkdir_p(sd, err) || ch_dataset_write(c, &ds, sd, err) ? -1 : 0;
    ch_dataset_free(&ds);
    double l2 = v->have_calib && v->calib.l2_bytes > 0 ? (double)v->calib.l2_bytes : 60e6;
    int nsets = set_b > 0 ? (int)ceil(3 * l2 / set_b) : 2;
    if (nsets < 2)
        nsets = 2;
    if (nsets > 8)
        nsets = 8;
    while (nsets > 1 && nsets * set_b > 16e9)
        nsets--;
    int failed = 0;
    if (rc == 0) {
        ch_sandbox_opts so;
        memset(&so, 0, sizeof so);
        so.dir = case_dir;
        so.runner = v->s.runner;
        so.wall_seconds = 6 * (v->s.wall_seconds > 0 ? v->s.wall_seconds : 20);
        char nb[16];
        snprintf(nb, sizeof nb, "%d", nsets);
        char *argv[] = {(char *)prog, "time", case_dir, nb, "3", "15", NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        rc = ch_sandbox_run(&so, argv, &pr, err);
        if (rc == 0) {
            char *prob = run_problem(&pr, so.wall_seconds);
            const char *t = strstr(pr.out.data, "ch-time:");
            double ev = -1, wall = -1, mn = -1;
            if (!prob && (!t || sscanf(t, "ch-time: event_ms=%lf wall_ms=%lf min_event_ms=%lf", &ev,
                                       &wall, &mn) != 3))
                prob = ch_xstrdup("no timing line from the scaffold");
            if (prob) {
                char *sizes = size_text(&c->tune);
                failed = stage_fail(rep, CH_STAGE_PERF, ch_xasprintf("%s at %s", prob, sizes));
                free(sizes);
                free(prob);
            } else {
                rep->kernel_ms = ev;
                rep->launcher_ms = wall;
                rep->host_ms = host_time(v, case_dir, sd);
                rep->small_ms = small_time(v, work, prog, seed);
                if (rep->host_ms >= 0)
                    cJSON_AddNumberToObject(st, "host_ms", rep->host_ms);
                if (rep->small_ms >= 0)
                    cJSON_AddNumberToObject(st, "small_size_launcher_ms", rep->small_ms);
                cJSON_AddNumberToObject(st, "event_ms", ev);
                cJSON_AddNumberToObject(st, "wall_ms", wall);
                cJSON_AddNumberToObject(st, "sets", nsets);
                cJSON_AddNumberToObject(st, "bytes_moved", in_b + out_b);
                if (v->have_calib) {
                    double dram = (in_b + out_b) / (v->calib.d2d_gbs * 1e6);
                    double floor_ms = dram, measured = ev;
                    if (!c->device) {
                        double xfer =
                            in_b / (v->calib.h2d_gbs * 1e6) + out_b / (v->calib.d2h_gbs * 1e6);
                        floor_ms = xfer > dram ? xfer : dram;
                        measured = wall;
                    }
                    rep->floor_ms = floor_ms;
                    rep->fraction = measured > 0 ? floor_ms / measured : -1;
                    cJSON_AddNumberToObject(st, "floor_ms", floor_ms);
                    cJSON_AddNumberToObject(st, "fraction_of_floor", rep->fraction);
                    int big = in_b + out_b > 2 * l2;
                    cJSON_AddBoolToObject(st, "floor_enforced", big);
                    if (big && measured < 0.8 * floor_ms)
                        failed = stage_fail(
                            rep, CH_STAGE_PERF,
                            ch_xasprintf("faster than physically possible: skipped work (%.4f ms "
                                         "for %.0f MB that must move, floor %.4f ms)",
                                         measured, (in_b + out_b) / 1e6, floor_ms));
                }
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
    char *work; /* the candidate's private directory */
    char *prog; /* its scaffold program */
    int last;   /* the last stage to run */
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
    case CH_STAGE_COMPILE: {
        /* the scaffold calls NAME_launcher: a candidate defining NAME is compiled renamed */
        char *cp = ch_path_join(b->work, "candidate.cu");
        char *unit = ch_candidate_launcher_form(c->name, src);
        rc = ch_write_file_atomic(cp, unit, strlen(unit), 0, err);
        free(unit);
        free(cp);
        if (rc == 0)
            rc = (failed = stage_compile(v, b->work, src, rep, err)) < 0 ? -1 : 0;
        break;
    }
    case CH_STAGE_SMOKE:
    case CH_STAGE_CORRECT: {
        size_t n = stage == CH_STAGE_SMOKE ? c->n_smoke : c->n_correctness;
        const ch_ck_size *sizes = stage == CH_STAGE_SMOKE ? c->smoke : c->correctness;
        for (size_t k = 0; k < n && !failed && rc == 0; k++) {
            int r = run_case(v, b->work, b->prog, seed, stage, k, &sizes[k],
                             stage == CH_STAGE_SMOKE ? 1 : 2, rep, err);
            if (r < 0)
                rc = -1;
            else
                failed = r;
        }
        cJSON_AddNumberToObject(stage_obj(rep, stage), "sizes", (double)n);
        break;
    }
    case CH_STAGE_SANITIZE:
        rc = (failed = stage_sanitize(v, b->work, b->prog, seed, rep, err)) < 0 ? -1 : 0;
        break;
    case CH_STAGE_PERF:
        if (c->tune.n == 0) {
            rep->status[stage] = CH_ST_SKIP;
            cJSON_AddStringToObject(stage_obj(rep, stage), "note", "no tune size");
        } else {
            rc = (failed = stage_perf(v, b->work, b->prog, seed, rep, err)) < 0 ? -1 : 0;
        }
        break;
    }
    return rc ? -1 : failed;
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
    if (!rep->message)
        rep->message = rep->correct ? ch_xasprintf("passed stages 0-%d", b->last)
                                    : ch_xasprintf("stopped after stage %d", b->last);
    ch_verify_build_free(v, b, rep);
}

void ch_verify_build_free(ch_verifier *v, ch_verify_build *b, ch_verify_report *rep)
{
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
    int to = b->last < CH_STAGE_COMPILE ? b->last : CH_STAGE_COMPILE;
    int failed = run_stages(v, b, src, CH_STAGE_STATIC, to, rep, err);
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

int ch_verifier_test(ch_verifier *v, ch_verify_build *b, const char *src, ch_verify_report *rep,
                     ch_error *err)
{
    int failed = run_stages(v, b, src, CH_STAGE_SMOKE, b->last, rep, err);
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
