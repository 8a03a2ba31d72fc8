/* For the fuzz targets over cache archives (fuzz_archive, fuzz_sign): the index record guards
 * itself with a checksum that random bytes never match, so a target may recompute it first to
 * let the fuzzer reach the records behind it. */
#ifndef CH_FUZZ_INDEX_SUM_H
#define CH_FUZZ_INDEX_SUM_H

#include <stddef.h>

/* Rewrites the hex after the first "\nend " so that it matches the bytes before it. */
void fuzz_fix_index_sum(char *buf, size_t len);

#endif
