/* The CUDA printer's state and the pieces of it that the printers of special kernel shapes
 * (tile.c) share with cuda.c. Internal to src/translate. */
#ifndef CH_TRANSLATE_PRINTER_H
#define CH_TRANSLATE_PRINTER_H

#include <isl/ast.h>
#include <isl/aff.h>

#include "ch/strbuf.h"
#include "ch/translate.h"

typedef struct printer {
    const ch_tr_plan *p;
    const ch_tr_model *m;
    const ch_entry *e;
    const ch_tr_cuda_opts *o;
    ch_strbuf kernels;       /* the kernel functions, in the order their launches appear */
    ch_strbuf *out;          /* where the node printer writes */
    size_t n_functions;      /* kernel functions emitted */
    ch_strvec host_iters;    /* the host loops' iterators in scope, outermost first */
    const ch_tr_kernel *k;   /* inside a kernel: its plan entry, else NULL */
    int covered[2];          /* inside the loop of mapped member q */
    int any_device;          /* some scalar lives in device memory */
    int lanes;               /* inside a loop whose iterations are spread over a warp's lanes */
    const char *priv;        /* inside a kernel whose updates go to a block-private copy: the
                                array's name (the copy is ch_priv), else NULL */
    char rename[96];         /* ch_cx rename result */
    int rows;                /* inside a kernel whose threads run several values of c0: how many */
    isl_ast_node *rows_for;  /* inside such a kernel's c0 loop: that loop (borrowed), else NULL */
    int block_rows;          /* inside a warp-per-row kernel printed a block per row (rowwise.c) */
    struct tr_rowregs *regs; /* such a kernel keeping its rows in registers (rowregs.c), owned
                                while it prints, else NULL */
    int regs_on;             /* inside its registers' path */
    struct tr_cols *colplan; /* a rows kernel whose threads also run groups of values of c1
                                with vector loads (cols.c), owned while it prints, else NULL */
    isl_ast_node *cols_for;  /* inside its c1 loop: that loop (borrowed), else NULL */
    int cols_on;             /* inside its vector path */
} printer;

void tr_indent_to(ch_strbuf *out, int n);
/* The C spelling of an isl name (parameters that isl reads as keywords carry a '_'). */
const char *tr_c_name(const printer *pr, const char *isl_name);
void tr_print_expr(const printer *pr, ch_strbuf *out, isl_ast_expr *x);
/* An isl piecewise expression over the parameters as C (consumes pa). */
void tr_print_param_expr(printer *pr, ch_strbuf *out, isl_pw_aff *pa);
/* An AST node inside a kernel or the host code, as print_marks and the loops print it. */
void tr_print_node(printer *pr, isl_ast_node *node, int indent);
/* An expression of the body as a statement's block prints it, without the access hooks. */
void tr_print_plain_expr(printer *pr, const ch_ir *x, ch_strbuf *out);
/* One statement instance (an isl AST user node) as a block binding its C loop counters. */
void tr_print_user(printer *pr, isl_ast_node *node, int indent);
/* Whether an isl expression, or a for node's bounds, mention the identifier `name`. */
int tr_mentions(isl_ast_expr *x, const char *name);
int tr_for_mentions(isl_ast_node *f, const char *name);
/* `__restrict__ ` where the kernels' array parameters cannot alias, else "". */
const char *tr_restrict(const printer *pr);
/* A kernel's parameter list (decl) or its launch arguments. */
void tr_kernel_params(printer *pr, ch_strbuf *out, int decl);
/* The end of a launch block opened at `indent`: a launch error ends the call early. */
void tr_close_launch(ch_strbuf *out, int indent);
/* The plan's kernel index of a "kernel" mark node. */
size_t tr_mark_kernel(const printer *pr, isl_ast_node *node);
/* A parameter's element count as a C expression (malloc'd). */
char *tr_extent_text(const ch_param *p);
/* The C type a loop counter is bound with. */
const char *tr_counter_type(const printer *pr, const ch_tr_loop *l);
/* The host NAME_launcher of the scaffold contract (copy in, NAME_device_launcher, synchronize,
 * copy out) and the buffer helper it uses, for a translation whose device launcher is printed
 * elsewhere (library.c). */
void tr_emit_host_launcher(const ch_entry *e, ch_strbuf *out);
/* NAME_reserve, the helper that keeps a device buffer across calls. */
void tr_emit_reserve(ch_strbuf *out, const char *entry);
/* The host NAME_launcher alone (tr_emit_host_launcher without NAME_reserve). */
void tr_emit_launcher(const ch_entry *e, ch_strbuf *out);
/* A candidate's opening comment (the plan), its includes and the entry's helpers. */
void tr_emit_opening(ch_strbuf *out, const ch_tr_plan *p, const ch_tr_cuda_opts *o,
                     size_t n_functions);
/* argred_cuda.c: the candidate of a plan whose body is an arg-reduction (p->argred). */
char *tr_argred_cuda(const ch_tr_plan *p, const ch_tr_cuda_opts *o);
/* The C function's parameters as the launchers declare them. */
void tr_launcher_params(const ch_entry *e, ch_strbuf *out);
/* The shuffles that combine the lanes' values of the scalar v (operation op: "+", "min",
 * "max"; type t) into lane 0's; `whose` names them in the loop's comment. */
void tr_print_warp_combine(printer *pr, const char *v, const char *op, ch_scalar t,
                           const char *whose, int indent);
/* Appends a statement's text inside a comment (without closing it early). */
void tr_comment_text(ch_strbuf *out, const char *text);

/* tile.c: a kernel whose threads each own a register block of outputs of a reduction over
 * shared-memory tiles (GEMM-like nests). 1 when it printed the kernel and its launch for
 * `mark`, 0 when the kernel does not have that shape (nothing printed). */
int tr_print_tiled(printer *pr, isl_ast_node *mark, size_t fn, int indent);
/* tile.c: a transpose (a write along c0, reads along c1) through shared-memory tiles of
 * pr->o->transpose_tile points a side; 1 when it printed the kernel and its launch, 0 else. */
int tr_print_transpose(printer *pr, isl_ast_node *mark, size_t fn, int indent);

/* tile_mma_pipe.c's device helpers (cp.async, the fp64 mma) when code calls them. */
void tr_mma_pipe_support(ch_strbuf *out, const char *code);

#endif
