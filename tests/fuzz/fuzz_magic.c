/* libFuzzer target for the constant readers (src/verify/magic_sizes.c): the sizes, powers of two
 * and values read from any model-written source, candidate or reference, come back within their
 * bounds, never a crash, a read past the text or a leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    memcpy(src, data, size);
    src[size] = '\0';
    ch_magic_consts k = {0};
    ch_magic_harvest(src, &k);
    ch_magic_harvest_shifts(src, &k);
    if (k.n_thr > CH_MAGIC_MAX_CONSTS || k.n_res > CH_MAGIC_MAX_CONSTS)
        abort();
    for (size_t i = 0; i < k.n_thr; i++)
        if (k.thr[i] < 2)
            abort(); /* 0 and 1 are never thresholds: every checklist's sizes reach them */
    double v[CH_MAGIC_MAX_CONSTS];
    size_t n = ch_magic_values(src, v, CH_MAGIC_MAX_CONSTS);
    if (n > CH_MAGIC_MAX_CONSTS)
        abort();
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0 || v[i] == 1)
            abort();
    free(src);
    return 0;
}
