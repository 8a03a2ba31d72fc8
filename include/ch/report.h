/* Reports a user reads (issue 18): an entry's report.json (everything the cache entry's history
 * holds: spec, key and what was hashed, agent, checklist, candidates, evolution and dispatch
 * curves, winner, refusal), the text of --harness-explain, and the static HTML page of
 * --harness-report (one section per entry, inline SVG plots, no script, no network).
 *
 * Ownership: every char * and cJSON * returned is the caller's. Inputs are borrowed. Nothing
 * here prints: the driver decides where text goes. No secret is ever an input: the agent's
 * name and model are, its key and base URL are not. */
#ifndef CH_REPORT_H
#define CH_REPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "ch/checklist.h"
#include "ch/emit.h"
#include "ch/entry.h"
#include "ch/evolve.h"
#include "ch/strbuf.h"

/* What the pipeline knows about an entry when it stores it. */
typedef struct ch_report_facts {
    const ch_entry *entry;
    const char *key;               /* the entry key, 32 hex digits */
    const char *hashed;            /* what the key hashed (ch_cache_key_text), NULL: not known */
    const char *status;            /* verified, pending, failed, unsupported */
    const char *agent, *model;     /* who proposed (model "" for the builtin agent) */
    const ch_checklist *checklist; /* NULL when the entry was refused before one existed */
    const ch_evolution *ev;        /* NULL when refused before evolution */
    long long gpu_min_size;        /* the dispatcher's threshold; -1: none (no kernel) */
    const ch_emit_cold *cold;      /* its first-call thresholds; NULL or zero: not measured */
    const char *reason;            /* why the host path; "file:line:col: text" when located */
} ch_report_facts;

/* The report.json object of an entry. */
cJSON *ch_report_entry_json(const ch_report_facts *f);

/* ---- reading reports back ---- */

/* The outcome of an entry in one sentence, from its report (and its cache status when the
 * report predates this format). Caller frees. */
char *ch_report_outcome_sentence(const cJSON *report, const char *status);

/* A report's "reason" object as "file:line:col: text" (just the text when unlocated); NULL
 * when reason is NULL. Caller frees. */
char *ch_report_reason_text(const cJSON *reason);

/* --harness-explain's text for one entry: key, name, kind, spec, agent, outcome, reason with
 * its location, candidates, curves. meta_* may be NULL. Appends to out. */
void ch_report_explain_text(const cJSON *report, const char *key, const char *status,
                            const char *created, ch_strbuf *out);

/* Key lookup by prefix: the keys of keys[0..n) that start with prefix. Returns how many match
 * and sets *match to the first one (NULL when none). */
size_t ch_report_match_prefix(char *const *keys, size_t n, const char *prefix, const char **match);

/* ---- the HTML page ---- */

/* One section of the page: an entry's report (may be NULL: not in the cache) and how the cache
 * holds it. */
typedef struct ch_report_section {
    const char *name;        /* the function's name */
    const char *where;       /* "file:line" of its pragma */
    const char *source_line; /* the pragma line as written, may be NULL */
    const char *status;      /* the cache entry's status, NULL: not in the cache */
    const char *cache_note;  /* e.g. "in the cache since 2026-12-04 15:00 UTC" */
    const cJSON *report;     /* report.json, NULL when absent or unreadable */
    const char *kernel;      /* kernel.cu (or a pending candidate), NULL when none */
    const char *kernel_note; /* what the kernel shown is when not the verified one, or NULL */
} ch_report_section;

/* The whole page (a self-contained HTML document; CSS from the embedded page/ files). */
char *ch_report_html(const char *title, const ch_report_section *sections, size_t n);

/* HTML text with & < > " ' escaped, appended to out. */
void ch_html_escape(ch_strbuf *out, const char *text);

/* CUDA/C source as escaped HTML with <span class="tok-..."> around keywords, types, strings,
 * comments, numbers and preprocessor lines. */
void ch_html_highlight(ch_strbuf *out, const char *source);

#endif
