/* The harness path of a compile: an annotated input's pragmas are parsed (bad ones are
 * compile errors at their file:line:col), the pragma lines are blanked (line numbers kept, so
 * -Wall -Werror -Wunknown-pragmas builds stay clean) and that copy is compiled in place of the
 * file, with diagnostics, __FILE__ and depfiles naming the user's file. Kernel generation
 * (scan -> checklist -> verify -> emit) attaches here once the libclang scan lands; until then
 * annotated functions build as host code, which is the documented fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/scan.h"
#include "driver.h"

/* Parses every pragma of the file; the first bad one is the error. *count: pragmas found. */
static int check_pragmas(const char *path, const char *text, size_t len, size_t *count,
                         ch_error *err)
{
    ch_pragma_loc *locs = NULL;
    size_t n = 0;
    ch_pragma_find(text, len, &locs, &n);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        ch_pragma p;
        memset(&p, 0, sizeof p);
        rc = ch_pragma_parse(text + locs[i].body_offset, locs[i].end_offset - locs[i].body_offset,
                             path, locs[i].body_line, locs[i].body_col, &p, err);
        ch_pragma_free(&p);
    }
    free(locs);
    *count = n;
    return rc;
}

/* Writes the blanked copy as DIR/BASENAME, starting with a #line that names the original. */
static char *write_blanked(const char *dir, const char *path, const char *text, size_t len,
                           ch_error *err)
{
    char *blank = ch_scan_blank(text, len);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "#line 1 \"");
    for (const char *p = path; *p; p++) {
        if (*p == '"' || *p == '\\')
            ch_strbuf_addc(&sb, '\\');
        ch_strbuf_addc(&sb, *p);
    }
    ch_strbuf_adds(&sb, "\"\n");
    ch_strbuf_add(&sb, blank, len);
    free(blank);
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

/* path with the extension of its last component replaced by suffix (added when it has none). */
static char *with_suffix(const char *path, const char *suffix)
{
    const char *dot = strrchr(ch_path_base(path), '.');
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    return ch_xasprintf("%.*s%s", (int)stem, path, suffix);
}

static const char *depfile_path(const ch_args *a, const char *input, char **owned)
{
    *owned = NULL;
    if (a->dep_mf)
        return a->dep_mf;
    /* gcc and nvcc: the output's name with .d, else the input's base name with .d */
    *owned = with_suffix(a->output ? a->output : ch_path_base(input), ".d");
    return *owned;
}

/* The command for one annotated input: the user's arguments with the other inputs removed and
 * this input replaced by its blanked copy; output and depfile options stay as the user gave
 * them, except that the depfile's source name is fixed afterwards. */
static int compile_blanked(ch_driver *d, const ch_input *in, const char *copy, const char *dir)
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
    for (size_t i = 0; i < a->expanded.len; i++)
        if (!is_input_index(a, i))
            ch_strvec_push(&argv, a->expanded.items[i]);
    /* quoted includes are searched next to the file: keep that the user's directory */
    ch_strvec_push_owned(&argv,
                         ch_xasprintf(d->personality == CH_REAL_NVCC ? "-I%s" : "-iquote%s", dir));
    /* the object the real compiler would write, and name as the depfile's target */
    char *obj = a->output ? ch_xstrdup(a->output) : with_suffix(ch_path_base(in->path), ".o");
    if (a->dep_md && a->dep_targets.len == 0) {
        ch_strvec_push(&argv, "-MT");
        ch_strvec_push(&argv, obj);
    }
    if (a->compile_only && !a->output) {
        ch_strvec_push(&argv, "-o");
        ch_strvec_push(&argv, obj);
    }
    ch_strvec_push(&argv, copy);
    int status = ch_driver_spawn(argv.items);
    if (status == 0 && a->dep_md) {
        char *owned;
        const char *dep = depfile_path(a, in->path, &owned);
        if (ch_file_exists(dep) && fix_depfile(dep, copy, in->path, &err) != 0) {
            ch_driver_report(&err);
            status = 1;
        }
        free(owned);
    }
    free(obj);
    ch_strvec_free(&argv);
    return status;
}

int ch_harness_compile(ch_driver *d, const int *annotated)
{
    ch_args *a = &d->args;
    ch_error err;
    int n_annotated = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        n_annotated += annotated[i];
    if (a->n_inputs != 1 || n_annotated != 1 || (!a->compile_only && !a->syntax_only)) {
        ch_driver_report(&(ch_error){0, "annotated files must be compiled one per command with "
                                        "-c (compile, then link the objects)"});
        return 1;
    }
    const ch_input *in = &a->inputs[0];
    char *text;
    size_t len;
    if (ch_read_file(in->path, &text, &len, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    size_t count = 0;
    ch_entry_list entries;
    ch_entry_list_init(&entries);
    ch_lang lang = in->lang == CH_LANG_CU || in->lang == CH_LANG_CXX ? in->lang : CH_LANG_C;
    /* the grammar first (cheap, exact places), then libclang: an annotation that attaches to no
     * function, a bad type or an extent that cannot be inferred fails the compile too */
    if (check_pragmas(in->path, text, len, &count, &err) != 0 ||
        (count > 0 && ch_scan_file(in->path, lang, a->scan_args.items, &entries, &err) != 0)) {
        ch_driver_report(&err);
        ch_entry_list_free(&entries);
        free(text);
        return 1;
    }
    if (entries.len > count)
        count = entries.len;
    ch_entry_list_free(&entries);
    char *tmp = ch_make_temp_dir("host", &err);
    char *copy = tmp ? write_blanked(tmp, in->path, text, len, &err) : NULL;
    free(text);
    if (!copy) {
        ch_driver_report(&err);
        if (tmp)
            ch_remove_tree(tmp, &err);
        free(tmp);
        return 1;
    }
    char *dir = ch_path_dir(in->path);
    int status = compile_blanked(d, in, copy, dir);
    int quiet = 0;
    ch_config_bool(&d->cfg, "quiet", &quiet, &err);
    if (status == 0 && count > 0 && !quiet)
        ch_driver_warn("%s: %zu harness entr%s built as host code (kernel generation is not "
                       "available in this build)",
                       in->path, count, count == 1 ? "y" : "ies");
    ch_remove_tree(tmp, &err);
    free(tmp);
    free(copy);
    free(dir);
    return status;
}
