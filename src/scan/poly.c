/* Integer polynomials over named variables (poly.h): the small algebra that turns
 * "(m-1)*n+(n-1)+1" into "m*n". Invariant: a ch_poly is always normalised (terms sorted,
 * like terms merged, no zero coefficients), so equal polynomials print identically. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scan.h"
#include "ch/strbuf.h"
#include "poly.h"

static int term_cmp(const void *x, const void *y)
{
    const poly_term *a = x, *b = y;
    if (a->degree != b->degree)
        return b->degree - a->degree;
    return strcmp(a->mono, b->mono);
}

/* Sorts, merges like terms and drops zeros; takes ownership of the terms. overflow: an
 * operation that made the terms already overflowed (the result carries the flag on). */
static ch_poly *normalise(poly_term *t, int n, int overflow)
{
    qsort(t, (size_t)n, sizeof *t, term_cmp);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (k > 0 && strcmp(t[k - 1].mono, t[i].mono) == 0) {
            overflow |= __builtin_add_overflow(t[k - 1].coef, t[i].coef, &t[k - 1].coef);
            free(t[i].mono);
        } else {
            t[k++] = t[i];
        }
    }
    int m = 0;
    for (int i = 0; i < k; i++) {
        if (t[i].coef == 0)
            free(t[i].mono);
        else
            t[m++] = t[i];
    }
    ch_poly *p = ch_xcalloc(1, sizeof *p);
    p->t = t;
    p->n = m;
    p->overflow = overflow;
    return p;
}

ch_poly *poly_const(long long c)
{
    poly_term *t = ch_xmalloc(sizeof *t);
    t[0] = (poly_term){c, ch_xstrdup(""), 0};
    return normalise(t, 1, 0);
}

ch_poly *poly_var(const char *name)
{
    poly_term *t = ch_xmalloc(sizeof *t);
    t[0] = (poly_term){1, ch_xstrdup(name), 1};
    return normalise(t, 1, 0);
}

ch_poly *poly_clone(const ch_poly *p)
{
    poly_term *t = ch_xmalloc(sizeof *t * (size_t)(p->n + 1));
    for (int i = 0; i < p->n; i++)
        t[i] = (poly_term){p->t[i].coef, ch_xstrdup(p->t[i].mono), p->t[i].degree};
    return normalise(t, p->n, p->overflow);
}

void poly_free(ch_poly *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++)
        free(p->t[i].mono);
    free(p->t);
    free(p);
}

static ch_poly *add_scaled(const ch_poly *a, const ch_poly *b, long long s)
{
    poly_term *t = ch_xmalloc(sizeof *t * (size_t)(a->n + b->n + 1));
    int n = 0, overflow = a->overflow | b->overflow;
    for (int i = 0; i < a->n; i++)
        t[n++] = (poly_term){a->t[i].coef, ch_xstrdup(a->t[i].mono), a->t[i].degree};
    for (int i = 0; i < b->n; i++) {
        long long c;
        overflow |= __builtin_mul_overflow(s, b->t[i].coef, &c);
        t[n++] = (poly_term){c, ch_xstrdup(b->t[i].mono), b->t[i].degree};
    }
    return normalise(t, n, overflow);
}

ch_poly *poly_add(const ch_poly *a, const ch_poly *b)
{
    return add_scaled(a, b, 1);
}

ch_poly *poly_sub(const ch_poly *a, const ch_poly *b)
{
    return add_scaled(a, b, -1);
}

/* The sorted '*'-joined product of two monomials. */
static char *mono_mul(const char *a, const char *b)
{
    if (!*a)
        return ch_xstrdup(b);
    if (!*b)
        return ch_xstrdup(a);
    char *all = ch_xasprintf("%s*%s", a, b);
    char *names[POLY_MAX_DEGREE];
    int n = 0;
    /* poly_mul refuses products beyond POLY_MAX_DEGREE factors, so none is dropped here */
    for (char *tok = strtok(all, "*"); tok && n < POLY_MAX_DEGREE; tok = strtok(NULL, "*"))
        names[n++] = tok;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *x = names[j];
            names[j] = names[j - 1];
            names[j - 1] = x;
        }
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (int i = 0; i < n; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? "*" : "", names[i]);
    free(all);
    return ch_strbuf_detach(&sb);
}

/* Nonzero when a*b could pass POLY_MAX_TERMS terms or POLY_MAX_DEGREE factors (mono_mul keeps
 * at most POLY_MAX_DEGREE names, and a->n * b->n must not overflow int). */
static int product_too_large(const ch_poly *a, const ch_poly *b)
{
    if (a->n > 0 && b->n > POLY_MAX_TERMS / a->n)
        return 1;
    int da = 0, db = 0;
    for (int i = 0; i < a->n; i++)
        da = a->t[i].degree > da ? a->t[i].degree : da;
    for (int i = 0; i < b->n; i++)
        db = b->t[i].degree > db ? b->t[i].degree : db;
    return da + db > POLY_MAX_DEGREE;
}

ch_poly *poly_mul(const ch_poly *a, const ch_poly *b)
{
    if (product_too_large(a, b))
        return normalise(ch_xmalloc(sizeof(poly_term)), 0,
                         a->overflow | b->overflow | POLY_TOO_LARGE);
    poly_term *t = ch_xmalloc(sizeof *t * (size_t)(a->n * b->n + 1));
    int n = 0, overflow = a->overflow | b->overflow;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            long long c;
            overflow |= __builtin_mul_overflow(a->t[i].coef, b->t[j].coef, &c);
            t[n++] = (poly_term){c, mono_mul(a->t[i].mono, b->t[j].mono),
                                 a->t[i].degree + b->t[j].degree};
        }
    return normalise(t, n, overflow);
}

ch_poly *poly_div_const(const ch_poly *a, long long c)
{
    if (c == 0)
        return NULL;
    for (int i = 0; i < a->n; i++)
        if (c == -1 ? a->t[i].coef == LLONG_MIN : a->t[i].coef % c != 0)
            return NULL;
    ch_poly *p = poly_clone(a);
    for (int i = 0; i < p->n; i++)
        p->t[i].coef /= c;
    return p;
}

/* How often name occurs in a monomial. */
static int mono_power(const char *mono, const char *name)
{
    int k = 0;
    size_t n = strlen(name);
    for (const char *s = mono; *s;) {
        const char *e = strchr(s, '*');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == n && memcmp(s, name, n) == 0)
            k++;
        s += len + (e ? 1 : 0);
    }
    return k;
}

/* The monomial without one occurrence of name. */
static char *mono_drop(const char *mono, const char *name)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int dropped = 0;
    size_t n = strlen(name);
    for (const char *s = mono; *s;) {
        const char *e = strchr(s, '*');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (!dropped && len == n && memcmp(s, name, n) == 0) {
            dropped = 1;
        } else {
            if (sb.len)
                ch_strbuf_addc(&sb, '*');
            ch_strbuf_add(&sb, s, len);
        }
        s += len + (e ? 1 : 0);
    }
    return ch_strbuf_detach(&sb);
}

int poly_degree_in(const ch_poly *p, const char *name)
{
    int d = 0;
    for (int i = 0; i < p->n; i++) {
        int k = mono_power(p->t[i].mono, name);
        d = k > d ? k : d;
    }
    return d;
}

int poly_mentions(const ch_poly *p, const char *name)
{
    return poly_degree_in(p, name) > 0;
}

ch_poly *poly_coeff(const ch_poly *p, const char *name)
{
    poly_term *t = ch_xmalloc(sizeof *t * (size_t)(p->n + 1));
    int n = 0;
    for (int i = 0; i < p->n; i++)
        if (mono_power(p->t[i].mono, name) == 1)
            t[n++] = (poly_term){p->t[i].coef, mono_drop(p->t[i].mono, name), p->t[i].degree - 1};
    return normalise(t, n, p->overflow);
}

ch_poly *poly_subst(const ch_poly *p, const char *name, const ch_poly *q)
{
    ch_poly *acc = poly_const(0);
    for (int i = 0; i < p->n; i++) {
        int k = mono_power(p->t[i].mono, name);
        char *rest = ch_xstrdup(p->t[i].mono);
        for (int j = 0; j < k; j++) {
            char *r2 = mono_drop(rest, name);
            free(rest);
            rest = r2;
        }
        poly_term *t = ch_xmalloc(sizeof *t);
        t[0] = (poly_term){p->t[i].coef, rest, p->t[i].degree - k};
        ch_poly *term = normalise(t, 1, p->overflow);
        for (int j = 0; j < k; j++) {
            ch_poly *m = poly_mul(term, q);
            poly_free(term);
            term = m;
        }
        ch_poly *s = poly_add(acc, term);
        poly_free(acc);
        poly_free(term);
        acc = s;
    }
    return acc;
}

int poly_sign(const ch_poly *p)
{
    if (p->n == 0)
        return 0;
    int pos = 1, neg = 1;
    for (int i = 0; i < p->n; i++) {
        if (p->t[i].coef <= 0)
            pos = 0;
        if (p->t[i].coef >= 0)
            neg = 0;
    }
    return pos ? 1 : neg ? -1 : 0;
}

int poly_is_const(const ch_poly *p, long long *value)
{
    if (p->n == 0) {
        *value = 0;
        return 1;
    }
    if (p->n == 1 && p->t[0].degree == 0) {
        *value = p->t[0].coef;
        return 1;
    }
    return 0;
}

double poly_sample(const ch_poly *p)
{
    double sum = 0;
    for (int i = 0; i < p->n; i++) {
        double v = (double)p->t[i].coef;
        for (const char *s = p->t[i].mono; *s;) {
            const char *e = strchr(s, '*');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            unsigned h = 0;
            for (size_t j = 0; j < len; j++)
                h = h * 31 + (unsigned char)s[j];
            v *= 1000.0 + (double)(h % 97);
            s += len + (e ? 1 : 0);
        }
        sum += v;
    }
    return sum;
}

char *poly_print(const ch_poly *p)
{
    if (p->n == 0)
        return ch_xstrdup("0");
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (int i = 0; i < p->n; i++) {
        long long c = p->t[i].coef;
        const char *m = p->t[i].mono;
        if (c < 0)
            ch_strbuf_addc(&sb, '-');
        else if (i > 0)
            ch_strbuf_addc(&sb, '+');
        unsigned long long a = c < 0 ? 0ULL - (unsigned long long)c : (unsigned long long)c;
        if (!*m)
            ch_strbuf_addf(&sb, "%llu", a);
        else if (a == 1)
            ch_strbuf_adds(&sb, m);
        else
            ch_strbuf_addf(&sb, "%llu*%s", a, m);
    }
    return ch_strbuf_detach(&sb);
}

/* --- parsing C integer expressions --- */

typedef struct pparser {
    const char *s;
    int depth;       /* parentheses and unary signs open around s */
    const char *why; /* set when the text is wrong, not merely not a polynomial */
} pparser;

static ch_poly *p_expr(pparser *p);

static void p_ws(pparser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static int is_int_type_word(const char *w, size_t n)
{
    static const char *const words[] = {"int",      "long",      "short",   "unsigned", "signed",
                                        "size_t",   "char",      "int64_t", "int32_t",  "uint64_t",
                                        "uint32_t", "ptrdiff_t", "ssize_t", NULL};
    for (size_t i = 0; words[i]; i++)
        if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
            return 1;
    return 0;
}

/* "(long)" style integer cast at p->s: skips it and returns 1. */
static int p_cast(pparser *p)
{
    const char *s = p->s + 1;
    int words = 0;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        const char *w = s;
        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
        if (s == w)
            break;
        if (!is_int_type_word(w, (size_t)(s - w)))
            return 0;
        words++;
    }
    if (words == 0 || *s != ')')
        return 0;
    p->s = s + 1;
    return 1;
}

static ch_poly *p_primary(pparser *p);

/* p_primary one level deeper: the recursion is bounded by POLY_MAX_DEPTH, so a hostile
 * extent( ((((...)))) ) is an error and not a stack overflow. */
static ch_poly *p_nested(pparser *p, ch_poly *(*parse)(pparser *))
{
    if (p->depth >= POLY_MAX_DEPTH) {
        p->why = "the expression is nested too deeply (more than 256 levels)";
        return NULL;
    }
    p->depth++;
    ch_poly *e = parse(p);
    p->depth--;
    return e;
}

/* An integer literal: a value beyond 64 bits is an error, not a clamped LLONG_MAX. */
static ch_poly *p_literal(pparser *p)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p->s, &end, 0);
    if (errno == ERANGE || v > (unsigned long long)LLONG_MAX) {
        p->why = "an integer literal is too large for 64 bits";
        return NULL;
    }
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (isalnum((unsigned char)*end) || *end == '.' || *end == '_')
        return NULL;
    p->s = end;
    return poly_const((long long)v);
}

static ch_poly *p_primary(pparser *p)
{
    p_ws(p);
    if (*p->s == '(') {
        if (p_cast(p))
            return p_nested(p, p_primary);
        p->s++;
        ch_poly *e = p_nested(p, p_expr);
        p_ws(p);
        if (!e || *p->s != ')') {
            poly_free(e);
            return NULL;
        }
        p->s++;
        return e;
    }
    if (*p->s == '-' || *p->s == '+') {
        int neg = *p->s == '-';
        p->s++;
        ch_poly *e = p_nested(p, p_primary);
        if (!e || !neg)
            return e;
        ch_poly *m1 = poly_const(-1), *r = poly_mul(e, m1);
        poly_free(m1);
        poly_free(e);
        return r;
    }
    if (isdigit((unsigned char)*p->s))
        return p_literal(p);
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        const char *w = p->s;
        while (isalnum((unsigned char)*p->s) || *p->s == '_')
            p->s++;
        char *name = ch_xstrndup(w, (size_t)(p->s - w));
        ch_poly *v = poly_var(name);
        free(name);
        return v;
    }
    return NULL;
}

static ch_poly *p_term(pparser *p)
{
    ch_poly *a = p_primary(p);
    for (;;) {
        if (!a)
            return NULL;
        p_ws(p);
        char op = *p->s;
        if (op != '*' && op != '/')
            return a;
        p->s++;
        ch_poly *b = p_primary(p), *r = NULL;
        long long c;
        if (b && op == '*')
            r = poly_mul(a, b);
        else if (b && poly_is_const(b, &c))
            r = poly_div_const(a, c);
        poly_free(a);
        poly_free(b);
        a = r;
    }
}

static ch_poly *p_expr(pparser *p)
{
    ch_poly *a = p_term(p);
    for (;;) {
        if (!a)
            return NULL;
        p_ws(p);
        char op = *p->s;
        if (op != '+' && op != '-')
            return a;
        p->s++;
        ch_poly *b = p_term(p), *r = NULL;
        if (b)
            r = op == '+' ? poly_add(a, b) : poly_sub(a, b);
        poly_free(a);
        poly_free(b);
        a = r;
    }
}

ch_poly *poly_parse(const char *text, const char **why)
{
    pparser p = {text, 0, NULL};
    ch_poly *e = p_expr(&p);
    p_ws(&p);
    if (e && (e->overflow & POLY_OVERFLOW))
        p.why = "the arithmetic overflows 64 bits";
    else if (e && e->overflow)
        p.why = "the expression is too large (more than 1024 terms or 64 factors in a product)";
    if (e && (*p.s != '\0' || p.why)) {
        poly_free(e);
        e = NULL;
    }
    if (why)
        *why = e ? NULL : p.why;
    return e;
}

char *ch_poly_simplify(const char *expr)
{
    ch_poly *p = poly_parse(expr, NULL);
    if (!p)
        return NULL;
    char *s = poly_print(p);
    poly_free(p);
    return s;
}
