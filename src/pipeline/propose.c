/* --harness-propose's step (ch_session_propose): the session's agent asked for candidates of
 * one entry, written unverified for a person to start from (--harness-verify judges them). */
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/pipeline.h"

int ch_session_propose(ch_session *s, const ch_entry *e, const char *dir, long count,
                       ch_session_proposed_fn wrote, void *ctx, ch_error *err)
{
    ch_agent *ag = ch_session_agent(s, err);
    if (!ag)
        return -1;
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
        if (r == 1) /* the agent has nothing new */
            break;
        if (r != 0) {
            rc = -1;
            break;
        }
        char *name = ch_xasprintf("%s.%ld.cu", e->name, k);
        char *path = ch_path_join(dir, name);
        rc = ch_write_file_atomic(path, src, strlen(src), 0, err);
        if (rc == 0 && wrote)
            wrote(ctx, path, design ? design : "");
        free(path);
        free(name);
        free(src);
        free(design);
    }
    ch_checklist_free(&c);
    return rc;
}
