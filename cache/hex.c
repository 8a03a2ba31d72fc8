/* The hex text of 128-bit hashes (cache/hex.h), shared by the entry keys (key.c) and direct
 * mode's manifests (manifest.c). */
#include "hex.h"

void ch_xxh128_hex(XXH128_hash_t h, char out_hex[33])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof c.digest; i++) {
        out_hex[2 * i] = digits[c.digest[i] >> 4];
        out_hex[2 * i + 1] = digits[c.digest[i] & 15];
    }
    out_hex[32] = '\0';
}
