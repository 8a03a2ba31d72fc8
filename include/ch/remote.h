/* What travels to and from the remote stores (http(s)://, redis://, file://; the backends live
 * in cache/storage/): one archive per entry (its files except objects/; each object is an item
 * of its own, listed by a signed record: cache/storage/objects.h). Used by the cache
 * (ch/cache.h) for read-through and write-back; remote failures become warnings there, never
 * build failures.
 *
 * The archive format (ch_archive_*) carries every file with its size and XXH3-64 checksum and a
 * checksum of the whole archive, so that truncated or corrupted bodies are rejected before
 * anything reaches the local store. */
#ifndef CH_REMOTE_H
#define CH_REMOTE_H

#include <stddef.h>

#include "ch/cache.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* Archive: appends the archive of files (with meta records and creation time) to out. */
void ch_archive_pack(const char *key, const ch_cache_file *files, size_t n_files,
                     const ch_strvec *meta, long long created, ch_strbuf *out);
/* Parses and verifies an archive of key into hit (files, meta, created). -1 with err on any
 * inconsistency (wrong key, sizes, checksums, truncation). */
int ch_archive_unpack(const char *key, const void *data, size_t len, ch_cache_hit *hit,
                      ch_error *err);

#endif
