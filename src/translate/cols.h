/* Several values of c1 a thread with 16-byte loads and stores (cols.c): the analysis of a
 * plain 2-D kernel's statement, and the access hook of its vector path. Private to
 * src/translate/. */
#ifndef CH_TRANSLATE_COLS_H
#define CH_TRANSLATE_COLS_H

#include <stddef.h>

#include "printer.h"

enum { COLS_MAX_ACCESSES = 24 };

/* An access of the statement along the columns: the element `col + d` of a row that does not
 * vary with the column counter. */
typedef struct tr_cols_access {
    const ch_ir *node;  /* the access (outermost CH_IR_INDEX; borrowed from the entry's IR) */
    const ch_param *pa; /* its array */
    long d;             /* the constant offset from the column */
    int lo, hi;         /* the vectors of the thread's window it needs, relative to its first */
} tr_cols_access;

typedef struct tr_cols {
    int v;                  /* values of c1 a thread: one 16-byte vector */
    ch_scalar elem;         /* float or double */
    const ch_tr_stmt *stmt; /* the kernel's one statement `X = e` */
    tr_cols_access target;  /* X (d 0) */
    tr_cols_access reads[COLS_MAX_ACCESSES];
    size_t n_reads;
} tr_cols;

/* The plan for statement s whose column counter is `col` (the C counter bound to c1), or NULL
 * when the statement has another shape (caller frees). */
tr_cols *tr_cols_plan(const printer *pr, const ch_tr_stmt *s, const char *col, int max_v);
/* ch_cx's access hook inside the vector path (pr->cols_on): a read is its window's register
 * for column ch_t1, X the output register; 0 for any other access. */
int tr_cols_access_hook(void *ctx, const ch_ir *index, ch_strbuf *out);

#endif
