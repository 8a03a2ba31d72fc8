/* The remote store: one archive per entry behind an HTTP(S) URL (WebDAV or S3-style server),
 * GET/PUT/HEAD through libcurl. Used by the cache (ch/cache.h) for read-through and write-back;
 * its failures become warnings there, never build failures.
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

typedef struct ch_remote ch_remote; /* opaque; owns its curl handle */

/* url: "http(s)://host:port/path/"; token: bearer token or NULL (sent, never put in errors);
 * max_body: the most bytes a GET may bring (the transfer is aborted beyond it; 0: a default). */
int ch_remote_open(ch_remote **out, const char *url, const char *token, double timeout_s,
                   unsigned long long max_body, ch_error *err);
void ch_remote_close(ch_remote *r);
/* GET the archive of key into body: 1 found, 0 not there (404), -1 error. */
int ch_remote_get(ch_remote *r, const char *key, ch_strbuf *body, ch_error *err);
/* HEAD: 1 present, 0 absent, -1 error. */
int ch_remote_head(ch_remote *r, const char *key, ch_error *err);
/* PUT the archive of key: 0 stored, -1 error. */
int ch_remote_put(ch_remote *r, const char *key, const void *data, size_t len, ch_error *err);

/* Archive: appends the archive of files (with meta records and creation time) to out. */
void ch_archive_pack(const char *key, const ch_cache_file *files, size_t n_files,
                     const ch_strvec *meta, long long created, ch_strbuf *out);
/* Parses and verifies an archive of key into hit (files, meta, created). -1 with err on any
 * inconsistency (wrong key, sizes, checksums, truncation). */
int ch_archive_unpack(const char *key, const void *data, size_t len, ch_cache_hit *hit,
                      ch_error *err);

#endif
