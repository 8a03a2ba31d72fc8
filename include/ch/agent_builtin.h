/* The builtin agent's C-to-CUDA translator, split into analysis, plan and code generation.
 *
 * Internal to src/agent/builtin (ch_agent_builtin_open in ch/agent.h is the public door); the
 * declarations are here so that the unit tests can drive each phase on hand-built IR.
 *
 * Ownership: a bi_program borrows the entry and its IR (it must outlive the program) and owns
 * its own arrays; bi_program_free releases them. Strings returned by the generators are
 * malloc'd and owned by the caller. */
#ifndef CH_AGENT_BUILTIN_H
#define CH_AGENT_BUILTIN_H

#include <stddef.h>

#include "ch/cexpr.h"
#include "ch/entry.h"
#include "ch/error.h"
#include "ch/ir.h"
#include "ch/strbuf.h"

/* A canonical counted loop, normalised from the spellings C code uses. The counter takes the
 * values first, first + step, first + 2*step, ... while it is below bound (at most bound when
 * inclusive), or, counting down, first, first - step, ... while it is above bound (at least bound
 * when inclusive). Accepted: `v < b`, `v <= b`, `v > b`, `v >= b` and their mirrors `b > v`, ...;
 * `v++`, `++v`, `v--`, `--v`, `v += c`, `v -= c`, `v = v + c`, `v = c + v`, `v = v - c` with c an
 * integer constant; a counter declared in the loop or assigned there (`for (i = 0; ...`). */
typedef struct bi_loop {
    const ch_ir *node;  /* the CH_IR_FOR */
    const char *var;    /* loop variable name (borrowed from the IR) */
    const char *ctype;  /* its declared type spelling */
    const ch_ir *first; /* the first value */
    const ch_ir *bound; /* the other side of the condition */
    int inclusive;      /* the condition is `<=` or `>=` */
    int down;           /* the counter decreases */
    long long step;     /* by how much each iteration moves the counter (>= 1) */
    const ch_ir *body;
} bi_loop;

/* One kernel: a parallel loop (1-D) or a rectangular pair of parallel loops (2-D). */
typedef struct bi_nest {
    int dims;          /* 1 or 2 */
    bi_loop x;         /* mapped on threadIdx.x (the unit-stride subscript's loop) */
    bi_loop y;         /* dims == 2: mapped on threadIdx.y */
    int outer_is_x;    /* dims == 2: the C nest has x's loop outside */
    const ch_ir *body; /* what one thread runs for one (x[, y]) point */
    /* The top-level DECLs of the scalars each thread declares for itself: declared at the top
     * of the C function (C89 style), but assigned before any use in every iteration of the
     * mapped loop and dead after it, so each iteration has its own. Counters of inner loops
     * whose value is not used outside them are left to their loop (`for (int k = 0; ...`).
     * The array is owned by the program; the DECLs are the entry's. */
    const ch_ir **privates;
    size_t n_privates;
    size_t host_first; /* enclosing host loops: program->host_loops[host_first ..] */
    size_t host_depth; /* how many (their variables become kernel arguments) */
} bi_nest;

/* The launcher's steps, in the order of the C body. */
typedef enum bi_step_kind {
    BI_STEP_KERNEL,    /* launch nests[nest] */
    BI_STEP_HOST_LOOP, /* for (loop) { kids } on the host: a loop carrying a dependence */
    BI_STEP_UNIFORM,   /* a top-level scalar `T v = e;` evaluated in the launcher */
    BI_STEP_EARLY_RET  /* `if (cond) return;` on scalar parameters */
} bi_step_kind;

typedef struct bi_step {
    bi_step_kind kind;
    const ch_ir *node;
    size_t nest;  /* KERNEL */
    bi_loop loop; /* HOST_LOOP */
    size_t first; /* HOST_LOOP: kids are steps[first .. first+count) */
    size_t count; /* HOST_LOOP: number of direct and indirect kid steps */
    size_t depth; /* nesting depth among host loops */
} bi_step;

typedef struct bi_program {
    const ch_entry *entry; /* borrowed */
    bi_step *steps;        /* pre-order: a host loop is followed by its kids */
    size_t n_steps;
    bi_nest *nests;
    size_t n_nests;
    bi_loop *host_loops; /* each nest's enclosing host loops, outermost first, concatenated */
    size_t n_host_loops;
    const ch_ir **uniforms; /* top-level scalar DECLs with an initialiser (kernel arguments) */
    size_t n_uniforms;
    const ch_ir **counters; /* top-level DECLs without initialiser used as loop counters */
    size_t n_counters;
} bi_program;

/* Analyses the entry's body: canonical loops, affine subscripts, the dependence test and the
 * mapping of each nest. Fails with a located error (entry->file, the IR node's line:col) naming
 * what it cannot translate or prove. */
int bi_analyse(const ch_entry *e, bi_program *out, ch_error *err);
void bi_program_free(bi_program *p);

/* Recognises a canonical counted loop; 0 and *out filled, or -1 with the reason in err. */
int bi_loop_canonical(const ch_entry *e, const ch_ir *f, bi_loop *out, ch_error *err);

/* Variants: block shapes, the element-per-thread strategy and how buffers are copied. */
typedef struct bi_variant {
    int id;
    int block1;           /* 1-D block size */
    int bx, by;           /* 2-D block shape */
    int grid_stride;      /* each thread strides over the iteration space */
    const char *strategy; /* "one element per thread" / "grid-stride" */
    int staged;           /* host-pointer copies go through pinned staging buffers in pipelined
                           * chunks (NAME_h2d / NAME_d2h); no effect on `device` entries */
} bi_variant;

size_t bi_variant_count(void);
const bi_variant *bi_variant_get(size_t i);
/* "builtin v1: 1-D 256 threads, 2-D 32x8, grid-stride" (malloc'd); staged variants end in
 * ", pinned staged copies". */
char *bi_variant_design(const bi_variant *v);
/* Picks the next variant to propose: `tried` marks those already proposed (bi_variant_count()
 * flags), `feedback` (may be NULL) says how the parent did, `parent` is the parent's variant
 * (-1: none or not builtin's; kept for policies that follow the parent's shape).
 * With host_pointers 0 (a `device` entry: nothing to copy) staged variants are never chosen.
 * Returns the index, or -1 when every variant that applies has been proposed. */
int bi_variant_choose(const unsigned char *tried, const char *feedback, int fresh_design,
                      int parent, int host_pointers);
/* The variant a generated source declares in its header comment, or -1. */
int bi_variant_of_source(const char *src);

/* The whole candidate source for a variant (codegen.c). */
char *bi_generate(const bi_program *p, const bi_variant *v, int sm_count);

#endif
