/* The `#pragma harness` grammar, as pure functions over bytes (no libclang), so that it can be
 * unit-tested and fuzzed alone. Also finds pragma lines in a file's text and blanks them for
 * the host compile. Invariant: every error is located inside the pragma text and says what to
 * write instead; nothing here reads past `len`. */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/scan.h"
#include "ch/strbuf.h"

/* A cursor over the pragma's bytes; backslash-newline is invisible to every reader. */
typedef struct reader {
    const char *s;
    size_t len, pos;
    unsigned line, col;
    const char *file;
    ch_error *err;
} reader;

static void skip_continuations(reader *r)
{
    for (;;) {
        if (r->pos + 1 < r->len && r->s[r->pos] == '\\' && r->s[r->pos + 1] == '\n') {
            r->pos += 2;
        } else if (r->pos + 2 < r->len && r->s[r->pos] == '\\' && r->s[r->pos + 1] == '\r' &&
                   r->s[r->pos + 2] == '\n') {
            r->pos += 3;
        } else {
            return;
        }
        r->line++;
        r->col = 1;
    }
}

static int peek(reader *r)
{
    skip_continuations(r);
    return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static int next(reader *r)
{
    int c = peek(r);
    if (c < 0)
        return c;
    r->pos++;
    if (c == '\n') {
        r->line++;
        r->col = 1;
    } else {
        r->col++;
    }
    return c;
}

static int fail(reader *r, const char *fmt, const char *arg)
{
    return ch_error_at(r->err, r->file, r->line, r->col, fmt, arg ? arg : "");
}

/* Skips blanks and comments; a newline outside a continuation ends the pragma. */
static int skip_space(reader *r)
{
    for (;;) {
        int c = peek(r);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            next(r);
        } else if (c == '/' && r->pos + 1 < r->len && r->s[r->pos + 1] == '*') {
            next(r);
            next(r);
            for (;;) {
                c = next(r);
                if (c < 0)
                    return fail(r, "unterminated comment in #pragma harness; close it with */%s",
                                NULL);
                if (c == '*' && peek(r) == '/') {
                    next(r);
                    break;
                }
            }
        } else if (c == '/' && r->pos + 1 < r->len && r->s[r->pos + 1] == '/') {
            r->pos = r->len;
        } else {
            return 0;
        }
    }
}

static int at_end(reader *r)
{
    int c = peek(r);
    return c < 0 || c == '\n';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int read_escape(reader *r, ch_strbuf *out)
{
    int c = next(r);
    static const char simple_in[] = "ntr\\\"'?abfv";
    static const char simple_out[] = "\n\t\r\\\"'?\a\b\f\v";
    const char *p = c > 0 ? strchr(simple_in, c) : NULL;
    if (p) {
        ch_strbuf_addc(out, simple_out[p - simple_in]);
        return 0;
    }
    if (c >= '0' && c <= '7') {
        int v = c - '0';
        for (int k = 0; k < 2 && peek(r) >= '0' && peek(r) <= '7'; k++)
            v = v * 8 + (next(r) - '0');
        ch_strbuf_addc(out, (char)v);
        return 0;
    }
    if (c == 'x') {
        int v = 0, digits = 0;
        while (hexval(peek(r)) >= 0 && digits < 2) {
            v = v * 16 + hexval(next(r));
            digits++;
        }
        if (digits == 0)
            return fail(r, "\\x needs hex digits in the harness spec; write \\x41%s", NULL);
        ch_strbuf_addc(out, (char)v);
        return 0;
    }
    return fail(r, "unknown escape sequence in the harness spec; write \\\\ for a backslash%s",
                NULL);
}

/* One "..." literal appended (decoded) to out; the reader is at the opening quote. */
static int read_string(reader *r, ch_strbuf *out)
{
    unsigned line = r->line, col = r->col;
    next(r);
    for (;;) {
        int c = next(r);
        if (c < 0 || c == '\n')
            return ch_error_at(r->err, r->file, line, col,
                               "unterminated string in #pragma harness; close the spec with \"");
        if (c == '"')
            return 0;
        if (c == '\\') {
            if (read_escape(r, out) != 0)
                return -1;
        } else {
            ch_strbuf_addc(out, (char)c);
        }
    }
}

static int is_ident_start(int c)
{
    return c == '_' || (c >= 0 && c < 128 && isalpha(c));
}

static int is_ident(int c)
{
    return c == '_' || (c >= 0 && c < 128 && isalnum(c));
}

static char *read_ident(reader *r)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    while (is_ident(peek(r)))
        ch_strbuf_addc(&sb, (char)next(r));
    return ch_strbuf_detach(&sb);
}

/* An expression up to ',' or ')' at depth 0, whitespace runs collapsed to one space. */
static int read_expr(reader *r, const char *clause, char **out)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int depth = 0, space = 0;
    if (skip_space(r) != 0)
        goto bad;
    for (;;) {
        int c = peek(r);
        if (c < 0 || c == '\n') {
            fail(r, "missing ')' to close %s(; write it as clause(...)", clause);
            goto bad;
        }
        if (depth == 0 && (c == ',' || c == ')'))
            break;
        if (c == '"' || c == '\'' || c == ';' || c == '{' || c == '}') {
            fail(r,
                 "unexpected character in the expression of %s(); write a C expression of the "
                 "integer parameters",
                 clause);
            goto bad;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '/') {
            size_t before = r->pos;
            if (skip_space(r) != 0)
                goto bad;
            if (r->pos != before) {
                space = 1;
                continue;
            }
        }
        /* spaces survive only where they separate two words ("sizeof n") */
        if (space && sb.len && is_ident((unsigned char)sb.data[sb.len - 1]) && is_ident(c))
            ch_strbuf_addc(&sb, ' ');
        space = 0;
        if (c == '(' || c == '[')
            depth++;
        if (c == ')' || c == ']')
            depth--;
        ch_strbuf_addc(&sb, (char)next(r));
    }
    if (sb.len == 0) {
        fail(r, "empty expression in %s(); write a C expression such as n*m", clause);
        goto bad;
    }
    *out = ch_strbuf_detach(&sb);
    return 0;
bad:
    ch_strbuf_free(&sb);
    return -1;
}

static void add_name(ch_pragma *p, char *name, const char *clause, unsigned line, unsigned col)
{
    p->names = ch_xrealloc(p->names, (p->n_names + 1) * sizeof *p->names);
    p->names[p->n_names++] = (ch_pragma_name){ch_xstrdup(name), clause, line, col};
}

static void push_named(ch_named_expr **v, size_t *n, char *name, char *expr, unsigned line,
                       unsigned col)
{
    *v = ch_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = (ch_named_expr){name, expr, line, col};
}

static void push_str(char ***v, size_t *n, char *s)
{
    *v = ch_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

/* After an item of a list clause: ',' continues, ')' ends (returns 1). */
static int list_sep(reader *r, const char *clause, ch_strbuf *norm)
{
    if (skip_space(r) != 0)
        return -1;
    int c = peek(r);
    if (c == ',') {
        next(r);
        ch_strbuf_adds(norm, ", ");
        return 0;
    }
    if (c == ')') {
        next(r);
        ch_strbuf_addc(norm, ')');
        return 1;
    }
    return fail(r, "expected ',' or ')' in %s(); separate the items with commas", clause);
}

/* How a clause that takes name-value items is written, for the hint of an error. */
static const char *pairs_example(const char *clause)
{
    if (strcmp(clause, "tune") == 0)
        return "tune(n = 1<<20)";
    if (strcmp(clause, "offsets") == 0)
        return "offsets(row_ptr: nnz)";
    if (strcmp(clause, "range") == 0)
        return "range(idx: 0, n)";
    if (strcmp(clause, "perm") == 0)
        return "perm(p: n)";
    return "extent(p: n)";
}

/* The `name SEP` that starts an item of extent(), tune(), offsets(), perm() or range(); the
 * reader is left after SEP. Returns the name (caller frees) or NULL with a located error. */
static char *pair_name(reader *r, const char *clause, char sep, unsigned *line, unsigned *col)
{
    char hint[160];
    if (skip_space(r) != 0)
        return NULL;
    *line = r->line;
    *col = r->col;
    if (!is_ident_start(peek(r))) {
        snprintf(hint, sizeof hint, "expected a parameter name in %%s(); write %s",
                 pairs_example(clause));
        fail(r, hint, clause);
        return NULL;
    }
    char *name = read_ident(r);
    if (skip_space(r) != 0 || peek(r) != sep) {
        free(name);
        if (r->err->msg[0] && r->err->located)
            return NULL;
        snprintf(hint, sizeof hint, "expected '%c' after the parameter name in %%s(); write %s",
                 sep, pairs_example(clause));
        fail(r, hint, clause);
        return NULL;
    }
    next(r);
    return name;
}

/* extent(p: e, ...), offsets(p: e, ...), perm(p: e, ...) and tune(n = e, ...): name SEP expr
 * pairs, appended
 * to (*v, *n). */
static int parse_pairs(reader *r, ch_pragma *p, const char *clause, char sep, ch_named_expr **v,
                       size_t *n, ch_strbuf *norm)
{
    for (;;) {
        unsigned line, col;
        char *name = pair_name(r, clause, sep, &line, &col);
        if (!name)
            return -1;
        char *expr;
        if (read_expr(r, clause, &expr) != 0) {
            free(name);
            return -1;
        }
        ch_strbuf_addf(norm, sep == ':' ? "%s: %s" : "%s = %s", name, expr);
        add_name(p, name, clause, line, col);
        push_named(v, n, name, expr, line, col);
        int s = list_sep(r, clause, norm);
        if (s != 0)
            return s < 0 ? -1 : 0;
    }
}

/* range(p: lo, hi, ...): each item a name and two expressions. */
static int parse_ranges(reader *r, ch_pragma *p, ch_strbuf *norm)
{
    ch_clauses *c = &p->clauses;
    for (;;) {
        unsigned line, col;
        char *name = pair_name(r, "range", ':', &line, &col), *lo = NULL, *hi = NULL;
        if (!name)
            return -1;
        if (read_expr(r, "range", &lo) != 0)
            goto bad;
        if (peek(r) != ',') {
            fail(r, "range() takes two bounds after the name; write range(%s: 0, n)", name);
            goto bad;
        }
        next(r);
        if (read_expr(r, "range", &hi) != 0)
            goto bad;
        ch_strbuf_addf(norm, "%s: %s, %s", name, lo, hi);
        add_name(p, name, "range", line, col);
        c->ranges = ch_xrealloc(c->ranges, (c->n_ranges + 1) * sizeof *c->ranges);
        c->ranges[c->n_ranges++] = (ch_range_expr){name, lo, hi, line, col};
        int s = list_sep(r, "range", norm);
        if (s != 0)
            return s < 0 ? -1 : 0;
        continue;
    bad:
        free(name);
        free(lo);
        return -1;
    }
}

/* sample(fn): one function name, once. */
static int parse_sample(reader *r, ch_pragma *p, ch_strbuf *norm)
{
    if (skip_space(r) != 0)
        return -1;
    unsigned line = r->line, col = r->col;
    if (!is_ident_start(peek(r)))
        return fail(r, "expected a function name in sample(); write sample(fill_inputs)%s", NULL);
    char *name = read_ident(r);
    if (p->clauses.sample) {
        free(name);
        return ch_error_at(r->err, r->file, line, col,
                           "sample() given twice; one function fills all the inputs");
    }
    p->clauses.sample = name;
    p->clauses.sample_line = line;
    p->clauses.sample_col = col;
    ch_strbuf_adds(norm, name);
    if (skip_space(r) != 0)
        return -1;
    if (peek(r) != ')')
        return fail(r, "expected ')' after the function name in sample(); it takes one name%s",
                    NULL);
    next(r);
    ch_strbuf_addc(norm, ')');
    return 0;
}

static int parse_names(reader *r, ch_pragma *p, const char *clause, char ***v, size_t *n,
                       ch_strbuf *norm)
{
    for (;;) {
        if (skip_space(r) != 0)
            return -1;
        unsigned line = r->line, col = r->col;
        if (!is_ident_start(peek(r)))
            return fail(r, "expected a parameter name in %s(); write e.g. in(x, y)", clause);
        char *name = read_ident(r);
        ch_strbuf_adds(norm, name);
        add_name(p, name, clause, line, col);
        push_str(v, n, name);
        int s = list_sep(r, clause, norm);
        if (s != 0)
            return s < 0 ? -1 : 0;
    }
}

/* tol(rel) and budget(N): one number. */
static int parse_number(reader *r, ch_pragma *p, const char *clause, ch_strbuf *norm)
{
    int is_tol = strcmp(clause, "tol") == 0;
    unsigned line = r->line, col = r->col;
    char *text;
    if (read_expr(r, clause, &text) != 0)
        return -1;
    char *end;
    int bad = 0;
    if (is_tol) {
        double v = strtod(text, &end);
        bad = *end != '\0' || !(v > 0) || !isfinite(v) || p->clauses.has_tol;
        p->clauses.has_tol = 1;
        p->clauses.tol = v;
    } else {
        long v = strtol(text, &end, 10);
        bad = *end != '\0' || v <= 0 || v > 1000000 || p->clauses.has_budget;
        p->clauses.has_budget = 1;
        p->clauses.budget = (int)v;
        p->clauses.budget_line = line;
        p->clauses.budget_col = col;
    }
    if (bad) {
        free(text);
        return ch_error_at(r->err, r->file, line, col, "%s",
                           is_tol ? "tol() takes one positive number, once; write tol(1e-5)"
                                  : "budget() takes one positive integer, once; write budget(8)");
    }
    ch_strbuf_adds(norm, text);
    free(text);
    if (skip_space(r) != 0)
        return -1;
    if (peek(r) != ')')
        return fail(r, "expected ')' to close %s(); it takes one value", clause);
    next(r);
    ch_strbuf_addc(norm, ')');
    return 0;
}

static const char *const clause_names[] = {"extent", "in",      "out",    "inout",
                                           "tune",   "tol",     "device", "budget",
                                           "range",  "offsets", "perm",   "sample"};

static int parse_clause(reader *r, ch_pragma *p, ch_strbuf *norm)
{
    unsigned line = r->line, col = r->col;
    char *word = read_ident(r);
    const char *clause = NULL;
    for (size_t i = 0; i < sizeof clause_names / sizeof *clause_names; i++)
        if (strcmp(word, clause_names[i]) == 0)
            clause = clause_names[i];
    if (!clause) {
        ch_error_at(r->err, r->file, line, col,
                    "unknown harness clause '%s'; expected extent, in, out, inout, tune, tol, "
                    "device, budget, range, offsets, perm or sample",
                    word);
        free(word);
        return -1;
    }
    free(word);
    if (norm->len)
        ch_strbuf_addc(norm, ' ');
    ch_strbuf_adds(norm, clause);
    if (strcmp(clause, "device") == 0) {
        p->clauses.device = 1;
        return 0;
    }
    if (skip_space(r) != 0)
        return -1;
    if (peek(r) != '(')
        return fail(r, "expected '(' after '%s'; write it as clause(...)", clause);
    next(r);
    ch_strbuf_addc(norm, '(');
    ch_clauses *c = &p->clauses;
    if (strcmp(clause, "extent") == 0)
        return parse_pairs(r, p, clause, ':', &c->extents, &c->n_extents, norm);
    if (strcmp(clause, "tune") == 0)
        return parse_pairs(r, p, clause, '=', &c->tune, &c->n_tune, norm);
    if (strcmp(clause, "offsets") == 0)
        return parse_pairs(r, p, clause, ':', &c->offsets, &c->n_offsets, norm);
    if (strcmp(clause, "perm") == 0)
        return parse_pairs(r, p, clause, ':', &c->perms, &c->n_perms, norm);
    if (strcmp(clause, "range") == 0)
        return parse_ranges(r, p, norm);
    if (strcmp(clause, "sample") == 0)
        return parse_sample(r, p, norm);
    if (strcmp(clause, "in") == 0)
        return parse_names(r, p, clause, &c->in, &c->n_in, norm);
    if (strcmp(clause, "out") == 0)
        return parse_names(r, p, clause, &c->out, &c->n_out, norm);
    if (strcmp(clause, "inout") == 0)
        return parse_names(r, p, clause, &c->inout, &c->n_inout, norm);
    return parse_number(r, p, clause, norm);
}

static int parse_clause_list(reader *r, ch_pragma *p)
{
    ch_strbuf norm;
    ch_strbuf_init(&norm);
    for (;;) {
        if (skip_space(r) != 0)
            goto bad;
        if (at_end(r))
            break;
        int c = peek(r);
        if (c == '"') {
            fail(r,
                 "the harness spec must come before the clauses; write #pragma harness \"spec\" "
                 "clauses%s",
                 NULL);
            goto bad;
        }
        if (!is_ident_start(c)) {
            char ch[2] = {(char)c, 0};
            fail(r,
                 "unexpected '%s' in #pragma harness; write #pragma harness [\"spec\"] "
                 "clause(...) ...",
                 c >= 32 && c < 127 ? ch : "?");
            goto bad;
        }
        if (parse_clause(r, p, &norm) != 0)
            goto bad;
    }
    p->clauses_text = ch_strbuf_detach(&norm);
    return 0;
bad:
    ch_strbuf_free(&norm);
    return -1;
}

static void reader_init(reader *r, const char *text, size_t len, const char *file, unsigned line,
                        unsigned col, ch_error *err)
{
    *r = (reader){text, len, 0, line, col, file, err};
    ch_error_clear(err);
}

int ch_pragma_parse(const char *text, size_t len, const char *file, unsigned line, unsigned col,
                    ch_pragma *out, ch_error *err)
{
    reader r;
    reader_init(&r, text, len, file, line, col, err);
    memset(out, 0, sizeof *out);
    ch_strbuf spec;
    ch_strbuf_init(&spec);
    int strings = 0;
    for (;;) {
        if (skip_space(&r) != 0)
            goto bad;
        if (peek(&r) != '"')
            break;
        if (read_string(&r, &spec) != 0)
            goto bad;
        strings++;
    }
    if (strlen(spec.data) != spec.len) {
        ch_error_at(err, file, line, col,
                    "the harness spec contains a NUL character; remove the \\0 escape");
        goto bad;
    }
    if (spec.len > 0)
        out->spec = ch_strbuf_detach(&spec);
    ch_strbuf_free(&spec);
    if (parse_clause_list(&r, out) != 0) {
        ch_pragma_free(out);
        return -1;
    }
    return 0;
bad:
    ch_strbuf_free(&spec);
    ch_pragma_free(out);
    return -1;
}

int ch_pragma_parse_clauses(const char *text, size_t len, const char *file, unsigned line,
                            unsigned col, ch_pragma *out, ch_error *err)
{
    reader r;
    reader_init(&r, text, len, file, line, col, err);
    memset(out, 0, sizeof *out);
    if (parse_clause_list(&r, out) != 0) {
        ch_pragma_free(out);
        return -1;
    }
    return 0;
}

static void free_named(ch_named_expr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].expr);
    }
    free(v);
}

/* (entry.c has its twin; this file links alone into the fuzzer) */
static void free_ranges(ch_range_expr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].lo);
        free(v[i].hi);
    }
    free(v);
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void ch_pragma_free(ch_pragma *p)
{
    free(p->spec);
    free(p->clauses_text);
    free_named(p->clauses.extents, p->clauses.n_extents);
    free_named(p->clauses.tune, p->clauses.n_tune);
    free_ranges(p->clauses.ranges, p->clauses.n_ranges);
    free_named(p->clauses.offsets, p->clauses.n_offsets);
    free_named(p->clauses.perms, p->clauses.n_perms);
    free(p->clauses.sample);
    free_strs(p->clauses.in, p->clauses.n_in);
    free_strs(p->clauses.out, p->clauses.n_out);
    free_strs(p->clauses.inout, p->clauses.n_inout);
    for (size_t i = 0; i < p->n_names; i++)
        free(p->names[i].name);
    free(p->names);
    memset(p, 0, sizeof *p);
}

void ch_pragma_take_clauses(ch_pragma *p, ch_clauses *c)
{
    *c = p->clauses;
    memset(&p->clauses, 0, sizeof p->clauses);
}

/* --- finding pragma lines in a file's text --- */

static size_t skip_blank_cont(const char *t, size_t len, size_t i)
{
    for (;;) {
        if (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        else if (i + 1 < len && t[i] == '\\' && t[i + 1] == '\n')
            i += 2;
        else
            return i;
    }
}

static int word_at(const char *t, size_t len, size_t i, const char *w)
{
    size_t n = strlen(w);
    return i + n <= len && memcmp(t + i, w, n) == 0 &&
           (i + n == len || !is_ident((unsigned char)t[i + n]));
}

/* End of the logical line starting at i (the offset of its final '\n', or len). */
static size_t logical_end(const char *t, size_t len, size_t i)
{
    for (; i < len; i++) {
        if (t[i] == '\\' && i + 1 < len && t[i + 1] == '\n')
            i++;
        else if (t[i] == '\\' && i + 2 < len && t[i + 1] == '\r' && t[i + 2] == '\n')
            i += 2;
        else if (t[i] == '\n')
            return i;
    }
    return len;
}

static void line_col(const char *t, size_t upto, size_t *scan, unsigned *line, unsigned *col,
                     size_t *line_start)
{
    for (; *scan < upto; (*scan)++)
        if (t[*scan] == '\n') {
            (*line)++;
            *line_start = *scan + 1;
        }
    *col = (unsigned)(upto - *line_start + 1);
}

void ch_pragma_find(const char *t, size_t len, ch_pragma_loc **locs, size_t *n)
{
    *locs = NULL;
    *n = 0;
    int line_start = 1;
    size_t scan = 0, lstart = 0;
    unsigned line = 1, col = 1;
    for (size_t i = 0; i < len;) {
        char c = t[i];
        if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);
            i = e ? (size_t)(e - t) + 2 : len;
            continue;
        }
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            i = logical_end(t, len, i);
            continue;
        }
        if (c == '"' || c == '\'') {
            for (i++; i < len && t[i] != c && t[i] != '\n'; i++)
                if (t[i] == '\\')
                    i++;
            i++;
            line_start = 0;
            continue;
        }
        if (c == '\n') {
            line_start = 1;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            i++;
            continue;
        }
        if (c == '#' && line_start) {
            size_t j = skip_blank_cont(t, len, i + 1);
            if (word_at(t, len, j, "pragma")) {
                j = skip_blank_cont(t, len, j + 6);
                if (word_at(t, len, j, "harness")) {
                    ch_pragma_loc L;
                    L.hash_offset = i;
                    L.body_offset = j + 7;
                    L.end_offset = logical_end(t, len, i);
                    line_col(t, i, &scan, &line, &col, &lstart);
                    L.line = line;
                    L.col = col;
                    line_col(t, L.body_offset, &scan, &line, &col, &lstart);
                    L.body_line = line;
                    L.body_col = col;
                    *locs = ch_xrealloc(*locs, (*n + 1) * sizeof **locs);
                    (*locs)[(*n)++] = L;
                }
            }
            /* any directive: skip its logical line (strings in #include etc.) */
            i = logical_end(t, len, i);
            continue;
        }
        line_start = 0;
        i++;
    }
}

char *ch_scan_blank_at(const char *text, size_t len, const ch_pragma_loc *pragmas, size_t n)
{
    char *out = ch_xmalloc(len + 1);
    memcpy(out, text, len);
    out[len] = '\0';
    for (size_t k = 0; k < n; k++) {
        assert(pragmas[k].hash_offset <= pragmas[k].end_offset && pragmas[k].end_offset <= len);
        for (size_t i = pragmas[k].hash_offset; i < pragmas[k].end_offset; i++)
            if (out[i] != '\n')
                out[i] = ' ';
    }
    return out;
}

char *ch_scan_blank(const char *text, size_t len)
{
    ch_pragma_loc *locs;
    size_t n;
    ch_pragma_find(text, len, &locs, &n);
    char *out = ch_scan_blank_at(text, len, locs, n);
    free(locs);
    return out;
}
