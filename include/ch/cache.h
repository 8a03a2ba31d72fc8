/* The content-addressed kernel cache (DESIGN §5): keys, the local store, its generation protocol,
 * statistics and eviction. Remote stores (cache/storage/) are used through the same handle.
 *
 * Library code: nothing here prints or exits. Errors come back as ch_error; conditions that must
 * not fail a build (a damaged entry, an unreachable remote) come back as warning strings that the
 * caller takes with ch_cache_take_warnings and prints. */
#ifndef CH_CACHE_H
#define CH_CACHE_H

#include <stddef.h>

#include "ch/config.h"
#include "ch/entry.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* Version of the key serialization; bumping it invalidates every key. */
#define CH_CACHE_KEY_FORMAT 1

/* ---- keys ------------------------------------------------------------------------------ */

/* The entry key: XXH3-128 over kind, normalized spec (whitespace runs collapsed, trimmed),
 * clauses_text, signature, body_tokens and the sorted, de-duplicated archs (NULL-terminated, may
 * be NULL). Agent and model are not part of it. Writes 32 lowercase hex digits + NUL. */
int ch_cache_key(const ch_entry *e, char *const *archs, char out_hex[33]);

/* The same key, and when text is not NULL the exact stream hashed appended to it ("TAG LEN:"
 * bytes per field, as ccache's hash debug shows what it hashed): what report.json records. */
int ch_cache_key_text(const ch_entry *e, char *const *archs, char out_hex[33], ch_strbuf *text);

/* What an object compiled from an entry depends on beyond the entry. Borrowed strings. */
typedef struct ch_object_ident {
    const char *nvcc_ident;    /* ch_cache_tool_ident of nvcc (path, size, mtime, --version) */
    const char *host_cc_ident; /* ch_cache_tool_ident of the host compiler ("" if none) */
    char *const *flags;        /* code-generation flags, in order, NULL-terminated (may be NULL) */
    /* NVCC_PREPEND_FLAGS, NVCC_APPEND_FLAGS, NVCC_CCBIN: read from the environment unless
     * env_given, in which case these values are used (NULL = unset). */
    int env_given;
    const char *nvcc_prepend_flags, *nvcc_append_flags, *nvcc_ccbin;
} ch_object_ident;

/* Identity of a tool: "path\nsize\nmtime_ns\n" + its `--version` output. Compute once per build
 * and pass it to every ch_cache_object_key call. Appends to out; -1 with err when the tool is
 * missing or cannot be run. */
int ch_cache_tool_ident(const char *path, ch_strbuf *out, ch_error *err);

/* The object key: XXH3-128 over the entry key and everything in id. */
int ch_cache_object_key(const char *entry_key, const ch_object_ident *id, char out_hex[33]);

/* Nonzero when s is 32 lowercase hex digits. */
int ch_cache_key_valid(const char *s);

/* ---- the store ------------------------------------------------------------------------- */

typedef struct ch_cache ch_cache; /* opaque; ch_cache_open / ch_cache_close */

typedef struct ch_cache_opts {
    const char *dir;             /* the cache directory (created when missing) */
    unsigned long long max_size; /* bytes; 0: no limit */
    double lock_timeout;         /* seconds to wait for another process's per-key lock */
    const char *remote;       /* remote stores, space or comma separated: http(s)://host:port/path/,
                                 redis://host:port[/db], file:///dir; or NULL/"" */
    const char *remote_token; /* bearer token or NULL; never logged */
    int remote_only_read;     /* nonzero: never PUT */
    double remote_timeout;    /* seconds per remote request */
    unsigned long long remote_max_size; /* bytes one remote entry may have; 0: a default */
    const char *sign_key;     /* secret key file signing entries written back, or NULL/"" */
    const char *trusted_keys; /* public keys (or a file of them) remote entries must carry */
    int no_fsync;             /* tests and benchmarks: skip fsync */
} ch_cache_opts;

/* Opens from the configuration (cache_dir, max_size, lock_timeout, remote*). */
int ch_cache_open(ch_cache **out, const ch_config *cfg, ch_error *err);
int ch_cache_open_opts(ch_cache **out, const ch_cache_opts *opts, ch_error *err);
void ch_cache_close(ch_cache *c);
const char *ch_cache_dir(const ch_cache *c);

/* A key pair for signing remote entries: writes dir/ch-cc-sign.key (secret, mode 0600; a
 * writer's sign_key) and dir/ch-cc-sign.pub (for readers' trusted_keys). Refuses to overwrite.
 * *pub_path (caller frees) names the public key file. */
int ch_cache_keygen(const char *dir, char **pub_path, ch_error *err);

/* Moves the warnings gathered so far (damaged entries, remote failures) into out (owned by
 * out). Each condition is reported once per handle. */
void ch_cache_take_warnings(ch_cache *c, ch_strvec *out);

typedef struct ch_cache_file {
    char *name;          /* relative path inside the entry: "kernel.cu", "objects/K.o" */
    unsigned char *data; /* len bytes, followed by a NUL */
    size_t len;
} ch_cache_file;

/* A found entry, fully read and checksum-verified. Owned; ch_cache_hit_free. */
typedef struct ch_cache_hit {
    char key[33];
    ch_cache_file *files;
    size_t n_files;
    ch_strvec meta;    /* "name=value" records given with ch_cache_txn_meta */
    long long created; /* unix seconds of the commit */
    int from_remote;   /* nonzero: read through from the remote store */
} ch_cache_hit;

void ch_cache_hit_init(ch_cache_hit *h);
void ch_cache_hit_free(ch_cache_hit *h);
const ch_cache_file *ch_cache_hit_file(const ch_cache_hit *h, const char *name);
/* The value of meta record name, or NULL. */
const char *ch_cache_hit_meta(const ch_cache_hit *h, const char *name);

/* Looks key up: 1 hit (hit filled; last use recorded), 0 miss, -1 error. A damaged entry is
 * removed, reported as a warning and is a miss; with a remote store a local miss reads through. */
int ch_cache_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_error *err);

/* Reads and verifies an entry without counting, recording use or asking the remote (explain,
 * tests): 1 found, 0 absent, -1 error or damaged (why in err; the entry is left alone). */
int ch_cache_peek(ch_cache *c, const char *key, ch_cache_hit *hit, ch_error *err);

/* Generation protocol. ch_cache_begin takes the key's exclusive lock, waiting up to lock_timeout
 * for another generator. When the entry exists once the lock is held (someone generated it
 * while we waited), it returns 1 with hit filled and no transaction. Otherwise it returns 0
 * with *txn: put the files, then commit (entry becomes visible atomically) or abort. -1: error
 * (e.g. timeout). The transaction is owned by the caller until commit/abort frees it. */
typedef struct ch_cache_txn ch_cache_txn;
int ch_cache_begin(ch_cache *c, const char *key, ch_cache_txn **txn, ch_cache_hit *hit,
                   ch_error *err);
/* Like begin, but always returns a transaction: it starts from the existing entry's files (if
 * any, and valid) so that put adds or replaces files (a new object for another nvcc). Its
 * commit is not counted as a generation; it writes only the files put (a put of the bytes the
 * entry holds already writes nothing) and the index, and sends the remotes only what changed
 * (a new object and the entry's object record; the entry's archive when a file other than an
 * object or a meta record changed); a commit that changed nothing writes nothing. */
int ch_cache_begin_update(ch_cache *c, const char *key, ch_cache_txn **txn, ch_error *err);
/* Adds file name (relative, no "..", subdirectories allowed) with len bytes. */
int ch_cache_put(ch_cache_txn *t, const char *name, const void *data, size_t len, ch_error *err);
/* What the transaction holds so far (an update starts with the entry's files and meta, read
 * under the lock): the file called name / the value of meta name, or NULL. */
const ch_cache_file *ch_cache_txn_file(const ch_cache_txn *t, const char *name);
const char *ch_cache_txn_get_meta(const ch_cache_txn *t, const char *name);
/* Records meta name=value (kind, name, agent, model ...) in the entry's index. */
void ch_cache_txn_meta(ch_cache_txn *t, const char *name, const char *value);
/* Makes the entry visible (files + index, temp dir + rename), counts a generation, writes it
 * back to the remote store and applies the size limit. Frees t, also on error. */
int ch_cache_commit(ch_cache_txn *t, ch_error *err);
/* Drops everything put so far and releases the lock. Frees t. */
void ch_cache_abort(ch_cache_txn *t);

/* ---- statistics, listing, eviction ----------------------------------------------------- */

typedef struct ch_cache_stats {
    unsigned long long lookups;     /* ch_cache_lookup calls: lookups == hits + misses */
    unsigned long long hits;        /* lookups served (local or read through from remote) */
    unsigned long long misses;      /* lookups not served */
    unsigned long long generations; /* commits */
    unsigned long long evictions;   /* entries removed by the size limit */
    unsigned long long damaged;     /* damaged entries detected and removed */
    unsigned long long remote_hits; /* local misses served by the remote store (within hits) */
    unsigned long long remote_misses;
    unsigned long long remote_errors;
    /* what builds did on the way (added by the driver with ch_cache_count) */
    unsigned long long agent_requests;  /* kernel proposals asked of an agent */
    unsigned long long kernel_compiles; /* nvcc runs on kernel code: candidates and objects */
    unsigned long long gpu_runs;        /* candidates run on a GPU (verification stages 2-5) */
    unsigned long long host_fallbacks;  /* entries built with their host path only */
    unsigned long long remote_rejected; /* remote entries or object records/objects refused:
                                           unsigned, untrusted, altered, from another entry;
                                           local copies whose signer is no longer trusted */
    unsigned long long direct_hits;     /* objects served from a direct-mode manifest */
    unsigned long long direct_misses;   /* direct-mode lookups that went the full path */
    /* entry outcomes (src/pipeline/: ch_session_entry); host_fallbacks is the sum of the
     * fallback_ counters */
    unsigned long long pending_entries;     /* entries served pending (wait for a GPU) */
    unsigned long long pending_verified;    /* pending entries verified by a build with a GPU */
    unsigned long long refused_translator;  /* refusals: the agent cannot translate the body */
    unsigned long long refused_reference;   /* refusals: the reference program does not build
                                               or is refused (recorded, or a model's) */
    unsigned long long stage_static_failed; /* candidates that failed a verification stage */
    unsigned long long stage_compile_failed;
    unsigned long long stage_smoke_failed;
    unsigned long long stage_correct_failed;
    unsigned long long stage_sanitize_failed;
    unsigned long long stage_perf_failed;
    unsigned long long fallback_no_cache; /* host paths by class (ch_fallback) */
    unsigned long long fallback_cache_fault;
    unsigned long long fallback_offline;
    unsigned long long fallback_pending;
    unsigned long long fallback_failed;
    unsigned long long fallback_refused;
    unsigned long long fallback_agent;
    unsigned long long fallback_object; /* the kernel's object refused at the object step */
    /* remote failures by kind, each also counted in remote_errors */
    unsigned long long remote_timeouts;    /* no answer within remote_timeout */
    unsigned long long remote_unreachable; /* no connection (refused, unknown host, no share) */
    unsigned long long remote_bad_reply;   /* error status, protocol error, damaged archive */
    unsigned long long remote_too_large;   /* an entry over remote_max_size */
} ch_cache_stats;

/* Names of the counters in ch_cache_stats order, NULL-terminated. */
extern const char *const ch_cache_stat_names[];
unsigned long long *ch_cache_stats_field(ch_cache_stats *s, size_t i);

int ch_cache_stats_read(ch_cache *c, ch_cache_stats *out, ch_error *err);
/* Adds delta to the counters (every process sees the sum; no update is lost). */
int ch_cache_count(ch_cache *c, const ch_cache_stats *delta, ch_error *err);
/* Adds delta to the counters of the cache directory dir without opening the cache (the thin
 * binary's direct-mode counters: no store, no remote, no libcurl); *damaged gets the stats
 * file's unreadable lines (rebuilt from the readable ones), for the caller to say. */
int ch_cache_stats_add_at(const char *dir, const ch_cache_stats *delta, size_t *damaged,
                          ch_error *err);
/* Resets every counter to zero. */
int ch_cache_stats_zero(ch_cache *c, ch_error *err);

typedef struct ch_cache_info {
    char key[33];
    unsigned long long bytes; /* all files of the entry, index included */
    long long last_use_ns;    /* last hit or commit */
} ch_cache_info;

/* Every visible entry (no verification); *out owned by the caller (free()). */
int ch_cache_list(ch_cache *c, ch_cache_info **out, size_t *n, ch_error *err);

/* Removes least recently used entries until the total is at most limit bytes (limit 0 with
 * the configured max_size == 0: nothing to do). Entries being read or written are skipped.
 * *evicted (may be NULL): how many were removed. Counts evictions. */
int ch_cache_evict_to(ch_cache *c, unsigned long long limit, size_t *evicted, ch_error *err);
/* Applies the configured max_size. */
int ch_cache_evict(ch_cache *c, size_t *evicted, ch_error *err);
/* Removes every entry not in use and abandoned temp files; not counted as evictions. */
int ch_cache_clean(ch_cache *c, size_t *removed, ch_error *err);
unsigned long long ch_cache_max_size(const ch_cache *c);

#endif
