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
#include <isl/aff_type.h>
#include <isl/map_type.h>
#include <isl/schedule_type.h>
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
    int down;        /* the counter decreases: the schedule runs it as -counter */
    size_t parent;   /* index of the enclosing loop, or (size_t)-1 */
    const ch_ir *ir; /* the CH_IR_FOR node (borrowed from the entry) */
} ch_tr_loop;

/* What an access reaches: a parameter array or pointer, or a local scalar (zero-dimensional). */
typedef struct ch_tr_array {
    char *name; /* the C name, which is also the isl tuple name (owned) */
    size_t ndims;
    int is_scalar;         /* a local scalar of the body, modelled as a zero-dimensional array */
    const ch_ir *decl;     /* a local's declaration (borrowed), NULL for a parameter */
    long long local_elems; /* a local array's element count (one constant dimension) */
    char *shape; /* a flattened pointer split by its subscripts' row-major shape ("[*][n]"),
                    else NULL (owned); ndims counts the split dimensions */
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
    int may;              /* conditional or over-approximated domain: its writes are may-writes */
    int unbounded;        /* inside a loop whose start or bound is not affine: no exact domain */
    const ch_ir **guards; /* conditions of the enclosing `if`s that the domain does not hold
                             (not affine, or an else branch), outermost first (owned array) */
    unsigned char *guard_neg; /* per guard: the statement runs when it is false (else) */
    size_t n_guards;
    long *pos;          /* its 2d+1 schedule positions, counters as 0 (owned) */
    isl_set *domain;    /* owned */
    isl_map *schedule;  /* owned: S[i..] -> [2d+1 dims, padded with zeros] */
    size_t red_array;   /* reduction form `X op= e` / `X = X op e` on this array, or -1 */
    const char *red_op; /* "+", "*", "min", "max", "&", "|", "^" (static) when red_array set */
} ch_tr_stmt;

typedef struct ch_tr_model {
    isl_ctx *ctx;          /* owned */
    const ch_entry *entry; /* the entry, or converted when that is set */
    ch_entry *converted;   /* owned: the entry with its body if-converted (the ifs whose
                              branches change what their condition reads), or NULL */
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
/* The element type of array a: a parameter's, or a local's declared type. */
ch_scalar ch_tr_array_elem(const ch_tr_model *m, size_t a);

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
    size_t *privates; /* local scalars, and arrays whose whole life lies in the loop,
                         privatised per iteration of this loop (owned) */
    size_t n_privates;
    const char *not_private; /* an array that would be private to this loop but is not, and
                                why (static text, for the plan), or NULL */
    size_t not_private_array;
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
    size_t *expand_loop;     /* per array: for a local scalar or a private array, the deepest loop
                                it is private to (its value never crosses that loop's
                                iterations), else -1 */
    isl_pw_multi_aff **last; /* per private array: the counters of its deepest private loop and
                                the loops around it in the last iteration that writes it, over
                                the parameters (owned): the iteration whose copy is the array's
                                final contents; NULL for other arrays */
    size_t n_arrays;
} ch_tr_deps;

/* Computes the dependences of m and the parallelism of its loops. */
int ch_tr_deps_compute(const ch_tr_model *m, ch_tr_deps **out, ch_error *err);
void ch_tr_deps_free(ch_tr_deps *d);

/* --- schedule and mapping (schedule.c) --- */

/* Where the new order of the statement instances comes from. */
typedef enum ch_tr_strategy {
    CH_TR_ISL_SCHEDULE = 0, /* isl's scheduler (Pluto-style: fusion, interchange, skewing),
                               asked for outer parallel (coincident) dimensions */
    CH_TR_ORIGINAL = 1      /* the C body's own loop structure */
} ch_tr_strategy;
const char *ch_tr_strategy_name(ch_tr_strategy s); /* "isl scheduler", "original loop order" */

/* One kernel: a subtree of the schedule below a "kernel" mark. */
typedef struct ch_tr_kernel {
    size_t depth;          /* band members above it: the host loops' iterators c0..c{depth-1} */
    int n_mapped;          /* 0: one thread runs the subtree; 1 or 2: its band's outer members
                              are spread over threads (the innermost on x) */
    isl_union_set *domain; /* the statement instances it runs (owned) */
    isl_multi_union_pw_aff *thread_key; /* prefix schedule through the mapped members: two
                                           instances with equal keys run on one thread */
    isl_pw_aff *extent[2]; /* per mapped member (outermost first): how many values it takes,
                              over the parameters and c0..c{depth-1} (owned) */
    size_t reduction;      /* a sum `X += e` (or X++) whose instances the threads share: the
                              statement's index, or -1 */
    int atomic_each;       /* reduction: the element varies (a histogram, a scatter): each
                              instance adds atomically; else one element per launch: partial
                              sums per thread, then one atomic per warp */
    size_t scan_store;     /* a prefix sum: `acc += e; y[i] = acc;` (or the store first: an
                              exclusive scan) over one loop. reduction is the update, this the
                              store's index; -1 for other kernels */
    int scan_exclusive;    /* scan_store: y[i] takes acc before the update */
    int warp_rows;         /* a warp per value of the mapped dimension; the loops one level
                              below it are spread over the lanes (ch_tr_plan.lane_role) */
} ch_tr_kernel;

/* An arg-reduction (argred.c): a loop whose only carried dependences are the conditional update
 * `if (E(i) CMP m) { m = E(i); at = IDX(i); }` of a value and its index, with m and at set
 * before the loop and only stored after it. Its pointers borrow the model's body IR. */
typedef struct ch_tr_argred {
    const char *value, *index;  /* m and at */
    ch_scalar vtype, itype;     /* their declared types */
    const ch_ir *vinit, *iinit; /* their values before the loop */
    const char *counter;        /* the loop's counter i */
    const char *counter_type;   /* its declared C type */
    const ch_ir *start, *bound; /* i runs from start while i < bound (i <= bound: inclusive) */
    int inclusive;
    const ch_ir *elem;   /* E(i) */
    const ch_ir *at_of;  /* IDX(i) */
    int max;             /* E > m or E >= m: a maximum; else a minimum */
    int last;            /* >= or <=: ties go to the last index; else to the first */
    const ch_ir **after; /* the statements after the loop (stores of m or at; owned array) */
    size_t n_after;
} ch_tr_argred;
/* 1 with a filled (free it with ch_tr_argred_free) when m's whole body is an arg-reduction:
 * the scalars' initialisations, the loop, then stores of the results; else 0. */
int ch_tr_argred_match(const ch_tr_model *m, ch_tr_argred *a);
void ch_tr_argred_free(ch_tr_argred *a);

/* How a local scalar is stored in the translation. */
typedef enum ch_tr_storage {
    CH_TR_NOT_SCALAR = 0,
    CH_TR_THREAD_LOCAL, /* a variable of each thread of the kernels that use it */
    CH_TR_DEVICE,       /* one location in device memory, shared by every kernel */
    CH_TR_THREAD_COPY   /* an array private to a loop (deps.c): each thread its own copy in
                           a scratch buffer, except the last iteration (ch_tr_deps.last),
                           which uses the array itself so that it ends as the C body leaves it */
} ch_tr_storage;

typedef struct ch_tr_plan {
    const ch_tr_model *m; /* borrowed */
    ch_tr_strategy strategy;
    int flags;              /* as given to ch_tr_plan_build */
    isl_schedule *schedule; /* the new order, with a "kernel" mark above each kernel (owned);
                               the marks' ids carry the kernel's index + 1 */
    ch_tr_kernel *kernels;
    size_t n_kernels;
    ch_tr_storage *storage;   /* per array */
    isl_pw_multi_aff **last;  /* per array: a copy of ch_tr_deps.last (owned) */
    size_t *copy_loop;        /* per array: for CH_TR_THREAD_COPY, the deepest loop it is private
                                 to (ch_tr_deps.expand_loop), else -1 */
    unsigned char *uses;      /* [kernel * n_arrays + array]: the kernel accesses the array */
    unsigned char *lane_role; /* per model loop, inside a warp_rows kernel: CH_TR_LANES_PARALLEL
                                 or CH_TR_LANES_REDUCTION (its iterations spread over the lanes),
                                 else 0 */
    size_t *lane_red;         /* per model loop with CH_TR_LANES_REDUCTION: the scalar */
    const char **lane_op;     /* and its operation ("+", "min", "max"; static) */
    ch_tr_argred *argred;     /* the whole body is an arg-reduction: its one kernel runs on
                                 threads (argred_cuda.c), else NULL (owned) */
} ch_tr_plan;

enum { CH_TR_LANES_PARALLEL = 1, CH_TR_LANES_REDUCTION = 2 };

/* Computes a legal new order of m's statement instances (checked against every dependence,
 * with private scalars' dependences limited to their loops' iterations), cuts it into kernels
 * whose outer one or two dimensions carry no dependence, and decides where each local scalar
 * lives. -1 with err set when no legal plan is found. */
/* Bits of ch_tr_plan_build's flags. */
enum {
    /* A loop nest whose only dependences are a floating sum (a dot product, a norm) or a
     * floating prefix sum runs on many threads whose contributions are added atomically (or
     * through a scan), instead of on one thread, when the entry has a tol() clause: the
     * additions happen in another order, so the results round differently. Reductions that are
     * exact in any order (integer sums and histograms, bitwise &, |, ^, minimum and maximum,
     * integer prefix sums) run in parallel in every plan, with or without this flag */
    CH_TR_PARALLEL_SUMS = 1,
    /* In the original loop order, a kernel with one parallel loop whose inner loops are each
     * parallel or a reduction into a local scalar (a row-wise norm, softmax) runs a warp per
     * iteration of the parallel loop: its inner loops are spread over the 32 lanes and the
     * reductions combined with shuffles. Floating sums only under tol(), as above. */
    CH_TR_WARP_ROWS = 2
};
int ch_tr_plan_build(const ch_tr_model *m, const ch_tr_deps *d, ch_tr_strategy strategy, int flags,
                     ch_tr_plan **out, ch_error *err);
void ch_tr_plan_free(ch_tr_plan *p);
/* Whether kernel k of p uses an array kept as a copy per thread (CH_TR_THREAD_COPY). */
int ch_tr_kernel_copies(const ch_tr_plan *p, size_t k);
/* "kernel 0: 2 mapped dimensions below 1 host loop: S1 S2" per kernel, and the schedule
 * tree (for golden tests and reports). */
void ch_tr_plan_print(ch_strbuf *out, const ch_tr_plan *p);

/* --- CUDA (cuda.c) --- */

typedef struct ch_tr_cuda_opts {
    int block1;                 /* threads per block of kernels with one mapped dimension */
    int block2_x, block2_y;     /* block shape of kernels with two */
    long long grid_cap;         /* most blocks along x (grid-stride loops cover the rest) */
    const char *header;         /* the first line of the file's opening comment, or NULL */
    int block_private;          /* scattered updates (a histogram) into a parameter of a small
                                   constant extent go to a per-block copy in shared memory, added
                                   to the array once per block */
    long long private_grid_cap; /* most blocks of such a kernel when > 0 and below grid_cap:
                                   each block's copy then takes many updates for its one
                                   flush into the array */
    /* GEMM-like kernels (a sum over a loop inside two mapped dimensions, reading operands that
     * each vary with one mapped dimension and the sum's): each block owns tile_m x tile_n
     * outputs, its tile_ty x tile_tx threads (tile_m / tile_ty) x (tile_n / tile_tx) each in
     * registers, and the operands come through shared memory tile_k values of the sum at a
     * time. 0: no tiling. */
    int tile_m, tile_n, tile_k, tile_ty, tile_tx;
    int *n_tiled; /* when set, incremented per kernel printed tiled */
    /* tiles whose sum is a product of two double tiles add it with the tensor cores' fp64
     * multiply-adds (sm_80 and later) */
    int tile_mma;
    int *n_mma; /* when set, incremented per kernel printed so */
    /* with tile_mma: tile_mma_stages tiles of each operand in flight (2 or more), copied to
     * shared memory by cp.async, each warp's accumulators in its registers (tile_mma_pipe.c);
     * 0: the tiles through registers, the sums through shared memory (tile_mma.c) */
    int tile_mma_stages;
    /* 2-D kernels without block-wide steps: each thread runs `rows` consecutive values of the
     * outer mapped dimension (0 or 1: one), unrolled, so that loads shared by neighbouring
     * rows (a stencil's) are made once */
    int rows;
    int *n_rows; /* when set, incremented per kernel printed with rows > 1 */
    /* with rows > 1: each thread also runs a group of 16 bytes' worth of consecutive values of
     * c1 (from a multiple of the group's size), its loads and stores 16-byte vectors where the
     * addresses allow it (cols.c); only for a statement `X = e` whose accesses are at constant
     * offsets from the column. 0: one value of c1 */
    int cols;
    int *n_cols; /* when set, incremented per kernel printed so */
    /* warp-per-row kernels (CH_TR_WARP_ROWS) run a block of block1 threads per row instead of
     * a warp: long rows (softmax over thousands of columns) get the loads in flight of a
     * block, and each reduction over the row is combined over the block (rowwise.c) */
    int block_rows;
    int *n_block_rows; /* when set, incremented per kernel printed a block per row */
    /* block-per-row kernels whose loops over a row reach each array at the row's element j
     * keep a thread's row_regs values of each in registers (rowregs.c): one pass over memory
     * a row of up to row_regs x block1 elements, longer rows as block_rows. 0: none */
    int row_regs;
    int *n_row_regs; /* when set, incremented per kernel printed so */
    /* kernels that transpose (tile.c: a write along c0, reads along c1) go through square
     * shared-memory tiles of transpose_tile points a side (32 or 64) on blocks of
     * transpose_tile x (block1 / transpose_tile) threads. 0: only as tile_m's variants print
     * them (32 x 32 tiles on 32 x 8 threads) */
    int transpose_tile;
    int *n_transposed; /* when set, incremented per kernel printed as a tiled transpose */
} ch_tr_cuda_opts;

/* The candidate source of plan p: kernels, the NAME_launcher of the scaffold contract and
 * their helpers, formatted and commented (malloc'd). */
char *ch_tr_cuda(const ch_tr_plan *p, const ch_tr_cuda_opts *o);

/* --- library variants (library.c) --- */

/* The arithmetic a library candidate asks for. NATIVE: the element type's own (FP32 sums of
 * FP32 products, FP64 for double); TF32: tensor cores on inputs rounded to TF32, FP32 sums. */
typedef enum ch_tr_precision { CH_TR_PREC_NATIVE = 0, CH_TR_PREC_TF32 } ch_tr_precision;
const char *ch_tr_precision_name(ch_tr_precision prec); /* "native", "tf32" */
/* Whether e's tol() admits the error of prec (NATIVE always; the rule is in library.c). */
int ch_tr_precision_admitted(const ch_entry *e, ch_tr_precision prec);

/* A body that is one GEMM on row-major 2-D array parameters: C = alpha * op(A) * op(B) +
 * beta * C, where op transposes an operand read as A[k][r] (B[c][k]) instead of A[r][k]
 * (B[k][c]). Texts are C expressions of the scalar parameters (owned). */
typedef struct ch_tr_gemm {
    ch_scalar elem;        /* CH_T_FLOAT or CH_T_DOUBLE, the same for the three */
    const char *a, *b, *c; /* parameter names (borrowed from the entry) */
    int trans_a, trans_b;
    char *m, *n, *k;       /* rows and columns of C, terms of each sum */
    char *lda, *ldb, *ldc; /* the row lengths the parameters are declared with */
    char *alpha, *beta;    /* beta: "1" without a scaling statement, "0" for C = 0 */
} ch_tr_gemm;
/* 1 with g filled (free it with ch_tr_gemm_free) when m's whole body is a GEMM, else 0. */
int ch_tr_gemm_match(const ch_tr_model *m, ch_tr_gemm *g);
void ch_tr_gemm_free(ch_tr_gemm *g);
/* The candidate source that calls cuBLAS for m's body in precision prec: NAME_device_launcher
 * (one cublasGemmEx on device buffers) and the host NAME_launcher; its opening comment says
 * "ch-cc library: cublas" and "ch-cc precision: fp32|tf32|fp64". NULL when the body is not a
 * GEMM, or prec is not admitted by the entry's tol() or does not apply to its type. */
char *ch_tr_library_cuda(const ch_tr_model *m, ch_tr_precision prec, const char *header);

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
