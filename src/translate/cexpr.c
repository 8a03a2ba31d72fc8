/* CUDA-oriented printing of body IR (ch/cexpr.h): expressions with minimal parentheses,
 * float literals in their own precision, math calls in the precision the user wrote (float stays
 * float), and C99 array parameters flattened to row-major subscripts of device pointers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cexpr.h"

/* C math functions with a float twin named NAME "f", all of whose parameters are floating. */
static const char *const math_fns[] = {
    "sqrt",  "cbrt", "exp",    "exp2",   "expm1",     "log",       "log2", "log10", "log1p",
    "pow",   "sin",  "cos",    "tan",    "asin",      "acos",      "atan", "atan2", "sinh",
    "cosh",  "tanh", "asinh",  "acosh",  "atanh",     "fabs",      "fmin", "fmax",  "fmod",
    "floor", "ceil", "round",  "trunc",  "hypot",     "erf",       "erfc", "fma",   "copysign",
    "fdim",  "rint", "tgamma", "lgamma", "nearbyint", "remainder",
};

/* The double name of a math function (strips a trailing f of a float twin), or NULL. */
static const char *math_base(const char *name, int *is_float_form)
{
    *is_float_form = 0;
    for (size_t i = 0; i < sizeof math_fns / sizeof *math_fns; i++) {
        size_t n = strlen(math_fns[i]);
        if (strcmp(name, math_fns[i]) == 0)
            return math_fns[i];
        if (strncmp(name, math_fns[i], n) == 0 && name[n] == 'f' && name[n + 1] == '\0') {
            *is_float_form = 1;
            return math_fns[i];
        }
    }
    return NULL;
}

static int is_int_fn(const char *name)
{
    return strcmp(name, "abs") == 0 || strcmp(name, "labs") == 0 || strcmp(name, "llabs") == 0;
}

/* Nonzero when the builtin agent knows how to print a call to NAME on the device. */
int ch_cx_known_call(const char *name)
{
    int f;
    return math_base(name, &f) != NULL || is_int_fn(name);
}

int ch_cx_callable(const ch_entry *e, const char *name)
{
    const ch_entry_helper *h = ch_entry_helper_named(e, name);
    return ch_cx_known_call(name) || (h && h->device_ok);
}

void ch_cx_helpers(const ch_entry *e, ch_strbuf *out)
{
    int any = 0;
    for (size_t i = 0; i < e->n_helpers; i++)
        any |= e->helpers[i].device_ok;
    if (!any)
        return;
    ch_strbuf_adds(out, "/* Functions of the user's file that the body calls, as clang printed "
                        "them from the\n * source (macros expanded), compiled for host and "
                        "device. Renamed so that none meets\n * a CUDA function of the same "
                        "name. */\n");
    for (size_t i = 0; i < e->n_helpers; i++)
        if (e->helpers[i].device_ok)
            ch_strbuf_addf(out, "#define %s ch_user_%s\n", e->helpers[i].name, e->helpers[i].name);
    for (size_t i = 0; i < e->n_helpers; i++) {
        const ch_entry_helper *h = &e->helpers[i];
        if (!h->device_ok)
            continue;
        ch_strbuf_add(out, h->source, h->definition_at);
        ch_strbuf_addf(out, "__host__ __device__ %s", h->source + h->definition_at);
        if (out->len && out->data[out->len - 1] != '\n')
            ch_strbuf_addc(out, '\n');
    }
    ch_strbuf_addc(out, '\n');
}

static ch_scalar strip_parse(const char *ctype)
{
    if (!ctype)
        return CH_T_UNKNOWN;
    while (strncmp(ctype, "const ", 6) == 0 || strncmp(ctype, "volatile ", 9) == 0)
        ctype = strchr(ctype, ' ') + 1;
    if (strchr(ctype, '*') || strchr(ctype, '['))
        return CH_T_UNKNOWN;
    return ch_scalar_parse(ctype);
}

ch_scalar ch_cx_local_type(const ch_entry *e, const char *name)
{
    const ch_ir *d = ch_ir_find(e->body, CH_IR_DECL, name);
    if (!d)
        return CH_T_UNKNOWN;
    ch_scalar t = strip_parse(d->ctype);
    if (t != CH_T_UNKNOWN)
        return t;
    /* a local array: its element type */
    if (d->ctype && strchr(d->ctype, '[')) {
        char *base = ch_xstrndup(d->ctype, (size_t)(strchr(d->ctype, '[') - d->ctype));
        size_t n = strlen(base);
        while (n && base[n - 1] == ' ')
            base[--n] = '\0';
        t = strip_parse(base);
        free(base);
    }
    return t;
}

static const ch_param *param_of(const ch_entry *e, const ch_ir *var)
{
    if (var->param_index >= 0 && (size_t)var->param_index < e->n_params)
        return &e->params[var->param_index];
    return var->text ? ch_entry_param(e, var->text) : NULL;
}

static int rank(ch_scalar t)
{
    if (t == CH_T_DOUBLE)
        return 3;
    if (t == CH_T_FLOAT)
        return 2;
    return ch_scalar_is_integer(t) ? 1 : 0;
}

static ch_scalar wider(ch_scalar a, ch_scalar b)
{
    return rank(a) >= rank(b) ? a : b;
}

static const ch_ir *index_base(const ch_ir *e)
{
    while (e && e->kind == CH_IR_INDEX)
        e = e->kids[0];
    return e;
}

ch_scalar ch_cx_expr_type(const ch_cx *em, const ch_ir *e)
{
    if (!e)
        return CH_T_UNKNOWN;
    switch (e->kind) {
    case CH_IR_INT_LIT:
        return e->type != CH_T_UNKNOWN ? e->type : CH_T_INT;
    case CH_IR_FLOAT_LIT:
        if (e->type == CH_T_FLOAT || e->type == CH_T_DOUBLE)
            return e->type;
        return e->text && strpbrk(e->text, "fF") && !strpbrk(e->text, "xX") ? CH_T_FLOAT
                                                                            : CH_T_DOUBLE;
    case CH_IR_VAR: {
        const ch_param *p = e->param_index >= 0 ? param_of(em->entry, e) : NULL;
        if (p)
            return p->elem;
        ch_scalar t = e->text ? ch_cx_local_type(em->entry, e->text) : CH_T_UNKNOWN;
        return t != CH_T_UNKNOWN ? t : e->type;
    }
    case CH_IR_INDEX: {
        const ch_ir *b = index_base(e);
        if (b && b->kind == CH_IR_VAR) {
            const ch_param *p = b->param_index >= 0 ? param_of(em->entry, b) : NULL;
            if (p)
                return p->elem;
            ch_scalar t = b->text ? ch_cx_local_type(em->entry, b->text) : CH_T_UNKNOWN;
            if (t != CH_T_UNKNOWN)
                return t;
        }
        return e->type;
    }
    case CH_IR_CAST: {
        ch_scalar t = strip_parse(e->ctype);
        return t != CH_T_UNKNOWN ? t : e->type;
    }
    case CH_IR_BINARY: {
        const char *op = e->text ? e->text : "";
        if (!strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">=") ||
            !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "&&") || !strcmp(op, "||"))
            return CH_T_INT;
        if (!strcmp(op, ","))
            return ch_cx_expr_type(em, e->kids[1]);
        if (!strcmp(op, "<<") || !strcmp(op, ">>"))
            return ch_cx_expr_type(em, e->kids[0]);
        return wider(ch_cx_expr_type(em, e->kids[0]), ch_cx_expr_type(em, e->kids[1]));
    }
    case CH_IR_UNARY:
        if (e->text && strcmp(e->text, "!") == 0)
            return CH_T_INT;
        return ch_cx_expr_type(em, e->kids[0]);
    case CH_IR_ASSIGN:
        return ch_cx_expr_type(em, e->kids[0]);
    case CH_IR_COND:
        return wider(ch_cx_expr_type(em, e->kids[1]), ch_cx_expr_type(em, e->kids[2]));
    case CH_IR_CALL: {
        int ff;
        if (!e->text)
            return e->type;
        if (is_int_fn(e->text))
            return e->type != CH_T_UNKNOWN ? e->type : CH_T_INT;
        if (!math_base(e->text, &ff))
            return e->type;
        if (ff)
            return CH_T_FLOAT;
        ch_scalar w = CH_T_UNKNOWN;
        for (size_t i = 0; i < e->nkids; i++)
            w = wider(w, ch_cx_expr_type(em, e->kids[i]));
        return w == CH_T_FLOAT ? CH_T_FLOAT : CH_T_DOUBLE;
    }
    default:
        return e->type;
    }
}

/* Shortest spelling that reads back as the same value in the literal's precision. */
static void emit_float(ch_strbuf *out, double v, int is_float)
{
    char buf[64];
    if (isinf(v)) {
        ch_strbuf_adds(out, is_float ? "__int_as_float(0x7f800000)"
                                     : "__longlong_as_double(0x7ff0000000000000ULL)");
        return;
    }
    for (int digits = is_float ? 6 : 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (is_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    ch_strbuf_adds(out, buf);
    if (!strpbrk(buf, ".eEn"))
        ch_strbuf_adds(out, ".0");
    if (is_float)
        ch_strbuf_addc(out, 'f');
}

static void emit_prec(const ch_cx *em, const ch_ir *e, int min);

/* A[i][j] on a C99 array parameter double A[n][m] becomes A[(size_t)(i) * (m) + (j)]. */
static int emit_array_index(const ch_cx *em, const ch_ir *e)
{
    const ch_ir *subs[8];
    size_t n = 0;
    const ch_ir *b = e;
    while (b->kind == CH_IR_INDEX && n < 8) {
        subs[n++] = b->kids[1];
        b = b->kids[0];
    }
    if (b->kind != CH_IR_VAR || b->param_index < 0)
        return 0;
    const ch_param *p = param_of(em->entry, b);
    if (!p || p->role != CH_ROLE_ARRAY || p->ndims < 2 || n != p->ndims)
        return 0;
    const char *as = em->rename ? em->rename(em->ctx, b->text) : NULL;
    ch_strbuf_adds(em->out, as ? as : b->text);
    ch_strbuf_addc(em->out, '[');
    /* subs[] is innermost first: ((i * d1 + j) * d2 + k) */
    for (size_t d = 2; d < n; d++)
        ch_strbuf_addc(em->out, '(');
    ch_strbuf_adds(em->out, "(size_t)(");
    emit_prec(em, subs[n - 1], CH_PREC_COMMA + 1);
    ch_strbuf_addc(em->out, ')');
    for (size_t d = 1; d < n; d++) {
        ch_strbuf_addf(em->out, " * (%s) + (", p->dims[d]);
        emit_prec(em, subs[n - 1 - d], CH_PREC_COMMA + 1);
        ch_strbuf_adds(em->out, d + 1 < n ? "))" : ")");
    }
    ch_strbuf_addc(em->out, ']');
    return 1;
}

static void emit_call(const ch_cx *em, const ch_ir *e)
{
    int ff;
    const char *base = e->text ? math_base(e->text, &ff) : NULL;
    int use_float = base && ch_cx_expr_type(em, e) == CH_T_FLOAT;
    if (base) {
        ch_strbuf_adds(em->out, base);
        if (use_float)
            ch_strbuf_addc(em->out, 'f');
    } else {
        ch_strbuf_adds(em->out, e->text ? e->text : "?");
    }
    ch_strbuf_addc(em->out, '(');
    for (size_t i = 0; i < e->nkids; i++) {
        const ch_ir *a = e->kids[i];
        if (i)
            ch_strbuf_adds(em->out, ", ");
        /* C converts an integer argument to the parameter's floating type; in CUDA C++ the
         * overloads would pick the host library's integer templates (`sqrt(n)`, `fmin(x, 1)`),
         * which device code cannot call. Convert it as C does. */
        if (base && a && a->kind == CH_IR_INT_LIT) {
            emit_float(em->out, (double)a->ival, use_float);
        } else if (base && ch_scalar_is_integer(ch_cx_expr_type(em, a))) {
            ch_strbuf_adds(em->out, use_float ? "(float)" : "(double)");
            emit_prec(em, a, CH_PREC_UNARY);
        } else {
            emit_prec(em, a, CH_PREC_ASSIGN);
        }
    }
    ch_strbuf_addc(em->out, ')');
}

/* A floating product as __fmul_rn / __dmul_rn, which nvcc never contracts with an addition
 * into a fused multiply-add: the result is rounded after the product as C on the host does.
 * 0 when the product is not floating (printed as written). */
static int emit_exact_mul(const ch_cx *em, const ch_ir *e)
{
    ch_scalar t = ch_cx_expr_type(em, e);
    if (t != CH_T_FLOAT && t != CH_T_DOUBLE)
        return 0;
    /* C's usual conversions: a float operand of a double product is widened first, an integer
     * one converted to the product's type; the intrinsic's parameters do the same */
    ch_strbuf_adds(em->out, t == CH_T_FLOAT ? "__fmul_rn(" : "__dmul_rn(");
    emit_prec(em, e->kids[0], CH_PREC_ASSIGN);
    ch_strbuf_adds(em->out, ", ");
    emit_prec(em, e->kids[1], CH_PREC_ASSIGN);
    ch_strbuf_addc(em->out, ')');
    return 1;
}

static void emit_prec(const ch_cx *em, const ch_ir *e, int min)
{
    ch_strbuf *out = em->out;
    if (!e) {
        ch_strbuf_adds(out, "/* missing */ 0");
        return;
    }
    int p = ch_ir_prec(e);
    int paren = p < min;
    if (paren)
        ch_strbuf_addc(out, '(');
    switch (e->kind) {
    case CH_IR_INT_LIT:
        if (e->text)
            ch_strbuf_adds(out, e->text);
        else
            ch_strbuf_addf(out, "%lld", e->ival);
        break;
    case CH_IR_FLOAT_LIT:
        emit_float(out, e->fval, ch_cx_expr_type(em, e) == CH_T_FLOAT);
        break;
    case CH_IR_VAR: {
        const char *as = em->rename && e->text ? em->rename(em->ctx, e->text) : NULL;
        ch_strbuf_adds(out, as ? as : e->text ? e->text : "?");
        break;
    }
    case CH_IR_INDEX:
        if (em->access && em->access(em->ctx, e, out))
            break;
        if (!emit_array_index(em, e)) {
            emit_prec(em, e->kids[0], CH_PREC_POSTFIX);
            ch_strbuf_addc(out, '[');
            emit_prec(em, e->kids[1], CH_PREC_COMMA);
            ch_strbuf_addc(out, ']');
        }
        break;
    case CH_IR_BINARY: {
        const char *op = e->text ? e->text : ",";
        if (em->exact_mul && strcmp(op, "*") == 0 && emit_exact_mul(em, e))
            break;
        emit_prec(em, e->kids[0], p);
        ch_strbuf_adds(out, strcmp(op, ",") == 0 ? ", " : " ");
        if (strcmp(op, ",") != 0) {
            ch_strbuf_adds(out, op);
            ch_strbuf_addc(out, ' ');
        }
        emit_prec(em, e->kids[1], p + 1);
        break;
    }
    case CH_IR_UNARY:
        if (e->postfix) {
            emit_prec(em, e->kids[0], CH_PREC_POSTFIX);
            ch_strbuf_adds(out, e->text);
        } else {
            ch_strbuf_adds(out, e->text);
            /* "- -x" and "+ +x" must not fuse into -- / ++ */
            const ch_ir *k = e->kids[0];
            if (k && k->kind == CH_IR_UNARY && !k->postfix && k->text && e->text &&
                k->text[0] == e->text[0])
                ch_strbuf_addc(out, ' ');
            emit_prec(em, k, CH_PREC_UNARY);
        }
        break;
    case CH_IR_ASSIGN:
        emit_prec(em, e->kids[0], CH_PREC_UNARY);
        ch_strbuf_addf(out, " %s ", e->text ? e->text : "=");
        emit_prec(em, e->kids[1], CH_PREC_ASSIGN);
        break;
    case CH_IR_CALL:
        emit_call(em, e);
        break;
    case CH_IR_CAST:
        ch_strbuf_addf(out, "(%s)", e->ctype ? e->ctype : "?");
        emit_prec(em, e->kids[0], CH_PREC_UNARY);
        break;
    case CH_IR_COND:
        emit_prec(em, e->kids[0], CH_PREC_LOR);
        ch_strbuf_adds(out, " ? ");
        emit_prec(em, e->kids[1], CH_PREC_COMMA);
        ch_strbuf_adds(out, " : ");
        emit_prec(em, e->kids[2], CH_PREC_COND);
        break;
    default:
        ch_strbuf_adds(out, e->text ? e->text : "/* ? */");
        break;
    }
    if (paren)
        ch_strbuf_addc(out, ')');
}

void ch_cx_expr(const ch_cx *em, const ch_ir *e)
{
    emit_prec(em, e, CH_PREC_COMMA);
}

static void indent_to(ch_strbuf *out, int indent)
{
    for (int i = 0; i < indent; i++)
        ch_strbuf_adds(out, "    ");
}

/* "double [4]" name -> "double name[4]"; "float *" name -> "float *name". */
static void emit_declarator(ch_strbuf *out, const char *ctype, const char *name)
{
    const char *br = strchr(ctype, '[');
    if (br) {
        size_t n = (size_t)(br - ctype);
        while (n && ctype[n - 1] == ' ')
            n--;
        ch_strbuf_add(out, ctype, n);
        ch_strbuf_addf(out, " %s%s", name, br);
        return;
    }
    size_t n = strlen(ctype);
    ch_strbuf_addf(out, "%s%s%s", ctype, n && ctype[n - 1] == '*' ? "" : " ", name);
}

/* The type a `for (v = ...)` init must declare v with, or NULL when v is declared already. */
static const char *declared_counter(const ch_cx *em, const char *name)
{
    return em->declare_counter && name ? em->declare_counter(em->ctx, name) : NULL;
}

static void emit_decl_inline(const ch_cx *em, const ch_ir *s)
{
    emit_declarator(em->out, s->ctype ? s->ctype : "int", s->text ? s->text : "?");
    if (s->nkids && s->kids[0]) {
        ch_strbuf_adds(em->out, " = ");
        emit_prec(em, s->kids[0], CH_PREC_ASSIGN);
    }
}

/* A body of a for/while/if: always braced. */
static void emit_body(const ch_cx *em, const ch_ir *s, int indent)
{
    ch_strbuf_adds(em->out, " {\n");
    if (s && s->kind == CH_IR_BLOCK) {
        for (size_t i = 0; i < s->nkids; i++)
            ch_cx_stmt(em, s->kids[i], indent + 1);
    } else if (s) {
        ch_cx_stmt(em, s, indent + 1);
    }
    indent_to(em->out, indent);
    ch_strbuf_addc(em->out, '}');
}

void ch_cx_stmt(const ch_cx *em, const ch_ir *s, int indent)
{
    ch_strbuf *out = em->out;
    if (!s)
        return;
    switch (s->kind) {
    case CH_IR_BLOCK:
        indent_to(out, indent);
        emit_body(em, s, indent);
        ch_strbuf_addc(out, '\n');
        return;
    case CH_IR_NULL_STMT:
        return;
    default:
        break;
    }
    indent_to(out, indent);
    switch (s->kind) {
    case CH_IR_DECL:
        emit_decl_inline(em, s);
        ch_strbuf_adds(out, ";\n");
        break;
    case CH_IR_EXPR_STMT:
        ch_cx_expr(em, s->kids[0]);
        ch_strbuf_adds(out, ";\n");
        break;
    case CH_IR_FOR: {
        const ch_ir *init = s->kids[0];
        ch_strbuf_adds(out, "for (");
        if (init && init->kind == CH_IR_DECL) {
            emit_decl_inline(em, init);
        } else if (init && init->kind == CH_IR_EXPR_STMT) {
            const ch_ir *x = init->kids[0];
            /* a counter declared at the top of the C function is declared by its loop here */
            const char *t = x->kind == CH_IR_ASSIGN && strcmp(x->text, "=") == 0 &&
                                    x->kids[0]->kind == CH_IR_VAR
                                ? declared_counter(em, x->kids[0]->text)
                                : NULL;
            if (t)
                ch_strbuf_addf(out, "%s ", t);
            ch_cx_expr(em, x);
        }
        ch_strbuf_adds(out, "; ");
        if (s->kids[1])
            ch_cx_expr(em, s->kids[1]);
        ch_strbuf_adds(out, "; ");
        if (s->kids[2])
            ch_cx_expr(em, s->kids[2]);
        ch_strbuf_addc(out, ')');
        emit_body(em, s->kids[3], indent);
        ch_strbuf_addc(out, '\n');
        break;
    }
    case CH_IR_WHILE:
        ch_strbuf_adds(out, "while (");
        ch_cx_expr(em, s->kids[0]);
        ch_strbuf_addc(out, ')');
        emit_body(em, s->kids[1], indent);
        ch_strbuf_addc(out, '\n');
        break;
    case CH_IR_DO:
        ch_strbuf_adds(out, "do");
        emit_body(em, s->kids[0], indent);
        ch_strbuf_adds(out, " while (");
        ch_cx_expr(em, s->kids[1]);
        ch_strbuf_adds(out, ");\n");
        break;
    case CH_IR_IF:
        ch_strbuf_adds(out, "if (");
        ch_cx_expr(em, s->kids[0]);
        ch_strbuf_addc(out, ')');
        emit_body(em, s->kids[1], indent);
        if (s->nkids > 2 && s->kids[2]) {
            ch_strbuf_adds(out, " else");
            emit_body(em, s->kids[2], indent);
        }
        ch_strbuf_addc(out, '\n');
        break;
    case CH_IR_RETURN:
        ch_strbuf_adds(out, "return;\n");
        break;
    case CH_IR_BREAK:
        ch_strbuf_adds(out, "break;\n");
        break;
    case CH_IR_CONTINUE:
        ch_strbuf_adds(out, "continue;\n");
        break;
    default:
        ch_strbuf_addf(out, "%s;\n", s->text ? s->text : "/* ? */");
        break;
    }
}
