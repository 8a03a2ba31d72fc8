/* The report page of a build's entries and what one cache entry says about itself
 * (src/pipeline/page.c), for --harness-report, --harness-explain and the page a build writes
 * when the report_dir setting names a directory. The entries are keyed by the session
 * (ch_session_key: the build's one rule) and read from the session's cache; src/report renders.
 *
 * Library code: nothing here prints. Internal to ch-cc (not installed). Ownership: inputs are
 * borrowed; every char * and cJSON * returned is the caller's. */
#ifndef CH_PAGE_H
#define CH_PAGE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "ch/cache.h"
#include "ch/pipeline.h"

/* report.json of the hit, with what the cache meta knows filled in where the report (older, or
 * a refusal from before report_format 2) lacks it: status, name, kind, agent, model, reason. */
cJSON *ch_page_entry_report(const ch_cache_hit *hit);

/* When the hit's entry was made ("YYYY-MM-DD HH:MM:SS UTC"), "" when unknown. */
void ch_page_created_text(const ch_cache_hit *hit, char *out, size_t n);

/* What a page shows. texts[i] is the source text of entries->items[i] (its quoted line). */
typedef struct ch_page_opts {
    const ch_entry_list *entries;
    char *const *texts;
    const char *dir;   /* the page goes to dir/<first entry's file name>.html (dir made) */
    const char *title; /* the files, as the page's title names them */
} ch_page_opts;

/* Writes the page of o's entries as the session's cache holds them (a session without a
 * cache shows every entry absent). *path: where it went; *html (when html is not NULL): the
 * page itself. Both caller-freed, set only on success. Returns 0 or -1 with err. */
int ch_session_page(ch_session *s, const ch_page_opts *o, char **path, char **html, ch_error *err);

/* One source file of --harness-report. */
typedef struct ch_page_file {
    const char *path;
    ch_lang lang;
} ch_page_file;

/* --harness-report's page of files[0..n): each file read once and scanned by the session, its
 * entries shown as the session's cache holds them, in dir/<first entry's file name>.html.
 * *path: where it went (caller frees); *entries: how many entries it shows. 0, or -1 with err
 * (a file that cannot be read or scanned: its located error). */
int ch_session_page_files(ch_session *s, const ch_page_file *files, size_t n, const char *dir,
                          char **path, size_t *entries, ch_error *err);

/* The page a build writes after an annotated input (file, its text, its entries l) when the
 * report_dir setting names a directory: written there as ch_session_page writes it. Returns the
 * page (caller frees; direct mode keeps it for the builds it serves) and its file name in *name
 * (caller frees); NULL and *name NULL when none is asked for or it failed (then a session
 * warning says why: a page is never worth the build). */
char *ch_session_build_page(ch_session *s, const ch_entry_list *l, const char *text,
                            const char *file, char **name);

#endif
