/* Shared internals of the cache/ sources: the handle, per-key locks, the stats file, entry paths
 * and the index record. Not installed; only cache/ includes it. */
#ifndef CH_CACHE_INTERNAL_H
#define CH_CACHE_INTERNAL_H

#include "ch/cache.h"
#include "ch/fsutil.h"
#include "ch/lock.h"
#include "ch/remote.h"
#include "sign.h"
#include "storage/front.h"

struct ch_cache {
    ch_storage storage; /* the tiers: the local store and the remotes behind it (owned) */
    ch_signer signer;   /* writes are signed with it when have_signer */
    int have_signer;
    ch_trust trust;          /* remote entries (and local copies of them) are used only when
                                signed by one of these */
    char *trust_fault;       /* why trusted_keys could not be read (owned), or NULL */
    int unsigned_read_said;  /* "no trusted_keys" said once per handle */
    int unsigned_write_said; /* "no sign_key" said once per handle */
    int stats_damage_said;   /* a damaged stats file said once per handle */
    int stats_fault_said;
    int lock_fault_said; /* a stats file that cannot be updated said once per handle */
    ch_strvec warnings;
};

/* ---- lock.c: ch/lock.h ---- */

/* ---- stats.c ---- */
/* Adds delta to the counters under the stats lock (never loses concurrent updates). */
int ch_stats_add(ch_cache *c, const ch_cache_stats *delta, ch_error *err);

/* ---- store.c: the local store, the front's first tier ---- */
/* key's entry in the local store: 1 hit, 0 miss (damage removed and counted), 2 refused (a
 * copy of a remote entry whose signer trusted_keys no longer lists: said, counted, removed; the
 * remotes hold the same entry and are not asked), -1 error. */
int ch_local_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta,
                    ch_error *err);
/* Keeps a local copy of hit (read from a remote); a failure only costs the copy. */
void ch_local_keep(ch_cache *c, const char *key, const ch_cache_hit *hit);

/* ---- store.c helpers used by evict.c ---- */
char *ch_cache_entry_path(const ch_cache *c, const char *key); /* caller frees */
char *ch_cache_lock_path(const ch_cache *c, const char *key);  /* caller frees */
/* Moves dir out of sight (rename into tmp/) and deletes it. */
int ch_cache_remove_dir(ch_cache *c, const char *dir, ch_error *err);
void ch_cache_warn(ch_cache *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
unsigned long long ch_cache_dir_bytes(const char *dir);

/* ---- archive.c: the index record (also the head of a remote archive) ----
 *   ch-cc-index 1
 *   key <32 hex>
 *   created <unix seconds>
 *   meta <name>=<value>              (zero or more; no newlines in value)
 *   file <size> <xxh3-64 hex> <name> (one per file, name is the rest of the line)
 *   end <xxh3-64 hex of every byte above>
 */
typedef struct ch_index_file {
    char *name; /* owned */
    unsigned long long size;
    unsigned long long sum;
} ch_index_file;

typedef struct ch_index {
    ch_index_file *files; /* owned; ch_index_free */
    size_t n;
    ch_strvec meta;
    long long created;
    size_t text_len; /* bytes of the record, "end" line included */
} ch_index;

void ch_index_free(ch_index *idx);
/* Parses the record at the start of data (len bytes) and checks its own checksum. */
int ch_index_parse(const char *key, const char *data, size_t len, ch_index *idx, ch_error *err);
void ch_index_format(const char *key, const ch_cache_file *files, size_t n, const ch_strvec *meta,
                     long long created, ch_strbuf *out);
#endif
