/* The harness path of a compile: annotated inputs go through scan -> checklist -> cache or
 * generation -> emit; everything else of the command is compiled as the real compiler would.
 * Until the later stages land, annotated files compile as plain host code. */
#include <stdlib.h>

#include "ch/proc.h"
#include "driver.h"

int ch_harness_compile(ch_driver *d, const int *annotated)
{
    (void)annotated;
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return 1;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push_owned(&argv, compiler);
    ch_strvec_pushv(&argv, &d->args.expanded);
    int status = ch_driver_spawn(argv.items);
    ch_strvec_free(&argv);
    return status;
}
