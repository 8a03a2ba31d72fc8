/* Printing a harness body's IR as CUDA C++ (src/translate/cexpr.c): the expression and
 * statement printer every translator shares.
 *
 * Expressions get minimal parentheses; float literals keep their precision; C math calls keep
 * the precision the user wrote (float stays float) and convert integer arguments as C would;
 * C99 array parameters (double A[n][m]) are flattened to row-major subscripts of device
 * pointers. The printer borrows everything it is given. */
#ifndef CH_CEXPR_H
#define CH_CEXPR_H

#include "ch/entry.h"
#include "ch/ir.h"
#include "ch/strbuf.h"
#include "ch/types.h"

typedef struct ch_cx {
    const ch_entry *entry;
    ch_strbuf *out;
    /* How a variable of the body is spelled in the generated code, or NULL for as written
     * (a scalar kept in device memory prints as `ch_s->v`). May be NULL. */
    const char *(*rename)(void *ctx, const char *name);
    /* The type a `for (v = ...)` init must declare v with (a counter the C function declared
     * at its top), or NULL when v is declared already. May be NULL. */
    const char *(*declare_counter)(void *ctx, const char *name);
    void *ctx;
    /* Floating products as __fmul_rn/__dmul_rn: no fused multiply-add, so every operation
     * rounds as C on the host does (the translator's kernels reproduce the C results). */
    int exact_mul;
    /* Prints an array access (the outermost CH_IR_INDEX of a subscript chain) another way
     * (a tile in shared memory, an accumulator in a register) and returns 1, or returns 0 for
     * the access as written. May be NULL. */
    int (*access)(void *ctx, const ch_ir *index, ch_strbuf *out);
} ch_cx;

void ch_cx_expr(const ch_cx *cx, const ch_ir *e);
void ch_cx_stmt(const ch_cx *cx, const ch_ir *s, int indent);
/* The scalar type an expression has as the user wrote it (declared types; float math stays
 * float), used for math-function precision. */
ch_scalar ch_cx_expr_type(const ch_cx *cx, const ch_ir *e);
/* Nonzero for the C library calls printed on the device (math.h, abs): free of side effects. */
int ch_cx_known_call(const char *name);
/* ch_cx_known_call, or a helper of e that can be a device function (ch_entry_helper). */
int ch_cx_callable(const ch_entry *e, const char *name);
/* The device_ok helpers of e as __host__ __device__ functions (typedefs they need first), each
 * renamed by a macro to ch_user_NAME; nothing when there are none. */
void ch_cx_helpers(const ch_entry *e, ch_strbuf *out);
/* A local variable's declared scalar type anywhere in the body (a local array's element type),
 * or CH_T_UNKNOWN. */
ch_scalar ch_cx_local_type(const ch_entry *e, const char *name);

#endif
