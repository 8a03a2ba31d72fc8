/* The storage front of one cache handle (ccache's storage/): it holds the local store, the first
 * tier, and behind it the remote backends, and is what the cache API (ch/cache.h) goes through:
 * a lookup asks the local store, then each remote in turn, and keeps a local copy of a remote
 * hit; a commit is published in the local store (store.c: locks, temp directory, rename) and then
 * written back to the remotes. For the remotes the front picks backends by URL scheme, streams
 * bodies into temp files, verifies archives, object records and signatures, signs what it
 * writes, sends only what a commit changed, and turns every backend failure into one warning per
 * backend and a counter of its kind. The remote layout is described in front.c. Not installed;
 * only cache/ includes it. */
#ifndef CH_CACHE_STORAGE_FRONT_H
#define CH_CACHE_STORAGE_FRONT_H

#include <stddef.h>

#include "backend.h"
#include "ch/cache.h"

typedef struct ch_cache ch_cache;

/* One configured remote. */
typedef struct ch_storage_remote {
    const ch_storage_ops *ops;
    void *state; /* the backend's; ops->close frees it */
    char *url;   /* as configured, for messages without credentials (owned) */
    int failed;  /* after its first failure a remote is left alone for the handle's life */
} ch_storage_remote;

/* The first tier: the cache directory, read and written by store.c (entries, locks/, tmp/). */
typedef struct ch_storage_local {
    char *dir; /* owned */
    unsigned long long max_size;
    double lock_timeout;
    int no_fsync;
} ch_storage_local;

/* The tiers of a handle: the local store, always there, asked first and written first; then
 * every remote in the order configured: reads ask them in turn until one has the entry, writes
 * go to each. */
typedef struct ch_storage {
    ch_storage_local local;
    ch_storage_remote *remotes; /* owned; ch_storage_close */
    size_t n;
    int remote_only_read; /* remotes are read, never written */
} ch_storage;

/* Opens the tiers of c: the local store in o->dir (its locks/ and tmp/ made; -1 with err when
 * that fails), then the remotes listed in the `remote` setting (URLs separated by spaces or
 * commas), the trust list and the signing key: each remote that fails is one warning and is
 * left out. */
int ch_storage_open(ch_cache *c, const ch_cache_opts *o, ch_error *err);
void ch_storage_close(ch_storage *s);
/* Nonzero when at least one remote can still be asked. */
int ch_storage_usable(const ch_cache *c);

/* key's entry through the tiers: the local store, then each remote (an entry found there,
 * verified and signed by a trusted writer, is copied into the local store and has
 * hit->from_remote set; one refused is a warning). 1 hit, 0 miss, -1 error (the local store's
 * lock timed out). Counts in delta. */
int ch_storage_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta,
                      ch_error *err);
/* What a commit changed: the front sends that and nothing else. */
typedef struct ch_storage_change {
    int replace;         /* 0: a new entry (an equivalent copy already there is kept); 1: update */
    int entry_changed;   /* a file other than an object, or a meta record, is new or changed */
    int objects_changed; /* an object is new or changed */
} ch_storage_change;

/* After the local store published key's entry (files: all of them, meta: its records): signs
 * and writes what changed to every usable remote, unless remote_only_read: the entry's archive
 * when it changed, and each object with the entry's object record when either changed.
 * Failures are warnings and counters in delta. */
void ch_storage_published(ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                          const ch_strvec *meta, long long created, const ch_storage_change *what,
                          ch_cache_stats *delta);

#endif
