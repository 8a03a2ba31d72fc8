/* Direction and extent inference over the body IR (ch_infer_entry).
 *
 * Extents: every subscript of a pointer or array parameter is turned into a polynomial of the
 * scalar parameters and the variables of the canonical `for` loops around it; its largest value
 * is found by substituting each loop variable, innermost first, by the bound that maximises it
 * (sizes are taken as positive), and the extent is the largest maximum + 1, simplified.
 * Directions: a sequential walk keeps, per loop iteration, the elements written so far; a read
 * of an element not yet written in the same iteration makes a written pointer inout. A written
 * buffer is `out` only when one unconditional write provably reaches every element (its
 * subscripts walk the whole extent densely, see dense_size); a buffer written on part of its
 * elements (an interior, a triangle, every other element) is inout, since the elements the
 * body leaves alone must come back unchanged. Valid input values: an integer array whose values
 * subscript another buffer (directly or through a local) is an index array into its extent; one
 * whose values start or bound a loop over another buffer is an offsets array ending at its
 * extent (test data must respect both, or the user's own C reads out of bounds); an index array
 * whose element is the whole subscript of a plain store, with as many elements as values, is a
 * permutation (a scatter through it: repeated values would make the writes race). Clauses
 * (extent, in/out/inout, range, offsets, perm) always win over inference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/scan.h"
#include "ch/strbuf.h"
#include "poly.h"

typedef struct loop_var {
    const char *name;
    ch_poly *lo, *hi; /* inclusive bounds; NULL when the loop is not canonical */
    int unit_step;    /* steps by one (++, --, += 1, -= 1): every value in [lo, hi] is visited */
} loop_var;

typedef struct local_def {
    const char *name;
    ch_poly *value; /* NULL: not a known polynomial */
} local_def;

/* A local variable that holds a value read from an integer buffer (`int c = col[k];`): used as
 * a subscript, it makes that buffer an index array as col[k] itself would. */
typedef struct index_local {
    const char *name;
    int param; /* the buffer its value comes from */
} index_local;

/* Per-parameter accumulators. */
typedef struct pinfo {
    ch_poly *max;   /* largest first subscript seen; NULL none yet */
    ch_poly **alts; /* further maxima incomparable with max (extent: their C max) */
    int n_alts;
    int unbounded; /* some subscript had no computable maximum, or the pointer itself moves */
    unsigned unbounded_line, unbounded_col; /* the first such place */
    int escapes;                            /* used other than as a[...] */
    int n_access;
    int written;
    int read_first;   /* an element read before it was written in the same iteration */
    int opaque_use;   /* accessed inside a construct the IR does not model */
    ch_poly **covers; /* element counts of writes that reach a dense range from element 0 */
    int n_covers;
    int index_of; /* is used inside a subscript of param index_of (-1: no) */
    int scatters; /* an element is the whole subscript of a plain store (`y[p[i]] = v`) */
} pinfo;

typedef struct infer {
    ch_entry *e;
    pinfo *pi;
    loop_var *loops;
    size_t n_loops;
    local_def *locals;
    size_t n_locals;
    ch_strvec assigned;        /* names of variables assigned anywhere (locals not substituted) */
    index_local *index_locals; /* locals that hold an integer buffer's value */
    size_t n_index_locals;
    ch_strvec written; /* keys "p#subscripts" written so far in the open scopes */
    size_t *scope_marks;
    size_t n_scopes;
    int cond_depth;   /* inside an if, while or do: a write there may not happen */
    int opaque_depth; /* inside a construct the IR does not model */
    int early_exit;   /* the body has break, continue or return: no write is unconditional */
} infer;

static int is_param_kind(const infer *x, const ch_ir *v, ch_role role)
{
    return v && v->kind == CH_IR_VAR && v->param_index >= 0 &&
           (size_t)v->param_index < x->e->n_params && x->e->params[v->param_index].role == role;
}

static int is_buffer(const infer *x, const ch_ir *v)
{
    return is_param_kind(x, v, CH_ROLE_POINTER) || is_param_kind(x, v, CH_ROLE_ARRAY);
}

static int strvec_has(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

/* --- polynomials of subscripts --- */

static const loop_var *find_loop(const infer *x, const char *name)
{
    for (size_t i = x->n_loops; i-- > 0;)
        if (strcmp(x->loops[i].name, name) == 0)
            return &x->loops[i];
    return NULL;
}

static const local_def *find_local(const infer *x, const char *name)
{
    for (size_t i = x->n_locals; i-- > 0;)
        if (strcmp(x->locals[i].name, name) == 0)
            return &x->locals[i];
    return NULL;
}

static ch_poly *to_poly(const infer *x, const ch_ir *n)
{
    if (!n)
        return NULL;
    ch_poly *a, *b, *r = NULL;
    long long c;
    switch (n->kind) {
    case CH_IR_INT_LIT:
        return poly_const(n->ival);
    case CH_IR_VAR:
        if (n->param_index >= 0)
            return is_param_kind(x, n, CH_ROLE_SCALAR) && ch_scalar_is_integer(n->type)
                       ? poly_var(n->text)
                       : NULL;
        if (find_loop(x, n->text))
            return poly_var(n->text);
        if (find_local(x, n->text) && find_local(x, n->text)->value)
            return poly_clone(find_local(x, n->text)->value);
        return NULL;
    case CH_IR_CAST:
        return n->nkids ? to_poly(x, n->kids[0]) : NULL;
    case CH_IR_UNARY:
        if (strcmp(n->text, "-") != 0 && strcmp(n->text, "+") != 0)
            return NULL;
        a = to_poly(x, n->kids[0]);
        if (!a || n->text[0] == '+')
            return a;
        b = poly_const(-1);
        r = poly_mul(a, b);
        break;
    case CH_IR_BINARY:
        a = to_poly(x, n->kids[0]);
        b = to_poly(x, n->kids[1]);
        if (a && b) {
            if (strcmp(n->text, "+") == 0)
                r = poly_add(a, b);
            else if (strcmp(n->text, "-") == 0)
                r = poly_sub(a, b);
            else if (strcmp(n->text, "*") == 0)
                r = poly_mul(a, b);
            else if (strcmp(n->text, "/") == 0 && poly_is_const(b, &c))
                r = poly_div_const(a, c);
        }
        break;
    default:
        return NULL;
    }
    poly_free(a);
    poly_free(b);
    return r;
}

/* The largest value of p over the open loops; NULL when it cannot be bounded. */
static ch_poly *maximise(const infer *x, const ch_poly *p)
{
    ch_poly *cur = poly_clone(p);
    for (size_t i = x->n_loops; i-- > 0 && cur;) {
        const loop_var *L = &x->loops[i];
        if (!poly_mentions(cur, L->name))
            continue;
        ch_poly *c = poly_coeff(cur, L->name);
        int sign = poly_sign(c);
        ch_poly *bound = sign > 0 ? L->hi : sign < 0 ? L->lo : NULL;
        ch_poly *next = NULL;
        if (bound && poly_degree_in(cur, L->name) == 1)
            next = poly_subst(cur, L->name, bound);
        poly_free(c);
        poly_free(cur);
        cur = next;
    }
    /* only scalar parameters may remain */
    for (int t = 0; cur && t < cur->n; t++) {
        char *names = ch_xstrdup(cur->t[t].mono);
        for (char *tok = strtok(names, "*"); tok && cur; tok = strtok(NULL, "*")) {
            const ch_param *par = ch_entry_param(x->e, tok);
            if (!par || par->role != CH_ROLE_SCALAR) {
                poly_free(cur);
                cur = NULL;
            }
        }
        free(names);
    }
    return cur;
}

/* Sign of d for every variable >= 1: when all non-constant coefficients have one sign, each
 * monomial is >= 1, so the sum of all coefficients bounds d from that side. */
static int nonneg_sign(const ch_poly *d)
{
    long long sum = 0;
    int pos = 1, neg = 1;
    for (int i = 0; i < d->n; i++) {
        sum += d->t[i].coef;
        if (d->t[i].degree > 0) {
            pos &= d->t[i].coef > 0;
            neg &= d->t[i].coef < 0;
        }
    }
    if (pos && sum >= 0)
        return 1;
    if (neg && sum <= 0)
        return -1;
    return 0;
}

/* <0: a <= b for all sizes >= 1, >0: a >= b, 0: incomparable. */
static int poly_order(const ch_poly *a, const ch_poly *b)
{
    ch_poly *d = poly_sub(a, b);
    int r = d->n == 0 ? -1 : nonneg_sign(d);
    poly_free(d);
    return r;
}

/* Adds cand (consumed) to the maxima of pi: drops what it dominates, or drops cand when an
 * existing maximum dominates it; incomparable maxima are all kept. */
static void keep_max(pinfo *pi, ch_poly *cand)
{
    if (!pi->max) {
        pi->max = cand;
        return;
    }
    ch_poly **all = ch_xmalloc(sizeof *all * (size_t)(pi->n_alts + 2));
    int n = 0;
    all[n++] = pi->max;
    for (int i = 0; i < pi->n_alts; i++)
        all[n++] = pi->alts[i];
    int keep_cand = 1;
    for (int i = 0; i < n && keep_cand; i++)
        if (all[i] && poly_order(cand, all[i]) < 0)
            keep_cand = 0;
    if (keep_cand) {
        for (int i = 0; i < n; i++)
            if (all[i] && poly_order(cand, all[i]) > 0) {
                poly_free(all[i]);
                all[i] = NULL;
            }
        all[n++] = cand;
    } else {
        poly_free(cand);
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (all[i])
            all[m++] = all[i];
    pi->max = all[0];
    free(pi->alts);
    pi->alts = ch_xmalloc(sizeof *pi->alts * (size_t)(m + 1));
    pi->n_alts = m - 1;
    for (int i = 1; i < m; i++)
        pi->alts[i - 1] = all[i];
    free(all);
}

/* --- the walk --- */

static void walk_expr(infer *x, const ch_ir *n);

/* The parameter at the bottom of an a[i][j] chain, or NULL. */
static const ch_ir *access_base(const ch_ir *n)
{
    while (n && n->kind == CH_IR_INDEX && n->nkids == 2)
        n = n->kids[0];
    return n;
}

static int index_local_of(const infer *x, const char *name)
{
    for (size_t i = 0; i < x->n_index_locals; i++)
        if (strcmp(x->index_locals[i].name, name) == 0)
            return x->index_locals[i].param;
    return -1;
}

/* Whether n reads an element of an integer buffer, directly or through an index local; *which
 * is that buffer. */
static int mentions_index_read(const infer *x, const ch_ir *n, int *which)
{
    if (!n)
        return 0;
    if (n->kind == CH_IR_VAR && n->param_index < 0 && index_local_of(x, n->text) >= 0) {
        *which = index_local_of(x, n->text);
        return 1;
    }
    if (n->kind == CH_IR_INDEX) {
        const ch_ir *b = access_base(n);
        if (is_buffer(x, b) && ch_scalar_is_integer(x->e->params[b->param_index].elem)) {
            *which = b->param_index;
            return 1;
        }
    }
    for (size_t i = 0; i < n->nkids; i++)
        if (mentions_index_read(x, n->kids[i], which))
            return 1;
    return 0;
}

static void mark_unbounded(pinfo *pi, const ch_ir *where)
{
    if (!pi->unbounded) {
        pi->unbounded_line = where->line;
        pi->unbounded_col = where->col;
    }
    pi->unbounded = 1;
}

/* Records one a[...] access for the extent: the outermost subscript's maximum. */
static void note_access(infer *x, const ch_ir *acc)
{
    const ch_ir *b = access_base(acc);
    int p = b->param_index;
    const ch_ir *first = acc;
    while (first->kids[0]->kind == CH_IR_INDEX)
        first = first->kids[0];
    const ch_ir *sub = first->kids[1];
    x->pi[p].n_access++;
    for (const ch_ir *s = acc; s->kind == CH_IR_INDEX; s = s->kids[0]) {
        int q;
        if (mentions_index_read(x, s->kids[1], &q) && q != p)
            x->pi[q].index_of = p;
    }
    int q;
    if (mentions_index_read(x, sub, &q))
        return; /* a gather/scatter: the index array's range follows this buffer's extent */
    ch_poly *poly = to_poly(x, sub);
    ch_poly *m = poly ? maximise(x, poly) : NULL;
    poly_free(poly);
    if (!m)
        mark_unbounded(&x->pi[p], sub);
    else
        keep_max(&x->pi[p], m);
}

static char *access_key(const ch_ir *acc)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_ir_dump(&sb, acc);
    return ch_strbuf_detach(&sb);
}

static void note_read(infer *x, const ch_ir *acc)
{
    int p = access_base(acc)->param_index;
    if (x->opaque_depth)
        x->pi[p].opaque_use = 1;
    char *key = access_key(acc);
    if (!strvec_has(&x->written, key))
        x->pi[p].read_first = 1;
    free(key);
}

/* One open loop's part in a subscript: coefficient c and trip count r (v = lo + u, u < r). */
typedef struct dense_term {
    const loop_var *loop;
    ch_poly *coef, *trips;
} dense_term;

static int mentions_open_loop(const infer *x, const ch_poly *p)
{
    for (size_t i = 0; i < x->n_loops; i++)
        if (x->loops[i].name[0] && poly_mentions(p, x->loops[i].name))
            return 1;
    return 0;
}

static int poly_equal(const ch_poly *a, const ch_poly *b)
{
    ch_poly *d = poly_sub(a, b);
    int eq = d->n == 0;
    poly_free(d);
    return eq;
}

/* How many elements the subscript sub reaches over the open loops when it reaches exactly
 * [0, count) with no element twice, else NULL. Sufficient test: sub = sum of c_v * v over
 * loops v with unit steps and rectangular bounds, each loop in it once and in no other
 * dimension (used), the value at the loops' lower bounds 0, and the coefficients a mixed-radix
 * chain: one is 1, each next is the previous times its loop's trip count (i*m + j with j < m). */
static ch_poly *dense_size(const infer *x, const ch_ir *sub, ch_strvec *used)
{
    ch_poly *s = to_poly(x, sub);
    dense_term t[16];
    int n = 0, ok = s != NULL;
    for (size_t i = x->n_loops; ok && i-- > 0;) {
        const loop_var *L = &x->loops[i];
        if (!L->name[0] || !poly_mentions(s, L->name))
            continue;
        ok = n < 16 && L->lo && L->hi && L->unit_step && poly_degree_in(s, L->name) == 1 &&
             !strvec_has(used, L->name);
        if (!ok)
            break;
        ch_poly *one = poly_const(1), *span = poly_sub(L->hi, L->lo);
        ch_poly *coef = poly_coeff(s, L->name);
        /* a negative coefficient walks down from the upper bound: v = hi - u */
        int down = poly_sign(coef) < 0;
        if (down) {
            ch_poly *minus = poly_const(-1), *neg = poly_mul(coef, minus);
            poly_free(minus);
            poly_free(coef);
            coef = neg;
        }
        t[n] = (dense_term){L, coef, poly_add(span, one)};
        poly_free(one);
        poly_free(span);
        ch_poly *at_start = poly_subst(s, L->name, down ? L->hi : L->lo);
        poly_free(s);
        s = at_start;
        ok = !mentions_open_loop(x, t[n].coef) && !mentions_open_loop(x, t[n].trips);
        n++;
    }
    ok = ok && s->n == 0; /* no constant offset, no loop left (a triangle's bound) */
    ch_poly *count = poly_const(1);
    for (int done = 0; ok && done < n; done++) {
        int k = 0;
        while (k < n && (!t[k].coef || !poly_equal(t[k].coef, count)))
            k++;
        ok = k < n;
        if (ok) {
            ch_poly *next = poly_mul(count, t[k].trips);
            poly_free(count);
            count = next;
            poly_free(t[k].coef);
            t[k].coef = NULL; /* used */
            ch_strvec_push(used, t[k].loop->name);
        }
    }
    for (int k = 0; k < n; k++) {
        poly_free(t[k].coef);
        poly_free(t[k].trips);
    }
    poly_free(s);
    if (!ok) {
        poly_free(count);
        return NULL;
    }
    return count;
}

/* The number of elements an unconditional `acc = ...` reaches from element 0, when every
 * dimension is dense (inner dimensions whole) and every open loop either walks a dimension or
 * runs a constant number (>= 1) of times; NULL otherwise. */
static ch_poly *write_coverage(const infer *x, const ch_ir *acc)
{
    const ch_param *p = &x->e->params[access_base(acc)->param_index];
    size_t nsubs = 0;
    for (const ch_ir *s = acc; s->kind == CH_IR_INDEX; s = s->kids[0])
        nsubs++;
    if (x->cond_depth || x->early_exit ||
        (p->role == CH_ROLE_ARRAY ? nsubs != p->ndims : nsubs != 1))
        return NULL;
    ch_strvec used;
    ch_strvec_init(&used);
    ch_poly *total = poly_const(1);
    size_t dim = nsubs;
    for (const ch_ir *s = acc; total && s->kind == CH_IR_INDEX; s = s->kids[0]) {
        dim--;
        ch_poly *d = dense_size(x, s->kids[1], &used);
        ch_poly *declared = dim > 0 ? poly_parse(p->dims[dim], NULL) : NULL;
        int whole = d && (dim == 0 || (declared && poly_equal(d, declared)));
        ch_poly *next = whole ? poly_mul(total, d) : NULL;
        poly_free(declared);
        poly_free(d);
        poly_free(total);
        total = next;
    }
    for (size_t i = 0; total && i < x->n_loops; i++) {
        const loop_var *L = &x->loops[i];
        long long lo, hi;
        if (strvec_has(&used, L->name))
            continue;
        if (!L->lo || !L->hi || !poly_is_const(L->lo, &lo) || !poly_is_const(L->hi, &hi) ||
            hi < lo) {
            poly_free(total); /* a loop that may run zero times: the write may not happen */
            total = NULL;
        }
    }
    ch_strvec_free(&used);
    return total;
}

static void note_write(infer *x, const ch_ir *acc, int plain)
{
    int p = access_base(acc)->param_index;
    x->pi[p].written = 1;
    ch_poly *covered = plain ? write_coverage(x, acc) : NULL;
    if (covered) {
        pinfo *pi = &x->pi[p];
        pi->covers = ch_xrealloc(pi->covers, (size_t)(pi->n_covers + 1) * sizeof *pi->covers);
        pi->covers[pi->n_covers++] = covered;
    }
    ch_strvec_push_owned(&x->written, access_key(acc));
}

/* The integer buffer whose element n is (`p[i]`, `(long)p[i]`, or an index local set from one),
 * or -1. */
static int index_read_itself(const infer *x, const ch_ir *n)
{
    while (n && n->kind == CH_IR_CAST && n->nkids == 1)
        n = n->kids[0];
    if (n && n->kind == CH_IR_VAR && n->param_index < 0)
        return index_local_of(x, n->text);
    if (!n || n->kind != CH_IR_INDEX)
        return -1;
    const ch_ir *b = access_base(n);
    return is_buffer(x, b) && ch_scalar_is_integer(x->e->params[b->param_index].elem)
               ? b->param_index
               : -1;
}

/* A plain store whose subscript is an element of an index array (`y[p[i]] = x[i]`): if two
 * elements of p were equal, two iterations would write one element, and which value stays
 * depends on their order; a parallel kernel cannot keep the sequential order, so test data
 * must hold distinct values (a permutation), or the reference and every correct candidate
 * disagree. A compound store (`h[b[i]] += 1`, a histogram) reads the old value: repeated values
 * are its point. */
static void note_scatter(infer *x, const ch_ir *acc)
{
    for (const ch_ir *s = acc; s->kind == CH_IR_INDEX; s = s->kids[0]) {
        int q = index_read_itself(x, s->kids[1]);
        if (q >= 0 && q != access_base(acc)->param_index)
            x->pi[q].scatters = 1;
    }
}

/* Reads inside the subscripts of an access (not the access itself). */
static void walk_subscripts(infer *x, const ch_ir *acc)
{
    for (const ch_ir *s = acc; s->kind == CH_IR_INDEX; s = s->kids[0])
        walk_expr(x, s->kids[1]);
}

static int is_access(const infer *x, const ch_ir *n)
{
    return n && n->kind == CH_IR_INDEX && is_buffer(x, access_base(n));
}

/* `*p` on a buffer parameter is p[0]: a temporary INDEX node the caller frees. */
static ch_ir *deref_as_index(const infer *x, const ch_ir *n)
{
    if (!n || n->kind != CH_IR_UNARY || n->nkids != 1 || strcmp(n->text, "*") != 0 ||
        !is_buffer(x, n->kids[0]))
        return NULL;
    ch_ir *idx = ch_ir_new(CH_IR_INDEX, n->line, n->col);
    ch_ir_add(idx, ch_ir_clone(n->kids[0]));
    ch_ir *zero = ch_ir_new(CH_IR_INT_LIT, n->line, n->col);
    zero->text = ch_xstrdup("0");
    ch_ir_add(idx, zero);
    return idx;
}

static void walk_update(infer *x, const ch_ir *lhs, int reads_old)
{
    ch_ir *deref = deref_as_index(x, lhs);
    if (deref) {
        walk_update(x, deref, reads_old);
        ch_ir_free(deref);
        return;
    }
    if (is_access(x, lhs)) {
        walk_subscripts(x, lhs);
        note_access(x, lhs);
        if (reads_old)
            note_read(x, lhs);
        else
            note_scatter(x, lhs);
        note_write(x, lhs, !reads_old);
    } else if (is_buffer(x, lhs)) {
        /* the parameter itself moves (`p++` until a sentinel): no subscript bounds it */
        mark_unbounded(&x->pi[lhs->param_index], lhs);
    } else if (lhs && lhs->kind != CH_IR_VAR) {
        walk_expr(x, lhs);
    }
}

static void walk_expr(infer *x, const ch_ir *n)
{
    if (!n)
        return;
    if (n->kind == CH_IR_ASSIGN && n->nkids == 2) {
        walk_expr(x, n->kids[1]);
        walk_update(x, n->kids[0], strcmp(n->text, "=") != 0);
        return;
    }
    if (n->kind == CH_IR_UNARY && n->nkids == 1 &&
        (strcmp(n->text, "++") == 0 || strcmp(n->text, "--") == 0)) {
        walk_update(x, n->kids[0], 1);
        return;
    }
    ch_ir *deref = deref_as_index(x, n);
    if (deref) {
        walk_expr(x, deref);
        ch_ir_free(deref);
        return;
    }
    if (is_access(x, n)) {
        walk_subscripts(x, n);
        note_access(x, n);
        note_read(x, n);
        return;
    }
    if (is_buffer(x, n)) {
        x->pi[n->param_index].escapes = 1;
        return;
    }
    if (n->kind == CH_IR_OPAQUE) {
        /* its subscripts still bound the extent, but what it does with the buffers is
         * unknown: any buffer inside may be written (inout unless const) */
        x->opaque_depth++;
        for (size_t i = 0; i < n->nkids; i++)
            walk_expr(x, n->kids[i]);
        x->opaque_depth--;
        return;
    }
    for (size_t i = 0; i < n->nkids; i++)
        walk_expr(x, n->kids[i]);
}

static void push_scope(infer *x)
{
    x->scope_marks = ch_xrealloc(x->scope_marks, (x->n_scopes + 1) * sizeof *x->scope_marks);
    x->scope_marks[x->n_scopes++] = x->written.len;
}

static void pop_scope(infer *x)
{
    size_t mark = x->scope_marks[--x->n_scopes];
    while (x->written.len > mark) {
        free(x->written.items[--x->written.len]);
        x->written.items[x->written.len] = NULL;
    }
}

static void walk_stmt(infer *x, const ch_ir *s);

static const char *var_name(const ch_ir *n)
{
    return n && n->kind == CH_IR_VAR && n->param_index < 0 ? n->text : NULL;
}

/* Recognises `for (i = lo; i < hi; i++)` (and <=, >, >=, --, += c) and pushes its variable. */
static void push_loop(infer *x, const ch_ir *f)
{
    const ch_ir *cond = f->kids[1], *inc = f->kids[2];
    const char *name;
    const ch_ir *start;
    ch_ir_for_init(f, &name, &start);
    loop_var L = {name ? name : "", NULL, NULL, 0};
    int down = inc && ((inc->kind == CH_IR_UNARY && strcmp(inc->text, "--") == 0) ||
                       (inc->kind == CH_IR_ASSIGN && strcmp(inc->text, "-=") == 0));
    L.unit_step = inc && ((inc->kind == CH_IR_UNARY && var_name(inc->kids[0]) &&
                           strcmp(var_name(inc->kids[0]), L.name) == 0) ||
                          (inc->kind == CH_IR_ASSIGN && inc->nkids == 2 &&
                           (strcmp(inc->text, "+=") == 0 || strcmp(inc->text, "-=") == 0) &&
                           var_name(inc->kids[0]) && strcmp(var_name(inc->kids[0]), L.name) == 0 &&
                           inc->kids[1]->kind == CH_IR_INT_LIT && inc->kids[1]->ival == 1));
    if (name && cond && cond->kind == CH_IR_BINARY && cond->nkids == 2) {
        const char *op = cond->text;
        const ch_ir *bound = NULL;
        int strict = 0, upper = 0;
        if (var_name(cond->kids[0]) && strcmp(var_name(cond->kids[0]), name) == 0) {
            bound = cond->kids[1];
            upper = op[0] == '<';
            strict = op[1] == '\0';
        } else if (var_name(cond->kids[1]) && strcmp(var_name(cond->kids[1]), name) == 0) {
            bound = cond->kids[0];
            upper = op[0] == '>';
            strict = op[1] == '\0';
        }
        ch_poly *b = (strchr("<>", op[0]) && bound) ? to_poly(x, bound) : NULL;
        ch_poly *s = to_poly(x, start);
        if (b && s && upper == !down) {
            ch_poly *one = poly_const(strict ? (upper ? -1 : 1) : 0);
            ch_poly *edge = poly_add(b, one);
            poly_free(one);
            L.lo = upper ? poly_clone(s) : edge;
            L.hi = upper ? edge : poly_clone(s);
        }
        poly_free(b);
        poly_free(s);
    }
    x->loops = ch_xrealloc(x->loops, (x->n_loops + 1) * sizeof *x->loops);
    x->loops[x->n_loops++] = L;
}

static void pop_loop(infer *x)
{
    loop_var *L = &x->loops[--x->n_loops];
    poly_free(L->lo);
    poly_free(L->hi);
}

static void add_local(infer *x, const ch_ir *d)
{
    ch_poly *v = NULL;
    if (d->nkids == 1 && !strvec_has(&x->assigned, d->text) && ch_scalar_is_integer(d->type))
        v = to_poly(x, d->kids[0]);
    x->locals = ch_xrealloc(x->locals, (x->n_locals + 1) * sizeof *x->locals);
    x->locals[x->n_locals++] = (local_def){d->text, v};
}

static void walk_stmt(infer *x, const ch_ir *s)
{
    if (!s)
        return;
    size_t locals = x->n_locals;
    switch (s->kind) {
    case CH_IR_BLOCK:
        for (size_t i = 0; i < s->nkids; i++)
            walk_stmt(x, s->kids[i]);
        break;
    case CH_IR_DECL:
        if (s->nkids == 1)
            walk_expr(x, s->kids[0]);
        add_local(x, s);
        return; /* visible for the rest of the enclosing block */
    case CH_IR_FOR:
        walk_stmt(x, s->kids[0]);
        push_loop(x, s);
        push_scope(x);
        walk_expr(x, s->kids[1]);
        walk_stmt(x, s->kids[3]);
        walk_expr(x, s->kids[2]);
        pop_scope(x);
        pop_loop(x);
        break;
    case CH_IR_WHILE:
    case CH_IR_DO:
        x->cond_depth++;
        push_scope(x);
        for (size_t i = 0; i < s->nkids; i++) {
            if (s->kids[i] && s->kids[i]->kind >= CH_IR_INT_LIT)
                walk_expr(x, s->kids[i]);
            else
                walk_stmt(x, s->kids[i]);
        }
        pop_scope(x);
        x->cond_depth--;
        break;
    case CH_IR_IF:
        walk_expr(x, s->kids[0]);
        x->cond_depth++;
        for (size_t i = 1; i < 3 && i < s->nkids; i++) {
            push_scope(x);
            walk_stmt(x, s->kids[i]);
            pop_scope(x);
        }
        x->cond_depth--;
        break;
    case CH_IR_EXPR_STMT:
    case CH_IR_RETURN:
        if (s->nkids)
            walk_expr(x, s->kids[0]);
        break;
    default:
        break;
    }
    while (x->n_locals > locals)
        poly_free(x->locals[--x->n_locals].value);
}

/* Every variable assigned anywhere (such locals are never substituted). */
static void collect_assigned(const ch_ir *n, ch_strvec *out)
{
    if (!n)
        return;
    const ch_ir *target = NULL;
    if (n->kind == CH_IR_ASSIGN && n->nkids == 2)
        target = n->kids[0];
    if (n->kind == CH_IR_UNARY && n->nkids == 1 &&
        (strcmp(n->text, "++") == 0 || strcmp(n->text, "--") == 0))
        target = n->kids[0];
    if (target && target->kind == CH_IR_VAR)
        ch_strvec_push(out, target->text);
    for (size_t i = 0; i < n->nkids; i++)
        collect_assigned(n->kids[i], out);
}

/* Records name as an index local when value reads an integer buffer; 1 when newly added. */
static int note_index_local(infer *x, const char *name, const ch_ir *value)
{
    int q;
    if (!name || index_local_of(x, name) >= 0 || !mentions_index_read(x, value, &q))
        return 0;
    x->index_locals =
        ch_xrealloc(x->index_locals, (x->n_index_locals + 1) * sizeof *x->index_locals);
    x->index_locals[x->n_index_locals++] = (index_local){name, q};
    return 1;
}

/* One pass over the body adding the integer locals set from an integer buffer's element
 * (`int c = col[k];`, `c = perm[i];`, or from another such local); returns how many were new.
 * A for loop's own start is skipped: a counter started at rp[i] walks positions between
 * offsets, it does not hold a value of rp used as an index. */
static int collect_index_locals(infer *x, const ch_ir *n)
{
    if (!n)
        return 0;
    int added = 0;
    if (n->kind == CH_IR_DECL && n->nkids == 1 && ch_scalar_is_integer(n->type))
        added += note_index_local(x, n->text, n->kids[0]);
    if (n->kind == CH_IR_ASSIGN && n->nkids == 2 && strcmp(n->text, "=") == 0 &&
        ch_scalar_is_integer(n->kids[0]->type))
        added += note_index_local(x, var_name(n->kids[0]), n->kids[1]);
    for (size_t i = 0; i < n->nkids; i++)
        if (!(n->kind == CH_IR_FOR && i == 0))
            added += collect_index_locals(x, n->kids[i]);
    return added;
}

/* Whether the body leaves a loop or the function early anywhere (a write after it may not run).
 * An unmodelled statement may be a goto; an unmodelled expression cannot jump. */
static int has_exit(const ch_ir *n, int statement)
{
    if (!n)
        return 0;
    if (n->kind == CH_IR_BREAK || n->kind == CH_IR_CONTINUE || n->kind == CH_IR_RETURN ||
        (n->kind == CH_IR_OPAQUE && statement))
        return 1;
    for (size_t i = 0; i < n->nkids; i++) {
        int sub = n->kind == CH_IR_BLOCK || (n->kind == CH_IR_FOR && i == 3) ||
                  (n->kind == CH_IR_WHILE && i == 1) || (n->kind == CH_IR_DO && i == 0) ||
                  (n->kind == CH_IR_IF && i > 0);
        if (has_exit(n->kids[i], sub))
            return 1;
    }
    return 0;
}

/* --- results --- */

static int named_in(char **v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], name) == 0)
            return 1;
    return 0;
}

static int covered_by(const pinfo *pi, const ch_poly *count)
{
    for (int i = 0; i < pi->n_covers; i++)
        if (poly_equal(pi->covers[i], count))
            return 1;
    return 0;
}

/* Whether the writes of p reach all of its extent (known by now): one write reaches it, or,
 * for an inferred pointer extent (the C max of incomparable maxima), each maximum + 1 is the
 * count of a write from element 0, so together they reach up to the largest. */
static int covers_all(const ch_param *p, const pinfo *pi)
{
    ch_poly *extent = p->extent ? poly_parse(p->extent, NULL) : NULL;
    int all = extent && covered_by(pi, extent);
    poly_free(extent);
    if (all || extent || p->extent_explicit || p->role != CH_ROLE_POINTER || !pi->max)
        return all;
    all = 1;
    for (int i = -1; i < pi->n_alts && all; i++) {
        ch_poly *one = poly_const(1), *count = poly_add(i < 0 ? pi->max : pi->alts[i], one);
        all = covered_by(pi, count);
        poly_free(one);
        poly_free(count);
    }
    return all;
}

static void set_direction(ch_entry *e, ch_param *p, const pinfo *pi)
{
    const ch_clauses *c = &e->clauses;
    p->written_only =
        e->has_body && pi->written && !pi->read_first && !pi->escapes && !pi->opaque_use;
    p->dir_explicit = 1;
    if (named_in(c->inout, c->n_inout, p->name))
        p->dir = CH_DIR_INOUT;
    else if (named_in(c->out, c->n_out, p->name))
        p->dir = CH_DIR_OUT;
    else if (named_in(c->in, c->n_in, p->name))
        p->dir = CH_DIR_IN;
    else {
        p->dir_explicit = 0;
        if (p->is_const)
            p->dir = CH_DIR_IN;
        else if (!e->has_body)
            /* a declaration does not say whether the function reads its non-const buffers
             * ("scale x in place", "b's border unchanged"): copied both ways and compared
             * whole, which is right either way; out(...) says it when they are only written */
            p->dir = CH_DIR_INOUT;
        else if (!pi->written)
            p->dir = pi->escapes || pi->opaque_use ? CH_DIR_INOUT : CH_DIR_IN;
        else
            p->dir = pi->read_first || pi->escapes || pi->opaque_use || !covers_all(p, pi)
                         ? CH_DIR_INOUT
                         : CH_DIR_OUT;
    }
}

static char *simplified(const char *expr)
{
    char *s = ch_poly_simplify(expr);
    return s ? s : ch_xstrdup(expr);
}

/* Product of the array's dimensions, with the outermost from the body when unsized. */
static char *array_extent(const ch_param *p, const pinfo *pi)
{
    ch_poly *acc = poly_const(1);
    for (size_t i = 0; i < p->ndims && acc; i++) {
        ch_poly *d = NULL;
        if (p->dims[i][0])
            d = poly_parse(p->dims[i], NULL);
        else if (i == 0 && pi->max && !pi->unbounded) {
            ch_poly *one = poly_const(1);
            d = poly_add(pi->max, one);
            poly_free(one);
        }
        ch_poly *next = d ? poly_mul(acc, d) : NULL;
        poly_free(d);
        poly_free(acc);
        acc = next;
    }
    /* an overflowed product is no extent (the caller's located error says so) */
    char *s = acc && !acc->overflow ? poly_print(acc) : NULL;
    poly_free(acc);
    return s;
}

static char *plus_one(const ch_poly *p)
{
    ch_poly *one = poly_const(1), *n = poly_add(p, one);
    char *s = poly_print(n);
    poly_free(one);
    poly_free(n);
    return s;
}

/* max + 1, or for incomparable maxima the C max of each + 1: "(m > n ? m : n)". */
static char *pointer_extent(const pinfo *pi)
{
    if (!pi->max || pi->unbounded || pi->escapes)
        return NULL;
    char *acc = plus_one(pi->max);
    for (int i = 0; i < pi->n_alts; i++) {
        char *b = plus_one(pi->alts[i]);
        char *next = ch_xasprintf("(%s > %s ? %s : %s)", acc, b, acc, b);
        free(acc);
        free(b);
        acc = next;
    }
    return acc;
}

static const ch_named_expr *clause_extent(const ch_entry *e, const char *name)
{
    for (size_t i = 0; i < e->clauses.n_extents; i++)
        if (strcmp(e->clauses.extents[i].name, name) == 0)
            return &e->clauses.extents[i];
    return NULL;
}

/* The array parameter other than skip that ir subscripts with exactly the variable counter
 * (q[k]), in body order; NULL. */
static const char *subscripted_by(const ch_entry *e, const ch_ir *ir, const char *counter,
                                  const char *skip)
{
    if (!ir)
        return NULL;
    if (ir->kind == CH_IR_INDEX && ir->nkids == 2 && ir->kids[0]->kind == CH_IR_VAR &&
        ir->kids[1]->kind == CH_IR_VAR && strcmp(ir->kids[1]->text, counter) == 0) {
        const ch_param *q = ch_entry_param(e, ir->kids[0]->text);
        if (q && q->role != CH_ROLE_SCALAR && strcmp(q->name, skip) != 0)
            return q->name;
    }
    for (size_t i = 0; i < ir->nkids; i++) {
        const char *q = subscripted_by(e, ir->kids[i], counter, skip);
        if (q)
            return q;
    }
    return NULL;
}

/* Whether ir reads parameter p, directly or through an index local set from it
 * (`int end = rp[i + 1];`). */
static int reads_values_of(const infer *x, const ch_ir *ir, int p)
{
    if (!ir)
        return 0;
    if (ir->kind == CH_IR_VAR &&
        (ir->param_index == p || (ir->param_index < 0 && index_local_of(x, ir->text) == p)))
        return 1;
    for (size_t i = 0; i < ir->nkids; i++)
        if (reads_values_of(x, ir->kids[i], p))
            return 1;
    return 0;
}

/* For array p: when its elements start or bound a for loop (`for (k = rp[i]; k < rp[i + 1];
 * k++)`, also through locals set from rp) whose counter subscripts another array, that array
 * (p's values are positions in it: p is an offsets array, like CSR's row pointers); else
 * NULL. */
static const char *offsets_into(const infer *x, const ch_ir *ir, int p)
{
    if (!ir)
        return NULL;
    const char *counter, *name = x->e->params[p].name;
    const ch_ir *start;
    if (ir->kind == CH_IR_FOR && ir->nkids == 4 && ch_ir_for_init(ir, &counter, &start) == 0 &&
        (reads_values_of(x, start, p) || reads_values_of(x, ir->kids[1], p))) {
        const char *q = subscripted_by(x->e, ir->kids[3], counter, name);
        if (q)
            return q;
    }
    for (size_t i = 0; i < ir->nkids; i++) {
        const char *q = offsets_into(x, ir->kids[i], p);
        if (q)
            return q;
    }
    return NULL;
}

/* An extent() the user wrote that is a polynomial must be one that fits 64 bits and is not a
 * negative constant: a wrapped 3037000500*3037000500 or a clamped 40-digit literal would size
 * the test data. Other C expressions are checked when they are evaluated. */
static int check_given_extent(const ch_entry *e, const ch_named_expr *given, ch_error *err)
{
    const char *why = NULL;
    ch_poly *poly = poly_parse(given->expr, &why);
    long long value = 0;
    if (poly && poly_is_const(poly, &value) && value < 0)
        why = "the number of elements is negative";
    poly_free(poly);
    if (!why)
        return 0;
    return ch_error_at(err, e->file, given->line, given->col,
                       "bad extent(%s: ...) of '%s': %s; write the number of elements as a "
                       "C expression of the integer parameters",
                       given->name, e->name, why);
}

/* --- range(), offsets() and perm(): what the user says valid input values are --- */

static ch_param *param_named(ch_entry *e, const char *name)
{
    for (size_t i = 0; i < e->n_params; i++)
        if (strcmp(e->params[i].name, name) == 0)
            return &e->params[i];
    return NULL;
}

/* A bound of range() or offsets(): an expression the test-data generator can evaluate, over
 * the integer parameters only. 0, or -1 with a located error. */
static int check_bound(const ch_entry *e, const char *clause, const char *name, const char *expr,
                       unsigned line, unsigned col, ch_error *err)
{
    ch_strvec names;
    ch_strvec_init(&names);
    ch_error why;
    ch_error_clear(&why);
    int rc = ch_checklist_expr_names(expr, &names, &why);
    for (size_t i = 0; rc == 0 && i < names.len; i++) {
        const ch_param *q = ch_entry_param(e, names.items[i]);
        if (!q || q->role != CH_ROLE_SCALAR || !ch_scalar_is_integer(q->elem))
            rc = ch_error_set(&why, "'%s' is not an integer parameter of '%s'", names.items[i],
                              e->name);
    }
    ch_strvec_free(&names);
    if (rc == 0)
        return 0;
    return ch_error_at(err, e->file, line, col,
                       "bad bound '%s' in %s(%s: ...): %s; write it as a C expression of the "
                       "integer parameters",
                       expr, clause, name, why.msg);
}

/* A second range()/offsets()/perm() item for a parameter that already has one (counting the
 * first upto_* items of each clause). */
static int said_twice(const ch_entry *e, const char *name, size_t upto_range, size_t upto_offsets,
                      size_t upto_perms)
{
    int n = 0;
    for (size_t i = 0; i < upto_range; i++)
        n += strcmp(e->clauses.ranges[i].name, name) == 0;
    for (size_t i = 0; i < upto_offsets; i++)
        n += strcmp(e->clauses.offsets[i].name, name) == 0;
    for (size_t i = 0; i < upto_perms; i++)
        n += strcmp(e->clauses.perms[i].name, name) == 0;
    return n > 1;
}

static void clear_values(ch_param *p)
{
    free(p->index_lo);
    free(p->index_hi);
    free(p->offsets_hi);
    p->index_lo = p->index_hi = p->offsets_hi = NULL;
    p->is_index = 0;
    p->is_perm = 0;
    p->has_range = 0;
    p->values_explicit = 1;
}

/* range(p: lo, hi): integer arrays take values in [lo, hi) (expressions); floating arrays in
 * [lo, hi] (numbers). */
static int apply_range(ch_entry *e, const ch_range_expr *r, ch_error *err)
{
    ch_param *p = param_named(e, r->name);
    if (!p)
        return 0; /* the scan already said it names no parameter */
    clear_values(p);
    if (ch_scalar_is_float(p->elem)) {
        char *end_lo, *end_hi;
        double lo = strtod(r->lo, &end_lo), hi = strtod(r->hi, &end_hi);
        if (*end_lo || *end_hi || !isfinite(lo) || !isfinite(hi) || !(lo < hi))
            return ch_error_at(err, e->file, r->line, r->col,
                               "range(%s: %s, %s): '%s' holds %s values, so its bounds are two "
                               "numbers, the first below the second; write range(%s: -1, 1)",
                               r->name, r->lo, r->hi, r->name, ch_scalar_name(p->elem), r->name);
        p->has_range = 1;
        p->lo = lo;
        p->hi = hi;
        return 0;
    }
    if (check_bound(e, "range", r->name, r->lo, r->line, r->col, err) != 0 ||
        check_bound(e, "range", r->name, r->hi, r->line, r->col, err) != 0)
        return -1;
    char *end_lo, *end_hi;
    long long lo = strtoll(r->lo, &end_lo, 0), hi = strtoll(r->hi, &end_hi, 0);
    if (!*end_lo && !*end_hi && lo >= hi)
        return ch_error_at(err, e->file, r->line, r->col,
                           "range(%s: %s, %s) holds no value: the values lie in [lo, hi), so hi "
                           "must be above lo",
                           r->name, r->lo, r->hi);
    p->is_index = 1;
    p->index_lo = !*end_lo && lo == 0 ? NULL : ch_xstrdup(r->lo);
    p->index_hi = ch_xstrdup(r->hi);
    return 0;
}

/* offsets(p: last): non-decreasing integers from 0 to last (CSR row pointers). */
static int apply_offsets(ch_entry *e, const ch_named_expr *o, ch_error *err)
{
    ch_param *p = param_named(e, o->name);
    if (!p)
        return 0;
    if (!ch_scalar_is_integer(p->elem))
        return ch_error_at(err, e->file, o->line, o->col,
                           "offsets(%s: ...): '%s' holds %s values; offsets are positions, so "
                           "offsets() takes an integer array",
                           o->name, o->name, ch_scalar_name(p->elem));
    if (check_bound(e, "offsets", o->name, o->expr, o->line, o->col, err) != 0)
        return -1;
    clear_values(p);
    p->offsets_hi = ch_xstrdup(o->expr);
    return 0;
}

/* perm(p: n): distinct integers in [0, n); a permutation of 0..n-1 when p has n elements (the
 * generator says so when p has more elements than there are distinct values). */
static int apply_perm(ch_entry *e, const ch_named_expr *o, ch_error *err)
{
    ch_param *p = param_named(e, o->name);
    if (!p)
        return 0;
    if (!ch_scalar_is_integer(p->elem))
        return ch_error_at(err, e->file, o->line, o->col,
                           "perm(%s: ...): '%s' holds %s values; a permutation's values are "
                           "positions, so perm() takes an integer array",
                           o->name, o->name, ch_scalar_name(p->elem));
    if (check_bound(e, "perm", o->name, o->expr, o->line, o->col, err) != 0)
        return -1;
    char *end;
    long long n = strtoll(o->expr, &end, 0);
    if (!*end && n <= 0)
        return ch_error_at(err, e->file, o->line, o->col,
                           "perm(%s: %s) holds no value: the values are distinct in [0, %s), so "
                           "the bound must be positive",
                           o->name, o->expr, o->expr);
    clear_values(p);
    p->is_index = 1;
    p->is_perm = 1;
    p->index_hi = ch_xstrdup(o->expr);
    return 0;
}

/* The clauses win over inference; each parameter may be described once. */
static int apply_value_clauses(ch_entry *e, ch_error *err)
{
    const ch_clauses *c = &e->clauses;
    for (size_t i = 0; i < c->n_ranges; i++) {
        const ch_range_expr *r = &c->ranges[i];
        if (said_twice(e, r->name, i + 1, c->n_offsets, c->n_perms))
            return ch_error_at(err, e->file, r->line, r->col,
                               "the values of '%s' are described twice (by range(), offsets() or "
                               "perm()); keep one",
                               r->name);
        if (apply_range(e, r, err) != 0)
            return -1;
    }
    for (size_t i = 0; i < c->n_offsets; i++) {
        const ch_named_expr *o = &c->offsets[i];
        if (said_twice(e, o->name, 0, i + 1, c->n_perms))
            return ch_error_at(err, e->file, o->line, o->col,
                               "the values of '%s' are described twice (by offsets() or perm()); "
                               "keep one",
                               o->name);
        if (apply_offsets(e, o, err) != 0)
            return -1;
    }
    for (size_t i = 0; i < c->n_perms; i++) {
        const ch_named_expr *o = &c->perms[i];
        if (said_twice(e, o->name, 0, 0, i + 1))
            return ch_error_at(err, e->file, o->line, o->col, "perm(%s: ...) given twice; keep one",
                               o->name);
        if (apply_perm(e, o, err) != 0)
            return -1;
    }
    return 0;
}

static int finish(infer *x, ch_error *err)
{
    ch_entry *e = x->e;
    for (size_t i = 0; i < e->n_params; i++) {
        ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        const ch_named_expr *given = clause_extent(e, p->name);
        free(p->extent);
        p->extent = NULL;
        if (given && check_given_extent(e, given, err) != 0)
            return -1;
        if (given) {
            p->extent = simplified(given->expr);
            p->extent_explicit = 1;
        } else if (p->role == CH_ROLE_ARRAY) {
            p->extent = array_extent(p, &x->pi[i]);
        } else if (e->has_body) {
            p->extent = pointer_extent(&x->pi[i]);
        }
        const pinfo *pi = &x->pi[i];
        if (!p->extent && pi->unbounded && pi->unbounded_line)
            return ch_error_at(err, e->file, pi->unbounded_line, pi->unbounded_col,
                               "cannot infer the extent of '%s' in '%s': nothing bounds this "
                               "use of it (a sentinel loop or a moving pointer); add extent(%s: "
                               "<number of elements>) to the #pragma harness at %u:%u",
                               p->name, e->name, p->name, e->line, e->col);
        if (!p->extent && (e->has_body || p->role == CH_ROLE_ARRAY))
            return ch_error_at(err, e->file, e->line, e->col,
                               "cannot infer the extent of '%s' in '%s' from its subscripts; add "
                               "extent(%s: <number of elements>) to the #pragma harness",
                               p->name, e->name, p->name);
        set_direction(e, p, &x->pi[i]);
    }
    for (size_t i = 0; i < e->n_params; i++) {
        ch_param *p = &e->params[i];
        int of = x->pi[i].index_of;
        if (of < 0 || !ch_scalar_is_integer(p->elem))
            continue;
        p->is_index = 1;
        free(p->index_hi);
        p->index_hi = e->params[of].extent ? ch_xstrdup(e->params[of].extent) : NULL;
        /* distinct only when p has as many elements as there are values (a permutation): with
         * independent sizes (`to` of n elements into `y` of m) some sizes have n > m, where no
         * distinct values exist; perm(to: m) says it when the sizes are tied */
        p->is_perm =
            x->pi[i].scatters && p->extent && p->index_hi && strcmp(p->extent, p->index_hi) == 0;
    }
    for (size_t i = 0; i < e->n_params; i++) {
        ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR || !ch_scalar_is_integer(p->elem) || p->is_index)
            continue;
        const char *into = offsets_into(x, e->body, (int)i);
        const ch_param *q = into ? ch_entry_param(e, into) : NULL;
        free(p->offsets_hi);
        p->offsets_hi = q && q->extent ? ch_xstrdup(q->extent) : NULL;
    }
    return apply_value_clauses(e, err);
}

int ch_infer_entry(ch_entry *e, ch_error *err)
{
    infer x;
    memset(&x, 0, sizeof x);
    x.e = e;
    x.pi = ch_xcalloc(e->n_params + 1, sizeof *x.pi);
    for (size_t i = 0; i < e->n_params; i++)
        x.pi[i].index_of = -1;
    ch_strvec_init(&x.assigned);
    ch_strvec_init(&x.written);
    collect_assigned(e->body, &x.assigned);
    while (collect_index_locals(&x, e->body) > 0)
        ; /* to a fixed point: locals set from index locals are index locals */
    x.early_exit = has_exit(e->body, 1);
    walk_stmt(&x, e->body);
    int rc = finish(&x, err);
    for (size_t i = 0; i < e->n_params; i++) {
        poly_free(x.pi[i].max);
        for (int k = 0; k < x.pi[i].n_alts; k++)
            poly_free(x.pi[i].alts[k]);
        free(x.pi[i].alts);
        for (int k = 0; k < x.pi[i].n_covers; k++)
            poly_free(x.pi[i].covers[k]);
        free(x.pi[i].covers);
    }
    free(x.pi);
    free(x.loops);
    free(x.locals);
    free(x.index_locals);
    free(x.scope_marks);
    ch_strvec_free(&x.assigned);
    ch_strvec_free(&x.written);
    return rc;
}
