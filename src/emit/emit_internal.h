/* Emit's functions shared between its files (not part of ch/emit.h). */
#ifndef CH_EMIT_INTERNAL_H
#define CH_EMIT_INTERNAL_H

#include "ch/entry.h"
#include "ch/strbuf.h"

/* Appends expr with every scalar parameter name widened to long long. */
void ch_emit_widen(const ch_entry *e, const char *expr, ch_strbuf *out);

#endif
