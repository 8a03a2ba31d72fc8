/* libFuzzer target for the cache archive and its entry index (cache/archive.c): any bytes must
 * unpack or be refused with a message, never read out of bounds, crash or leak. The checksums
 * inside gate almost everything, so the first byte chooses to recompute the index checksum of the
 * input first, letting the fuzzer reach the file records. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cache/internal.h"
#include "index_sum.h"

static const char fuzz_key[] = "0123456789abcdef0123456789abcdef";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int fix = data[0] & 1;
    size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    memcpy(buf, data + 1, len);
    if (fix)
        fuzz_fix_index_sum(buf, len);
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
