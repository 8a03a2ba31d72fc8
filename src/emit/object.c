/* Emit, the object half (ch/emit.h): the host copy of the user's file, the nvcc compile of a
 * generated unit, and the `ld -r` merge that makes one object of both, as `-c -o foo.o`
 * promises. */
#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/output.h"
#include "ch/proc.h"
#include "ch/scan.h"

char *ch_emit_signature_as(const ch_entry *e, const char *name)
{
    const char *sig = e->signature;
    size_t nl = strlen(e->name);
    /* the name as a whole word before its parameter list (a function `v` in "void v(int n)") */
    const char *at = strstr(sig, e->name);
    while (at && ((at > sig && (isalnum((unsigned char)at[-1]) || at[-1] == '_')) ||
                  (at[nl] != '(' && at[nl] != ' ')))
        at = strstr(at + 1, e->name);
    assert(at); /* the signature is built from the name */
    return ch_xasprintf("%.*s%s%s", (int)(at - sig), sig, name, at + nl);
}

/* The canonical signature with the function's name replaced by NAME<suffix>, without `;`. */
static char *renamed_signature(const ch_entry *e, const char *suffix)
{
    char *name = ch_xasprintf("%s%s", e->name, suffix);
    char *sig = ch_emit_signature_as(e, name);
    free(name);
    return sig;
}

/* A prototype of NAME__host (the renamed body): `static` when the user's function is, since a
 * static definition may not follow a declaration with external linkage. */
static char *host_prototype(const ch_entry *e)
{
    char *sig = renamed_signature(e, "__host");
    char *proto = ch_xasprintf("%s%s;", e->is_static ? "static " : "", sig);
    free(sig);
    return proto;
}

/* What follows the body of a renamed definition, on the body's last line (so line numbers stay
 * the user's).
 * - External function: a declaration of NAME, so later calls in the file reach the dispatcher.
 * - Static function: the dispatcher in the kernel's unit can neither call NAME__host nor replace
 *   NAME (both are local to this file), so the file gets two bridges: NAME__ch_host, an external
 *   function calling the host path, and NAME itself, a static wrapper calling the unit's
 *   external dispatcher NAME__ch_dispatch. Both bridges are made local again by the merge, so
 *   two files with a static function of one name still link. They have C linkage in C++ files
 *   too: the merge localizes them by their plain names. */
static char *after_body(const ch_entry *e, int c_linkage)
{
    if (!e->is_static)
        return ch_xasprintf(" %s;", e->signature);
    const char *linkage = c_linkage ? "" : "extern \"C\" ";
    char *bridge = renamed_signature(e, "__ch_host");
    char *dispatch = renamed_signature(e, "__ch_dispatch");
    ch_strbuf args, out;
    ch_strbuf_init(&args);
    ch_strbuf_init(&out);
    ch_entry_call_args(e, &args);
    ch_strbuf_addf(&out, " %s%s; %s%s { %s__host(%s); }", linkage, bridge, linkage, bridge, e->name,
                   args.data);
    ch_strbuf_addf(&out, " %s%s; static %s { %s__ch_dispatch(%s); }", linkage, dispatch,
                   e->signature, e->name, args.data);
    free(bridge);
    free(dispatch);
    ch_strbuf_free(&args);
    return ch_strbuf_detach(&out);
}

typedef struct edit {
    size_t at, drop; /* replace text[at, at+drop) */
    char *with;      /* owned */
} edit;

static int by_at(const void *a, const void *b)
{
    const edit *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Where the pragma of e sits in text: its line's first byte and the line's length (up to the
 * newline; a continued pragma keeps its other lines, which are blank). */
static int pragma_line(const char *text, size_t len, const ch_entry *e, size_t *at, size_t *n)
{
    size_t pos = 0;
    for (unsigned line = 1; line < e->line && pos < len; pos++)
        if (text[pos] == '\n')
            line++;
    if (pos >= len)
        return -1;
    size_t end = pos;
    while (end < len && text[end] != '\n')
        end++;
    *at = pos;
    *n = end - pos;
    return 0;
}

char *ch_emit_host_source(const char *text, size_t len, const ch_entry *const *entries, size_t n,
                          int c_linkage, size_t *out_len)
{
    ch_pragma_loc *pragmas;
    size_t n_pragmas;
    ch_pragma_find(text, len, &pragmas, &n_pragmas);
    char *host =
        ch_emit_host_source_at(text, len, pragmas, n_pragmas, entries, n, c_linkage, out_len);
    free(pragmas);
    return host;
}

char *ch_emit_host_source_at(const char *text, size_t len, const ch_pragma_loc *pragmas,
                             size_t n_pragmas, const ch_entry *const *entries, size_t n,
                             int c_linkage, size_t *out_len)
{
    char *blank = ch_scan_blank_at(text, len, pragmas, n_pragmas);
    edit *edits = ch_xcalloc(3 * n + 1, sizeof *edits);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        const ch_entry *e = entries[i];
        size_t nl = strlen(e->name);
        if (!e->has_body || e->name_offset + nl > len ||
            memcmp(blank + e->name_offset, e->name, nl) != 0)
            continue;
        edits[ne++] = (edit){e->name_offset, nl, ch_xasprintf("%s__host", e->name)};
        size_t at, line_len;
        char *proto = host_prototype(e);
        /* the pragma's line is blank now; the attribute form has none and gets no prototype */
        if (proto && pragma_line(blank, len, e, &at, &line_len) == 0 &&
            strspn(blank + at, " \t") >= line_len && at < e->name_offset)
            edits[ne++] = (edit){at, line_len, proto};
        else
            free(proto);
        if (e->body_end <= len)
            edits[ne++] = (edit){e->body_end, 0, after_body(e, c_linkage)};
    }
    qsort(edits, ne, sizeof *edits, by_at);
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t pos = 0;
    for (size_t i = 0; i < ne; i++) {
        if (edits[i].at >= pos) {
            ch_strbuf_add(&out, blank + pos, edits[i].at - pos);
            ch_strbuf_adds(&out, edits[i].with);
            pos = edits[i].at + edits[i].drop;
        }
        free(edits[i].with);
    }
    ch_strbuf_add(&out, blank + pos, len - pos);
    free(edits);
    free(blank);
    if (out_len)
        *out_len = out.len;
    return ch_strbuf_detach(&out);
}

/* The first lines of a tool's output, for a one-line error. */
static void first_line(const char *log, char *buf, size_t cap)
{
    const char *p = log ? log : "";
    while (*p == '\n')
        p++;
    size_t n = strcspn(p, "\n");
    snprintf(buf, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), p);
}

static int run_tool(char *const *argv, ch_strbuf *log, ch_error *err)
{
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.capture_stdout = 1;
    po.merge_stderr = 1;
    po.stdin_path = "/dev/null";
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    int rc = ch_proc_run(argv, &po, &pr, err);
    if (rc == 0) {
        if (log)
            ch_strbuf_add(log, pr.out.data, pr.out.len);
        if (pr.exit_code != 0) {
            char line[512];
            first_line(pr.out.data, line, sizeof line);
            rc = ch_error_set(err, "%s failed (exit %d): %s", argv[0], pr.exit_code, line);
        }
    }
    ch_proc_result_free(&pr);
    return rc;
}

int ch_emit_compile(char *const *compiler_argv, const char *src_path, const char *obj_path,
                    ch_strbuf *log, ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    for (char *const *a = compiler_argv; *a; a++)
        ch_strvec_push(&argv, *a);
    ch_strvec_push(&argv, "-c");
    ch_strvec_push(&argv, src_path);
    ch_strvec_push(&argv, "-o");
    ch_strvec_push(&argv, obj_path);
    int rc = run_tool(argv.items, log, err);
    ch_strvec_free(&argv);
    return rc;
}

/* Whether sym is how a compiler names the top-level function name: plainly (C linkage) or
 * Itanium-mangled (`_Z5saxpyifPKfPf`, C++ linkage). */
static int names_function(const char *sym, const char *name)
{
    if (strcmp(sym, name) == 0)
        return 1;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(name), name);
    return strncmp(sym, prefix, strlen(prefix)) == 0;
}

int ch_emit_privatize(const char *obj, const char *keep, ch_error *err)
{
    char *nm_argv[] = {"nm", "-g", "--defined-only", "--format=posix", (char *)obj, NULL};
    ch_strbuf listing;
    ch_strbuf_init(&listing);
    if (run_tool(nm_argv, &listing, err) != 0) {
        ch_strbuf_free(&listing);
        return -1;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, "objcopy");
    for (char *line = strtok(listing.data, "\n"); line; line = strtok(NULL, "\n")) {
        char *space = strchr(line, ' ');
        if (!space)
            continue;
        *space = '\0';
        if (!names_function(line, keep))
            ch_strvec_push_owned(&argv, ch_xasprintf("--localize-symbol=%s", line));
    }
    int rc = 0;
    if (argv.len > 1) {
        ch_strvec_push(&argv, obj);
        rc = run_tool(argv.items, NULL, err);
    }
    ch_strvec_free(&argv);
    ch_strbuf_free(&listing);
    return rc;
}

int ch_emit_private_names(const char *obj, const ch_entry *e, ch_error *err)
{
    static const char *const roles[] = {"launcher", "device_launcher", "reference", NULL};
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, "objcopy");
    for (size_t i = 0; roles[i]; i++)
        ch_strvec_push_owned(&argv, ch_xasprintf("--redefine-sym=%s_%s=%s__ch_%s", e->name,
                                                 roles[i], e->name, roles[i]));
    ch_strvec_push(&argv, obj);
    int rc = run_tool(argv.items, NULL, err);
    ch_strvec_free(&argv);
    return rc;
}

int ch_emit_merge(const char *const *objs, size_t n, char *const *localize, const char *out,
                  ch_error *err)
{
    /* a temp name unique to this process, then a rename (or a write into a device): two
     * builds of one object never share a temp file, and out is never half-written */
    ch_output dest;
    if (ch_output_begin(&dest, out, err) != 0)
        return -1;
    const char *tmp = dest.tmp;
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, "ld");
    ch_strvec_push(&argv, "-r");
    ch_strvec_push(&argv, "-o");
    ch_strvec_push(&argv, tmp);
    for (size_t i = 0; i < n; i++)
        ch_strvec_push(&argv, objs[i]);
    int rc = run_tool(argv.items, NULL, err);
    ch_strvec_free(&argv);
    if (rc == 0 && localize && *localize) {
        ch_strvec_init(&argv);
        ch_strvec_push(&argv, "objcopy");
        /* each name plainly (C linkage) and Itanium-mangled (a C++ file's NAME__host is
         * _Z11saxpy__hostifPKfPf): names are identifiers, so no other wildcard matches */
        ch_strvec_push(&argv, "--wildcard");
        for (char *const *s = localize; *s; s++) {
            ch_strvec_push_owned(&argv, ch_xasprintf("--localize-symbol=%s", *s));
            ch_strvec_push_owned(&argv, ch_xasprintf("--localize-symbol=_Z%zu%s*", strlen(*s), *s));
        }
        ch_strvec_push(&argv, tmp);
        rc = run_tool(argv.items, NULL, err);
        ch_strvec_free(&argv);
    }
    if (rc != 0) {
        ch_output_abort(&dest);
        return rc;
    }
    return ch_output_commit(&dest, err);
}
