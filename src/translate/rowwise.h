/* A block per row (rowwise.c): the printing of warp-per-row kernels (ch_tr_kernel.warp_rows)
 * with a whole block on each value of the mapped dimension instead of a warp, for variants
 * that ask for it (ch_tr_cuda_opts.block_rows). Internal to src/translate. */
#ifndef CH_TRANSLATE_ROWWISE_H
#define CH_TRANSLATE_ROWWISE_H

#include "printer.h"

/* Whether kernel k is printed a block per row under pr's options. */
int tr_rowwise_applies(const printer *pr, const ch_tr_kernel *k);
/* The kernel's comment lines on the mapping below the mapped dimension (why this shape). */
void tr_rowwise_comment(const ch_tr_kernel *k, ch_strbuf *out);
/* The kernel's first lines: the row a block starts at, the step between a block's rows and
 * the thread's index in the block (ch_g0, ch_n0, ch_lane, as the warp-per-row kernel names
 * them). */
void tr_rowwise_prologue(ch_strbuf *out);
/* After a reduction loop spread over the block's threads: the threads' parts of the
 * reduction into `v` (operation op: "+", "min", "max"; type t) combined, warps first (with
 * shuffles) and then the warps' results through shared memory, and the result given to
 * every thread. */
void tr_rowwise_reduce(printer *pr, const char *v, const char *op, ch_scalar t, int indent);

#endif
