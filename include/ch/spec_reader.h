/* The builtin agent's reader of natural-language specs (issue 19): a spec-only entry's words
 * and declaration become a C reference (the host path, and what the translator maps to
 * kernels) without a model.
 *
 * Two readings, tried in order: a formula written in the words (`y[i] = a*x[i] + y[i] for every
 * i below n`, `C[i][j] = sum_k A[i][k]*B[k][j]`), then the catalog of named operations
 * (src/agent/spec/catalog/operations.txt, built into the binary) bound to the declaration by
 * parameter names, types, const and order. A spec that neither reading fits, or that two
 * catalog entries fit equally, is refused with a located error that lists what was understood;
 * a wrong reference is never written. */
#ifndef CH_SPEC_READER_H
#define CH_SPEC_READER_H

#include "ch/entry.h"
#include "ch/error.h"

/* Words every reference the reader writes carries (the builtin's test author knows its own). */
#define SPEC_READER_MARK "Written by ch-cc's builtin spec reader"

/* What the reader made of one entry. Owned; ch_spec_reading_free. */
typedef struct ch_spec_reading {
    char *how;       /* one line: "formula: ..." or "catalog operation gemm (a=A, b=B, ...)" */
    char *body;      /* the function body, braces included */
    char *reference; /* a whole C file: includes, a comment with `how`, the definition */
} ch_spec_reading;

/* Reads e->spec against e's declaration. Returns 0 and fills out, or -1 with a located err
 * ("file:line:col: error: NAME: ...") naming what was understood. */
int ch_spec_read(const ch_entry *e, ch_spec_reading *out, ch_error *err);

void ch_spec_reading_free(ch_spec_reading *r);

/* The entry e would be had its reference (a file ch_spec_read wrote, NAME_reference in it) been
 * written as its body: scanned from a file in a temporary directory, so that the translator
 * maps the reference to kernels like any C body. Returns 0 and appends the one entry to out
 * (the caller frees the list), or -1 with err. */
int ch_spec_reference_entry(const ch_entry *e, const char *reference_c, ch_entry_list *out,
                            ch_error *err);

#endif
