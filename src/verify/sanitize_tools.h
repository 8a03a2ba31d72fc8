/* Which compute-sanitizer tools a candidate needs (sanitize_tools.c says why each may be left
 * out). Internal to src/verify. */
#ifndef CH_VERIFY_SANITIZE_TOOLS_H
#define CH_VERIFY_SANITIZE_TOOLS_H

#include <cjson/cJSON.h>

enum {
    CH_SAN_MEMCHECK = 1,  /* every kernel */
    CH_SAN_RACECHECK = 2, /* shared-memory hazards */
    CH_SAN_SYNCCHECK = 4, /* barrier and warp-synchronous misuse */
    CH_SAN_INITCHECK = 8, /* reads of device memory the candidate allocated and never wrote */
    CH_SAN_ALL = 15
};

/* The tools (CH_SAN_* bits) for a candidate of source src whose compile stage recorded
 * resources (the array of ptxas lines: function, registers, smem_bytes, line). memcheck always;
 * every tool when resources are missing. */
unsigned ch_sanitizer_tools(const char *src, const cJSON *resources);

#endif
