/* The session's steps behind the admin commands, without the driver: the report page
 * (ch_session_page: keys by the session's targets, reads the session's cache, what an entry
 * says about itself), --harness-propose's candidates (ch_session_propose with the builtin
 * agent), the verifier's setup (the runtime library found once by the session) and
 * --harness-verify's judgement of a candidate (ch_session_judge). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/page.h"
#include "ch/pipeline.h"
#include "session_fixture.h"

static char *tmp_dir;
static ch_config cfg;

static void setup(void)
{
    static const char *const settings[] = {"budget", "2", NULL};
    fx_session_config(&cfg, &tmp_dir, "session-admin-test", settings);
}

static void teardown(void)
{
    fx_session_free(&cfg, tmp_dir);
}

TestSuite(session_admin, .init = setup, .fini = teardown);

/* The page of l (one entry, text its source) into tmp_dir/page; *html the page, which must be
 * the file written. */
static char *page_of(ch_session *s, const ch_entry_list *l, const char *text)
{
    char *dir = ch_path_join(tmp_dir, "page");
    char *texts[] = {(char *)text, NULL};
    ch_page_opts o = {l, texts, dir, "saxpy.c"};
    char *path = NULL, *html = NULL;
    ch_error err;
    cr_assert_eq(ch_session_page(s, &o, &path, &html, &err), 0, "%s", err.msg);
    char *want = ch_path_join(dir, "saxpy.c.html");
    cr_assert_str_eq(path, want, "the page is named after the entry's file");
    char *written = NULL;
    cr_assert_eq(ch_read_file(path, &written, NULL, &err), 0, "%s", err.msg);
    cr_assert_str_eq(written, html, "the page returned is the page written");
    free(written);
    free(want);
    free(path);
    free(dir);
    return html;
}

/* an entry in the cache under the session's key is shown from it; a session whose targets give
 * another key shows the same entry absent (the page keys as the build does) */
Test(session_admin, page_keys_entries_by_the_session)
{
    ch_session s;
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=sm_80", NULL});
    cr_assert_not_null(s.cache, "%s", s.cache_err.msg);
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    char key[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0, "%s", err.msg);
    const char *files[] = {"kernel.cu", "__global__ void saxpy_kernel_marker(void) {}\n", NULL};
    fx_session_seed(&s, key, "verified", files);
    char *html = page_of(&s, &l, fx_saxpy_c);
    char *note = ch_xasprintf("key %.12s...", key);
    cr_assert(strstr(html, "In the kernel cache since"), "the entry is found");
    cr_assert(strstr(html, note), "the note names the session's key %s", key);
    cr_assert(strstr(html, "saxpy_kernel_marker"), "the cached kernel is shown");
    char *where = ch_xasprintf("%s:%u", l.items[0].file, l.items[0].line);
    cr_assert(strstr(html, where), "the entry's place %s", where);
    cr_assert(strstr(html, ">#pragma harness extent(x: n, y: n)<"), "the pragma line is quoted");
    free(where);
    free(html);
    free(note);
    ch_entry_list_free(&l);
    fx_session_close(&s);

    fx_session_open(&s, &cfg, (const char *const[]){"-arch=sm_90", NULL});
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    html = page_of(&s, &l, fx_saxpy_c);
    cr_assert(strstr(html, "Not in the kernel cache: no build of this entry yet."),
              "another target is another key");
    cr_assert_null(strstr(html, "saxpy_kernel_marker"));
    free(html);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

/* a session without a cache still writes the page, every entry absent */
Test(session_admin, page_without_a_cache_shows_entries_absent)
{
    ch_error err;
    char *blocker = ch_path_join(tmp_dir, "not-a-dir");
    cr_assert_eq(ch_write_file_atomic(blocker, "x", 1, 0, &err), 0, "%s", err.msg);
    char *cache = ch_path_join(blocker, "cache");
    cr_assert_eq(ch_config_set(&cfg, "cache_dir", cache, CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    cr_assert_null(s.cache, "a cache under a file cannot be opened");
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    char *html = page_of(&s, &l, fx_saxpy_c);
    cr_assert(strstr(html, "Not in the kernel cache"));
    free(html);
    ch_entry_list_free(&l);
    fx_session_close(&s);
    free(cache);
    free(blocker);
}

/* an entry stored without report.json (an older ch-cc) is described from its meta */
Test(session_admin, entry_report_falls_back_to_the_meta)
{
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    const char key[] = "0123456789abcdef0123456789abcdef";
    ch_cache_txn *t = NULL;
    ch_cache_hit hit;
    ch_cache_hit_init(&hit);
    ch_error err;
    cr_assert_eq(ch_cache_begin(s.cache, key, &t, &hit, &err), 0, "%s", err.msg);
    ch_cache_txn_meta(t, "status", "unsupported");
    ch_cache_txn_meta(t, "name", "prefix");
    ch_cache_txn_meta(t, "reason", "a loop-carried sum");
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_cache_peek(s.cache, key, &hit, &err), 1, "%s", err.msg);
    cJSON *r = ch_page_entry_report(&hit);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "status")), "unsupported");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(r, "name")), "prefix");
    cJSON *reason = cJSON_GetObjectItem(r, "reason");
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(reason, "text")),
                     "a loop-carried sum");
    char when[64];
    ch_page_created_text(&hit, when, sizeof when);
    cr_assert(strstr(when, " UTC") && strlen(when) == strlen("2026-01-01 00:00:00 UTC"), "%s",
              when);
    cJSON_Delete(r);
    ch_cache_hit_free(&hit);
    fx_session_close(&s);
}

typedef struct proposed {
    ch_strvec paths;
} proposed;

static void note_proposed(void *ctx, const char *path, const char *design)
{
    proposed *p = ctx;
    cr_assert_not_null(design);
    ch_strvec_push(&p->paths, path);
}

/* the builtin agent's candidates are written as NAME.K.cu, at most count of them, each told */
Test(session_admin, propose_writes_the_agents_candidates, .timeout = 120)
{
    ch_session s;
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=sm_80", NULL});
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    char *dir = ch_path_join(tmp_dir, "proposed");
    ch_error err;
    cr_assert_eq(ch_mkdir_p(dir, &err), 0, "%s", err.msg);
    proposed p;
    ch_strvec_init(&p.paths);
    cr_assert_eq(ch_session_propose(&s, &l.items[0], dir, 2, note_proposed, &p, &err), 0, "%s",
                 err.msg);
    cr_assert(p.paths.len >= 1 && p.paths.len <= 2, "%zu candidates", p.paths.len);
    for (size_t k = 0; k < p.paths.len; k++) {
        char *name = ch_xasprintf("saxpy.%zu.cu", k);
        char *want = ch_path_join(dir, name);
        cr_assert_str_eq(p.paths.items[k], want);
        char *src = NULL;
        cr_assert_eq(ch_read_file(want, &src, NULL, &err), 0, "%s", err.msg);
        cr_assert(strstr(src, "__global__"), "a CUDA kernel: %s", src);
        free(src);
        free(want);
        free(name);
    }
    char *third = ch_path_join(dir, "saxpy.2.cu");
    cr_assert_eq(ch_file_exists(third), 0, "no more than count candidates");
    cr_assert_not_null(s.agent, "the session opened the agent");
    /* nothing asked for: nothing written */
    ch_strvec_free(&p.paths);
    ch_strvec_init(&p.paths);
    char *none = ch_path_join(tmp_dir, "none");
    cr_assert_eq(ch_mkdir_p(none, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_session_propose(&s, &l.items[0], none, 0, note_proposed, &p, &err), 0);
    cr_assert_eq(p.paths.len, 0);
    free(none);
    free(third);
    ch_strvec_free(&p.paths);
    free(dir);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

/* the verifier's setup carries the session's runtime library (found once at open) */
Test(session_admin, verify_setup_links_the_sessions_runtime)
{
    ch_error err;
    char *lib = ch_path_join(tmp_dir, "libch_runtime.a");
    cr_assert_eq(ch_write_file_atomic(lib, "!<arch>\n", 8, 0, &err), 0, "%s", err.msg);
    cr_assert_eq(setenv("CH_CC_RUNTIME_LIB", lib, 1), 0);
    ch_session s;
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=sm_80", NULL});
    unsetenv("CH_CC_RUNTIME_LIB");
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    ch_verify_setup v;
    memset(&v, 0, sizeof v);
    char *gpu_lock = NULL;
    ch_session_verify_setup(&s, &l.items[0], "saxpy.c", NULL, &v, &gpu_lock);
    cr_assert_str_eq(v.runtime_lib, lib);
    cr_assert_str_eq(v.arch, s.archs.items[0]);
    cr_assert_str_eq(v.nvcc, "nvcc");
    free(gpu_lock);
    ch_entry_list_free(&l);
    fx_session_close(&s);
    free(lib);
}

/* an admin command's entry by name: the named one, the only one, or a located refusal */
Test(session_admin, scan_named_picks_the_entry_or_says_why)
{
    static const char two_c[] = "#pragma harness extent(x: n)\n"
                                "void first(int n, float *x)\n"
                                "{\n    for (int i = 0; i < n; i++)\n        x[i] = 0;\n}\n"
                                "#pragma harness extent(x: n)\n"
                                "void second(int n, float *x)\n"
                                "{\n    for (int i = 0; i < n; i++)\n        x[i] = 1;\n}\n";
    ch_error err;
    char *path = ch_path_join(tmp_dir, "two.c");
    cr_assert_eq(ch_write_file_atomic(path, two_c, strlen(two_c), 0, &err), 0, "%s", err.msg);
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    struct {
        const char *name;
        int only_one;
        const char *found; /* NULL: an error containing error */
        const char *error;
    } cases[] = {
        {"second", 1, "second", NULL},
        {NULL, 0, "first", NULL},
        {"", 0, "first", NULL},
        {NULL, 1, NULL, "has several harness entries: choose one with --harness-entry=NAME"},
        {"third", 0, NULL, "has no harness entry named third"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ch_entry_list l;
        ch_entry_list_init(&l);
        const ch_entry *e = NULL;
        int rc = ch_session_scan_named(&s, path, CH_LANG_C, cases[k].name, cases[k].only_one, &l,
                                       &e, &err);
        if (cases[k].found) {
            cr_assert_eq(rc, 0, "case %zu: %s", k, err.msg);
            cr_assert_str_eq(e->name, cases[k].found, "case %zu", k);
        } else {
            cr_assert_eq(rc, -1, "case %zu", k);
            cr_assert(strstr(err.msg, cases[k].error) && strstr(err.msg, path), "case %zu: %s", k,
                      err.msg);
        }
        ch_entry_list_free(&l);
    }
    fx_session_close(&s);
    free(path);
}

/* --harness-verify's step: a candidate judged with the session's setup; a wrong signature fails
 * stage 0 with the signature check's message, a correct one is pending without a GPU; both
 * carry the key the build stores the entry under */
Test(session_admin, judge_reports_the_verdict_and_the_build_key, .timeout = 180)
{
    static const char launcher[] =
        "__global__ void saxpy_kernel(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n)\n"
        "        y[i] = a * x[i] + y[i];\n"
        "}\n"
        "extern \"C\" void saxpy_launcher(int n, %s a, const float *x, float *y)\n"
        "{\n"
        "    float *dx, *dy;\n"
        "    size_t b = (size_t)n * sizeof(float);\n"
        "    cudaMalloc(&dx, b ? b : 4);\n"
        "    cudaMalloc(&dy, b ? b : 4);\n"
        "    cudaMemcpy(dx, x, b, cudaMemcpyHostToDevice);\n"
        "    cudaMemcpy(dy, y, b, cudaMemcpyHostToDevice);\n"
        "    if (n > 0)\n"
        "        saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);\n"
        "    cudaMemcpy(y, dy, b, cudaMemcpyDeviceToHost);\n"
        "    cudaFree(dx);\n"
        "    cudaFree(dy);\n"
        "}\n";
    ch_session s;
    fx_session_open(&s, &cfg, (const char *const[]){"-arch=compute_80", NULL});
    ch_entry_list l;
    fx_session_scan(&s, tmp_dir, "saxpy.c", fx_saxpy_c, &l);
    char key[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0, "%s", err.msg);
    char *path = ch_path_join(tmp_dir, "saxpy.c");

    char *wrong = ch_xasprintf(launcher, "double");
    ch_judgement j;
    cr_assert_eq(ch_session_judge(&s, path, CH_LANG_C, "saxpy", wrong, &j, &err), 0, "%s", err.msg);
    cr_assert_str_eq(j.key, key, "the build's key for this command line");
    cr_assert(!j.report.correct && !j.report.passed);
    cr_assert_eq(j.report.stage, CH_STAGE_STATIC);
    cr_assert_null(j.pending, "a failure is not pending");
    cr_assert(j.report.message && strstr(j.report.message, "'double'"), "%s",
              j.report.message ? j.report.message : "(none)");
    ch_judgement_free(&j);

    char *right = ch_xasprintf(launcher, "float");
    cr_assert_eq(ch_session_judge(&s, path, CH_LANG_C, NULL, right, &j, &err), 0, "%s", err.msg);
    cr_assert_str_eq(j.key, key);
    if (!ch_session_gpu(&s)->have_gpu) {
        cr_assert(j.report.passed, "stages 0-1 pass: %s", j.report.message ? j.report.message : "");
        cr_assert_not_null(j.pending, "no GPU: the verdict waits");
        cr_assert_str_eq(j.pending, s.gpu.why);
    }
    /* it copies the caller's data itself: verified or not, a user's program never runs it */
    cr_assert(j.not_linked && strstr(j.not_linked, "no saxpy_device_launcher"), "%s",
              j.not_linked ? j.not_linked : "(linkable)");
    ch_judgement_free(&j);

    cr_assert_eq(ch_session_judge(&s, path, CH_LANG_C, "nosuch", right, &j, &err), -1);
    cr_assert(strstr(err.msg, "has no harness entry named nosuch"), "%s", err.msg);
    ch_judgement_free(&j);
    free(right);
    free(wrong);
    free(path);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

/* --harness-report's page of several files: each file's entries, the page named after the first
 * entry's file; a file that cannot be read is an error that names it */
Test(session_admin, page_of_files_reads_and_scans_each_file)
{
    static const char scale_c[] =
        "#pragma harness extent(y: n)\n"
        "void scale(int n, float a, float *y)\n"
        "{\n    for (int i = 0; i < n; i++)\n        y[i] = a * y[i];\n}\n";
    ch_error err;
    char *saxpy = ch_path_join(tmp_dir, "saxpy.c"), *scale = ch_path_join(tmp_dir, "scale.c");
    cr_assert_eq(ch_write_file_atomic(saxpy, fx_saxpy_c, strlen(fx_saxpy_c), 0, &err), 0);
    cr_assert_eq(ch_write_file_atomic(scale, scale_c, strlen(scale_c), 0, &err), 0);
    ch_session s;
    fx_session_open(&s, &cfg, NULL);
    char *dir = ch_path_join(tmp_dir, "pages");
    ch_page_file files[] = {{saxpy, CH_LANG_C}, {scale, CH_LANG_C}};
    char *path = NULL;
    size_t entries = 0;
    cr_assert_eq(ch_session_page_files(&s, files, 2, dir, &path, &entries, &err), 0, "%s", err.msg);
    cr_assert_eq(entries, 2);
    char *want = ch_path_join(dir, "saxpy.c.html");
    cr_assert_str_eq(path, want);
    char *html = NULL;
    cr_assert_eq(ch_read_file(path, &html, NULL, &err), 0, "%s", err.msg);
    char *where_scale = ch_xasprintf("%s:1", scale), *where_saxpy = ch_xasprintf("%s:1", saxpy);
    cr_assert(strstr(html, where_scale), "scale's section names its file");
    cr_assert(strstr(html, where_saxpy), "and saxpy's its own");
    cr_assert(strstr(html, ">#pragma harness extent(y: n)<"), "scale's pragma is quoted from its "
                                                              "file");
    free(where_scale);
    free(where_saxpy);
    free(html);
    free(path);
    path = NULL;
    char *missing = ch_path_join(tmp_dir, "missing.c");
    ch_page_file bad[] = {{saxpy, CH_LANG_C}, {missing, CH_LANG_C}};
    cr_assert_eq(ch_session_page_files(&s, bad, 2, dir, &path, &entries, &err), -1);
    cr_assert(strstr(err.msg, "missing.c"), "%s", err.msg);
    cr_assert_null(path);
    fx_session_close(&s);
    free(missing);
    free(want);
    free(dir);
    free(scale);
    free(saxpy);
}
