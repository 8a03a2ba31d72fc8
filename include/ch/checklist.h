/* The implementation checklist (paper §4.1.1): one self-contained description per kernel.
 *
 * It is what every agent reads and what verification synthesizes test data from. Entries with a
 * body get theirs derived deterministically from the scan; for spec-only entries an agent writes
 * the JSON and ch_checklist_from_json + ch_checklist_validate decide whether it is usable.
 *
 * JSON shape (field names are the contract with agents and tests):
 * { "name", "kind", "signature", "description", "reference",
 *   "params": [ { "name", "type", "role", "elem", "direction", "extent",
 *                 "range": [lo, hi], "index_of": "p" | null, "index_lo": "expr" | null,
 *                 "index_hi": "expr" | null, "offsets_hi": "expr" | null, "rtol", "atol",
 *                 "perm": true (optional), "written_only": true (optional) } ],
 *   "sizes": { "smoke": [ {"n": 1}, ... ], "correctness": [ {...}, ... ], "tune": {...} },
 *   "device": bool, "budget": int | null, "sample": "fn" | null }
 * A size set assigns every size parameter: an integer scalar whose "range" is null (the ones
 * extents, index bounds and loop bounds use). Integer scalars with a range and float scalars take
 * a value drawn from their range. "direction" is null for scalars; "extent" is null for scalars
 * and a C expression of size parameters for pointers/arrays; "range" is null for size
 * parameters, for index arrays (integer arrays whose values are subscripts: they lie in
 * [index_lo, index_hi), index_lo null meaning 0; "index_of" names the array they subscript when
 * known, else null) and for offsets arrays (CSR row pointers: non-decreasing values in
 * [0, offsets_hi], the first 0 and the last offsets_hi, as loop bounds over an array of that
 * extent need); "perm" (index arrays only; absent means false) says their values are pairwise
 * distinct: a permutation of [index_lo, index_hi) when the extent is that many values, as a
 * scatter (`y[p[i]] = x[i]`) needs; "rtol"/"atol" are numbers for outputs (out, inout; 0 for
 * integer outputs: exact) and null otherwise. "sample" names a function of the user's file that
 * fills valid inputs (a sample(fn) clause): the reference program calls it on every synthesized
 * input set (see ch_reference_inputs). "written_only" (inout buffers only; absent means false) says
 * the body never reads an element it did not write first: inout only because it leaves some
 * elements as they were, so the kernels' least traffic writes it and does not read it.
 * Missing optional fields read as null; unknown fields are errors.
 *
 * Ownership: a ch_checklist owns everything it points to; ch_checklist_free. */
#ifndef CH_CHECKLIST_H
#define CH_CHECKLIST_H

#include <stddef.h>

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/strbuf.h"
#include "ch/types.h"

typedef struct ch_ck_param {
    char *name;
    char *type; /* canonical C spelling as in the signature */
    ch_role role;
    ch_scalar elem;
    ch_dir dir;        /* CH_DIR_NONE for scalars */
    char *extent;      /* pointers/arrays: element count expression; NULL for scalars */
    int has_range;     /* 0: no range (size parameters, index arrays) */
    double lo, hi;     /* value range of inputs (inclusive) */
    char *index_of;    /* index arrays: the array they subscript when known, else NULL */
    char *index_lo;    /* index arrays: lowest value expression; NULL: 0 */
    char *index_hi;    /* index arrays: exclusive upper bound expression; NULL: not one */
    char *offsets_hi;  /* offsets arrays: the last (largest) value's expression, else NULL */
    int perm;          /* index arrays: values pairwise distinct (ch_param.is_perm) */
    double rtol, atol; /* outputs: tolerance (0 for integers: exact) */
    int written_only;  /* inout buffers: the body never reads an element it did not write
                          first (ch_param.written_only); the kernels' bytes count it written */
} ch_ck_param;

/* One problem size: a value for every integer scalar parameter, by name. */
typedef struct ch_ck_size {
    size_t n;
    char **names;
    long long *values;
} ch_ck_size;

typedef struct ch_checklist {
    char *name;
    ch_kind kind;
    char *signature;
    char *description;
    char *reference; /* language-neutral reference snippet (C body or pseudo code) */
    ch_ck_param *params;
    size_t n_params;
    ch_ck_size *smoke;
    size_t n_smoke;
    ch_ck_size *correctness;
    size_t n_correctness;
    ch_ck_size tune;
    int device;
    int budget;   /* 0: none given */
    char *sample; /* sample(fn): the function that fills valid inputs, else NULL */
    /* the size parameter when the entry's own body is an elementwise map over it (see
     * ch_checklist_map_size), else NULL. Set from the user's body only, never read from JSON:
     * the runtime cuts such calls into chunks, which an agent's word must not decide. */
    char *map;
} ch_checklist;

void ch_checklist_free(ch_checklist *c);
/* Derives the checklist of an entry that has a body (spec-def, c-def) or, for spec-decl, the
 * parts the signature and clauses give (the agent completes description and ranges). */
int ch_checklist_derive(const ch_entry *e, ch_checklist *out, ch_error *err);
/* Puts what e's range(), offsets(), perm() and sample() clauses say into c (a checklist an agent
 * wrote for e): the user's word on valid inputs wins over the model's. Validates the result and
 * bounds what the agent may loosen: tolerances up to 1e-2 (or the pragma's tol() when larger),
 * two correctness sizes at least. */
int ch_checklist_apply_clauses(ch_checklist *c, const ch_entry *e, ch_error *err);
/* The name of e's size parameter n when e's body is an elementwise map over [0, n): element i
 * of every written buffer depends only on element i of every buffer and on scalars other than
 * n, and every buffer holds n elements (src/checklist/map.c says exactly what is accepted).
 * NULL otherwise, and for entries without a body. The name is borrowed from e. */
const char *ch_checklist_map_size(const ch_entry *e);
/* Sets c->map from e (derive does; a checklist read back from JSON needs it again). */
void ch_checklist_note_map(ch_checklist *c, const ch_entry *e);
/* Serialises to a cJSON-printed, 2-space-indented JSON object; caller frees. */
char *ch_checklist_to_json(const ch_checklist *c);
/* Parses and validates; on failure err names the field ("params[1].extent: unknown name 'k'"). */
int ch_checklist_from_json(const char *json, ch_checklist *out, ch_error *err);
/* Field-level validation of a filled structure (also run by from_json). */
int ch_checklist_validate(const ch_checklist *c, ch_error *err);
/* The fewest values of its type the range of a floating input or scalar may hold: fewer is one
 * value in all but name (a kernel using a constant for it passes). */
#define CH_CK_MIN_RANGE_VALUES 1024
/* Evaluates an extent/index expression under a size set (integer arithmetic, + - * / % ( ),
 * min/max, parameter names). Returns 0 and sets *value, or -1 with err. */
int ch_checklist_eval(const char *expr, const ch_ck_size *size, long long *value, ch_error *err);
const ch_ck_param *ch_checklist_param(const ch_checklist *c, const char *name);
/* Appends to names (ch_strvec, caller frees) every parameter name expr references, each once, in
 * order of first use (min/max as calls excluded). Returns -1 with err on a syntax error. */
int ch_checklist_expr_names(const char *expr, ch_strvec *names, ch_error *err);

/* Size sets. ch_ck_size_set adds name or replaces its value; ch_ck_size_get returns 0 and sets
 * *value when name is assigned, -1 otherwise. A zeroed ch_ck_size is the empty set. */
void ch_ck_size_set(ch_ck_size *s, const char *name, long long value);
int ch_ck_size_get(const ch_ck_size *s, const char *name, long long *value);
void ch_ck_size_copy(ch_ck_size *dst, const ch_ck_size *src);
void ch_ck_size_free(ch_ck_size *s);
/* "n=3, m=2", as reports and messages name a size (caller frees); "" for NULL or empty. */
char *ch_ck_size_text(const ch_ck_size *s);
/* True for integer scalars without a range: the parameters a size set assigns. */
int ch_ck_param_is_size(const ch_ck_param *p);

#endif
