/* --harness-propose=DIR [--harness-entry=NAME] [options] FILE: asks the configured agent for
 * its candidates for each entry of FILE (as many as the budget setting allows, or until the
 * agent has nothing new) and writes them, unverified, as DIR/NAME.K.cu. A starting point for
 * hand-written kernels, which --harness-verify then judges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/agent.h"
#include "ch/checklist.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "driver.h"

static int propose_entry(ch_agent *ag, const ch_entry *e, const char *dir, long count,
                         ch_error *err)
{
    ch_checklist c;
    memset(&c, 0, sizeof c);
    if (ag->ops->checklist(ag, e, &c, err) != 0)
        return -1;
    int rc = 0;
    for (long k = 0; k < count && rc == 0; k++) {
        ch_kernel_request req = {
            .checklist = &c, .entry = e, .round = (int)k, .fresh_design = k > 0};
        char *src = NULL, *design = NULL;
        int r = ag->ops->kernel(ag, &req, &src, &design, err);
        if (r == 1)
            break;
        if (r != 0) {
            rc = -1;
            break;
        }
        char *name = ch_xasprintf("%s.%ld.cu", e->name, k);
        char *path = ch_path_join(dir, name);
        rc = ch_write_file_atomic(path, src, strlen(src), 0, err);
        if (rc == 0)
            printf("%s\t%s\n", path, design ? design : "");
        free(path);
        free(name);
        free(src);
        free(design);
    }
    ch_checklist_free(&c);
    return rc;
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
    ch_agent *ag = NULL;
    int status = 1;
    /* the build's session: the same scan, targets and agent (with this machine's GPU) */
    ch_session s;
    ch_driver_session_open(d, &s);
    if (ch_admin_scan_entries(&s, in, name, 0, &l, &first, &err) == 0 &&
        (ag = ch_session_agent(&s, &err)) != NULL) {
        status = 0;
        for (size_t i = 0; i < l.len && status == 0; i++)
            if (!(name && *name) || strcmp(l.items[i].name, name) == 0)
                status = propose_entry(ag, &l.items[i], dir, count, &err) == 0 ? 0 : 1;
    }
    if (status != 0)
        ch_driver_report(&err);
    ch_driver_session_close(&s); /* closes the agent */
    ch_entry_list_free(&l);
    return status;
}
