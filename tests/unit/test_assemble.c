/* The object of one annotated input (ch/assemble.h) without the driver and without a GPU: the
 * host copy's text and #line, its compile command and depfile, the rename plan, what each
 * outcome links, the object written complete or not at all, and a kernel lost at the object
 * step falling back to its host path (the copy compiled again without the rename). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/assemble.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "session_fixture.h"

static char *tmp_dir;
static ch_config cfg;

static void setup(void)
{
    /* a miss takes its host path at once: no agent, no nvcc */
    static const char *const settings[] = {"offline", "1", NULL};
    fx_session_config(&cfg, &tmp_dir, "assemble-test", settings);
}

static void teardown(void)
{
    fx_session_free(&cfg, tmp_dir);
}

TestSuite(assemble, .init = setup, .fini = teardown);

static const char saxpy_c[] = "#pragma harness extent(x: n, y: n)\n"
                              "void saxpy(int n, float a, const float *x, float *y)\n"
                              "{\n"
                              "    for (int i = 0; i < n; i++)\n"
                              "        y[i] = a * x[i] + y[i];\n"
                              "}\n"
                              "void twice(int n, float *y)\n"
                              "{\n"
                              "    saxpy(n, 1.0f, y, y);\n"
                              "}\n";

/* ---- pure parts ---- */

Test(assemble, copy_names_the_user_file_and_keeps_the_text)
{
    size_t n = 0;
    char *text = ch_assemble_copy_text("dir/a\"b\\c.c", "int x;\n", 7, &n);
    const char want[] = "#line 1 \"dir/a\\\"b\\\\c.c\"\nint x;\n";
    cr_assert_eq(n, strlen(want));
    cr_assert_str_eq(text, want);
    free(text);
}

static char *joined(const ch_strvec *v)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < v->len; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? " " : "", v->items[i]);
    return ch_strbuf_detach(&sb);
}

Test(assemble, host_command_keeps_the_users_options_and_names_the_users_object)
{
    char *argv[] = {"cc", "-O2", "-Wall", NULL};
    ch_host_compile h = {.argv = argv, .compile_half = 1, .dep_md = 1};
    ch_strvec v;
    ch_strvec_init(&v);
    char *dep = NULL;
    ch_assemble_host_argv(&h, "src/k.c", "/tmp/x/k.c", "k.o", "/tmp/x/host.o", &v, &dep);
    char *line = joined(&v);
    cr_expect_str_eq(line,
                     "cc -O2 -Wall -iquotesrc -MT k.o -MF k.d -c -o /tmp/x/host.o /tmp/x/k.c");
    cr_expect_str_eq(dep, "k.d");
    free(line);
    free(dep);
    ch_strvec_free(&v);

    /* nvcc has no -iquote; -MF and -MT given by the user stay theirs; -fsyntax-only: no -o */
    ch_host_compile n = {.argv = argv,
                         .nvcc = 1,
                         .syntax_only = 1,
                         .dep_md = 1,
                         .dep_mf = "deps/k.d",
                         .dep_targets = 1};
    ch_strvec_init(&v);
    ch_assemble_host_argv(&n, "k.c", "/tmp/x/k.c", "k.o", "k.o", &v, &dep);
    line = joined(&v);
    cr_expect_str_eq(line, "cc -O2 -Wall -I. /tmp/x/k.c");
    cr_expect_str_eq(dep, "deps/k.d");
    free(line);
    free(dep);
    ch_strvec_free(&v);
}

Test(assemble, depfile_names_the_users_source)
{
    char *dep = ch_path_join(tmp_dir, "k.d");
    const char text[] = "k.o: /tmp/obj.1/k.c /usr/include/stdio.h \\\n /tmp/obj.1/k.c\n";
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(dep, text, strlen(text), 0, &err), 0);
    cr_assert_eq(ch_assemble_fix_depfile(dep, "/tmp/obj.1/k.c", "src/k.c", &err), 0, "%s", err.msg);
    char *got;
    size_t len;
    cr_assert_eq(ch_read_file(dep, &got, &len, &err), 0);
    cr_expect_str_eq(got, "k.o: src/k.c /usr/include/stdio.h \\\n src/k.c\n");
    free(got);
    free(dep);
}

/* what each outcome links and which definitions the copy renames */
Test(assemble, rename_plan_and_units)
{
    ch_entry body = {.name = "saxpy", .has_body = 1};
    ch_entry spec = {.name = "gemm", .has_body = 0};
    ch_entry fixed = {.name = "scale", .has_body = 1, .is_static = 1};
    ch_outcome outs[4] = {
        {.entry = &body, .kernel_src = "k"},   /* a kernel for a body: renamed, a unit */
        {.entry = &spec, .host_src = "ref"},   /* a spec's reference: a unit, nothing renamed */
        {.entry = &body, .reason = "pending"}, /* a host path: renamed, the trace unit's */
        {.entry = &fixed, .kernel_src = "k"},  /* a static function: its dispatcher's name */
    };
    const ch_entry *renamed[4];
    cr_assert_eq(ch_assemble_renamed(outs, 4, renamed), 3);
    cr_expect_eq(renamed[0], &body);
    cr_expect_eq(renamed[1], &body);
    cr_expect_eq(renamed[2], &fixed);
    cr_expect_eq(ch_assemble_unit_kind(&outs[0]), CH_UNIT_KERNEL);
    cr_expect_eq(ch_assemble_unit_kind(&outs[1]), CH_UNIT_REFERENCE);
    cr_expect_eq(ch_assemble_unit_kind(&outs[2]), CH_UNIT_NONE);
    char *names[] = {ch_assemble_exported(&outs[0]), ch_assemble_exported(&outs[1]),
                     ch_assemble_exported(&outs[3])};
    cr_expect_str_eq(names[0], "saxpy");
    cr_expect_str_eq(names[1], "gemm__host", "the reference is the host path the trace unit calls");
    cr_expect_str_eq(names[2], "scale__ch_dispatch");
    for (size_t i = 0; i < 3; i++)
        free(names[i]);
}

/* ---- whole inputs (the host compiler, ld -r; no GPU, no agent) ---- */

/* nvcc's path from PATH (the session identifies nvcc by its file), or NULL. */
static char *nvcc_on_path(void)
{
    const char *path = getenv("PATH");
    char *dirs = ch_xstrdup(path ? path : "");
    char *found = NULL, *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = ch_path_join(d, "nvcc");
        if (access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(dirs);
    return found;
}

static void open_session(ch_session *s, const char *nvcc)
{
    ch_strvec opts;
    ch_strvec_init(&opts);
    ch_strvec_push(&opts, "-arch=sm_80");
    ch_session_opts o = {.cfg = &cfg, .arch_opts = &opts, .nvcc = nvcc, .quiet = 1};
    ch_session_open(s, &o);
    ch_strvec_free(&opts);
    cr_assert_not_null(s->cache, "%s", s->cache_err.msg);
}

static void close_session(ch_session *s)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_session_close(s, &w);
    ch_strvec_free(&w);
}

/* The outcomes the report callback saw (borrowed), and how often it was called. */
typedef struct seen {
    const ch_outcome *last;
    int outcomes, calls;
} seen;

static void record_report(void *ctx, ch_session *s, const ch_outcome *o)
{
    seen *w = ctx;
    ch_strvec drop;
    ch_strvec_init(&drop);
    ch_session_take_warnings(s, &drop);
    ch_strvec_free(&drop);
    w->calls++;
    if (o) {
        w->outcomes++;
        w->last = o;
    }
}

/* The options of a `-c` of the C file src into obj, reporting to w (may be NULL). */
static ch_assemble_opts c_input(const char *src, const char *obj, const ch_host_compile *h, seen *w)
{
    return (ch_assemble_opts){.path = src,
                              .lang = CH_LANG_C,
                              .user_obj = obj,
                              .obj_path = obj,
                              .object = 1,
                              .host = h,
                              .report = w ? record_report : NULL,
                              .ctx = w};
}

static char *write_source(const char *name, const char *text)
{
    char *path = ch_path_join(tmp_dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0);
    return path;
}

/* The global function symbols obj defines ("T name" lines of nm), space-separated. */
static char *defined(const char *obj)
{
    char *argv[] = {"nm", "--defined-only", "--format=posix", (char *)obj, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    cr_assert_geq(ch_proc_capture(argv, &out, &err), 0, "%s", err.msg);
    ch_strbuf names;
    ch_strbuf_init(&names);
    for (char *line = strtok(out.data, "\n"); line; line = strtok(NULL, "\n")) {
        char name[256], type;
        if (sscanf(line, "%255s %c", name, &type) == 2 && type == 'T')
            ch_strbuf_addf(&names, " %s", name);
    }
    ch_strbuf_free(&out);
    return names.data ? ch_strbuf_detach(&names) : ch_xstrdup("");
}

/* the user's `cc -O1 -c` (with -MD where the test asks for a depfile) */
static char *cc_argv[] = {"cc", "-O1", "-c", NULL};
static char *cc_md_argv[] = {"cc", "-O1", "-c", "-MD", NULL};
/* the compiler of the trace unit (ch_host_compile.unit_argv) */
static char *unit_argv[] = {"cc", "-O2", NULL};

Test(assemble, host_path_object_is_complete_with_the_users_names)
{
    ch_session s;
    open_session(&s, "nvcc");
    char *src = write_source("saxpy.c", saxpy_c);
    char *obj = ch_path_join(tmp_dir, "saxpy.o");
    ch_host_compile h = {.argv = cc_md_argv, .dep_md = 1, .unit_argv = unit_argv};
    seen w = {0};
    ch_assemble_opts o = c_input(src, obj, &h, &w);
    ch_assembly a;
    ch_error err;
    cr_assert_eq(ch_session_assemble(&s, &o, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(a.entries.len, 1);
    cr_expect_eq(a.outcomes[0].fallback, CH_FALLBACK_OFFLINE);
    cr_expect_eq(w.outcomes, 1, "one report per entry");
    cr_expect_eq(w.last, &a.outcomes[0]);
    char *syms = defined(obj);
    cr_expect_str_eq(syms, " saxpy twice", "the user's functions under their own names");
    free(syms);
    /* the depfile names the user's source, not the copy */
    char *dep = ch_path_with_suffix(obj, ".d");
    char *text;
    size_t len;
    cr_assert_eq(ch_read_file(dep, &text, &len, &err), 0, "%s", err.msg);
    cr_expect(strstr(text, src) != NULL, "%s", text);
    cr_expect(strstr(text, "ch-cc-obj-") == NULL, "%s", text);
    free(text);
    free(dep);
    ch_assembly_free(&a);
    free(obj);
    free(src);
    close_session(&s);
}

Test(assemble, a_failed_compile_writes_no_object)
{
    ch_session s;
    open_session(&s, "nvcc");
    ch_strbuf text;
    ch_strbuf_init(&text);
    ch_strbuf_adds(&text, saxpy_c);
    ch_strbuf_adds(&text, "int broken(void) { return not_declared_anywhere; }\n");
    char *src = write_source("broken.c", text.data);
    char *obj = ch_path_join(tmp_dir, "broken.o");
    ch_host_compile h = {.argv = cc_argv, .unit_argv = unit_argv};
    ch_assemble_opts o = c_input(src, obj, &h, NULL);
    ch_assembly a;
    ch_error err;
    int rc = ch_session_assemble(&s, &o, &a, &err);
    cr_expect_gt(rc, 0, "the compiler's exit status (its diagnostics are the message)");
    cr_expect_eq(access(obj, F_OK), -1, "no object, not even a partial one");
    ch_assembly_free(&a);
    ch_strbuf_free(&text);
    free(obj);
    free(src);
    close_session(&s);
}

Test(assemble, a_bad_annotation_is_a_located_error)
{
    ch_session s;
    open_session(&s, "nvcc");
    char *src = write_source("bad.c", "#pragma harness frob(x)\nvoid f(int n, float *x) {}\n");
    char *obj = ch_path_join(tmp_dir, "bad.o");
    ch_host_compile h = {.argv = cc_argv, .unit_argv = unit_argv};
    ch_assemble_opts o = c_input(src, obj, &h, NULL);
    ch_assembly a;
    ch_error err;
    cr_assert_eq(ch_session_assemble(&s, &o, &a, &err), -1);
    cr_expect(err.located);
    cr_expect(strstr(err.msg, "bad.c:1:") != NULL, "%s", err.msg);
    cr_expect_eq(access(obj, F_OK), -1);
    ch_assembly_free(&a);
    free(obj);
    free(src);
    close_session(&s);
}

/* A verified entry in the cache whose kernel nvcc cannot compile: the build still gives the
 * object, with the user's body under its own name, and the fallback is counted and recorded. */
Test(assemble, a_kernel_without_object_falls_back_to_the_host_path, .timeout = 120)
{
    char *nvcc = nvcc_on_path();
    if (!nvcc)
        cr_skip_test("nvcc not installed");
    ch_error err;
    ch_session s;
    open_session(&s, nvcc);
    char *src = write_source("saxpy.c", saxpy_c);
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_scan_source text = {saxpy_c, strlen(saxpy_c), NULL, 0};
    cr_assert_eq(ch_session_scan(&s, src, CH_LANG_C, &text, &l, &err), 0, "%s", err.msg);
    char key[33];
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0);
    ch_entry_list_free(&l);
    ch_cache_txn *t = NULL;
    ch_cache_hit hit;
    ch_cache_hit_init(&hit);
    cr_assert_eq(ch_cache_begin(s.cache, key, &t, &hit, &err), 0, "%s", err.msg);
    /* a device launcher (else the unit would hold the host path alone and nvcc never run) */
    const char kernel[] = "extern \"C\" int saxpy_device_launcher(int n, float a, const float *x, "
                          "float *y)\n{ return 0; }\nthis is not CUDA;\n";
    cr_assert_eq(ch_cache_put(t, "kernel.cu", kernel, strlen(kernel), &err), 0);
    cr_assert_eq(ch_cache_put(t, "report.json", "{}", 2, &err), 0);
    ch_cache_txn_meta(t, "status", "verified");
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);

    char *obj = ch_path_join(tmp_dir, "saxpy.o");
    ch_host_compile h = {.argv = cc_argv, .unit_argv = unit_argv};
    seen w = {0};
    ch_assemble_opts o = c_input(src, obj, &h, &w);
    ch_assembly a;
    cr_assert_eq(ch_session_assemble(&s, &o, &a, &err), 0, "%s", err.msg);
    const ch_outcome *out = &a.outcomes[0];
    cr_expect_null(out->kernel_src);
    cr_expect_eq(out->fallback, CH_FALLBACK_OBJECT);
    cr_expect(out->reason && strstr(out->reason, "nvcc failed"), "%s", out->reason);
    cr_expect_eq(w.outcomes, 2, "the kernel, then its fallback");
    cr_expect_eq(s.counts.fallback_object, 1);
    cr_expect_eq(s.counts.host_fallbacks, 1);
    char *syms = defined(obj);
    cr_expect_str_eq(syms, " saxpy twice", "the trace unit defines the user's name: %s", syms);
    free(syms);
    /* the entry's report.json records why */
    cr_assert_eq(ch_cache_peek(s.cache, key, &hit, &err), 1);
    const ch_cache_file *report = ch_cache_hit_file(&hit, "report.json");
    cr_assert_not_null(report);
    cr_expect(strstr((const char *)report->data, "\"host_fallback\"") != NULL);
    cr_expect(strstr((const char *)report->data, "\"object\"") != NULL);
    ch_cache_hit_free(&hit);
    ch_assembly_free(&a);

    /* under --harness-on-fail=error the same input fails and writes nothing */
    unlink(obj);
    o.on_fail_error = 1;
    cr_assert_eq(ch_session_assemble(&s, &o, &a, &err), -1);
    cr_expect(strstr(err.msg, "saxpy") && strstr(err.msg, "nvcc failed"), "%s", err.msg);
    cr_expect_eq(access(obj, F_OK), -1);
    ch_assembly_free(&a);
    free(obj);
    free(src);
    free(nvcc);
    close_session(&s);
}
