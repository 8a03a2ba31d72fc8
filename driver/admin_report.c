/* --harness-explain NAME|KEY|PREFIX [FILE] and --harness-report[=DIR] [options] FILE...: what
 * each entry became, as text or as a static HTML page (src/pipeline/page.c keys the entries
 * and reads the cache, src/report renders). The page is also written after a build when the
 * report_dir setting names a directory (ch_admin_report_build). This file resolves what the
 * user names and prints. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cache.h"
#include "ch/fsutil.h"
#include "ch/page.h"
#include "ch/pipeline.h"
#include "ch/report.h"
#include "driver.h"

/* ---- explain ---- */

static int all_hex(const char *s)
{
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
            return 0;
    return 1;
}

/* The key of the entry called name in file (as the build computes it). */
static int key_in_file(ch_driver *d, const ch_input *in, const char *name, char key[33],
                       ch_error *err)
{
    ch_entry_list l;
    ch_entry_list_init(&l);
    const ch_entry *e;
    /* the build's session: the same scan arguments and target rule give the same key */
    ch_session s;
    ch_driver_session_open(d, &s);
    int rc = ch_session_scan_named(&s, in->path, in->lang, name, 1, &l, &e, err);
    if (rc == 0)
        rc = ch_session_key(&s, e, key, err);
    ch_driver_session_close(&s);
    ch_entry_list_free(&l);
    return rc;
}

/* Every key of the cache (caller frees the vector). */
static int cache_keys(ch_cache *c, ch_strvec *keys, ch_error *err)
{
    ch_cache_info *list;
    size_t n;
    if (ch_cache_list(c, &list, &n, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        ch_strvec_push(keys, list[i].key);
    free(list);
    return 0;
}

/* The newest entry whose meta name is name; *others: how many older ones share it. */
static int key_by_name(ch_cache *c, const ch_strvec *keys, const char *name, char key[33],
                       size_t *others)
{
    long long newest = -1;
    *others = 0;
    for (size_t i = 0; i < keys->len; i++) {
        ch_cache_hit hit;
        ch_error err;
        if (ch_cache_peek(c, keys->items[i], &hit, &err) != 1)
            continue;
        const char *n = ch_cache_hit_meta(&hit, "name");
        if (n && strcmp(n, name) == 0) {
            if (newest >= 0)
                (*others)++;
            if (hit.created > newest) {
                newest = hit.created;
                snprintf(key, 33, "%s", keys->items[i]);
            }
        }
        ch_cache_hit_free(&hit);
    }
    return newest >= 0;
}

/* NAME|KEY|PREFIX [FILE] to a key; -1 with err (an ambiguous prefix lists its matches). */
static int resolve(ch_driver *d, ch_cache *c, const char *what, const ch_input *file, char key[33],
                   ch_error *err)
{
    if (file)
        return key_in_file(d, file, what, key, err);
    if (ch_cache_key_valid(what)) {
        snprintf(key, 33, "%s", what);
        return 0;
    }
    ch_strvec keys;
    ch_strvec_init(&keys);
    int rc = cache_keys(c, &keys, err);
    const char *match = NULL;
    size_t n =
        rc == 0 && all_hex(what) ? ch_report_match_prefix(keys.items, keys.len, what, &match) : 0;
    size_t others = 0;
    if (rc != 0) {
        /* err set */
    } else if (n == 1) {
        snprintf(key, 33, "%s", match);
    } else if (n > 1) {
        ch_strbuf list;
        ch_strbuf_init(&list);
        for (size_t i = 0; i < keys.len; i++)
            if (strncmp(keys.items[i], what, strlen(what)) == 0)
                ch_strbuf_addf(&list, "\n  %s", keys.items[i]);
        rc = ch_error_set(err, "key prefix '%s' is ambiguous: %zu cache entries match:%s", what, n,
                          list.data ? list.data : "");
        ch_strbuf_free(&list);
    } else if (key_by_name(c, &keys, what, key, &others)) {
        if (others)
            ch_driver_warn("%zu older cache entr%s also named %s; showing the newest (give the "
                           "source file to choose: --harness-explain %s FILE)",
                           others, others == 1 ? "y is" : "ies are", what, what);
    } else {
        rc = ch_error_set(err,
                          "no cache entry has the key, key prefix or function name '%s' in %s "
                          "(build the file first, or give it: --harness-explain %s FILE)",
                          what, ch_cache_dir(c), what);
    }
    ch_strvec_free(&keys);
    return rc;
}

static int explain_key(ch_cache *c, const char *key, ch_error *err)
{
    ch_cache_hit hit;
    int rc = ch_cache_peek(c, key, &hit, err);
    if (rc <= 0) {
        if (rc == 0)
            ch_error_set(err, "no cache entry %s in %s (the entry has not been built yet)", key,
                         ch_cache_dir(c));
        return -1;
    }
    cJSON *report = ch_page_entry_report(&hit);
    char when[64];
    ch_page_created_text(&hit, when, sizeof when);
    ch_strbuf out;
    ch_strbuf_init(&out);
    /* an entry present without a status meta is not "absent" */
    const char *status = ch_cache_hit_meta(&hit, "status");
    ch_report_explain_text(
        report, key, status ? status : ch_entry_status_name(CH_STATUS_UNRECORDED), when, &out);
    ch_strbuf_adds(&out, "files\n");
    for (size_t i = 0; i < hit.n_files; i++)
        ch_strbuf_addf(&out, "  %-40s %zu\n", hit.files[i].name, hit.files[i].len);
    /* a spec-only entry's reference is what the words were read as: the user checks it here */
    const ch_cache_file *ref = ch_cache_hit_file(&hit, "reference.c");
    if (ref)
        ch_strbuf_addf(&out, "reference\n%.*s", (int)ref->len, (const char *)ref->data);
    fputs(out.data, stdout);
    ch_strbuf_free(&out);
    cJSON_Delete(report);
    ch_cache_hit_free(&hit);
    return 0;
}

int ch_admin_explain(ch_driver *d, const char *what)
{
    ch_error err;
    ch_error_clear(&err);
    const ch_input *file = NULL;
    for (size_t i = 0; i < d->args.n_inputs; i++) {
        const ch_input *in = &d->args.inputs[i];
        if (in->path != what &&
            (in->lang == CH_LANG_C || in->lang == CH_LANG_CU || in->lang == CH_LANG_CXX))
            file = in;
    }
    if (!what || !*what) {
        ch_error_set(&err, "--harness-explain needs a function name, a cache key or a key "
                           "prefix: --harness-explain NAME [FILE]");
        ch_driver_report(&err);
        return 1;
    }
    ch_cache *c;
    if (ch_cache_open(&c, &d->cfg, &err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    char key[33];
    int rc = resolve(d, c, what, file, key, &err);
    if (rc == 0)
        rc = explain_key(c, key, &err);
    if (rc != 0)
        ch_driver_report(&err);
    ch_cache_close(c);
    return rc == 0 ? 0 : 1;
}

/* ---- the page ---- */

int ch_admin_report(ch_driver *d, const char *dir)
{
    ch_error err;
    ch_error_clear(&err);
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_strvec texts, names;
    ch_strvec_init(&texts);
    ch_strvec_init(&names);
    /* the build's session: its scan arguments and target rule give the build's keys */
    ch_session session;
    ch_driver_session_open(d, &session);
    int rc = 0;
    for (size_t i = 0; i < d->args.n_inputs && rc == 0; i++) {
        const ch_input *in = &d->args.inputs[i];
        size_t before = l.len;
        char *text = NULL;
        size_t len = 0;
        rc = ch_read_file(in->path, &text, &len, &err);
        /* the file is read once: the scan parses the text the page quotes */
        ch_scan_source src = {text, len, NULL, 0};
        if (rc == 0)
            rc = ch_session_scan(&session, in->path, in->lang, &src, &l, &err);
        for (size_t k = before; rc == 0 && k < l.len; k++)
            ch_strvec_push(&texts, text);
        free(text);
        ch_strvec_push(&names, in->path);
    }
    if (rc == 0 && d->args.n_inputs == 0)
        rc = ch_error_set(&err, "--harness-report needs the annotated source files: "
                                "--harness-report[=DIR] [options] FILE...");
    if (rc == 0 && !session.cache)
        ch_driver_warn("the kernel cache cannot be opened (%s): every entry shows as absent",
                       session.cache_err.msg);
    char *path = NULL;
    if (rc == 0) {
        ch_strbuf joined;
        ch_strbuf_init(&joined);
        for (size_t i = 0; i < names.len; i++)
            ch_strbuf_addf(&joined, "%s%s", i ? " " : "", names.items[i]);
        ch_page_opts page = {&l, texts.items, dir && *dir ? dir : "ch-cc-report", joined.data};
        rc = ch_session_page(&session, &page, &path, NULL, &err);
        ch_strbuf_free(&joined);
    }
    ch_driver_session_close(&session);
    if (rc == 0)
        printf("report: %s (%zu entr%s)\n", path, l.len, l.len == 1 ? "y" : "ies");
    else
        ch_driver_report(&err);
    free(path);
    ch_strvec_free(&texts);
    ch_strvec_free(&names);
    ch_entry_list_free(&l);
    return rc == 0 ? 0 : 1;
}

char *ch_admin_report_build(ch_driver *d, ch_session *s, const ch_entry_list *l, const char *text,
                            const char *file, char **name)
{
    const char *dir = ch_config_get(&d->cfg, "report_dir");
    *name = NULL;
    if (!dir || !*dir || l->len == 0)
        return NULL;
    char **texts = ch_xcalloc(l->len + 1, sizeof *texts);
    for (size_t i = 0; i < l->len; i++)
        texts[i] = (char *)text;
    char *path = NULL, *html = NULL;
    ch_error err;
    ch_page_opts page = {l, texts, dir, file};
    if (ch_session_page(s, &page, &path, &html, &err) != 0)
        ch_driver_warn("the report page was not written: %s", err.msg);
    else
        *name = ch_xstrdup(ch_path_base(path));
    free(path);
    free(texts);
    return html;
}
