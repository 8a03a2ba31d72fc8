/* Integer expressions of extents, index bounds and tune sizes: a recursive-descent evaluator
 * over C's integer operators (+ - * / % << >>, unary + -, parentheses, min/max, literals, names)
 * with overflow and division-by-zero errors, and the name listing the validator relies on. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"

typedef struct parser {
    const char *src; /* whole expression, for messages */
    const char *p;
    const ch_ck_size *size; /* eval mode: values of names */
    ch_strvec *names;       /* collect mode (non-NULL): names are recorded, arithmetic skipped */
    ch_error *err;
    int depth; /* parentheses, min/max calls and unary signs open around p */
} parser;

/* Deepest nesting followed (as clang's default bracket depth): beyond it an error, never a
 * stack overflow on a hostile checklist or extent. */
#define MAX_DEPTH 256

static void skip_ws(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int fail_at(parser *ps, const char *what)
{
    skip_ws(ps);
    if (*ps->p == '\0')
        return ch_error_set(ps->err, "%s at end of '%s'", what, ps->src);
    return ch_error_set(ps->err, "%s at '%.20s' in '%s'", what, ps->p, ps->src);
}

static int parse_expr(parser *ps, long long *v);

/* Enters one level of nesting; -1 with err beyond MAX_DEPTH. The caller leaves it. */
static int deeper(parser *ps)
{
    if (++ps->depth > MAX_DEPTH)
        return ch_error_set(ps->err, "expression nested more than %d levels deep in '%.40s...'",
                            MAX_DEPTH, ps->src);
    return 0;
}

/* parse_expr one level deeper. */
static int nested_expr(parser *ps, long long *v)
{
    int rc = deeper(ps) != 0 ? -1 : parse_expr(ps, v);
    ps->depth--;
    return rc;
}

static int arith(parser *ps, char op, long long a, long long b, long long *r)
{
    if (ps->names) {
        *r = 0;
        return 0;
    }
    switch (op) {
    case '+':
        if (__builtin_add_overflow(a, b, r))
            return ch_error_set(ps->err, "integer overflow in '%s'", ps->src);
        return 0;
    case '-':
        if (__builtin_sub_overflow(a, b, r))
            return ch_error_set(ps->err, "integer overflow in '%s'", ps->src);
        return 0;
    case '*':
        if (__builtin_mul_overflow(a, b, r))
            return ch_error_set(ps->err, "integer overflow in '%s'", ps->src);
        return 0;
    case '/':
    case '%':
        if (b == 0)
            return ch_error_set(ps->err, "division by zero in '%s'", ps->src);
        if (a == (-9223372036854775807LL - 1) && b == -1)
            return ch_error_set(ps->err, "integer overflow in '%s'", ps->src);
        *r = op == '/' ? a / b : a % b;
        return 0;
    case '<':
    case '>':
        if (b < 0 || b > 62)
            return ch_error_set(ps->err, "shift by %lld out of range in '%s'", b, ps->src);
        if (op == '>') {
            *r = a >> b;
            return 0;
        }
        if (a < 0 || a > (9223372036854775807LL >> b))
            return ch_error_set(ps->err, "integer overflow in '%s'", ps->src);
        *r = a << b;
        return 0;
    }
    return ch_error_set(ps->err, "internal: operator '%c'", op);
}

static int parse_primary(parser *ps, long long *v)
{
    skip_ws(ps);
    const char *s = ps->p;
    if (*s == '(') {
        ps->p++;
        if (nested_expr(ps, v) != 0)
            return -1;
        skip_ws(ps);
        if (*ps->p != ')')
            return fail_at(ps, "expected ')'");
        ps->p++;
        return 0;
    }
    if (isdigit((unsigned char)*s)) {
        char *end;
        errno = 0;
        unsigned long long u = strtoull(s, &end, 0);
        if (errno == ERANGE || u > 9223372036854775807ULL)
            return ch_error_set(ps->err, "integer literal out of range in '%s'", ps->src);
        while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
            end++;
        if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
            return fail_at(ps, "malformed integer literal");
        ps->p = end;
        *v = (long long)u;
        return 0;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        const char *e = s;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        size_t len = (size_t)(e - s);
        ps->p = e;
        skip_ws(ps);
        if (*ps->p == '(' && len == 3 && (strncmp(s, "min", 3) == 0 || strncmp(s, "max", 3) == 0)) {
            int is_min = s[1] == 'i';
            long long a, b;
            ps->p++;
            if (nested_expr(ps, &a) != 0)
                return -1;
            skip_ws(ps);
            if (*ps->p != ',')
                return fail_at(ps, "expected ','");
            ps->p++;
            if (nested_expr(ps, &b) != 0)
                return -1;
            skip_ws(ps);
            if (*ps->p != ')')
                return fail_at(ps, "expected ')'");
            ps->p++;
            *v = is_min ? (a < b ? a : b) : (a > b ? a : b);
            return 0;
        }
        if (*ps->p == '(')
            return ch_error_set(ps->err, "unknown function '%.*s' in '%s'", (int)len, s, ps->src);
        char *name = ch_xstrndup(s, len);
        if (ps->names) {
            size_t i = 0;
            while (i < ps->names->len && strcmp(ps->names->items[i], name) != 0)
                i++;
            if (i == ps->names->len)
                ch_strvec_push_owned(ps->names, name);
            else
                free(name);
            *v = 0;
            return 0;
        }
        int rc = ch_ck_size_get(ps->size, name, v);
        if (rc != 0)
            ch_error_set(ps->err, "unknown name '%s'", name);
        free(name);
        return rc;
    }
    return fail_at(ps, *s ? "unexpected character" : "expected an operand");
}

static int parse_unary(parser *ps, long long *v)
{
    skip_ws(ps);
    if (*ps->p == '-' || *ps->p == '+') {
        char op = *ps->p++;
        long long x;
        int rc = deeper(ps) != 0 ? -1 : parse_unary(ps, &x);
        ps->depth--;
        if (rc != 0)
            return -1;
        return op == '-' ? arith(ps, '-', 0, x, v) : (*v = x, 0);
    }
    return parse_primary(ps, v);
}

static int parse_mul(parser *ps, long long *v)
{
    if (parse_unary(ps, v) != 0)
        return -1;
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '*' && op != '/' && op != '%')
            return 0;
        ps->p++;
        long long r;
        if (parse_unary(ps, &r) != 0 || arith(ps, op, *v, r, v) != 0)
            return -1;
    }
}

static int parse_add(parser *ps, long long *v)
{
    if (parse_mul(ps, v) != 0)
        return -1;
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            return 0;
        ps->p++;
        long long r;
        if (parse_mul(ps, &r) != 0 || arith(ps, op, *v, r, v) != 0)
            return -1;
    }
}

static int parse_expr(parser *ps, long long *v)
{
    if (parse_add(ps, v) != 0)
        return -1;
    for (;;) {
        skip_ws(ps);
        if (!((ps->p[0] == '<' && ps->p[1] == '<') || (ps->p[0] == '>' && ps->p[1] == '>')))
            return 0;
        char op = ps->p[0];
        ps->p += 2;
        long long r;
        if (parse_add(ps, &r) != 0 || arith(ps, op, *v, r, v) != 0)
            return -1;
    }
}

static int run(parser *ps, long long *v)
{
    if (!ps->src)
        return ch_error_set(ps->err, "missing expression");
    if (parse_expr(ps, v) != 0)
        return -1;
    skip_ws(ps);
    if (*ps->p != '\0')
        return fail_at(ps, ps->p == ps->src ? "expected an operand" : "unexpected text");
    return 0;
}

int ch_checklist_eval(const char *expr, const ch_ck_size *size, long long *value, ch_error *err)
{
    parser ps = {expr, expr, size, NULL, err, 0};
    long long v = 0;
    if (run(&ps, &v) != 0)
        return -1;
    *value = v;
    return 0;
}

int ch_checklist_expr_names(const char *expr, ch_strvec *names, ch_error *err)
{
    parser ps = {expr, expr, NULL, names, err, 0};
    long long v;
    return run(&ps, &v);
}
