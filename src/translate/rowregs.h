/* A block per row with the row in registers (rowregs.c): block-per-row kernels (rowwise.h) whose
 * loops over a row reach each array at the same element of the row (x[r * n + j] in every loop)
 * keep a thread's values of those arrays in registers between the loops, for variants that ask
 * for it (ch_tr_cuda_opts.row_regs). Internal to src/translate. */
#ifndef CH_TRANSLATE_ROWREGS_H
#define CH_TRANSLATE_ROWREGS_H

#include <isl/ast.h>

#include "printer.h"

/* What the kernel keeps in registers (owned by the printer while it prints the kernel). */
typedef struct tr_rowregs tr_rowregs;

/* The registers of the block-per-row kernel k under `mark`, or NULL when it has not that shape
 * (an array written outside the loops over a row, an access at another element of the row,
 * loops nested inside a loop over the row, device pointers that may alias). */
tr_rowregs *tr_rowregs_plan(const printer *pr, const ch_tr_kernel *k, isl_ast_node *mark);
void tr_rowregs_free(tr_rowregs *r);
/* The kernel's comment lines on the registers (which arrays, why). */
void tr_rowregs_comment(const printer *pr, ch_strbuf *out);
/* The body of the loop over the rows: the registers' path when the row fits them, the
 * block-per-row path else (the same for every thread of a block: it depends on the row and
 * the block's size only). */
void tr_rowregs_row(printer *pr, isl_ast_node *body, int indent);
/* The head of a loop over a row on the registers' path (after the indent): a thread's values,
 * unrolled, each under the loop's bounds. Its body goes at indent + 2 and tr_rowregs_loop_close
 * ends it. */
void tr_rowregs_loop_open(printer *pr, isl_ast_node *f, const char *name, int indent);
void tr_rowregs_loop_close(printer *pr, int indent);
/* ch_cx's access hook on the registers' path (ctx: the printer): an element of an array kept in
 * registers, read or written through its register. */
int tr_rowregs_access(void *ctx, const ch_ir *index, ch_strbuf *out);
/* The device helpers (templates/rowregs.cu) when `code` uses them. */
void tr_rowregs_support(ch_strbuf *out, const char *code);

#endif
