/* Direct mode's manifests (ccache's direct mode, for ch-cc): a warm rebuild of an annotated
 * file served without the preprocessor, libclang or nvcc.
 *
 * A manifest is keyed by everything that decides the object apart from file contents: the
 * source path, the command line, the working directory, the toolchain's identity and ch-cc's
 * own (src/pipeline/direct_mode.c computes the key). It holds the content hash of every file
 * the preprocessor read for that command (source first), the dependency file the command wrote
 * (when it asked for one), the final object and the report page the build wrote (when the
 * report_dir setting asked for one). A lookup hits only when every listed file still has its
 * recorded hash and every path the include search would consult (src/pipeline/direct_search.c)
 * is still a file, or still not one. One manifest per key: a new record replaces the old one.
 *
 * Layout: <cache_dir>/direct/<2 hex>/<30 hex>, one file written by temp file + rename
 * (concurrent writers: the last rename wins, a reader sees a whole manifest or none):
 *   ch-cc-direct 3
 *   file <32 hex XXH3-128> <path>      (one per file read, in the order recorded)
 *   probe <1|0> <path>                 (one per include candidate: 1 a file, 0 not one)
 *   dep <bytes>
 *   obj <bytes>
 *   page <bytes> <file name>           (0 bytes and no name: no page was written)
 *   <dep bytes><obj bytes><page bytes>                                                     */
#ifndef CH_MANIFEST_H
#define CH_MANIFEST_H

#include <stddef.h>

#include "ch/error.h"
#include "ch/strbuf.h"

/* A key as 32 hex digits (XXH3-128) of the length-prefixed parts. */
void ch_manifest_key(char *const *parts, size_t n, char out_hex[33]);

/* The content hash of a file (32 hex digits); -1 with err when it cannot be read. */
int ch_manifest_hash_file(const char *path, char out_hex[33], ch_error *err);

typedef struct ch_manifest_hit {
    char *data;      /* the whole manifest (owned); dep and obj point into it */
    const char *dep; /* the dependency file's bytes (dep_len 0: none was recorded) */
    size_t dep_len;
    const char *obj; /* the final object's bytes */
    size_t obj_len;
    const char *page; /* the report page's bytes (page_len 0: none was recorded) */
    size_t page_len;
    char *page_name; /* its file name in the report directory (owned; NULL with no page) */
} ch_manifest_hit;

void ch_manifest_hit_free(ch_manifest_hit *h);

/* 1 with *hit filled when the manifest of key exists, every file it lists still has its
 * recorded content and every probe its recorded state; 0 when there is none or something changed
 * (why, in *why, static text); a damaged manifest is a miss too. Never writes. */
int ch_manifest_lookup(const char *cache_dir, const char *key, ch_manifest_hit *hit,
                       const char **why);

/* What a record holds: the files read (source first), the dep file, the object and the report
 * page. */
typedef struct ch_manifest_record {
    char *const *files;
    size_t n_files;
    char *const *probes; /* paths whose being a file or not decides what an include finds */
    size_t n_probes;
    const char *dep; /* NULL: the command wrote none */
    size_t dep_len;
    const char *obj;
    size_t obj_len;
    const char *page; /* NULL: the build wrote no report page */
    size_t page_len;
    const char *page_name; /* its file name (no '/' and no newline), with page */
    long long started;     /* unix seconds when the command started: a file modified since then
                              (during the compile) makes the record unsafe */
} ch_manifest_record;

/* Writes the manifest of key. 1 when written; 0 when refused (a file or a probed header too
 * new, or using __DATE__/__TIME__/__TIMESTAMP__: *why says which); -1 with err on an I/O
 * error. */
int ch_manifest_write(const char *cache_dir, const char *key, const ch_manifest_record *r,
                      const char **why, ch_error *err);

#endif
