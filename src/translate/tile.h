/* The shape tile.c recognises (a GEMM-like kernel, its shared-memory operands and tile sizes)
 * and what tile.c and tile_mma.c, its tensor-core variant, call of each other. Private to
 * src/translate/: the rest of the translator calls tr_print_tiled (printer.h). */
#ifndef CH_TRANSLATE_TILE_H
#define CH_TRANSLATE_TILE_H

#include <stddef.h>

#include <isl/ast.h>

#include "ch/strbuf.h"
#include "printer.h"

enum { DIM_ROW = 1, DIM_COL = 2, DIM_SUM = 4 }; /* which of c0, c1, c2 an access varies with */
enum { MAX_READS = 16 };

/* An operand of the sum read through shared memory. */
typedef struct tile_read {
    const ch_ir *node;  /* the access (borrowed from the entry's IR) */
    int dims;           /* DIM_ROW | DIM_SUM, DIM_COL | DIM_SUM or DIM_SUM */
    int sum_fast;       /* neighbouring addresses follow c2 (A[i][k]): threads load along it */
    int vec;            /* elements a thread loads at once (one 16-byte load where aligned) */
    const ch_param *pa; /* the parameter it reads */
} tile_read;

typedef struct gemm {
    printer *pr;
    const ch_tr_kernel *k;
    isl_ast_node *for0, *for1, *for2; /* the mapped loops and the sum's loop (owned) */
    isl_ast_node_list *items;         /* c1's body, one item a node (owned) */
    int sum_item;                     /* the index of for2 among items */
    const ch_tr_stmt *sum;            /* the sum's statement */
    isl_ast_node *sum_user;           /* its instance (owned) */
    char it[3][16];                   /* the iterator names of c0, c1, c2 */
    const char *counter[3];           /* the sum's C counter bound to c0, c1, c2 (or NULL) */
    const ch_tr_loop *loop[3];        /* and its loop */
    const ch_ir *target;              /* X: the sum's left-hand side */
    const char *scalar_target;        /* X when it is a local scalar, else NULL */
    char *target_text;                /* X as printed, to find the other reads of it */
    tile_read reads[MAX_READS];
    size_t n_reads;
    int sum_rect;           /* c2's bounds do not depend on c0, c1 */
    int tm, tn, tk, ty, tx; /* the tile shape */
    int run;                /* a thread's consecutive points in a mapped dimension, at most */
    ch_scalar acc;          /* the sum's type */
    int mma;                /* the sum through tensor cores (see "tensor cores" below) */
    int stages;             /* with mma: tiles in flight through cp.async (tile_mma_pipe.c); 0:
                             * tile_mma.c's kernel */
    char *factor;           /* with mma: the product's factors besides the two tiles, or NULL */
    /* while printing the sum: */
    int in_sum;
    char name[64];
} gemm;

/* ---- tile.c ---- */
/* x as the kernel prints it (caller frees). */
char *tile_expr_text(const printer *pr, const ch_ir *x);
/* The shared-memory operand that node is, and its index among g->reads; NULL when none. */
const tile_read *tile_read_of(const gemm *g, const ch_ir *node, size_t *index);
/* Whether every point sums over the same range of c2 (box tiles). */
int tile_is_box(const gemm *g);

/* ---- tile_mma.c: the sum through tensor cores ---- */
enum { MMA_WX = 2 }; /* warps side by side along c1 */
/* The warps' grid over the block's points: wy rows of MMA_WX warps, each fm x fn fragments. */
typedef struct mma_shape {
    int wy, fm, fn;
} mma_shape;
mma_shape mma_shape_of(const gemm *g);
/* Whether the sum goes through tensor cores; sets g->factor. */
int tile_match_mma(gemm *g);
/* The parts of an mma kernel print_kernel puts where the scalar kernel has its own. */
void tile_print_mma_shared(const gemm *g, ch_strbuf *out);
void tile_print_mma_fragments(const gemm *g, ch_strbuf *out);
void tile_print_mma_step(const gemm *g, ch_strbuf *out);
void tile_print_mma_fragments_loop(const gemm *g, ch_strbuf *out, int store);

/* ---- tile_mma_pipe.c: the same sum, tiles in flight through cp.async (g->stages) ---- */
/* Whether the pipelined kernel takes g's shape (its fragments, copies and shared memory). */
int tile_mma_pipe_fits(const gemm *g);
/* A thread's points along mapped dimension d (0: rows, 1: columns). */
int tile_mma_pipe_points(const gemm *g, int d);
/* The offset in the block of a thread's point (ch_r, ch_c) along d: its place in a fragment. */
void tile_mma_pipe_offset(const gemm *g, ch_strbuf *out, int d);
/* The dynamic shared memory of a block, in bytes. */
int tile_mma_pipe_smem(const gemm *g);
/* The kernel, into g->pr->kernels. */
void tile_print_mma_pipe_kernel(gemm *g, size_t fn, const char *t);

/* ---- tile.c, for tile_mma_pipe.c ---- */
/* The kernel's statements, " S0 (line 3) S1 (line 5)", into out. */
void tile_print_stmt_names(const gemm *g, ch_strbuf *out);
/* The statements before the sum and the block's range of c2; those after it and the sum into X,
 * for each of a thread's points. */
void tile_print_prologue(gemm *g, ch_strbuf *out, const char *t);
void tile_print_epilogue(gemm *g, ch_strbuf *out);
/* `const int i = (int)c0;` for the counters of the sum among `dims`. */
void tile_bind(const gemm *g, ch_strbuf *out, int dims, int indent);

#endif
