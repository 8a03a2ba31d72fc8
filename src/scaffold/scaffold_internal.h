/* Scaffold internals shared by its files (not part of ch/scaffold.h). */
#ifndef CH_SCAFFOLD_INTERNAL_H
#define CH_SCAFFOLD_INTERNAL_H

#include "ch/checklist.h"
#include "ch/strbuf.h"

/* Copies an extent expression, renaming min( / max( to the scaffold's ch_min / ch_max. */
void ch_scaffold_add_extent(ch_strbuf *out, const char *extent);

/* Host-pointer entries: the runtime's interface (weak), a thunk calling NAME_device_launcher,
 * and `static void NAME_ch_whole_call(<launcher params>)`, the whole call as the dispatcher
 * makes it: through ch_rt_call_v1 when the candidate has a device launcher and libch_runtime.a
 * is linked, else NAME_launcher; plus `static int ch_rt_path(void)` saying which. Needs the
 * scaffold's ch_count, ch_min and ch_max and the weak device launcher declaration before it. */
void ch_scaffold_runtime_call(ch_strbuf *out, const ch_checklist *c);

#endif
