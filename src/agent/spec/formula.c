/* The formula reading: an assignment written in the spec (`c[i] = a[i] + b[i]`,
 * `y = max(x, 0)`, `C[i][j] = sum_k A[i][k]*B[k][j]`, `r[0] = sum over i of x[i]`) and its
 * ranges in words (`for every i below n`, `for i from 0 to n-1`, `i < n`), or the extents of the
 * arrays it subscripts, become the reference's loop nest. Anything it cannot place (a word in
 * the middle of the expression, an index without a range) is refused, never guessed. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/types.h"
#include "spec.h"

enum { MAX_VARS = 8 };

typedef struct formula {
    const ch_entry *e;
    const char *text;     /* the spec with reductions spelled sum_k / max_k / min_k / mean_k */
    char *lhs;            /* as written */
    char *rhs;            /* as written, up to the first word that is not part of it */
    char *vars[MAX_VARS]; /* the LHS's index variables, outermost first */
    size_t n_vars;
    char red_op[8]; /* "sum", "max", "min", "mean" or "" */
    char *red_var;
    char *red_expr;
} formula;

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static const char *const functions[] = {"max",  "min", "sqrt", "exp", "log", "abs",  "fabs",
                                        "tanh", "sin", "cos",  "pow", "erf", "fmax", "fmin"};

static int is_function(const char *w, size_t len)
{
    for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
        if (strlen(functions[i]) == len && strncmp(functions[i], w, len) == 0)
            return 1;
    return 0;
}

/* Words that may follow the expression (its range or a remark), so that stopping there reads
 * the whole formula. Any other word inside the expression makes it unreadable. */
static const char *const trailers[] = {
    "for", "where", "with",   "when", "over", "each", "every",  "elementwise", "in", "and",  "all",
    "i",   "e",     "across", "from", "on",   "per",  "forall", "as",          "to", "into", "is"};

static int is_trailer(const char *w, size_t len)
{
    for (size_t i = 0; i < sizeof trailers / sizeof *trailers; i++)
        if (strlen(trailers[i]) == len && strncmp(trailers[i], w, len) == 0)
            return 1;
    return 0;
}

static int is_var(const formula *f, const char *w, size_t len)
{
    for (size_t i = 0; i < f->n_vars; i++)
        if (strlen(f->vars[i]) == len && strncmp(f->vars[i], w, len) == 0)
            return 1;
    return f->red_var && strlen(f->red_var) == len && strncmp(f->red_var, w, len) == 0;
}

static const ch_param *param_n(const ch_entry *e, const char *w, size_t len)
{
    char *name = ch_xstrndup(w, len);
    const ch_param *p = spec_param(e, name);
    free(name);
    return p;
}

/* Rewrites Σ_k / Σk / "sum over k of" / "sum_{k}" / "max over k of" ... as op_k. */
static char *normalise_reductions(const char *spec)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    static const char *const ops[] = {"sum", "max", "min", "mean"};
    for (const char *p = spec; *p;) {
        if ((unsigned char)p[0] == 0xCE && (unsigned char)p[1] == 0xA3) { /* Σ */
            ch_strbuf_adds(&sb, "sum_");
            p += 2;
            while (*p == '_' || *p == '{' || *p == ' ')
                p++;
            while (is_ident_char(*p))
                ch_strbuf_addc(&sb, *p++);
            if (*p == '}')
                p++;
            ch_strbuf_addc(&sb, ' ');
            continue;
        }
        int done = 0;
        for (size_t o = 0; o < 4 && !done; o++) {
            size_t ol = strlen(ops[o]);
            if ((p != spec && is_ident_char(p[-1])) || strncmp(p, ops[o], ol) != 0)
                continue;
            const char *q = p + ol;
            char var[32];
            int used = 0;
            if (strncmp(q, "_{", 2) == 0 && sscanf(q + 2, "%31[a-z]}%n", var, &used) == 1 &&
                used > 0) {
                ch_strbuf_addf(&sb, "%s_%s ", ops[o], var);
                p = q + 2 + used;
                done = 1;
            } else if (sscanf(q, " over %31[a-z] of%n", var, &used) == 1 && used > 0 &&
                       !is_ident_char(q[used])) {
                ch_strbuf_addf(&sb, "%s_%s ", ops[o], var);
                p = q + used;
                done = 1;
            }
        }
        if (!done)
            ch_strbuf_addc(&sb, *p++);
    }
    return ch_strbuf_detach(&sb);
}

/* Finds the assignment's `=`: not part of ==, <=, >=, !=. */
static const char *find_assign(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p == '=' && p[1] != '=' && (p == s || !strchr("=<>!+-*/", p[-1])))
            return p;
    return NULL;
}

/* LHS: the identifier and its subscripts just before `=`. */
static int read_lhs(formula *f, const char *eq, ch_error *err)
{
    const char *end = eq;
    while (end > f->text && end[-1] == ' ')
        end--;
    const char *p = end;
    while (p > f->text && p[-1] == ']') {
        int depth = 0;
        do {
            p--;
            depth += *p == ']' ? 1 : *p == '[' ? -1 : 0;
        } while (p > f->text && depth > 0);
        while (p > f->text && p[-1] == ' ')
            p--;
    }
    const char *name_end = p;
    while (p > f->text && is_ident_char(p[-1]))
        p--;
    if (p == name_end || !param_n(f->e, p, (size_t)(name_end - p)))
        return 1; /* not an assignment to a parameter: no formula */
    f->lhs = ch_xstrndup(p, (size_t)(end - p));
    for (const char *s = name_end; s < end; s++) {
        if (!is_ident_start(*s) || is_ident_char(s[-1]))
            continue;
        size_t len = 1;
        while (is_ident_char(s[len]))
            len++;
        if (!param_n(f->e, s, len) && !is_var(f, s, len)) {
            if (f->n_vars == MAX_VARS)
                return ch_error_set(err, "too many index variables in %s", f->lhs);
            f->vars[f->n_vars++] = ch_xstrndup(s, len);
        }
        s += len - 1;
    }
    return 0;
}

/* RHS: from `=` to the first word that cannot be part of it. */
static int read_rhs(formula *f, const char *eq, ch_error *err)
{
    const char *p = eq + 1, *last = p;
    int depth = 0, operand = 0; /* operand: the last token ends an operand */
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (is_ident_start(*p)) {
            size_t len = 1;
            while (is_ident_char(p[len]))
                len++;
            int red = 0;
            for (const char *o = "sum\0max\0min\0mean\0"; *o; o += strlen(o) + 1)
                if (strncmp(p, o, strlen(o)) == 0 && p[strlen(o)] == '_' && len > strlen(o) + 1)
                    red = 1;
            if (red) {
                if (f->red_var)
                    return ch_error_set(err, "one reduction per formula is read without a model");
                size_t ol = (size_t)(strchr(p, '_') - p);
                snprintf(f->red_op, sizeof f->red_op, "%.*s", (int)ol, p);
                f->red_var = ch_xstrndup(p + ol + 1, len - ol - 1);
            } else if (!param_n(f->e, p, len) && !is_var(f, p, len) && !is_function(p, len)) {
                if (depth == 0 && is_trailer(p, len))
                    break;
                return ch_error_set(err,
                                    "the word '%.*s' in the formula is neither a parameter, "
                                    "an index nor a function the builtin knows",
                                    (int)len, p);
            }
            if (operand && !red && !is_function(p, len))
                return ch_error_set(err, "two operands without an operator before '%.*s'", (int)len,
                                    p);
            operand = !red && !is_function(p, len);
            p += len;
            last = p;
            continue;
        }
        if (isdigit((unsigned char)*p) || *p == '.') {
            if (operand)
                return ch_error_set(err, "two operands without an operator");
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
            operand = 1;
            last = p;
            continue;
        }
        operand = *p == ')' || *p == ']';
        if (!strchr("+-*/()[],<>?:%", *p))
            break;
        if (*p == ',' && depth == 0)
            break;
        depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
        if (depth < 0)
            return ch_error_set(err, "unbalanced parentheses in the formula");
        p++;
        last = p;
    }
    if (depth != 0)
        return ch_error_set(err, "unbalanced parentheses in the formula");
    const char *start = eq + 1 + strspn(eq + 1, " ");
    f->rhs = ch_xstrndup(start, last > start ? (size_t)(last - start) : 0);
    size_t len = strlen(f->rhs);
    while (len && (f->rhs[len - 1] == ' '))
        f->rhs[--len] = '\0';
    if (!len || strchr("+-*/(<>?:%", f->rhs[len - 1]))
        return ch_error_set(err, "the formula's right-hand side is incomplete");
    return 0;
}

/* The top-level factors of an extent "m * k" (at most 2), or 1 when it has no product. */
/* The extent as the user wrote it in extent(): the entry's own is canonicalised (factors
 * sorted), which loses which factor is the row length. */
static const char *written_extent(const ch_entry *e, const ch_param *p)
{
    for (size_t i = 0; i < e->clauses.n_extents; i++)
        if (strcmp(e->clauses.extents[i].name, p->name) == 0)
            return e->clauses.extents[i].expr;
    return p->extent;
}

static size_t extent_dims(const ch_entry *e, const ch_param *p, char dims[2][128])
{
    if (p->ndims >= 1 && p->role == CH_ROLE_ARRAY) {
        for (size_t d = 0; d < p->ndims && d < 2; d++)
            snprintf(dims[d], sizeof dims[d], "%s", p->dims[d]);
        return p->ndims;
    }
    const char *x = written_extent(e, p) ? written_extent(e, p) : "";
    const char *star = strchr(x, '*');
    if (!star || strchr(star + 1, '*') || strchr(x, '(')) {
        snprintf(dims[0], sizeof dims[0], "%s", x);
        return 1;
    }
    snprintf(dims[0], sizeof dims[0], "%.*s", (int)(star - x), x);
    snprintf(dims[1], sizeof dims[1], "%s", star + 1);
    for (int d = 0; d < 2; d++) { /* trim */
        char *s = dims[d];
        while (*s == ' ')
            memmove(s, s + 1, strlen(s));
        size_t l = strlen(s);
        while (l && s[l - 1] == ' ')
            s[--l] = '\0';
    }
    return 2;
}

/* Copies expr, flattening `P[a][b]` of pointer parameters with an m*n extent to P[(a)*(n)+(b)],
 * indexing bare pointer parameters with [elem] when elem is set, and spelling functions for the
 * element type. */
static int rewrite(const formula *f, const char *expr, const char *elem, ch_strbuf *out,
                   ch_error *err)
{
    const char *sfx = spec_elem_type(f->e) == CH_T_FLOAT ? "f" : "";
    for (const char *p = expr; *p;) {
        if (!is_ident_start(*p) || (p > expr && is_ident_char(p[-1]))) {
            ch_strbuf_addc(out, *p++);
            continue;
        }
        size_t len = 1;
        while (is_ident_char(p[len]))
            len++;
        const ch_param *prm = param_n(f->e, p, len);
        if (is_function(p, len)) {
            const char *fn = strncmp(p, "max", len) == 0 || strncmp(p, "fmax", len) == 0   ? "fmax"
                             : strncmp(p, "min", len) == 0 || strncmp(p, "fmin", len) == 0 ? "fmin"
                             : strncmp(p, "abs", len) == 0 || strncmp(p, "fabs", len) == 0 ? "fabs"
                                                                                           : NULL;
            ch_strbuf_addf(out, "%s%s", fn ? fn : "", sfx);
            if (!fn) {
                out->len -= strlen(sfx);
                ch_strbuf_addf(out, "%.*s%s", (int)len, p, sfx);
            }
            p += len;
            continue;
        }
        ch_strbuf_add(out, p, len);
        p += len;
        if (!prm || prm->role == CH_ROLE_SCALAR)
            continue;
        const char *q = p;
        while (*q == ' ')
            q++;
        if (*q != '[') {
            if (!elem)
                return ch_error_set(err, "the array %s is used without a subscript", prm->name);
            ch_strbuf_addf(out, "[%s]", elem);
            continue;
        }
        /* subscripts */
        char subs[2][256];
        size_t n = 0;
        while (*q == '[') {
            int depth = 0;
            const char *s = q;
            do {
                depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
                q++;
            } while (*q && depth > 0);
            if (n == 2)
                return ch_error_set(err, "%s has more than two subscripts", prm->name);
            snprintf(subs[n++], sizeof subs[0], "%.*s", (int)(q - s - 2), s + 1);
            while (*q == ' ' && q[1] == '[')
                q++;
        }
        char dims[2][128];
        size_t nd = extent_dims(f->e, prm, dims);
        ch_strbuf sub;
        ch_strbuf_init(&sub);
        int rc = 0;
        for (size_t k = 0; k < n && rc == 0; k++) {
            ch_strbuf inner;
            ch_strbuf_init(&inner);
            rc = rewrite(f, subs[k], NULL, &inner, err);
            if (n == 2 && prm->role != CH_ROLE_ARRAY)
                ch_strbuf_addf(&sub, k == 0 ? "(%s) * (%s)" : " + (%s)", inner.data, dims[1]);
            else
                ch_strbuf_addf(&sub, "[%s]", inner.data);
            ch_strbuf_free(&inner);
        }
        if (rc == 0 && n == 2 && prm->role != CH_ROLE_ARRAY && nd != 2)
            rc = ch_error_set(err,
                              "%s is subscripted twice but its extent (%s) is not rows * "
                              "columns",
                              prm->name, prm->extent ? prm->extent : "?");
        if (rc == 0) {
            if (n == 2 && prm->role != CH_ROLE_ARRAY) {
                /* sub holds "(a) * (m) + (b)": fix the order: a * n + b */
                ch_strbuf_reset(&sub);
                ch_strbuf inner0, inner1;
                ch_strbuf_init(&inner0);
                ch_strbuf_init(&inner1);
                rewrite(f, subs[0], NULL, &inner0, err);
                rewrite(f, subs[1], NULL, &inner1, err);
                ch_strbuf_addf(out, "[(%s) * (%s) + (%s)]", inner0.data, dims[1], inner1.data);
                ch_strbuf_free(&inner0);
                ch_strbuf_free(&inner1);
            } else {
                ch_strbuf_adds(out, sub.data);
            }
        }
        ch_strbuf_free(&sub);
        if (rc)
            return rc;
        p = q;
    }
    return 0;
}

/* The range of v from the words: "v below N", "v < N", "v less than N", "v from A to B"
 * (inclusive), "v in [A, N)", "v = 0..N-1". Sets lo/hi (exclusive) and returns 0, or 1. */
static int range_from_words(const char *text, const char *v, char *lo, char *hi, size_t cap)
{
    size_t vl = strlen(v);
    for (const char *p = strstr(text, v); p; p = strstr(p + 1, v)) {
        if ((p > text && is_ident_char(p[-1])) || is_ident_char(p[vl]))
            continue;
        const char *q = p + vl;
        char a[64], b[64];
        int used = 0;
        if ((sscanf(q, " below %63[A-Za-z0-9_+*/-]%n", b, &used) == 1 ||
             sscanf(q, " < %63[A-Za-z0-9_+*/-]%n", b, &used) == 1 ||
             sscanf(q, " less than %63[A-Za-z0-9_+*/-]%n", b, &used) == 1 ||
             sscanf(q, " up to but not including %63[A-Za-z0-9_+*/-]%n", b, &used) == 1) &&
            used) {
            snprintf(lo, cap, "0");
            snprintf(hi, cap, "%s", b);
            return 0;
        }
        if ((sscanf(q, " from %63[A-Za-z0-9_] to %63[A-Za-z0-9_+*/-]%n", a, b, &used) == 2 ||
             sscanf(q, " = %63[A-Za-z0-9_] .. %63[A-Za-z0-9_+*/-]%n", a, b, &used) == 2 ||
             sscanf(q, " = %63[A-Za-z0-9_]..%63[A-Za-z0-9_+*/-]%n", a, b, &used) == 2) &&
            used) {
            snprintf(lo, cap, "%s", a);
            size_t bl = strlen(b);
            if (bl > 2 && strcmp(b + bl - 2, "-1") == 0)
                snprintf(hi, cap, "%.*s", (int)(bl - 2), b);
            else
                snprintf(hi, cap, "%s + 1", b);
            return 0;
        }
        if (sscanf(q, " in [%63[A-Za-z0-9_] , %63[A-Za-z0-9_+*/-])%n", a, b, &used) == 2 ||
            sscanf(q, " in [%63[A-Za-z0-9_], %63[A-Za-z0-9_+*/-])%n", a, b, &used) == 2) {
            snprintf(lo, cap, "%s", a);
            snprintf(hi, cap, "%s", b);
            return 0;
        }
    }
    return 1;
}

/* The range of v from the extent of an array it subscripts alone (position d of a 2-D one). */
static int range_from_extents(const formula *f, const char *v, char *hi, size_t cap)
{
    const char *exprs[2] = {f->lhs, f->red_expr ? f->red_expr : f->rhs};
    for (int x = 0; x < 2; x++) {
        const char *s = exprs[x];
        for (size_t i = 0; i < f->e->n_params; i++) {
            const ch_param *p = &f->e->params[i];
            if (p->role == CH_ROLE_SCALAR)
                continue;
            size_t pl = strlen(p->name);
            for (const char *at = strstr(s, p->name); at; at = strstr(at + 1, p->name)) {
                if ((at > s && is_ident_char(at[-1])) || at[pl] != '[')
                    continue;
                char dims[2][128];
                size_t nd = extent_dims(f->e, p, dims);
                const char *q = at + pl;
                for (size_t d = 0; *q == '[' && d < 2; d++) {
                    const char *close = strchr(q, ']');
                    if (!close)
                        break;
                    char sub[64];
                    snprintf(sub, sizeof sub, "%.*s", (int)(close - q - 1), q + 1);
                    if (strcmp(sub, v) == 0) {
                        size_t twod = 0;
                        for (const char *r = close + 1; *r == '['; r = strchr(r, ']') + 1)
                            twod = 1;
                        size_t which = (d == 0 && (twod || nd == 1)) ? 0 : 1;
                        if (d == 0 && !twod && nd == 2)
                            break; /* A[i] of a 2-D extent: not a row count */
                        if (which < nd && dims[which][0]) {
                            snprintf(hi, cap, "%s", dims[which]);
                            return 0;
                        }
                    }
                    q = close + 1;
                }
            }
        }
    }
    return 1;
}

/* The array parameter whose subscript opens at `open` (a `[` in expr): the identifier before it,
 * past the first subscript of a 2-D access. NULL when it is not a parameter. */
static const ch_param *array_at(const formula *f, const char *expr, const char *open)
{
    const char *end = open;
    if (end > expr && end[-1] == ']') { /* the second subscript: back over the first */
        int depth = 0;
        for (end--; end > expr; end--) {
            if (*end == ']')
                depth++;
            else if (*end == '[' && --depth == 0)
                break;
        }
    }
    const char *name = end;
    while (name > expr && is_ident_char(name[-1]))
        name--;
    return name < end ? param_n(f->e, name, (size_t)(end - name)) : NULL;
}

/* 1 when `P[v+c]` may pass the end of P: its extent is the range's bound `hi` (or unknown). An
 * array longer than the range (`p[i+1]` with extent n+1 over i < n) holds the neighbour. */
static int may_pass_end(const formula *f, const ch_param *p, const char *hi)
{
    if (!p || !hi || !hi[0])
        return 1;
    char dims[2][128];
    size_t nd = extent_dims(f->e, p, dims);
    for (size_t d = 0; d < nd && d < 2; d++)
        if (!dims[d][0] || strcmp(dims[d], hi) == 0)
            return 1;
    return 0;
}

/* The largest constant offsets below and above v among the subscripts of the formula
 * (`a[i-1]`, `a[i + 2][j]`): a range taken from an extent (its bound hi) is only valid without
 * them. Every `v-c` counts (the range starts at 0); `v+c` only on arrays that end at hi. */
static void offsets_of(const formula *f, const char *v, const char *hi, long *below, long *above)
{
    *below = *above = 0;
    const char *exprs[3] = {f->lhs, f->rhs, f->red_expr};
    size_t vl = strlen(v);
    for (int x = 0; x < 3; x++) {
        for (const char *s = exprs[x] ? strchr(exprs[x], '[') : NULL; s; s = strchr(s + 1, '[')) {
            const char *q = s + 1 + strspn(s + 1, " ");
            if (strncmp(q, v, vl) != 0 || is_ident_char(q[vl]))
                continue;
            q += vl;
            q += strspn(q, " ");
            char sign = *q;
            if (sign != '+' && sign != '-')
                continue;
            q++;
            char *end;
            long c = strtol(q, &end, 10);
            end += strspn(end, " ");
            if (end == q || *end != ']')
                continue;
            if (sign == '-' && c > *below)
                *below = c;
            if (sign == '+' && c > *above && may_pass_end(f, array_at(f, exprs[x], s), hi))
                *above = c;
        }
    }
}

/* A range from an extent covers the whole array; neighbours (`a[i-1]`, `a[i+1]`) read past it at
 * the border unless the words say the nest runs over the interior, which shrinks the range by
 * the offsets. Without those words it is refused: a guessed range is a wrong reference. */
static int fit_neighbours(const formula *f, const char *v, char *lo, char *hi, size_t cap,
                          ch_error *err)
{
    long below, above;
    offsets_of(f, v, hi, &below, &above);
    if (!below && !above)
        return 0;
    if (!strstr(f->text, "interior"))
        return ch_error_set(err,
                            "the formula reads neighbours of %s (%s-%ld .. %s+%ld), outside the "
                            "arrays at the border; say `for the interior` (the border is left "
                            "unchanged) or give the range (`for every %s from %ld to N-%ld`)",
                            v, v, below, v, above, v, below ? below : 1, above ? above + 1 : 1);
    snprintf(lo, cap, "%ld", below);
    if (above) {
        char *whole = ch_xasprintf("(%s) - %ld", hi, above);
        snprintf(hi, cap, "%s", whole);
        free(whole);
    }
    return 0;
}

/* The range of v: from the words, else from an extent (shrunk to the interior when the words
 * say so). 0 when found, 1 when not said, -1 (err set) when an extent's range cannot hold. */
static int range_of(const formula *f, const char *v, char *lo, char *hi, size_t cap, ch_error *err)
{
    if (range_from_words(f->text, v, lo, hi, cap) == 0)
        return 0;
    snprintf(lo, cap, "0");
    if (range_from_extents(f, v, hi, cap) != 0)
        return 1;
    return fit_neighbours(f, v, lo, hi, cap, err);
}

static void formula_free(formula *f)
{
    free(f->lhs);
    free(f->rhs);
    for (size_t i = 0; i < f->n_vars; i++)
        free(f->vars[i]);
    free(f->red_var);
    free(f->red_expr);
}

static int emit(formula *f, char **body, ch_error *err)
{
    const ch_param *target = NULL;
    {
        size_t len = 0;
        while (is_ident_char(f->lhs[len]))
            len++;
        target = param_n(f->e, f->lhs, len);
    }
    int implicit = target->role != CH_ROLE_SCALAR && !strchr(f->lhs, '[');
    if (implicit) {
        if (f->n_vars)
            return ch_error_set(err, "mixed subscripts");
        f->vars[f->n_vars++] = ch_xstrdup("i");
        if (!target->extent)
            return ch_error_set(err, "the extent of %s is unknown", target->name);
    }
    if (target->role == CH_ROLE_SCALAR)
        return ch_error_set(err,
                            "%s is passed by value: assigning it changes nothing the caller "
                            "sees",
                            target->name);
    if (f->red_var) {
        const char *at = strstr(f->rhs, f->red_op);
        const char *sp = at ? strchr(at, ' ') : NULL;
        if (!at || at != f->rhs + strspn(f->rhs, " ") || !sp)
            return ch_error_set(err, "a reduction is read only as the whole right-hand side");
        f->red_expr = ch_xstrdup(sp + 1);
    }
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "{\n");
    int depth = 1, rc = 0;
    for (size_t i = 0; i < f->n_vars && rc == 0; i++) {
        char lo[128], hi[128];
        if (implicit) {
            snprintf(lo, sizeof lo, "0");
            snprintf(hi, sizeof hi, "%s", target->extent);
        } else if ((rc = range_of(f, f->vars[i], lo, hi, sizeof lo, err)) != 0) {
            if (rc > 0)
                rc = ch_error_set(err, "the range of %s is not said (write `for every %s below N`)",
                                  f->vars[i], f->vars[i]);
            break;
        }
        ch_strbuf_addf(&sb, "%*sfor (long %s = %s; %s < %s; %s++)\n", 4 * depth, "", f->vars[i], lo,
                       f->vars[i], hi, f->vars[i]);
        depth++;
    }
    ch_strbuf lhs, rhs;
    ch_strbuf_init(&lhs);
    ch_strbuf_init(&rhs);
    const char *elem = implicit ? "i" : NULL;
    if (rc == 0)
        rc = rewrite(f, f->lhs, elem, &lhs, err);
    if (rc == 0)
        rc = rewrite(f, f->red_expr ? f->red_expr : f->rhs, elem, &rhs, err);
    if (rc == 0 && f->red_var) {
        char lo[128], hi[128];
        if ((rc = range_of(f, f->red_var, lo, hi, sizeof lo, err)) != 0) {
            if (rc > 0)
                rc = ch_error_set(err, "the range of %s is not said (write `for every %s below N`)",
                                  f->red_var, f->red_var);
        } else {
            int mean = strcmp(f->red_op, "mean") == 0;
            int sum = mean || strcmp(f->red_op, "sum") == 0;
            int ind = 4 * depth;
            ch_strbuf_addf(&sb, "%*s{\n", ind - 4 + 4 * (depth > 1 ? 0 : 1) - 0, "");
            /* max/min start from the first term (not HUGE_VAL: the translator takes its
             * expansion for a call) */
            ch_strbuf_addf(&sb, "%*sdouble acc = 0;\n", ind, "");
            ch_strbuf_addf(&sb, "%*sfor (long %s = %s; %s < %s; %s++) {\n", ind, "", f->red_var, lo,
                           f->red_var, hi, f->red_var);
            if (sum)
                ch_strbuf_addf(&sb, "%*sacc += %s;\n", ind + 4, "", rhs.data);
            else
                ch_strbuf_addf(&sb,
                               "%*sdouble v = %s;\n%*sif (%s == %s || v %s acc)\n%*sacc = v;\n",
                               ind + 4, "", rhs.data, ind + 4, "", f->red_var, lo,
                               strcmp(f->red_op, "max") == 0 ? ">" : "<", ind + 8, "");
            ch_strbuf_addf(&sb, "%*s}\n", ind, "");
            ch_strbuf_addf(&sb, "%*s%s = acc%s%s%s;\n", ind, "", lhs.data, mean ? " / (" : "",
                           mean ? hi : "", mean ? ")" : "");
            ch_strbuf_addf(&sb, "%*s}\n", ind - 4 + 4 * (depth > 1 ? 0 : 1) - 0, "");
        }
    } else if (rc == 0) {
        ch_strbuf_addf(&sb, "%*s%s = %s;\n", 4 * depth, "", lhs.data, rhs.data);
    }
    ch_strbuf_adds(&sb, "}\n");
    ch_strbuf_free(&lhs);
    ch_strbuf_free(&rhs);
    if (rc) {
        ch_strbuf_free(&sb);
        return rc;
    }
    *body = ch_strbuf_detach(&sb);
    return 0;
}

int spec_read_formula(const ch_entry *e, char **body, char **how, ch_error *err)
{
    char *text = normalise_reductions(e->spec ? e->spec : "");
    const char *eq = find_assign(text);
    if (!eq) {
        free(text);
        return 1;
    }
    formula f;
    memset(&f, 0, sizeof f);
    f.e = e;
    f.text = text;
    ch_error why;
    ch_error_clear(&why);
    int rc = read_lhs(&f, eq, &why);
    if (rc == 0)
        rc = read_rhs(&f, eq, &why);
    if (rc == 0)
        rc = emit(&f, body, &why);
    if (rc == 0)
        *how = ch_xasprintf("formula: %s = %s", f.lhs, f.rhs);
    else if (rc < 0)
        ch_error_at(err, e->file, e->line, e->col,
                    "%s: the formula in \"%s\" cannot be read without a model: %s (understood: "
                    "%s = %s); write it as `out[i] = expression for every i below n` or "
                    "configure an LLM provider (CH_CC_PROVIDER, CH_CC_MODEL)",
                    e->name, e->spec, why.msg, f.lhs ? f.lhs : "?", f.rhs ? f.rhs : "?");
    formula_free(&f);
    free(text);
    return rc;
}
