/* libclang AST -> body IR (ch/ir.h). Implicit casts are folded into the type of the expression
 * they convert, parentheses disappear (the printer restores what precedence needs), and every
 * construct not modelled becomes CH_IR_OPAQUE with its source text, so no information is
 * silently lost. libclang 14 does not expose operator kinds: they are read from the tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clx.h"

typedef struct ir_ctx {
    CXTranslationUnit tu;
    CXCursor fn;
} ir_ctx;

typedef struct kids_acc {
    CXCursor *v;
    size_t n;
} kids_acc;

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    kids_acc *k = data;
    k->v = ch_xrealloc(k->v, (k->n + 1) * sizeof *k->v);
    k->v[k->n++] = c;
    return CXChildVisit_Continue;
}

static kids_acc children(CXCursor c)
{
    kids_acc k = {NULL, 0};
    clang_visitChildren(c, collect, &k);
    return k;
}

static ch_ir *build_expr(ir_ctx *x, CXCursor c);
static ch_ir *build_stmt(ir_ctx *x, CXCursor c);

static ch_ir *node(ch_ir_kind kind, CXCursor c)
{
    clx_loc l = clx_extent_begin(c);
    return ch_ir_new(kind, l.line, l.col);
}

/* A construct the IR does not model: its text, and its sub-expressions as kids, so that
 * inference still sees the buffers used inside it (it counts them as possibly written). */
static ch_ir *opaque(ir_ctx *x, CXCursor c)
{
    ch_ir *n = node(CH_IR_OPAQUE, c);
    n->text = clx_text(x->tu, c);
    n->type = clx_scalar(clang_getCursorType(c));
    if (clang_isExpression(c.kind)) {
        kids_acc k = children(c);
        for (size_t i = 0; i < k.n; i++)
            if (clang_isExpression(k.v[i].kind))
                ch_ir_add(n, build_expr(x, k.v[i]));
        free(k.v);
    }
    return n;
}

/* Tokens of a cursor's extent; the caller disposes them. */
typedef struct toks {
    CXToken *t;
    unsigned n;
} toks;

static toks tokens_of(ir_ctx *x, CXCursor c)
{
    toks t = {NULL, 0};
    clang_tokenize(x->tu, clx_file_extent(x->tu, c), &t.t, &t.n);
    return t;
}

static size_t tok_offset(ir_ctx *x, CXToken t)
{
    return clx_loc_of(clang_getTokenLocation(x->tu, t)).offset;
}

/* The operator between a binary expression's operands: the last token before the right
 * operand's first token, when it lies after the left operand's start and is punctuation.
 * Locations are expansion locations, so an operand written through a macro (PolyBench's
 * `_PB_N - 1`, `SCALAR_VAL(0.5) * x`) still has the operator that follows it in the user's
 * text; an operator inside a macro's own definition (`#define SQ(x) ((x)*(x))`) leaves both
 * operands at one place, no token lies between them, and the result is NULL (opaque). */
static char *binary_op(ir_ctx *x, CXCursor e, CXCursor lhs, CXCursor rhs)
{
    size_t begin = clx_extent_begin(lhs).offset, rhs_begin = clx_extent_begin(rhs).offset;
    toks t = tokens_of(x, e);
    char *op = NULL;
    unsigned last = t.n;
    for (unsigned i = 0; i < t.n; i++) {
        size_t off = tok_offset(x, t.t[i]);
        if (off >= begin && off < rhs_begin)
            last = i;
    }
    if (last < t.n && tok_offset(x, t.t[last]) > begin &&
        clang_getTokenKind(t.t[last]) == CXToken_Punctuation)
        op = clx_str(clang_getTokenSpelling(x->tu, t.t[last]));
    clang_disposeTokens(x->tu, t.t, t.n);
    if (op && (strcmp(op, ")") == 0 || strcmp(op, "]") == 0 || strcmp(op, "(") == 0)) {
        free(op);
        op = NULL;
    }
    return op;
}

static int is_assign_op(const char *op)
{
    size_t n = strlen(op);
    return strcmp(op, "=") == 0 ||
           (n >= 2 && op[n - 1] == '=' && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0 &&
            strcmp(op, "<=") != 0 && strcmp(op, ">=") != 0);
}

static ch_ir *build_binary(ir_ctx *x, CXCursor c, kids_acc *k)
{
    if (k->n != 2)
        return opaque(x, c);
    char *op = binary_op(x, c, k->v[0], k->v[1]);
    if (!op)
        return opaque(x, c);
    ch_ir *n = node(is_assign_op(op) ? CH_IR_ASSIGN : CH_IR_BINARY, c);
    n->text = op;
    n->type = clx_scalar(clang_getCursorType(c));
    ch_ir_add(n, build_expr(x, k->v[0]));
    ch_ir_add(n, build_expr(x, k->v[1]));
    return n;
}

static ch_ir *build_unary(ir_ctx *x, CXCursor c, kids_acc *k)
{
    if (k->n != 1)
        return opaque(x, c);
    toks t = tokens_of(x, c);
    char *op = NULL;
    int postfix = 0;
    if (t.n >= 2) {
        size_t kid_begin = clx_extent_begin(k->v[0]).offset;
        if (clang_getTokenKind(t.t[0]) == CXToken_Punctuation &&
            tok_offset(x, t.t[0]) < kid_begin) {
            op = clx_str(clang_getTokenSpelling(x->tu, t.t[0]));
        } else if (clang_getTokenKind(t.t[t.n - 1]) == CXToken_Punctuation) {
            op = clx_str(clang_getTokenSpelling(x->tu, t.t[t.n - 1]));
            postfix = 1;
        }
    }
    clang_disposeTokens(x->tu, t.t, t.n);
    static const char *const ok[] = {"-", "+", "!", "~", "++", "--", "*", "&", NULL};
    int known = 0;
    for (size_t i = 0; op && ok[i]; i++)
        known |= strcmp(op, ok[i]) == 0;
    if (!known || (postfix && strcmp(op, "++") != 0 && strcmp(op, "--") != 0)) {
        free(op);
        return opaque(x, c);
    }
    ch_ir *n = node(CH_IR_UNARY, c);
    n->text = op;
    n->postfix = postfix;
    n->type = clx_scalar(clang_getCursorType(c));
    ch_ir_add(n, build_expr(x, k->v[0]));
    return n;
}

/* Whether text is one numeric literal token; a literal reached through a macro has an extent
 * that does not cover just its own spelling (libclang 14 reports spelling locations of macro
 * expansions as expansion locations, so the tokens are the only reliable witness). */
static int single_number(const char *t)
{
    if (!((t[0] >= '0' && t[0] <= '9') || t[0] == '.'))
        return 0;
    for (size_t i = 0; t[i]; i++) {
        char c = t[i];
        int ok = c == '.' || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                 (c >= 'A' && c <= 'Z') ||
                 ((c == '+' || c == '-') && i > 0 && strchr("eEpP", t[i - 1]));
        if (!ok)
            return 0;
    }
    return 1;
}

static ch_ir *build_literal(ir_ctx *x, CXCursor c, int is_float)
{
    ch_ir *n = node(is_float ? CH_IR_FLOAT_LIT : CH_IR_INT_LIT, c);
    n->type = clx_scalar(clang_getCursorType(c));
    CXEvalResult ev = clang_Cursor_Evaluate(c);
    if (ev) {
        if (is_float)
            n->fval = clang_EvalResult_getAsDouble(ev);
        else
            n->ival = clang_EvalResult_getAsLongLong(ev);
        clang_EvalResult_dispose(ev);
    }
    /* a literal written through a macro keeps its value, not the macro's name, so that the
     * body's token stream changes when the macro's value does */
    n->text = clx_text(x->tu, c);
    if (single_number(n->text)) {
        /* as written */
    } else if (is_float) {
        free(n->text);
        n->text = ch_xasprintf("%.17g%s", n->fval, n->type == CH_T_FLOAT ? "f" : "");
        if (!strpbrk(n->text, ".en")) {
            char *t = ch_xasprintf("%.1f%s", n->fval, n->type == CH_T_FLOAT ? "f" : "");
            free(n->text);
            n->text = t;
        }
    } else {
        free(n->text);
        n->text = ch_xasprintf("%lld", n->ival);
    }
    return n;
}

static int param_index(ir_ctx *x, CXCursor decl)
{
    int n = clang_Cursor_getNumArguments(x->fn);
    for (int i = 0; i < n; i++)
        if (clang_equalCursors(clang_Cursor_getArgument(x->fn, (unsigned)i), decl))
            return i;
    return -1;
}

static ch_ir *build_ref(ir_ctx *x, CXCursor c)
{
    CXCursor ref = clang_getCursorReferenced(c);
    if (ref.kind == CXCursor_EnumConstantDecl) {
        ch_ir *n = node(CH_IR_INT_LIT, c);
        n->ival = clang_getEnumConstantDeclValue(ref);
        n->text = ch_xasprintf("%lld", n->ival);
        n->type = CH_T_INT;
        return n;
    }
    if (ref.kind != CXCursor_ParmDecl && ref.kind != CXCursor_VarDecl)
        return opaque(x, c);
    ch_ir *n = node(CH_IR_VAR, c);
    n->text = clx_str(clang_getCursorSpelling(c));
    n->type = clx_scalar(clang_getCursorType(c));
    if (ref.kind == CXCursor_ParmDecl)
        n->param_index = param_index(x, ref);
    return n;
}

static ch_ir *build_call(ir_ctx *x, CXCursor c)
{
    CXCursor callee = clang_getCursorReferenced(c);
    if (callee.kind != CXCursor_FunctionDecl)
        return opaque(x, c);
    ch_ir *n = node(CH_IR_CALL, c);
    n->text = clx_str(clang_getCursorSpelling(c));
    n->type = clx_scalar(clang_getCursorType(c));
    int na = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < na; i++)
        ch_ir_add(n, build_expr(x, clang_Cursor_getArgument(c, (unsigned)i)));
    return n;
}

static char *canonical_spelling(CXType t)
{
    return clx_str(clang_getTypeSpelling(clang_getCanonicalType(t)));
}

static ch_ir *build_expr_kids(ir_ctx *x, CXCursor c, kids_acc *k)
{
    ch_ir *n;
    switch (c.kind) {
    case CXCursor_IntegerLiteral:
        return build_literal(x, c, 0);
    case CXCursor_FloatingLiteral:
        return build_literal(x, c, 1);
    case CXCursor_DeclRefExpr:
        return build_ref(x, c);
    case CXCursor_ParenExpr:
        return k->n == 1 ? build_expr(x, k->v[0]) : opaque(x, c);
    case CXCursor_UnexposedExpr: /* implicit casts: fold the conversion into the type */
        if (k->n != 1 || !clang_isExpression(k->v[0].kind))
            return opaque(x, c);
        n = build_expr(x, k->v[0]);
        if (clx_scalar(clang_getCursorType(c)) != CH_T_UNKNOWN)
            n->type = clx_scalar(clang_getCursorType(c));
        return n;
    case CXCursor_ArraySubscriptExpr:
        if (k->n != 2)
            return opaque(x, c);
        n = node(CH_IR_INDEX, c);
        n->type = clx_scalar(clang_getCursorType(c));
        ch_ir_add(n, build_expr(x, k->v[0]));
        ch_ir_add(n, build_expr(x, k->v[1]));
        return n;
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        return build_binary(x, c, k);
    case CXCursor_UnaryOperator:
        return build_unary(x, c, k);
    case CXCursor_CallExpr:
        return build_call(x, c);
    case CXCursor_CStyleCastExpr: {
        CXCursor operand = k->n ? k->v[k->n - 1] : c;
        if (!k->n || !clang_isExpression(operand.kind))
            return opaque(x, c);
        n = node(CH_IR_CAST, c);
        n->ctype = canonical_spelling(clang_getCursorType(c));
        n->type = clx_scalar(clang_getCursorType(c));
        ch_ir_add(n, build_expr(x, operand));
        return n;
    }
    case CXCursor_ConditionalOperator:
        if (k->n != 3)
            return opaque(x, c);
        n = node(CH_IR_COND, c);
        n->type = clx_scalar(clang_getCursorType(c));
        for (size_t i = 0; i < 3; i++)
            ch_ir_add(n, build_expr(x, k->v[i]));
        return n;
    default:
        return opaque(x, c);
    }
}

static ch_ir *build_expr(ir_ctx *x, CXCursor c)
{
    kids_acc k = children(c);
    ch_ir *n = build_expr_kids(x, c, &k);
    free(k.v);
    return n;
}

static int has_assign_token(ir_ctx *x, CXCursor var)
{
    toks t = tokens_of(x, var);
    int found = 0, depth = 0;
    for (unsigned i = 0; i < t.n && !found; i++) {
        CXString s = clang_getTokenSpelling(x->tu, t.t[i]);
        const char *p = clang_getCString(s);
        if (strcmp(p, "[") == 0 || strcmp(p, "(") == 0)
            depth++;
        else if (strcmp(p, "]") == 0 || strcmp(p, ")") == 0)
            depth--;
        else if (depth == 0 && strcmp(p, "=") == 0)
            found = 1;
        clang_disposeString(s);
    }
    clang_disposeTokens(x->tu, t.t, t.n);
    return found;
}

static ch_ir *build_var(ir_ctx *x, CXCursor var)
{
    ch_ir *n = node(CH_IR_DECL, var);
    n->text = clx_str(clang_getCursorSpelling(var));
    n->ctype = canonical_spelling(clang_getCursorType(var));
    n->type = clx_scalar(clang_getCursorType(var));
    kids_acc k = children(var);
    if (k.n > 0 && clang_isExpression(k.v[k.n - 1].kind) && has_assign_token(x, var))
        ch_ir_add(n, build_expr(x, k.v[k.n - 1]));
    free(k.v);
    return n;
}

/* A DeclStmt: one DECL, or a BLOCK-free list appended to `into` when it declares several. */
static ch_ir *build_decl_stmt(ir_ctx *x, CXCursor c, ch_ir *into)
{
    kids_acc k = children(c);
    ch_ir *result = NULL;
    for (size_t i = 0; i < k.n; i++) {
        if (k.v[i].kind != CXCursor_VarDecl) {
            ch_ir_free(result);
            free(k.v);
            return opaque(x, c);
        }
    }
    if (k.n == 1) {
        result = build_var(x, k.v[0]);
    } else if (into) {
        for (size_t i = 0; i < k.n; i++)
            ch_ir_add(into, build_var(x, k.v[i]));
    } else {
        result = opaque(x, c);
    }
    free(k.v);
    return result;
}

/* for (init; cond; inc) body: libclang skips absent parts, so each child is placed by where it
 * starts relative to the header's semicolons. */
static ch_ir *build_for(ir_ctx *x, CXCursor c, kids_acc *k)
{
    CXCursor part[4];
    int have[4] = {0, 0, 0, 0};
    if (k->n == 4) {
        for (int i = 0; i < 4; i++) {
            part[i] = k->v[i];
            have[i] = 1;
        }
    } else {
        toks t = tokens_of(x, c);
        size_t marks[3] = {0, 0, 0};
        int depth = 0, nm = 0;
        for (unsigned i = 0; i < t.n && nm < 3; i++) {
            CXString s = clang_getTokenSpelling(x->tu, t.t[i]);
            const char *p = clang_getCString(s);
            if (strcmp(p, "(") == 0) {
                depth++;
            } else if (strcmp(p, ")") == 0) {
                if (--depth == 0 && nm == 2)
                    marks[nm++] = tok_offset(x, t.t[i]);
            } else if (depth == 1 && strcmp(p, ";") == 0 && nm < 2) {
                marks[nm++] = tok_offset(x, t.t[i]);
            }
            clang_disposeString(s);
        }
        clang_disposeTokens(x->tu, t.t, t.n);
        if (nm != 3)
            return opaque(x, c);
        for (size_t i = 0; i < k->n; i++) {
            size_t off = clx_extent_begin(k->v[i]).offset;
            int slot = off < marks[0] ? 0 : off < marks[1] ? 1 : off < marks[2] ? 2 : 3;
            part[slot] = k->v[i];
            have[slot] = 1;
        }
    }
    ch_ir *n = node(CH_IR_FOR, c);
    ch_ir_add(n, have[0] ? build_stmt(x, part[0]) : NULL);
    ch_ir_add(n, have[1] ? build_expr(x, part[1]) : NULL);
    ch_ir_add(n, have[2] ? build_expr(x, part[2]) : NULL);
    ch_ir_add(n, have[3] ? build_stmt(x, part[3]) : ch_ir_new(CH_IR_NULL_STMT, n->line, n->col));
    return n;
}

static ch_ir *build_block(ir_ctx *x, CXCursor c, kids_acc *k)
{
    ch_ir *n = node(CH_IR_BLOCK, c);
    for (size_t i = 0; i < k->n; i++) {
        if (k->v[i].kind == CXCursor_DeclStmt) {
            ch_ir *d = build_decl_stmt(x, k->v[i], n);
            if (d)
                ch_ir_add(n, d);
        } else {
            ch_ir_add(n, build_stmt(x, k->v[i]));
        }
    }
    return n;
}

static ch_ir *build_stmt_kids(ir_ctx *x, CXCursor c, kids_acc *k)
{
    ch_ir *n;
    if (clang_isExpression(c.kind)) {
        n = node(CH_IR_EXPR_STMT, c);
        ch_ir_add(n, build_expr(x, c));
        return n;
    }
    switch (c.kind) {
    case CXCursor_CompoundStmt:
        return build_block(x, c, k);
    case CXCursor_DeclStmt:
        return build_decl_stmt(x, c, NULL);
    case CXCursor_ForStmt:
        return build_for(x, c, k);
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        if (k->n != 2)
            return opaque(x, c);
        n = node(c.kind == CXCursor_WhileStmt ? CH_IR_WHILE : CH_IR_DO, c);
        if (c.kind == CXCursor_WhileStmt) {
            ch_ir_add(n, build_expr(x, k->v[0]));
            ch_ir_add(n, build_stmt(x, k->v[1]));
        } else {
            ch_ir_add(n, build_stmt(x, k->v[0]));
            ch_ir_add(n, build_expr(x, k->v[1]));
        }
        return n;
    case CXCursor_IfStmt:
        if (k->n < 2 || k->n > 3)
            return opaque(x, c);
        n = node(CH_IR_IF, c);
        ch_ir_add(n, build_expr(x, k->v[0]));
        ch_ir_add(n, build_stmt(x, k->v[1]));
        ch_ir_add(n, k->n == 3 ? build_stmt(x, k->v[2]) : NULL);
        return n;
    case CXCursor_ReturnStmt:
        n = node(CH_IR_RETURN, c);
        ch_ir_add(n, k->n ? build_expr(x, k->v[0]) : NULL);
        return n;
    case CXCursor_BreakStmt:
        return node(CH_IR_BREAK, c);
    case CXCursor_ContinueStmt:
        return node(CH_IR_CONTINUE, c);
    case CXCursor_NullStmt:
        return node(CH_IR_NULL_STMT, c);
    default:
        return opaque(x, c);
    }
}

static ch_ir *build_stmt(ir_ctx *x, CXCursor c)
{
    kids_acc k = children(c);
    ch_ir *n = build_stmt_kids(x, c, &k);
    free(k.v);
    return n;
}

ch_ir *clx_build_body(CXTranslationUnit tu, CXCursor fn, CXCursor body)
{
    ir_ctx x = {tu, fn};
    return build_stmt(&x, body);
}

/* --- helpers shared with scan.c --- */

clx_loc clx_loc_of(CXSourceLocation l)
{
    unsigned line, col, off;
    clang_getExpansionLocation(l, NULL, &line, &col, &off);
    return (clx_loc){line, col, off};
}

clx_loc clx_cursor_loc(CXCursor c)
{
    return clx_loc_of(clang_getCursorLocation(c));
}

CXSourceRange clx_file_extent(CXTranslationUnit tu, CXCursor c)
{
    CXSourceRange r = clang_getCursorExtent(c);
    CXFile fb = NULL, fe = NULL;
    unsigned ob = 0, oe = 0;
    clang_getExpansionLocation(clang_getRangeStart(r), &fb, NULL, NULL, &ob);
    clang_getExpansionLocation(clang_getRangeEnd(r), &fe, NULL, NULL, &oe);
    if (!fb || !fe || !clang_File_isEqual(fb, fe))
        return r;
    return clang_getRange(clang_getLocationForOffset(tu, fb, ob),
                          clang_getLocationForOffset(tu, fe, oe));
}

clx_loc clx_extent_begin(CXCursor c)
{
    return clx_loc_of(clang_getRangeStart(clang_getCursorExtent(c)));
}

clx_loc clx_extent_end(CXCursor c)
{
    return clx_loc_of(clang_getRangeEnd(clang_getCursorExtent(c)));
}

char *clx_str(CXString s)
{
    const char *p = clang_getCString(s);
    char *r = ch_xstrdup(p ? p : "");
    clang_disposeString(s);
    return r;
}

ch_scalar clx_scalar(CXType t)
{
    switch (clang_getCanonicalType(t).kind) {
    case CXType_Bool:
        return CH_T_BOOL;
    case CXType_Char_S:
    case CXType_Char_U:
        return CH_T_CHAR;
    case CXType_SChar:
        return CH_T_SCHAR;
    case CXType_UChar:
        return CH_T_UCHAR;
    case CXType_Short:
        return CH_T_SHORT;
    case CXType_UShort:
        return CH_T_USHORT;
    case CXType_Int:
        return CH_T_INT;
    case CXType_UInt:
        return CH_T_UINT;
    case CXType_Long:
        return CH_T_LONG;
    case CXType_ULong:
        return CH_T_ULONG;
    case CXType_LongLong:
        return CH_T_LLONG;
    case CXType_ULongLong:
        return CH_T_ULLONG;
    case CXType_Float:
        return CH_T_FLOAT;
    case CXType_Double:
        return CH_T_DOUBLE;
    case CXType_Void:
        return CH_T_VOID;
    default:
        return CH_T_UNKNOWN;
    }
}

static int wordish(char c)
{
    return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

char *clx_text(CXTranslationUnit tu, CXCursor c)
{
    CXToken *t;
    unsigned n;
    clang_tokenize(tu, clx_file_extent(tu, c), &t, &n);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (unsigned i = 0; i < n; i++) {
        CXString s = clang_getTokenSpelling(tu, t[i]);
        const char *p = clang_getCString(s);
        if (sb.len && *p && wordish(sb.data[sb.len - 1]) && wordish(p[0]))
            ch_strbuf_addc(&sb, ' ');
        ch_strbuf_adds(&sb, p);
        clang_disposeString(s);
    }
    clang_disposeTokens(tu, t, n);
    return ch_strbuf_detach(&sb);
}
