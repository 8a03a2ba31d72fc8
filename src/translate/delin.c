/* Delinearisation of flattened subscripts: see delin.h for what and why.
 *
 * A subscript is read as a polynomial with integer coefficients over its variables. Splitting
 * peels the innermost dimension first: a parameter n that divides every term of degree two or
 * more is the innermost size; the terms without n are the innermost subscript (affine, since
 * every non-linear term holds n), and the quotient by n is the rest, split again. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "delin.h"

#define POLY_MAX_TERMS 32
#define POLY_MAX_DEG   4
#define POLY_MAX_DEPTH 64 /* expression nesting read; deeper subscripts stay unsplit */

/* k * v[0] * ... * v[deg-1], the names sorted (so equal monomials compare equal). */
typedef struct term {
    long long k;
    size_t deg;
    const char *v[POLY_MAX_DEG];
} term;

typedef struct poly {
    size_t n;
    term t[POLY_MAX_TERMS];
} poly;

static int same_monomial(const term *a, const term *b)
{
    if (a->deg != b->deg)
        return 0;
    for (size_t i = 0; i < a->deg; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return 0;
    return 1;
}

/* p += t; -1 on overflow or too many terms. Terms whose coefficient becomes 0 are dropped. */
static int poly_add(poly *p, const term *t)
{
    for (size_t i = 0; i < p->n; i++) {
        if (!same_monomial(&p->t[i], t))
            continue;
        if (__builtin_add_overflow(p->t[i].k, t->k, &p->t[i].k))
            return -1;
        if (p->t[i].k == 0)
            p->t[i] = p->t[--p->n];
        return 0;
    }
    if (t->k == 0)
        return 0;
    if (p->n == POLY_MAX_TERMS)
        return -1;
    p->t[p->n++] = *t;
    return 0;
}

/* The product of two monomials, names kept sorted; -1 when the degree is too high. */
static int term_mul(const term *a, const term *b, term *out)
{
    if (a->deg + b->deg > POLY_MAX_DEG || __builtin_mul_overflow(a->k, b->k, &out->k))
        return -1;
    size_t i = 0, j = 0;
    out->deg = 0;
    while (i < a->deg || j < b->deg)
        out->v[out->deg++] =
            j == b->deg || (i < a->deg && strcmp(a->v[i], b->v[j]) <= 0) ? a->v[i++] : b->v[j++];
    return 0;
}

static int poly_mul(const poly *a, const poly *b, poly *out)
{
    out->n = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < b->n; j++) {
            term t;
            if (term_mul(&a->t[i], &b->t[j], &t) != 0 || poly_add(out, &t) != 0)
                return -1;
        }
    return 0;
}

/* x as a polynomial; -1 when it is not one over counters and parameters. */
static int poly_of(const ch_ir *x, ch_tr_delin_classify classify, const void *ctx, int depth,
                   poly *out)
{
    out->n = 0;
    if (!x || depth > POLY_MAX_DEPTH)
        return -1;
    term t = {.k = 1};
    poly a, b;
    switch (x->kind) {
    case CH_IR_INT_LIT:
        t.k = x->ival;
        return poly_add(out, &t);
    case CH_IR_VAR:
        if (!x->text || classify(x->text, ctx) == CH_TR_DV_OTHER)
            return -1;
        t.deg = 1;
        t.v[0] = x->text;
        return poly_add(out, &t);
    case CH_IR_CAST:
        return x->nkids == 1 ? poly_of(x->kids[0], classify, ctx, depth + 1, out) : -1;
    case CH_IR_UNARY:
        if (x->nkids != 1 || (strcmp(x->text, "+") != 0 && strcmp(x->text, "-") != 0))
            return -1;
        if (poly_of(x->kids[0], classify, ctx, depth + 1, out) != 0)
            return -1;
        for (size_t i = 0; x->text[0] == '-' && i < out->n; i++)
            if (__builtin_mul_overflow(out->t[i].k, -1, &out->t[i].k))
                return -1;
        return 0;
    case CH_IR_BINARY:
        if (x->nkids != 2 || poly_of(x->kids[0], classify, ctx, depth + 1, &a) != 0 ||
            poly_of(x->kids[1], classify, ctx, depth + 1, &b) != 0)
            return -1;
        if (strcmp(x->text, "*") == 0)
            return poly_mul(&a, &b, out);
        if (strcmp(x->text, "+") != 0 && strcmp(x->text, "-") != 0)
            return -1;
        *out = a;
        for (size_t i = 0; i < b.n; i++) {
            if (x->text[0] == '-' && __builtin_mul_overflow(b.t[i].k, -1, &b.t[i].k))
                return -1;
            if (poly_add(out, &b.t[i]) != 0)
                return -1;
        }
        return 0;
    default:
        return -1;
    }
}

static int holds(const term *t, const char *name)
{
    for (size_t i = 0; i < t->deg; i++)
        if (strcmp(t->v[i], name) == 0)
            return 1;
    return 0;
}

/* The innermost size of p: the first parameter (by name, so the choice depends only on the
 * subscript) that every term of degree two or more holds; NULL when there is none. */
static const char *inner_size(const poly *p, ch_tr_delin_classify classify, const void *ctx)
{
    const char *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].deg < 2)
            continue;
        for (size_t v = 0; v < p->t[i].deg; v++) {
            const char *name = p->t[i].v[v];
            if (classify(name, ctx) != CH_TR_DV_PARAM || (best && strcmp(name, best) >= 0))
                continue;
            int everywhere = 1;
            for (size_t j = 0; j < p->n && everywhere; j++)
                everywhere = p->t[j].deg < 2 || holds(&p->t[j], name);
            if (everywhere)
                best = name;
        }
    }
    return best;
}

static int nonlinear(const poly *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].deg >= 2)
            return 1;
    return 0;
}

/* An affine polynomial as isl text: "(2*i + n - 1)". */
static void print_affine(ch_strbuf *sb, const poly *p)
{
    long long c = 0;
    int any = 0;
    ch_strbuf_addc(sb, '(');
    for (size_t i = 0; i < p->n; i++) {
        const term *t = &p->t[i];
        assert(t->deg <= 1);
        if (t->deg == 0) {
            c = t->k;
            continue;
        }
        if (any || t->k < 0)
            ch_strbuf_adds(sb, t->k < 0 ? (any ? " - " : "-") : " + ");
        if (llabs(t->k) != 1)
            ch_strbuf_addf(sb, "%lld*", llabs(t->k));
        ch_tr_isl_name(sb, t->v[0]);
        any = 1;
    }
    if (!any)
        ch_strbuf_addf(sb, "%lld", c);
    else if (c)
        ch_strbuf_addf(sb, " %c %lld", c < 0 ? '-' : '+', llabs(c));
    ch_strbuf_addc(sb, ')');
}

/* Splits p = q * size + r: r the terms without size of degree <= 1, q the quotient of the
 * others. Every term of degree >= 2 holds size (inner_size chose it so). */
static void divide(const poly *p, const char *size, poly *q, poly *r)
{
    q->n = r->n = 0;
    for (size_t i = 0; i < p->n; i++) {
        const term *t = &p->t[i];
        if (!holds(t, size)) {
            assert(t->deg <= 1);
            r->t[r->n++] = *t;
            continue;
        }
        term d = {.k = t->k};
        int dropped = 0;
        for (size_t v = 0; v < t->deg; v++) {
            if (!dropped && strcmp(t->v[v], size) == 0)
                dropped = 1;
            else
                d.v[d.deg++] = t->v[v];
        }
        q->t[q->n++] = d; /* distinct monomials stay distinct after dropping one factor */
    }
}

int ch_tr_delinearize(const ch_ir *x, ch_tr_delin_classify classify, const void *ctx,
                      ch_tr_delin *out)
{
    memset(out, 0, sizeof *out);
    poly p;
    if (poly_of(x, classify, ctx, 0, &p) != 0 || !nonlinear(&p))
        return 1;
    poly inner[CH_TR_DELIN_MAX_DIMS];
    const char *size[CH_TR_DELIN_MAX_DIMS];
    size_t n = 0; /* inner dimensions found, innermost first */
    while (nonlinear(&p)) {
        const char *s = inner_size(&p, classify, ctx);
        if (!s || n + 1 == CH_TR_DELIN_MAX_DIMS)
            return 1;
        poly q;
        divide(&p, s, &q, &inner[n]);
        size[n++] = s;
        p = q;
    }
    out->ndims = n + 1;
    ch_strbuf_init(&out->dim[0]);
    print_affine(&out->dim[0], &p);
    for (size_t d = 1; d <= n; d++) {
        out->size[d] = size[n - d];
        ch_strbuf_init(&out->dim[d]);
        print_affine(&out->dim[d], &inner[n - d]);
    }
    return 0;
}

void ch_tr_delin_free(ch_tr_delin *d)
{
    for (size_t i = 0; i < d->ndims; i++)
        ch_strbuf_free(&d->dim[i]);
    memset(d, 0, sizeof *d);
}
