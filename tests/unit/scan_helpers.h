/* Helpers shared by the scan unit tests: write a source file to a fresh temp dir, scan it
 * through libclang, and summarise entries as strings the tests compare exactly. */
#ifndef SCAN_HELPERS_H
#define SCAN_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/scan.h"
#include "ch/strbuf.h"

/* Scans text as a file named name; returns 0 or -1 (err set). The caller frees list. */
static inline int scan_text(const char *name, const char *text, ch_lang lang, ch_entry_list *list,
                            ch_error *err)
{
    ch_error e2;
    char *dir = ch_make_temp_dir("test", &e2);
    cr_assert(dir);
    char *path = ch_path_join(dir, name);
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &e2), 0);
    ch_entry_list_init(list);
    char *inc = ch_xasprintf("-I%s/include", getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".");
    char *args[] = {inc, NULL};
    int rc = ch_scan_file(path, lang, args, list, err);
    /* messages name the temp path: make them relative for golden comparisons */
    if (rc != 0 && strncmp(err->msg, dir, strlen(dir)) == 0)
        memmove(err->msg, err->msg + strlen(dir) + 1, strlen(err->msg + strlen(dir) + 1) + 1);
    ch_remove_tree(dir, &e2);
    free(inc);
    free(path);
    free(dir);
    return rc;
}

/* Scanning src as "t.c" fails with exactly the located error want. */
static inline void expect_scan_error(const char *src, const char *want)
{
    ch_entry_list l;
    ch_error err;
    cr_assert_eq(scan_text("t.c", src, CH_LANG_C, &l, &err), -1, "no error for %s", src);
    cr_expect(err.located);
    cr_expect_str_eq(err.msg, want);
}

/* "name:dir:extent" for every pointer/array param, space-separated ("+idx<hi" for index
 * arrays). */
static inline char *summary(const ch_entry *e)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        ch_strbuf_addf(&sb, "%s%s:%s:%s", sb.len ? " " : "", p->name, ch_dir_name(p->dir),
                       p->extent ? p->extent : "?");
        if (p->is_index)
            ch_strbuf_addf(&sb, "+idx<%s", p->index_hi ? p->index_hi : "?");
    }
    return ch_strbuf_detach(&sb);
}

#endif
