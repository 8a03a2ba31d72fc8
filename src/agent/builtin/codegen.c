/* Code generation for the builtin agent: turns an analysed program (bi_program) and a variant
 * into one self-contained CUDA source file with a __global__ kernel per nest and the
 * `extern "C" NAME_launcher` of the scaffold contract (buffers kept across calls under a mutex,
 * copies in, launches in the C body's order, host loops for dependence-carrying loops, copies
 * back; every CUDA call checked, an error returns early and silently). Staged variants copy
 * through NAME_h2d / NAME_d2h, pipelined copies through pinned buffers emitted in the file.
 * Host-pointer entries also get NAME_device_launcher (the kernels alone on device buffers),
 * the only part a user's program runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/agent_builtin.h"

typedef struct gen {
    const bi_program *p;
    const ch_entry *e;
    const bi_variant *v;
    int sm_count;
    ch_strbuf *out;
    ch_cx em;            /* prints into out; its ctx is this gen */
    const bi_nest *nest; /* the kernel whose body is printed, or NULL */
    int staged;          /* the variant stages copies and the launcher has copies to stage */
    int on_device;       /* printing NAME_steps: the buffers are its device-pointer parameters
                          * and a CUDA error is stored in *ch_rc */
} gen;

/* A counter declared at the top of the C function that its loop declares in the kernel; not
 * one the thread declares already (a private whose value is used outside its loops). */
static const char *declare_counter(void *ctx, const char *name)
{
    const gen *g = ctx;
    for (size_t i = 0; g->nest && i < g->nest->n_privates; i++)
        if (strcmp(g->nest->privates[i]->text, name) == 0)
            return NULL;
    for (size_t i = 0; i < g->p->n_counters; i++)
        if (strcmp(g->p->counters[i]->text, name) == 0)
            return g->p->counters[i]->ctype ? g->p->counters[i]->ctype : "int";
    return NULL;
}

static char *text_of(const gen *g, const ch_ir *x)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_cx em = {.entry = g->e, .out = &sb};
    ch_cx_expr(&em, x);
    return ch_strbuf_detach(&sb);
}

static const char *bare_type(const char *ctype)
{
    if (!ctype)
        return "int";
    while (strncmp(ctype, "const ", 6) == 0)
        ctype += 6;
    return ctype;
}

static int is_zero(const ch_ir *x)
{
    return x && x->kind == CH_IR_INT_LIT && x->ival == 0;
}

/* Number of iterations of a canonical loop as a long long expression (<= 0 when it does not
 * run): the distance from the first value to the bound, in steps rounded up. */
static char *count_text(const gen *g, const bi_loop *l)
{
    const ch_ir *from = l->down ? l->bound : l->first, *to = l->down ? l->first : l->bound;
    char *a = text_of(g, to);
    char *span;
    if (is_zero(from)) {
        span = ch_xasprintf("(long long)(%s)%s", a, l->inclusive ? " + 1" : "");
    } else {
        char *b = text_of(g, from);
        span =
            ch_xasprintf("(long long)(%s) - (long long)(%s)%s", a, b, l->inclusive ? " + 1" : "");
        free(b);
    }
    free(a);
    if (l->step == 1)
        return span;
    /* C division truncates toward zero: a span <= 0 still gives a count <= 0 */
    char *r = ch_xasprintf("(%s + %lld) / %lld", span, l->step - 1, l->step);
    free(span);
    return r;
}

/* "i in [0, n)", "i in [0, n - 1], counting down from n - 1", "i in [0, n), step 2" */
static char *range_text(const gen *g, const bi_loop *l)
{
    char *first = text_of(g, l->first), *bound = text_of(g, l->bound);
    char step[64] = "";
    if (l->step != 1)
        snprintf(step, sizeof step, ", step %lld", l->step);
    char *r;
    if (l->down)
        r = ch_xasprintf("%s in %c%s, %s], counting down from %s%s", l->var,
                         l->inclusive ? '[' : '(', bound, first, first, step);
    else
        r = ch_xasprintf("%s in [%s, %s%c%s", l->var, first, bound, l->inclusive ? ']' : ')', step);
    free(first);
    free(bound);
    return r;
}

static void indent_to(ch_strbuf *out, int n)
{
    for (int i = 0; i < n; i++)
        ch_strbuf_adds(out, "    ");
}

/* `const int i = (int)(first + ch_x);`, or `first - ch_x` counting down: the thread's index
 * `lin` counts iterations in the C loop's order, times the step. */
static void emit_counter(gen *g, const bi_loop *l, const char *lin, int indent)
{
    const char *t = bare_type(l->ctype);
    char *off = l->step == 1 ? ch_xasprintf("%s", lin) : ch_xasprintf("%s * %lld", lin, l->step);
    indent_to(g->out, indent);
    if (is_zero(l->first) && !l->down) {
        ch_strbuf_addf(g->out, "const %s %s = (%s)%s%s%s;\n", t, l->var, t, l->step == 1 ? "" : "(",
                       off, l->step == 1 ? "" : ")");
    } else {
        char *first = text_of(g, l->first);
        ch_strbuf_addf(g->out, "const %s %s = (%s)((%s) %c %s);\n", t, l->var, t, first,
                       l->down ? '-' : '+', off);
        free(first);
    }
    free(off);
}

/* The scalars the C function declares at its top that are private to each iteration: every
 * thread declares its own (see bi_nest). */
static void emit_privates(gen *g, const bi_nest *n, int indent)
{
    if (!n->n_privates)
        return;
    indent_to(g->out, indent);
    ch_strbuf_adds(g->out, "/* declared at the top of the C function; each iteration assigns ");
    for (size_t i = 0; i < n->n_privates; i++)
        ch_strbuf_addf(g->out, "%s%s", i ? (i + 1 == n->n_privates ? " and " : ", ") : "",
                       n->privates[i]->text);
    ch_strbuf_addf(g->out, " before use,\n");
    indent_to(g->out, indent);
    ch_strbuf_adds(g->out, " * so every thread has its own */\n");
    for (size_t i = 0; i < n->n_privates; i++) {
        const ch_ir *d = n->privates[i];
        indent_to(g->out, indent);
        ch_strbuf_addf(g->out, "%s %s;\n", bare_type(d->ctype), d->text);
    }
}

static void emit_body_stmts(gen *g, const ch_ir *body, int indent)
{
    if (body && body->kind == CH_IR_BLOCK) {
        for (size_t i = 0; i < body->nkids; i++)
            ch_cx_stmt(&g->em, body->kids[i], indent);
    } else {
        ch_cx_stmt(&g->em, body, indent);
    }
}

static void collect_inner_loops(const ch_ir *s, ch_strbuf *sb, int *n)
{
    if (!s)
        return;
    if (s->kind == CH_IR_FOR) {
        const ch_ir *init = s->kids[0];
        const char *v = NULL;
        if (init && init->kind == CH_IR_DECL)
            v = init->text;
        else if (init && init->kind == CH_IR_EXPR_STMT && init->kids[0]->kind == CH_IR_ASSIGN)
            v = init->kids[0]->kids[0]->text;
        ch_strbuf_addf(sb, "%s%s", (*n)++ ? ", " : "", v ? v : "?");
    }
    if (s->kind == CH_IR_WHILE || s->kind == CH_IR_DO)
        ch_strbuf_addf(sb, "%s%s loop at line %u", (*n)++ ? ", " : "",
                       s->kind == CH_IR_WHILE ? "a while" : "a do", s->line);
    for (size_t i = 0; i < s->nkids; i++)
        collect_inner_loops(s->kids[i], sb, n);
}

static void kernel_params(gen *g, const bi_nest *n)
{
    ch_strbuf *out = g->out;
    int first = 1;
    for (size_t i = 0; i < g->e->n_params; i++) {
        const ch_param *p = &g->e->params[i];
        const char *t = ch_scalar_name(p->elem);
        ch_strbuf_adds(out, first ? "" : ", ");
        first = 0;
        if (p->role == CH_ROLE_SCALAR)
            ch_strbuf_addf(out, "%s %s", t, p->name);
        else
            ch_strbuf_addf(out, "%s%s *%s", p->is_const ? "const " : "", t, p->name);
    }
    for (size_t i = 0; i < g->p->n_uniforms; i++) {
        const ch_ir *u = g->p->uniforms[i];
        ch_strbuf_addf(out, "%s%s %s", first ? "" : ", ", bare_type(u->ctype), u->text);
        first = 0;
    }
    for (size_t i = 0; i < n->host_depth; i++) {
        const bi_loop *h = &g->p->host_loops[n->host_first + i];
        ch_strbuf_addf(out, "%s%s %s", first ? "" : ", ", bare_type(h->ctype), h->var);
        first = 0;
    }
}

static void kernel_args(gen *g, const bi_nest *n)
{
    ch_strbuf *out = g->out;
    int first = 1;
    for (size_t i = 0; i < g->e->n_params; i++) {
        const ch_param *p = &g->e->params[i];
        ch_strbuf_adds(out, first ? "" : ", ");
        first = 0;
        if (p->role == CH_ROLE_SCALAR || g->e->clauses.device || g->on_device)
            ch_strbuf_adds(out, p->name);
        else
            ch_strbuf_addf(out, "(%s *)ch_d_%s", ch_scalar_name(p->elem), p->name);
    }
    for (size_t i = 0; i < g->p->n_uniforms; i++) {
        ch_strbuf_addf(out, "%s%s", first ? "" : ", ", g->p->uniforms[i]->text);
        first = 0;
    }
    for (size_t i = 0; i < n->host_depth; i++) {
        ch_strbuf_addf(out, "%s%s", first ? "" : ", ", g->p->host_loops[n->host_first + i].var);
        first = 0;
    }
}

static void emit_kernel(gen *g, size_t k)
{
    const bi_nest *n = &g->p->nests[k];
    ch_strbuf *out = g->out;
    const ch_ir *at = n->dims == 2 && !n->outer_is_x ? n->y.node : n->x.node;
    char *rx = range_text(g, &n->x);
    ch_strbuf_addf(out, "/* Kernel %zu: the loop nest at %s:%u:%u.\n", k, g->e->file, at->line,
                   at->col);
    ch_strbuf_addf(out, " *   %s -> x: %s", rx,
                   g->v->grid_stride ? "each thread strides over the range by the grid's size"
                                     : "one thread per iteration");
    free(rx);
    if (n->dims == 2) {
        char *ry = range_text(g, &n->y);
        ch_strbuf_addf(out,
                       ";\n *   %s -> y: a grid-stride loop (grids are at most 65535 "
                       "blocks high).\n",
                       ry);
        free(ry);
        ch_strbuf_addf(out,
                       " * '%s' is on x because it is the unit-stride subscript of the writes, so "
                       "a warp's\n * 32 threads touch 32 neighbouring elements (coalesced). "
                       "Blocks are %dx%d threads.\n",
                       n->x.var, g->v->bx, g->v->by);
    } else {
        ch_strbuf_addf(out, ". Blocks are %d threads.\n", g->v->block1);
    }
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int nin = 0;
    collect_inner_loops(n->body, &sb, &nin);
    if (nin)
        ch_strbuf_addf(out, " * The inner loop%s over %s stay%s sequential inside each thread.\n",
                       nin > 1 ? "s" : "", sb.data, nin > 1 ? "" : "s");
    ch_strbuf_free(&sb);
    if (n->host_depth) {
        ch_strbuf_adds(out, " * Launched once per iteration of the host loop over");
        for (size_t i = 0; i < n->host_depth; i++)
            ch_strbuf_addf(out, " %s", g->p->host_loops[n->host_first + i].var);
        ch_strbuf_adds(out, ", whose counter is an argument.\n");
    }
    ch_strbuf_adds(out, " */\n");
    int threads = n->dims == 2 ? g->v->bx * g->v->by : g->v->block1;
    ch_strbuf_addf(out, "__global__ void __launch_bounds__(%d) %s_k%zu(", threads, g->e->name, k);
    kernel_params(g, n);
    ch_strbuf_adds(out, ")\n{\n");
    char *cx = count_text(g, &n->x);
    int indent = 1;
    if (g->v->grid_stride) {
        ch_strbuf_addf(out,
                       "    for (long long ch_x = (long long)blockIdx.x * blockDim.x + "
                       "threadIdx.x;\n         ch_x < %s;\n         ch_x += (long long)gridDim.x "
                       "* blockDim.x) {\n",
                       cx);
        indent = 2;
    } else {
        ch_strbuf_addf(out,
                       "    const long long ch_x = (long long)blockIdx.x * blockDim.x + "
                       "threadIdx.x;\n    if (ch_x >= %s)\n        return;\n",
                       cx);
    }
    free(cx);
    if (n->dims == 2) {
        char *cy = count_text(g, &n->y);
        indent_to(out, indent);
        ch_strbuf_addf(out,
                       "for (long long ch_y = (long long)blockIdx.y * blockDim.y + threadIdx.y;\n");
        indent_to(out, indent);
        ch_strbuf_addf(out, "     ch_y < %s;\n", cy);
        indent_to(out, indent);
        ch_strbuf_adds(out, "     ch_y += (long long)gridDim.y * blockDim.y) {\n");
        free(cy);
        indent++;
        if (n->outer_is_x) {
            emit_counter(g, &n->x, "ch_x", indent);
            emit_counter(g, &n->y, "ch_y", indent);
        } else {
            emit_counter(g, &n->y, "ch_y", indent);
            emit_counter(g, &n->x, "ch_x", indent);
        }
    } else {
        emit_counter(g, &n->x, "ch_x", indent);
    }
    emit_privates(g, n, indent);
    g->nest = n;
    emit_body_stmts(g, n->body, indent);
    g->nest = NULL;
    while (--indent > 0) {
        indent_to(out, indent);
        ch_strbuf_adds(out, "}\n");
    }
    ch_strbuf_adds(out, "}\n\n");
}

static long long grid_cap_x(const gen *g, int threads)
{
    if (!g->v->grid_stride)
        return 2147483647LL;
    int waves = 2048 / threads; /* resident blocks per SM at full occupancy */
    return g->sm_count > 0 ? (long long)g->sm_count * (waves > 0 ? waves : 1) : 1024;
}

static void emit_launch(gen *g, size_t k, int indent)
{
    const bi_nest *n = &g->p->nests[k];
    ch_strbuf *out = g->out;
    char *cx = count_text(g, &n->x);
    indent_to(out, indent);
    ch_strbuf_addf(out, "{ /* kernel %zu */\n", k);
    indent_to(out, indent + 1);
    ch_strbuf_addf(out, "const long long ch_cx = %s;\n", cx);
    free(cx);
    if (n->dims == 2) {
        char *cy = count_text(g, &n->y);
        indent_to(out, indent + 1);
        ch_strbuf_addf(out, "const long long ch_cy = %s;\n", cy);
        free(cy);
        indent_to(out, indent + 1);
        ch_strbuf_adds(out, "if (ch_cx > 0 && ch_cy > 0) {\n");
        indent_to(out, indent + 2);
        ch_strbuf_addf(out, "const dim3 ch_block(%d, %d);\n", g->v->bx, g->v->by);
        indent_to(out, indent + 2);
        ch_strbuf_addf(out,
                       "const dim3 ch_grid(%s_blocks(ch_cx, %d, %lldLL), %s_blocks(ch_cy, %d, "
                       "65535LL));\n",
                       g->e->name, g->v->bx, grid_cap_x(g, g->v->bx * g->v->by), g->e->name,
                       g->v->by);
    } else {
        indent_to(out, indent + 1);
        ch_strbuf_adds(out, "if (ch_cx > 0) {\n");
        indent_to(out, indent + 2);
        ch_strbuf_addf(out, "const dim3 ch_block(%d);\n", g->v->block1);
        indent_to(out, indent + 2);
        ch_strbuf_addf(out, "const dim3 ch_grid(%s_blocks(ch_cx, %d, %lldLL));\n", g->e->name,
                       g->v->block1, grid_cap_x(g, g->v->block1));
    }
    indent_to(out, indent + 2);
    ch_strbuf_addf(out, "%s_k%zu<<<ch_grid, ch_block>>>(", g->e->name, k);
    kernel_args(g, n);
    ch_strbuf_adds(out, ");\n");
    indent_to(out, indent + 2);
    ch_strbuf_adds(out, g->on_device ? "if ((*ch_rc = cudaGetLastError()) != cudaSuccess)\n"
                                     : "if (cudaGetLastError() != cudaSuccess)\n");
    indent_to(out, indent + 3);
    ch_strbuf_adds(out, "return;\n");
    indent_to(out, indent + 1);
    ch_strbuf_adds(out, "}\n");
    indent_to(out, indent);
    ch_strbuf_adds(out, "}\n");
}

/* Emits steps[from, from+count) at `indent`; host loops recurse into their kids. */
static void emit_steps(gen *g, size_t from, size_t count, int indent)
{
    const bi_program *p = g->p;
    for (size_t i = from; i < from + count; i++) {
        const bi_step *s = &p->steps[i];
        if (s->kind == BI_STEP_KERNEL) {
            emit_launch(g, s->nest, indent);
        } else if (s->kind == BI_STEP_HOST_LOOP) {
            const bi_loop *l = &s->loop;
            char *first = text_of(g, l->first), *bound = text_of(g, l->bound);
            indent_to(g->out, indent);
            ch_strbuf_addf(g->out,
                           "/* The loop over %s (%s:%u:%u) carries a dependence between its "
                           "iterations: it runs\n",
                           l->var, g->e->file, l->node->line, l->node->col);
            indent_to(g->out, indent);
            ch_strbuf_adds(g->out, " * here, in the C loop's order, one round of launches per "
                                   "iteration, and the data\n");
            indent_to(g->out, indent);
            ch_strbuf_adds(g->out, " * stays on the device. */\n");
            indent_to(g->out, indent);
            char *step = l->step == 1
                             ? ch_xasprintf("%s%s", l->var, l->down ? "--" : "++")
                             : ch_xasprintf("%s %c= %lld", l->var, l->down ? '-' : '+', l->step);
            ch_strbuf_addf(g->out, "for (%s %s = %s; %s %s%s %s; %s) {\n", bare_type(l->ctype),
                           l->var, first, l->var, l->down ? ">" : "<", l->inclusive ? "=" : "",
                           bound, step);
            free(step);
            free(first);
            free(bound);
            emit_steps(g, s->first, s->count, indent + 1);
            indent_to(g->out, indent);
            ch_strbuf_adds(g->out, "}\n");
            i += s->count;
        }
    }
}

/* The launcher has the entry's parameters in their CUDA C++ spelling (ch_param_cxx_decl): C99
 * array parameters decay to pointers to their elements, the same ABI as the C declaration. */
static void launcher_signature(gen *g)
{
    ch_strbuf_addf(g->out, "extern \"C\" void %s_launcher(", g->e->name);
    if (g->e->n_params)
        ch_entry_cxx_params(g->e, g->out);
    else
        ch_strbuf_adds(g->out, "void");
    ch_strbuf_adds(g->out, ")");
}

static char *extent_of(const ch_param *p)
{
    if (p->extent)
        return ch_xasprintf("%s", p->extent);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t d = 0; d < p->ndims; d++)
        ch_strbuf_addf(&sb, "%s(%s)", d ? " * " : "", p->dims[d]);
    return ch_strbuf_detach(&sb);
}

static int copied_back(const ch_param *p)
{
    return !p->is_const && (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT);
}

/* One buffer's copy in the launcher, to the device or back: through the staging helpers of a
 * staged variant, else a plain cudaMemcpy. */
static void emit_copy(gen *g, const ch_param *q, int to_device)
{
    const char *dev = to_device ? "ch_d_" : "", *host = to_device ? "" : "ch_d_";
    if (g->staged)
        ch_strbuf_addf(
            g->out, "    if (ch_n_%s && %s_%s(%s%s, %s%s, ch_n_%s) != 0)\n        return;\n",
            q->name, g->e->name, to_device ? "h2d" : "d2h", dev, q->name, host, q->name, q->name);
    else
        ch_strbuf_addf(g->out,
                       "    if (ch_n_%s && cudaMemcpy(%s%s, %s%s, ch_n_%s, %s) != cudaSuccess)\n"
                       "        return;\n",
                       q->name, dev, q->name, host, q->name, q->name,
                       to_device ? "cudaMemcpyHostToDevice" : "cudaMemcpyDeviceToHost");
}

static void emit_launcher(gen *g)
{
    const ch_entry *e = g->e;
    const bi_program *p = g->p;
    ch_strbuf *out = g->out;
    int device = e->clauses.device;
    ch_strbuf_adds(out, "/* The launcher: ");
    if (device)
        ch_strbuf_adds(out, "the pointers are device pointers (`device` clause); it launches the "
                            "kernels\n * in the C body's order and waits for them.");
    else
        ch_strbuf_adds(
            out,
            "host-pointer convention. Device buffers are kept across calls (grown when a\n"
            " * call needs more) under a mutex, so concurrent calls are safe. Every buffer is "
            "copied in, out\n * buffers too: the C body may leave elements untouched, and those "
            "must come back unchanged.\n * The kernels run in the C body's order with the data "
            "on the device; what the body writes\n * is copied back.");
    if (g->staged)
        ch_strbuf_addf(out,
                       " The copies go through %s_h2d and %s_d2h,\n * which stage the large "
                       "ones through pinned memory in pipelined chunks. A CUDA error ends\n * "
                       "the call early without output: the launcher returns void and "
                       "verification reports the\n * missing results. */\n",
                       e->name, e->name);
    else
        ch_strbuf_adds(out, " A CUDA error ends the call early without output:\n * the launcher "
                            "returns void and verification reports the missing results. */\n");
    launcher_signature(g);
    ch_strbuf_adds(out, "\n{\n");
    /* constants and early exits of the C body, on scalar parameters only */
    for (size_t i = 0; i < p->n_steps; i++) {
        const bi_step *s = &p->steps[i];
        if (s->kind == BI_STEP_UNIFORM || s->kind == BI_STEP_EARLY_RET)
            ch_cx_stmt(&g->em, s->node, 1);
    }
    if (!device) {
        ch_strbuf_adds(out, "    static std::mutex ch_lock;\n");
        for (size_t i = 0; i < e->n_params; i++)
            if (e->params[i].role != CH_ROLE_SCALAR)
                ch_strbuf_addf(out,
                               "    static void *ch_d_%s = NULL;\n    static size_t "
                               "ch_d_%s_bytes = 0;\n",
                               e->params[i].name, e->params[i].name);
        ch_strbuf_adds(out, "    std::lock_guard<std::mutex> ch_guard(ch_lock);\n\n");
        for (size_t i = 0; i < e->n_params; i++) {
            const ch_param *q = &e->params[i];
            if (q->role == CH_ROLE_SCALAR)
                continue;
            char *ext = extent_of(q);
            const char *t = ch_scalar_name(q->elem);
            ch_strbuf_addf(out, "    const size_t ch_n_%s = (size_t)(%s) * sizeof(%s);\n", q->name,
                           ext, t);
            ch_strbuf_addf(out,
                           "    if (%s_reserve(&ch_d_%s, &ch_d_%s_bytes, ch_n_%s) != 0)\n"
                           "        return;\n",
                           e->name, q->name, q->name, q->name);
            emit_copy(g, q, 1);
            free(ext);
        }
        ch_strbuf_addc(out, '\n');
    }
    emit_steps(g, 0, p->n_steps, 1);
    ch_strbuf_adds(out, "    if (cudaDeviceSynchronize() != cudaSuccess)\n        return;\n");
    if (!device) {
        for (size_t i = 0; i < e->n_params; i++) {
            const ch_param *q = &e->params[i];
            if (q->role == CH_ROLE_SCALAR || !copied_back(q))
                continue;
            emit_copy(g, q, 0);
        }
    }
    ch_strbuf_adds(out, "}\n");
}

/* NAME_device_launcher, the contract of the trusted runtime (ch/runtime.h): the kernels alone,
 * in the C body's order, on buffers already on the device; 0 or the first CUDA error. A user's
 * program runs only this (the runtime moves the data), never the launcher above. The body is a
 * static void function, so that the C body's early returns keep their form. */
static void emit_device_launcher(gen *g)
{
    const ch_entry *e = g->e;
    const bi_program *p = g->p;
    ch_strbuf *out = g->out;
    ch_strbuf_addf(out,
                   "\n/* The kernels alone on device buffers, in the C body's order; *ch_rc: the "
                   "first CUDA error. */\nstatic void %s_steps(",
                   e->name);
    if (e->n_params)
        ch_entry_cxx_params(e, out);
    ch_strbuf_addf(out, "%scudaError_t *ch_rc)\n{\n", e->n_params ? ", " : "");
    for (size_t i = 0; i < p->n_steps; i++) {
        const bi_step *s = &p->steps[i];
        if (s->kind == BI_STEP_UNIFORM || s->kind == BI_STEP_EARLY_RET)
            ch_cx_stmt(&g->em, s->node, 1);
    }
    g->on_device = 1;
    emit_steps(g, 0, p->n_steps, 1);
    g->on_device = 0;
    ch_strbuf_addf(out,
                   "}\n\n/* The device launcher: what the trusted runtime runs on its device "
                   "copies of the caller's\n * buffers in a user's program. */\n"
                   "extern \"C\" int %s_device_launcher(",
                   e->name);
    if (e->n_params)
        ch_entry_cxx_params(e, out);
    else
        ch_strbuf_adds(out, "void");
    ch_strbuf_addf(out, ")\n{\n    cudaError_t ch_rc = cudaSuccess;\n    %s_steps(", e->name);
    for (size_t i = 0; i < e->n_params; i++)
        ch_strbuf_addf(out, "%s, ", e->params[i].name);
    ch_strbuf_adds(out, "&ch_rc);\n    return (int)ch_rc;\n}\n");
}

/* The copy helpers of a staged variant ('@' stands for the entry's name): a ring of pinned
 * buffers created on first use, and NAME_h2d / NAME_d2h, which pipeline chunks through it.
 * 16 MiB chunks keep the per-transfer overhead (microseconds) small, three buffers keep a
 * transfer queued while the host fills or drains another, and below 4 MiB the plain copy is
 * as fast. Measured on the H200 machine: with one host thread staging does not beat pageable
 * cudaMemcpy (both run at about one core's memcpy speed, 7-10 GB/s); the host-side copy must
 * be split over threads to go further (8 threads: 25-35 GB/s, the host's copy bandwidth peaks
 * near 34 GB/s), and the static check does not let candidates start threads (<thread>).
 * Kept one generated line per literal line, so that the template reads as the code it emits. */
/* clang-format off */
static const char staging_helpers[] =
    "/* Staged copies: how this variant moves the launcher's buffers.\n"
    " *\n"
    " * The DMA engines read and write only page-locked (pinned) host memory. From pageable memory\n"
    " * cudaMemcpy copies through a small pinned bounce buffer of the driver's, one piece after the\n"
    " * other, at a fraction of the link's bandwidth. These helpers keep a ring of larger pinned\n"
    " * buffers instead and overlap the two halves of a copy: while a DMA engine moves one chunk\n"
    " * between its buffer and the device, the host copies the next chunk into (or the previous one\n"
    " * out of) another buffer. The host's copies run on the calling thread (a candidate may not\n"
    " * start threads), so one core's memcpy bandwidth bounds the pipeline.\n"
    " *\n"
    " * The ring is created on first use and kept for the life of the process, like the launcher's\n"
    " * device buffers: pinning memory is slow, and the driver releases it at exit. It is shared by\n"
    " * every call, so the helpers run under the launcher's lock. Copies under @_stage_min bytes\n"
    " * skip it (for them the pipeline's synchronisation costs more than it saves), and so do copies\n"
    " * from or to memory that is pinned already. */\n"
    "static const size_t @_stage_min = (size_t)4 << 20;    /* smaller copies: plain cudaMemcpy */\n"
    "static const size_t @_stage_chunk = (size_t)16 << 20; /* bytes of one pinned buffer */\n"
    "static const size_t @_stage_bufs = 3;                 /* buffers in the ring */\n"
    "\n"
    "/* The ring: pinned buffers, the event recorded after each buffer's latest transfer, and the\n"
    " * stream of the transfers (non-blocking: it neither waits for nor holds up the default stream,\n"
    " * and the helpers wait for it before they return). */\n"
    "static struct {\n"
    "    void *buf[@_stage_bufs];\n"
    "    cudaEvent_t done[@_stage_bufs];\n"
    "    cudaStream_t stream;\n"
    "} @_stage;\n"
    "\n"
    "/* Creates what the ring lacks; 0 once it is complete. What was created is kept on failure, so\n"
    " * a later call completes the ring without leaking; the failed call's error is cleared, since\n"
    " * the caller then copies without the ring. */\n"
    "static int @_stage_ready(void)\n"
    "{\n"
    "    if (!@_stage.stream) {\n"
    "        cudaStream_t s;\n"
    "        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)\n"
    "            goto failed;\n"
    "        @_stage.stream = s;\n"
    "    }\n"
    "    for (size_t b = 0; b < @_stage_bufs; b++) {\n"
    "        if (!@_stage.buf[b]) {\n"
    "            void *p;\n"
    "            if (cudaMallocHost(&p, @_stage_chunk) != cudaSuccess)\n"
    "                goto failed;\n"
    "            @_stage.buf[b] = p;\n"
    "        }\n"
    "        if (!@_stage.done[b]) {\n"
    "            cudaEvent_t ev;\n"
    "            if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess)\n"
    "                goto failed;\n"
    "            @_stage.done[b] = ev;\n"
    "        }\n"
    "    }\n"
    "    return 0;\n"
    "failed:\n"
    "    (void)cudaGetLastError();\n"
    "    return -1;\n"
    "}\n"
    "\n"
    "/* A copy without the ring; 0 on success. */\n"
    "static int @_plain(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)\n"
    "{\n"
    "    return cudaMemcpy(dst, src, bytes, kind) == cudaSuccess ? 0 : -1;\n"
    "}\n"
    "\n"
    "/* Whether the DMA engines reach `host` as it is (memory the caller pinned, or managed memory):\n"
    " * then cudaMemcpy runs at full speed and staging would only add a copy. */\n"
    "static int @_dma_ready(const void *host)\n"
    "{\n"
    "    cudaPointerAttributes a;\n"
    "    if (cudaPointerGetAttributes(&a, host) != cudaSuccess) {\n"
    "        (void)cudaGetLastError();\n"
    "        return 0;\n"
    "    }\n"
    "    return a.type != cudaMemoryTypeUnregistered;\n"
    "}\n"
    "\n"
    "/* Bytes of the chunk at offset `off` of a copy of `bytes`. */\n"
    "static size_t @_chunk_at(size_t off, size_t bytes)\n"
    "{\n"
    "    return bytes - off < @_stage_chunk ? bytes - off : @_stage_chunk;\n"
    "}\n"
    "\n"
    "/* Host-to-device copy of `bytes` from pageable memory; 0 on success. The host copies chunk k\n"
    " * into buffer k % bufs once that buffer's previous transfer has finished, and queues its\n"
    " * transfer; meanwhile chunk k - 1's transfer runs. Returns when every chunk has arrived, so the\n"
    " * kernels launched next read complete data. */\n"
    "static int @_h2d(void *dst_dev, const void *src_host, size_t bytes)\n"
    "{\n"
    "    if (bytes < @_stage_min || @_dma_ready(src_host) || @_stage_ready() != 0)\n"
    "        return @_plain(dst_dev, src_host, bytes, cudaMemcpyHostToDevice);\n"
    "    const char *src = (const char *)src_host;\n"
    "    char *dst = (char *)dst_dev;\n"
    "    for (size_t off = 0, k = 0; off < bytes; off += @_stage_chunk, k++) {\n"
    "        const size_t b = k % @_stage_bufs, n = @_chunk_at(off, bytes);\n"
    "        if (cudaEventSynchronize(@_stage.done[b]) != cudaSuccess)\n"
    "            return -1;\n"
    "        memcpy(@_stage.buf[b], src + off, n);\n"
    "        if (cudaMemcpyAsync(dst + off, @_stage.buf[b], n, cudaMemcpyHostToDevice,\n"
    "                            @_stage.stream) != cudaSuccess ||\n"
    "            cudaEventRecord(@_stage.done[b], @_stage.stream) != cudaSuccess)\n"
    "            return -1;\n"
    "    }\n"
    "    return cudaStreamSynchronize(@_stage.stream) == cudaSuccess ? 0 : -1;\n"
    "}\n"
    "\n"
    "/* Device-to-host copy of `bytes` into pageable memory; 0 on success. The transfers run ahead of\n"
    " * the host, filling every buffer it is not reading: the host waits for chunk k, copies it out\n"
    " * and queues chunk k + bufs into the buffer it freed, so the next chunks' transfers run while\n"
    " * it copies. The caller has waited for the kernels that wrote the data. */\n"
    "static int @_d2h(void *dst_host, const void *src_dev, size_t bytes)\n"
    "{\n"
    "    if (bytes < @_stage_min || @_dma_ready(dst_host) || @_stage_ready() != 0)\n"
    "        return @_plain(dst_host, src_dev, bytes, cudaMemcpyDeviceToHost);\n"
    "    const char *src = (const char *)src_dev;\n"
    "    char *dst = (char *)dst_host;\n"
    "    const size_t chunks = (bytes + @_stage_chunk - 1) / @_stage_chunk;\n"
    "    size_t queued = 0; /* chunks whose transfer has been queued */\n"
    "    for (size_t k = 0; k < chunks; k++) {\n"
    "        for (; queued < chunks && queued < k + @_stage_bufs; queued++) {\n"
    "            const size_t off = queued * @_stage_chunk, b = queued % @_stage_bufs;\n"
    "            if (cudaMemcpyAsync(@_stage.buf[b], src + off, @_chunk_at(off, bytes),\n"
    "                                cudaMemcpyDeviceToHost, @_stage.stream) != cudaSuccess ||\n"
    "                cudaEventRecord(@_stage.done[b], @_stage.stream) != cudaSuccess)\n"
    "                return -1;\n"
    "        }\n"
    "        const size_t off = k * @_stage_chunk, b = k % @_stage_bufs;\n"
    "        if (cudaEventSynchronize(@_stage.done[b]) != cudaSuccess)\n"
    "            return -1;\n"
    "        memcpy(dst + off, @_stage.buf[b], @_chunk_at(off, bytes));\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "\n";
/* clang-format on */

static void emit_staging(gen *g)
{
    for (const char *c = staging_helpers; *c; c++) {
        if (*c == '@')
            ch_strbuf_adds(g->out, g->e->name);
        else
            ch_strbuf_addc(g->out, *c);
    }
}

static void emit_helpers(gen *g)
{
    const char *n = g->e->name;
    ch_strbuf *out = g->out;
    ch_strbuf_addf(out,
                   "/* Blocks needed for `count` iterations at `per_block` each, at most `cap`. "
                   "*/\nstatic unsigned %s_blocks(long long count, int per_block, long long "
                   "cap)\n{\n    long long b = (count + per_block - 1) / per_block;\n    return "
                   "(unsigned)(b < cap ? b : cap);\n}\n\n",
                   n);
    if (g->e->clauses.device)
        return;
    ch_strbuf_addf(out,
                   "/* Grows a device buffer kept across calls to at least `bytes`; 0 on "
                   "success. */\nstatic int %s_reserve(void **buf, size_t *have, size_t bytes)\n"
                   "{\n    if (bytes <= *have)\n        return 0;\n    if (*buf) {\n"
                   "        cudaError_t rc = cudaFree(*buf);\n        *buf = NULL;\n"
                   "        *have = 0;\n        if (rc != cudaSuccess)\n            return -1;\n"
                   "    }\n    if (cudaMalloc(buf, bytes) != cudaSuccess) {\n"
                   "        *buf = NULL;\n        return -1;\n    }\n    *have = bytes;\n"
                   "    return 0;\n}\n\n",
                   n);
    if (g->staged)
        emit_staging(g);
}

char *bi_generate(const bi_program *p, const bi_variant *v, int sm_count)
{
    ch_strbuf out;
    ch_strbuf_init(&out);
    const ch_entry *e = p->entry;
    /* `device` launchers copy nothing: a staged variant is its plain twin there */
    gen g = {p, e, v, sm_count, &out, {0}, NULL, v->staged && !e->clauses.device, 0};
    g.em = (ch_cx){.entry = e, .out = &out, .declare_counter = declare_counter, .ctx = &g};
    ch_strbuf_addf(
        &out,
        "/* ch-cc builtin variant %d: 1-D blocks of %d threads, 2-D blocks of %dx%d, %s%s\n *\n",
        v->id, v->block1, v->bx, v->by, v->strategy, g.staged ? ",\n * pinned staged copies" : "");
    ch_strbuf_addf(&out,
                   " * CUDA translation of %s (%s:%u) by the builtin agent of ch-cc: %zu "
                   "kernel%s, one per\n * parallel loop nest of the C body, launched by "
                   "%s_launcher in the body's order.\n */\n",
                   e->name, e->file, e->fn_line, p->n_nests, p->n_nests == 1 ? "" : "s", e->name);
    ch_strbuf_adds(&out, "#include <cuda_runtime.h>\n#include <math.h>\n#include <stddef.h>\n");
    if (g.staged)
        ch_strbuf_adds(&out, "#include <string.h>\n");
    if (!e->clauses.device)
        ch_strbuf_adds(&out, "#include <mutex>\n");
    ch_strbuf_addc(&out, '\n');
    ch_cx_helpers(e, &out);
    for (size_t k = 0; k < p->n_nests; k++)
        emit_kernel(&g, k);
    emit_helpers(&g);
    emit_launcher(&g);
    if (!e->clauses.device)
        emit_device_launcher(&g);
    return ch_strbuf_detach(&out);
}
