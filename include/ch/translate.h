/* The builtin C-to-CUDA translator on isl: polyhedral model, dependences and parallel loops.
 *
 * This is the first stage of src/translate (DESIGN.md section 3): from a harness entry's body
 * IR it builds the polyhedral model (iteration domains, access relations, the original 2d+1
 * schedule) on isl, computes exact flow, anti and output dependences with isl's dataflow
 * analysis, and tells for every loop whether it carries a dependence (and whether what it
 * carries is a reduction candidate). Schedule transformation, mapping and CUDA printing build
 * on these structures later.
 *
 * Ownership: a ch_tr_model owns its isl_ctx and every isl object in it; it borrows the entry
 * (and its IR), which must outlive it. A ch_tr_deps owns its isl objects, which live in the
 * model's isl_ctx: free the deps before the model. */
#ifndef CH_TRANSLATE_H
#define CH_TRANSLATE_H

#include <stddef.h>

#include <isl/ctx.h>
#include <isl/map_type.h>
#include <isl/set_type.h>
#include <isl/union_map_type.h>
#include <isl/union_set_type.h>

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/ir.h"
#include "ch/strbuf.h"

/* A canonical `for` loop of the body. */
typedef struct ch_tr_loop {
    char *counter; /* the loop variable's name (owned) */
    unsigned line, col;
    size_t depth;    /* 1 for an outermost loop */
    size_t parent;   /* index of the enclosing loop, or (size_t)-1 */
    const ch_ir *ir; /* the CH_IR_FOR node (borrowed from the entry) */
} ch_tr_loop;

/* What an access reaches: a parameter array or pointer, or a local scalar (zero-dimensional). */
typedef struct ch_tr_array {
    char *name; /* the C name, which is also the isl tuple name (owned) */
    size_t ndims;
    int is_scalar; /* a local scalar of the body, modelled as a zero-dimensional array */
    isl_union_map *reads, *must_writes, *may_writes; /* this array's accesses; may_writes are
                                                        the writes that are not must-writes */
} ch_tr_array;

/* A statement: one expression statement (or initialised declaration) that writes. */
typedef struct ch_tr_stmt {
    char *name; /* "S1", "S2", ... in textual order (owned) */
    unsigned line, col;
    const ch_ir *ir; /* the statement node (borrowed) */
    char *text;      /* the statement as C, one line (owned) */
    size_t *loops;   /* indices of the enclosing loops, outermost first (owned) */
    size_t n_loops;
    int may;            /* conditional or over-approximated domain: its writes are may-writes */
    isl_set *domain;    /* owned */
    isl_map *schedule;  /* owned: S[i..] -> [2d+1 dims, padded with zeros] */
    size_t red_array;   /* reduction form `X op= e` / `X = X op e` on this array, or -1 */
    const char *red_op; /* "+", "*", "min", "max", "&", "|", "^" (static) when red_array set */
} ch_tr_stmt;

typedef struct ch_tr_model {
    isl_ctx *ctx; /* owned */
    const ch_entry *entry;
    ch_tr_stmt *stmts;
    size_t n_stmts;
    ch_tr_loop *loops; /* in textual order of their `for` */
    size_t n_loops;
    ch_tr_array *arrays;
    size_t n_arrays;
    size_t sched_dims;       /* 2 * (deepest nesting) + 1 */
    isl_union_set *domain;   /* every statement's domain */
    isl_union_map *schedule; /* the original 2d+1 schedule of every statement */
} ch_tr_model;

/* Builds the model of e's body. Refuses (returns -1, err located at the node in e->file) what
 * it cannot model: while/do loops, non-canonical for loops, calls with side effects, pointer
 * arithmetic, local arrays, opaque nodes. */
int ch_tr_model_build(const ch_entry *e, ch_tr_model **out, ch_error *err);
void ch_tr_model_free(ch_tr_model *m);

typedef enum ch_tr_dep_kind { CH_TR_FLOW = 0, CH_TR_ANTI, CH_TR_OUTPUT } ch_tr_dep_kind;
const char *ch_tr_dep_kind_name(ch_tr_dep_kind k); /* "flow", "anti", "output" */

/* The dependences of one kind from one statement to another through one array. */
typedef struct ch_tr_dep {
    ch_tr_dep_kind kind;
    size_t src, sink, array; /* indices into the model */
    isl_map *rel;            /* owned: source instances -> sink instances */
} ch_tr_dep;

/* What one loop carries. */
typedef struct ch_tr_loop_par {
    int parallel;    /* no dependence carried (after privatisation) */
    size_t *carried; /* indices into deps of the dependences it carries (owned) */
    size_t n_carried;
    size_t *privates; /* local scalars privatised per iteration of this loop (owned) */
    size_t n_privates;
    int reduction;      /* everything carried is a reduction of one statement on one array */
    size_t red_array;   /* when reduction */
    const char *red_op; /* when reduction */
} ch_tr_loop_par;

typedef struct ch_tr_deps {
    ch_tr_dep *deps; /* sorted by kind, array, source, sink */
    size_t n_deps;
    isl_union_map *flow, *anti, *output; /* all arrays together, statement instance spaces */
    ch_tr_loop_par *loops;               /* one per model loop */
    size_t n_loops;
} ch_tr_deps;

/* Computes the dependences of m and the parallelism of its loops. */
int ch_tr_deps_compute(const ch_tr_model *m, ch_tr_deps **out, ch_error *err);
void ch_tr_deps_free(ch_tr_deps *d);

/* What ch_tr_print writes (bits). */
enum {
    CH_TR_PRINT_STMTS = 1, /* "S1 at 7:9: C[i][j] += ...;" and its domain */
    CH_TR_PRINT_LOOPS = 2, /* "loop k at 7:5: carries flow S1 -> S1 on C ..." */
    CH_TR_PRINT_DEPS = 4,  /* "flow S1 -> S1 on C: { S1[i, j, k] -> S1[i, j, 1 + k] ... }" */
    CH_TR_PRINT_ALL = 7
};
/* Appends the text summary (one item a line) used by golden tests and reports. */
void ch_tr_print(ch_strbuf *out, const ch_tr_model *m, const ch_tr_deps *d, int what);

#endif
