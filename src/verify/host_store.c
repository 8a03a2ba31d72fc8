/* The host subset's host-store rule (candidates only): host code writes only where the write
 * is in bounds by construction. Called from the walk in host_subset.c, whose state and helpers
 * it shares through host_subset_internal.h. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "host_subset_internal.h"

/* ---- host stores (candidates) -----------------------------------------------------------------
 * A write past an object of the candidate's own (its stack frame, its statics) reaches the saved
 * return address, and no name or AST shape shows a bad index in general. So host code writes
 * only where the write is in bounds by construction:
 *  - a store (=, op=, ++, --) goes to a named variable or a field of one, to an element of one
 *    of its arrays at a constant index or at the counter of a for loop bounded by the array's
 *    length, or through an out-parameter (below); never through a pointer, a pointer's
 *    subscript, a reference, `this` or a call's result;
 *  - the candidate's own storage (variables, parameters, *this) never becomes a pointer or a
 *    reference: no &x, no array decaying to a pointer, no x bound to a reference, no method
 *    called on x; except &x given straight to a CUDA out-parameter of x's type (cudaMalloc(&p),
 *    cudaStreamCreate(&s)) or to an out-parameter of the file's own, and the standard locks;
 *  - an out-parameter: a T* parameter of a static host function that every call gives &x of a
 *    T, and that the function only dereferences (*p) or hands to such a CUDA out-parameter;
 *  - no variable-length array, no alloca.
 * Memory the candidate did not declare (the caller's arrays, pinned or malloc'd buffers) is
 * still written by the CUDA copies and memcpy with run-time lengths: the launchers need them. */

/* CUDA runtime calls whose pointer parameters each receive one object of the pointee type (an
 * out-parameter), never an array: the only calls that may be given the address of a variable. */
static const char *const cuda_out_calls[] = {
    "cudaMalloc",
    "cudaMallocHost",
    "cudaHostAlloc",
    "cudaMallocManaged",
    "cudaMallocPitch",
    "cudaMallocAsync",
    "cudaStreamCreate",
    "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority",
    "cudaEventCreate",
    "cudaEventCreateWithFlags",
    "cudaEventElapsedTime",
    "cudaPointerGetAttributes",
    "cudaGetDevice",
    "cudaGetDeviceCount",
    "cudaGetDeviceProperties",
    "cudaDeviceGetAttribute",
    "cudaMemGetInfo",
    "cudaDriverGetVersion",
    "cudaRuntimeGetVersion",
    "cudaFuncGetAttributes",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaOccupancyMaxPotentialBlockSize",
    "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cublasCreate_v2",
    "cublasCreate",
    NULL};

/* Standard classes an object of the candidate's may be of and still have methods called or be
 * bound to a reference: locks, whose interface hands out no address of the object. */
static const char *const lock_classes[] = {"std::mutex",        "std::lock_guard<",
                                           "std::unique_lock<", "std::recursive_mutex",
                                           "std::once_flag",    NULL};

static int reference_type(CXType t)
{
    t = hs_canon(t);
    return t.kind == CXType_LValueReference || t.kind == CXType_RValueReference;
}

int hs_array_type(CXType t)
{
    t = hs_canon(t);
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray;
}

CXCursor hs_first_child(CXCursor c)
{
    kids k = hs_children(c);
    CXCursor first = k.n ? k.v[0] : clang_getNullCursor();
    free(k.v);
    return first;
}

/* The operator of a unary or binary operator cursor, from its tokens: for a binary one the
 * token right after its left operand, for a unary one its first token, or its last (x++).
 * "" when the tokens do not show it (an expression inside a macro). */
static CXSourceLocation in_file(const subset_ctx *x, CXSourceLocation at)
{
    CXFile file;
    unsigned line = 0, col = 0;
    clang_getExpansionLocation(at, &file, &line, &col, NULL);
    return clang_getLocation(x->tu, file, line, col);
}

/* c's extent in the file: a macro's expansion stands for the tokens it expanded to. */
static CXSourceRange file_extent(const subset_ctx *x, CXCursor c)
{
    CXSourceRange r = clang_getCursorExtent(c);
    return clang_getRange(in_file(x, clang_getRangeStart(r)), in_file(x, clang_getRangeEnd(r)));
}

static char *operator_of(const subset_ctx *x, CXCursor c)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, file_extent(x, c), &t, &n);
    char *op = NULL;
    if (clang_getCursorKind(c) == CXCursor_UnaryOperator) {
        for (unsigned i = 0; i < n && !op; i += n - 1 ? n - 1 : 1) {
            char *s = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
            if (clang_getTokenKind(t[i]) == CXToken_Punctuation && strcmp(s, "(") != 0)
                op = s;
            else
                free(s);
            if (n == 1)
                break;
        }
    } else {
        CXCursor lhs = hs_first_child(c);
        unsigned end = 0;
        clang_getExpansionLocation(clang_getRangeEnd(file_extent(x, lhs)), NULL, NULL, NULL, &end);
        for (unsigned i = 0; i < n && !op; i++) {
            unsigned at = 0;
            clang_getExpansionLocation(clang_getTokenLocation(x->tu, t[i]), NULL, NULL, NULL, &at);
            if (at >= end && clang_getTokenKind(t[i]) == CXToken_Punctuation)
                op = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
        }
    }
    clang_disposeTokens(x->tu, t, n);
    return op ? op : ch_xstrdup("");
}

char *hs_operator_of(const subset_ctx *x, CXCursor c)
{
    return operator_of(x, c);
}

int hs_operator_is(const subset_ctx *x, CXCursor c, const char *spelling)
{
    char *op = operator_of(x, c);
    int yes = strcmp(op, spelling) == 0;
    free(op);
    return yes;
}

/* The expression a store writes: the left operand of =, op=, or the operand of ++ and --;
 * a null cursor when c stores nothing. A binary operator whose operator the tokens do not show
 * counts as a store (it fails closed). */
static CXCursor store_target(const subset_ctx *x, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CompoundAssignOperator)
        return hs_first_child(c);
    char *op =
        (k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator) ? operator_of(x, c) : NULL;
    int store =
        op && (k == CXCursor_BinaryOperator ? strcmp(op, "=") == 0 || !*op
                                            : strcmp(op, "++") == 0 || strcmp(op, "--") == 0);
    free(op);
    return store ? hs_first_child(c) : clang_getNullCursor();
}

/* Whether e is the candidate's own storage, or a part of it: a variable or parameter (one of
 * reference type counts: its object may be one), a field of one (through `.`, `this` or an
 * implicit `this`) and, with subscripts, an element of one of its arrays. *root: the variable
 * or parameter, when the path starts at one. */
static int own_storage(CXCursor e, int subscripts, CXCursor *root)
{
    *root = clang_getNullCursor();
    for (;;) {
        CXCursor p = hs_peel(e, 0);
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_DeclRefExpr) {
            CXCursor r = clang_getCursorReferenced(p);
            enum CXCursorKind rk = clang_getCursorKind(r);
            if (rk != CXCursor_VarDecl && rk != CXCursor_ParmDecl)
                return 0;
            *root = r;
            return 1;
        }
        if (k == CXCursor_CXXThisExpr)
            return 1;
        CXCursor base = hs_first_child(p);
        if (k == CXCursor_MemberRefExpr) {
            if (clang_Cursor_isNull(base))
                return clang_getCursorKind(clang_getCursorReferenced(p)) == CXCursor_FieldDecl;
            CXCursor b = hs_peel(base, 0);
            if (hs_pointer_type(clang_getCursorType(b)))
                return clang_getCursorKind(b) == CXCursor_CXXThisExpr;
            e = base;
            continue;
        }
        if (k == CXCursor_ArraySubscriptExpr && subscripts && !clang_Cursor_isNull(base) &&
            hs_array_type(clang_getCursorType(hs_peel(base, 0)))) {
            e = base;
            continue;
        }
        return 0;
    }
}

/* Whether e is memory the candidate reached through a pointer (the caller's arrays, the heap,
 * pinned buffers) or a string literal, rather than its own: its variables, parameters, *this
 * and temporaries. *root: the variable or parameter a path of its own starts at, if any. */
static int foreign(const subset_ctx *x, CXCursor e, CXCursor *root)
{
    *root = clang_getNullCursor();
    for (;;) {
        CXCursor p = hs_peel(e, 0);
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_StringLiteral ||
            (k == CXCursor_UnaryOperator && hs_operator_is(x, p, "*")))
            return 1;
        CXCursor base = hs_first_child(p);
        if ((k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr) &&
            !clang_Cursor_isNull(base)) {
            CXCursor b = hs_peel(base, 0);
            CXType t = clang_getCursorType(b);
            if (k == CXCursor_MemberRefExpr && hs_pointer_type(t))
                return clang_getCursorKind(b) != CXCursor_CXXThisExpr;
            if (k == CXCursor_ArraySubscriptExpr && !hs_array_type(t))
                return 1;
            e = base;
            continue;
        }
        if (k == CXCursor_DeclRefExpr) {
            CXCursor r = clang_getCursorReferenced(p);
            if (clang_getCursorKind(r) == CXCursor_VarDecl ||
                clang_getCursorKind(r) == CXCursor_ParmDecl)
                *root = r;
        }
        return 0;
    }
}

static int own_root_is(CXCursor e, CXCursor var)
{
    CXCursor root;
    return own_storage(e, 1, &root) && !clang_Cursor_isNull(root) && hs_same_decl(root, var);
}

static int constant_int(CXCursor e, long long *v)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r)
        return 0;
    int yes = clang_EvalResult_getKind(r) == CXEval_Int;
    if (yes)
        *v = clang_EvalResult_getAsLongLong(r);
    clang_EvalResult_dispose(r);
    return yes;
}

/* Whether anything in c may change var: a store to it, its address, or it bound to a
 * reference (an argument that is var itself, not its value). */
static int modifies(const subset_ctx *x, CXCursor c, CXCursor var)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor target = store_target(x, c);
    if (!clang_Cursor_isNull(target) && own_root_is(target, var))
        return 1;
    if (k == CXCursor_UnaryOperator && hs_operator_is(x, c, "&") &&
        own_root_is(hs_first_child(c), var))
        return 1;
    kids ks = hs_children(c);
    int yes = 0;
    for (size_t i = 0; i < ks.n && !yes; i++) {
        CXCursor a = ks.v[i];
        while (clang_getCursorKind(a) == CXCursor_ParenExpr)
            a = hs_first_child(a);
        if (k == CXCursor_CallExpr && clang_getCursorKind(a) == CXCursor_DeclRefExpr &&
            hs_same_decl(clang_getCursorReferenced(a), var))
            yes = 1;
        else
            yes = modifies(x, ks.v[i], var);
    }
    free(ks.v);
    return yes;
}

/* Whether `for (T v = c0; v < C; v++) body` (or ++v, or <= C - 1) keeps v in [0, n): c0 >= 0
 * and C <= n constants, and nothing in the body changes v. */
static int loop_bounds(const subset_ctx *x, CXCursor loop, CXCursor var, long long n)
{
    kids k = hs_children(loop);
    int ok = k.n == 4 && clang_getCursorKind(k.v[0]) == CXCursor_DeclStmt &&
             hs_integer_type(clang_getCursorType(var));
    if (ok) { /* init: the declaration of var, from a constant >= 0 */
        kids d = hs_children(k.v[0]);
        ok = 0;
        for (size_t i = 0; i < d.n; i++)
            if (hs_same_decl(d.v[i], var)) {
                kids init = hs_children(d.v[i]);
                long long v0 = -1;
                ok = init.n && constant_int(init.v[init.n - 1], &v0) && v0 >= 0;
                free(init.v);
            }
        free(d.v);
    }
    long long bound = 0;
    if (ok) { /* condition: v < C or v <= C */
        CXCursor cond = k.v[1];
        kids ops = hs_children(cond);
        char *op = operator_of(x, cond);
        ok = clang_getCursorKind(cond) == CXCursor_BinaryOperator && ops.n == 2 &&
             clang_getCursorKind(hs_peel(ops.v[0], 0)) == CXCursor_DeclRefExpr &&
             hs_same_decl(clang_getCursorReferenced(hs_peel(ops.v[0], 0)), var) &&
             constant_int(ops.v[1], &bound) &&
             ((strcmp(op, "<") == 0 && bound <= n) || (strcmp(op, "<=") == 0 && bound < n));
        free(op);
        free(ops.v);
    }
    if (ok) { /* increment: v++ or ++v */
        CXCursor inc = k.v[2];
        CXCursor operand = hs_first_child(inc);
        ok = clang_getCursorKind(inc) == CXCursor_UnaryOperator && hs_operator_is(x, inc, "++") &&
             clang_getCursorKind(hs_peel(operand, 0)) == CXCursor_DeclRefExpr &&
             hs_same_decl(clang_getCursorReferenced(hs_peel(operand, 0)), var);
    }
    ok = ok && !modifies(x, k.v[3], var);
    free(k.v);
    return ok;
}

/* Whether an index into an array of n elements is in bounds by construction. */
static int index_in_bounds(const subset_ctx *x, CXCursor idx, long long n)
{
    long long v;
    if (constant_int(idx, &v))
        return v >= 0 && v < n;
    CXCursor p = hs_peel(idx, 0);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return 0;
    CXCursor var = clang_getCursorReferenced(p);
    for (size_t i = x->n_loops; i-- > 0;)
        if (loop_bounds(x, x->loops[i], var, n))
            return 1;
    return 0;
}

static int out_parameter(subset_ctx *x, CXCursor parm);

/* Whether a store to e stays inside its object (the rules above). */
static int store_in_bounds(subset_ctx *x, CXCursor e)
{
    CXCursor p = hs_peel(e, 0);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor r = clang_getCursorReferenced(p);
        enum CXCursorKind rk = clang_getCursorKind(r);
        return (rk == CXCursor_VarDecl || rk == CXCursor_ParmDecl) &&
               !reference_type(clang_getCursorType(r));
    }
    kids ks = hs_children(p);
    CXCursor base = ks.n ? hs_peel(ks.v[0], 0) : clang_getNullCursor();
    CXCursor idx = ks.n == 2 ? ks.v[1] : clang_getNullCursor();
    free(ks.v);
    if (clang_Cursor_isNull(base))
        return 0;
    if (k == CXCursor_MemberRefExpr)
        return !hs_pointer_type(clang_getCursorType(base)) && store_in_bounds(x, base);
    if (k == CXCursor_ArraySubscriptExpr) {
        CXType t = hs_canon(clang_getCursorType(base));
        return t.kind == CXType_ConstantArray && !clang_Cursor_isNull(idx) &&
               index_in_bounds(x, idx, clang_getArraySize(t)) && store_in_bounds(x, base);
    }
    if (k == CXCursor_UnaryOperator && hs_operator_is(x, p, "*"))
        return clang_getCursorKind(base) == CXCursor_DeclRefExpr &&
               clang_getCursorKind(clang_getCursorReferenced(base)) == CXCursor_ParmDecl &&
               out_parameter(x, clang_getCursorReferenced(base));
    return 0;
}

/* Whether e is `&v` (v a variable, parameter or a `.` field of one: no subscript, no `this`),
 * under any casts; *v set to the operand. */
static int address_of_variable(const subset_ctx *x, CXCursor e, CXCursor *v)
{
    CXCursor p = hs_peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_UnaryOperator || !hs_operator_is(x, p, "&"))
        return 0;
    *v = hs_first_child(p);
    CXCursor root;
    return own_storage(*v, 0, &root) && !clang_Cursor_isNull(root) &&
           !reference_type(clang_getCursorType(root));
}

/* The spelling of t's canonical type without its leading qualifiers. */
static char *unqualified_spelling(CXType t)
{
    char *s = hs_str_of(clang_getTypeSpelling(hs_canon(t)));
    static const char *const quals[] = {"const ", "volatile ", "restrict ", NULL};
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; quals[i]; i++)
            if (strncmp(s, quals[i], strlen(quals[i])) == 0) {
                memmove(s, s + strlen(quals[i]), strlen(s + strlen(quals[i])) + 1);
                again = 1;
            }
    }
    return s;
}

static int same_type_spelling(CXType a, CXType b)
{
    char *sa = unqualified_spelling(a), *sb = unqualified_spelling(b);
    int same = strcmp(sa, sb) == 0;
    free(sa);
    free(sb);
    return same;
}

/* Whether a pointer parameter of type `param` may receive the address of v: it points to v's
 * type (a void* slot for a pointer variable: cudaMalloc's void **). */
static int holds_exactly(CXType param, CXCursor v)
{
    CXType pt = hs_canon(param);
    if (pt.kind != CXType_Pointer)
        return 0;
    CXType to = hs_canon(clang_getPointeeType(pt)), of = hs_canon(clang_getCursorType(v));
    if (hs_array_type(of) || to.kind == CXType_Void || hs_byte_type(to))
        return 0;
    if (to.kind == CXType_Pointer && of.kind == CXType_Pointer &&
        hs_canon(clang_getPointeeType(to)).kind == CXType_Void)
        return 1;
    return same_type_spelling(to, of);
}

static int own_static_function(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return !clang_Cursor_isNull(def) && hs_from_main_file(def) && !hs_device_only(def) &&
           clang_getCursorLinkage(def) == CXLinkage_Internal;
}

/* Whether argument i of a call to fn may be `&v`: an out-parameter of a CUDA call on the list,
 * or of the file's own static function, of v's type; or a library's pointer to const v (which
 * it only reads). */
static int out_argument(subset_ctx *x, CXCursor fn, unsigned i, CXCursor v)
{
    int nparams = clang_Cursor_getNumArguments(fn);
    if (nparams < 0 || i >= (unsigned)nparams)
        return 0;
    CXCursor parm = clang_Cursor_getArgument(fn, i);
    CXType pt = hs_canon(clang_getCursorType(parm));
    CXCursor def = clang_getCursorDefinition(fn);
    int library = clang_Cursor_isNull(def) || !hs_from_main_file(def);
    if (library && pt.kind == CXType_Pointer &&
        clang_isConstQualifiedType(clang_getPointeeType(pt)))
        return 1; /* a library only reads it: cuBLAS's &alpha */
    if (!holds_exactly(pt, v))
        return 0;
    char *name = hs_str_of(clang_getCursorSpelling(fn));
    int listed = hs_in_list(cuda_out_calls, name);
    free(name);
    if (listed)
        return 1;
    if (!own_static_function(fn))
        return 0;
    return out_parameter(x, clang_Cursor_getArgument(def, i));
}

/* ---- out-parameters: every use of the parameter, every call of its function ---- */

typedef struct chain {
    CXCursor c;
    const struct chain *up;
} chain;

typedef struct use_scan {
    subset_ctx *x;
    CXCursor target; /* the parameter, or the function whose calls are scanned */
    unsigned index;  /* the parameter's position */
    int bad;
} use_scan;

/* The nearest enclosing cursor that is not an implicit conversion or parentheses. */
static const chain *user_of(const chain *up)
{
    while (up && (clang_getCursorKind(up->c) == CXCursor_UnexposedExpr ||
                  clang_getCursorKind(up->c) == CXCursor_ParenExpr))
        up = up->up;
    return up;
}

/* The position of arg among the call's arguments, or -1 (libclang's argument cursors are not
 * equal to the children's: the extents say which is which). */
static int argument_index(CXCursor call, CXCursor arg)
{
    int n = clang_Cursor_getNumArguments(call);
    CXSourceRange r = clang_getCursorExtent(arg);
    for (int i = 0; i < n; i++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        if (clang_equalRanges(clang_getCursorExtent(a), r))
            return i;
    }
    return -1;
}

/* A use of the parameter: *p, or p handed whole to a listed CUDA out-parameter. */
static void judge_parameter_use(use_scan *s, const chain *here)
{
    const chain *u = user_of(here->up);
    if (!u) {
        s->bad = 1;
        return;
    }
    if (clang_getCursorKind(u->c) == CXCursor_UnaryOperator && hs_operator_is(s->x, u->c, "*"))
        return;
    if (clang_getCursorKind(u->c) == CXCursor_CallExpr) {
        /* the argument is the chain's cursor just under the call */
        const chain *arg = here;
        while (arg->up != u)
            arg = arg->up;
        CXCursor fn = clang_getCursorReferenced(u->c);
        int i = argument_index(u->c, arg->c);
        char *name = hs_str_of(clang_getCursorSpelling(fn));
        int listed = hs_in_list(cuda_out_calls, name);
        free(name);
        if (listed && i >= 0 && clang_Cursor_getNumArguments(fn) > i &&
            same_type_spelling(clang_getCursorType(clang_Cursor_getArgument(fn, (unsigned)i)),
                               clang_getCursorType(s->target)))
            return;
    }
    s->bad = 1;
}

static void scan_uses(use_scan *s, CXCursor c, const chain *up)
{
    chain here = {c, up};
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_DeclRefExpr && hs_same_decl(clang_getCursorReferenced(c), s->target))
        judge_parameter_use(s, &here);
    kids ks = hs_children(c);
    for (size_t i = 0; i < ks.n && !s->bad; i++)
        scan_uses(s, ks.v[i], &here);
    free(ks.v);
}

/* Every call of the function: argument `index` is &v of the parameter's pointee type. */
static void scan_calls(use_scan *s, CXCursor c, CXCursor parm)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && hs_same_decl(clang_getCursorReferenced(c), s->target)) {
        CXCursor v;
        if ((int)s->index >= clang_Cursor_getNumArguments(c) ||
            !address_of_variable(s->x, clang_Cursor_getArgument(c, s->index), &v) ||
            !holds_exactly(clang_getCursorType(parm), v))
            s->bad = 1;
    }
    kids ks = hs_children(c);
    for (size_t i = 0; i < ks.n && !s->bad; i++)
        scan_calls(s, ks.v[i], parm);
    free(ks.v);
}

static enum CXChildVisitResult scan_file_calls(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    use_scan *s = data;
    if (hs_from_main_file(c))
        scan_calls(s, c, clang_Cursor_getArgument(clang_getCursorDefinition(s->target), s->index));
    return s->bad ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Whether parm is an out-parameter: a T* (T neither void, a byte nor an array) of a static host
 * function of the file, which only dereferences it or hands it to a listed CUDA call, and
 * which every call gives &v of a T. */
static int out_parameter(subset_ctx *x, CXCursor parm)
{
    CXCursor fn = clang_getCursorSemanticParent(parm);
    CXType t = hs_canon(clang_getCursorType(parm));
    if (clang_getCursorKind(parm) != CXCursor_ParmDecl || !own_static_function(fn) ||
        t.kind != CXType_Pointer)
        return 0;
    CXType to = hs_canon(clang_getPointeeType(t));
    if (to.kind == CXType_Void || hs_byte_type(to) || hs_array_type(to) || hs_function_like(to))
        return 0;
    CXCursor def = clang_getCursorDefinition(fn);
    int n = clang_Cursor_getNumArguments(def), index = -1;
    for (int i = 0; i < n; i++)
        if (hs_same_decl(clang_Cursor_getArgument(def, (unsigned)i), parm))
            index = i;
    if (index < 0)
        return 0;
    use_scan s = {x, clang_Cursor_getArgument(def, (unsigned)index), (unsigned)index, 0};
    scan_uses(&s, def, NULL);
    if (s.bad)
        return 0;
    s.target = def;
    clang_visitChildren(clang_getTranslationUnitCursor(x->tu), scan_file_calls, &s);
    return !s.bad;
}

/* ---- judging ---- */

static char *root_name(CXCursor root)
{
    return clang_Cursor_isNull(root) ? ch_xstrdup("a temporary or *this")
                                     : hs_str_of(clang_getCursorSpelling(root));
}

static int lock_class(CXType t)
{
    char *s = unqualified_spelling(t);
    int yes = hs_has_prefix_in(lock_classes, s);
    free(s);
    return yes;
}

/* The candidate's own storage handed to a call other than as a value: an argument bound to a
 * reference, or the object a method is called on. A copy (copy or move constructor) reads it,
 * and a lock takes its mutex; anything else could keep or hand out its address. */
void hs_judge_call_storage(subset_ctx *x, CXCursor call, CXCursor fn, const kids *k)
{
    int method = clang_getCursorKind(fn) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(fn);
    int copy =
        clang_getCursorKind(fn) == CXCursor_Constructor &&
        (clang_CXXConstructor_isCopyConstructor(fn) || clang_CXXConstructor_isMoveConstructor(fn));
    CXCursor root, object = clang_getNullCursor();
    unsigned first_arg = 0;
    if (method) {
        CXCursor callee = k->n ? hs_peel(k->v[0], 0) : clang_getNullCursor();
        if (clang_getCursorKind(callee) == CXCursor_MemberRefExpr) {
            object = hs_first_child(callee);
            if (clang_Cursor_isNull(object))
                object = callee; /* an implicit this->method() */
        } else if (clang_Cursor_getNumArguments(call) > 0) {
            object = clang_Cursor_getArgument(call, 0); /* an operator's left operand */
            first_arg = 1;
        }
    }
    if (!clang_Cursor_isNull(object) && !foreign(x, object, &root) &&
        !(lock_class(clang_getCursorType(hs_peel(object, 0))) &&
          !hs_array_type(clang_getCursorType(hs_peel(object, 0))))) {
        char *what = root_name(root), *name = hs_str_of(clang_getCursorSpelling(fn));
        hs_refuse(x, call, "host-store",
                  "host code calls the method '%s' on its own object '%s': a method may hand out "
                  "the object's address (only the standard locks are allowed)",
                  name, what);
        free(name);
        free(what);
        return;
    }
    int n = clang_Cursor_getNumArguments(call);
    for (int i = (int)first_arg; i < n && !x->refused; i++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        while (clang_getCursorKind(a) == CXCursor_ParenExpr)
            a = hs_first_child(a);
        enum CXCursorKind ak = clang_getCursorKind(a);
        if (ak != CXCursor_DeclRefExpr && ak != CXCursor_MemberRefExpr &&
            ak != CXCursor_ArraySubscriptExpr)
            continue; /* a value (converted), a temporary or foreign memory */
        if (!own_storage(a, 1, &root))
            continue;
        CXType t = clang_getCursorType(a);
        if ((copy || lock_class(t)) && !hs_array_type(t))
            continue;
        char *what = root_name(root), *name = hs_str_of(clang_getCursorSpelling(fn));
        hs_refuse(x, call, "host-store",
                  "host code binds its own storage ('%s') to a reference parameter of '%s': a "
                  "reference is an address, and its variables' addresses may not leave host code",
                  what, name);
        free(name);
        free(what);
    }
}

/* Whether a call's argument is `&v` given to an out-parameter (then it is not judged as an
 * address taken). */
int hs_out_address_argument(subset_ctx *x, CXCursor call, CXCursor fn, CXCursor arg)
{
    if (x->kind != CH_SUBSET_CANDIDATE)
        return 0;
    CXCursor v;
    int i = argument_index(call, arg);
    return i >= 0 && address_of_variable(x, arg, &v) && out_argument(x, fn, (unsigned)i, v);
}

/* Whether t is an array of run-time length, or has one among its element types. */
static int variable_length(CXType t)
{
    for (t = hs_canon(t); hs_array_type(t); t = hs_canon(clang_getArrayElementType(t)))
        if (t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray)
            return 1;
    return 0;
}

/* A store's target (judged after its operands, whose own rules say more: a cast, a device
 * pointer dereferenced). */
void hs_judge_store(subset_ctx *x, CXCursor c)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused)
        return;
    CXCursor target = store_target(x, c);
    if (!clang_Cursor_isNull(target) && !store_in_bounds(x, target))
        hs_refuse(x, c, "host-store",
                  "host code writes through a pointer, a reference, a call's result or an index "
                  "it cannot bound: a host store goes to a variable, a field of one, an element "
                  "of its array at a constant index or at a for loop's counter bounded by the "
                  "array's length, or through an out-parameter (*p where every call gives &v)");
}

static const char *const stack_allocators[] = {"alloca", "__builtin_alloca",
                                               "__builtin_alloca_with_align", NULL};

/* The stack, for candidates and references alike (a reference is linked as the user's host
 * path: two float t[n] overflow the stack at sizes verification never tried,
 * attacks5/ref03_vla_stack.c): no variable-length array, no alloca. 1 when c is one. */
static int judge_stack(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if ((k == CXCursor_VarDecl || k == CXCursor_ParmDecl || k == CXCursor_FieldDecl ||
         k == CXCursor_TypedefDecl) &&
        variable_length(k == CXCursor_TypedefDecl ? clang_getTypedefDeclUnderlyingType(c)
                                                  : clang_getCursorType(c))) {
        hs_refuse(x, c, "host-store",
                  "host code declares a variable-length array: its length is not known to fit "
                  "the stack, and a large one reaches past it");
        return 1;
    }
    if (k != CXCursor_CallExpr)
        return 0;
    char *name = hs_str_of(clang_getCursorSpelling(c));
    if (hs_in_list(stack_allocators, name))
        hs_refuse(x, c, "host-store",
                  "host code calls %s: memory on the stack of a run-time size reaches past it",
                  name);
    free(name);
    return 1;
}

void hs_judge_host_store(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if (x->refused || judge_stack(x, c, k) || x->kind != CH_SUBSET_CANDIDATE)
        return;
    CXCursor root;
    if (k == CXCursor_UnaryOperator && hs_operator_is(x, c, "&") &&
        !foreign(x, hs_first_child(c), &root)) {
        char *what = root_name(root);
        hs_refuse(x, c, "host-store",
                  "host code takes the address of its own storage ('%s'): a pointer into its "
                  "stack or statics can write past them (only &v given straight to a CUDA "
                  "out-parameter such as cudaMalloc(&p), or to the file's own out-parameter, is "
                  "allowed)",
                  what);
        free(what);
        return;
    }
    if (k == CXCursor_UnexposedExpr && hs_pointer_type(clang_getCursorType(c))) {
        kids ks = hs_children(c);
        if (ks.n == 1 && hs_array_type(clang_getCursorType(ks.v[0])) &&
            !foreign(x, ks.v[0], &root)) {
            char *what = root_name(root);
            hs_refuse(x, c, "host-store",
                      "host code lets its array '%s' become a pointer (passed, assigned or "
                      "offset): a pointer into its stack or statics can write past them; index "
                      "the array instead",
                      what);
            free(what);
        }
        free(ks.v);
    }
}
