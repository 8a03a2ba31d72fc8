/* The compile-cost rule of the static check (attacks8 #21): a candidate whose `#pragma unroll`
 * loops would make nvcc copy a body millions of times is refused before stage 1 runs. Such a
 * loop can sit on a path no input takes, so no test tells it from an honest kernel, while
 * cicc and ptxas spend minutes and gigabytes on it: a reply of a kilobyte would cost the build
 * a stage-1 time limit, every time it is proposed. Honest kernels unroll register tiles and
 * short reductions: hundreds or a few thousand copies in a function.
 *
 * What is counted: each `for` loop that a `#pragma unroll [N]` (or `_Pragma("unroll ...")`)
 * precedes is copied min(N, trip count) times, or its trip count times without N; the trip count
 * is known where the loop's start, bound and step are constants (literals, macros, constexpr
 * variables: what libclang evaluates), else the loop counts once (nvcc cannot unroll it in
 * full either). Copies multiply through nested unrolled loops and add up over a function.
 * N is read from the pragma's text: literals, the file's own object-like macros and constant
 * variables, with + - * / % << >> and parentheses; an N that cannot be read counts as the trip
 * count, or once.
 *
 * libclang (14) does not visit the loop under `#pragma unroll MACRO` (nor under `#pragma GCC
 * unroll` or `#pragma unroll_and_jam` with one): the attribute's argument comes from the
 * macro's definition, and the visitor prunes the statement whose range it then misjudges, with
 * every rule's view of the loop's body. So the text the static check parses has the arguments
 * of these hints blanked (ch_subset_parse_text, columns and lines kept), and nvcc's counts are read
 * here from the original text. */
#include <clang-c/Index.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_subset_internal.h"

/* The most copies of loop bodies one function may unroll into. A 8x8 register tile under a
 * 32-step unrolled k loop is 2048; the attack that set this bound unrolled 4 million. */
#define UNROLL_MAX_COPIES 65536.0

/* Values are kept as doubles clamped here: a bound needs no more, and no arithmetic on a
 * hostile count overflows. */
#define VALUE_CAP 1e15

typedef struct pragma_site {
    unsigned line;
    int has_count; /* a count follows `unroll` */
    double count;  /* its value, or -1 when it could not be read */
} pragma_site;

typedef struct unroll_ctx {
    subset_ctx *x;
    CXToken *toks;
    unsigned n_toks;
    pragma_site *sites;
    size_t n_sites;
} unroll_ctx;

static unsigned token_line(const unroll_ctx *u, unsigned i)
{
    unsigned line = 0;
    clang_getSpellingLocation(clang_getTokenLocation(u->x->tu, u->toks[i]), NULL, &line, NULL,
                              NULL);
    return line;
}

static char *token_text(const unroll_ctx *u, unsigned i)
{
    return hs_str_of(clang_getTokenSpelling(u->x->tu, u->toks[i]));
}

static int token_is(const unroll_ctx *u, unsigned i, const char *s)
{
    if (i >= u->n_toks)
        return 0;
    char *t = token_text(u, i);
    int same = strcmp(t, s) == 0;
    free(t);
    return same;
}

static double clamp(double v)
{
    return isnan(v) ? VALUE_CAP : v > VALUE_CAP ? VALUE_CAP : v < -VALUE_CAP ? -VALUE_CAP : v;
}

/* ---- reading a count: a small expression over tokens ---- */

typedef struct expr_in {
    const unroll_ctx *u;
    char **t; /* the spellings */
    size_t n, at;
    int depth; /* macro expansions and parentheses: a hostile chain ends here */
    int bad;
} expr_in;

static double parse_shift(expr_in *e);

/* The value of an object-like macro NAME the file defines (`#define NAME tokens` on one line),
 * or of a constant variable NAME libclang evaluates; NAN when neither. */
static double named_value(expr_in *e, const char *name);

static double parse_primary(expr_in *e)
{
    if (e->at >= e->n || ++e->depth > 64) {
        e->bad = 1;
        return 0;
    }
    const char *s = e->t[e->at++];
    double v = 0;
    if (strcmp(s, "(") == 0) {
        v = parse_shift(e);
        if (e->at < e->n && strcmp(e->t[e->at], ")") == 0)
            e->at++;
        else
            e->bad = 1;
    } else if (strcmp(s, "-") == 0 || strcmp(s, "+") == 0) {
        v = parse_primary(e) * (*s == '-' ? -1 : 1);
    } else if (s[0] >= '0' && s[0] <= '9') {
        char *end;
        v = (double)strtoull(s, &end, 0);
        if (strspn(end, "uUlL") != strlen(end))
            e->bad = 1;
    } else if ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_') {
        v = named_value(e, s);
        if (isnan(v))
            e->bad = 1;
    } else {
        e->bad = 1;
    }
    e->depth--;
    return clamp(v);
}

static double parse_mul(expr_in *e)
{
    double v = parse_primary(e);
    while (!e->bad && e->at < e->n && strchr("*/%", e->t[e->at][0]) && !e->t[e->at][1]) {
        char op = e->t[e->at++][0];
        double r = parse_primary(e);
        if (op != '*' && r == 0) {
            e->bad = 1;
            return 0;
        }
        v = clamp(op == '*' ? v * r : op == '/' ? trunc(v / r) : fmod(v, r));
    }
    return v;
}

static double parse_add(expr_in *e)
{
    double v = parse_mul(e);
    while (!e->bad && e->at < e->n && strchr("+-", e->t[e->at][0]) && !e->t[e->at][1]) {
        char op = e->t[e->at++][0];
        v = clamp(op == '+' ? v + parse_mul(e) : v - parse_mul(e));
    }
    return v;
}

static double parse_shift(expr_in *e)
{
    double v = parse_add(e);
    while (!e->bad && e->at < e->n &&
           (strcmp(e->t[e->at], "<<") == 0 || strcmp(e->t[e->at], ">>") == 0)) {
        int left = e->t[e->at++][0] == '<';
        double r = parse_add(e);
        double p = ldexp(1.0, (int)(r < 0 ? 0 : r > 60 ? 60 : r));
        v = clamp(left ? v * p : trunc(v / p));
    }
    return v;
}

/* The value of the n spellings t (freed here), NAN when they are no constant read here. */
static double eval_spellings(const unroll_ctx *u, char **t, size_t n, int depth)
{
    expr_in e = {u, t, n, 0, depth, 0};
    double v = n && depth <= 8 ? parse_shift(&e) : NAN;
    int ok = !e.bad && e.at == e.n && n && depth <= 8;
    for (size_t i = 0; i < n; i++)
        free(t[i]);
    free(t);
    return ok ? v : NAN;
}

/* The value of the tokens [from, to) of the file (a macro's body). */
static double eval_tokens(const unroll_ctx *u, unsigned from, unsigned to, int depth)
{
    if (from >= to)
        return NAN;
    char **t = calloc(to - from, sizeof(char *));
    for (unsigned i = from; i < to; i++)
        t[i - from] = token_text(u, i);
    return eval_spellings(u, t, to - from, depth);
}

/* The spellings of a count's text [p, end): names, numbers, << >> and single characters, up to
 * a comment. */
static double eval_text(const unroll_ctx *u, const char *p, const char *end)
{
    size_t n = 0, cap = 8;
    char **t = malloc(cap * sizeof *t);
    while (t && p < end) {
        if (*p == ' ' || *p == '\t' || *p == '\\' || *p == '\n' || *p == '\r') {
            p++;
            continue;
        }
        if (*p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*'))
            break;
        const char *q = p + 1;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
            (*p >= '0' && *p <= '9'))
            while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
                               (*q >= '0' && *q <= '9')))
                q++;
        else if ((*p == '<' || *p == '>') && q < end && *q == *p)
            q++;
        if (n == cap)
            t = realloc(t, (cap *= 2) * sizeof *t);
        if (t)
            t[n++] = ch_xstrndup(p, (size_t)(q - p));
        p = q;
    }
    if (!t)
        abort();
    return eval_spellings(u, t, n, 0);
}

typedef struct var_find {
    const char *name;
    double value;
} var_find;

static enum CXChildVisitResult find_var(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    var_find *f = data;
    if (!hs_from_main_file(c))
        return CXChildVisit_Continue;
    if (clang_getCursorKind(c) == CXCursor_VarDecl) {
        char *n = hs_str_of(clang_getCursorSpelling(c));
        int same = strcmp(n, f->name) == 0;
        free(n);
        if (same && clang_isConstQualifiedType(clang_getCursorType(c))) {
            CXEvalResult r = clang_Cursor_Evaluate(c);
            if (r && clang_EvalResult_getKind(r) == CXEval_Int)
                f->value = (double)clang_EvalResult_getAsLongLong(r);
            if (r)
                clang_EvalResult_dispose(r);
            if (!isnan(f->value))
                return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static double named_value(expr_in *e, const char *name)
{
    const unroll_ctx *u = e->u;
    for (unsigned i = 0; i + 2 < u->n_toks; i++) {
        if (!token_is(u, i, "#") || !token_is(u, i + 1, "define") || !token_is(u, i + 2, name))
            continue;
        unsigned line = token_line(u, i), end = i + 3;
        /* a function-like macro is no constant */
        if (end < u->n_toks && token_is(u, end, "(") && token_line(u, end) == line) {
            CXSourceRange a = clang_getTokenExtent(u->x->tu, u->toks[i + 2]);
            CXSourceRange b = clang_getTokenExtent(u->x->tu, u->toks[end]);
            unsigned ae, bs;
            clang_getSpellingLocation(clang_getRangeEnd(a), NULL, NULL, NULL, &ae);
            clang_getSpellingLocation(clang_getRangeStart(b), NULL, NULL, NULL, &bs);
            if (ae == bs)
                return NAN;
        }
        while (end < u->n_toks && token_line(u, end) == line)
            end++;
        return eval_tokens(u, i + 3, end, e->depth + 1);
    }
    var_find f = {name, NAN};
    clang_visitChildren(clang_getTranslationUnitCursor(u->x->tu), find_var, &f);
    return f.value;
}

/* ---- the pragma sites ---- */

/* The start of line (1-based) of text, or its end. */
static const char *line_start(const char *text, unsigned line)
{
    const char *p = text;
    for (unsigned l = 1; l < line && *p; l++) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return p;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int word_at(const char *p, const char *w, const char **after)
{
    size_t n = strlen(w);
    char c = p[n];
    if (strncmp(p, w, n) != 0 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9') || c == '_')
        return 0;
    *after = p + n;
    return 1;
}

/* Whether p starts the words of a loop hint whose argument clang reads as a constant
 * expression: `unroll` (nvcc's, *nvcc set), `GCC unroll`, `unroll_and_jam` (clang's
 * handler of all three hides the loop under a macro's argument alike); *after past them. */
static int hint_words(const char *p, const char **after, int *nvcc)
{
    *nvcc = word_at(p, "unroll", after);
    if (*nvcc || word_at(p, "unroll_and_jam", after))
        return 1;
    const char *q;
    return word_at(p, "GCC", &q) && word_at(skip_blanks(q), "unroll", after);
}

/* Whether the line at p is `#pragma unroll ...` (or another hint of hint_words, *nvcc saying
 * which): then [*args, *end) is what follows the hint's words up to the end of the logical
 * line (backslash-newlines included). */
static int unroll_args(const char *p, const char **args, const char **end, int *nvcc)
{
    const char *q = skip_blanks(p);
    if (*q != '#')
        return 0;
    if (!word_at(skip_blanks(q + 1), "pragma", &q) || !hint_words(skip_blanks(q), &q, nvcc))
        return 0;
    *args = q;
    while (*q && *q != '\n')
        q += q[0] == '\\' && q[1] == '\n'                   ? 2
             : q[0] == '\\' && q[1] == '\r' && q[2] == '\n' ? 3
                                                            : 1;
    *end = q;
    return 1;
}

/* Whether p is `_Pragma ( "unroll ...` (any string prefix, any hint of hint_words): then
 * [*args, *end) is what follows the hint's words up to the closing quote. */
static int unroll_operator_args(const char *p, const char **args, const char **end, int *nvcc)
{
    const char *q;
    if (!word_at(p, "_Pragma", &q))
        return 0;
    q = skip_blanks(q);
    if (*q != '(')
        return 0;
    q = skip_blanks(q + 1);
    q += strspn(q, "LuU8R");
    if (*q != '"' || !hint_words(skip_blanks(q + 1), &q, nvcc))
        return 0;
    *args = q;
    while (*q && *q != '"' && *q != '\n')
        q++;
    *end = q;
    return 1;
}

static void blank(char *out, const char *from, const char *to)
{
    for (char *b = out + (from - out); b < out + (to - out); b++)
        if (*b != '\n' && *b != '\r')
            *b = ' ';
}

char *ch_subset_parse_text(const char *src)
{
    char *out = ch_xstrdup(src);
    const char *args, *end;
    int nvcc;
    for (char *p = out; *p;) {
        if (unroll_args(p, &args, &end, &nvcc))
            blank(out, args, end);
        char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    for (char *p = strstr(out, "_Pragma"); p; p = strstr(p + 1, "_Pragma"))
        if (unroll_operator_args(p, &args, &end, &nvcc))
            blank(out, args, end);
    return out;
}

static void add_site(unroll_ctx *u, unsigned line, int has_count, double count)
{
    u->sites = realloc(u->sites, (u->n_sites + 1) * sizeof *u->sites);
    if (!u->sites)
        abort();
    u->sites[u->n_sites++] = (pragma_site){line, has_count, has_count ? count : -1};
}

/* `_Pragma("unroll N")` at token i, read from the original text: a site at its line, or, in
 * the body of an object-like macro `#define NAME ... _Pragma("unroll N") ...`, a site at every
 * line that uses NAME. */
static void pragma_operator(unroll_ctx *u, unsigned i)
{
    unsigned line = token_line(u, i);
    const char *args, *end, *at = strstr(line_start(u->x->source, line), "_Pragma");
    int nvcc;
    if (!at || !unroll_operator_args(at, &args, &end, &nvcc) || !nvcc)
        return;
    int has = *skip_blanks(args) != '"' && *skip_blanks(args) != '\0' && args < end;
    double n = has ? eval_text(u, args, end) : NAN;
    /* the macro whose definition this line is, if any */
    unsigned d = i;
    while (d > 0 && token_line(u, d - 1) == line)
        d--;
    char *name = d + 2 < i && token_is(u, d, "#") && token_is(u, d + 1, "define")
                     ? token_text(u, d + 2)
                     : NULL;
    if (!name) {
        add_site(u, line, has, isnan(n) ? -1 : n);
        return;
    }
    for (unsigned k = 0; k < u->n_toks; k++)
        if (token_line(u, k) != line && token_is(u, k, name))
            add_site(u, token_line(u, k), has, isnan(n) ? -1 : n);
    free(name);
}

static void find_sites(unroll_ctx *u)
{
    for (unsigned i = 0; i + 2 < u->n_toks; i++) {
        if (token_is(u, i, "_Pragma") && token_is(u, i + 1, "(")) {
            pragma_operator(u, i);
            continue;
        }
        if (!token_is(u, i, "#") || !token_is(u, i + 1, "pragma") || !token_is(u, i + 2, "unroll"))
            continue;
        unsigned line = token_line(u, i);
        const char *args, *end;
        int nvcc;
        if (!unroll_args(line_start(u->x->source, line), &args, &end, &nvcc) || !nvcc)
            continue;
        size_t blanks = strspn(args, " \t\\\r\n");
        int has = args + blanks < end && strncmp(args + blanks, "//", 2) != 0 &&
                  strncmp(args + blanks, "/*", 2) != 0;
        double n = has ? eval_text(u, args, end) : NAN;
        add_site(u, line, has, isnan(n) ? -1 : n);
    }
}

/* The pragma that governs a loop starting at line: on the loop's line or the one or two before. */
static const pragma_site *site_for(const unroll_ctx *u, unsigned line)
{
    for (size_t i = 0; i < u->n_sites; i++)
        if (u->sites[i].line <= line && u->sites[i].line + 2 >= line)
            return &u->sites[i];
    return NULL;
}

/* ---- trip counts ---- */

static double eval_cursor(CXCursor c)
{
    double v = NAN;
    if (clang_Cursor_isNull(c))
        return v;
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int)
        v = clamp((double)clang_EvalResult_getAsLongLong(r));
    if (r)
        clang_EvalResult_dispose(r);
    return v;
}

static CXCursor last_child(CXCursor c)
{
    kids k = hs_children(c);
    CXCursor last = k.n ? k.v[k.n - 1] : clang_getNullCursor();
    free(k.v);
    return last;
}

/* The loop's start: `int k = S` or `k = S`. */
static double loop_start(CXCursor init)
{
    if (clang_Cursor_isNull(init))
        return NAN;
    /* the declaration's variable, or the assignment's right side: the last child either way */
    CXCursor last = last_child(init);
    if (clang_getCursorKind(init) == CXCursor_DeclStmt)
        last = last_child(last);
    return eval_cursor(last);
}

/* The loop's bound: whichever side of the condition is a constant. */
static double loop_bound(CXCursor cond)
{
    kids k = hs_children(cond);
    double v = NAN;
    if (k.n == 2) {
        v = eval_cursor(k.v[1]);
        if (isnan(v))
            v = eval_cursor(k.v[0]);
    }
    free(k.v);
    return v;
}

/* The trip count of a loop whose start, bound and step are constants, else NAN. */
static double trip_count(const unroll_ctx *u, CXCursor loop)
{
    hs_for_parts p = hs_split_for(u->x, loop);
    double a = loop_start(p.init), b = loop_bound(p.cond);
    if (isnan(a) || isnan(b) || clang_Cursor_isNull(p.inc))
        return NAN;
    double span = fabs(b - a);
    enum CXCursorKind k = clang_getCursorKind(p.inc);
    if (k == CXCursor_UnaryOperator)
        return span;
    if (k != CXCursor_CompoundAssignOperator)
        return NAN;
    char *op = hs_operator_of(u->x, p.inc);
    double s = fabs(eval_cursor(last_child(p.inc)));
    double trips = NAN;
    if (!isnan(s) && s >= 1) {
        if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0)
            trips = ceil(span / s);
        else if ((strcmp(op, "*=") == 0 || strcmp(op, "/=") == 0) && s >= 2)
            trips = ceil(log2(fmax(fabs(a), fabs(b)) + 1) / log2(s)) + 1;
        else if (strcmp(op, "<<=") == 0 || strcmp(op, ">>=") == 0)
            trips = ceil(log2(fmax(fabs(a), fabs(b)) + 1) / s) + 1;
    }
    free(op);
    return trips;
}

/* ---- copies ---- */

static double copies_of(unroll_ctx *u, CXCursor c);

typedef struct sum_kids {
    unroll_ctx *u;
    double sum;
} sum_kids;

static enum CXChildVisitResult add_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    sum_kids *s = data;
    s->sum = clamp(s->sum + copies_of(s->u, c));
    return s->u->x->refused ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* How many copies of loop bodies nvcc makes of c when it unrolls what the pragmas ask: an
 * unrolled loop's copies times its body's (at least one), the sum of the parts elsewhere.
 * Refuses at the first unrolled loop that alone goes over the bound. */
static double copies_of(unroll_ctx *u, CXCursor c)
{
    if (u->x->refused)
        return 0;
    sum_kids s = {u, 0};
    if (clang_getCursorKind(c) != CXCursor_ForStmt) {
        clang_visitChildren(c, add_child, &s);
        return s.sum;
    }
    unsigned line = 0;
    clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
    const pragma_site *site = site_for(u, line);
    hs_for_parts p = hs_split_for(u->x, c);
    double body = clang_Cursor_isNull(p.body) ? 0 : copies_of(u, p.body);
    if (!site || u->x->refused)
        return body;
    double trips = trip_count(u, c);
    double n = site->has_count && site->count >= 1
                   ? (isnan(trips) ? site->count : fmin(site->count, trips))
                   : (isnan(trips) ? 1 : trips);
    double total = clamp(n * fmax(1, body));
    if (total > UNROLL_MAX_COPIES)
        hs_refuse(u->x, c, "compile-cost",
                  "#pragma unroll makes nvcc copy this loop's body about %.0f times (%.0f "
                  "iterations%s): compiling that costs stage 1 minutes and gigabytes, and no "
                  "test can tell the copies apart; unroll at most %.0f copies in a function (give "
                  "the pragma a small count, or leave it out)",
                  total, n, body > 1 ? " of nested unrolled loops" : "", UNROLL_MAX_COPIES);
    return total;
}

static enum CXChildVisitResult visit_function(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    unroll_ctx *u = data;
    if (!hs_from_main_file(c))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate && k != CXCursor_CXXMethod)
        return CXChildVisit_Recurse;
    double total = copies_of(u, c);
    if (!u->x->refused && total > UNROLL_MAX_COPIES)
        hs_refuse(u->x, c, "compile-cost",
                  "the #pragma unroll loops of this function make nvcc copy loop bodies about "
                  "%.0f times: compiling that costs stage 1 minutes and gigabytes; unroll at most "
                  "%.0f copies in a function",
                  total, UNROLL_MAX_COPIES);
    return u->x->refused ? CXChildVisit_Break : CXChildVisit_Continue;
}

void hs_judge_unroll(subset_ctx *x)
{
    if (x->refused || x->kind != CH_SUBSET_CANDIDATE)
        return;
    CXCursor tu = clang_getTranslationUnitCursor(x->tu);
    unroll_ctx u = {x, NULL, 0, NULL, 0};
    clang_tokenize(x->tu, clang_getCursorExtent(tu), &u.toks, &u.n_toks);
    find_sites(&u);
    if (u.n_sites)
        clang_visitChildren(tu, visit_function, &u);
    free(u.sites);
    if (u.toks)
        clang_disposeTokens(x->tu, u.toks, u.n_toks);
}
