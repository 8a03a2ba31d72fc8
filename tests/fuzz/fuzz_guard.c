/* libFuzzer target for the source guard (src/verify/source_guard.c): any model-written source,
 * as candidate or as reference, must get a verdict (and, refused, a message with a line), never
 * a crash, a read past the text or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch/source_guard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    memcpy(src, data, size);
    src[size] = '\0';
    free(ch_source_phase2(src));
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_guard_finding f;
    if (ch_source_guard(src, CH_GUARD_CANDIDATE, &msg, &f) != 0 && (!msg.data || !f.check))
        abort();
    ch_strbuf_reset(&msg);
    if (ch_source_guard(src, CH_GUARD_REFERENCE, &msg, &f) != 0 && (!msg.data || !f.check))
        abort();
    ch_strbuf_free(&msg);
    free(src);
    return 0;
}
