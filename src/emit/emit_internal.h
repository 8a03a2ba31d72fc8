/* Emit's functions shared between its files (not part of ch/emit.h). */
#ifndef CH_EMIT_INTERNAL_H
#define CH_EMIT_INTERNAL_H

#include "ch/entry.h"
#include "ch/strbuf.h"

/* Appends expr with every scalar parameter name widened to long long. */
void ch_emit_widen(const ch_entry *e, const char *expr, ch_strbuf *out);

/* 1 when the candidate's code names shared memory: its unit zeroes shared memory before every
 * call of its launcher (scrub.c says why). */
int ch_emit_needs_scrub(const char *kernel_src);
/* Appends the scrub kernel and `static int ch_NAME_scrub(void)` (0 when queued on the default
 * stream, else a CUDA error: the call then takes the host path). */
void ch_emit_scrub(const ch_entry *e, ch_strbuf *out);

#endif
