/* If-conversion of conditions their own branches change (internal to src/translate).
 *
 * The model guards every statement of a branch whose condition is not affine with that
 * condition, so the kernel tests it again before each statement. That is the C meaning only
 * while no statement of the branch changes what the condition reads: `if (s < best) { best =
 * s; at = j; }` (an argmin) would test `s < best` again after `best = s`. Such an `if` is
 * rewritten as `{ int ch_ifN = (cond); if (ch_ifN) ... }`: the condition is evaluated once, into a
 * local scalar that the model privatises like any other. */
#ifndef CH_TR_IFCONV_H
#define CH_TR_IFCONV_H

#include "ch/entry.h"

/* A copy of e whose body has every such `if` converted, or NULL when e has none. The copy
 * borrows everything from e except its body; free it with ch_tr_if_converted_free. */
ch_entry *ch_tr_if_convert(const ch_entry *e);
void ch_tr_if_converted_free(ch_entry *c);

#endif
