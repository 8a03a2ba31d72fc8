/* The builtin agent's answer to performance feedback: a walk along the tuning axes of the best
 * design (DESIGN §4; issue 13, "evolution that reads the roofline").
 *
 * The first round explores designs (the translator's fixed variants); from then on, while the
 * best candidate is a parametrised design, the agent proposes neighbours of it, one axis at a
 * time: the axis is doubled or halved (GEMM tiles: tile sizes, depth and the thread grid, hence
 * the outputs each thread keeps; stencils: rows a thread and the block shape; row-wise nests:
 * the threads of a row's block and a block or a warp per row; elementwise and other plain kernels:
 * the block size, the grid's waves and so the items each thread strides over, and the 2-D block
 * shape). Shapes that are illegal (more than 1024 threads, shared memory over the limit, a tile its
 * thread grid does not divide, more work a thread when the centre already spills registers) are
 * never proposed; neither is one whose code is the same as a candidate already proposed (its hash
 * is remembered). The move that improved last is tried first; the walk stops at a plateau (two
 * neighbours in a row without a gain above `gain` of the best time) or near the floor.
 *
 * Internal to src/agent/builtin (the declarations are here so that the unit tests drive the walk
 * with scripted feedback). Ownership: a bi_walk owns its table of hashes (bi_walk_free). */
#ifndef CH_AGENT_WALK_H
#define CH_AGENT_WALK_H

#include <stddef.h>
#include <stdint.h>

/* The shape parameters of a translator candidate: the axes of the walk. */
typedef struct bi_shape {
    int block1;             /* threads a block of 1-D kernels (a row's block, a warp-per-row's) */
    int bx, by;             /* the block of 2-D kernels */
    int waves;              /* grid capped at `waves` waves of blocks per SM (the threads stride
                             * over the rest); 0: not capped */
    int rows;               /* consecutive values of the outer dimension a thread runs (0: one) */
    int tm, tn, tk, ty, tx; /* GEMM-like tiles: tm x tn points a block, tk deep, ty x tx threads
                             * (each keeps (tm / ty) x (tn / tx) outputs); 0: no tiles */
    int row_block;          /* row-wise nests: a block of block1 threads per row (1), or a warp
                             * per row in blocks of block1 threads (0) */
} bi_shape;

typedef enum bi_axis {
    BI_AX_BLOCK1 = 0,
    BI_AX_BX,
    BI_AX_BY,
    BI_AX_WAVES,
    BI_AX_ROWS,
    BI_AX_TM,
    BI_AX_TN,
    BI_AX_TK,
    BI_AX_TY,
    BI_AX_TX,
    BI_AX_ROW_BLOCK,
    BI_AX_COUNT_
} bi_axis;
const char *bi_axis_name(bi_axis a); /* "block1", "bx", ... as bi_shape_text spells them */

/* The field of s that axis a moves. */
int *bi_shape_axis(bi_shape *s, bi_axis a);

/* What a design is, for the axes that matter to it. */
typedef enum bi_design {
    BI_DESIGN_NONE = 0,  /* not parametrised (a library call): no walk */
    BI_DESIGN_PLAIN,     /* threads over the points (elementwise, plain 2-D, sums) */
    BI_DESIGN_ROWS,      /* several rows a thread (stencils) */
    BI_DESIGN_ROW_BLOCK, /* a warp or a block per row (row-wise nests) */
    BI_DESIGN_TILES      /* shared-memory tiles with register blocking (GEMM-like nests) */
} bi_design;

/* The axes of design d, most telling first (at most BI_AX_COUNT_); returns how many. */
size_t bi_design_axes(bi_design d, bi_axis *out);

/* What bounds a legal shape. */
typedef struct bi_limits {
    int max_threads; /* threads a block (0: 1024) */
    long smem_bytes; /* static shared memory a block (0: 48 KiB) */
    int elem_bytes;  /* size of the tiles' elements (0: 8, the larger) */
    int spills;      /* the centre spills registers: no move that adds work to a thread */
} bi_limits;

int bi_shape_legal(const bi_shape *s, bi_design d, const bi_limits *l);
/* The neighbour of c along axis a (dir +1: doubled, -1: halved; waves: capped grids count from
 * 1 to 16, past 16 uncapped; row_block: +1 a block per row, -1 a warp): 1 with *out, 0 when it
 * does not exist or is illegal. */
int bi_shape_neighbour(const bi_shape *c, bi_design d, const bi_limits *l, bi_axis a, int dir,
                       bi_shape *out);
/* "block1=256 block2=32x8 waves=0 rows=0 tile=0x0x0 threads=0x0 row_block=0" (malloc'd), and
 * back:
 * 0 with *out, -1 when text does not start with that form. */
char *bi_shape_text(const bi_shape *s);
int bi_shape_parse(const char *text, bi_shape *out);
/* The values a thread keeps in registers for design d (a tile's outputs and its share of the
 * next tiles' operands, a stencil's rows): what a move may not raise while the centre spills. */
int bi_shape_thread_work(const bi_shape *s, bi_design d);

/* What the agent was told of the parent (the best candidate so far). */
typedef struct bi_walk_feedback {
    uint64_t parent_hash; /* bi_code_hash of its source */
    int parent_variant;   /* the translator variant it is a shape of */
    bi_shape parent_shape;
    bi_design design;
    double ms;       /* the time evolution ranks it by; < 0: not timed */
    double fraction; /* of the floor; < 0 unknown */
    int spills;      /* its kernels spill registers */
} bi_walk_feedback;

typedef struct bi_walk {
    int started;
    int variant;      /* the centre's translator variant */
    bi_design design; /* and its design */
    bi_shape centre;  /* the best shape so far */
    uint64_t centre_hash;
    double centre_ms;
    int proposed;       /* a neighbour is out, judged by the next feedback */
    uint64_t last_hash; /* its code */
    bi_axis last_axis;
    int last_dir;
    int has_preferred; /* the move that improved last: tried first */
    bi_axis preferred_axis;
    int preferred_dir;
    int misses;       /* neighbours in a row without a gain */
    double gain;      /* relative gain that counts (0: 0.03) */
    double floor;     /* fraction of the floor where it stops (0: 0.9) */
    int max_misses;   /* 0: 2 */
    const char *stop; /* static: why the walk ended ("plateau", "near the floor"), or NULL */
    uint64_t *seen;   /* code hashes of every candidate proposed */
    size_t n_seen, cap_seen;
} bi_walk;

void bi_walk_free(bi_walk *w);
/* Remembers a candidate's code (proposed by the walk or not); nonzero when it was known. */
int bi_walk_seen(bi_walk *w, uint64_t hash);
int bi_walk_mark(bi_walk *w, uint64_t hash);
/* The hash of a candidate's code: its source past the opening comment (which names the
 * variant and the shape, where two shapes may print the same kernels). */
uint64_t bi_code_hash(const char *src);

/* Takes the parent's feedback: judges the last neighbour (a gain: its move is preferred and the
 * misses reset; else one more miss), moves the centre to the parent. Returns the reason the walk
 * stops (static text), or NULL to go on. */
const char *bi_walk_observe(bi_walk *w, const bi_walk_feedback *fb);

/* Makes a candidate of shape s (the translator): 0 with *hash of its code (the caller keeps the
 * source until it accepts or drops it), 1 when the translator refuses the shape. */
typedef int (*bi_walk_try)(void *ctx, const bi_shape *s, uint64_t *hash);
/* Takes the candidate (accept 1) or drops it (accept 0). */
typedef void (*bi_walk_take)(void *ctx, int accept);

/* The next neighbour of the centre: tries the moves in order (the preferred one first, then each
 * axis of the design doubled, then halved), skipping illegal shapes and code already seen, and
 * takes the first new one. 0 with *axis, *dir set; 1 when every neighbour is illegal or seen. */
int bi_walk_next(bi_walk *w, const bi_limits *l, bi_walk_try try_shape, bi_walk_take take,
                 void *ctx, bi_axis *axis, int *dir);

#endif
