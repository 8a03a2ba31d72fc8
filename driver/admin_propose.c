/* --harness-propose=DIR [--harness-entry=NAME] [options] FILE: asks the configured agent for
 * its candidates for each entry of FILE (as many as the budget setting allows, or until the
 * agent has nothing new) and writes them, unverified, as DIR/NAME.K.cu. A starting point for
 * hand-written kernels, which --harness-verify then judges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "driver.h"

/* One line per file written: its path and the agent's design name. */
static void print_proposed(void *ctx, const char *path, const char *design)
{
    (void)ctx;
    ch_driver_print(stdout, "%s\t%s\n", path, design);
}

int ch_admin_propose(ch_driver *d, const char *dir)
{
    ch_error err;
    ch_error_clear(&err);
    const ch_input *in = ch_admin_source(d);
    if (!dir || !*dir || !in) {
        fprintf(stderr, "ch-cc: error: usage: ch-cc --harness-propose=DIR [--harness-entry=NAME] "
                        "[options] FILE\n");
        return 2;
    }
    long count = 0;
    if (ch_config_long(&d->cfg, "budget", &count, &err) != 0 || ch_mkdir_p(dir, &err) != 0) {
        ch_driver_report(&err);
        return 2;
    }
    ch_entry_list l;
    ch_entry_list_init(&l);
    const ch_entry *first = NULL;
    const char *name = ch_admin_option(d, "entry", &(int){0});
    int status = 1;
    /* the build's session: the same scan, targets and agent (with this machine's GPU) */
    ch_session s;
    ch_driver_session_open(d, &s);
    if (ch_session_scan_named(&s, in->path, in->lang, name, 0, &l, &first, &err) == 0) {
        status = 0;
        for (size_t i = 0; i < l.len && status == 0; i++)
            if (!(name && *name) || strcmp(l.items[i].name, name) == 0)
                status =
                    ch_session_propose(&s, &l.items[i], dir, count, print_proposed, NULL, &err) == 0
                        ? 0
                        : 1;
    }
    if (status != 0)
        ch_driver_report(&err);
    ch_driver_session_close(&s); /* closes the agent */
    ch_entry_list_free(&l);
    return status;
}
