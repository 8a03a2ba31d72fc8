/* --harness-stats, --harness-clean, --harness-evict, --harness-explain: the cache's commands. */
#include <stdio.h>

#include "driver.h"

int ch_admin_cache(ch_driver *d, const char *command, const char *value)
{
    (void)d;
    (void)value;
    fprintf(stderr, "ch-cc: error: --harness-%s is not available yet\n", command);
    return 1;
}
