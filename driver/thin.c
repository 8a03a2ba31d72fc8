/* The thin front binary's side of admin and harness commands: it execs the full binary with
 * the original arguments. Keeping libclang and libcurl out of this binary is what makes the
 * pass-through path cost one exec and a scan of the file's bytes, nothing more. */
#include <stdlib.h>
#include <unistd.h>

#include "direct.h"
#include "driver.h"

/* The original argv (program name included), for re-exec; set once by main. */
int ch_admin_run(ch_driver *d, int *exit_code)
{
    if (!ch_driver_has_admin_command(d))
        return 0;
    *exit_code = ch_driver_delegate(d->argv_full);
    return 1;
}

/* A warm rebuild whose manifest still matches is served here (direct.c), without loading
 * libclang or starting a compiler; everything else is the full binary's. */
int ch_harness_compile(ch_driver *d, const int *annotated)
{
    long input = ch_direct_input(d, annotated);
    int status;
    if (input >= 0 && ch_direct_serve(d, (size_t)input, &status))
        return status;
    return ch_driver_delegate(d->argv_full);
}
