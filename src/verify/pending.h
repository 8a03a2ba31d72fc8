/* Symbols of modules being merged (src/checklist, src/scan), referenced weakly so that this
 * branch links before they land. After the merge, delete the #pragma weak lines. */
#ifndef CH_VERIFY_PENDING_H
#define CH_VERIFY_PENDING_H

#include "ch/checklist.h"

#pragma weak ch_checklist_eval

/* ch_checklist_eval, or an error while src/checklist is not linked in. */
static inline int ch_pending_eval(const char *expr, const ch_ck_size *size, long long *value,
                                  ch_error *err)
{
    if (!ch_checklist_eval)
        return ch_error_set(err, "extent evaluation needs src/checklist (not linked)");
    return ch_checklist_eval(expr, size, value, err);
}

#endif
