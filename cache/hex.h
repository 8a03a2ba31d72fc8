/* The text form of a 128-bit XXH3 hash: 32 lower-case hex digits, big-endian (XXH128's canonical
 * byte order), as entry keys, object keys and manifest keys are written. Not installed; only
 * cache/ includes it. Its own object (cache/hex.c), so that the thin binary's manifests do not
 * pull in key.c. */
#ifndef CH_CACHE_HEX_H
#define CH_CACHE_HEX_H

#include <xxhash.h>

void ch_xxh128_hex(XXH128_hash_t h, char out_hex[33]);

#endif
