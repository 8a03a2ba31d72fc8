/* A spec-only entry seen through the reference the spec reader wrote for it: the same entry
 * with that reference as its body, scanned like the user's own code, so that the builtin's
 * translator turns it into kernels (verified against the same reference). */
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/scan.h"
#include "ch/spec_reader.h"
#include "ch/strbuf.h"

/* The spec as a C string literal's contents. */
static void add_escaped(ch_strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            ch_strbuf_addc(sb, '\\');
        ch_strbuf_addc(sb, *s == '\n' ? ' ' : *s);
    }
}

/* The reference file with the pragma before its definition and the definition called NAME. */
static char *annotated_source(const ch_entry *e, const char *reference_c, ch_error *err)
{
    char *call = ch_xasprintf("%s_reference(", e->name);
    const char *at = strstr(reference_c, call);
    free(call);
    if (!at) {
        ch_error_set(err, "%s: the reference defines no %s_reference", e->name, e->name);
        return NULL;
    }
    const char *line = at;
    while (line > reference_c && line[-1] != '\n')
        line--;
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_add(&sb, reference_c, (size_t)(line - reference_c));
    ch_strbuf_adds(&sb, "#pragma harness \"");
    add_escaped(&sb, e->spec ? e->spec : "");
    ch_strbuf_addf(&sb, "\" %s\n", e->clauses_text ? e->clauses_text : "");
    ch_strbuf_add(&sb, line, (size_t)(at - line));
    ch_strbuf_addf(&sb, "%s(%s", e->name, at + strlen(e->name) + strlen("_reference("));
    return ch_strbuf_detach(&sb);
}

int ch_spec_reference_entry(const ch_entry *e, const char *reference_c, ch_entry_list *out,
                            ch_error *err)
{
    char *src = annotated_source(e, reference_c, err);
    if (!src)
        return -1;
    char *dir = ch_make_temp_dir("specref", err);
    int rc = -1;
    if (dir) {
        char *path = ch_path_join(dir, "reference.c");
        size_t before = out->len;
        rc = ch_write_file_atomic(path, src, strlen(src), 0, err);
        if (rc == 0)
            rc = ch_scan_file(path, e->is_cuda ? CH_LANG_CU : CH_LANG_C, NULL, out, err);
        if (rc == 0 && out->len != before + 1)
            rc = ch_error_set(err, "%s: the reference holds %zu annotated functions", e->name,
                              out->len - before);
        ch_error keep;
        ch_remove_tree(dir, &keep);
        free(path);
        free(dir);
    }
    free(src);
    return rc;
}
