/* libFuzzer target for the cache archive and its entry index (cache/archive.c): any bytes must
 * unpack or be refused with a message, never read out of bounds, crash or leak. The checksums
 * inside gate almost everything, so the first byte chooses to recompute the index checksum of the
 * input first, letting the fuzzer reach the file records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../../cache/internal.h"

static const char fuzz_key[] = "0123456789abcdef0123456789abcdef";

/* Rewrites the hex after the first "\nend " so that it matches the bytes before it. */
static void fix_index_sum(char *buf, size_t len)
{
    for (size_t i = 0; i + 5 + 16 <= len; i++)
        if (memcmp(buf + i, "\nend ", 5) == 0) {
            char hex[17];
            snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits(buf, i + 1));
            memcpy(buf + i + 5, hex, 16);
            return;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int fix = data[0] & 1;
    size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    memcpy(buf, data + 1, len);
    if (fix)
        fix_index_sum(buf, len);
    ch_error err;
    ch_index idx;
    if (ch_index_parse(fuzz_key, buf, len, &idx, &err) == 0) {
        if (idx.text_len > len || memchr(buf, '\0', idx.text_len))
            abort(); /* the record is text: a NUL in it would cut a line short */
        ch_index_free(&idx);
    }
    ch_cache_hit hit;
    if (ch_archive_unpack(fuzz_key, buf, len, &hit, &err) == 0)
        ch_cache_hit_free(&hit);
    else if (!err.msg[0])
        abort();
    free(buf);
    return 0;
}
