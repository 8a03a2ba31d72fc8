/* Delinearisation of flattened subscripts (internal to src/translate).
 *
 * Everyday C indexes a matrix through a plain pointer: `a[i*n + j]`, `b[(i*n + j)*k + l]`. The
 * product of a counter and a parameter is not affine, so isl would see every such access as
 * "some element of a" and every write as a dependence with every other. A subscript that is a
 * polynomial in the counters and integer parameters of the row-major shape
 * `((X*n1 + A1)*n2 + A2)...` with affine X, A1, A2.. is split here into the dimensions
 * [X, A1, A2, ..] of an array whose inner sizes are the parameters [n1, n2, ..]. The split is
 * only sound where every inner subscript stays within its size (0 <= A_d < n_d) over the
 * statement's domain; the model proves that with isl before it uses the split (model.c), and
 * keeps the over-approximation otherwise. This is the idea of Polly's delinearisation, done on
 * the source expression rather than on LLVM's scalar evolution. */
#ifndef CH_TR_DELIN_H
#define CH_TR_DELIN_H

#include <stddef.h>

#include "ch/ir.h"
#include "ch/strbuf.h"

#define CH_TR_DELIN_MAX_DIMS 4

/* How the subscript's variables are read: integer scalar parameters may be sizes; the other
 * variables a subscript may mention are loop counters. */
typedef enum ch_tr_delin_var {
    CH_TR_DV_OTHER = 0,
    CH_TR_DV_PARAM,
    CH_TR_DV_COUNTER
} ch_tr_delin_var;
typedef ch_tr_delin_var (*ch_tr_delin_classify)(const char *name, const void *ctx);

typedef struct ch_tr_delin {
    size_t ndims;                           /* >= 2 */
    const char *size[CH_TR_DELIN_MAX_DIMS]; /* size[d] for d >= 1 (names borrowed from
                                               the IR); size[0] is NULL: unbounded */
    ch_strbuf dim[CH_TR_DELIN_MAX_DIMS];    /* each dimension's subscript, isl text */
} ch_tr_delin;

/* Splits subscript x. Returns 0 and fills *out (free it with ch_tr_delin_free) when x is such
 * a linearisation with at least two dimensions; 1 when it is not (affine already, not a
 * polynomial, or of no row-major shape), leaving *out empty. */
int ch_tr_delinearize(const ch_ir *x, ch_tr_delin_classify classify, const void *ctx,
                      ch_tr_delin *out);
void ch_tr_delin_free(ch_tr_delin *d);

/* Appends a name as isl text reads it (a trailing underscore after isl's keywords). */
void ch_tr_isl_name(ch_strbuf *sb, const char *name);

#endif
