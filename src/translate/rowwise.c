/* A block per row: row-wise nests (softmax, layer and RMS norms, row sums) whose rows carry no
 * dependence and whose loops over a row are each parallel or a reduction into a local scalar
 * (the plan's warp_rows kernels, schedule.c: mark_warp_rows) run each row on a whole block.
 *
 * The warp-per-row printing of cuda.c covers rows up to a few hundred elements well; a long row
 * (thousands of elements) on one warp leaves too few loads in flight per SM, and on one thread
 * (the plain mapping) reads each row three times from DRAM with uncoalesced loads. A block of
 * threads per row strides every loop over the row across the block (neighbouring threads take
 * neighbouring elements: coalesced), and each scalar reduction becomes a warp-shuffle tree per
 * warp, then one over the warps' results in shared memory, broadcast to every thread. The
 * loops that read the row again after a reduction find it in L2 (a row of a few KiB read by
 * one block in a short time).
 *
 * The loops' order is the C body's, and the block's threads synchronise after each loop over
 * the row (what some thread wrote, another may read in the next loop) and after each statement
 * outside those loops that writes memory (one thread writes it): cuda.c prints those barriers
 * as the warp-per-row kernel's __syncwarp()s. Every thread of a block runs the same rows (the row
 * loop moves by the grid's block count), so each barrier is reached by the whole block. Reductions:
 * max and min are exact in any order; sums are reordered, which the plan allows only under tol().
 */
#include <string.h>

#include "rowwise.h"

int tr_rowwise_applies(const printer *pr, const ch_tr_kernel *k)
{
    return k->warp_rows && pr->o->block_rows;
}

void tr_rowwise_comment(const ch_tr_kernel *k, ch_strbuf *out)
{
    ch_strbuf_addf(
        out,
        " * c%zu -> blocks (x): no dependence is carried by this dimension of the schedule "
        "(checked\n"
        " *   with isl), so its values (the rows) run on different blocks, grid-stride; the "
        "plan's\n"
        " *   warp per row, printed a block per row for rows of thousands of elements.\n"
        " * c%zu (each loop over a row) -> the block's threads: thread t takes every "
        "blockDim.x-th\n"
        " *   iteration from the t-th, so a warp reads consecutive elements. Each sum, min or "
        "max\n"
        " *   into a local scalar is combined over the block (warp shuffles, then shared "
        "memory)\n"
        " *   and given to every thread; the loops after it read the row again, mostly from "
        "L2.\n"
        " * Statements outside those loops run on every thread (each keeps its copy of the "
        "scalars),\n"
        " *   and thread 0 alone writes memory; the block synchronises after each loop over "
        "the row\n"
        " *   (what one thread wrote, another may read next).\n",
        k->depth, k->depth + 1);
}

void tr_rowwise_prologue(ch_strbuf *out)
{
    ch_strbuf_adds(out, "    /* a block per value of the mapped dimension: this block's first "
                        "value and the step\n     * between its values (grid-stride), and this "
                        "thread's index in the block */\n"
                        "    const long long ch_g0 = blockIdx.x;\n"
                        "    const long long ch_n0 = gridDim.x;\n"
                        "    const int ch_lane = threadIdx.x;\n");
}

void tr_rowwise_reduce(printer *pr, const char *v, const char *op, ch_scalar t, int indent)
{
    ch_strbuf *out = pr->out;
    int sum = strcmp(op, "+") == 0;
    tr_indent_to(out, indent);
    ch_strbuf_addf(out,
                   "/* the block's %s of %s: each warp's with shuffles, then the warps' "
                   "through shared\n",
                   sum ? "sum" : op, v);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, " * memory by warp 0, and the result to every thread (through its own "
                        "slot, ch_part[32]:\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, " * warp 0's lanes may still read the others when lane 0 writes it) */\n");
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "{\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "__shared__ %s ch_part[33];\n", ch_scalar_name(t));
    tr_print_warp_combine(pr, v, op, t, "each warp's", indent + 1);
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "if ((threadIdx.x & 31) == 0)\n%*sch_part[threadIdx.x >> 5] = %s;\n",
                   4 * (indent + 2), "", v);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "__syncthreads();\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "if (threadIdx.x < 32) {\n");
    tr_indent_to(out, indent + 2);
    if (sum)
        ch_strbuf_addf(out,
                       "%s = threadIdx.x < (blockDim.x >> 5) ? ch_part[threadIdx.x] : (%s)0;\n", v,
                       ch_scalar_name(t));
    else
        ch_strbuf_addf(out,
                       "/* lanes past the warps' count repeat warp 0's %s, which changes "
                       "nothing */\n%*s%s = ch_part[threadIdx.x < (blockDim.x >> 5) ? "
                       "threadIdx.x : 0];\n",
                       op, 4 * (indent + 2), "", v);
    tr_print_warp_combine(pr, v, op, t, "the warps'", indent + 2);
    tr_indent_to(out, indent + 2);
    ch_strbuf_addf(out, "if (threadIdx.x == 0)\n%*sch_part[32] = %s;\n", 4 * (indent + 3), "", v);
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_adds(out, "__syncthreads();\n");
    tr_indent_to(out, indent + 1);
    ch_strbuf_addf(out, "%s = ch_part[32];\n", v);
    tr_indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}
