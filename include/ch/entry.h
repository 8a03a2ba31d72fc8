/* Harness entries: what the scanner found for each `#pragma harness` (or HARNESS attribute).
 *
 * An entry is the function's signature with resolved types, the pragma's spec and clauses,
 * inferred directions and extents, and the body (as IR and as a macro-expanded token stream for
 * the cache key). Every later stage starts from a ch_entry.
 *
 * Ownership: a ch_entry_list owns its entries, and each entry owns all of its strings, params,
 * clauses and IR; ch_entry_list_free frees everything. */
#ifndef CH_ENTRY_H
#define CH_ENTRY_H

#include <stddef.h>

#include "ch/ir.h"
#include "ch/strbuf.h"
#include "ch/types.h"

/* `name: expr` pairs of extent() and tune(). */
typedef struct ch_named_expr {
    char *name;
    char *expr;
    unsigned line, col;
} ch_named_expr;

/* `p: lo, hi` of range(). */
typedef struct ch_range_expr {
    char *name;
    char *lo, *hi; /* C expressions as written (whitespace normalised) */
    unsigned line, col;
} ch_range_expr;

typedef struct ch_clauses {
    ch_named_expr *extents; /* extent(p: expr, ...) in written order */
    size_t n_extents;
    ch_range_expr *ranges; /* range(p: lo, hi, ...): input values in [lo, hi) */
    size_t n_ranges;
    ch_named_expr *offsets; /* offsets(p: last, ...): non-decreasing from 0 to last */
    size_t n_offsets;
    ch_named_expr *perms; /* perm(p: n, ...): pairwise distinct values in [0, n) */
    size_t n_perms;
    char *sample; /* sample(fn): a function of the file that fills valid inputs; NULL if none */
    unsigned sample_line, sample_col;
    ch_named_expr *tune; /* tune(n = expr, ...) */
    size_t n_tune;
    char **in, **out, **inout; /* parameter names as written */
    size_t n_in, n_out, n_inout;
    int has_tol;
    double tol;
    int device;
    int has_budget;
    int budget;                       /* as written; evolve_opts caps it at the budget in effect */
    unsigned budget_line, budget_col; /* of budget()'s number */
} ch_clauses;

typedef struct ch_param {
    char *name;
    char *type; /* canonical C spelling: "const float *restrict", "double [n][m]", "int" */
    ch_role role;
    ch_scalar elem; /* the scalar itself, or the pointee / array element type */
    int is_const;   /* pointee (or array element) is const */
    int is_restrict;
    ch_dir dir;       /* CH_DIR_NONE for scalars */
    int dir_explicit; /* from an in/out/inout clause */
    int written_only; /* written by the body, and no element read before the body wrote it:
                         inout only because some elements are left as they were (a stencil's
                         border), so the kernels' traffic writes it and never reads it */
    char *extent;     /* total element count as a C expression of scalar params; NULL: scalar */
    int extent_explicit;
    char **dims; /* ARRAY: each dimension's C expression, outermost first ("" if unsized) */
    size_t ndims;
    int is_index;        /* integer array used as a subscript of another array, or given a
                            range() */
    char *index_lo;      /* is_index: lowest valid value (a C expression); NULL: 0 */
    char *index_hi;      /* is_index: valid values are [index_lo, index_hi) (a C expression) */
    int is_perm;         /* is_index and pairwise distinct (a permutation when the extent is
                            index_hi - index_lo): its values are the subscripts of a plain store
                            (`y[p[i]] = ...`), where a repeated value would make the writes race,
                            or a perm() clause says so */
    char *offsets_hi;    /* an offsets array (CSR row pointers): its elements start or bound a loop
                            whose counter subscripts an array of this extent, so its values are
                            non-decreasing positions in [0, offsets_hi]; else NULL */
    int values_explicit; /* index_lo/index_hi, offsets_hi or the value range below come from a
                            range(), offsets() or perm() clause, not from inference */
    int has_range;       /* floating arrays given range(p: lo, hi): values in [lo, hi] */
    double lo, hi;
} ch_param;

/* A function the body calls whose definition the translation unit shows (a `static inline`
 * helper in the file or a header of the project; not the system's). Its text is part of the
 * entry's meaning: the cache key covers it, so changing a helper regenerates the kernel. */
typedef struct ch_entry_helper {
    char *name;
    /* C text: `typedef` lines for the scalar typedefs it names, then its definition as clang
     * prints it from the AST (macros expanded), callees before callers */
    char *source;
    size_t definition_at; /* offset in source where the definition follows the typedefs */
    /* scalar parameters and result, scalar locals, no static locals, no globals, calls only
     * to other such helpers or to library functions: it can run as a __device__ function */
    int device_ok;
} ch_entry_helper;

typedef struct ch_entry {
    char *name;
    ch_kind kind;
    char *file;         /* as given on the command line */
    unsigned line, col; /* of the `#pragma` (or the attribute) */
    unsigned fn_line, fn_col;
    char *spec;         /* decoded spec string, NULL when bare */
    char *clauses_text; /* the clauses as written, whitespace-normalised ("" if none) */
    ch_clauses clauses;
    ch_scalar return_type; /* CH_T_VOID for now */
    ch_param *params;
    size_t n_params;
    char *
        signature; /* canonical prototype: "void saxpy(int n, float a, const float *x, float *y)" */
    int has_body;
    int is_static;               /* declared `static`: only its own translation unit can call it */
    int is_cuda;                 /* scanned as CUDA C++ (a .cu file, or -x cu) */
    size_t body_begin, body_end; /* byte offsets of `{` and one past `}` in the file */
    unsigned body_line, body_col;
    size_t name_offset;       /* byte offset of the function name token in the file */
    char *body_tokens;        /* macro-expanded token stream of the body, tokens joined by ' ' */
    ch_ir *body;              /* CH_IR_BLOCK, NULL for declarations */
    ch_entry_helper *helpers; /* functions the body calls, transitively, callees first */
    size_t n_helpers;
    /* sample(fn): fn's definition as clang prints it (part of the cache key: a changed
     * sample function changes the test data, so a recorded refusal is retried); else NULL */
    char *sample_source;
} ch_entry;

typedef struct ch_entry_list {
    ch_entry *items;
    size_t len;
} ch_entry_list;

void ch_entry_list_init(ch_entry_list *l);
void ch_entry_list_free(ch_entry_list *l);
void ch_entry_free(ch_entry *e);
/* Frees n range() items and the array. */
void ch_range_exprs_free(ch_range_expr *v, size_t n);
/* How a parameter is spelled in CUDA C++ (launchers, scaffolds, dispatchers): scalars as their
 * type, pointers as "const float *__restrict__ x", and C99 array parameters flattened to a
 * pointer to their element type ("double *A", row-major), which is the same ABI as the C
 * declaration `double A[n][m]`. Appends to out. */
void ch_param_cxx_decl(const ch_param *p, ch_strbuf *out);
/* "int n, float a, const float *x, float *y" (C++ spellings, as above). */
void ch_entry_cxx_params(const ch_entry *e, ch_strbuf *out);
/* "n, a, x, y" */
void ch_entry_call_args(const ch_entry *e, ch_strbuf *out);

/* The helper called name, or NULL. */
const ch_entry_helper *ch_entry_helper_named(const ch_entry *e, const char *name);

/* The parameter called name, or NULL. */
const ch_param *ch_entry_param(const ch_entry *e, const char *name);

#endif
