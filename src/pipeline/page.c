/* The report page of a build's entries (ch/page.h): each entry keyed by the session and read
 * from its cache, rendered by src/report. An entry stored before report.json was complete is
 * shown from its cache meta (status, reason, agent), so older caches stay readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ch/fsutil.h"
#include "ch/page.h"
#include "ch/report.h"

void ch_page_created_text(const ch_cache_hit *hit, char *out, size_t n)
{
    time_t t = (time_t)hit->created;
    struct tm tm;
    out[0] = '\0';
    if (hit->created && gmtime_r(&t, &tm))
        strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

cJSON *ch_page_entry_report(const ch_cache_hit *hit)
{
    const ch_cache_file *f = ch_cache_hit_file(hit, "report.json");
    cJSON *r = f ? cJSON_ParseWithLength((const char *)f->data, f->len) : NULL;
    if (!cJSON_IsObject(r)) {
        cJSON_Delete(r);
        r = cJSON_CreateObject();
    }
    static const char *const fields[] = {"status", "name", "kind", "agent", "model", NULL};
    for (size_t i = 0; fields[i]; i++)
        if (!cJSON_GetObjectItemCaseSensitive(r, fields[i]) && ch_cache_hit_meta(hit, fields[i]))
            cJSON_AddStringToObject(r, fields[i], ch_cache_hit_meta(hit, fields[i]));
    const char *why = ch_cache_hit_meta(hit, "reason");
    if (why && *why && !cJSON_GetObjectItemCaseSensitive(r, "reason")) {
        cJSON *o = cJSON_AddObjectToObject(r, "reason");
        cJSON_AddStringToObject(o, "text", why);
    }
    return r;
}

/* Line `line` (1-based) of text; caller frees; NULL past the end. */
static char *source_line(const char *text, unsigned line)
{
    for (unsigned i = 1; text && i < line; i++) {
        text = strchr(text, '\n');
        text = text ? text + 1 : NULL;
    }
    if (!text)
        return NULL;
    return ch_xstrndup(text, strcspn(text, "\n"));
}

/* What one section holds besides the section itself: freed after rendering. */
typedef struct page_section {
    ch_cache_hit hit;
    cJSON *report;
    char *where, *line, *cache_note;
} page_section;

/* Fills section s of entry e (its source text) from the session's cache. */
static void fill_section(ch_session *s, const ch_entry *e, const char *text, ch_report_section *out,
                         page_section *own)
{
    char key[33] = "";
    ch_error err;
    ch_cache_hit_init(&own->hit);
    /* a key that cannot be computed is an entry the cache cannot hold */
    int found = s->cache && ch_session_key(s, e, key, &err) == 0
                    ? ch_cache_peek(s->cache, key, &own->hit, &err)
                    : 0;
    char when[64] = "";
    if (found == 1) {
        own->report = ch_page_entry_report(&own->hit);
        ch_page_created_text(&own->hit, when, sizeof when);
        out->status = ch_cache_hit_meta(&own->hit, "status");
        const ch_cache_file *k = ch_cache_hit_file(&own->hit, "kernel.cu");
        /* a pending entry's first candidate: what a GPU build will test first */
        const ch_cache_file *pending = ch_cache_hit_file(&own->hit, "candidates/0.cu");
        out->kernel = k ? (const char *)k->data : pending ? (const char *)pending->data : NULL;
        if (!k && pending)
            out->kernel_note = "Not verified: the first pending candidate, which the next "
                               "build on a machine with a GPU tests (the build links the "
                               "host path until one passes).";
    }
    out->name = e->name;
    out->where = own->where = ch_xasprintf("%s:%u", e->file, e->line);
    out->source_line = own->line = source_line(text, e->line);
    out->cache_note = own->cache_note =
        found == 1 ? ch_xasprintf("In the kernel cache since %s (key %.12s..., "
                                  "ch-cc --harness-explain %.12s).",
                                  when, key, key)
                   : ch_xasprintf("Not in the kernel cache: no build of this entry yet%s.",
                                  found < 0 ? " (the cache could not be read)" : "");
    out->report = own->report;
}

/* dir/<base name of the first entry's file>.html; caller frees. */
static char *page_path(const ch_page_opts *o)
{
    const ch_entry_list *l = o->entries;
    const char *file = l->len ? l->items[0].file : "entries";
    char *name = ch_xasprintf("%s.html", ch_path_base(file));
    char *path = ch_path_join(o->dir, name);
    free(name);
    return path;
}

int ch_session_page(ch_session *s, const ch_page_opts *o, char **path, char **html, ch_error *err)
{
    const ch_entry_list *l = o->entries;
    ch_report_section *sections = ch_xcalloc(l->len + 1, sizeof *sections);
    page_section *own = ch_xcalloc(l->len + 1, sizeof *own);
    for (size_t i = 0; i < l->len; i++)
        fill_section(s, &l->items[i], o->texts[i], &sections[i], &own[i]);
    char *title = ch_xasprintf("ch-cc report: %s", o->title);
    char *page = ch_report_html(title, sections, l->len);
    char *where = page_path(o);
    int rc = ch_mkdir_p(o->dir, err);
    if (rc == 0)
        rc = ch_write_file_atomic(where, page, strlen(page), 0, err);
    if (rc == 0) {
        *path = where;
        where = NULL;
        if (html) {
            *html = page;
            page = NULL;
        }
    }
    free(where);
    free(page);
    free(title);
    for (size_t i = 0; i < l->len; i++) {
        cJSON_Delete(own[i].report);
        ch_cache_hit_free(&own[i].hit);
        free(own[i].where);
        free(own[i].line);
        free(own[i].cache_note);
    }
    free(own);
    free(sections);
    return rc;
}

char *ch_session_build_page(ch_session *s, const ch_entry_list *l, const char *text,
                            const char *file, char **name)
{
    const char *dir = ch_config_get(s->cfg, "report_dir");
    *name = NULL;
    if (!dir || !*dir || l->len == 0)
        return NULL;
    char **texts = ch_xcalloc(l->len + 1, sizeof *texts);
    for (size_t i = 0; i < l->len; i++)
        texts[i] = (char *)text;
    char *path = NULL, *html = NULL;
    ch_error err;
    ch_page_opts page = {l, texts, dir, file};
    if (ch_session_page(s, &page, &path, &html, &err) != 0) {
        /* the page is not worth the build: a warning for the driver to print */
        pthread_mutex_lock(&s->lock);
        ch_strvec_push_owned(&s->warnings,
                             ch_xasprintf("the report page was not written: %s", err.msg));
        pthread_mutex_unlock(&s->lock);
    } else {
        *name = ch_xstrdup(ch_path_base(path));
    }
    free(path);
    free(texts);
    return html;
}

int ch_session_page_files(ch_session *s, const ch_page_file *files, size_t n, const char *dir,
                          char **path, size_t *entries, ch_error *err)
{
    ch_entry_list l;
    ch_entry_list_init(&l);
    ch_strvec texts;
    ch_strvec_init(&texts);
    ch_strbuf title;
    ch_strbuf_init(&title);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t before = l.len;
        char *text = NULL;
        size_t len = 0;
        rc = ch_read_file(files[i].path, &text, &len, err);
        /* the file is read once: the scan parses the text the page quotes */
        ch_scan_source src = {text, len, NULL, 0};
        if (rc == 0)
            rc = ch_session_scan(s, files[i].path, files[i].lang, &src, &l, err);
        for (size_t k = before; rc == 0 && k < l.len; k++)
            ch_strvec_push(&texts, text);
        free(text);
        ch_strbuf_addf(&title, "%s%s", i ? " " : "", files[i].path);
    }
    if (rc == 0) {
        ch_page_opts page = {&l, texts.items, dir, title.data};
        rc = ch_session_page(s, &page, path, NULL, err);
    }
    *entries = l.len;
    ch_strbuf_free(&title);
    ch_strvec_free(&texts);
    ch_entry_list_free(&l);
    return rc;
}
