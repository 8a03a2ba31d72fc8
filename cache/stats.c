/* Cache counters shared by every process using a cache directory. The counters live in
 * <cache_dir>/stats as "name value" lines; an update takes locks/stats.lock exclusively, reads,
 * adds and rewrites the file by temp file + rename, so concurrent updates are never lost and a
 * crash leaves either the old or the new file. Unknown lines are ignored (forward compatible). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

const char *const ch_cache_stat_names[] = {
    "lookups",
    "hits",
    "misses",
    "generations",
    "evictions",
    "damaged",
    "remote_hits",
    "remote_misses",
    "remote_errors",
    "agent_requests",
    "kernel_compiles",
    "gpu_runs",
    "host_fallbacks",
    "remote_rejected",
    "direct_hits",
    "direct_misses",
    /* entry outcomes (ch/pipeline.h) */
    "pending_entries",
    "pending_verified",
    "refused_translator",
    "refused_reference",
    "stage_static_failed",
    "stage_compile_failed",
    "stage_smoke_failed",
    "stage_correct_failed",
    "stage_sanitize_failed",
    "stage_perf_failed",
    "fallback_no_cache",
    "fallback_cache_fault",
    "fallback_offline",
    "fallback_pending",
    "fallback_failed",
    "fallback_refused",
    "fallback_agent",
    "fallback_object",
    /* remote failures by kind (issue 17) */
    "remote_timeouts",
    "remote_unreachable",
    "remote_bad_reply",
    "remote_too_large",
    NULL,
};
/* one name per counter: a counter without a name would never be shown nor stored */
_Static_assert(sizeof ch_cache_stat_names / sizeof *ch_cache_stat_names - 1 ==
                   sizeof(ch_cache_stats) / sizeof(unsigned long long),
               "ch_cache_stat_names and ch_cache_stats disagree");

unsigned long long *ch_cache_stats_field(ch_cache_stats *s, size_t i)
{
    unsigned long long *f[] = {&s->lookups,
                               &s->hits,
                               &s->misses,
                               &s->generations,
                               &s->evictions,
                               &s->damaged,
                               &s->remote_hits,
                               &s->remote_misses,
                               &s->remote_errors,
                               &s->agent_requests,
                               &s->kernel_compiles,
                               &s->gpu_runs,
                               &s->host_fallbacks,
                               &s->remote_rejected,
                               &s->direct_hits,
                               &s->direct_misses,
                               &s->pending_entries,
                               &s->pending_verified,
                               &s->refused_translator,
                               &s->refused_reference,
                               &s->stage_static_failed,
                               &s->stage_compile_failed,
                               &s->stage_smoke_failed,
                               &s->stage_correct_failed,
                               &s->stage_sanitize_failed,
                               &s->stage_perf_failed,
                               &s->fallback_no_cache,
                               &s->fallback_cache_fault,
                               &s->fallback_offline,
                               &s->fallback_pending,
                               &s->fallback_failed,
                               &s->fallback_refused,
                               &s->fallback_agent,
                               &s->fallback_object,
                               &s->remote_timeouts,
                               &s->remote_unreachable,
                               &s->remote_bad_reply,
                               &s->remote_too_large};
    return i < sizeof f / sizeof f[0] ? f[i] : NULL;
}

/* Nonzero when line (len bytes) is "<name> <digits>" (a name this version may not know). */
static int well_formed(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z')))
        i++;
    if (i == 0 || i + 1 >= len || line[i] != ' ')
        return 0;
    for (i++; i < len; i++)
        if (line[i] < '0' || line[i] > '9')
            return 0;
    return 1;
}

/* Fills s from text; returns how many lines were not counter lines (damage). */
static size_t parse_stats(const char *text, size_t text_len, ch_cache_stats *s)
{
    memset(s, 0, sizeof *s);
    size_t bad = strlen(text) != text_len; /* a NUL byte inside */
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (!well_formed(line, len)) {
            bad++;
            line = nl ? nl + 1 : NULL;
            continue;
        }
        for (size_t i = 0; ch_cache_stat_names[i]; i++) {
            size_t n = strlen(ch_cache_stat_names[i]);
            if (len > n && strncmp(line, ch_cache_stat_names[i], n) == 0 && line[n] == ' ')
                *ch_cache_stats_field(s, i) = strtoull(line + n + 1, NULL, 10);
        }
        line = nl ? nl + 1 : NULL;
    }
    return bad;
}

/* The counters in dir's stats file, and how many of its lines could not be read (*bad). A
 * link, FIFO or device in its place is one unreadable line: never waited on, and replaced by
 * the next update's rename like any damage. */
static int read_unlocked(const char *dir, ch_cache_stats *out, size_t *bad, ch_error *err)
{
    char *path = ch_path_join(dir, "stats");
    char *text = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    *bad = 0;
    struct stat st;
    int present = lstat(path, &st) == 0;
    if (present && !S_ISREG(st.st_mode)) {
        *bad = 1;
    } else if (present) {
        if (ch_read_regular_file_max(path, SIZE_MAX, &text, &len, err) != 0) {
            free(path);
            return -1;
        }
        *bad = parse_stats(text, len, out);
        free(text);
    }
    free(path);
    return 0;
}

/* One warning per cache handle when the stats file had unreadable lines: the next update
 * rewrites it from what could be read. Without a handle (the thin binary's direct hits) the
 * caller gets the count and says it. */
static void say_damaged(ch_cache *c, const char *dir, size_t bad)
{
    if (!c || !bad || c->stats_damage_said)
        return;
    char *path = ch_path_join(dir, "stats");
    ch_cache_warn(c,
                  "cache statistics file %s was damaged (%zu unreadable lines); rebuilt from "
                  "the readable counters",
                  path, bad);
    free(path);
    c->stats_damage_said = 1;
}

static int update(ch_cache *c, const char *dir, double lock_timeout, const ch_cache_stats *delta,
                  int zero, size_t *damaged, ch_error *err)
{
    char *lock_path = ch_path_join(dir, "locks/stats.lock");
    ch_lock lock;
    int rc = ch_lock_acquire(lock_path, 1, lock_timeout, &lock, err);
    free(lock_path);
    if (rc != 0)
        return rc > 0 ? ch_error_set(err, "timed out waiting for the cache statistics lock") : -1;
    ch_cache_stats s;
    size_t bad;
    if (read_unlocked(dir, &s, &bad, err) != 0) {
        ch_lock_release(&lock);
        return -1;
    }
    say_damaged(c, dir, bad);
    if (damaged)
        *damaged = bad;
    ch_strbuf text;
    ch_strbuf_init(&text);
    for (size_t i = 0; ch_cache_stat_names[i]; i++) {
        unsigned long long v =
            zero ? 0
                 : *ch_cache_stats_field(&s, i) + *ch_cache_stats_field((ch_cache_stats *)delta, i);
        ch_strbuf_addf(&text, "%s %llu\n", ch_cache_stat_names[i], v);
    }
    char *path = ch_path_join(dir, "stats");
    rc = ch_write_file_atomic(path, text.data, text.len, 0, err);
    free(path);
    ch_strbuf_free(&text);
    ch_lock_release(&lock);
    return rc;
}

int ch_stats_add(ch_cache *c, const ch_cache_stats *delta, ch_error *err)
{
    static const ch_cache_stats none;
    if (memcmp(delta, &none, sizeof none) == 0)
        return 0;
    return update(c, c->storage.local.dir, c->storage.local.lock_timeout, delta, 0, NULL, err);
}

int ch_cache_stats_add_at(const char *dir, const ch_cache_stats *delta, size_t *damaged,
                          ch_error *err)
{
    static const ch_cache_stats none;
    *damaged = 0;
    if (memcmp(delta, &none, sizeof none) == 0)
        return 0;
    /* the thin binary's counters: a short wait, a hit must stay cheap */
    return update(NULL, dir, 2.0, delta, 0, damaged, err);
}

int ch_cache_count(ch_cache *c, const ch_cache_stats *delta, ch_error *err)
{
    return ch_stats_add(c, delta, err);
}

int ch_cache_stats_zero(ch_cache *c, ch_error *err)
{
    static const ch_cache_stats none;
    return update(c, c->storage.local.dir, c->storage.local.lock_timeout, &none, 1, NULL, err);
}

int ch_cache_stats_read(ch_cache *c, ch_cache_stats *out, ch_error *err)
{
    size_t bad;
    int rc = read_unlocked(c->storage.local.dir, out, &bad, err);
    say_damaged(c, c->storage.local.dir, bad);
    return rc;
}
