/* --harness-explain's lookup and text (ch/explain.h): names, keys and key prefixes resolved
 * against the session's cache, and the text of one entry read from it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cache.h"
#include "ch/explain.h"
#include "ch/page.h"
#include "ch/report.h"

/* Only lowercase hex can start a key (ch_cache_key_valid's alphabet). */
static int all_lower_hex(const char *s)
{
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
            return 0;
    return 1;
}

/* The session's cache, or -1 with err saying why there is none. */
static int session_cache(const ch_session *s, ch_error *err)
{
    if (s->cache)
        return 0;
    return ch_error_set(err, "the kernel cache cannot be opened: %s", s->cache_err.msg);
}

/* The key of the entry called name in file (as the build computes it). */
static int key_in_file(ch_session *s, const char *file, ch_lang lang, const char *name,
                       char key[33], ch_error *err)
{
    ch_entry_list l;
    ch_entry_list_init(&l);
    const ch_entry *e;
    int rc = ch_session_scan_named(s, file, lang, name, 1, &l, &e, err);
    if (rc == 0)
        rc = ch_session_key(s, e, key, err);
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

/* The newest entry whose meta name is name (1 found, key and older set; 0 none). */
static int key_by_name(ch_cache *c, const ch_strvec *keys, const char *name, ch_explain_found *out)
{
    long long newest = -1;
    out->older = 0;
    for (size_t i = 0; i < keys->len; i++) {
        ch_cache_hit hit;
        ch_error err;
        if (ch_cache_peek(c, keys->items[i], &hit, &err) != 1)
            continue;
        const char *n = ch_cache_hit_meta(&hit, "name");
        if (n && strcmp(n, name) == 0) {
            if (newest >= 0)
                out->older++;
            if (hit.created > newest) {
                newest = hit.created;
                snprintf(out->key, sizeof out->key, "%s", keys->items[i]);
            }
        }
        ch_cache_hit_free(&hit);
    }
    return newest >= 0;
}

/* The error of an ambiguous prefix: every key that starts with it, one a line. */
static int ambiguous(const ch_strvec *keys, const char *prefix, size_t n, ch_error *err)
{
    ch_strbuf list;
    ch_strbuf_init(&list);
    for (size_t i = 0; i < keys->len; i++)
        if (strncmp(keys->items[i], prefix, strlen(prefix)) == 0)
            ch_strbuf_addf(&list, "\n  %s", keys->items[i]);
    ch_error_set(err, "key prefix '%s' is ambiguous: %zu cache entries match (give more digits):%s",
                 prefix, n, list.data ? list.data : "");
    ch_strbuf_free(&list);
    return -1;
}

int ch_session_explain_find(ch_session *s, const char *what, const char *file, ch_lang lang,
                            ch_explain_found *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    if (!what || !*what)
        return ch_error_set(err, "--harness-explain needs a function name, a cache key or a key "
                                 "prefix: --harness-explain NAME [FILE]");
    if (file)
        return key_in_file(s, file, lang, what, out->key, err);
    if (ch_cache_key_valid(what)) {
        snprintf(out->key, sizeof out->key, "%s", what);
        return 0;
    }
    if (session_cache(s, err) != 0)
        return -1;
    ch_strvec keys;
    ch_strvec_init(&keys);
    int rc = cache_keys(s->cache, &keys, err);
    const char *match = NULL;
    size_t n = rc == 0 && all_lower_hex(what)
                   ? ch_report_match_prefix(keys.items, keys.len, what, &match)
                   : 0;
    if (rc != 0) {
        /* err set by the listing */
    } else if (n == 1) {
        snprintf(out->key, sizeof out->key, "%s", match);
    } else if (n > 1) {
        rc = ambiguous(&keys, what, n, err);
    } else if (!key_by_name(s->cache, &keys, what, out)) {
        rc = ch_error_set(err,
                          "no cache entry has the key, key prefix or function name '%s' in %s "
                          "(build the file first, or give it: --harness-explain %s FILE)",
                          what, ch_cache_dir(s->cache), what);
    }
    ch_strvec_free(&keys);
    return rc;
}

int ch_session_explain_text(ch_session *s, const char *key, ch_strbuf *out, ch_error *err)
{
    if (session_cache(s, err) != 0)
        return -1;
    ch_cache_hit hit;
    int rc = ch_cache_peek(s->cache, key, &hit, err);
    if (rc <= 0) {
        if (rc == 0)
            ch_error_set(err, "no cache entry %s in %s (the entry has not been built yet)", key,
                         ch_cache_dir(s->cache));
        return -1;
    }
    cJSON *report = ch_page_entry_report(&hit);
    char when[64];
    ch_page_created_text(&hit, when, sizeof when);
    /* an entry present without a status meta is not "absent" */
    const char *status = ch_cache_hit_meta(&hit, "status");
    ch_report_explain_text(report, key,
                           status ? status : ch_entry_status_name(CH_STATUS_UNRECORDED), when, out);
    ch_strbuf_adds(out, "files\n");
    for (size_t i = 0; i < hit.n_files; i++)
        ch_strbuf_addf(out, "  %-40s %zu\n", hit.files[i].name, hit.files[i].len);
    /* a spec-only entry's reference is what the words were read as: the user checks it here */
    const ch_cache_file *ref = ch_cache_hit_file(&hit, "reference.c");
    if (ref)
        ch_strbuf_addf(out, "reference\n%.*s", (int)ref->len, (const char *)ref->data);
    cJSON_Delete(report);
    ch_cache_hit_free(&hit);
    return 0;
}
