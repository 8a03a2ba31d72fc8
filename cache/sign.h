/* Signatures of remote cache entries (Ed25519, libsodium). A writer signs the message
 *   ch-cc-signed-entry 1
 *   key <32 hex>
 *   objects <0|1>                       (1: the signer vouches for objects/ files too)
 *   meta <name>=<value>                 (every meta line except sig=, in entry order)
 *   file <name> <BLAKE2b-256 hex>       (every file covered, in entry order)
 * and records "sig=<public key hex> <0|1> <signature hex>" as a meta line of the archive. A
 * reader accepts the entry only when that public key is one it trusts and the signature holds
 * over the message rebuilt from what it received, so a swapped file, a re-labelled key or an
 * added meta line all fail. Not installed; only cache/ includes it. */
#ifndef CH_CACHE_SIGN_H
#define CH_CACHE_SIGN_H

#include <stddef.h>

#include "ch/cache.h"
#include "ch/error.h"
#include "ch/strbuf.h"

#define CH_SIGN_PUBLIC_BYTES 32
#define CH_SIGN_SECRET_BYTES 64
#define CH_SIGN_META         "sig="

typedef struct ch_signer {
    unsigned char secret[CH_SIGN_SECRET_BYTES];
    unsigned char public[CH_SIGN_PUBLIC_BYTES];
} ch_signer;

typedef struct ch_trust {
    unsigned char (*keys)[CH_SIGN_PUBLIC_BYTES]; /* owned */
    size_t n;
} ch_trust;

/* Reads a secret key file written by ch_sign_keygen (128 hex digits, optional newline). */
int ch_sign_load_secret(const char *path, ch_signer *out, ch_error *err);
/* spec: public keys (64 hex digits each) separated by commas or white space, or the path of a
 * file holding such keys (one a line, '#' comments). An empty spec trusts nobody. */
int ch_trust_parse(const char *spec, ch_trust *out, ch_error *err);
void ch_trust_free(ch_trust *t);

/* The message a signature covers; files named objects/... are left out unless with_objects. */
void ch_sign_message(const char *key, const ch_cache_file *files, size_t n, const ch_strvec *meta,
                     int with_objects, ch_strbuf *out);
/* The value of the sig= meta line for an entry (caller frees). */
char *ch_sign_entry(const ch_signer *s, const char *key, const ch_cache_file *files, size_t n,
                    const ch_strvec *meta, int with_objects);
/* 0: signed by a trusted key; *with_objects tells whether objects/ files are covered.
 * -1 with err saying why not (unsigned, untrusted signer, bad signature). */
int ch_sign_check(const ch_trust *t, const char *key, const ch_cache_file *files, size_t n,
                  const ch_strvec *meta, int *with_objects, ch_error *err);

/* Whether a local copy of a remote entry may still be used: the sig= line of its meta (kept
 * with the copy) names the key that signed it, which must still be in t; a key removed from
 * trusted_keys takes back what it signed. 0: usable (or no sig= line: built locally); -1 with
 * err naming the signer. */
int ch_sign_signer_trusted(const ch_trust *t, const ch_strvec *meta, ch_error *err);

/* Nonzero for a file that is a compiled object (objects/...). */
int ch_sign_is_object(const char *name);

/* BLAKE2b-256 of len bytes as 64 lowercase hex digits (what signed messages name files by). */
#define CH_SIGN_HASH_HEX 64
void ch_sign_hash_hex(const void *data, size_t len, char out[CH_SIGN_HASH_HEX + 1]);
/* A detached signature over msg as "<public key hex> <signature hex>" (caller frees): for
 * records that carry their own message (the object records of cache/storage/objects.c). */
char *ch_sign_blob(const ch_signer *s, const void *msg, size_t len);
/* 0: value (as ch_sign_blob writes it) is a signature over msg by a key in t; -1 with err
 * saying why not (malformed, untrusted signer, altered message). what names the thing signed
 * in messages ("object record"). */
int ch_sign_blob_check(const ch_trust *t, const char *value, const void *msg, size_t len,
                       const char *what, ch_error *err);
#endif
