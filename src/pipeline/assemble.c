/* ch_session_assemble (ch/assemble.h): the object of one annotated input, from the file's text
 * (read once, its pragma lines located once: the grammar check, the scan and the host copy
 * share them) and its entries' outcomes: the host copy compiled by the user's compiler, each
 * kernel's unit (ch_session_object) or reference, privatized, and `ld -r` over all of them. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ch/assemble.h"
#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/host_subset.h"
#include "ch/proc.h"
#include "ch/static_child.h"
#include "ch/verify.h"

/* ---- the host copy ---- */

char *ch_assemble_copy_text(const char *path, const char *host, size_t len, size_t *out_len)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_add_line_directive(&sb, path);
    ch_strbuf_add(&sb, host, len);
    *out_len = sb.len;
    return ch_strbuf_detach(&sb);
}

/* Writes the copy as DIR/BASENAME (the user's base name: messages that print only the base
 * name stay right); returns its path or NULL with err. */
static char *write_copy(const char *dir, const char *path, const char *host, size_t len,
                        ch_error *err)
{
    size_t n = 0;
    char *text = ch_assemble_copy_text(path, host, len, &n);
    char *copy = ch_path_join(dir, ch_path_base(path));
    int rc = ch_write_file_atomic(copy, text, n, 0, err);
    free(text);
    if (rc != 0) {
        free(copy);
        return NULL;
    }
    return copy;
}

int ch_assemble_fix_depfile(const char *depfile, const char *from, const char *to, ch_error *err)
{
    char *text;
    size_t len;
    if (ch_read_file(depfile, &text, &len, err) != 0)
        return -1;
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t fl = strlen(from);
    assert(fl > 0);
    for (const char *p = text; *p;) {
        const char *hit = strstr(p, from);
        if (!hit) {
            ch_strbuf_adds(&out, p);
            break;
        }
        ch_strbuf_add(&out, p, (size_t)(hit - p));
        ch_strbuf_adds(&out, to);
        p = hit + fl;
    }
    int rc = ch_write_file_atomic(depfile, out.data ? out.data : "", out.len, 0, err);
    ch_strbuf_free(&out);
    free(text);
    return rc;
}

void ch_assemble_host_argv(const ch_host_compile *h, const char *path, const char *copy,
                           const char *user_obj, const char *obj, ch_strvec *argv, char **depfile)
{
    for (char *const *a = h->argv; *a; a++)
        ch_strvec_push(argv, *a);
    /* quoted includes are searched next to the file: keep that the user's directory */
    char *dir = ch_path_dir(path);
    ch_strvec_push_owned(argv, ch_xasprintf(h->nvcc ? "-I%s" : "-iquote%s", dir));
    free(dir);
    *depfile = h->dep_mf ? ch_xstrdup(h->dep_mf) : ch_path_with_suffix(user_obj, ".d");
    if (h->dep_md && !h->dep_targets) {
        ch_strvec_push(argv, "-MT");
        ch_strvec_push(argv, user_obj);
    }
    if (h->dep_md && !h->dep_mf) {
        ch_strvec_push(argv, "-MF");
        ch_strvec_push(argv, *depfile);
    }
    if (h->compile_half)
        ch_strvec_push(argv, "-c");
    if (!h->syntax_only) {
        ch_strvec_push(argv, "-o");
        ch_strvec_push(argv, obj);
    }
    ch_strvec_push(argv, copy);
}

/* The user's compile of the copy into obj; extra (may be NULL) goes before the copy's name.
 * Returns 0, the compiler's exit status, or -1 with err (it could not run, the depfile). */
static int compile_copy(const ch_assemble_opts *o, const char *copy, const char *obj, ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    char *depfile = NULL;
    ch_assemble_host_argv(o->host, o->path, copy, o->user_obj, obj, &argv, &depfile);
    ch_proc_result res;
    ch_proc_result_init(&res);
    int status = ch_proc_run(argv.items, NULL, &res, err) == 0 ? res.exit_code : -1;
    ch_proc_result_free(&res);
    if (status == 0 && o->host->dep_md && ch_file_exists(depfile) &&
        ch_assemble_fix_depfile(depfile, copy, o->path, err) != 0)
        status = -1;
    free(depfile);
    ch_strvec_free(&argv);
    return status;
}

/* Writes the host copy (the given entries renamed) into tmp and compiles it into host_obj. */
static int build_host(const ch_assemble_opts *o, const ch_scan_source *src, const char *tmp,
                      const ch_entry *const *renamed, size_t n_renamed, const char *host_obj,
                      ch_error *err)
{
    size_t host_len = 0;
    char *host = ch_emit_host_source_at(src->text, src->len, src->pragmas, src->n_pragmas, renamed,
                                        n_renamed, o->lang == CH_LANG_C, &host_len);
    char *copy = write_copy(tmp, o->path, host, host_len, err);
    int status = copy ? compile_copy(o, copy, host_obj, err) : -1;
    free(copy);
    free(host);
    return status;
}

/* ---- what each outcome links ---- */

ch_unit_kind ch_assemble_unit_kind(const ch_outcome *o)
{
    if (o->kernel_src)
        return CH_UNIT_KERNEL;
    if (o->host_src && !o->entry->has_body)
        return CH_UNIT_REFERENCE;
    return CH_UNIT_NONE;
}

size_t ch_assemble_renamed(const ch_outcome *outs, size_t n, const ch_entry **renamed)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (outs[i].entry->has_body) /* a kernel's dispatcher or the trace unit takes its name */
            renamed[k++] = outs[i].entry;
    return k;
}

char *ch_assemble_exported(const ch_outcome *o)
{
    return o->kernel_src ? ch_emit_dispatch_name(o->entry) : ch_emit_host_bridge_name(o->entry);
}

/* A spec-decl entry without a kernel: the test author's reference is the host path, compiled
 * here as the host bridge NAME__host; the trace unit defines NAME, which calls it. */
static int reference_object(ch_session *s, const ch_outcome *o, const char *tmp,
                            const char *obj_path, ch_error *err)
{
    const ch_entry *e = o->entry;
    ch_strbuf src, args;
    ch_strbuf_init(&src);
    ch_strbuf_init(&args);
    ch_entry_call_args(e, &args);
    /* read as verification read it (its file name and lines); its name is made private in
     * the object (ch_emit_private_names), as in a kernel unit, and local by the merge */
    ch_emit_kernel k = {.entry = e, .host_src = o->host_src};
    ch_emit_reference_unit(&k, &src);
    char *unit_file = ch_xasprintf("%s_host.c", e->name);
    ch_emit_resume_lines(&src, unit_file);
    free(unit_file);
    char *host = ch_emit_host_bridge_name(e);
    char *sig = ch_emit_signature_as(e, host);
    ch_strbuf_addf(&src,
                   "\n/* ch-cc: the host path of %s (no verified kernel), called by the trace "
                   "unit */\n%s;\n%s\n{\n    %s_reference(%s);\n}\n",
                   e->name, sig, sig, e->name, args.data);
    free(sig);
    free(host);
    char *c = ch_xasprintf("%s/%s_host.c", tmp, e->name);
    ch_strbuf why;
    ch_strbuf_init(&why);
    ch_subset_finding subset;
    /* from a cache as much as from the model: only code in the host subset is linked */
    int rc =
        ch_host_subset_check_bounded(o->host_src, CH_SUBSET_REFERENCE, NULL, 0, NULL, &why, &subset)
            ? ch_error_set(err, "%s: the test author's reference is refused: %s", e->name, why.data)
            : 0;
    ch_strbuf_reset(&why);
    if (rc == 0)
        rc = ch_write_file_atomic(c, src.data, src.len, 0, err);
    if (rc == 0)
        rc = ch_emit_compile_reference(s->ref_cc.items[0], e, c, obj_path, err);
    if (rc == 0)
        rc = ch_emit_private_names(obj_path, e, err);
    /* the reference becomes the user's function: judged as compiled, like a candidate */
    if (rc == 0 && ch_object_check_as(obj_path, CH_OBJECT_REFERENCE, NULL, 0, &why) != 0)
        rc = ch_error_set(err, "%s: the test author's reference is refused: %s", e->name, why.data);
    ch_strbuf_free(&why);
    free(c);
    ch_strbuf_free(&src);
    ch_strbuf_free(&args);
    return rc;
}

/* The object of one unit at path, privatized to its exported symbol. */
static int unit_object(ch_session *s, const ch_outcome *o, int c_linkage, const char *tmp,
                       const char *path, ch_error *err)
{
    int rc = ch_assemble_unit_kind(o) == CH_UNIT_KERNEL
                 ? ch_session_object(s, o, c_linkage, tmp, path, err)
                 : reference_object(s, o, tmp, path, err);
    if (rc == 0) {
        char *exported = ch_assemble_exported(o);
        rc = ch_emit_privatize(path, exported, err);
        free(exported);
    }
    return rc;
}

/* The entry's report.json (in the local cache) records a host path taken at the object step:
 * `"host_fallback": {"class": ..., "reason": ...}`. Best effort: the build does not need it. */
static void record_fallback(ch_session *s, const ch_outcome *o)
{
    ch_cache_txn *t = NULL;
    ch_error e;
    if (!s->cache || ch_cache_begin_update(s->cache, o->key, &t, &e) != 0)
        return;
    const ch_cache_file *f = ch_cache_txn_file(t, "report.json");
    cJSON *r = f ? cJSON_ParseWithLength((const char *)f->data, f->len) : NULL;
    if (!cJSON_IsObject(r)) {
        cJSON_Delete(r);
        r = cJSON_CreateObject();
    }
    cJSON_DeleteItemFromObjectCaseSensitive(r, "host_fallback");
    cJSON *h = cJSON_AddObjectToObject(r, "host_fallback");
    cJSON_AddStringToObject(h, "class", ch_fallback_name(o->fallback));
    cJSON_AddStringToObject(h, "reason", o->reason ? o->reason : "");
    char *json = cJSON_Print(r);
    if (ch_cache_put(t, "report.json", json, strlen(json), &e) == 0)
        ch_cache_commit(t, &e);
    else
        ch_cache_abort(t);
    free(json);
    cJSON_Delete(r);
}

/* A kernel whose object could not be made: its host path instead, with the failure (the
 * entry's name, which err may start with, dropped: the note names the entry) as reason. */
static void object_fallback(ch_session *s, ch_outcome *o, const ch_error *why)
{
    const char *reason = why->msg;
    size_t nl = strlen(o->entry->name);
    if (strncmp(reason, o->entry->name, nl) == 0 && strncmp(reason + nl, ": ", 2) == 0)
        reason += nl + 2;
    char *text = ch_xstrdup(reason);
    ch_session_fall_back(s, o, CH_FALLBACK_OBJECT, text);
    free(text);
    record_fallback(s, o);
}

int ch_session_note_is_new(ch_session *s, const ch_outcome *o)
{
    if (!s->cache)
        return 1;
    int from_cache = o->hit.key[0] != '\0';
    char *dir = ch_path_join(ch_cache_dir(s->cache), "notes");
    /* a fallback at the object step has its own mark: the entry may have been noted before
     * for another reason (pending, then verified on a GPU machine) */
    char *name = o->fallback == CH_FALLBACK_OBJECT
                     ? ch_xasprintf("%s.%s", o->key, ch_fallback_name(o->fallback))
                     : ch_xstrdup(o->key);
    char *mark = ch_path_join(dir, name);
    int is_new = !from_cache || !ch_file_exists(mark);
    ch_error err;
    if (is_new && ch_mkdir_p(dir, &err) == 0)
        ch_write_file_atomic(mark, "", 0, 0, &err); /* best effort: a note too many at worst */
    free(mark);
    free(name);
    free(dir);
    return is_new;
}

/* ---- one annotated input ---- */

/* Parses every pragma of the file (located once, in src); the first bad one is the error. */
static int check_pragmas(const char *path, const ch_scan_source *src, ch_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < src->n_pragmas && rc == 0; i++) {
        const ch_pragma_loc *at = &src->pragmas[i];
        ch_pragma p;
        memset(&p, 0, sizeof p);
        rc = ch_pragma_parse(src->text + at->body_offset, at->end_offset - at->body_offset, path,
                             at->body_line, at->body_col, &p, err);
        ch_pragma_free(&p);
    }
    return rc;
}

static void say(const ch_assemble_opts *o, ch_session *s, const ch_outcome *out)
{
    if (o->report)
        o->report(o->ctx, s, out);
}

/* Serves every entry; an entry that must fail the compile is the error. */
static int serve_entries(ch_session *s, const ch_assemble_opts *o, ch_assembly *a, ch_error *err)
{
    for (size_t i = 0; i < a->entries.len; i++) {
        const ch_entry *e = &a->entries.items[i];
        ch_outcome *out = &a->outcomes[i];
        if (ch_session_entry(s, e, o->path, out, err) != 0) {
            say(o, s, NULL);
            return -1;
        }
        if (!out->kernel_src && !out->host_src && !e->has_body) {
            say(o, s, NULL);
            return ch_error_at(err, e->file, e->line, e->col,
                               "%s has only a specification and no kernel or reference could be "
                               "made for it: %s",
                               e->name, out->reason ? out->reason : "?");
        }
        if (!out->kernel_src && o->on_fail_error) {
            say(o, s, NULL);
            return ch_error_at(err, e->file, e->line, e->col,
                               "%s: no verified kernel (--harness-on-fail=error): %s", e->name,
                               out->reason ? out->reason : "?");
        }
        say(o, s, out);
    }
    return 0;
}

/* The object check of an emitted unit, with the host paths the trace unit calls allowed. */
static int trace_unit_passes(const ch_emit_traced *t, size_t n, const char *obj, ch_error *err)
{
    char **hosts = ch_xcalloc(n + 1, sizeof *hosts);
    for (size_t i = 0; i < n; i++)
        hosts[i] = ch_emit_traced_host_name(&t[i]);
    ch_strbuf why;
    ch_strbuf_init(&why);
    int rc = ch_object_check_as(obj, CH_OBJECT_UNIT, (const char *const *)hosts, 0, &why);
    if (rc != 0)
        ch_error_set(err, "the trace unit's object is refused: %s", why.data);
    ch_strbuf_free(&why);
    for (size_t i = 0; i < n; i++)
        free(hosts[i]);
    free(hosts);
    return rc == 0 ? 0 : -1;
}

/* The trace unit of the entries that got no kernel (src/emit/trace.c writes it): it defines the
 * function the program calls, which says each call's path under CH_CC_TRACE=1 and runs the host
 * path. Compiled by the user's host compiler into tmp, checked, appended to objs (the symbols it
 * joins to the user's object to local). An entry that fell back at the object step is here too:
 * its body was renamed like every other. */
static int trace_unit(const ch_assemble_opts *o, ch_assembly *a, const char *tmp, ch_strvec *objs,
                      ch_strvec *local, ch_error *err)
{
    ch_emit_traced *t = ch_xcalloc(a->entries.len + 1, sizeof *t);
    size_t n = 0;
    for (size_t i = 0; i < a->entries.len; i++) {
        const ch_outcome *out = &a->outcomes[i];
        const ch_entry *e = out->entry;
        if (out->kernel_src || (!e->has_body && !out->host_src))
            continue;
        t[n++] = (ch_emit_traced){e, ch_fallback_name(out->fallback), out->reason, !e->has_body};
        if (e->has_body) /* a reference's object has added them already */
            ch_emit_private_symbols(e, local);
    }
    int rc = 0;
    if (n) {
        int c_linkage = o->lang == CH_LANG_C;
        ch_strbuf unit, log;
        ch_strbuf_init(&unit);
        ch_strbuf_init(&log);
        ch_emit_trace_unit(t[0].entry->file, t, n, c_linkage, &unit);
        char *src = ch_path_join(tmp, c_linkage ? "ch_trace.c" : "ch_trace.cpp");
        /* not an identifier: no entry's own object (NAME.o) has this name */
        char *obj = ch_path_join(tmp, "trace-unit.o");
        assert(o->host->unit_argv); /* the driver derives it from every compile it assembles */
        rc = ch_write_file_atomic(src, unit.data, unit.len, 0, err);
        if (rc == 0 && ch_emit_compile(o->host->unit_argv, src, obj, &log, err) != 0)
            rc = ch_error_prefix(err, "the trace unit does not compile");
        if (rc == 0)
            rc = trace_unit_passes(t, n, obj, err);
        ch_strvec_push_owned(objs, obj);
        free(src);
        ch_strbuf_free(&log);
        ch_strbuf_free(&unit);
    }
    free(t);
    return rc;
}

/* One entry's unit into tmp, appended to objs (its private symbols to local). A kernel that
 * fails here falls back to its host path, and the entry's unit is asked for again: a spec-only
 * entry's host path is its reference's unit, an entry with a body has none (the trace unit
 * calls its renamed body). */
static int build_unit(ch_session *s, const ch_assemble_opts *o, ch_outcome *out, const char *tmp,
                      ch_strvec *objs, ch_strvec *local, ch_error *err)
{
    const ch_entry *e = out->entry;
    ch_unit_kind kind;
    while ((kind = ch_assemble_unit_kind(out)) != CH_UNIT_NONE) {
        char *path = ch_xasprintf("%s/%s.o", tmp, e->name);
        int rc = unit_object(s, out, o->lang == CH_LANG_C, tmp, path, err);
        say(o, s, NULL);
        if (rc == 0) {
            ch_strvec_push_owned(objs, path);
            ch_emit_private_symbols(e, local);
            return 0;
        }
        free(path);
        /* a spec-only entry without a reference has no host path to fall back to */
        if (kind != CH_UNIT_KERNEL || o->on_fail_error || !(e->has_body || out->host_src))
            return ch_error_prefix(err, "%s", e->name);
        object_fallback(s, out, err);
        assert(ch_assemble_unit_kind(out) != CH_UNIT_KERNEL); /* the fallback drops the kernel */
        say(o, s, out);
    }
    return 0;
}

/* The units of the entries into tmp (build_unit). */
static int build_units(ch_session *s, const ch_assemble_opts *o, ch_assembly *a, const char *tmp,
                       ch_strvec *objs, ch_strvec *local, ch_error *err)
{
    for (size_t i = 0; i < a->entries.len; i++)
        if (build_unit(s, o, &a->outcomes[i], tmp, objs, local, err) != 0)
            return -1;
    return 0;
}

static int assemble_in(ch_session *s, const ch_assemble_opts *o, ch_assembly *a,
                       const ch_scan_source *src, const char *tmp, ch_error *err)
{
    const ch_entry **renamed = ch_xcalloc(a->entries.len + 1, sizeof *renamed);
    /* without an object (-S, -fsyntax-only) nothing takes the names: the copy keeps them */
    size_t n_renamed = o->object ? ch_assemble_renamed(a->outcomes, a->entries.len, renamed) : 0;
    char *host_obj = o->object ? ch_path_join(tmp, "host.o") : ch_xstrdup(o->obj_path);
    int status = build_host(o, src, tmp, renamed, n_renamed, host_obj, err);
    ch_strvec objs, local;
    ch_strvec_init(&objs);
    ch_strvec_init(&local);
    ch_strvec_push(&objs, host_obj);
    if (status == 0 && o->object)
        status = build_units(s, o, a, tmp, &objs, &local, err);
    if (status == 0 && o->object)
        status = trace_unit(o, a, tmp, &objs, &local, err);
    if (status == 0 && o->object &&
        ch_emit_merge((const char *const *)objs.items, objs.len, local.items, o->obj_path, err) !=
            0)
        status = -1;
    ch_strvec_free(&objs);
    ch_strvec_free(&local);
    free(host_obj);
    free(renamed);
    return status;
}

int ch_session_assemble(ch_session *s, const ch_assemble_opts *o, ch_assembly *a, ch_error *err)
{
    memset(a, 0, sizeof *a);
    ch_entry_list_init(&a->entries);
    if (ch_read_file(o->path, &a->text, &a->len, err) != 0)
        return -1;
    ch_pragma_loc *pragmas = NULL;
    ch_scan_source src = {a->text, a->len, NULL, 0};
    ch_pragma_find(a->text, a->len, &pragmas, &src.n_pragmas);
    src.pragmas = pragmas;
    /* the grammar first (cheap, exact places), then libclang: an annotation that attaches to no
     * function, a bad type or an extent that cannot be inferred fails the compile too */
    int status = check_pragmas(o->path, &src, err);
    if (status == 0 && (src.n_pragmas > 0 || strstr(a->text, "HARNESS(")))
        status = ch_session_scan(s, o->path, o->lang, &src, &a->entries, err);
    a->outcomes = ch_xcalloc(a->entries.len + 1, sizeof *a->outcomes);
    if (status == 0 && o->object)
        status = serve_entries(s, o, a, err);
    char *tmp = status == 0 ? ch_make_temp_dir("obj", err) : NULL;
    if (status == 0 && !tmp)
        status = -1;
    if (status == 0)
        status = assemble_in(s, o, a, &src, tmp, err);
    ch_error rm_err;
    if (tmp)
        ch_remove_tree(tmp, &rm_err);
    free(tmp);
    free(pragmas);
    return status;
}

void ch_assembly_free(ch_assembly *a)
{
    for (size_t i = 0; a->outcomes && i < a->entries.len; i++)
        ch_outcome_free(&a->outcomes[i]);
    free(a->outcomes);
    ch_entry_list_free(&a->entries);
    free(a->text);
    memset(a, 0, sizeof *a);
}
