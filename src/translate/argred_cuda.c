/* The CUDA of an arg-reduction (argred.c): a maximum or minimum together with its index.
 *
 * Two kernels. The first spreads the loop over the grid's threads (grid-stride), each keeping
 * the best (value, index) pair of its iterations in registers; a block combines its threads'
 * pairs with warp shuffles, then its warps' pairs through shared memory, and writes one pair per
 * block. The second, one block, combines the blocks' pairs the same way; its thread 0 puts the
 * result after the C body's initial pair, by the C comparison itself, and runs the body's stores.
 *
 * Exactness: a pair beats another when its value is better by the comparison, or equal at an
 * index the C loop would keep (the smaller one for `>`/`<`, the larger for `>=`/`<=`); that is
 * an associative and commutative combine, so any grouping gives the C result, ties included.
 * Floating values: a NaN element never passes the C comparison (it is false for NaN), so the
 * threads skip NaN elements; a NaN initial value fails every comparison, and so does the last
 * step's. Equal values of other bits (-0.0 and 0.0) are ties like the C comparison's, broken
 * by the index: the value kept is the winning element's, as in C. */
#include <string.h>

#include "ch/cexpr.h"
#include "printer.h"

/* The block size: shuffles need whole warps. */
static int block_of(const ch_tr_cuda_opts *o)
{
    return o->block1 >= 32 && o->block1 <= 1024 && o->block1 % 32 == 0 ? o->block1 : 256;
}

/* An expression of the body: ch_ir_print writes a statement, whose ";\n" goes. */
static void print_ir(ch_strbuf *out, const ch_ir *x)
{
    ch_ir_print(out, x, 0, NULL, NULL);
    while (out->len && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == ';'))
        out->data[--out->len] = '\0';
}

/* The loop's C comparison of a candidate value v against the kept value w. */
static const char *cmp_of(const ch_tr_argred *a)
{
    return a->max ? (a->last ? ">=" : ">") : (a->last ? "<=" : "<");
}

/* `(long long)(bound) [+ 1]`: the end of the counter's range, exclusive. */
static void print_end(ch_strbuf *out, const ch_tr_argred *a)
{
    ch_strbuf_adds(out, "(long long)(");
    print_ir(out, a->bound);
    ch_strbuf_adds(out, a->inclusive ? ") + 1" : ")");
}

static void print_start(ch_strbuf *out, const ch_tr_argred *a)
{
    ch_strbuf_adds(out, "(long long)(");
    print_ir(out, a->start);
    ch_strbuf_adds(out, ")");
}

/* NAME_better and NAME_block: the pair order and the block's combine. */
static void print_helpers(ch_strbuf *out, const ch_entry *e, const ch_tr_argred *a, const char *t)
{
    const char *strict = a->max ? ">" : "<";
    ch_strbuf_addf(out,
                   "/* Whether the pair (v, i) comes before the kept pair (w, j; none when !h) in "
                   "the C loop's\n * result: a value the comparison `%s` prefers, or an equal "
                   "one at the index the loop\n * keeps on ties (the %s). */\n",
                   cmp_of(a),
                   a->last ? "last: `>=` and `<=` take an equal value again"
                           : "first: `>` and `<` never take an equal value");
    ch_strbuf_addf(out,
                   "static __device__ inline int %s_better(%s v, long long i, %s w, long long j, "
                   "int h)\n{\n    return !h || v %s w || (v == w && i %s j);\n}\n\n",
                   e->name, t, t, strict, a->last ? ">" : "<");
    ch_strbuf_addf(out,
                   "/* The best pair of the block's threads into thread 0's (*v, *i, *h): "
                   "shuffles within each\n * warp, then the warps' pairs through shared memory. "
                   "Every thread of the block calls it. */\n"
                   "static __device__ void %s_block(%s *v, long long *i, int *h)\n{\n"
                   "    __shared__ %s ch_sv[32];\n    __shared__ long long ch_si[32];\n"
                   "    __shared__ int ch_sh[32];\n"
                   "    const int ch_lane = threadIdx.x & 31, ch_warp = threadIdx.x >> 5;\n"
                   "    for (int round = 0; round < 2; round++) {\n"
                   "        for (int o = 16; o > 0; o >>= 1) {\n"
                   "            const %s ov = __shfl_down_sync(0xffffffffu, *v, o);\n"
                   "            const long long oi = __shfl_down_sync(0xffffffffu, *i, o);\n"
                   "            const int oh = __shfl_down_sync(0xffffffffu, *h, o);\n"
                   "            if (oh && %s_better(ov, oi, *v, *i, *h)) {\n"
                   "                *v = ov;\n                *i = oi;\n                *h = 1;\n"
                   "            }\n        }\n"
                   "        if (round == 1)\n            break;\n"
                   "        /* lane 0 of each warp holds its warp's pair: warp 0 combines them */\n"
                   "        if (ch_lane == 0) {\n            ch_sv[ch_warp] = *v;\n"
                   "            ch_si[ch_warp] = *i;\n            ch_sh[ch_warp] = *h;\n"
                   "        }\n        __syncthreads();\n"
                   "        if (ch_warp != 0)\n            return;\n"
                   "        *h = ch_lane < (int)((blockDim.x + 31) >> 5) ? ch_sh[ch_lane] : 0;\n"
                   "        if (*h) {\n            *v = ch_sv[ch_lane];\n"
                   "            *i = ch_si[ch_lane];\n        }\n    }\n}\n\n",
                   e->name, t, t, t, e->name);
}

/* Kernel fn's signature (the C function's parameters, then the pairs' scratch: written by
 * kernel 0, read by kernel 1 with their count) and its thread's pair, none yet. */
static void kernel_head(ch_strbuf *out, const ch_entry *e, int block, int fn, const char *t)
{
    const char *c = fn ? "const " : "";
    ch_strbuf_addf(out, "__global__ void __launch_bounds__(%d) %s_k%d(", block, e->name, fn);
    tr_launcher_params(e, out);
    ch_strbuf_addf(out, ", %s%s *ch_bv, %slong long *ch_bi, %sint *ch_bh%s", c, t, c, c,
                   fn ? ", unsigned ch_nb" : "");
    ch_strbuf_addf(out, ")\n{\n    %s ch_v = 0;\n    long long ch_i = 0;\n    int ch_h = 0;\n", t);
}

/* The first kernel: the loop over the grid's threads, a pair per block. */
static void print_k0(ch_strbuf *out, const ch_tr_model *m, const ch_tr_argred *a, const char *t,
                     int block)
{
    const ch_entry *e = m->entry;
    ch_strbuf_addf(out,
                   "/* Kernel 0 runs the loop over %s (the whole body but the scalars' "
                   "initialisations and the\n * stores): c0 is the counter %s, spread over the "
                   "grid's threads (thread t of the grid takes\n * the start + t, then every "
                   "grid's size further), because the only dependences the loop\n * carries are "
                   "the update of the pair (%s, %s), a reduction. Each thread keeps the best\n * "
                   "pair of its iterations in registers; the block's best goes to ch_bv, ch_bi, "
                   "ch_bh[blockIdx.x].\n */\n",
                   a->counter, a->counter, a->value, a->index);
    kernel_head(out, e, block, 0, t);
    ch_strbuf_adds(out, "    const long long ch_end = ");
    print_end(out, a);
    ch_strbuf_adds(out, ";\n    for (long long c0 = ");
    print_start(out, a);
    ch_strbuf_addf(out,
                   " + (long long)blockIdx.x * blockDim.x + threadIdx.x; c0 < ch_end;\n"
                   "         c0 += (long long)gridDim.x * blockDim.x) {\n"
                   "        const %s %s = (%s)c0;\n        const %s ch_e = ",
                   a->counter_type, a->counter, a->counter_type, t);
    print_ir(out, a->elem);
    ch_strbuf_adds(out, ";\n");
    if (ch_scalar_is_float(a->vtype))
        ch_strbuf_addf(out,
                       "        if (ch_e != ch_e)\n            continue; /* NaN: `%s` is "
                       "false for it, the C loop never takes it */\n",
                       cmp_of(a));
    ch_strbuf_addf(out,
                   "        if (%s_better(ch_e, c0, ch_v, ch_i, ch_h)) {\n"
                   "            ch_v = ch_e;\n            ch_i = c0;\n            ch_h = 1;\n"
                   "        }\n    }\n    %s_block(&ch_v, &ch_i, &ch_h);\n"
                   "    if (threadIdx.x == 0) {\n        ch_bv[blockIdx.x] = ch_v;\n"
                   "        ch_bi[blockIdx.x] = ch_i;\n        ch_bh[blockIdx.x] = ch_h;\n"
                   "    }\n}\n\n",
                   e->name, e->name);
}

/* The second kernel: the blocks' pairs, then the C body's initial pair and its stores. */
static void print_k1(ch_strbuf *out, const ch_tr_model *m, const ch_tr_argred *a, const char *t,
                     int block)
{
    const ch_entry *e = m->entry;
    ch_strbuf_addf(out,
                   "/* Kernel 1, one block, combines the ch_nb blocks' pairs of kernel 0 "
                   "(thread t takes blocks t,\n * t + blockDim.x, ...). Thread 0 then does what "
                   "the C body does after the loop: the initial\n * pair (%s, %s) comes before "
                   "every iteration, so the best of the loop replaces it when the\n * C "
                   "comparison `%s` says so; then the body's stores.\n */\n",
                   a->value, a->index, cmp_of(a));
    kernel_head(out, e, block, 1, t);
    ch_strbuf_addf(out,
                   "    for (unsigned b = threadIdx.x; b < ch_nb; b += blockDim.x)\n"
                   "        if (ch_bh[b] && %s_better(ch_bv[b], ch_bi[b], ch_v, ch_i, ch_h)) {\n"
                   "            ch_v = ch_bv[b];\n            ch_i = ch_bi[b];\n"
                   "            ch_h = 1;\n        }\n"
                   "    %s_block(&ch_v, &ch_i, &ch_h);\n    if (threadIdx.x != 0)\n"
                   "        return;\n",
                   e->name, e->name);
    ch_strbuf_addf(out, "    %s %s = ", t, a->value);
    print_ir(out, a->vinit);
    ch_strbuf_addf(out, ";\n    %s %s = ", ch_scalar_name(a->itype), a->index);
    print_ir(out, a->iinit);
    ch_strbuf_addf(out,
                   ";\n    if (ch_h && ch_v %s %s) {\n        const %s %s = (%s)ch_i;\n"
                   "        %s = ch_v;\n        %s = ",
                   cmp_of(a), a->value, a->counter_type, a->counter, a->counter_type, a->value,
                   a->index);
    print_ir(out, a->at_of);
    ch_strbuf_adds(out, ";\n    }\n");
    for (size_t i = 0; i < a->n_after; i++) {
        ch_strbuf_addf(out, "    /* the C body's store after the loop (line %u) */\n",
                       a->after[i]->line);
        ch_ir_print(out, a->after[i], 1, NULL, NULL);
    }
    ch_strbuf_adds(out, "}\n\n");
}

/* NAME_device_launcher: the pairs' scratch (one per block of kernel 0, kept across calls), the
 * two launches. */
static void print_device_launcher(ch_strbuf *out, const ch_tr_model *m, const ch_tr_argred *a,
                                  const char *t, int block, long long cap)
{
    const ch_entry *e = m->entry;
    ch_strbuf args;
    ch_strbuf_init(&args);
    ch_entry_call_args(e, &args);
    ch_strbuf_adds(out,
                   "/* The device launcher: the pointers are device pointers holding the "
                   "inputs. Kernel 0 leaves a\n * pair per block in scratch kept across calls "
                   "(under the mutex), kernel 1 combines them.\n * Returns 0, or the CUDA error "
                   "that ended the call early; the caller synchronizes. */\n");
    ch_strbuf_addf(out, "extern \"C\" int %s_device_launcher(", e->name);
    tr_launcher_params(e, out);
    ch_strbuf_adds(out, ")\n{\n    static std::mutex ch_lock;\n"
                        "    std::lock_guard<std::mutex> ch_guard(ch_lock);\n"
                        "    const long long ch_count = ");
    print_end(out, a);
    ch_strbuf_adds(out, " - ");
    print_start(out, a);
    ch_strbuf_addf(out,
                   ";\n    /* blocks for the iterations, at most %lld (the loop is grid-stride), "
                   "at least 1 (kernel 1\n     * reads its pair) */\n"
                   "    long long ch_b = ch_count > 0 ? (ch_count + %d - 1) / %d : 1;\n"
                   "    const unsigned ch_nb = (unsigned)(ch_b < %lld ? ch_b : %lld);\n"
                   "    static void *ch_d_pairs = NULL;\n    static size_t ch_d_pairs_bytes = 0;\n"
                   "    /* the indices, then the values, then the flags, at byte offsets of "
                   "one allocation\n     * (each aligned: the flags' offset rounded up to 8); "
                   "views through void *, never\n     * one element type reinterpreted as "
                   "another */\n"
                   "    const size_t ch_at_v = (size_t)ch_nb * sizeof(long long);\n"
                   "    const size_t ch_at_h = (ch_at_v + (size_t)ch_nb * sizeof(%s) + 7) / 8 * "
                   "8;\n"
                   "    if (%s_reserve(&ch_d_pairs, &ch_d_pairs_bytes, ch_at_h + (size_t)ch_nb * "
                   "sizeof(int)) != 0)\n"
                   "        return (int)cudaErrorMemoryAllocation;\n"
                   "    char *ch_base = (char *)ch_d_pairs;\n"
                   "    long long *ch_bi = (long long *)ch_d_pairs;\n"
                   "    %s *ch_bv = (%s *)(void *)(ch_base + ch_at_v);\n"
                   "    int *ch_bh = (int *)(void *)(ch_base + ch_at_h);\n"
                   "    %s_k0<<<ch_nb, %d>>>(%s, ch_bv, ch_bi, ch_bh);\n"
                   "    if (cudaPeekAtLastError() != cudaSuccess)\n"
                   "        return (int)cudaGetLastError();\n"
                   "    %s_k1<<<1, %d>>>(%s, ch_bv, ch_bi, ch_bh, ch_nb);\n"
                   "    return (int)cudaGetLastError();\n}\n\n",
                   cap, block, block, cap, cap, t, e->name, t, t, e->name, block, args.data,
                   e->name, block, args.data);
    ch_strbuf_free(&args);
}

char *tr_argred_cuda(const ch_tr_plan *p, const ch_tr_cuda_opts *o)
{
    const ch_tr_model *m = p->m;
    const ch_tr_argred *a = p->argred;
    const char *t = ch_scalar_name(a->vtype);
    int block = block_of(o);
    /* at most 1024 blocks (the loop is grid-stride): kernel 1's one block then combines a few
     * pairs a thread */
    long long cap = o->grid_cap > 0 && o->grid_cap < 1024 ? o->grid_cap : 1024;
    ch_strbuf out;
    ch_strbuf_init(&out);
    tr_emit_opening(&out, p, o, 2);
    tr_emit_reserve(&out, m->entry->name);
    print_helpers(&out, m->entry, a, t);
    print_k0(&out, m, a, t, block);
    print_k1(&out, m, a, t, block);
    print_device_launcher(&out, m, a, t, block, cap);
    tr_emit_launcher(m->entry, &out);
    return ch_strbuf_detach(&out);
}
