/* Body IR back to text: ch_ir_print writes readable C (parentheses only where C precedence
 * needs them, so printing a parsed body reproduces its meaning), ch_ir_dump a one-line
 * s-expression for tests and keys. Invariant: both are pure functions of the tree. */
#include <string.h>

#include "ch/ir.h"

static int binary_prec(const char *op)
{
    static const struct {
        const char *op;
        int prec;
    } table[] = {
        {",", CH_PREC_COMMA},  {"||", CH_PREC_LOR},   {"&&", CH_PREC_LAND}, {"|", CH_PREC_BOR},
        {"^", CH_PREC_BXOR},   {"&", CH_PREC_BAND},   {"==", CH_PREC_EQ},   {"!=", CH_PREC_EQ},
        {"<", CH_PREC_REL},    {">", CH_PREC_REL},    {"<=", CH_PREC_REL},  {">=", CH_PREC_REL},
        {"<<", CH_PREC_SHIFT}, {">>", CH_PREC_SHIFT}, {"+", CH_PREC_ADD},   {"-", CH_PREC_ADD},
        {"*", CH_PREC_MUL},    {"/", CH_PREC_MUL},    {"%", CH_PREC_MUL}};
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (strcmp(table[i].op, op) == 0)
            return table[i].prec;
    return CH_PREC_COMMA;
}

int ch_ir_prec(const ch_ir *e)
{
    switch (e->kind) {
    case CH_IR_BINARY:
        return binary_prec(e->text ? e->text : ",");
    case CH_IR_ASSIGN:
        return CH_PREC_ASSIGN;
    case CH_IR_COND:
        return CH_PREC_COND;
    case CH_IR_UNARY:
        return e->postfix ? CH_PREC_POSTFIX : CH_PREC_UNARY;
    case CH_IR_CAST:
        return CH_PREC_UNARY;
    case CH_IR_INDEX:
    case CH_IR_CALL:
        return CH_PREC_POSTFIX;
    default:
        return CH_PREC_PRIMARY;
    }
}

typedef struct printer {
    ch_strbuf *out;
    ch_ir_rename_fn rename;
    void *ctx;
} printer;

static void print_expr(printer *p, const ch_ir *e, int min_prec);

static void print_kid(printer *p, const ch_ir *e, size_t i, int min_prec)
{
    if (i < e->nkids && e->kids[i])
        print_expr(p, e->kids[i], min_prec);
    else
        ch_strbuf_adds(p->out, "/*missing*/0");
}

static void print_unary(printer *p, const ch_ir *e)
{
    const char *op = e->text ? e->text : "";
    if (e->postfix) {
        print_kid(p, e, 0, CH_PREC_POSTFIX);
        ch_strbuf_adds(p->out, op);
        return;
    }
    ch_strbuf_adds(p->out, op);
    size_t mark = p->out->len;
    print_kid(p, e, 0, CH_PREC_UNARY);
    /* "- -x" and "+ ++x" must not fuse into "--x" / "+++x" */
    char first = p->out->data[mark];
    if ((first == '-' || first == '+') && op[0] == first) {
        ch_strbuf tail;
        ch_strbuf_init(&tail);
        ch_strbuf_adds(&tail, p->out->data + mark);
        p->out->len = mark;
        p->out->data[mark] = '\0';
        ch_strbuf_addc(p->out, ' ');
        ch_strbuf_adds(p->out, tail.data);
        ch_strbuf_free(&tail);
    }
}

static void print_expr_inner(printer *p, const ch_ir *e)
{
    switch (e->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
    case CH_IR_OPAQUE:
        ch_strbuf_adds(p->out, e->text ? e->text : "");
        break;
    case CH_IR_VAR: {
        const char *r = p->rename && e->text ? p->rename(e->text, p->ctx) : NULL;
        ch_strbuf_adds(p->out, r ? r : e->text ? e->text : "");
        break;
    }
    case CH_IR_INDEX:
        print_kid(p, e, 0, CH_PREC_POSTFIX);
        ch_strbuf_addc(p->out, '[');
        print_kid(p, e, 1, CH_PREC_COMMA);
        ch_strbuf_addc(p->out, ']');
        break;
    case CH_IR_BINARY: {
        int prec = ch_ir_prec(e);
        print_kid(p, e, 0, prec);
        ch_strbuf_addf(p->out, strcmp(e->text, ",") == 0 ? "%s " : " %s ", e->text);
        print_kid(p, e, 1, prec + 1);
        break;
    }
    case CH_IR_ASSIGN:
        print_kid(p, e, 0, CH_PREC_UNARY);
        ch_strbuf_addf(p->out, " %s ", e->text ? e->text : "=");
        print_kid(p, e, 1, CH_PREC_ASSIGN);
        break;
    case CH_IR_UNARY:
        print_unary(p, e);
        break;
    case CH_IR_CALL:
        ch_strbuf_adds(p->out, e->text ? e->text : "");
        ch_strbuf_addc(p->out, '(');
        for (size_t i = 0; i < e->nkids; i++) {
            if (i)
                ch_strbuf_adds(p->out, ", ");
            print_kid(p, e, i, CH_PREC_ASSIGN);
        }
        ch_strbuf_addc(p->out, ')');
        break;
    case CH_IR_CAST:
        ch_strbuf_addf(p->out, "(%s)", e->ctype ? e->ctype : "");
        print_kid(p, e, 0, CH_PREC_UNARY);
        break;
    case CH_IR_COND:
        print_kid(p, e, 0, CH_PREC_LOR);
        ch_strbuf_adds(p->out, " ? ");
        print_kid(p, e, 1, CH_PREC_COMMA);
        ch_strbuf_adds(p->out, " : ");
        print_kid(p, e, 2, CH_PREC_COND);
        break;
    default:
        ch_strbuf_adds(p->out, "/*statement*/0");
    }
}

static void print_expr(printer *p, const ch_ir *e, int min_prec)
{
    int paren = ch_ir_prec(e) < min_prec;
    if (paren)
        ch_strbuf_addc(p->out, '(');
    print_expr_inner(p, e);
    if (paren)
        ch_strbuf_addc(p->out, ')');
}

static void indent_to(printer *p, int indent)
{
    for (int i = 0; i < indent; i++)
        ch_strbuf_adds(p->out, "    ");
}

/* "double tmp[10]" from ctype "double [10]", "float *q" from "float *". */
static void print_declarator(printer *p, const ch_ir *d)
{
    const char *t = d->ctype ? d->ctype : "int";
    const char *br = strchr(t, '[');
    size_t head = br ? (size_t)(br - t) : strlen(t);
    while (head > 0 && t[head - 1] == ' ')
        head--;
    ch_strbuf_add(p->out, t, head);
    if (head == 0 || t[head - 1] != '*')
        ch_strbuf_addc(p->out, ' ');
    ch_strbuf_adds(p->out, d->text ? d->text : "");
    if (br)
        ch_strbuf_adds(p->out, br);
    if (d->nkids > 0 && d->kids[0]) {
        ch_strbuf_adds(p->out, " = ");
        print_expr(p, d->kids[0], CH_PREC_ASSIGN);
    }
}

/* A statement without its ';' and newline, as in a for header. */
static void print_simple(printer *p, const ch_ir *s)
{
    if (!s)
        return;
    if (s->kind == CH_IR_DECL)
        print_declarator(p, s);
    else if (s->kind == CH_IR_EXPR_STMT && s->nkids > 0)
        print_expr(p, s->kids[0], CH_PREC_COMMA);
    else if (s->kind != CH_IR_NULL_STMT && s->kind < CH_IR_INT_LIT)
        ch_strbuf_adds(p->out, "/*statement*/");
    else if (s->kind >= CH_IR_INT_LIT)
        print_expr(p, s, CH_PREC_COMMA);
}

static void print_stmt(printer *p, const ch_ir *s, int indent);

/* The body of for/while/if: a block on the same line, anything else on the next. */
static void print_body(printer *p, const ch_ir *s, int indent)
{
    if (s && s->kind == CH_IR_BLOCK) {
        ch_strbuf_addc(p->out, ' ');
        print_stmt(p, s, indent);
    } else {
        ch_strbuf_addc(p->out, '\n');
        indent_to(p, indent + 1);
        print_stmt(p, s, indent + 1);
    }
}

static const ch_ir *kid(const ch_ir *s, size_t i)
{
    return i < s->nkids ? s->kids[i] : NULL;
}

static void print_stmt(printer *p, const ch_ir *s, int indent)
{
    if (!s) {
        ch_strbuf_adds(p->out, ";\n");
        return;
    }
    switch (s->kind) {
    case CH_IR_BLOCK:
        ch_strbuf_adds(p->out, "{\n");
        for (size_t i = 0; i < s->nkids; i++) {
            indent_to(p, indent + 1);
            print_stmt(p, s->kids[i], indent + 1);
        }
        indent_to(p, indent);
        ch_strbuf_adds(p->out, "}\n");
        break;
    case CH_IR_FOR:
        ch_strbuf_adds(p->out, "for (");
        print_simple(p, kid(s, 0));
        ch_strbuf_adds(p->out, kid(s, 1) ? "; " : ";");
        if (kid(s, 1))
            print_expr(p, kid(s, 1), CH_PREC_COMMA);
        ch_strbuf_adds(p->out, kid(s, 2) ? "; " : ";");
        if (kid(s, 2))
            print_expr(p, kid(s, 2), CH_PREC_COMMA);
        ch_strbuf_addc(p->out, ')');
        print_body(p, kid(s, 3), indent);
        break;
    case CH_IR_WHILE:
        ch_strbuf_adds(p->out, "while (");
        print_kid(p, s, 0, CH_PREC_COMMA);
        ch_strbuf_addc(p->out, ')');
        print_body(p, kid(s, 1), indent);
        break;
    case CH_IR_DO:
        ch_strbuf_adds(p->out, "do");
        print_body(p, kid(s, 0), indent);
        indent_to(p, indent);
        ch_strbuf_adds(p->out, "while (");
        print_kid(p, s, 1, CH_PREC_COMMA);
        ch_strbuf_adds(p->out, ");\n");
        break;
    case CH_IR_IF:
        ch_strbuf_adds(p->out, "if (");
        print_kid(p, s, 0, CH_PREC_COMMA);
        ch_strbuf_addc(p->out, ')');
        print_body(p, kid(s, 1), indent);
        if (kid(s, 2)) {
            indent_to(p, indent);
            ch_strbuf_adds(p->out, "else");
            print_body(p, kid(s, 2), indent);
        }
        break;
    case CH_IR_DECL:
    case CH_IR_EXPR_STMT:
        print_simple(p, s);
        ch_strbuf_adds(p->out, ";\n");
        break;
    case CH_IR_RETURN:
        ch_strbuf_adds(p->out, kid(s, 0) ? "return " : "return");
        if (kid(s, 0))
            print_expr(p, kid(s, 0), CH_PREC_COMMA);
        ch_strbuf_adds(p->out, ";\n");
        break;
    case CH_IR_BREAK:
        ch_strbuf_adds(p->out, "break;\n");
        break;
    case CH_IR_CONTINUE:
        ch_strbuf_adds(p->out, "continue;\n");
        break;
    case CH_IR_NULL_STMT:
        ch_strbuf_adds(p->out, ";\n");
        break;
    case CH_IR_OPAQUE:
        ch_strbuf_adds(p->out, s->text ? s->text : "");
        ch_strbuf_adds(p->out, "\n");
        break;
    default:
        print_expr(p, s, CH_PREC_COMMA);
        ch_strbuf_adds(p->out, ";\n");
    }
}

void ch_ir_print(ch_strbuf *out, const ch_ir *ir, int indent, ch_ir_rename_fn rename, void *ctx)
{
    printer p = {out, rename, ctx};
    indent_to(&p, indent);
    print_stmt(&p, ir, indent);
}

static const char *dump_head(const ch_ir *ir)
{
    static const char *const heads[] = {[CH_IR_BLOCK] = "block",    [CH_IR_FOR] = "for",
                                        [CH_IR_WHILE] = "while",    [CH_IR_DO] = "do",
                                        [CH_IR_IF] = "if",          [CH_IR_DECL] = "decl",
                                        [CH_IR_EXPR_STMT] = "expr", [CH_IR_RETURN] = "return",
                                        [CH_IR_BREAK] = "break",    [CH_IR_CONTINUE] = "continue",
                                        [CH_IR_NULL_STMT] = "null", [CH_IR_INDEX] = "[]",
                                        [CH_IR_CALL] = "call",      [CH_IR_CAST] = "cast",
                                        [CH_IR_COND] = "?:",        [CH_IR_OPAQUE] = "opaque"};
    return heads[ir->kind] ? heads[ir->kind] : "?";
}

void ch_ir_dump(ch_strbuf *out, const ch_ir *ir)
{
    if (!ir) {
        ch_strbuf_addc(out, '_');
        return;
    }
    switch (ir->kind) {
    case CH_IR_INT_LIT:
    case CH_IR_FLOAT_LIT:
    case CH_IR_VAR:
        ch_strbuf_adds(out, ir->text ? ir->text : "?");
        return;
    case CH_IR_OPAQUE:
        ch_strbuf_addf(out, "(opaque \"%s\")", ir->text ? ir->text : "");
        return;
    case CH_IR_BINARY:
    case CH_IR_ASSIGN:
        ch_strbuf_addf(out, "(%s", ir->text ? ir->text : "?");
        break;
    case CH_IR_UNARY:
        ch_strbuf_addf(out, "(%s%s", ir->postfix ? "post" : "", ir->text ? ir->text : "?");
        break;
    case CH_IR_CALL:
        ch_strbuf_addf(out, "(call %s", ir->text ? ir->text : "?");
        break;
    case CH_IR_DECL:
        ch_strbuf_addf(out, "(decl \"%s\" %s", ir->ctype ? ir->ctype : "",
                       ir->text ? ir->text : "");
        break;
    case CH_IR_CAST:
        ch_strbuf_addf(out, "(cast \"%s\"", ir->ctype ? ir->ctype : "");
        break;
    default:
        ch_strbuf_addf(out, "(%s", dump_head(ir));
    }
    for (size_t i = 0; i < ir->nkids; i++) {
        ch_strbuf_addc(out, ' ');
        ch_ir_dump(out, ir->kids[i]);
    }
    ch_strbuf_addc(out, ')');
}
