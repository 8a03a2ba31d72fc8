/* The harness path of a compile: a command whose inputs contain annotations.
 *
 * For each annotated input: the pragmas are parsed and the file is scanned (bad annotations are
 * compile errors at their file:line:col); every entry goes through the pipeline (pipeline.c:
 * cache, or agent + evolution + verification); the user's code is compiled from a copy with
 * the pragma lines blanked (line numbers, __FILE__ and depfiles stay the user's) in which the
 * entries that got a verified kernel are renamed to their host names; each kernel's generated
 * unit (emit) is compiled by nvcc, or taken from the cache, and `ld -r` merges everything into
 * the object the command promised. Objects appear complete or not at all.
 *
 * Commands that also link compile each annotated input to a temporary object first and then
 * run the real link with those objects and the CUDA runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/output.h"
#include "ch/proc.h"
#include "ch/scan.h"
#include "ch/verify.h"
#include "direct.h"
#include "link.h"
#include "ch/pipeline.h"

/* ---- the pragma grammar, the blanked copy, the depfile ---- */

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

/* Writes text as DIR/BASENAME, starting with a #line that names the original. */
static char *write_copy(const char *dir, const char *path, const char *text, size_t len,
                        ch_error *err)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "#line 1 \"");
    for (const char *p = path; *p; p++) {
        if (*p == '"' || *p == '\\')
            ch_strbuf_addc(&sb, '\\');
        ch_strbuf_addc(&sb, *p);
    }
    ch_strbuf_adds(&sb, "\"\n");
    ch_strbuf_add(&sb, text, len);
    char *copy = ch_path_join(dir, ch_path_base(path));
    int rc = ch_write_file_atomic(copy, sb.data, sb.len, 0, err);
    ch_strbuf_free(&sb);
    if (rc != 0) {
        free(copy);
        return NULL;
    }
    return copy;
}

/* Replaces every occurrence of `from` by `to` in the depfile, so it names the user's file. */
static int fix_depfile(const char *depfile, const char *from, const char *to, ch_error *err)
{
    char *text;
    size_t len;
    if (ch_read_file(depfile, &text, &len, err) != 0)
        return -1;
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t fl = strlen(from);
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
    int rc = ch_write_file_atomic(depfile, out.data, out.len, 0, err);
    ch_strbuf_free(&out);
    free(text);
    return rc;
}

static int is_input_index(const ch_args *a, size_t argi)
{
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].argi == argi)
            return 1;
    return 0;
}

static int is_output_index(const ch_args *a, size_t argi)
{
    return a->output_nargs && argi >= a->output_argi && argi < a->output_argi + a->output_nargs;
}

/* Options that only matter to a link: dropped from the compile half of a compile-and-link
 * command (the compiler would warn that linker input is unused). Returns how many arguments
 * the option at i takes (0: not a link option). */
static int link_option_args(const ch_args *a, size_t i)
{
    const char *s = a->expanded.items[i];
    if (strcmp(s, "-Xlinker") == 0 || strcmp(s, "-L") == 0 || strcmp(s, "-l") == 0)
        return 2;
    if (strncmp(s, "-l", 2) == 0 || strncmp(s, "-L", 2) == 0 || strncmp(s, "-Wl,", 4) == 0)
        return 1;
    static const char *const flags[] = {"-shared",           "-static",   "-pie",
                                        "-no-pie",           "-rdynamic", "-static-libgcc",
                                        "-static-libstdc++", NULL};
    for (size_t k = 0; flags[k]; k++)
        if (strcmp(s, flags[k]) == 0)
            return 1;
    return 0;
}

/* The object a compile of input writes when the user gave no -o. */
static char *default_object(const ch_input *in)
{
    return ch_path_with_suffix(ch_path_base(in->path), ".o");
}

/* The user's compile of the (blanked, maybe renamed) copy into obj, with the user's options:
 * the other inputs and -o removed; depfiles named after the user's object and source. */
static int compile_copy(ch_driver *d, const ch_input *in, const char *copy, const char *user_obj,
                        const char *obj)
{
    ch_args *a = &d->args;
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return 1;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push_owned(&argv, compiler);
    int links = !a->compile_only && !a->syntax_only && !a->assemble_only;
    for (size_t i = 0; i < a->expanded.len; i++) {
        int drop = links ? link_option_args(a, i) : 0;
        if (drop) {
            i += (size_t)drop - 1;
            continue;
        }
        if (!is_input_index(a, i) && !is_output_index(a, i))
            ch_strvec_push(&argv, a->expanded.items[i]);
    }
    /* quoted includes are searched next to the file: keep that the user's directory */
    char *dir = ch_path_dir(in->path);
    ch_strvec_push_owned(&argv,
                         ch_xasprintf(d->personality == CH_REAL_NVCC ? "-I%s" : "-iquote%s", dir));
    free(dir);
    char *depfile = a->dep_mf ? ch_xstrdup(a->dep_mf) : ch_path_with_suffix(user_obj, ".d");
    if (a->dep_md && a->dep_targets.len == 0) {
        ch_strvec_push(&argv, "-MT");
        ch_strvec_push(&argv, user_obj);
    }
    if (a->dep_md && !a->dep_mf) {
        ch_strvec_push(&argv, "-MF");
        ch_strvec_push(&argv, depfile);
    }
    if (links)
        ch_strvec_push(&argv, "-c");
    if (!a->syntax_only) {
        ch_strvec_push(&argv, "-o");
        ch_strvec_push(&argv, obj);
    }
    ch_strvec_push(&argv, copy);
    int status = ch_driver_spawn(argv.items);
    if (status == 0 && a->dep_md && ch_file_exists(depfile) &&
        fix_depfile(depfile, copy, in->path, &err) != 0) {
        ch_driver_report(&err);
        status = 1;
    }
    free(depfile);
    ch_strvec_free(&argv);
    return status;
}

/* ---- the per-command build state ---- */

/* A compile command: the driver's invocation and the pipeline session it opened. */
typedef struct ch_build {
    ch_driver *d;
    ch_session s;
    char *page;      /* the report page the last annotated input wrote (owned), or NULL */
    char *page_name; /* its file name in the report directory (owned), or NULL */
} ch_build;

/* ---- kernel objects ---- */

/* A spec-decl entry without a kernel: the test author's reference is the host path, compiled
 * here as NAME__ch_reference; the trace unit defines NAME, which calls it. */
static int reference_object(ch_build *b, const ch_outcome *o, const char *tmp, const char *obj_path,
                            ch_error *err)
{
    const ch_entry *e = o->entry;
    ch_strbuf src, args;
    ch_strbuf_init(&src);
    ch_strbuf_init(&args);
    ch_entry_call_args(e, &args);
    /* the same private names as in a kernel unit, made local by the merge */
    ch_strbuf_addf(&src, "#define %s_reference %s__ch_reference\n", e->name, e->name);
    ch_strbuf_adds(&src, o->host_src);
    char *host = ch_emit_host_bridge_name(e);
    char *sig = ch_emit_signature_as(e, host);
    ch_strbuf_addf(&src,
                   "\n/* ch-cc: the host path of %s (no verified kernel), called by the trace "
                   "unit */\n%s;\n%s\n{\n    %s_reference(%s);\n}\n",
                   e->name, sig, sig, e->name, args.data);
    free(sig);
    free(host);
    char *c = ch_xasprintf("%s/%s_host.c", tmp, e->name);
    int rc = ch_write_file_atomic(c, src.data, src.len, 0, err);
    char *argv[] = {b->s.ref_cc.items[0], "-O2", NULL};
    if (rc == 0 && ch_emit_compile(argv, c, obj_path, NULL, err) != 0)
        rc = ch_error_prefix(err, "%s: the reference does not compile", e->name);
    ch_strbuf why;
    ch_strbuf_init(&why);
    /* the reference becomes the user's function: judged as compiled, like a candidate */
    if (rc == 0 && ch_object_check_as(obj_path, CH_OBJECT_REFERENCE, NULL, 0, &why) != 0)
        rc = ch_error_set(err, "%s: the test author's reference is refused: %s", e->name, why.data);
    ch_strbuf_free(&why);
    free(c);
    ch_strbuf_free(&src);
    ch_strbuf_free(&args);
    return rc;
}

/* ---- one annotated input ---- */

/* Host-path notes come once per entry, not on every warm rebuild: the note of an entry is
 * marked in the cache directory (notes/KEY), and a cache hit whose entry is marked says
 * nothing. An outcome made now (a miss: the function, its flags or the toolchain changed, or
 * the cache was cleaned) is always reported. Returns nonzero when the note is to be printed. */
static int host_note_is_new(ch_build *b, const ch_outcome *o)
{
    if (!b->s.cache)
        return 1;
    int from_cache = o->hit.key[0] != '\0';
    char *dir = ch_path_join(ch_cache_dir(b->s.cache), "notes");
    char *mark = ch_path_join(dir, o->key);
    int is_new = !from_cache || !ch_file_exists(mark);
    ch_error err;
    if (is_new && ch_mkdir_p(dir, &err) == 0)
        ch_write_file_atomic(mark, "", 0, 0, &err); /* best effort: a note too many at worst */
    free(mark);
    free(dir);
    return is_new;
}

static void report_outcome(ch_build *b, const ch_outcome *o)
{
    const ch_entry *e = o->entry;
    if (!o->kernel_src) {
        if (b->s.quiet || !host_note_is_new(b, o))
            return;
        /* a reason located in the user's file (a refusal names the loop) is reported there,
         * as compilers report a note's place, rather than at the pragma */
        const char *reason = o->reason ? o->reason : "no verified kernel";
        unsigned line = e->line, col = e->col;
        size_t fl = strlen(e->file);
        int used = 0;
        if (strncmp(reason, e->file, fl) == 0 &&
            sscanf(reason + fl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0)
            reason += fl + (size_t)used;
        else
            line = e->line, col = e->col;
        fprintf(stderr, "%s:%u:%u: warning: %s: host path linked: %s [ch-cc]\n", e->file, line, col,
                e->name, reason);
        return;
    }
    if (o->cached || b->s.quiet)
        return;
    fprintf(stderr, "ch-cc: %s: verified kernel linked (%s", e->name,
            o->design ? o->design : "candidate");
    if (o->launcher_ms >= 0)
        fprintf(stderr, "; %.3f ms per call at the tune size", o->launcher_ms);
    if (o->fraction > 0)
        fprintf(stderr, ", %.0f%% of the memory floor", 100.0 * o->fraction);
    fprintf(stderr, "; %d candidate%s in %.1f s)\n", o->candidates, o->candidates == 1 ? "" : "s",
            o->seconds);
}

/* Entries whose outcome makes the object define them elsewhere than in the user's code. */
static int links_unit(const ch_outcome *o)
{
    return o->kernel_src || (o->host_src && !o->entry->has_body);
}

/* The trace unit of the entries that got no kernel (harness_trace.c), added to objs, and the
 * symbols it joins to the user's object to local. Returns the exit status. */
static int trace_unit(ch_build *b, const ch_outcome *out, size_t n, int c_linkage, const char *tmp,
                      ch_strvec *objs, ch_strvec *local)
{
    ch_emit_traced *t = ch_xcalloc(n + 1, sizeof *t);
    size_t n_traced = 0;
    for (size_t i = 0; i < n; i++) {
        const ch_entry *e = out[i].entry;
        if (out[i].kernel_src || (!e->has_body && !out[i].host_src))
            continue;
        t[n_traced++] =
            (ch_emit_traced){e, ch_fallback_name(out[i].fallback), out[i].reason, !e->has_body};
        if (e->has_body) /* a reference's object has added them already */
            ch_emit_private_symbols(e, local);
    }
    int status = 0;
    if (n_traced) {
        ch_error err;
        /* not an identifier: no entry's own object (NAME.o) has this name */
        char *o = ch_path_join(tmp, "trace-unit.o");
        if (ch_harness_trace_object(b->d, t[0].entry->file, t, n_traced, c_linkage, tmp, o, &err) !=
            0) {
            ch_driver_report(&err);
            status = 1;
        }
        ch_strvec_push_owned(objs, o);
    }
    free(t);
    return status;
}

/* Builds obj_path for one annotated input. Returns the exit status. */
static int annotated_object(ch_build *b, const ch_input *in, const char *user_obj,
                            const char *obj_path)
{
    ch_driver *d = b->d;
    ch_args *a = &d->args;
    ch_error err;
    ch_error_clear(&err);
    char *text;
    size_t len;
    if (ch_read_file(in->path, &text, &len, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    /* the file is read once and its pragma lines located once: the grammar check, the scan and
     * the host copy share them */
    ch_pragma_loc *pragmas = NULL;
    ch_scan_source src = {text, len, NULL, 0};
    ch_pragma_find(text, len, &pragmas, &src.n_pragmas);
    src.pragmas = pragmas;
    ch_entry_list entries;
    ch_entry_list_init(&entries);
    ch_lang lang = in->lang == CH_LANG_CU || in->lang == CH_LANG_CXX ? in->lang : CH_LANG_C;
    /* the grammar first (cheap, exact places), then libclang: an annotation that attaches to no
     * function, a bad type or an extent that cannot be inferred fails the compile too */
    if (check_pragmas(in->path, &src, &err) != 0 ||
        ((src.n_pragmas > 0 || strstr(text, "HARNESS(")) &&
         ch_session_scan(&b->s, in->path, lang, &src, &entries, &err) != 0)) {
        ch_driver_report(&err);
        ch_entry_list_free(&entries);
        free(pragmas);
        free(text);
        return 1;
    }
    int object = a->compile_only || (!a->syntax_only && !a->assemble_only);
    ch_outcome *out = ch_xcalloc(entries.len + 1, sizeof *out);
    const ch_entry **renamed = ch_xcalloc(entries.len + 1, sizeof *renamed);
    size_t n_renamed = 0;
    int status = 0, on_fail_error = strcmp(ch_config_get(&d->cfg, "on_fail"), "error") == 0;
    for (size_t i = 0; i < entries.len && object && status == 0; i++) {
        const ch_entry *e = &entries.items[i];
        int served = ch_session_entry(&b->s, e, in->path, &out[i], &err);
        ch_driver_session_warnings(&b->s);
        if (served != 0) {
            ch_driver_report(&err);
            status = 1;
            break;
        }
        if (!out[i].kernel_src && !out[i].host_src && !e->has_body) {
            fprintf(stderr,
                    "%s:%u:%u: error: %s has only a specification and no kernel or "
                    "reference could be made for it: %s\n",
                    e->file, e->line, e->col, e->name, out[i].reason ? out[i].reason : "?");
            status = 1;
        } else if (!out[i].kernel_src && on_fail_error) {
            fprintf(stderr,
                    "%s:%u:%u: error: %s: no verified kernel (--harness-on-fail=error): "
                    "%s\n",
                    e->file, e->line, e->col, e->name, out[i].reason ? out[i].reason : "?");
            status = 1;
        } else {
            report_outcome(b, &out[i]);
        }
        /* every body is renamed: a kernel's dispatcher or the trace unit takes its name */
        if (e->has_body)
            renamed[n_renamed++] = e;
    }
    char *tmp = status == 0 ? ch_make_temp_dir("obj", &err) : NULL;
    if (status == 0 && !tmp) {
        ch_driver_report(&err);
        status = 1;
    }
    /* the user's code: pragmas blanked, entries renamed to their host names */
    size_t host_len = 0;
    char *host = status == 0 ? ch_emit_host_source_at(text, len, pragmas, src.n_pragmas, renamed,
                                                      n_renamed, lang == CH_LANG_C, &host_len)
                             : NULL;
    char *copy = host ? write_copy(tmp, in->path, host, host_len, &err) : NULL;
    if (status == 0 && !copy) {
        ch_driver_report(&err);
        status = 1;
    }
    ch_strvec objs;
    ch_strvec_init(&objs);
    ch_strvec local;
    ch_strvec_init(&local);
    int units = 0;
    if (status == 0) {
        char *host_obj = object ? ch_path_join(tmp, "host.o") : ch_xstrdup(obj_path);
        status = compile_copy(d, in, copy, user_obj, host_obj);
        ch_strvec_push_owned(&objs, host_obj);
    }
    for (size_t i = 0; i < entries.len && status == 0 && object; i++) {
        if (!links_unit(&out[i]))
            continue;
        const ch_entry *e = out[i].entry;
        char *o = ch_xasprintf("%s/%s.o", tmp, e->name);
        int rc = out[i].kernel_src
                     ? ch_session_object(&b->s, &out[i], lang == CH_LANG_C, tmp, o, &err)
                     : reference_object(b, &out[i], tmp, o, &err);
        ch_driver_session_warnings(&b->s);
        if (rc == 0) {
            char *exported =
                out[i].kernel_src ? ch_emit_dispatch_name(e) : ch_emit_host_bridge_name(e);
            rc = ch_emit_privatize(o, exported, &err);
            free(exported);
        }
        if (rc != 0) {
            ch_error_prefix(&err, "%s", e->name);
            ch_driver_report(&err);
            status = 1;
        }
        ch_strvec_push_owned(&objs, o);
        ch_emit_private_symbols(e, &local);
        units++;
    }
    if (status == 0 && object)
        status = trace_unit(b, out, entries.len, lang == CH_LANG_C, tmp, &objs, &local);
    if (status == 0 && object &&
        ch_emit_merge((const char *const *)objs.items, objs.len, local.items, obj_path, &err) !=
            0) {
        ch_driver_report(&err);
        status = 1;
    }
    ch_strvec_free(&objs);
    ch_strvec_free(&local);
    if (tmp)
        ch_remove_tree(tmp, &err);
    free(tmp);
    free(copy);
    free(host);
    free(b->page);
    free(b->page_name);
    b->page = b->page_name = NULL;
    if (status == 0) /* the report page after the build, when report_dir asks for it */
        b->page = ch_admin_report_build(d, b->s.cache, &entries, text, b->s.archs.items, in->path,
                                        &b->page_name);
    for (size_t i = 0; i < entries.len; i++)
        ch_outcome_free(&out[i]);
    free(out);
    free(renamed);
    ch_entry_list_free(&entries);
    free(pragmas);
    free(text);
    return status;
}

/* ---- the command ---- */

/* The real compiler on the command's inputs except the annotated ones (-c with several inputs). */
static int compile_others(ch_driver *d, const int *annotated)
{
    ch_args *a = &d->args;
    int others = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        others += !annotated[i];
    if (!others)
        return 0;
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return 1;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push_owned(&argv, compiler);
    for (size_t i = 0; i < a->expanded.len; i++) {
        int skip = 0;
        for (size_t k = 0; k < a->n_inputs; k++)
            skip |= annotated[k] && a->inputs[k].argi == i;
        if (!skip)
            ch_strvec_push(&argv, a->expanded.items[i]);
    }
    int status = ch_driver_spawn(argv.items);
    ch_strvec_free(&argv);
    return status;
}

/* Compile and link in one command: annotated inputs become temporary objects, then the real
 * compiler links everything, with the CUDA runtime when a kernel was linked. */
static int compile_and_link(ch_build *b, const int *annotated)
{
    ch_driver *d = b->d;
    ch_args *a = &d->args;
    ch_error err;
    char *tmp = ch_make_temp_dir("link", &err);
    if (!tmp) {
        ch_driver_report(&err);
        return 1;
    }
    char **objs = ch_xcalloc(a->n_inputs + 1, sizeof *objs);
    int status = 0, device = 0;
    for (size_t i = 0; i < a->n_inputs && status == 0; i++) {
        if (!annotated[i])
            continue;
        char *base = default_object(&a->inputs[i]);
        objs[i] = ch_xasprintf("%s/%zu-%s", tmp, i, base);
        status = annotated_object(b, &a->inputs[i], base, objs[i]);
        device |= status == 0 &&
                  ch_file_contains(objs[i], CH_LINK_DEVICE_SECTION, strlen(CH_LINK_DEVICE_SECTION));
        free(base);
    }
    if (status == 0) {
        char *compiler = ch_driver_compiler(d, &err);
        ch_strvec argv;
        ch_strvec_init(&argv);
        ch_strvec_push_owned(&argv, compiler ? compiler : ch_xstrdup("cc"));
        for (size_t i = 0; i < a->expanded.len; i++) {
            const char *arg = a->expanded.items[i];
            for (size_t k = 0; k < a->n_inputs; k++)
                if (objs[k] && a->inputs[k].argi == i)
                    arg = objs[k];
            ch_strvec_push(&argv, arg);
        }
        if (device && d->personality != CH_REAL_NVCC)
            ch_link_cuda_runtime_flags(b->s.nvcc, &argv);
        else if (device) /* nvcc adds the CUDA runtime, not the trusted one */
            ch_emit_runtime_nvcc_link_args(&argv);
        status = ch_driver_spawn(argv.items);
        ch_strvec_free(&argv);
    }
    for (size_t i = 0; i < a->n_inputs; i++)
        free(objs[i]);
    free(objs);
    ch_remove_tree(tmp, &err);
    free(tmp);
    return status;
}

int ch_harness_compile(ch_driver *d, const int *annotated)
{
    /* before anything is read: a file modified after this may not be recorded (direct.c) */
    long long started = (long long)time(NULL);
    long direct = ch_direct_input(d, annotated);
    ch_args *a = &d->args;
    size_t n_annotated = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        n_annotated += annotated[i] != 0;
    int compiles = a->compile_only || a->syntax_only || a->assemble_only;
    if (compiles && a->output && a->n_inputs > 1) {
        ch_driver_report(&(ch_error){0, "cannot specify -o with -c, -S or -fsyntax-only and "
                                        "several input files"});
        return 1;
    }
    for (size_t i = 0; a->output && i < a->n_inputs; i++)
        if (ch_same_file(a->inputs[i].path, a->output)) {
            /* gcc's refusal: the real compiler sees only copies, so it cannot say it here */
            fprintf(stderr, "ch-cc: error: input file '%s' is the same as output file\n",
                    a->inputs[i].path);
            return 1;
        }
    /* stricter than gcc, which writes a -MF naming the source over it: a source is never an
     * output of its own build */
    for (size_t i = 0; a->dep_mf && i < a->n_inputs; i++)
        if (ch_same_file(a->inputs[i].path, a->dep_mf)) {
            fprintf(stderr,
                    "ch-cc: error: input file '%s' is the same as the dependency file (-MF)\n",
                    a->inputs[i].path);
            return 1;
        }
    ch_build b = {d, {0}, NULL, NULL};
    ch_driver_session_open(d, &b.s);
    int status = 0;
    if (!compiles) {
        status = compile_and_link(&b, annotated);
    } else {
        status = compile_others(d, annotated);
        for (size_t i = 0; i < a->n_inputs && status == 0; i++) {
            if (!annotated[i])
                continue;
            char *obj = a->output ? ch_xstrdup(a->output)
                                  : ch_path_with_suffix(ch_path_base(a->inputs[i].path),
                                                        a->assemble_only ? ".s" : ".o");
            status = annotated_object(&b, &a->inputs[i], obj, obj);
            if (status == 0 && direct == (long)i)
                ch_direct_record(d, i, obj, started, b.page, b.page_name);
            free(obj);
        }
    }
    ch_driver_session_close(&b.s);
    free(b.page);
    free(b.page_name);
    return status;
}
