/* Objects on a remote, one item each, listed by a signed record (see the layout in front.c's
 * header comment and docs/cache-format.md). An entry's compiled objects (objects/<okey>.o) do
 * not travel inside the entry's archive: each is an item of its own, named by the entry key and
 * its content hash, and a small record lists them:
 *
 *   ch-cc-objects 1
 *   key <32 hex>                        the entry key
 *   entry <64 hex>                      BLAKE2b-256 of the entry's signed message (objects 0):
 *                                       the record is for this version of the entry only
 *   object <size> <64 hex> <name>       each object: bytes, BLAKE2b-256, "objects/<okey>.o"
 *   sig <public key hex> <signature hex>  over every byte above this line
 *
 * A reader takes an object only when a record signed by a trusted key names the entry key, the
 * entry as the reader received it, and the object's exact size and hash: an object swapped in
 * from another entry, another version of this one or an untrusted writer fails one of them.
 * Not installed; only cache/ includes it. */
#ifndef CH_CACHE_STORAGE_OBJECTS_H
#define CH_CACHE_STORAGE_OBJECTS_H

#include <stddef.h>

#include "../sign.h"
#include "ch/cache.h"
#include "ch/error.h"
#include "ch/strbuf.h"

typedef struct ch_object_ref {
    char *name; /* "objects/<okey>.o" (owned) */
    unsigned long long size;
    char hash[CH_SIGN_HASH_HEX + 1];
} ch_object_ref;

typedef struct ch_object_record {
    ch_object_ref *objects; /* owned; ch_object_record_free */
    size_t n;
} ch_object_record;

void ch_object_record_free(ch_object_record *r);

/* BLAKE2b-256 (hex) of the message an entry's signature covers without its objects: what a
 * record is bound to. files may include objects (left out); meta's sig= lines are left out. */
void ch_objects_entry_hash(const char *key, const ch_cache_file *files, size_t n,
                           const ch_strvec *meta, char out[CH_SIGN_HASH_HEX + 1]);

/* Item names (backend.h): "<key>.objects.<32 hex of entry_hash>" for the record and
 * "<key>.o.<32 hex of the object's hash>" for an object. Caller frees. */
char *ch_objects_record_item(const char *key, const char *entry_hash);
char *ch_objects_object_item(const char *key, const char *object_hash);

/* Appends the signed record of the objects/ files among files to out. */
void ch_objects_record_format(const ch_signer *s, const char *key, const char *entry_hash,
                              const ch_cache_file *files, size_t n, ch_strbuf *out);

/* Parses the record in data and checks it: well formed, for key and entry_hash, signed by a
 * key in t. 0 with out filled; -1 with err saying why it is refused. */
int ch_objects_record_check(const ch_trust *t, const char *key, const char *entry_hash,
                            const char *data, size_t len, ch_object_record *out, ch_error *err);

#endif
