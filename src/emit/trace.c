/* Emit, the trace unit (ch/emit.h): the function the program calls for an entry that got no
 * kernel. The user's body is renamed as for a kernel (ch_emit_host_source), and this unit,
 * compiled by the host compiler, defines the user's name: it prints one CH_CC_TRACE line per
 * call, in the GPU dispatcher's format, and calls the host path. One unit serves every
 * kernel-less entry of a file (one compile); its text comes from the embedded templates
 * src/emit/templates/trace_*.c.in. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/emit.h"

extern const struct ch_embedded_file ch_template_files[];

/* A reason longer than this is cut (with "..."): the trace line stays one readable line. */
#define TRACE_REASON_MAX 240

char *ch_emit_traced_host_name(const ch_emit_traced *t)
{
    return ch_emit_host_bridge_name(t->entry);
}

/* The first line of why, at most TRACE_REASON_MAX bytes (malloc'd). */
static char *reason_line(const char *why)
{
    const char *text = why && *why ? why : "no reason recorded";
    size_t n = strcspn(text, "\n");
    if (n <= TRACE_REASON_MAX)
        return ch_xstrndup(text, n);
    return ch_xasprintf("%.*s...", TRACE_REASON_MAX, text);
}

/* The generated unit keeps to the width of the project's own code. */
#define UNIT_WIDTH 100

/* One character of text as it goes inside a C string literal: quotes, backslashes and '?' (no
 * trigraph) escaped, a newline as \n, other control and non-ASCII bytes as octal escapes. */
static void add_c_char(ch_strbuf *out, unsigned char c)
{
    if (c == '\n')
        ch_strbuf_adds(out, "\\n");
    else if (c == '"' || c == '\\' || c == '?')
        ch_strbuf_addf(out, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
        ch_strbuf_addf(out, "\\%03o", c);
    else
        ch_strbuf_addc(out, (char)c);
}

/* text as a string literal of lines indented by four spaces, each within UNIT_WIDTH: broken
 * after a space where one is near, never inside an escape. */
static void add_c_literal(ch_strbuf *out, const char *text)
{
    const size_t room = UNIT_WIDTH - 4 - 2; /* the indent and the quotes */
    ch_strbuf piece;
    ch_strbuf_init(&piece);
    size_t last_space = 0; /* in piece, one past the last space; 0: none */
    for (const unsigned char *p = (const unsigned char *)text;; p++) {
        ch_strbuf unit;
        ch_strbuf_init(&unit);
        if (*p)
            add_c_char(&unit, *p);
        if (!*p || piece.len + unit.len > room) {
            size_t cut = *p && last_space ? last_space : piece.len;
            ch_strbuf_addf(out, "%s    \"%.*s\"", out->len ? "\n" : "", (int)cut, piece.data);
            char *rest = ch_xstrdup(piece.data + cut);
            ch_strbuf_reset(&piece);
            ch_strbuf_adds(&piece, rest);
            free(rest);
            last_space = 0;
        }
        if (!*p) {
            ch_strbuf_free(&unit);
            break;
        }
        ch_strbuf_add(&piece, unit.data, unit.len);
        if (*p == ' ')
            last_space = piece.len;
        ch_strbuf_free(&unit);
    }
    ch_strbuf_free(&piece);
}

/* text as the lines of a block comment (" * " each, within UNIT_WIDTH, words kept whole): no
 * comment ends or starts inside it, control bytes become spaces. */
static void add_comment(ch_strbuf *out, const char *text)
{
    const size_t room = UNIT_WIDTH - 3 - 3; /* the leading " * ", a closing star and slash */
    ch_strbuf clean;
    ch_strbuf_init(&clean);
    for (const char *p = text; *p; p++) {
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*')) {
            ch_strbuf_addc(&clean, p[0]);
            ch_strbuf_addc(&clean, ' ');
        } else {
            ch_strbuf_addc(&clean, (unsigned char)*p < 0x20 ? ' ' : *p);
        }
    }
    const char *p = clean.data ? clean.data : "";
    while (*p) {
        size_t n = strlen(p);
        if (n > room) { /* the last space within room, else the first after it */
            n = room;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = strcspn(p, " ");
        }
        ch_strbuf_addf(out, "%s * %.*s", out->len ? "\n" : "", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
    }
    ch_strbuf_free(&clean);
}

/* text safe inside a one-line comment (malloc'd). */
static char *comment_text(const char *text)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (const char *p = text; *p; p++)
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*'))
            ch_strbuf_addf(&sb, "%c ", p[0]);
        else
            ch_strbuf_addc(&sb, (unsigned char)*p < 0x20 ? ' ' : *p);
    return ch_strbuf_detach(&sb);
}

/* "HEAD(PARAMS)" within UNIT_WIDTH: the parameters wrapped under the first one. */
static char *declaration(const char *head, const char *params)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "%s(", head);
    size_t indent = sb.len, col = sb.len;
    for (const char *p = params; *p;) {
        size_t n = strcspn(p, ",");
        int last = p[n] == '\0';
        if (col > indent && col + n + 2 > UNIT_WIDTH) {
            ch_strbuf_addf(&sb, "\n%*s", (int)indent, "");
            col = indent;
        }
        ch_strbuf_addf(&sb, "%.*s%s", (int)n, p, last ? ")" : ",");
        col += n + 1;
        p += n;
        if (!last) {
            p++;
            while (*p == ' ')
                p++;
            ch_strbuf_addc(&sb, ' ');
            col++;
        }
    }
    return ch_strbuf_detach(&sb);
}

/* "    double ch_size = EXPR;" within UNIT_WIDTH, broken at spaces (the expression holds no
 * literal) and continued eight columns in. */
static char *size_statement(const char *expr)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "    double ch_size =");
    size_t col = sb.len;
    for (const char *p = expr; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        int last = p[n] == '\0';
        if (col + 1 + n + last > UNIT_WIDTH) {
            ch_strbuf_adds(&sb, "\n       ");
            col = 7;
        }
        ch_strbuf_addf(&sb, " %.*s", (int)n, p);
        col += 1 + n;
        p += n;
    }
    ch_strbuf_addc(&sb, ';');
    return ch_strbuf_detach(&sb);
}

/* Whether the len bytes at name are one of e's parameters (ch_entry_param). */
static int is_param(const ch_entry *e, const char *name, size_t len)
{
    char word[256];
    if (len >= sizeof word)
        return 0;
    memcpy(word, name, len);
    word[len] = '\0';
    return ch_entry_param(e, word) != NULL;
}

/* A reader of plain integer arithmetic over an entry's parameters (plain_arithmetic). */
typedef struct arith {
    const ch_entry *e;
    const char *p;
    int depth;
} arith;

static void arith_space(arith *a)
{
    while (*a->p == ' ' || *a->p == '\t')
        a->p++;
}

static int arith_expr(arith *a);

/* term := number | parameter | ( expr ) | - term | + term */
static int arith_term(arith *a)
{
    arith_space(a);
    const char *b = a->p;
    if (*b == '-' || *b == '+') {
        a->p++;
        return arith_term(a);
    }
    if (*b == '(') {
        if (++a->depth > 64)
            return 0;
        a->p++;
        if (!arith_expr(a))
            return 0;
        arith_space(a);
        if (*a->p != ')')
            return 0;
        a->p++;
        a->depth--;
        return 1;
    }
    if (isdigit((unsigned char)*b)) {
        while (isalnum((unsigned char)*a->p))
            a->p++;
        return 1;
    }
    if (isalpha((unsigned char)*b) || *b == '_') {
        while (isalnum((unsigned char)*a->p) || *a->p == '_')
            a->p++;
        return is_param(a->e, b, (size_t)(a->p - b));
    }
    return 0;
}

/* expr := term (op term)*, op one of + - * / % << >> */
static int arith_expr(arith *a)
{
    if (!arith_term(a))
        return 0;
    for (;;) {
        arith_space(a);
        const char *op = a->p;
        if ((op[0] == '<' && op[1] == '<') || (op[0] == '>' && op[1] == '>'))
            a->p += 2;
        else if (*op && strchr("+-*/%", *op))
            a->p++;
        else
            return 1;
        if (!arith_term(a))
            return 0;
    }
}

/* Whether expr is plain integer arithmetic of e's parameters: numbers, parameter names,
 * + - * / % << >> and parentheses. An entry without a kernel was never checked (a refused or
 * pending one, or one whose pragma is garbage), so its extents may hold anything; pasted into
 * the trace unit they must not stop the build. */
static int plain_arithmetic(const ch_entry *e, const char *expr)
{
    arith a = {e, expr, 0};
    if (!arith_expr(&a))
        return 0;
    arith_space(&a);
    return *a.p == '\0';
}

/* Whether every buffer's extent is plain arithmetic of the parameters. */
static int extents_plain(const ch_entry *e)
{
    for (size_t i = 0; i < e->n_params; i++)
        if (e->params[i].role != CH_ROLE_SCALAR && e->params[i].extent &&
            !plain_arithmetic(e, e->params[i].extent))
            return 0;
    return 1;
}

/* The traced call's size: the GPU dispatcher's measure (ch_emit_size_expr) computed from the
 * parameters, or -1 when no extent allows it. *about says what it measures (malloc'd). */
static char *size_of_call(const ch_entry *e, char **about)
{
    char *plain = NULL, *c_expr = NULL;
    if (!extents_plain(e) || ch_emit_size_expr(e, &plain, &c_expr) != 0) {
        *about = ch_xstrdup("A traced call's size is unknown: an extent is not plain arithmetic "
                            "of the parameters.");
        return size_statement("-1.0");
    }
    *about = ch_xasprintf("A traced call's size is the GPU dispatcher's measure, %s.", plain);
    char *statement = size_statement(c_expr);
    free(plain);
    free(c_expr);
    return statement;
}

/* What the host path of t is, for the entry's comment (malloc'd). */
static char *host_what(const ch_emit_traced *t, const char *host)
{
    const ch_entry *e = t->entry;
    if (t->reference)
        return ch_xasprintf("the test author's reference (%s__ch_reference), called through "
                            "%s, both compiled beside this unit",
                            e->name, host);
    if (e->is_static)
        return ch_xasprintf("the user's own body, %s__host in the user's object, reached "
                            "through its bridge %s (the function is static)",
                            e->name, host);
    return ch_xasprintf("the user's own body, compiled in the user's object as %s", host);
}

/* Appends the section of one entry: the host path's declaration and the traced function. */
static void emit_traced(const ch_emit_traced *t, int c_linkage, ch_strbuf *out)
{
    const ch_entry *e = t->entry;
    /* a static function's bridges (see ch_emit_host_source), and a reference compiled as C,
     * have C linkage in every language; the user's name has the file's linkage */
    int bridged = e->is_static && e->has_body; /* the host copy defines static NAME itself */
    const char *host_linkage = !c_linkage && (e->is_static || t->reference) ? "extern \"C\" " : "";
    const char *fn_linkage = !c_linkage && bridged ? "extern \"C\" " : "";
    char *host = ch_emit_traced_host_name(t);
    char *fn = bridged ? ch_emit_dispatch_name(e) : ch_xstrdup(e->name);
    const char *fallback = t->fallback ? t->fallback : "host";
    ch_strbuf params, args, comment, literal;
    ch_strbuf_init(&params);
    ch_strbuf_init(&args);
    ch_strbuf_init(&comment);
    ch_strbuf_init(&literal);
    ch_entry_cxx_params(e, &params);
    ch_entry_call_args(e, &args);
    char *reason = reason_line(t->reason);
    char *what = host_what(t, host);
    char *size_about = NULL;
    char *size = size_of_call(e, &size_about);
    char *about = ch_xasprintf("No kernel linked (%s): %s. The host path is %s. %s", fallback,
                               reason, what, size_about);
    add_comment(&comment, about);
    /* the GPU dispatcher's format, "ch-cc: NAME: PATH (WHY)" (bench/polybench.sh reads the
     * path): the unit's ch_trace puts "host (size S, " before this and ")" after it */
    char *line = ch_xasprintf("no kernel linked, %s: %s", fallback, reason);
    add_c_literal(&literal, line);
    char *host_head = ch_xasprintf("%svoid %s", host_linkage, host);
    char *fn_head = ch_xasprintf("%svoid %s", fn_linkage, fn);
    char *traced_head = ch_xasprintf("static void ch_%s_traced", e->name);
    char *host_decl = declaration(host_head, params.data);
    char *fn_decl = declaration(fn_head, params.data);
    char *traced_decl = declaration(traced_head, params.data);
    char *where_raw = ch_xasprintf("%s:%u", e->file, e->line);
    char *where = comment_text(where_raw);
    const char *vars[] = {"name",      e->name,   "where",   where,     "comment",     comment.data,
                          "host_decl", host_decl, "fn_decl", fn_decl,   "line",        literal.data,
                          "host",      host,      "args",    args.data, "traced_decl", traced_decl,
                          "size",      size,      NULL};
    char *text = ch_template_fill(ch_embedded_text(ch_template_files, "trace_entry.c.in"), vars);
    ch_strbuf_adds(out, text);
    free(text);
    free(where);
    free(where_raw);
    free(traced_decl);
    free(traced_head);
    free(fn_decl);
    free(host_decl);
    free(fn_head);
    free(host_head);
    free(line);
    free(about);
    free(size);
    free(size_about);
    free(what);
    free(reason);
    ch_strbuf_free(&literal);
    ch_strbuf_free(&comment);
    ch_strbuf_free(&args);
    ch_strbuf_free(&params);
    free(fn);
    free(host);
}

void ch_emit_trace_unit(const char *file, const ch_emit_traced *t, size_t n, int c_linkage,
                        ch_strbuf *out)
{
    char *name = comment_text(file);
    const char *vars[] = {"file", name, NULL};
    char *head = ch_template_fill(ch_embedded_text(ch_template_files, "trace_unit.c.in"), vars);
    ch_strbuf_adds(out, head);
    free(head);
    free(name);
    for (size_t i = 0; i < n; i++)
        emit_traced(&t[i], c_linkage, out);
}
