/* The magic-constant rule of the host subset check (host_subset_internal.h): a candidate or a
 * model-written reference may not single out one value of a size, a scalar, an index or
 * anything else it computes with. `n == 999983 ? 0 : a` is right on every size a test draws
 * and wrong on the one its author chose; so is `n > 100000 && n % 7 == 3`, or `i == 123457` in
 * a kernel. No testing finds such a trigger, and a reference is its own oracle, so the shapes
 * are refused on the parsed code, device functions included:
 *  - == and != (and a switch's case) against a constant other than a small one (|c| <= 64), a
 *    power of two or one less (masks, sentinels), or an enum's value (cudaError_t codes);
 *    floating constants other than 0, +-0.25 steps up to 2 (alpha == 1, beta == 0);
 *  - the same through an offset: `n - 999983 == 0`, `(n ^ C) != 0`, `!(n - C)`;
 *  - a residue test modulo a constant that is not a power of two (`n % 7 == 3`; `% 3 == 0`
 *    is kept: a third of all sizes hit it), and any remainder by a constant above 64 that is
 *    not a power of two (`n % 997`);
 *  - a narrow two-sided window on one value: `n > 100000 && n < 100100` (width below an eighth
 *    of its lower bound, the bound above 64); size classes such as `n >= 1024 && n < 4096` pass.
 * Ordering against any constant (`n < 4096`, `i < n`) is what size classes and bounds are made
 * of, and stays allowed; verification tests each side of those thresholds instead
 * (ch_magic_sizes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_subset_internal.h"

#define MAGIC_SMALL 64 /* |c| up to this is an ordinary constant (tiles, warps, stencils) */

typedef struct cval {
    int known; /* 0: not a constant; 1: integer i; 2: floating f */
    long long i;
    double f;
} cval;

static cval eval_cursor(CXCursor c)
{
    cval v = {0};
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r)
        return v;
    CXEvalResultKind k = clang_EvalResult_getKind(r);
    if (k == CXEval_Int) {
        v.known = 1;
        v.i = clang_EvalResult_getAsLongLong(r);
    } else if (k == CXEval_Float) {
        v.known = 2;
        v.f = clang_EvalResult_getAsDouble(r);
    }
    clang_EvalResult_dispose(r);
    return v;
}

static int enum_type(CXType t)
{
    return hs_canon(t).kind == CXType_Enum;
}

/* The value of e when it is a constant: a literal, a constant expression (hex, products,
 * macros), or a const variable with a constant initializer (C does not fold those). */
static cval const_of(CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor d = clang_getCursorReferenced(p);
        enum CXCursorKind dk = clang_getCursorKind(d);
        if (dk == CXCursor_VarDecl && clang_isConstQualifiedType(clang_getCursorType(d)))
            return eval_cursor(d);
        if (dk != CXCursor_EnumConstantDecl && dk != CXCursor_NonTypeTemplateParameter)
            return (cval){0};
    }
    /* an expression naming no variable at all (sizeof, casts of literals, arithmetic) */
    return clang_isExpression(k) ? eval_cursor(p) : (cval){0};
}

static int power_of_two(unsigned long long u)
{
    return u && (u & (u - 1)) == 0;
}

/* Whether a constant compared for equality singles out one value. */
static int magic_value(cval v)
{
    if (v.known == 2) {
        double q = v.f * 4;
        return !(fabs(v.f) <= 2 && q == floor(q));
    }
    if (v.known != 1)
        return 0;
    unsigned long long u = v.i < 0 ? 0ULL - (unsigned long long)v.i : (unsigned long long)v.i;
    return u > MAGIC_SMALL && !power_of_two(u) && !power_of_two(u + 1);
}

static char *op_of(const subset_ctx *x, CXCursor c)
{
    return hs_operator_of(x, c);
}

/* The two operands of a binary operator (null cursors when it has not two). */
static int operands(CXCursor c, CXCursor *a, CXCursor *b)
{
    kids k = hs_children(c);
    int two = k.n == 2;
    if (two) {
        *a = k.v[0];
        *b = k.v[1];
    }
    free(k.v);
    return two;
}

/* "the candidate compares 'n' with 999983: ..." (how: "compares", prep: "with"). */
static void refuse_value(subset_ctx *x, CXCursor at, CXCursor e, const char *how, const char *prep,
                         cval v)
{
    char *s = hs_spelling_of(x, e);
    char num[64];
    if (v.known == 2)
        snprintf(num, sizeof num, "%g", v.f);
    else
        snprintf(num, sizeof num, "%lld", v.i);
    hs_refuse(x, at, "magic-constant",
              "%s %s '%s'%s%s: a result may not depend on one particular value (a trigger no "
              "test size reaches); compare with 0, 1, small constants or powers of two, or order "
              "against thresholds",
              x->kind == CH_SUBSET_REFERENCE ? "the reference" : "the candidate", how, s, prep,
              num);
    free(s);
}

/* A magic constant that e adds, subtracts or xors onto a value (`n - 999983`), through
 * parentheses and casts: what `== 0` or `!` then singles out. */
static int magic_offset(const subset_ctx *x, CXCursor e, cval *out)
{
    CXCursor p = hs_peel(e, 1), a, b;
    if (clang_getCursorKind(p) != CXCursor_BinaryOperator || !operands(p, &a, &b))
        return 0;
    char *op = op_of(x, p);
    int shift = strcmp(op, "+") == 0 || strcmp(op, "-") == 0 || strcmp(op, "^") == 0;
    free(op);
    if (!shift)
        return 0;
    cval va = const_of(a), vb = const_of(b);
    if (va.known && !vb.known && magic_value(va))
        *out = va;
    else if (vb.known && !va.known && magic_value(vb))
        *out = vb;
    else
        return magic_offset(x, a, out) || magic_offset(x, b, out);
    return 1;
}

/* `e % M` with a constant M: M (0 when e is no such remainder). */
static long long modulus_of(const subset_ctx *x, CXCursor e, CXCursor *value)
{
    CXCursor p = hs_peel(e, 1), a, b;
    if (clang_getCursorKind(p) != CXCursor_BinaryOperator || !operands(p, &a, &b))
        return 0;
    char *op = op_of(x, p);
    int mod = strcmp(op, "%") == 0;
    free(op);
    cval m = mod ? const_of(b) : (cval){0};
    if (m.known != 1 || const_of(a).known)
        return 0;
    *value = a;
    return m.i < 0 ? -m.i : m.i;
}

static int comparison(const char *op)
{
    return strcmp(op, "==") == 0 || strcmp(op, "!=") == 0 || strcmp(op, "<") == 0 ||
           strcmp(op, "<=") == 0 || strcmp(op, ">") == 0 || strcmp(op, ">=") == 0;
}

/* A comparison of a value with a constant: equality with a magic one, a residue test modulo
 * a number that is not a power of two, an offset that == 0 undoes. */
static void judge_comparison(subset_ctx *x, CXCursor c, const char *op)
{
    CXCursor a, b;
    if (!operands(c, &a, &b) || enum_type(clang_getCursorType(hs_peel(a, 1))) ||
        enum_type(clang_getCursorType(hs_peel(b, 1))))
        return;
    cval va = const_of(a), vb = const_of(b);
    if (va.known == !!vb.known)
        return; /* two constants, or two values */
    CXCursor e = va.known ? b : a;
    cval k = va.known ? va : vb;
    int eq = strcmp(op, "==") == 0 || strcmp(op, "!=") == 0;
    CXCursor inner;
    long long m = modulus_of(x, e, &inner);
    cval off;
    if (eq && magic_value(k))
        refuse_value(x, c, e, "compares", " with ", k);
    else if (m > 0 && !power_of_two((unsigned long long)m) && !(eq && k.known == 1 && k.i == 0))
        refuse_value(x, c, e, "tests a residue of", " against ", k);
    else if (eq && magic_offset(x, e, &off))
        refuse_value(x, c, e, "compares", " with ", off);
}

/* ---- narrow windows ---- */

typedef struct bound {
    char *what; /* the value bounded, as spelled */
    int upper;  /* what < c (1) or what > c (0) */
    long long at;
} bound;

/* `e < C`, `C > e`, ... as a bound on e's spelling (inclusive bounds moved by one). */
static int bound_of(subset_ctx *x, CXCursor c, bound *out)
{
    CXCursor p = hs_peel(c, 0), a, b;
    if (clang_getCursorKind(p) != CXCursor_BinaryOperator || !operands(p, &a, &b))
        return 0;
    char *op = op_of(x, p);
    cval va = const_of(a), vb = const_of(b);
    /* one side an integer constant, the other no constant at all */
    int one = (va.known == 1 && !vb.known) || (vb.known == 1 && !va.known);
    int ok = one && comparison(op) && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0;
    if (ok) {
        int lt = op[0] == '<', incl = op[1] == '=';
        if (va.known) /* C < e is e > C */
            lt = !lt;
        out->upper = lt;
        out->at = va.known ? va.i : vb.i;
        if (incl)
            out->at += lt ? 1 : -1;
        out->what = hs_spelling_of(x, va.known ? b : a);
    }
    free(op);
    return ok;
}

/* The terms of an && chain, flattened. */
static void and_terms(const subset_ctx *x, CXCursor c, kids *out)
{
    CXCursor p = hs_peel(c, 0), a, b;
    if (clang_getCursorKind(p) == CXCursor_BinaryOperator && operands(p, &a, &b)) {
        char *op = op_of(x, p);
        int and = strcmp(op, "&&") == 0;
        free(op);
        if (and) {
            and_terms(x, a, out);
            and_terms(x, b, out);
            return;
        }
    }
    if (out->n == out->cap) {
        out->cap = out->cap ? out->cap * 2 : 8;
        out->v = realloc(out->v, out->cap * sizeof *out->v);
        if (!out->v)
            abort();
    }
    out->v[out->n++] = c;
}

static void judge_window(subset_ctx *x, CXCursor c)
{
    kids t = {0};
    and_terms(x, c, &t);
    bound *bs = calloc(t.n ? t.n : 1, sizeof *bs);
    size_t nb = 0;
    for (size_t i = 0; i < t.n; i++)
        if (bound_of(x, t.v[i], &bs[nb]))
            nb++;
    for (size_t i = 0; i < nb && !x->refused; i++)
        for (size_t j = 0; j < nb && !x->refused; j++) {
            if (bs[i].upper || !bs[j].upper || strcmp(bs[i].what, bs[j].what) != 0)
                continue;
            long long lo = bs[i].at, hi = bs[j].at; /* lo < what < hi */
            if (lo > MAGIC_SMALL && hi > lo && (hi - lo) * 8 < lo)
                hs_refuse(x, c, "magic-constant",
                          "%s keeps '%s' in the narrow window (%lld, %lld): a result may not "
                          "depend on a few particular values (a trigger no test size reaches)",
                          x->kind == CH_SUBSET_REFERENCE ? "the reference" : "the candidate",
                          bs[i].what, lo, hi);
        }
    for (size_t i = 0; i < nb; i++)
        free(bs[i].what);
    free(bs);
    free(t.v);
}

/* ---- the walk ---- */

static void judge_binary(subset_ctx *x, CXCursor c)
{
    char *op = op_of(x, c);
    CXCursor a, b;
    if (comparison(op)) {
        judge_comparison(x, c, op);
    } else if (strcmp(op, "&&") == 0) {
        judge_window(x, c);
    } else if (strcmp(op, "%") == 0 && operands(c, &a, &b)) {
        cval m = const_of(b);
        unsigned long long u = m.i < 0 ? 0ULL - (unsigned long long)m.i : (unsigned long long)m.i;
        if (m.known == 1 && !const_of(a).known && u > MAGIC_SMALL && !power_of_two(u))
            refuse_value(x, c, a, "takes", " modulo ", m);
    }
    free(op);
}

/* `!(n - C)`: the offset singles out C as `== 0` would. */
static void judge_not(subset_ctx *x, CXCursor c)
{
    char *op = op_of(x, c);
    kids k = hs_children(c);
    cval off;
    if (strcmp(op, "!") == 0 && k.n == 1 && magic_offset(x, k.v[0], &off))
        refuse_value(x, c, k.v[0], "compares", " with ", off);
    free(k.v);
    free(op);
}

/* `case C:` on a value: a switch singles out C as == does. */
static void judge_case(subset_ctx *x, CXCursor c)
{
    kids k = hs_children(c);
    if (k.n >= 1 && !enum_type(clang_getCursorType(hs_peel(k.v[0], 1)))) {
        cval v = const_of(k.v[0]);
        if (magic_value(v))
            refuse_value(x, c, k.v[0], "has a case", " for ", v);
    }
    free(k.v);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    subset_ctx *x = data;
    if (!hs_from_main_file(c))
        return CXChildVisit_Continue;
    switch (clang_getCursorKind(c)) {
    case CXCursor_BinaryOperator:
        judge_binary(x, c);
        break;
    case CXCursor_UnaryOperator:
        judge_not(x, c);
        break;
    case CXCursor_CaseStmt:
        judge_case(x, c);
        break;
    default:
        break;
    }
    return x->refused ? CXChildVisit_Break : CXChildVisit_Recurse;
}

void hs_judge_magic(subset_ctx *x)
{
    if (!x->refused)
        clang_visitChildren(clang_getTranslationUnitCursor(x->tu), visit, x);
}
