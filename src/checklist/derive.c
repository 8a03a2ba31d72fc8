/* Deterministic checklist derivation from a scanned entry (ch_checklist_derive): parameters,
 * value ranges and tolerances by type, the reference snippet, and the size sets (smoke 1/2/3,
 * odd correctness sizes, a tune size of about 256 MiB of buffers with bounded reference work,
 * the work estimated from loop trip counts in the body IR). Same entry, same checklist. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"

#define TUNE_BYTES (256.0 * 1024 * 1024)
#define TUNE_WORK  1e10 /* reference work at the tune size (about 3 nested loops of 2154) */
#define CHECK_WORK 1e9  /* reference work of one correctness size */
#define LOOP_ONLY_TUNE                                                                             \
    100 /* loop-only sizes (time steps) at the tune size, before the work cap                      \
         */

/* ---- size parameters ---- */

static int has_name(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

static void push_unique(ch_strvec *v, const char *s)
{
    if (!has_name(v, s))
        ch_strvec_push(v, s);
}

/* Names referenced by expr that are integer scalar parameters of e. */
static void add_expr_names(const ch_entry *e, const char *expr, ch_strvec *out)
{
    ch_strvec names;
    ch_strvec_init(&names);
    ch_error ignored;
    if (expr && ch_checklist_expr_names(expr, &names, &ignored) == 0)
        for (size_t i = 0; i < names.len; i++) {
            const ch_param *p = ch_entry_param(e, names.items[i]);
            if (p && p->role == CH_ROLE_SCALAR && ch_scalar_is_integer(p->elem))
                push_unique(out, names.items[i]);
        }
    ch_strvec_free(&names);
}

/* Integer scalar parameters read in a subtree (loop conditions). */
static void add_ir_params(const ch_entry *e, const ch_ir *ir, ch_strvec *out)
{
    if (!ir)
        return;
    if (ir->kind == CH_IR_VAR && ir->text) {
        const ch_param *p = ch_entry_param(e, ir->text);
        if (p && p->role == CH_ROLE_SCALAR && ch_scalar_is_integer(p->elem))
            push_unique(out, ir->text);
    }
    for (size_t i = 0; i < ir->nkids; i++)
        add_ir_params(e, ir->kids[i], out);
}

static void add_loop_bounds(const ch_entry *e, const ch_ir *ir, ch_strvec *out)
{
    if (!ir)
        return;
    if (ir->kind == CH_IR_FOR && ir->nkids > 1)
        add_ir_params(e, ir->kids[1], out);
    if (ir->kind == CH_IR_WHILE && ir->nkids > 0)
        add_ir_params(e, ir->kids[0], out);
    if (ir->kind == CH_IR_DO && ir->nkids > 1)
        add_ir_params(e, ir->kids[1], out);
    for (size_t i = 0; i < ir->nkids; i++)
        add_loop_bounds(e, ir->kids[i], out);
}

/* ---- work estimate ---- */

typedef struct loopvar {
    const char *name;
    double max; /* largest value the variable takes */
} loopvar;

typedef struct workctx {
    const ch_checklist *c;
    const ch_ck_size *size;
    double fallback; /* trip count used when a loop's bounds cannot be evaluated */
    loopvar env[32];
    int nenv;
} workctx;

static int ir_eval(workctx *w, const ch_ir *ir, double *v)
{
    if (!ir)
        return -1;
    double a, b;
    switch (ir->kind) {
    case CH_IR_INT_LIT:
        *v = (double)ir->ival;
        return 0;
    case CH_IR_VAR: {
        for (int i = w->nenv - 1; i >= 0; i--)
            if (strcmp(w->env[i].name, ir->text) == 0) {
                *v = w->env[i].max;
                return 0;
            }
        long long x;
        if (ch_ck_size_get(w->size, ir->text, &x) != 0)
            return -1;
        *v = (double)x;
        return 0;
    }
    case CH_IR_CAST:
        return ir->nkids == 1 ? ir_eval(w, ir->kids[0], v) : -1;
    case CH_IR_UNARY:
        if (ir->nkids != 1 || !ir->text || ir_eval(w, ir->kids[0], &a) != 0)
            return -1;
        if (strcmp(ir->text, "-") == 0)
            *v = -a;
        else if (strcmp(ir->text, "+") == 0)
            *v = a;
        else
            return -1;
        return 0;
    case CH_IR_BINARY:
        if (ir->nkids != 2 || !ir->text || ir_eval(w, ir->kids[0], &a) != 0 ||
            ir_eval(w, ir->kids[1], &b) != 0)
            return -1;
        switch (ir->text[0]) {
        case '+':
            *v = a + b;
            return 0;
        case '-':
            *v = a - b;
            return 0;
        case '*':
            *v = a * b;
            return 0;
        case '/':
            if (b == 0)
                return -1;
            *v = trunc(a / b);
            return 0;
        }
        return -1;
    case CH_IR_CALL:
        if (ir->nkids != 2 || !ir->text || ir_eval(w, ir->kids[0], &a) != 0 ||
            ir_eval(w, ir->kids[1], &b) != 0)
            return -1;
        if (strcmp(ir->text, "min") == 0 || strcmp(ir->text, "fmin") == 0)
            *v = a < b ? a : b;
        else if (strcmp(ir->text, "max") == 0 || strcmp(ir->text, "fmax") == 0)
            *v = a > b ? a : b;
        else
            return -1;
        return 0;
    default:
        return -1;
    }
}

/* The loop variable and start value of a FOR's init, if it is `T v = e` or `v = e`. */
static int for_init(workctx *w, const ch_ir *init, const char **var, double *start)
{
    if (!init)
        return -1;
    if (init->kind == CH_IR_DECL && init->text && init->nkids == 1) {
        *var = init->text;
        return ir_eval(w, init->kids[0], start);
    }
    if (init->kind == CH_IR_EXPR_STMT && init->nkids == 1)
        init = init->kids[0];
    if (init->kind == CH_IR_ASSIGN && init->text && strcmp(init->text, "=") == 0 &&
        init->nkids == 2 && init->kids[0] && init->kids[0]->kind == CH_IR_VAR) {
        *var = init->kids[0]->text;
        return ir_eval(w, init->kids[1], start);
    }
    return -1;
}

/* Step of `v++`, `v--`, `v += c`, `v -= c` (signed), 0 when not recognised. */
static double for_step(const ch_ir *inc)
{
    if (!inc)
        return 0;
    if (inc->kind == CH_IR_EXPR_STMT && inc->nkids == 1)
        inc = inc->kids[0];
    if (!inc || !inc->text)
        return 0;
    if (inc->kind == CH_IR_UNARY)
        return strcmp(inc->text, "++") == 0 ? 1 : strcmp(inc->text, "--") == 0 ? -1 : 0;
    if (inc->kind == CH_IR_ASSIGN && inc->nkids == 2 && inc->kids[1] &&
        inc->kids[1]->kind == CH_IR_INT_LIT && inc->kids[1]->ival > 0) {
        double c = (double)inc->kids[1]->ival;
        return strcmp(inc->text, "+=") == 0 ? c : strcmp(inc->text, "-=") == 0 ? -c : 0;
    }
    return 0;
}

/* Trip count of a canonical for loop and the largest value its variable takes. */
static int for_trip(workctx *w, const ch_ir *f, const char **var, double *trip, double *vmax)
{
    double start, bound;
    if (f->nkids < 4 || for_init(w, f->kids[0], var, &start) != 0)
        return -1;
    const ch_ir *cond = f->kids[1];
    double step = for_step(f->kids[2]);
    if (!cond || cond->kind != CH_IR_BINARY || cond->nkids != 2 || !cond->kids[0] ||
        cond->kids[0]->kind != CH_IR_VAR || strcmp(cond->kids[0]->text, *var) != 0 || step == 0 ||
        ir_eval(w, cond->kids[1], &bound) != 0)
        return -1;
    const char *op = cond->text;
    double span;
    if (step > 0 && (strcmp(op, "<") == 0 || strcmp(op, "!=") == 0))
        span = bound - start;
    else if (step > 0 && strcmp(op, "<=") == 0)
        span = bound - start + 1;
    else if (step < 0 && strcmp(op, ">") == 0)
        span = start - bound;
    else if (step < 0 && strcmp(op, ">=") == 0)
        span = start - bound + 1;
    else
        return -1;
    *trip = span <= 0 ? 0 : ceil(span / fabs(step));
    *vmax = step > 0 ? (span <= 0 ? start : start + (*trip - 1) * step) : start;
    return 0;
}

static double work_of(workctx *w, const ch_ir *ir)
{
    if (!ir)
        return 0;
    switch (ir->kind) {
    case CH_IR_BLOCK: {
        double s = 0;
        for (size_t i = 0; i < ir->nkids; i++)
            s += work_of(w, ir->kids[i]);
        return s;
    }
    case CH_IR_FOR: {
        const char *var = NULL;
        double trip, vmax;
        const ch_ir *body = ir->nkids > 3 ? ir->kids[3] : NULL;
        if (for_trip(w, ir, &var, &trip, &vmax) != 0 || w->nenv == 32)
            return w->fallback * (1 + work_of(w, body));
        w->env[w->nenv].name = var;
        w->env[w->nenv].max = vmax;
        w->nenv++;
        double inner = work_of(w, body);
        w->nenv--;
        return trip * (1 + inner);
    }
    case CH_IR_WHILE:
        return w->fallback * (1 + work_of(w, ir->nkids > 1 ? ir->kids[1] : NULL));
    case CH_IR_DO:
        return w->fallback * (1 + work_of(w, ir->nkids > 0 ? ir->kids[0] : NULL));
    case CH_IR_IF: {
        double a = ir->nkids > 1 ? work_of(w, ir->kids[1]) : 0;
        double b = ir->nkids > 2 ? work_of(w, ir->kids[2]) : 0;
        return 1 + (a > b ? a : b);
    }
    default:
        return 1;
    }
}

/* Buffer bytes and largest extent under a size set; -1 when an extent cannot be evaluated. */
static int buffer_totals(const ch_checklist *c, const ch_ck_size *s, double *bytes, double *largest)
{
    ch_error ignored;
    *bytes = 0;
    *largest = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        long long ext, hi;
        if (p->role == CH_ROLE_SCALAR)
            continue;
        if (ch_checklist_eval(p->extent, s, &ext, &ignored) != 0 || ext < 0)
            return -1;
        if (p->index_hi && ext > 0 &&
            (ch_checklist_eval(p->index_hi, s, &hi, &ignored) != 0 || hi < 1))
            return -1;
        *bytes += (double)ext * (double)ch_scalar_size(p->elem);
        if ((double)ext > *largest)
            *largest = (double)ext;
    }
    return 0;
}

static double estimate_work(const ch_checklist *c, const ch_ir *body, const ch_ck_size *s)
{
    double bytes, largest;
    if (buffer_totals(c, s, &bytes, &largest) != 0)
        return INFINITY;
    if (!body)
        return largest;
    workctx w = {c, s, largest, {{0}}, 0};
    return work_of(&w, body);
}

/* ---- size sets ---- */

typedef struct sizeplan {
    ch_strvec ext;       /* size parameters used by extents / index bounds, in parameter order */
    ch_strvec loop;      /* size parameters used only by loop bounds (time steps, repeats) */
    long long *loop_cap; /* per loop: the largest tune value (loop_caps) */
    int degree;          /* most size parameters in one extent: the entry's dimensionality */
} sizeplan;

/* ---- loop-only sizes bounded by fixed dimensions ---- */

/* A loop-only size is either a count of repeats (time steps: nothing bounds it, the tune set
 * takes LOOP_ONLY_TUNE) or the length of a loop whose counter subscripts a dimension of a
 * fixed-size array (PolyBench's `for (i = 0; i < ni; i++) C[i][j]` with `double C[1000][1100]`):
 * then the array's dimension is its largest valid value, and the size a caller uses. Taking
 * 100 there made the tune set a thousand times less work than the calls (gemm timed at
 * ni = nj = nk = 100 against copies of the whole fixed arrays), so the GPU never won a measured
 * point and the dispatcher kept the host path at every size. */

/* The constant value of a dimension expression, or -1. */
static long long const_dim(const char *dim)
{
    ch_ck_size none = {0};
    long long v = -1;
    ch_error ignored;
    if (!dim || !*dim || ch_checklist_eval(dim, &none, &v, &ignored) != 0)
        return -1;
    return v;
}

/* The offset c when ir is VAR var, var + c, var - c or c + var (c a literal); 0 when it is
 * none of these. */
static int counter_offset(const ch_ir *ir, const char *var, long long *c)
{
    if (ir && ir->kind == CH_IR_VAR && ir->text && strcmp(ir->text, var) == 0) {
        *c = 0;
        return 1;
    }
    if (!ir || ir->kind != CH_IR_BINARY || ir->nkids != 2 || !ir->text || !ir->kids[0] ||
        !ir->kids[1])
        return 0;
    const ch_ir *a = ir->kids[0], *b = ir->kids[1];
    int plus = strcmp(ir->text, "+") == 0, minus = strcmp(ir->text, "-") == 0;
    if (a->kind == CH_IR_VAR && a->text && strcmp(a->text, var) == 0 && b->kind == CH_IR_INT_LIT &&
        (plus || minus)) {
        *c = plus ? b->ival : -b->ival;
        return 1;
    }
    if (plus && a->kind == CH_IR_INT_LIT && b->kind == CH_IR_VAR && b->text &&
        strcmp(b->text, var) == 0) {
        *c = a->ival;
        return 1;
    }
    return 0;
}

/* Whether ir reads var anywhere. */
static int reads_var(const ch_ir *ir, const char *var)
{
    return ch_ir_find(ir, CH_IR_VAR, var) != NULL;
}

/* Whether ir computes a number from var itself: var read outside any subscript (an array
 * element read at a subscript of var is a value of the array, not of the counter). */
static int value_of_var(const ch_ir *ir, const char *var)
{
    if (!ir || ir->kind == CH_IR_INDEX)
        return 0;
    if (ir->kind == CH_IR_VAR && ir->text && strcmp(ir->text, var) == 0)
        return 1;
    for (size_t i = 0; i < ir->nkids; i++)
        if (value_of_var(ir->kids[i], var))
            return 1;
    return 0;
}

/* What a loop body does with its counter var: the smallest cap its subscripts of fixed
 * dimensions of parameter arrays put on it (var + c < dim: var < dim - c), and whether any use
 * could reach a subscript another way (a subscript of another form or of another array, a
 * local variable computed from it, the counter changed in the body), which makes the cap
 * unknown: a tune value past a real bound would have the reference read outside the user's
 * arrays. Uses in loop headers and conditions only bound or select iterations. */
typedef struct counter_use {
    const char *var;
    long long cap;
    int unknown;
} counter_use;

static void counter_uses(const ch_entry *e, const ch_ir *ir, int in_header, counter_use *u);

/* ir, an INDEX node: its own subscript (dimension d, the INDEX nodes below it) and what it
 * holds. */
static void index_use(const ch_entry *e, const ch_ir *ir, counter_use *u)
{
    size_t d = 0;
    const ch_ir *base = ir->kids[0];
    while (base && base->kind == CH_IR_INDEX && base->nkids == 2) {
        d++;
        base = base->kids[0];
    }
    const ch_param *p = base && base->kind == CH_IR_VAR && base->param_index >= 0 &&
                                (size_t)base->param_index < e->n_params
                            ? &e->params[base->param_index]
                            : NULL;
    const ch_ir *sub = ir->kids[1];
    long long c, dim;
    if (reads_var(sub, u->var)) {
        if (p && d < p->ndims && counter_offset(sub, u->var, &c) &&
            (dim = const_dim(p->dims[d])) > 0) {
            if (dim - c < u->cap)
                u->cap = dim - c;
        } else {
            u->unknown = 1;
        }
    }
    counter_uses(e, ir->kids[0], 0, u);
    counter_uses(e, sub, 0, u);
}

static void counter_uses(const ch_entry *e, const ch_ir *ir, int in_header, counter_use *u)
{
    if (!ir || u->unknown)
        return;
    switch (ir->kind) {
    case CH_IR_INDEX:
        if (ir->nkids == 2) {
            index_use(e, ir, u);
            return;
        }
        break;
    case CH_IR_FOR:
        for (size_t i = 0; i < ir->nkids; i++)
            counter_uses(e, ir->kids[i], i < 3, u);
        return;
    case CH_IR_DECL:
        if (!in_header && ir->nkids > 0 && value_of_var(ir->kids[0], u->var))
            u->unknown = 1;
        break;
    case CH_IR_ASSIGN:
        if (ir->nkids == 2 && ir->kids[0] && ir->kids[0]->kind == CH_IR_VAR && !in_header &&
            ((ir->kids[0]->text && strcmp(ir->kids[0]->text, u->var) == 0) ||
             (ir->kids[0]->param_index < 0 && value_of_var(ir->kids[1], u->var))))
            u->unknown = 1;
        break;
    case CH_IR_UNARY:
        if (!in_header && ir->text &&
            (strcmp(ir->text, "++") == 0 || strcmp(ir->text, "--") == 0) && reads_var(ir, u->var))
            u->unknown = 1;
        break;
    default:
        break;
    }
    for (size_t i = 0; i < ir->nkids; i++)
        counter_uses(e, ir->kids[i], in_header, u);
}

/* For each `for (v = start; v < P + k; ...)` (or `<=`; k a literal, often -1 as in a stencil's
 * `i < n - 1`) in ir whose bound is a loop-only size P (sp->loop[i]), the cap that v's
 * subscripts of fixed dimensions put on P: v < cap needs P + k <= cap. In sp->loop_cap, -1:
 * nothing bounds P yet; -2: a loop P bounds uses its counter in a way the caps cannot follow,
 * so P keeps the count of repeats whatever other loops say. */
static void loop_caps_in(const ch_entry *e, const ch_ir *ir, sizeplan *sp)
{
    if (!ir)
        return;
    const ch_ir *cond = ir->kind == CH_IR_FOR && ir->nkids > 3 ? ir->kids[1] : NULL;
    if (cond && cond->kind == CH_IR_BINARY && cond->nkids == 2 && cond->text && cond->kids[0] &&
        cond->kids[0]->kind == CH_IR_VAR && cond->kids[0]->text &&
        (strcmp(cond->text, "<") == 0 || strcmp(cond->text, "<=") == 0)) {
        const char *var = cond->kids[0]->text;
        for (size_t i = 0; i < sp->loop.len; i++) {
            long long k;
            if (!counter_offset(cond->kids[1], sp->loop.items[i], &k))
                continue;
            counter_use u = {var, LLONG_MAX, 0};
            counter_uses(e, ir->kids[3], 0, &u);
            if (u.unknown)
                sp->loop_cap[i] = -2; /* P may reach a bound no subscript shows: no cap */
            if (u.unknown || u.cap == LLONG_MAX || sp->loop_cap[i] == -2)
                continue;
            long long cap = u.cap - k - (strcmp(cond->text, "<=") == 0); /* v takes P + k */
            if (cap < 1)
                cap = 1;
            if (sp->loop_cap[i] == -1 || cap < sp->loop_cap[i])
                sp->loop_cap[i] = cap;
        }
    }
    for (size_t i = 0; i < ir->nkids; i++)
        loop_caps_in(e, ir->kids[i], sp);
}

/* sp->loop_cap: LOOP_ONLY_TUNE for repeats, a fixed dimension for a loop length over one. */
static void loop_caps(const ch_entry *e, sizeplan *sp)
{
    sp->loop_cap = ch_xcalloc(sp->loop.len ? sp->loop.len : 1, sizeof *sp->loop_cap);
    for (size_t i = 0; i < sp->loop.len; i++)
        sp->loop_cap[i] = -1;
    loop_caps_in(e, e->body, sp);
    for (size_t i = 0; i < sp->loop.len; i++)
        if (sp->loop_cap[i] < 0)
            sp->loop_cap[i] = LOOP_ONLY_TUNE;
}

/* The largest loop cap (the bisection's upper end for loop-only sizes). */
static long long largest_loop_cap(const sizeplan *sp)
{
    long long hi = 1;
    for (size_t k = 0; k < sp->loop.len; k++)
        if (sp->loop_cap[k] > hi)
            hi = sp->loop_cap[k];
    return hi;
}

static void make_set(const sizeplan *sp, long long ext_base, int ext_stride, long long loop_v,
                     ch_ck_size *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sp->ext.len; i++)
        ch_ck_size_set(out, sp->ext.items[i], ext_base + (long long)i * ext_stride);
    for (size_t i = 0; i < sp->loop.len; i++)
        ch_ck_size_set(out, sp->loop.items[i], loop_v < sp->loop_cap[i] ? loop_v : sp->loop_cap[i]);
}

static int set_ok(const ch_checklist *c, const ch_ck_size *s)
{
    double bytes, largest;
    return buffer_totals(c, s, &bytes, &largest) == 0;
}

static void push_set(ch_ck_size **v, size_t *n, ch_ck_size *s)
{
    *v = ch_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = *s;
}

static void derive_smoke(ch_checklist *c, const sizeplan *sp)
{
    size_t want = sp->ext.len + sp->loop.len > 0 ? 3 : 1; /* no sizes: one (empty) set */
    for (long long v = 1; v <= 64 && c->n_smoke < want; v++) {
        ch_ck_size s;
        make_set(sp, v, 0, v, &s);
        if (set_ok(c, &s))
            push_set(&c->smoke, &c->n_smoke, &s);
        else
            ch_ck_size_free(&s);
    }
}

static void derive_correctness(ch_checklist *c, const sizeplan *sp, const ch_ir *body)
{
    static const long long bases[4][3] = {
        {37, 129, 1023}, /* 1-D */
        {13, 37, 129},   /* 2-D */
        {5, 13, 37},     /* 3-D */
        {3, 5, 9},       /* 4-D and more */
    };
    static const long long loop_vals[3] = {5, 7, 11};
    int row = sp->degree <= 1 ? 0 : sp->degree >= 4 ? 3 : sp->degree - 1;
    for (int k = 0; k < 3; k++) {
        long long base = bases[row][k];
        ch_ck_size s;
        /* distinct odd values per parameter (+2 each) so swapped dimensions show */
        make_set(sp, base, 2, loop_vals[k], &s);
        while (base > 3 && (!set_ok(c, &s) || estimate_work(c, body, &s) > CHECK_WORK)) {
            base = (base / 2) | 1;
            ch_ck_size_free(&s);
            make_set(sp, base, 2, loop_vals[k], &s);
        }
        for (long long b = base; !set_ok(c, &s) && b < 4096; b = b * 2 + 1) {
            ch_ck_size_free(&s);
            make_set(sp, b * 2 + 1, 2, loop_vals[k], &s);
        }
        int dup = 0;
        for (size_t i = 0; i < c->n_correctness; i++) {
            const ch_ck_size *o = &c->correctness[i];
            dup |= o->n == s.n &&
                   (s.n == 0 || memcmp(o->values, s.values, s.n * sizeof *s.values) == 0);
        }
        if (set_ok(c, &s) && !dup)
            push_set(&c->correctness, &c->n_correctness, &s);
        else
            ch_ck_size_free(&s);
    }
}

/* The tune set with the free parameters set to (ext_v, loop_v). */
static void tune_set(const ch_ck_size *given, const sizeplan *sp, long long ext_v, long long loop_v,
                     ch_ck_size *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sp->ext.len; i++)
        if (ch_ck_size_get(given, sp->ext.items[i], NULL) != 0)
            ch_ck_size_set(out, sp->ext.items[i], ext_v);
    for (size_t i = 0; i < sp->loop.len; i++)
        if (ch_ck_size_get(given, sp->loop.items[i], NULL) != 0)
            ch_ck_size_set(out, sp->loop.items[i],
                           loop_v < sp->loop_cap[i] ? loop_v : sp->loop_cap[i]);
    for (size_t i = 0; i < given->n; i++)
        ch_ck_size_set(out, given->names[i], given->values[i]);
}

typedef enum { FIT_EXT, FIT_LOOP } fit_what;

/* Largest v in [1, hi] (1 if none) whose set stays within both limits, by bisection
 * (bytes and work grow with every size). */
static long long fit(const ch_checklist *c, const ch_ir *body, const ch_ck_size *given,
                     const sizeplan *sp, fit_what what, long long other, long long hi,
                     double max_bytes, double max_work)
{
    long long lo = 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        ch_ck_size s;
        tune_set(given, sp, what == FIT_EXT ? mid : other, what == FIT_EXT ? other : mid, &s);
        double bytes, largest;
        int ok = buffer_totals(c, &s, &bytes, &largest) == 0 && bytes <= max_bytes &&
                 estimate_work(c, body, &s) <= max_work;
        ch_ck_size_free(&s);
        if (ok)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int derive_tune(ch_checklist *c, const ch_entry *e, const sizeplan *sp, ch_error *err)
{
    ch_ck_size given = {0};
    for (size_t i = 0; i < e->clauses.n_tune; i++) {
        const ch_named_expr *t = &e->clauses.tune[i];
        long long v;
        if (ch_checklist_eval(t->expr, &given, &v, err) != 0) {
            ch_ck_size_free(&given);
            return ch_error_prefix(err, "tune(%s)", t->name);
        }
        ch_ck_size_set(&given, t->name, v);
    }
    int free_ext = 0, free_loop = 0;
    for (size_t i = 0; i < sp->ext.len; i++)
        free_ext |= ch_ck_size_get(&given, sp->ext.items[i], NULL) != 0;
    for (size_t i = 0; i < sp->loop.len; i++)
        free_loop |= ch_ck_size_get(&given, sp->loop.items[i], NULL) != 0;
    long long ext_v = 1, loop_v = largest_loop_cap(sp);
    if (free_ext) {
        /* buffers about 256 MiB, then the work cap (with loop-only sizes at their default) */
        ext_v = fit(c, e->body, &given, sp, FIT_EXT, loop_v, 1LL << 40, TUNE_BYTES, INFINITY);
        ext_v = fit(c, e->body, &given, sp, FIT_EXT, free_loop ? 1 : loop_v, ext_v, TUNE_BYTES,
                    TUNE_WORK);
    }
    if (free_loop)
        loop_v =
            fit(c, e->body, &given, sp, FIT_LOOP, ext_v, largest_loop_cap(sp), INFINITY, TUNE_WORK);
    tune_set(&given, sp, ext_v, loop_v, &c->tune);
    ch_ck_size_free(&given);
    return 0;
}

/* ---- reference snippet from the body's token stream ---- */

static int is_word(const char *t)
{
    return (t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z') || t[0] == '_' ||
           (t[0] >= '0' && t[0] <= '9') || t[0] == '.';
}

static int is_keyword_paren(const char *t)
{
    static const char *const kw[] = {"if", "for", "while", "switch", "return", NULL};
    for (int i = 0; kw[i]; i++)
        if (strcmp(t, kw[i]) == 0)
            return 1;
    return 0;
}

static void indent_to(ch_strbuf *sb, int depth)
{
    for (int i = 0; i < depth; i++)
        ch_strbuf_adds(sb, "    ");
}

/* Re-lays out "{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] ; }" as indented C. */
static char *format_tokens(const char *toks)
{
    ch_strvec t;
    ch_strvec_init(&t);
    for (const char *p = toks; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *s = p;
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q)
                p += (*p == '\\' && p[1]) ? 2 : 1;
            if (*p)
                p++;
        }
        while (*p && *p != ' ')
            p++;
        ch_strvec_push_owned(&t, ch_xstrndup(s, (size_t)(p - s)));
    }
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int depth = 0, paren = 0, bol = 1;
    for (size_t i = 0; i < t.len; i++) {
        const char *x = t.items[i];
        const char *prev = i > 0 ? t.items[i - 1] : "";
        if (strcmp(x, "}") == 0) {
            depth--;
            if (!bol)
                ch_strbuf_addc(&sb, '\n');
            indent_to(&sb, depth);
            ch_strbuf_adds(&sb, "}\n");
            bol = 1;
            continue;
        }
        if (bol) {
            indent_to(&sb, depth);
        } else {
            int tight = strchr(",;)]", x[0]) && x[1] == '\0';
            tight |= (strcmp(prev, "(") == 0 || strcmp(prev, "[") == 0);
            tight |= (strcmp(x, "(") == 0 || strcmp(x, "[") == 0) && is_word(prev) &&
                     !is_keyword_paren(prev);
            tight |= strcmp(x, "[") == 0 && (strcmp(prev, "]") == 0 || strcmp(prev, ")") == 0);
            tight |= strcmp(x, ".") == 0 || strcmp(prev, ".") == 0 || strcmp(x, "->") == 0 ||
                     strcmp(prev, "->") == 0;
            int incdec = strcmp(x, "++") == 0 || strcmp(x, "--") == 0;
            tight |= incdec && (is_word(prev) || strcmp(prev, ")") == 0 || strcmp(prev, "]") == 0);
            int prev_incdec = strcmp(prev, "++") == 0 || strcmp(prev, "--") == 0;
            const char *pp = i > 1 ? t.items[i - 2] : "";
            tight |= prev_incdec && is_word(x) &&
                     !(is_word(pp) || strcmp(pp, ")") == 0 || strcmp(pp, "]") == 0);
            if (!tight)
                ch_strbuf_addc(&sb, ' ');
        }
        bol = 0;
        ch_strbuf_adds(&sb, x);
        if (strcmp(x, "(") == 0)
            paren++;
        else if (strcmp(x, ")") == 0 && paren > 0)
            paren--;
        if (strcmp(x, "{") == 0) {
            depth++;
            ch_strbuf_addc(&sb, '\n');
            bol = 1;
        } else if (strcmp(x, ";") == 0 && paren == 0) {
            ch_strbuf_addc(&sb, '\n');
            bol = 1;
        }
    }
    ch_strvec_free(&t);
    while (sb.len > 0 && sb.data[sb.len - 1] == '\n')
        sb.data[--sb.len] = '\0';
    char *out = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return out;
}

/* ---- parameters ---- */

/* The root array variable of an INDEX chain (A in A[i][j]). */
static const char *index_root(const ch_ir *ir)
{
    while (ir && ir->kind == CH_IR_INDEX && ir->nkids > 0)
        ir = ir->kids[0];
    return ir && ir->kind == CH_IR_VAR ? ir->text : NULL;
}

static int reads_index_of(const ch_ir *ir, const char *idx)
{
    if (!ir)
        return 0;
    if (ir->kind == CH_IR_INDEX) {
        const char *r = index_root(ir);
        if (r && strcmp(r, idx) == 0)
            return 1;
    }
    for (size_t i = 0; i < ir->nkids; i++)
        if (reads_index_of(ir->kids[i], idx))
            return 1;
    return 0;
}

/* First array subscripted by an element of idx (x in x[idx[i]]), in body order. */
static const char *find_index_of(const ch_ir *ir, const char *idx)
{
    if (!ir)
        return NULL;
    if (ir->kind == CH_IR_INDEX && ir->nkids == 2 && reads_index_of(ir->kids[1], idx)) {
        const char *r = index_root(ir);
        if (r && strcmp(r, idx) != 0)
            return r;
    }
    for (size_t i = 0; i < ir->nkids; i++) {
        const char *r = find_index_of(ir->kids[i], idx);
        if (r)
            return r;
    }
    return NULL;
}

static void default_range(ch_scalar t, double *lo, double *hi)
{
    if (ch_scalar_is_float(t)) {
        *lo = -1;
        *hi = 1;
    } else if (t == CH_T_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (ch_scalar_is_signed(t)) {
        *lo = -100;
        *hi = 100;
    } else {
        *lo = 0;
        *hi = 100;
    }
}

static void default_tol(ch_scalar t, const ch_clauses *cl, double *rtol, double *atol)
{
    *rtol = *atol = 0;
    if (t == CH_T_FLOAT) {
        *rtol = 1e-4;
        *atol = 1e-5;
    } else if (t == CH_T_DOUBLE) {
        *rtol = 1e-9;
        *atol = 1e-12;
    }
    if (cl->has_tol && ch_scalar_is_float(t))
        *rtol = cl->tol;
}

static void derive_params(ch_checklist *c, const ch_entry *e, const ch_strvec *sizes)
{
    c->params = ch_xcalloc(e->n_params + 1, sizeof *c->params);
    c->n_params = e->n_params;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *s = &e->params[i];
        ch_ck_param *p = &c->params[i];
        p->name = ch_xstrdup(s->name);
        p->type = ch_xstrdup(s->type);
        p->role = s->role;
        p->elem = s->elem;
        if (s->role == CH_ROLE_SCALAR) {
            p->dir = CH_DIR_NONE;
            p->has_range = !(ch_scalar_is_integer(s->elem) && has_name(sizes, s->name));
            if (p->has_range)
                default_range(s->elem, &p->lo, &p->hi);
            continue;
        }
        p->dir = s->dir;
        p->written_only = s->dir == CH_DIR_INOUT && s->written_only;
        p->extent = s->extent ? ch_xstrdup(s->extent) : NULL;
        if (s->is_index && s->index_hi && ch_scalar_is_integer(s->elem)) {
            const char *of = find_index_of(e->body, s->name);
            /* an inferred index array came from a subscript, so some array has its extent;
             * a range() clause may describe values the body uses in ways not seen here */
            for (size_t j = 0; !of && !s->values_explicit && j < e->n_params; j++) {
                const ch_param *q = &e->params[j];
                if (q != s && q->role != CH_ROLE_SCALAR && !q->is_index && q->extent &&
                    strcmp(q->extent, s->index_hi) == 0)
                    of = q->name;
            }
            for (size_t j = 0; !of && !s->values_explicit && j < e->n_params; j++)
                if (&e->params[j] != s && e->params[j].role != CH_ROLE_SCALAR &&
                    !e->params[j].is_index)
                    of = e->params[j].name;
            if (of || s->values_explicit) {
                p->index_of = of ? ch_xstrdup(of) : NULL;
                p->index_lo = s->index_lo ? ch_xstrdup(s->index_lo) : NULL;
                p->index_hi = ch_xstrdup(s->index_hi);
                p->perm = s->is_perm;
            }
        }
        if (!p->index_hi && s->offsets_hi && ch_scalar_is_integer(s->elem))
            p->offsets_hi = ch_xstrdup(s->offsets_hi);
        if (!p->index_hi && !p->offsets_hi) {
            p->has_range = 1;
            if (s->has_range) {
                p->lo = s->lo;
                p->hi = s->hi;
            } else {
                default_range(s->elem, &p->lo, &p->hi);
            }
        }
        if (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT)
            default_tol(s->elem, &e->clauses, &p->rtol, &p->atol);
    }
}

/* The body, then the helpers it calls (a kernel author must compute what they compute). */
static char *reference_snippet(const ch_entry *e)
{
    if (!e->body_tokens)
        return ch_xstrdup("/* body not available */");
    char *body = format_tokens(e->body_tokens);
    if (!e->n_helpers)
        return body;
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, body);
    ch_strbuf_adds(&sb, "\n\n/* functions the body calls */\n");
    for (size_t i = 0; i < e->n_helpers; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? "\n" : "", e->helpers[i].source);
    free(body);
    return ch_strbuf_detach(&sb);
}

int ch_checklist_derive(const ch_entry *e, ch_checklist *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    ch_checklist *c = out;
    c->name = ch_xstrdup(e->name);
    c->kind = e->kind;
    c->signature = ch_xstrdup(e->signature ? e->signature : "");
    c->device = e->clauses.device;
    c->budget = e->clauses.has_budget ? e->clauses.budget : 0;
    c->sample = e->clauses.sample ? ch_xstrdup(e->clauses.sample) : NULL;
    ch_checklist_note_map(c, e);
    if (e->has_body)
        c->reference = reference_snippet(e);
    if (e->spec)
        c->description = ch_xstrdup(e->spec);
    else
        c->description =
            ch_xasprintf("C function %s\n%s", c->signature, c->reference ? c->reference : "");

    sizeplan sp;
    ch_strvec_init(&sp.ext);
    ch_strvec_init(&sp.loop);
    sp.degree = 0;
    sp.loop_cap = NULL;
    ch_strvec all, tmp;
    ch_strvec_init(&all);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        ch_strvec_init(&tmp);
        add_expr_names(e, p->extent, &tmp);
        if ((int)tmp.len > sp.degree)
            sp.degree = (int)tmp.len;
        add_expr_names(e, p->index_lo, &tmp);
        add_expr_names(e, p->index_hi, &tmp);
        add_expr_names(e, p->offsets_hi, &tmp);
        for (size_t d = 0; d < p->ndims; d++)
            add_expr_names(e, p->dims[d], &tmp);
        for (size_t k = 0; k < tmp.len; k++)
            push_unique(&all, tmp.items[k]);
        ch_strvec_free(&tmp);
    }
    ch_strvec_init(&tmp);
    add_loop_bounds(e, e->body, &tmp);
    for (size_t i = 0; i < e->clauses.n_tune; i++) {
        const ch_param *p = ch_entry_param(e, e->clauses.tune[i].name);
        if (!p || p->role != CH_ROLE_SCALAR || !ch_scalar_is_integer(p->elem)) {
            ch_strvec_free(&tmp);
            ch_strvec_free(&all);
            ch_strvec_free(&sp.ext);
            ch_strvec_free(&sp.loop);
            ch_checklist_free(c);
            return ch_error_set(err, "tune(%s): not an integer scalar parameter of %s",
                                e->clauses.tune[i].name, e->name);
        }
        push_unique(&tmp, e->clauses.tune[i].name);
    }
    /* parameter order, split into extent sizes and loop-only sizes */
    for (size_t i = 0; i < e->n_params; i++) {
        const char *n = e->params[i].name;
        if (has_name(&all, n))
            ch_strvec_push(&sp.ext, n);
        else if (has_name(&tmp, n))
            ch_strvec_push(&sp.loop, n);
    }
    ch_strvec_free(&tmp);
    ch_strvec_free(&all);
    loop_caps(e, &sp);

    ch_strvec sizes;
    ch_strvec_init(&sizes);
    ch_strvec_pushv(&sizes, &sp.ext);
    ch_strvec_pushv(&sizes, &sp.loop);
    derive_params(c, e, &sizes);
    ch_strvec_free(&sizes);

    int rc = 0;
    derive_smoke(c, &sp);
    derive_correctness(c, &sp, e->body);
    rc = derive_tune(c, e, &sp, err);
    ch_strvec_free(&sp.ext);
    ch_strvec_free(&sp.loop);
    free(sp.loop_cap);
    if (rc == 0 && ch_checklist_validate(c, err) != 0)
        rc = ch_error_prefix(err, "derived checklist of %s", e->name);
    if (rc != 0)
        ch_checklist_free(c);
    return rc;
}

/* ---- the clauses over an agent's checklist ---- */

/* Replaces what p says about its values by what the entry's parameter s says. */
static void take_values(ch_ck_param *p, const ch_param *s)
{
    free(p->index_of);
    free(p->index_lo);
    free(p->index_hi);
    free(p->offsets_hi);
    p->index_of = p->index_lo = p->index_hi = p->offsets_hi = NULL;
    p->has_range = 0;
    p->perm = 0;
    if (s->index_hi) {
        p->index_lo = s->index_lo ? ch_xstrdup(s->index_lo) : NULL;
        p->index_hi = ch_xstrdup(s->index_hi);
        p->perm = s->is_perm;
    } else if (s->offsets_hi) {
        p->offsets_hi = ch_xstrdup(s->offsets_hi);
    } else {
        p->has_range = s->has_range;
        p->lo = s->lo;
        p->hi = s->hi;
    }
}

/* An agent's checklist judges every candidate: tolerances so loose that any output passes
 * (rtol = atol = 1e30, attacks5/ref07_checklist.json) or one correctness size would make stage 3
 * pass anything. A tolerance may be looser than the default, as a reduction's rounding needs, up
 * to CH_AGENT_TOL_MAX or the pragma's tol() when that is larger; correctness takes two sizes at
 * least. */
#define CH_AGENT_TOL_MAX 1e-2

static int bound_agent_checklist(const ch_checklist *c, const ch_entry *e, ch_error *err)
{
    double max =
        e->clauses.has_tol && e->clauses.tol > CH_AGENT_TOL_MAX ? e->clauses.tol : CH_AGENT_TOL_MAX;
    for (size_t k = 0; k < c->n_params; k++) {
        const ch_ck_param *p = &c->params[k];
        if (p->rtol > max || p->atol > max)
            return ch_error_set(err,
                                "params[%zu].%s: a tolerance of %g is above %g (the most a "
                                "checklist may allow without a looser tol() in the pragma)",
                                k, p->rtol > max ? "rtol" : "atol",
                                p->rtol > max ? p->rtol : p->atol, max);
    }
    if (c->n_correctness < 2)
        return ch_error_set(err,
                            "sizes.correctness: %zu size%s, two at least (one size tests "
                            "one shape)",
                            c->n_correctness, c->n_correctness == 1 ? "" : "s");
    return 0;
}

int ch_checklist_apply_clauses(ch_checklist *c, const ch_entry *e, ch_error *err)
{
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *s = &e->params[i];
        ch_ck_param *p = NULL;
        for (size_t k = 0; k < c->n_params && !p; k++)
            if (c->params[k].name && strcmp(c->params[k].name, s->name) == 0)
                p = &c->params[k];
        if (p && s->values_explicit && p->role != CH_ROLE_SCALAR)
            take_values(p, s);
    }
    free(c->sample);
    c->sample = e->clauses.sample ? ch_xstrdup(e->clauses.sample) : NULL;
    if (ch_checklist_validate(c, err) != 0)
        return ch_error_prefix(err,
                               "with the pragma's range(), offsets(), perm() and sample() clauses");
    return bound_agent_checklist(c, e, err);
}
