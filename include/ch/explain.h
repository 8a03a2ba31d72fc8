/* --harness-explain's lookup and text (src/pipeline/explain.c): what the user names (a function
 * name in a file, a function name alone, a full key or a unique key prefix) resolved to a cache
 * key of the session's cache, and what that entry says about itself as readable text. Keying a
 * name in a file goes through the session (ch_session_key), so explain finds the entry the build
 * of the same command line stored.
 *
 * Library code: nothing here prints. Internal to ch-cc (not installed). Ownership: inputs are
 * borrowed; what is appended to a ch_strbuf is the caller's. */
#ifndef CH_EXPLAIN_H
#define CH_EXPLAIN_H

#include <stddef.h>

#include "ch/error.h"
#include "ch/pipeline.h"
#include "ch/strbuf.h"

/* What a name resolved to. */
typedef struct ch_explain_found {
    char key[33];
    /* resolved by a function name alone: older cache entries with the same name (the newest is
     * the one found; the caller may say that a file chooses among them) */
    size_t older;
} ch_explain_found;

/* Resolves what:
 *   - with file (not NULL; lang its language): the key the session gives the entry named what
 *     in file (the build's key for this command line);
 *   - a full key (32 lowercase hex digits): itself, present in the cache or not;
 *   - lowercase hex: a unique prefix of the keys in the session's cache (an ambiguous one is an
 *     error listing every match);
 *   - else (or a hex word no key starts with): the newest cache entry whose recorded name is
 *     what.
 * 0, or -1 with err: a message that says what to give instead (the file, a longer prefix, a
 * build first). */
int ch_session_explain_find(ch_session *s, const char *what, const char *file, ch_lang lang,
                            ch_explain_found *out, ch_error *err);

/* Appends --harness-explain's text for the cache entry key: the report's summary
 * (ch_report_explain_text), the entry's files and sizes, and a spec-only entry's reference (what
 * the words were read as). -1 with err when the entry is absent or unreadable. */
int ch_session_explain_text(ch_session *s, const char *key, ch_strbuf *out, ch_error *err);

#endif
