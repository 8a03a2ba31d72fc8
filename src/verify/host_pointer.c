/* The host subset's pointer-value rule (candidates only): a pointer's value never becomes a
 * number in host code. Pointers may not be made from integers (the cast rule), but with a
 * pointer's value as an integer, arithmetic on a real pointer reaches any address without such a
 * cast: (char *)y + (target - (uintptr_t)y). So host code may not turn a pointer into an integer
 * by any of the ways C++ offers:
 *  - a cast (C-style, functional, reinterpret_cast, __builtin_bit_cast) to an integer type other
 *    than bool, from a pointer or, in a template, from a type that may be one;
 *  - the difference of two pointers (p - q, or p - (char *)0: the value itself);
 *  - arithmetic on the null pointer constant ((char *)0 + n is the address n);
 *  - the bytes of a pointer handed to a library call that reads them (memcpy(h, &p, 8),
 *    cudaMemcpy(d, &p, ...)): a variable holding a pointer may be given by address only to an
 *    out-parameter, which writes it;
 *  - a library template or class of the trusted namespaces that returns an integer made from a
 *    pointer argument (std::bit_cast, std::hash<T *>, std::distance).
 * A launcher needs none of these: it passes pointers, offsets them by element counts and
 * compares them with null. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "host_subset_internal.h"

static const char pointer_value_why[] =
    "a pointer's value as a number lets arithmetic on a real pointer reach any address";

/* Whether a value of type t holds a pointer: a pointer, or an array, class or struct with one
 * among its elements or fields (a few levels down: deeper nesting counts as holding one). */
static int holds_pointer(CXType t, int depth);

typedef struct field_scan {
    int depth;
    int found;
} field_scan;

static enum CXVisitorResult pointer_in_field(CXCursor field, CXClientData data)
{
    field_scan *s = data;
    if (holds_pointer(clang_getCursorType(field), s->depth + 1)) {
        s->found = 1;
        return CXVisit_Break;
    }
    return CXVisit_Continue;
}

static int holds_pointer(CXType t, int depth)
{
    t = hs_canon(t);
    if (depth > 8)
        return 1; /* fails closed */
    if (hs_pointer_type(t) || t.kind == CXType_LValueReference ||
        t.kind == CXType_RValueReference || t.kind == CXType_NullPtr)
        return 1;
    if (hs_array_type(t))
        return holds_pointer(clang_getArrayElementType(t), depth + 1);
    if (t.kind == CXType_Record) {
        field_scan s = {depth, 0};
        clang_Type_visitFields(t, pointer_in_field, &s);
        return s.found;
    }
    return 0;
}

/* An integer type a pointer would become a number in: any but bool (a null test). */
static int number_type(CXType t)
{
    t = hs_canon(t);
    return hs_integer_type(t) && t.kind != CXType_Bool;
}

static char *type_name(CXType t)
{
    return hs_str_of(clang_getTypeSpelling(t));
}

/* A cast (or bit cast) from a pointer to a number. */
static void judge_cast(subset_ctx *x, CXCursor c)
{
    kids k = hs_children(c);
    CXCursor operand = k.n ? k.v[k.n - 1] : clang_getNullCursor();
    free(k.v);
    if (clang_Cursor_isNull(operand) || !clang_isExpression(clang_getCursorKind(operand)))
        return;
    CXType to = clang_getCursorType(c), from = clang_getCursorType(operand);
    if (!number_type(to))
        return;
    if (hs_canon(from).kind == CXType_Unexposed) {
        /* a template's body is walked once, with its parameters' types unknown: T may be a
         * pointer at every call */
        char *b = type_name(to);
        hs_refuse(x, c, "pointer-value",
                  "host code converts a value of a template's type to the integer '%s': the "
                  "type may be a pointer, and %s",
                  b, pointer_value_why);
        free(b);
        return;
    }
    if (!hs_pointer_type(from))
        return;
    char *a = type_name(from), *b = type_name(to);
    hs_refuse(x, c, "pointer-value",
              "host code converts the pointer type '%s' to the integer '%s': %s", a, b,
              pointer_value_why);
    free(a);
    free(b);
}

/* __builtin_bit_cast(T, v): libclang shows no type for it (CXType_Invalid), so the direction
 * cannot be judged; a bit cast of a value holding a pointer, or to a type not shown, is refused
 * (it makes a pointer a number, or a number a pointer). */
static void judge_bit_cast(subset_ctx *x, CXCursor c)
{
    kids k = hs_children(c);
    CXCursor operand = k.n ? k.v[k.n - 1] : clang_getNullCursor();
    free(k.v);
    CXType to = hs_canon(clang_getCursorType(c));
    int unknown = to.kind == CXType_Invalid || to.kind == CXType_Unexposed;
    if (unknown || holds_pointer(to, 0) ||
        (!clang_Cursor_isNull(operand) && holds_pointer(clang_getCursorType(operand), 0)))
        hs_refuse(x, c, "pointer-value",
                  "host code bit-casts with __builtin_bit_cast, whose type may be or hold a "
                  "pointer: a bit cast makes a pointer a number or a number a pointer, and %s",
                  pointer_value_why);
}

/* Whether e is the null pointer constant, under casts and parentheses. */
static int null_pointer(CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_CXXNullPtrLiteralExpr)
        return 1;
    return hs_integer_type(clang_getCursorType(p)) && hs_null_constant(p);
}

/* p - q of two pointers, and arithmetic whose pointer operand is the null constant. */
static void judge_arithmetic(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    kids ks = hs_children(c);
    if (ks.n != 2) {
        free(ks.v);
        return;
    }
    CXCursor l = ks.v[0], r = ks.v[1];
    free(ks.v);
    int lp = hs_pointer_type(clang_getCursorType(l)), rp = hs_pointer_type(clang_getCursorType(r));
    if (k == CXCursor_BinaryOperator && lp && rp && hs_operator_is(x, c, "-")) {
        hs_refuse(x, c, "pointer-value",
                  "host code subtracts two pointers: their difference is a pointer's value as an "
                  "integer when one is null or unrelated, and %s",
                  pointer_value_why);
        return;
    }
    int arith =
        k == CXCursor_ArraySubscriptExpr || k == CXCursor_CompoundAssignOperator ||
        (k == CXCursor_BinaryOperator && (hs_operator_is(x, c, "+") || hs_operator_is(x, c, "-")));
    if (arith && ((lp && null_pointer(l)) || (rp && null_pointer(r))))
        hs_refuse(x, c, "pointer-value",
                  "host code does arithmetic on the null pointer: (T *)0 + n is the address n, a "
                  "pointer forged from an integer");
}

/* Whether fn is a library's function (declared outside this file): its arguments are read by
 * code the walk does not see. */
static int library_function(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return clang_Cursor_isNull(def) || !hs_from_main_file(def);
}

/* Refuses a call of fn: "host code <verb> 'fn'<rest>: why". */
static void refuse_call(subset_ctx *x, CXCursor at, CXCursor fn, const char *verb, const char *rest)
{
    char *name = hs_str_of(clang_getCursorSpelling(fn));
    hs_refuse(x, at, "pointer-value", "host code %s '%s'%s: %s", verb, name, rest,
              pointer_value_why);
    free(name);
}

/* A call to a library: &v of a variable holding a pointer, given to a parameter that reads
 * through it (a pointer to const); and a function of the trusted namespaces (or a method of
 * their classes) that returns a number and takes a pointer. */
static void judge_library_call(subset_ctx *x, CXCursor call)
{
    CXCursor fn = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(fn) || !library_function(fn))
        return;
    int n = clang_Cursor_getNumArguments(call), nparams = clang_Cursor_getNumArguments(fn);
    int pointer_arg = 0;
    for (int i = 0; i < n; i++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        pointer_arg |= hs_pointer_type(clang_getCursorType(hs_peel(a, 0)));
        CXCursor p = hs_peel(a, 1);
        if (i >= nparams || clang_getCursorKind(p) != CXCursor_UnaryOperator ||
            !hs_operator_is(x, p, "&"))
            continue;
        CXType pt = hs_canon(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)));
        if (pt.kind != CXType_Pointer || !clang_isConstQualifiedType(clang_getPointeeType(pt)))
            continue;
        CXCursor v = hs_first_child(p);
        if (!holds_pointer(clang_getCursorType(v), 0))
            continue;
        refuse_call(x, a, fn, "hands the bytes of a pointer to",
                    ", which reads them (they become a number wherever they are copied)");
        return;
    }
    int in_class = 0;
    char *ns = hs_outer_namespace(fn, &in_class);
    int trusted = *ns && hs_trusted_namespace(ns);
    free(ns);
    if (trusted && pointer_arg && number_type(clang_getCursorResultType(fn)))
        refuse_call(x, call, fn, "calls",
                    " with a pointer and gets a number back (as std::hash and std::distance do)");
}

void hs_judge_pointer_value(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused)
        return;
    if (k == CXCursor_BuiltinBitCastExpr)
        judge_bit_cast(x, c);
    else if (hs_is_cast(k))
        judge_cast(x, c);
    else if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator ||
             k == CXCursor_ArraySubscriptExpr)
        judge_arithmetic(x, c, k);
    else if (k == CXCursor_CallExpr)
        judge_library_call(x, c);
}
