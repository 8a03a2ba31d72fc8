/* The polyhedral model of a harness body on isl (ch_tr_model_build): the translator's input.
 *
 * Statements are the expression statements (and initialised declarations) that write, inside
 * canonical `for` loops. Each gets an isl iteration domain over its loop counters, with the
 * integer scalar parameters as isl parameters; its reads and writes as isl relations per array
 * (affine subscripts exact; a subscript that is not affine leaves that dimension free, which
 * over-approximates the access as the whole extent); and its place in the original 2d+1
 * schedule (textual positions interleaved with the counters).
 *
 * Invariants: the model never under-approximates. A domain bound or `if` condition that is not
 * affine is dropped (the domain grows) and the statement's writes become may-writes; anything
 * whose effect is unknown (while/do, break, calls that may have side effects, pointer
 * arithmetic, local arrays, opaque nodes) is refused with its location, never skipped. isl
 * objects are built from text the model prints (affine forms are checked here first, so isl
 * only ever parses what is known to be affine). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "ch/cexpr.h"
#include "ch/translate.h"
#include "delin.h"
#include "ifconv.h"

/* --- affine forms --- */

#define LIN_MAX 16

/* c + sum k[t] * var[t]; variables are loop counters and integer scalar parameters (names
 * borrowed from the entry). */
typedef struct lin {
    long long c;
    size_t n;
    const char *var[LIN_MAX];
    long long k[LIN_MAX];
} lin;

/* Names isl's parser reads as keywords get a trailing underscore in isl text. */
void ch_tr_isl_name(ch_strbuf *sb, const char *name)
{
    static const char *const kw[] = {"and",  "or",   "not",  "exists",  "min",    "max",   "floor",
                                     "ceil", "mod",  "true", "false",   "infty",  "ceild", "floord",
                                     "rat",  "cond", "xor",  "implies", "domain", "range", NULL};
    ch_strbuf_adds(sb, name);
    for (size_t i = 0; kw[i]; i++)
        if (strcmp(kw[i], name) == 0)
            ch_strbuf_addc(sb, '_');
}

static int lin_add_term(lin *l, const char *var, long long k)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->var[i], var) == 0)
            return __builtin_add_overflow(l->k[i], k, &l->k[i]) ? -1 : 0;
    if (l->n == LIN_MAX)
        return -1;
    l->var[l->n] = var;
    l->k[l->n++] = k;
    return 0;
}

/* l += s * r; -1 on overflow or too many terms. */
static int lin_axpy(lin *l, long long s, const lin *r)
{
    long long t;
    if (__builtin_mul_overflow(s, r->c, &t) || __builtin_add_overflow(l->c, t, &l->c))
        return -1;
    for (size_t i = 0; i < r->n; i++)
        if (__builtin_mul_overflow(s, r->k[i], &t) || lin_add_term(l, r->var[i], t) != 0)
            return -1;
    return 0;
}

static int lin_is_const(const lin *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->k[i] != 0)
            return 0;
    return 1;
}

static void lin_print(ch_strbuf *sb, const lin *l)
{
    int any = 0;
    ch_strbuf_addc(sb, '(');
    for (size_t i = 0; i < l->n; i++) {
        if (l->k[i] == 0)
            continue;
        if (any || l->k[i] < 0)
            ch_strbuf_adds(sb, l->k[i] < 0 ? (any ? " - " : "-") : " + ");
        if (llabs(l->k[i]) != 1)
            ch_strbuf_addf(sb, "%lld*", llabs(l->k[i]));
        ch_tr_isl_name(sb, l->var[i]);
        any = 1;
    }
    if (!any)
        ch_strbuf_addf(sb, "%lld", l->c);
    else if (l->c)
        ch_strbuf_addf(sb, " %c %lld", l->c < 0 ? '-' : '+', llabs(l->c));
    ch_strbuf_addc(sb, ')');
}

/* --- the builder --- */

/* The shape every split subscript of a flattened array agrees on (see delin.h). */
typedef struct shape {
    const char *array; /* borrowed from the entry */
    size_t ndims;      /* 0 once two subscripts disagree: the array stays one-dimensional */
    const char *size[CH_TR_DELIN_MAX_DIMS];
} shape;

typedef struct builder {
    ch_tr_model *m;
    const ch_entry *e;
    ch_error *err;
    char *params; /* "[m, n]": every integer scalar parameter, owned */
    size_t *open; /* indices of the open loops, outermost first */
    size_t n_open;
    ch_strvec cons; /* constraints of the open loops and affine ifs, as isl text */
    long *pos;      /* next textual position per depth */
    long *cur;      /* position of the open element per depth */
    size_t pos_cap;
    int may_depth;        /* > 0: inside something whose domain is over-approximated */
    int unbounded_depth;  /* > 0: inside a loop whose start or bound is not affine */
    const ch_ir **guards; /* enclosing conditions the domain does not hold (see ch_tr_stmt) */
    unsigned char *guard_neg;
    size_t n_guards;
    const ch_ir **extra; /* conditions and bounds: their reads belong to every statement below */
    size_t n_extra;
    long **spos; /* per statement: its 2d+1 schedule positions (counters as 0) */
    size_t max_depth;
    unsigned n_exists;
    shape *shapes; /* per flattened array: the row-major shape its subscripts share */
    size_t n_shapes;
    const ch_strvec *unsplit; /* arrays whose split failed to prove in an earlier attempt */
    const char *split_failed; /* set when an access of this array leaves its shape: the
                                 model is built again with the array unsplit */
} builder;

static int refuse(builder *b, const ch_ir *n, const char *what)
{
    return ch_error_at(b->err, b->e->file, n->line, n->col, "cannot translate %s: %s", b->e->name,
                       what);
}

static const ch_param *param_of(const builder *b, const ch_ir *v)
{
    if (!v || v->kind != CH_IR_VAR || v->param_index < 0 ||
        (size_t)v->param_index >= b->e->n_params)
        return NULL;
    return &b->e->params[v->param_index];
}

static int is_int_param(const ch_param *p)
{
    return p && p->role == CH_ROLE_SCALAR && ch_scalar_is_integer(p->elem);
}

/* The open loop whose counter is name, or -1. */
static long open_counter(const builder *b, const char *name)
{
    for (size_t i = b->n_open; i-- > 0;)
        if (strcmp(b->m->loops[b->open[i]].counter, name) == 0)
            return (long)b->open[i];
    return -1;
}

/* Is name the counter of a loop seen so far that is no longer open? Loops write their counters
 * and the model does not record those writes, so such a name may be neither read nor written
 * as a variable. */
static int closed_counter(const builder *b, const char *name)
{
    for (size_t i = 0; i < b->m->n_loops; i++)
        if (strcmp(b->m->loops[i].counter, name) == 0)
            return open_counter(b, name) < 0;
    return 0;
}

/* 0: affine (l set); 1: not affine. */
static int lin_of(const builder *b, const ch_ir *n, lin *l)
{
    memset(l, 0, sizeof *l);
    if (!n)
        return 1;
    lin x, y;
    switch (n->kind) {
    case CH_IR_INT_LIT:
        l->c = n->ival;
        return 0;
    case CH_IR_VAR:
        if (param_of(b, n) ? is_int_param(param_of(b, n)) : open_counter(b, n->text) >= 0)
            return lin_add_term(l, n->text, 1) == 0 ? 0 : 1;
        return 1;
    case CH_IR_CAST:
        return n->nkids == 1 ? lin_of(b, n->kids[0], l) : 1;
    case CH_IR_UNARY:
        if (strcmp(n->text, "+") != 0 && strcmp(n->text, "-") != 0)
            return 1;
        if (lin_of(b, n->kids[0], &x) != 0)
            return 1;
        return lin_axpy(l, n->text[0] == '-' ? -1 : 1, &x) == 0 ? 0 : 1;
    case CH_IR_BINARY:
        if (lin_of(b, n->kids[0], &x) != 0 || lin_of(b, n->kids[1], &y) != 0)
            return 1;
        if (strcmp(n->text, "+") == 0 || strcmp(n->text, "-") == 0)
            return lin_axpy(l, 1, &x) == 0 && lin_axpy(l, n->text[0] == '-' ? -1 : 1, &y) == 0 ? 0
                                                                                               : 1;
        /* a product is affine only when one side is a constant: parameter * counter is not */
        if (strcmp(n->text, "*") == 0 && (lin_is_const(&x) || lin_is_const(&y)))
            return lin_is_const(&x) ? (lin_axpy(l, x.c, &y) == 0 ? 0 : 1)
                                    : (lin_axpy(l, y.c, &x) == 0 ? 0 : 1);
        return 1;
    default:
        return 1;
    }
}

/* An affine condition as isl text; 1 when it is not affine. */
static int cond_text(const builder *b, const ch_ir *c, ch_strbuf *out)
{
    if (!c || c->kind != CH_IR_BINARY || c->nkids != 2)
        return 1;
    if (strcmp(c->text, "&&") == 0) {
        ch_strbuf l, r;
        ch_strbuf_init(&l);
        ch_strbuf_init(&r);
        int rc = cond_text(b, c->kids[0], &l) || cond_text(b, c->kids[1], &r);
        if (!rc)
            ch_strbuf_addf(out, "(%s and %s)", l.data, r.data);
        ch_strbuf_free(&l);
        ch_strbuf_free(&r);
        return rc;
    }
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", NULL};
    for (size_t i = 0; ops[i]; i++) {
        lin x, y;
        if (strcmp(c->text, ops[i]) != 0)
            continue;
        if (lin_of(b, c->kids[0], &x) != 0 || lin_of(b, c->kids[1], &y) != 0)
            return 1;
        lin_print(out, &x);
        ch_strbuf_addf(out, " %s ", strcmp(ops[i], "==") == 0 ? "=" : ops[i]);
        lin_print(out, &y);
        return 0;
    }
    return 1;
}

static size_t find_array(builder *b, const char *name, size_t ndims, int is_scalar)
{
    ch_tr_model *m = b->m;
    for (size_t i = 0; i < m->n_arrays; i++)
        if (strcmp(m->arrays[i].name, name) == 0)
            return i;
    m->arrays = ch_xrealloc(m->arrays, (m->n_arrays + 1) * sizeof *m->arrays);
    ch_tr_array *a = &m->arrays[m->n_arrays];
    memset(a, 0, sizeof *a);
    a->name = ch_xstrdup(name);
    a->ndims = ndims;
    a->is_scalar = is_scalar;
    a->reads = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    a->must_writes = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    a->may_writes = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    return m->n_arrays++;
}

/* "S1[i, j]" */
static void add_tuple(ch_strbuf *sb, const builder *b, const ch_tr_stmt *s)
{
    ch_strbuf_addf(sb, "%s[", s->name);
    for (size_t i = 0; i < s->n_loops; i++) {
        if (i)
            ch_strbuf_adds(sb, ", ");
        ch_tr_isl_name(sb, b->m->loops[s->loops[i]].counter);
    }
    ch_strbuf_addc(sb, ']');
}

/* Records an access of statement si to array ai; subs is the isl text of the subscripts
 * ("i, k + 1"; free names for non-affine dimensions). */
static int add_access(builder *b, size_t si, size_t ai, const char *subs, int write, int must)
{
    ch_tr_stmt *s = &b->m->stmts[si];
    ch_tr_array *a = &b->m->arrays[ai];
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "%s -> { ", b->params);
    add_tuple(&sb, b, s);
    ch_strbuf_adds(&sb, " -> ");
    ch_tr_isl_name(&sb, a->name);
    ch_strbuf_addf(&sb, "[%s] }", subs);
    isl_union_map *acc = isl_union_map_read_from_str(b->m->ctx, sb.data);
    ch_strbuf_free(&sb);
    if (!acc)
        return refuse(b, s->ir, "isl rejected an access relation");
    acc = isl_union_map_intersect_domain(acc, isl_union_set_from_set(isl_set_copy(s->domain)));
    isl_union_map **into = !write ? &a->reads : must ? &a->must_writes : &a->may_writes;
    *into = isl_union_map_union(*into, acc);
    return 0;
}

static int collect_reads(builder *b, size_t si, const ch_ir *n);

/* The model's array for a local array variable (declared in the body, see walk), or -1. */
static size_t local_array(const builder *b, const ch_ir *v)
{
    if (!v || v->kind != CH_IR_VAR || v->param_index >= 0 || !v->text)
        return (size_t)-1;
    for (size_t i = 0; i < b->m->n_arrays; i++)
        if (b->m->arrays[i].local_elems && strcmp(b->m->arrays[i].name, v->text) == 0)
            return i;
    return (size_t)-1;
}

/* A local scalar's array (found or added), or -1 after refusing a name that is not a local
 * scalar of the body (a file-scope variable, a local array used whole). */
static size_t local_scalar(builder *b, const ch_ir *v)
{
    const ch_ir *d = ch_ir_find(b->e->body, CH_IR_DECL, v->text);
    if (!d || local_array(b, v) != (size_t)-1) {
        refuse(b, v,
               d ? "a local array used other than by subscript"
                 : "a variable that is neither a parameter nor a local of the function");
        return (size_t)-1;
    }
    size_t a = find_array(b, v->text, 0, 1);
    b->m->arrays[a].decl = d;
    return a;
}

/* --- flattened arrays (delin.h) --- */

/* Before the walk, any variable that is not a parameter is taken for a counter: the walk
 * checks each split subscript again with the counters actually open. */
static ch_tr_delin_var any_counter(const char *name, const void *ctx)
{
    const ch_param *p = ch_entry_param(((const builder *)ctx)->e, name);
    return !p ? CH_TR_DV_COUNTER : is_int_param(p) ? CH_TR_DV_PARAM : CH_TR_DV_OTHER;
}

static ch_tr_delin_var open_counter_or_param(const char *name, const void *ctx)
{
    const builder *b = ctx;
    const ch_param *p = ch_entry_param(b->e, name);
    if (p)
        return is_int_param(p) ? CH_TR_DV_PARAM : CH_TR_DV_OTHER;
    return open_counter(b, name) >= 0 ? CH_TR_DV_COUNTER : CH_TR_DV_OTHER;
}

/* The parameter of an element access with one subscript into a one-dimensional pointer or
 * array parameter, or NULL. */
static const ch_param *flat_param(const builder *b, const ch_ir *n)
{
    if (n->kind != CH_IR_INDEX || n->nkids != 2 || !n->kids[0] || n->kids[0]->kind != CH_IR_VAR)
        return NULL;
    const ch_param *p = param_of(b, n->kids[0]);
    if (!p || p->role == CH_ROLE_SCALAR || (p->role == CH_ROLE_ARRAY && p->ndims != 1))
        return NULL;
    return p;
}

static shape *shape_of(const builder *b, const char *array)
{
    for (size_t i = 0; i < b->n_shapes; i++)
        if (strcmp(b->shapes[i].array, array) == 0)
            return &b->shapes[i];
    return NULL;
}

static int same_sizes(const shape *s, const ch_tr_delin *d)
{
    if (s->ndims != d->ndims)
        return 0;
    for (size_t i = 1; i < d->ndims; i++)
        if (strcmp(s->size[i], d->size[i]) != 0)
            return 0;
    return 1;
}

static int kept_unsplit(const builder *b, const char *array)
{
    for (size_t i = 0; b->unsplit && i < b->unsplit->len; i++)
        if (strcmp(b->unsplit->items[i], array) == 0)
            return 1;
    return 0;
}

/* The shape of every flattened array whose split subscripts in n all agree on one. */
static void find_shapes(builder *b, const ch_ir *n)
{
    if (!n)
        return;
    const ch_param *p = flat_param(b, n);
    ch_tr_delin d;
    if (p && !kept_unsplit(b, p->name) && ch_tr_delinearize(n->kids[1], any_counter, b, &d) == 0) {
        shape *s = shape_of(b, p->name);
        if (!s) {
            b->shapes = ch_xrealloc(b->shapes, (b->n_shapes + 1) * sizeof *b->shapes);
            s = &b->shapes[b->n_shapes++];
            memset(s, 0, sizeof *s);
            s->array = p->name;
            s->ndims = d.ndims;
            memcpy(s->size, d.size, sizeof s->size);
        } else if (s->ndims && !same_sizes(s, &d)) {
            s->ndims = 0;
        }
        ch_tr_delin_free(&d);
    }
    for (size_t i = 0; i < n->nkids; i++)
        find_shapes(b, n->kids[i]);
}

/* Does every instance of statement si keep the split subscripts within their sizes? Only
 * then are distinct split elements distinct memory. */
static int within_shape(const builder *b, size_t si, const ch_tr_delin *d)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "%s -> { ", b->params);
    add_tuple(&sb, b, &b->m->stmts[si]);
    for (size_t i = 1; i < d->ndims; i++) {
        ch_strbuf_addf(&sb, "%s0 <= %s <= ", i > 1 ? " and " : " : ", d->dim[i].data);
        ch_tr_isl_name(&sb, d->size[i]);
        ch_strbuf_adds(&sb, " - 1");
    }
    ch_strbuf_adds(&sb, " }");
    isl_set *bounds = isl_set_read_from_str(b->m->ctx, sb.data);
    ch_strbuf_free(&sb);
    isl_bool sub = bounds ? isl_set_is_subset(b->m->stmts[si].domain, bounds) : isl_bool_error;
    isl_set_free(bounds);
    return sub == isl_bool_true;
}

/* An element of a flattened array with a shape: its split subscripts, or every dimension
 * free (an over-approximation) for a subscript of another form. A split that leaves the
 * shape's bounds ends this attempt (b->split_failed). */
static int split_element(builder *b, size_t si, const ch_ir *n, const shape *sh, size_t *ai,
                         ch_strbuf *subs, int *affine)
{
    *ai = find_array(b, sh->array, sh->ndims, 0);
    ch_tr_array *a = &b->m->arrays[*ai];
    if (!a->shape) {
        ch_strbuf t;
        ch_strbuf_init(&t);
        ch_strbuf_adds(&t, "[*]");
        for (size_t i = 1; i < sh->ndims; i++)
            ch_strbuf_addf(&t, "[%s]", sh->size[i]);
        a->shape = ch_strbuf_detach(&t);
    }
    ch_tr_delin d;
    *affine =
        ch_tr_delinearize(n->kids[1], open_counter_or_param, b, &d) == 0 && same_sizes(sh, &d);
    if (*affine && !within_shape(b, si, &d)) {
        ch_tr_delin_free(&d);
        b->split_failed = sh->array;
        return -1;
    }
    for (size_t i = 0; i < sh->ndims; i++) {
        if (i)
            ch_strbuf_adds(subs, ", ");
        if (*affine)
            ch_strbuf_adds(subs, d.dim[i].data);
        else
            ch_strbuf_addf(subs, "__o%zu", i);
    }
    ch_tr_delin_free(&d);
    return collect_reads(b, si, n->kids[1]);
}

/* An element access a[..] / A[..][..] of a parameter: its array and subscripts as isl text;
 * *affine cleared when some subscript is not affine. The reads inside subscripts are
 * collected for statement si. */
static int element(builder *b, size_t si, const ch_ir *n, size_t *ai, ch_strbuf *subs, int *affine)
{
    const ch_ir *idx[8];
    size_t k = 0;
    const ch_ir *base = n;
    while (base->kind == CH_IR_INDEX && base->nkids == 2) {
        if (k == 8)
            return refuse(b, n, "more than 8 subscripts");
        idx[k++] = base->kids[1];
        base = base->kids[0];
    }
    const ch_param *p = param_of(b, base);
    size_t local = local_array(b, base);
    const shape *sh = k == 1 && flat_param(b, n) ? shape_of(b, p->name) : NULL;
    if (sh && sh->ndims)
        return split_element(b, si, n, sh, ai, subs, affine);
    if (local != (size_t)-1) {
        if (k != 1)
            return refuse(b, n, "a local array accessed with fewer or more subscripts than it has");
        *ai = local;
    } else {
        if (!p || p->role == CH_ROLE_SCALAR)
            return refuse(b, n,
                          "a subscript of something that is not an array or pointer parameter");
        size_t ndims = p->role == CH_ROLE_ARRAY ? p->ndims : 1;
        if (k != ndims)
            return refuse(b, n, "an array accessed with fewer or more subscripts than it has");
        *ai = find_array(b, p->name, ndims, 0);
    }
    *affine = 1;
    for (size_t d = 0; d < k; d++) {
        const ch_ir *x = idx[k - 1 - d];
        lin l;
        if (d)
            ch_strbuf_adds(subs, ", ");
        if (lin_of(b, x, &l) == 0) {
            lin_print(subs, &l);
        } else {
            ch_strbuf_addf(subs, "__o%zu", d);
            *affine = 0;
        }
        if (collect_reads(b, si, x) != 0)
            return -1;
    }
    return 0;
}

/* `*p` is p[0]: fills idx (with zero and kids, all on the caller's stack) as that element
 * access and returns 1 when n is a dereference of a variable, else 0. */
static int deref_as_element(const ch_ir *n, ch_ir *idx, ch_ir *zero, ch_ir *kids[2])
{
    if (n->kind != CH_IR_UNARY || strcmp(n->text, "*") != 0 || n->nkids != 1 ||
        n->kids[0]->kind != CH_IR_VAR)
        return 0;
    *zero = (ch_ir){.kind = CH_IR_INT_LIT, .line = n->line, .col = n->col, .param_index = -1};
    kids[0] = n->kids[0];
    kids[1] = zero;
    *idx = (ch_ir){.kind = CH_IR_INDEX,
                   .line = n->line,
                   .col = n->col,
                   .type = n->type,
                   .param_index = -1,
                   .kids = kids,
                   .nkids = 2};
    return 1;
}

/* Calls the translator knows to be free of side effects: C math functions and the body's
 * helpers that the scanner found fit to run as device functions (scalars only, no globals). */
static int pure_call(const builder *b, const char *name)
{
    return ch_cx_callable(b->e, name);
}

/* Every read in expression n, as accesses of statement si. */
static int collect_reads(builder *b, size_t si, const ch_ir *n)
{
    if (!n)
        return 0;
    const ch_param *p;
    ch_ir idx, zero, *kids[2];
    switch (n->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
        return 0;
    case CH_IR_VAR:
        p = param_of(b, n);
        if (p && p->role != CH_ROLE_SCALAR)
            return refuse(b, n, "a pointer or array parameter used other than by subscript");
        if (p || open_counter(b, n->text) >= 0)
            return 0; /* values, not memory */
        if (closed_counter(b, n->text))
            return refuse(b, n,
                          "a loop counter used after its loop (its last value is not modelled)");
        size_t a = local_scalar(b, n);
        return a == (size_t)-1 ? -1 : add_access(b, si, a, "", 0, 1);
    case CH_IR_UNARY:
        if (deref_as_element(n, &idx, &zero, kids))
            return collect_reads(b, si, &idx);
        if (strcmp(n->text, "++") == 0 || strcmp(n->text, "--") == 0)
            return refuse(b, n, "an increment inside an expression");
        if (strcmp(n->text, "*") == 0 || strcmp(n->text, "&") == 0)
            return refuse(b, n, "pointer dereference or address-of");
        break;
    case CH_IR_INDEX: {
        ch_strbuf subs;
        ch_strbuf_init(&subs);
        size_t ai = 0;
        int affine;
        int rc = element(b, si, n, &ai, &subs, &affine);
        if (rc == 0)
            rc = add_access(b, si, ai, subs.data, 0, 1);
        ch_strbuf_free(&subs);
        return rc;
    }
    case CH_IR_ASSIGN:
        return refuse(b, n, "an assignment inside an expression");
    case CH_IR_CALL:
        if (!n->text || !pure_call(b, n->text))
            return refuse(b, n, "a call that may have side effects");
        break;
    case CH_IR_BINARY:
    case CH_IR_CAST:
    case CH_IR_COND:
        break;
    default:
        return refuse(b, n, "an expression the translator does not model");
    }
    for (size_t i = 0; i < n->nkids; i++)
        if (collect_reads(b, si, n->kids[i]) != 0)
            return -1;
    return 0;
}

/* The reduction operator of `X op= e` or `X = X op e` / `X = op(X, e)` where e does not
 * mention X's array, or NULL. `X -= e` is a sum of negated terms, so it counts as "+". */
static const char *reduction_op(const ch_ir *assign, const char *array)
{
    const ch_ir *lhs = assign->kids[0], *rhs = assign->kids[1];
    static const char *const ops[] = {"+", "-", "*", "&", "|", "^", NULL};
    static const char *const names[] = {"+", "+", "*", "&", "|", "^", NULL};
    if (strcmp(assign->text, "=") != 0) {
        for (size_t i = 0; ops[i]; i++)
            if (assign->text[0] == ops[i][0] && strcmp(assign->text + 1, "=") == 0)
                return ch_ir_find(rhs, CH_IR_VAR, array) ? NULL : names[i];
        return NULL;
    }
    if (rhs->kind == CH_IR_BINARY && rhs->nkids == 2) {
        for (size_t i = 0; ops[i]; i++) {
            if (strcmp(rhs->text, ops[i]) != 0)
                continue;
            /* X = X - e, or X = e op X for the commutative ones */
            for (int side = 0; side < (i == 1 ? 1 : 2); side++)
                if (ch_ir_same(rhs->kids[side], lhs) &&
                    !ch_ir_find(rhs->kids[1 - side], CH_IR_VAR, array))
                    return names[i];
        }
        return NULL;
    }
    if (rhs->kind == CH_IR_CALL && rhs->nkids == 2 && rhs->text) {
        const char *op = NULL;
        if (strncmp(rhs->text, "fmin", 4) == 0 || strcmp(rhs->text, "min") == 0)
            op = "min";
        else if (strncmp(rhs->text, "fmax", 4) == 0 || strcmp(rhs->text, "max") == 0)
            op = "max";
        for (int side = 0; op && side < 2; side++)
            if (ch_ir_same(rhs->kids[side], lhs) &&
                !ch_ir_find(rhs->kids[1 - side], CH_IR_VAR, array))
                return op;
    }
    return NULL;
}

static void grow_pos(builder *b, size_t depth)
{
    if (depth < b->pos_cap)
        return;
    size_t cap = depth + 8;
    b->pos = ch_xrealloc(b->pos, cap * sizeof *b->pos);
    b->cur = ch_xrealloc(b->cur, cap * sizeof *b->cur);
    for (size_t i = b->pos_cap; i < cap; i++)
        b->pos[i] = b->cur[i] = 0;
    b->pos_cap = cap;
}

/* A new statement at the current place: its domain from the open constraints, its schedule
 * positions, and the reads of the conditions and bounds above it. */
static int new_stmt(builder *b, const ch_ir *s, size_t *out)
{
    ch_tr_model *m = b->m;
    size_t d = b->n_open;
    grow_pos(b, d);
    b->cur[d] = b->pos[d]++;
    m->stmts = ch_xrealloc(m->stmts, (m->n_stmts + 1) * sizeof *m->stmts);
    b->spos = ch_xrealloc(b->spos, (m->n_stmts + 1) * sizeof *b->spos);
    ch_tr_stmt *st = &m->stmts[m->n_stmts];
    memset(st, 0, sizeof *st);
    st->name = ch_xasprintf("S%zu", m->n_stmts + 1);
    st->line = s->line;
    st->col = s->col;
    st->ir = s;
    ch_strbuf t;
    ch_strbuf_init(&t);
    ch_ir_print(&t, s, 0, NULL, NULL);
    while (t.len && (t.data[t.len - 1] == '\n' || t.data[t.len - 1] == ' '))
        t.data[--t.len] = '\0';
    st->text = ch_strbuf_detach(&t);
    st->n_loops = d;
    st->loops = ch_xcalloc(d ? d : 1, sizeof *st->loops);
    if (d)
        memcpy(st->loops, b->open, d * sizeof *st->loops);
    st->may = b->may_depth > 0;
    st->unbounded = b->unbounded_depth > 0;
    st->red_array = (size_t)-1;
    if (b->n_guards) {
        st->guards = ch_xcalloc(b->n_guards, sizeof *st->guards);
        st->guard_neg = ch_xcalloc(b->n_guards, 1);
        memcpy(st->guards, b->guards, b->n_guards * sizeof *st->guards);
        memcpy(st->guard_neg, b->guard_neg, b->n_guards);
        st->n_guards = b->n_guards;
    }
    long *pos = ch_xcalloc(2 * d + 1, sizeof *pos);
    for (size_t i = 0; i <= d; i++)
        pos[2 * i] = b->cur[i];
    b->spos[m->n_stmts] = pos;
    size_t si = m->n_stmts++;
    if (d > b->max_depth)
        b->max_depth = d;

    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "%s -> { ", b->params);
    add_tuple(&sb, b, st);
    for (size_t i = 0; i < b->cons.len; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? " and " : " : ", b->cons.items[i]);
    ch_strbuf_adds(&sb, " }");
    st->domain = isl_set_read_from_str(m->ctx, sb.data);
    ch_strbuf_free(&sb);
    if (!st->domain)
        return refuse(b, s, "isl rejected an iteration domain");
    for (size_t i = 0; i < b->n_extra; i++)
        if (collect_reads(b, si, b->extra[i]) != 0)
            return -1;
    *out = si;
    return 0;
}

/* The writes of statement si to target lhs (and its read, for a read-modify-write); *ai is
 * the array written. */
static int write_target(builder *b, size_t si, const ch_ir *lhs, int rmw, const ch_ir *rhs,
                        size_t *ai)
{
    ch_strbuf subs;
    ch_strbuf_init(&subs);
    int affine = 1, rc = 0;
    ch_ir idx, zero, *kids[2];
    if (lhs->kind == CH_IR_VAR) {
        const ch_param *p = param_of(b, lhs);
        if (p)
            rc = refuse(b, lhs, "an assignment to a parameter");
        else if (open_counter(b, lhs->text) >= 0)
            rc = refuse(b, lhs, "an assignment to a loop counter inside its loop");
        else if (closed_counter(b, lhs->text))
            rc = refuse(b, lhs, "an assignment to the counter of an earlier loop");
        else if ((*ai = local_scalar(b, lhs)) == (size_t)-1)
            rc = -1;
    } else if (lhs->kind == CH_IR_INDEX) {
        rc = element(b, si, lhs, ai, &subs, &affine);
    } else if (deref_as_element(lhs, &idx, &zero, kids)) {
        rc = element(b, si, &idx, ai, &subs, &affine);
    } else {
        rc = refuse(b, lhs, "an assignment to something other than a variable or an element");
    }
    if (rc == 0 && rmw)
        rc = add_access(b, si, *ai, subs.data, 0, 1);
    if (rc == 0 && rhs)
        rc = collect_reads(b, si, rhs);
    if (rc == 0)
        rc = add_access(b, si, *ai, subs.data, 1, affine && !b->m->stmts[si].may);
    ch_strbuf_free(&subs);
    return rc;
}

/* The statement `lhs op= rhs` (op "=" for plain assignment, "++"/"--" with rhs NULL). A chain
 * `a = b = e` is one statement that writes every target. */
static int assignment(builder *b, const ch_ir *s, const ch_ir *lhs, const ch_ir *rhs,
                      const char *op, const ch_ir *assign)
{
    size_t si = 0;
    if (new_stmt(b, s, &si) != 0)
        return -1;
    int rmw = strcmp(op, "=") != 0;
    size_t ai = 0;
    const ch_ir *value = rhs;
    while (!rmw && value && value->kind == CH_IR_ASSIGN && strcmp(value->text, "=") == 0)
        value = value->kids[1];
    int chained = value != rhs;
    int rc = write_target(b, si, lhs, rmw, value, &ai);
    for (const ch_ir *t = rhs; rc == 0 && t != value; t = t->kids[1]) {
        size_t inner = 0;
        rc = write_target(b, si, t->kids[0], 0, NULL, &inner);
    }
    if (rc == 0 && !chained) {
        /* x++ and x-- are sums too */
        const char *red = assign ? reduction_op(assign, b->m->arrays[ai].name) : "+";
        if (red) {
            b->m->stmts[si].red_array = ai;
            b->m->stmts[si].red_op = red;
        }
    }
    return rc;
}

static int walk(builder *b, const ch_ir *s);

static void push_extra(builder *b, const ch_ir *x)
{
    if (!x)
        return;
    b->extra = ch_xrealloc(b->extra, (b->n_extra + 1) * sizeof *b->extra);
    b->extra[b->n_extra++] = x;
}

static void push_guard(builder *b, const ch_ir *cond, int neg)
{
    b->guards = ch_xrealloc(b->guards, (b->n_guards + 1) * sizeof *b->guards);
    b->guard_neg = ch_xrealloc(b->guard_neg, b->n_guards + 1);
    b->guards[b->n_guards] = cond;
    b->guard_neg[b->n_guards++] = (unsigned char)neg;
}

static void pop_cons(builder *b, size_t mark)
{
    while (b->cons.len > mark) {
        free(b->cons.items[--b->cons.len]);
        b->cons.items[b->cons.len] = NULL;
    }
}

static const char *var_name(const ch_ir *n)
{
    return n && n->kind == CH_IR_VAR ? n->text : NULL;
}

/* A canonical for loop: `c = start; c op bound; c += step` with a constant step whose sign
 * agrees with op. Its domain constraints are exact when start and bound are affine. */
static int for_loop(builder *b, const ch_ir *f)
{
    const ch_ir *cond = f->kids[1], *inc = f->kids[2];
    const char *name;
    const ch_ir *start;
    if (ch_ir_for_init(f, &name, &start) != 0)
        return refuse(b, f, "a for loop that does not start by setting one counter");
    if (open_counter(b, name) >= 0 || ch_entry_param(b->e, name))
        return refuse(b, f, "a loop counter that shadows an enclosing counter or a parameter");
    long long step = 0;
    if (inc && inc->kind == CH_IR_UNARY &&
        strcmp(var_name(inc->kids[0]) ? var_name(inc->kids[0]) : "", name) == 0)
        step = strcmp(inc->text, "++") == 0 ? 1 : strcmp(inc->text, "--") == 0 ? -1 : 0;
    else if (inc && inc->kind == CH_IR_ASSIGN && var_name(inc->kids[0]) &&
             strcmp(var_name(inc->kids[0]), name) == 0 && inc->kids[1]->kind == CH_IR_INT_LIT) {
        if (strcmp(inc->text, "+=") == 0)
            step = inc->kids[1]->ival;
        else if (strcmp(inc->text, "-=") == 0)
            step = -inc->kids[1]->ival;
    } else if (inc && inc->kind == CH_IR_ASSIGN && strcmp(inc->text, "=") == 0 &&
               var_name(inc->kids[0]) && strcmp(var_name(inc->kids[0]), name) == 0 &&
               inc->kids[1]->kind == CH_IR_BINARY && inc->kids[1]->nkids == 2 &&
               strcmp(var_name(inc->kids[1]->kids[0]) ? var_name(inc->kids[1]->kids[0]) : "",
                      name) == 0 &&
               inc->kids[1]->kids[1]->kind == CH_IR_INT_LIT) {
        long long c = inc->kids[1]->kids[1]->ival;
        step = strcmp(inc->kids[1]->text, "+") == 0   ? c
               : strcmp(inc->kids[1]->text, "-") == 0 ? -c
                                                      : 0;
    }
    if (step == 0 || step == LLONG_MIN)
        return refuse(b, f, "a for loop whose step is not a nonzero constant");
    const ch_ir *bound = NULL;
    char op[3] = "";
    if (cond && cond->kind == CH_IR_BINARY && cond->nkids == 2 && strchr("<>", cond->text[0]) &&
        (cond->text[1] == '\0' || strcmp(cond->text + 1, "=") == 0)) {
        int flip = 0;
        if (strcmp(var_name(cond->kids[0]) ? var_name(cond->kids[0]) : "", name) == 0)
            bound = cond->kids[1];
        else if (strcmp(var_name(cond->kids[1]) ? var_name(cond->kids[1]) : "", name) == 0)
            bound = cond->kids[0], flip = 1;
        strcpy(op, cond->text);
        if (flip)
            op[0] = op[0] == '<' ? '>' : '<';
    }
    if (!bound || (op[0] == '<') != (step > 0))
        return refuse(b, f,
                      "a for loop whose condition does not compare its counter with a bound in "
                      "the direction it steps");

    ch_tr_model *m = b->m;
    m->loops = ch_xrealloc(m->loops, (m->n_loops + 1) * sizeof *m->loops);
    ch_tr_loop *L = &m->loops[m->n_loops];
    L->counter = ch_xstrdup(name);
    L->line = f->line;
    L->col = f->col;
    L->depth = b->n_open + 1;
    L->down = step < 0;
    L->parent = b->n_open ? b->open[b->n_open - 1] : (size_t)-1;
    L->ir = f;
    size_t li = m->n_loops++;

    /* the loop's own textual position at its depth; its body starts afresh one deeper */
    grow_pos(b, b->n_open + 1);
    b->cur[b->n_open] = b->pos[b->n_open]++;
    b->pos[b->n_open + 1] = 0;

    size_t mark = b->cons.len, extra_mark = b->n_extra;
    int may = 0;
    lin ls, lb;
    ch_strbuf c;
    ch_strbuf_init(&c);
    /* start and bound are expressions of the enclosing counters only: read them before the
     * loop is open */
    int start_affine = lin_of(b, start, &ls) == 0;
    int bound_affine = lin_of(b, bound, &lb) == 0;
    b->open = ch_xrealloc(b->open, (b->n_open + 1) * sizeof *b->open);
    b->open[b->n_open++] = li;
    if (start_affine) {
        ch_tr_isl_name(&c, name);
        ch_strbuf_adds(&c, step > 0 ? " >= " : " <= ");
        lin_print(&c, &ls);
        ch_strvec_push(&b->cons, c.data);
        ch_strbuf_reset(&c);
        if (llabs(step) != 1) {
            /* the counter takes the values start + step*e, e >= 0 (e >= 0 follows from the
             * bound just added) */
            unsigned e = b->n_exists++;
            ch_strbuf_addf(&c, "(exists (__e%u : ", e);
            ch_tr_isl_name(&c, name);
            ch_strbuf_adds(&c, " = ");
            lin_print(&c, &ls);
            ch_strbuf_addf(&c, " %c %lld*__e%u))", step > 0 ? '+' : '-', llabs(step), e);
            ch_strvec_push(&b->cons, c.data);
            ch_strbuf_reset(&c);
        }
    } else {
        may = 1;
    }
    if (bound_affine) {
        ch_tr_isl_name(&c, name);
        ch_strbuf_addf(&c, " %s ", op);
        lin_print(&c, &lb);
        ch_strvec_push(&b->cons, c.data);
    } else {
        may = 1;
    }
    ch_strbuf_free(&c);
    push_extra(b, start);
    push_extra(b, bound);
    b->may_depth += may;
    b->unbounded_depth += may;
    int rc = walk(b, f->kids[3]);
    b->may_depth -= may;
    b->unbounded_depth -= may;
    b->n_extra = extra_mark;
    pop_cons(b, mark);
    b->n_open--;
    return rc;
}

/* `T a[N];` with N a constant: a scratch array the translation keeps in device memory. */
static int local_array_decl(builder *b, const ch_ir *s)
{
    const char *br = strchr(s->ctype, '[');
    char *end = NULL;
    long long n = strtoll(br + 1, &end, 10);
    if (n <= 0 || !end || strcmp(end, "]") != 0 || s->nkids)
        return refuse(b, s,
                      "a local array other than one dimension of constant size without an "
                      "initialiser");
    if (open_counter(b, s->text) >= 0 || ch_entry_param(b->e, s->text) || b->n_open)
        return refuse(b, s, "a local array declared inside a loop or shadowing a name");
    size_t a = find_array(b, s->text, 1, 0);
    b->m->arrays[a].decl = s;
    b->m->arrays[a].local_elems = n;
    return 0;
}

static int walk(builder *b, const ch_ir *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            if (walk(b, s->kids[i]) != 0)
                return -1;
        return 0;
    case CH_IR_NULL_STMT:
        return 0;
    case CH_IR_DECL:
        if (s->ctype && strchr(s->ctype, '[') && !strchr(s->ctype, '*'))
            return local_array_decl(b, s);
        if (!s->ctype || strchr(s->ctype, '[') || strchr(s->ctype, '*'))
            return refuse(b, s, "a local pointer");
        if (open_counter(b, s->text) >= 0 || ch_entry_param(b->e, s->text))
            return refuse(b, s, "a local that shadows a loop counter or a parameter");
        if (s->nkids == 1 && s->kids[0]) {
            ch_ir lhs = {.kind = CH_IR_VAR,
                         .line = s->line,
                         .col = s->col,
                         .text = s->text,
                         .param_index = -1};
            return assignment(b, s, &lhs, s->kids[0], "=", NULL);
        }
        return 0;
    case CH_IR_EXPR_STMT: {
        const ch_ir *x = s->kids[0];
        if (x->kind == CH_IR_ASSIGN)
            return assignment(b, s, x->kids[0], x->kids[1], x->text, x);
        if (x->kind == CH_IR_UNARY && (strcmp(x->text, "++") == 0 || strcmp(x->text, "--") == 0))
            return assignment(b, s, x->kids[0], NULL, x->text, NULL);
        return refuse(b, s, "an expression statement that is not an assignment");
    }
    case CH_IR_FOR:
        return for_loop(b, s);
    case CH_IR_IF: {
        size_t mark = b->cons.len, extra_mark = b->n_extra;
        ch_strbuf c;
        ch_strbuf_init(&c);
        int affine = cond_text(b, s->kids[0], &c) == 0;
        push_extra(b, s->kids[0]);
        /* an affine condition restricts the then-branch exactly; anything else (and every
         * else-branch) keeps the whole domain, makes the writes may-writes and guards the
         * statements with the condition */
        if (affine)
            ch_strvec_push(&b->cons, c.data);
        else
            push_guard(b, s->kids[0], 0);
        ch_strbuf_free(&c);
        b->may_depth += !affine;
        int rc = walk(b, s->kids[1]);
        b->may_depth -= !affine;
        if (!affine)
            b->n_guards--;
        pop_cons(b, mark);
        if (rc == 0 && s->nkids > 2 && s->kids[2]) {
            push_guard(b, s->kids[0], 1);
            b->may_depth++;
            rc = walk(b, s->kids[2]);
            b->may_depth--;
            b->n_guards--;
        }
        b->n_extra = extra_mark;
        return rc;
    }
    case CH_IR_WHILE:
    case CH_IR_DO:
        return refuse(b, s, "a while or do loop (only canonical for loops are modelled)");
    case CH_IR_BREAK:
    case CH_IR_CONTINUE:
    case CH_IR_RETURN:
        return refuse(b, s,
                      "break, continue or return (the iteration domain would depend on data)");
    default:
        return refuse(b, s, "a statement the translator does not model");
    }
}

/* The 2d+1 schedule of every statement, padded with zeros to the deepest nest so that all
 * statements share one schedule space: S[i, j] -> [p0, i, p1, j, p2, 0, 0]. */
static int build_schedule(builder *b)
{
    ch_tr_model *m = b->m;
    m->sched_dims = 2 * b->max_depth + 1;
    m->domain = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
    m->schedule = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (size_t i = 0; i < m->n_stmts; i++) {
        ch_tr_stmt *s = &m->stmts[i];
        ch_strbuf sb;
        ch_strbuf_init(&sb);
        ch_strbuf_addf(&sb, "%s -> { ", b->params);
        add_tuple(&sb, b, s);
        ch_strbuf_adds(&sb, " -> [");
        for (size_t d = 0; d < m->sched_dims; d++) {
            if (d)
                ch_strbuf_adds(&sb, ", ");
            if (d % 2 == 1 && d / 2 < s->n_loops) {
                /* a loop counting down runs its counter's values in decreasing order */
                if (m->loops[s->loops[d / 2]].down)
                    ch_strbuf_addc(&sb, '-');
                ch_tr_isl_name(&sb, m->loops[s->loops[d / 2]].counter);
            } else
                ch_strbuf_addf(&sb, "%ld", d <= 2 * s->n_loops ? b->spos[i][d] : 0L);
        }
        ch_strbuf_adds(&sb, "] }");
        s->schedule = isl_map_read_from_str(m->ctx, sb.data);
        ch_strbuf_free(&sb);
        if (!s->schedule)
            return refuse(b, s->ir, "isl rejected a schedule");
        s->schedule = isl_map_intersect_domain(s->schedule, isl_set_copy(s->domain));
        m->domain = isl_union_set_union(m->domain, isl_union_set_from_set(isl_set_copy(s->domain)));
        m->schedule =
            isl_union_map_union(m->schedule, isl_union_map_from_map(isl_map_copy(s->schedule)));
    }
    return 0;
}

/* One attempt at the model, with the arrays in unsplit kept one-dimensional. When a split
 * subscript leaves its shape, *split_failed names the array (borrowed from e). */
static int build_once(const ch_entry *e, const ch_strvec *unsplit, ch_tr_model **out, ch_error *err,
                      const char **split_failed)
{
    ch_tr_model *m = ch_xcalloc(1, sizeof *m);
    m->ctx = isl_ctx_alloc();
    /* isl's failures (the scheduler's operation bound) come back as values the translator
     * handles; they are not for the user's build output */
    isl_options_set_on_error(m->ctx, ISL_ON_ERROR_CONTINUE);
    m->entry = e;
    builder b = {.m = m, .e = e, .err = err, .unsplit = unsplit};
    ch_strvec_init(&b.cons);
    ch_strbuf p;
    ch_strbuf_init(&p);
    ch_strbuf_addc(&p, '[');
    for (size_t i = 0; i < e->n_params; i++)
        if (is_int_param(&e->params[i])) {
            if (p.len > 1)
                ch_strbuf_adds(&p, ", ");
            ch_tr_isl_name(&p, e->params[i].name);
        }
    ch_strbuf_addc(&p, ']');
    b.params = ch_strbuf_detach(&p);
    find_shapes(&b, e->body);
    int rc = walk(&b, e->body);
    if (rc == 0)
        rc = build_schedule(&b);
    for (size_t i = 0; i < m->n_stmts; i++)
        m->stmts[i].pos = b.spos[i];
    *split_failed = b.split_failed;
    free(b.spos);
    free(b.params);
    free(b.open);
    free(b.pos);
    free(b.cur);
    free(b.extra);
    free(b.guards);
    free(b.guard_neg);
    free(b.shapes);
    ch_strvec_free(&b.cons);
    if (rc != 0) {
        ch_tr_model_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

int ch_tr_model_build(const ch_entry *e, ch_tr_model **out, ch_error *err)
{
    *out = NULL;
    if (!e->body)
        return ch_error_at(err, e->file, e->line, e->col,
                           "cannot translate %s: it has no body to translate", e->name);
    /* the model reads the if-converted body; its statements point into it */
    ch_entry *converted = ch_tr_if_convert(e);
    /* each failed attempt keeps one more array unsplit, so this ends */
    ch_strvec unsplit;
    ch_strvec_init(&unsplit);
    int rc;
    const char *failed = NULL;
    while ((rc = build_once(converted ? converted : e, &unsplit, out, err, &failed)) != 0 && failed)
        ch_strvec_push(&unsplit, failed);
    ch_strvec_free(&unsplit);
    if (rc == 0)
        (*out)->converted = converted;
    else
        ch_tr_if_converted_free(converted);
    return rc;
}

void ch_tr_model_free(ch_tr_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_stmts; i++) {
        ch_tr_stmt *s = &m->stmts[i];
        free(s->name);
        free(s->text);
        free(s->loops);
        free(s->guards);
        free(s->guard_neg);
        free(s->pos);
        isl_set_free(s->domain);
        isl_map_free(s->schedule);
    }
    free(m->stmts);
    for (size_t i = 0; i < m->n_loops; i++)
        free(m->loops[i].counter);
    free(m->loops);
    for (size_t i = 0; i < m->n_arrays; i++) {
        ch_tr_array *a = &m->arrays[i];
        free(a->name);
        free(a->shape);
        isl_union_map_free(a->reads);
        isl_union_map_free(a->must_writes);
        isl_union_map_free(a->may_writes);
    }
    free(m->arrays);
    isl_union_set_free(m->domain);
    isl_union_map_free(m->schedule);
    isl_ctx_free(m->ctx);
    ch_tr_if_converted_free(m->converted);
    free(m);
}

ch_scalar ch_tr_array_elem(const ch_tr_model *m, size_t a)
{
    const ch_param *p = ch_entry_param(m->entry, m->arrays[a].name);
    return p ? p->elem : ch_cx_local_type(m->entry, m->arrays[a].name);
}
