/* The storage front: the remote backends of one cache handle behind one interface (ccache's
 * storage/). The local store (store.c) asks the front to read an entry through and to write one
 * back; the front picks backends by URL scheme, streams bodies into temp files, verifies
 * archives, object records and signatures, signs what it writes, sends only what a commit
 * changed, and turns every backend failure into one warning per backend and a counter of its
 * kind. The remote layout is described in front.c. Not installed; only cache/ includes it. */
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

/* Every remote of a handle, in the order configured: reads ask them in turn until one has the
 * entry, writes go to each. */
typedef struct ch_storage {
    ch_storage_remote *remotes; /* owned; ch_storage_close */
    size_t n;
} ch_storage;

/* Opens the remotes listed in the `remote` setting (URLs separated by spaces or commas), the
 * trust list and the signing key of c: each one that fails is one warning and is left out. */
void ch_storage_open(ch_cache *c, const ch_cache_opts *o);
void ch_storage_close(ch_storage *s);
/* Nonzero when at least one remote can still be asked. */
int ch_storage_usable(const ch_cache *c);

/* Reads key's entry through the remotes: 1 found, verified and signed by a trusted writer (hit
 * filled, hit->from_remote set), 0 not found or refused (a warning said why). Counts in delta. */
int ch_storage_read(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta);
/* What a commit changed: the front sends that and nothing else. */
typedef struct ch_storage_change {
    int replace;         /* 0: a new entry (an equivalent copy already there is kept); 1: update */
    int entry_changed;   /* a file other than an object, or a meta record, is new or changed */
    int objects_changed; /* an object is new or changed */
} ch_storage_change;

/* Signs and writes what changed of key's entry (files: all of them, meta: its records) to every
 * usable remote: the entry's archive when it changed, and each object with the entry's object
 * record when either changed. Failures are warnings and counters in delta. */
void ch_storage_write(ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                      const ch_strvec *meta, long long created, const ch_storage_change *what,
                      ch_cache_stats *delta);

#endif
