/* Testing at the constants (ch/verify.h): the sizes of a checklist are drawn without knowing
 * the code, so `if (n > 100000 && n % 7 == 3)` is right on all of them. The host subset's
 * magic-constant rule refuses comparisons that single out one value; what it lets through
 * (ordering against a threshold, residues modulo 3) is tested here at the threshold and next
 * to it, in the candidate's correctness stage. The constants are read from tokens, a first
 * filter that never refuses: a constant it misses is one the rule judged on the parsed code. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"
#include "ch/verify.h"

/* ---- tokens ---- */

typedef struct tok {
    char text[24]; /* an operator, a word, or a number's spelling (truncated) */
    int number;    /* an integer literal: value below */
    long long value;
} tok;

static const char *const ops[] = {"==", "!=", "<=", ">=", "<<", ">>", "&&", "||", NULL};

/* Names given a constant value (`#define BIG 100000000`, `static const int kBig = ...`,
 * `enum { BIG = ... }`, `constexpr int kBig{...}`): a comparison with the name is one with its
 * value. Read in a first pass, so a use before the definition counts too. */
#define MAX_NAMED 64
typedef struct named {
    size_t n;
    char name[MAX_NAMED][24];
    long long value[MAX_NAMED];
} named;

static const tok *named_value(const named *nm, tok *t)
{
    for (size_t i = 0; nm && i < nm->n; i++)
        if (strcmp(nm->name[i], t->text) == 0) {
            t->number = 1;
            t->value = nm->value[i];
            break;
        }
    return t;
}

/* Reads the token at p into t (a name of nm with a value reads as that number); returns where
 * it ends. */
static const char *next_tok(const char *p, tok *t, const named *nm)
{
    memset(t, 0, sizeof *t);
    const char *s = p;
    if (isdigit((unsigned char)*p)) {
        char *end = NULL;
        unsigned long long v = strtoull(p, &end, 0); /* 0x.., 0.., decimal */
        p = end;
        int fl = *p == '.' || *p == 'e' || *p == 'E';
        /* the rest of the spelling, an exponent's sign too (1.5e-3, 0x1p-60) */
        int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
               ((*p == '-' || *p == '+') && strchr(hex ? "pP" : "eE", p[-1])))
            p++;
        t->number = !fl && v <= (unsigned long long)1 << 62;
        t->value = (long long)v;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        size_t n = (size_t)(p - s) < sizeof t->text - 1 ? (size_t)(p - s) : sizeof t->text - 1;
        memcpy(t->text, s, n);
        named_value(nm, t);
        return p;
    } else {
        p++;
        for (size_t i = 0; ops[i]; i++)
            if (strncmp(s, ops[i], 2) == 0) {
                p = s + 2;
                break;
            }
    }
    size_t n = (size_t)(p - s) < sizeof t->text - 1 ? (size_t)(p - s) : sizeof t->text - 1;
    memcpy(t->text, s, n);
    return p;
}

/* Shifts the window w of n tokens (w[n - 1] the newest) by the next token of code at p, past
 * comments, literals and white space; returns where it ends, NULL at the end of the text. */
static const char *shift_tok(const char *p, tok *w, size_t n, const named *nm)
{
    while (p && *p) {
        const char *q = ch_c_skip_noncode(p);
        if (q == p && !isspace((unsigned char)*p))
            break;
        p = q != p ? q : p + 1;
    }
    if (!p || !*p)
        return NULL;
    memmove(w, w + 1, (n - 1) * sizeof *w);
    return next_tok(p, &w[n - 1], nm);
}

static int is(const tok *t, const char *s)
{
    return t && strcmp(t->text, s) == 0;
}

static int compares(const tok *t)
{
    return is(t, "==") || is(t, "!=") || is(t, "<") || is(t, ">") || is(t, "<=") || is(t, ">=") ||
           is(t, "case");
}

/* An operator whose right operand N is no constant compared but a part of a computation
 * (`n % 7 == 3` compares the remainder, not 7). */
static int arith(const tok *t)
{
    static const char *const a[] = {"%", "*", "/", "+", "-", "<<", ">>", "&", "|", "^", NULL};
    for (size_t i = 0; a[i]; i++)
        if (is(t, a[i]))
            return 1;
    return 0;
}

/* ---- harvesting ---- */

static void add_thr(ch_magic_consts *k, long long v)
{
    if (v < 2)
        return; /* 0 and 1 (and negatives): every checklist's small sizes reach them */
    for (size_t i = 0; i < k->n_thr; i++)
        if (k->thr[i] == v)
            return;
    if (k->n_thr < CH_MAGIC_MAX_CONSTS)
        k->thr[k->n_thr++] = v;
}

static void add_res(ch_magic_consts *k, long long m, long long r)
{
    if (m < 2 || (m & (m - 1)) == 0 || r < 0 || r >= m)
        return; /* powers of two: alignment, which the checklist's sizes vary */
    for (size_t i = 0; i < k->n_res; i++)
        if (k->res[i].m == m && k->res[i].r == r)
            return;
    if (k->n_res < CH_MAGIC_MAX_CONSTS)
        k->res[k->n_res++] = (ch_magic_residue){m, r};
}

static int is_word(const tok *t)
{
    return isalpha((unsigned char)t->text[0]) || t->text[0] == '_';
}

static void add_named(named *nm, const tok *name, const tok *value)
{
    if (nm->n < MAX_NAMED && is_word(name) && !name->number && value->number) {
        memcpy(nm->name[nm->n], name->text, sizeof nm->name[0]);
        nm->value[nm->n++] = value->value;
    }
}

/* The first pass: `define NAME N`, `NAME = N`, `NAME { N`, each with N in parentheses or not
 * (w[4] the newest of the last five tokens). */
static void harvest_names(const char *src, named *nm)
{
    tok w[5];
    memset(w, 0, sizeof w);
    for (const char *p = src; (p = shift_tok(p, w, 5, NULL));) {
        if (!w[4].number)
            continue;
        /* the two tokens before N (before its opening parenthesis, if any) */
        int paren = is(&w[3], "(");
        const tok *a = paren ? &w[1] : &w[2], *b = paren ? &w[2] : &w[3];
        if (is(b, "=") || is(b, "{"))
            add_named(nm, a, &w[4]); /* NAME = N, NAME { N */
        else if (is(a, "define"))
            add_named(nm, b, &w[4]); /* define NAME N */
    }
}

void ch_magic_harvest(const char *src, ch_magic_consts *k)
{
    named *nm = ch_xcalloc(1, sizeof *nm);
    harvest_names(src, nm);
    tok w[4]; /* the last four tokens, w[3] the newest */
    memset(w, 0, sizeof w);
    for (const char *p = src; (p = shift_tok(p, w, 4, nm));) {
        /* `X op N`, `case N`: a threshold N; `N op X`: one too */
        if (w[3].number && compares(&w[2]))
            add_thr(k, w[3].value);
        if (w[2].number && compares(&w[3]) && !is(&w[3], "case") && !arith(&w[1]))
            add_thr(k, w[2].value);
        /* `% M == R` / `% M != R` */
        if (w[3].number && w[1].number && is(&w[0], "%") && (is(&w[2], "==") || is(&w[2], "!=")))
            add_res(k, w[1].value, w[3].value);
    }
    free(nm);
}

/* attacks8 #49: `(n >> 21) ? 1 << 21 : n` singles out the sizes from 2^21 on without a
 * comparison. A reference's `X >> K` and `1 << K` are thresholds 2^K (candidates are not read
 * so: their shifts are mostly indexing, `tid >> 5`, and each threshold costs GPU runs). */
void ch_magic_harvest_shifts(const char *src, ch_magic_consts *k)
{
    named *nm = ch_xcalloc(1, sizeof *nm);
    harvest_names(src, nm);
    tok w[3]; /* w[2] the newest */
    memset(w, 0, sizeof w);
    for (const char *p = src; (p = shift_tok(p, w, 3, nm));) {
        int one_shl = w[0].number && w[0].value == 1 && is(&w[1], "<<");
        if (w[2].number && w[2].value >= 2 && w[2].value <= 40 && (is(&w[1], ">>") || one_shl))
            add_thr(k, 1LL << w[2].value);
    }
    free(nm);
}

/* ---- the values compared with ---- */

/* The tokens of a text in order, so that a comparison's operands are read on both sides. A
 * reference is a few hundred tokens; the bound keeps a huge text from taking memory. */
#define MAX_TOKENS (1u << 18)
typedef struct tok_list {
    tok *t;
    size_t n, cap;
} tok_list;

static void tokenize(const char *src, const named *nm, tok_list *l)
{
    tok w[1];
    for (const char *p = src; l->n < MAX_TOKENS && (p = shift_tok(p, w, 1, nm));) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 256;
            l->t = ch_xrealloc(l->t, l->cap * sizeof *l->t);
        }
        l->t[l->n++] = w[0];
    }
}

/* A literal, integer or floating, or a name with a constant integer value. */
static int literal_value(const tok *t, double *v)
{
    if (t->number) {
        *v = (double)t->value;
        return 1;
    }
    if (!isdigit((unsigned char)t->text[0]))
        return 0;
    *v = strtod(t->text, NULL); /* 50.0f, 1e-3, 0x1p4 */
    return 1;
}

/* A constant operand (`50.0f * 2`, `(LIMIT + 1) / 2`, `-1e3`): literals, + - * / and
 * parentheses over tokens [i, end), evaluated as C does; ok turns 0 at anything else. The
 * nesting is bounded, as the text is the model's. */
#define MAX_NESTING 16
typedef struct const_expr {
    const tok *t;
    size_t i, end;
    int ok, depth;
} const_expr;

static double ce_sum(const_expr *e);

static int ce_at(const const_expr *e, const char *op)
{
    return e->ok && e->i < e->end && is(&e->t[e->i], op);
}

static double ce_atom(const_expr *e)
{
    double v = 0;
    if (!e->ok || e->i >= e->end || e->depth >= MAX_NESTING) {
        e->ok = 0;
        return 0;
    }
    e->depth++;
    const tok *t = &e->t[e->i];
    if (is(t, "(")) {
        e->i++;
        v = ce_sum(e);
        if (ce_at(e, ")"))
            e->i++;
        else
            e->ok = 0;
    } else if (is(t, "-") || is(t, "+")) {
        e->i++;
        v = is(t, "-") ? -ce_atom(e) : ce_atom(e);
    } else if (literal_value(t, &v)) {
        e->i++;
    } else {
        e->ok = 0;
    }
    e->depth--;
    return v;
}

static double ce_product(const_expr *e)
{
    double v = ce_atom(e);
    while (ce_at(e, "*") || ce_at(e, "/")) {
        int times = is(&e->t[e->i++], "*");
        double r = ce_atom(e);
        v = times ? v * r : v / r;
    }
    return v;
}

static double ce_sum(const_expr *e)
{
    double v = ce_product(e);
    while (ce_at(e, "+") || ce_at(e, "-")) {
        int plus = is(&e->t[e->i++], "+");
        double r = ce_product(e);
        v = plus ? v + r : v - r;
    }
    return v;
}

/* The value of tokens [from, to) when they are one constant operand and nothing more. */
static int fold(const tok_list *l, size_t from, size_t to, double *v)
{
    const_expr e = {l->t, from, to, 1, 0};
    if (from >= to)
        return 0;
    *v = ce_sum(&e);
    return e.ok && e.i == to;
}

/* A token a constant operand may hold: a literal, an operator of const_expr, a parenthesis. */
static int in_constant(const tok *t)
{
    double v;
    return literal_value(t, &v) || is(t, "+") || is(t, "-") || is(t, "*") || is(t, "/") ||
           is(t, "(") || is(t, ")");
}

/* Where the constant operand right of the comparison at c ends: the first token that cannot
 * continue one (a parenthesis closes only what the operand opened). */
static size_t right_end(const tok_list *l, size_t c)
{
    size_t j = c + 1;
    int open = 0;
    for (; j < l->n; j++) {
        const tok *t = &l->t[j];
        if (is(t, "("))
            open++;
        else if ((is(t, ")") && open-- == 0) || !in_constant(t))
            break;
    }
    return j;
}

/* Where the constant operand left of the comparison at c starts. */
static size_t left_start(const tok_list *l, size_t c)
{
    size_t j = c;
    int closed = 0;
    for (; j > 0; j--) {
        const tok *t = &l->t[j - 1];
        if (is(t, ")"))
            closed++;
        else if ((is(t, "(") && closed-- == 0) || !in_constant(t))
            break;
    }
    return j;
}

static void add_value(double *out, size_t *n, size_t max, double v)
{
    int seen = v == 0 || v == 1 || !isfinite(v);
    for (size_t i = 0; i < *n && !seen; i++)
        seen = out[i] == v;
    if (!seen && *n < max)
        out[(*n)++] = v;
}

/* attacks7 #16 and attacks8 #48: a reference that leaves out the elements above a value no
 * range of the checklist reaches (`if (!(x[i] > 100.0f))`). The values beside a comparison,
 * integer or floating, spelled (`100.0f`, a name `#define`d to one) or computed from literals
 * (`50.0f * 2`, which reads as 100), are the values its inputs are then drawn at
 * (reference_agree.c). Where the operand is more than constants (`x < 5 - y`), its literal
 * next to the comparison is taken, as a guess that costs only a run. */
size_t ch_magic_values(const char *src, double *out, size_t max)
{
    named *nm = ch_xcalloc(1, sizeof *nm);
    harvest_names(src, nm);
    tok_list l = {NULL, 0, 0};
    tokenize(src, nm, &l);
    size_t n = 0;
    for (size_t c = 0; c < l.n; c++) {
        if (!compares(&l.t[c]) || is(&l.t[c], "case"))
            continue;
        double v;
        size_t end = right_end(&l, c), from = left_start(&l, c);
        if (fold(&l, c + 1, end, &v))
            add_value(out, &n, max, v);
        else if (c + 1 < l.n && literal_value(&l.t[c + 1], &v))
            add_value(out, &n, max, v);
        if (fold(&l, from, c, &v))
            add_value(out, &n, max, v);
        else if (c > 0 && literal_value(&l.t[c - 1], &v))
            add_value(out, &n, max, v);
    }
    free(l.t);
    free(nm);
    return n;
}

/* ---- sizes ---- */

static int same_size(const ch_ck_size *a, const ch_ck_size *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        long long v;
        if (ch_ck_size_get(b, a->names[i], &v) != 0 || v != a->values[i])
            return 0;
    }
    return 1;
}

typedef struct pick {
    const ch_checklist *c;
    double max_bytes;
    ch_ck_size *out;
    size_t n, max;
} pick;

/* Adds the first correctness size with name set to v, when new and within the bytes. */
static void try_size(pick *p, const char *name, long long v)
{
    if (p->n >= p->max || v < 1 || !p->c->n_correctness)
        return;
    ch_ck_size s = {0};
    ch_ck_size_copy(&s, &p->c->correctness[0]);
    ch_ck_size_set(&s, name, v);
    double b = ch_verify_set_bytes(p->c, &s);
    int fresh = b >= 0 && b <= p->max_bytes;
    for (size_t i = 0; fresh && i < p->c->n_correctness; i++)
        fresh = !same_size(&s, &p->c->correctness[i]);
    for (size_t i = 0; fresh && i < p->n; i++)
        fresh = !same_size(&s, &p->out[i]);
    if (fresh)
        p->out[p->n++] = s;
    else
        ch_ck_size_free(&s);
}

static int by_value_desc(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The value above t (below when below) nearest to it with residue r modulo m. */
static long long residue_near(long long t, ch_magic_residue r, int below)
{
    long long x = below ? t - 1 : t + 1;
    long long d = ((r.r - x % r.m) % r.m + r.m) % r.m;
    return below ? x - (d ? r.m - d : 0) : x + d;
}

size_t ch_magic_sizes(const ch_checklist *c, const ch_magic_consts *k, double max_bytes,
                      ch_ck_size *out, size_t max)
{
    pick p = {c, max_bytes, out, 0, max};
    long long thr[CH_MAGIC_MAX_CONSTS + 1];
    size_t nt = k->n_thr;
    memcpy(thr, k->thr, nt * sizeof *thr);
    qsort(thr, nt, sizeof *thr, by_value_desc);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *q = &c->params[i];
        long long base = 0;
        if (!ch_ck_param_is_size(q) || !c->n_correctness ||
            ch_ck_size_get(&c->correctness[0], q->name, &base) != 0)
            continue;
        /* a residue above and below each threshold, or beside the size itself without one */
        for (size_t r = 0; r < k->n_res; r++) {
            for (size_t j = 0; j < nt; j++) {
                try_size(&p, q->name, residue_near(thr[j], k->res[r], 0));
                try_size(&p, q->name, residue_near(thr[j], k->res[r], 1));
            }
            if (!nt)
                try_size(&p, q->name, residue_near(base, k->res[r], 0));
        }
        for (size_t j = 0; j < nt; j++) {
            try_size(&p, q->name, thr[j]);
            try_size(&p, q->name, thr[j] + 1);
            try_size(&p, q->name, thr[j] - 1);
        }
    }
    return p.n;
}
