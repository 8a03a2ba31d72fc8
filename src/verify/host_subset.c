/* The host subset check (include/ch/host_subset.h): the candidate (or reference) is parsed with
 * libclang as the compiler would read its host side, and every cursor of the main file outside
 * device-only functions is judged. System headers are trusted: only what the model wrote is
 * walked, and a call into a header is judged by whom it calls. */
#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/host_subset.h"
#include "ch/scan.h"
#include "ch/verify.h"
#include "host_subset_internal.h"

/* Namespaces of the headers a candidate may use whose members it may call: the C++ library,
 * CUB, Thrust, libcu++, cooperative groups, WMMA. What they reach of the system is by named
 * libc functions, which the object check judges in the compiled object. */
static const char *const trusted_namespaces[] = {
    "std", "cub", "thrust", "cuda", "cooperative_groups", "nvcuda", "__gnu_cxx", NULL};

int hs_trusted_namespace(const char *ns)
{
    return hs_in_list(trusted_namespaces, ns);
}

/* Builtins that hand out a code or stack address, or jump to one: what a walk to libc starts
 * from, and what a computed jump ends with. */
static const char *const address_builtins[] = {"__builtin_return_address",
                                               "__builtin_frame_address",
                                               "__builtin_extract_return_addr",
                                               "__builtin_frob_return_addr",
                                               "__builtin_dwarf_cfa",
                                               "__builtin_apply",
                                               "__builtin_apply_args",
                                               "__builtin_return",
                                               "__builtin_longjmp",
                                               "__builtin_setjmp",
                                               "__builtin_eh_return",
                                               "__builtin_unwind_init",
                                               "__builtin_call_with_static_chain",
                                               "__builtin_dump_struct",
                                               "__builtin_sponentry",
                                               NULL};

/* Other builtins code may call: pure arithmetic and hints (prefixes). */
static const char *const pure_builtins[] = {"__builtin_expect",
                                            "__builtin_unreachable",
                                            "__builtin_assume",
                                            "__builtin_isnan",
                                            "__builtin_isinf",
                                            "__builtin_isfinite",
                                            "__builtin_signbit",
                                            "__builtin_huge_val",
                                            "__builtin_inf",
                                            "__builtin_nan",
                                            "__builtin_clz",
                                            "__builtin_ctz",
                                            "__builtin_popcount",
                                            "__builtin_ffs",
                                            "__builtin_bswap",
                                            "__builtin_add_overflow",
                                            "__builtin_sub_overflow",
                                            "__builtin_mul_overflow",
                                            "__builtin_constant_p",
                                            "__builtin_prefetch",
                                            "__builtin_is_constant_evaluated",
                                            "__builtin_isgreater",
                                            "__builtin_isless",
                                            "__builtin_isunordered",
                                            "__builtin_fpclassify",
                                            "__builtin_isnormal",
                                            "__builtin_launder",
                                            "__builtin_addressof",
                                            "__builtin_operator_new",
                                            "__builtin_operator_delete",
                                            NULL};

/* ---- small helpers --------------------------------------------------------------------------- */

char *hs_str_of(CXString s)
{
    const char *c = clang_getCString(s);
    char *out = ch_xstrdup(c ? c : "");
    clang_disposeString(s);
    return out;
}

int hs_in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

int hs_has_prefix_in(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strncmp(s, list[i], strlen(list[i])) == 0)
            return 1;
    return 0;
}

int hs_from_main_file(CXCursor c)
{
    return clang_Location_isFromMainFile(clang_getCursorLocation(c));
}

static int is_function_decl(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
           k == CXCursor_FunctionTemplate;
}

int hs_is_cast(enum CXCursorKind k)
{
    return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
           k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_CXXAddrspaceCastExpr ||
           k == CXCursor_CXXDynamicCastExpr;
}

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    kids *k = data;
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 8;
        k->v = ch_xrealloc(k->v, k->cap * sizeof *k->v);
    }
    k->v[k->n++] = c;
    return CXChildVisit_Continue;
}

kids hs_children(CXCursor c)
{
    kids k = {NULL, 0, 0};
    clang_visitChildren(c, collect, &k);
    return k;
}

/* Whether c has a child of that kind (a function's or a variable's CUDA attributes). */
int hs_has_child_kind(CXCursor fn, enum CXCursorKind attr)
{
    kids k = hs_children(fn);
    int found = 0;
    for (size_t i = 0; i < k.n && !found; i++)
        found = clang_getCursorKind(k.v[i]) == attr;
    free(k.v);
    return found;
}

int hs_is_kernel(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return hs_has_child_kind(clang_Cursor_isNull(def) ? fn : def, CXCursor_CUDAGlobalAttr);
}

/* A kernel, or a __device__ function without __host__: never compiled for the host. */
int hs_device_only(CXCursor fn)
{
    return hs_has_child_kind(fn, CXCursor_CUDAGlobalAttr) ||
           (hs_has_child_kind(fn, CXCursor_CUDADeviceAttr) &&
            !hs_has_child_kind(fn, CXCursor_CUDAHostAttr));
}

/* ---- types ----------------------------------------------------------------------------------- */

CXType hs_canon(CXType t)
{
    return clang_getCanonicalType(t);
}

static int function_type(CXType t)
{
    t = hs_canon(t);
    return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
}

/* A function, or a pointer, reference or member pointer to one. */
int hs_function_like(CXType t)
{
    t = hs_canon(t);
    if (function_type(t))
        return 1;
    if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference ||
        t.kind == CXType_RValueReference || t.kind == CXType_MemberPointer ||
        t.kind == CXType_BlockPointer)
        return function_type(clang_getPointeeType(t));
    return 0;
}

int hs_pointer_type(CXType t)
{
    t = hs_canon(t);
    return t.kind == CXType_Pointer || t.kind == CXType_BlockPointer ||
           t.kind == CXType_MemberPointer;
}

int hs_integer_type(CXType t)
{
    t = hs_canon(t);
    return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

int hs_byte_type(CXType t)
{
    t = hs_canon(t);
    return t.kind == CXType_Void || t.kind == CXType_Char_U || t.kind == CXType_UChar ||
           t.kind == CXType_Char_S || t.kind == CXType_SChar;
}

/* Whether a pointer to a may view what a pointer to b points at: the same type (qualifiers
 * aside), an untyped or byte view (void, char), or pointers to such (void** <-> T**, as
 * cudaMalloc takes). */
static int compatible_pointees(CXType a, CXType b)
{
    a = hs_canon(a);
    b = hs_canon(b);
    if (hs_byte_type(a) || hs_byte_type(b))
        return 1;
    if (a.kind != b.kind)
        return 0;
    switch (a.kind) {
    case CXType_Pointer:
        return compatible_pointees(clang_getPointeeType(a), clang_getPointeeType(b));
    case CXType_Record:
    case CXType_Enum:
        return clang_equalCursors(clang_getTypeDeclaration(a), clang_getTypeDeclaration(b));
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
        return compatible_pointees(clang_getArrayElementType(a), clang_getArrayElementType(b));
    case CXType_FunctionProto:
    case CXType_FunctionNoProto:
        return 0;
    default:
        return a.kind != CXType_Unexposed && a.kind != CXType_Invalid;
    }
}

/* ---- refusing -------------------------------------------------------------------------------- */

void hs_refuse(subset_ctx *x, CXCursor at, const char *rule, const char *fmt, ...)
{
    int held = strcmp(rule, "host-store") == 0 || strcmp(rule, "pointer-value") == 0 ||
               strcmp(rule, "provenance") == 0 || strcmp(rule, "static-state") == 0 ||
               strcmp(rule, "state-flow") == 0;
    if (x->refused || (held && x->held_what))
        return;
    CXFile file;
    unsigned line = 0, col = 0, off = 0;
    clang_getExpansionLocation(clang_getCursorLocation(at), &file, &line, &col, &off);
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf b;
    ch_strbuf_init(&b);
    ch_strbuf_vaddf(&b, fmt, ap);
    va_end(ap);
    if (held) {
        x->held_rule = rule;
        x->held_what = ch_strbuf_detach(&b);
        x->held_line = line;
        x->held_col = col;
        return;
    }
    x->refused = 1;
    x->rule = rule;
    x->line = line;
    x->col = col;
    x->what = ch_strbuf_detach(&b);
}

static const char *code_name(const subset_ctx *x)
{
    return x->kind == CH_SUBSET_REFERENCE ? "the reference" : "host code";
}

/* ---- calls ----------------------------------------------------------------------------------- */

/* The outermost namespace c is declared in ("" at file scope); *in_class set when a class
 * encloses it. */
char *hs_outer_namespace(CXCursor c, int *in_class)
{
    char *ns = ch_xstrdup("");
    *in_class = 0;
    for (CXCursor p = clang_getCursorSemanticParent(c);
         !clang_Cursor_isNull(p) && clang_getCursorKind(p) != CXCursor_TranslationUnit;
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_Namespace) {
            free(ns);
            ns = hs_str_of(clang_getCursorSpelling(p));
        } else if (k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
                   k == CXCursor_ClassTemplate || k == CXCursor_UnionDecl ||
                   k == CXCursor_ClassTemplatePartialSpecialization) {
            *in_class = 1;
        }
    }
    return ns;
}

/* Whether fn is an inline helper defined in a header of the CUDA toolkit or clang's CUDA
 * wrappers (make_float4, __half conversions, min/max overloads). A function only declared there
 * (the driver API's cu* entry points) is judged by its name, as the object check judges it. */
static int cuda_header_inline(const subset_ctx *x, CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def))
        return 0;
    CXFile file;
    clang_getExpansionLocation(clang_getCursorLocation(def), &file, NULL, NULL, NULL);
    char *path = file ? hs_str_of(clang_getFileName(file)) : ch_xstrdup("");
    size_t n = strlen(x->cuda_include);
    int yes = (n && strncmp(path, x->cuda_include, n) == 0 && path[n] == '/') ||
              strstr(path, "/__clang_cuda_") != NULL;
    free(path);
    return yes;
}

static int builtin_allowed(const subset_ctx *x, const char *name)
{
    if (hs_has_prefix_in(pure_builtins, name))
        return 1;
    ch_object_kind ok = x->kind == CH_SUBSET_REFERENCE ? CH_OBJECT_REFERENCE : CH_OBJECT_CANDIDATE;
    return ch_object_name_allowed(ok, x->libs, name + strlen("__builtin_"));
}

/* Judges the function a direct call reaches. */
static void judge_callee(subset_ctx *x, CXCursor call, CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def) && hs_from_main_file(def))
        return; /* the file's own function or kernel: walked itself */
    char *name = hs_str_of(clang_getCursorSpelling(fn));
    int in_class = 0;
    char *ns = hs_outer_namespace(fn, &in_class);
    int ok;
    if (hs_in_list(address_builtins, name)) {
        hs_refuse(x, call, "builtin",
                  "%s calls %s: return and frame addresses lead from any callback into libc's "
                  "symbol table; no builtin that hands out or jumps to a code address is allowed",
                  code_name(x), name);
        ok = 1;
    } else if (strncmp(name, "__builtin_", 10) == 0) {
        ok = builtin_allowed(x, name);
    } else if (x->kind == CH_SUBSET_REFERENCE) {
        ok = !in_class && !*ns && ch_object_name_allowed(CH_OBJECT_REFERENCE, 0, name);
    } else if (hs_from_main_file(fn)) {
        /* declared here but defined nowhere in the file: a hand-written prototype of a
         * library function, judged by its name alone */
        ok = !in_class && !*ns &&
             (ch_object_name_allowed(CH_OBJECT_CANDIDATE, x->libs, name) ||
              strncmp(name, "ch_rt_", 6) == 0);
    } else {
        ok = (*ns && hs_in_list(trusted_namespaces, ns)) || (in_class && !*ns) ||
             ch_object_name_allowed(CH_OBJECT_CANDIDATE, x->libs, name) ||
             strncmp(name, "ch_rt_", 6) == 0 || cuda_header_inline(x, fn);
    }
    if (!ok)
        hs_refuse(x, call, "call",
                  x->kind == CH_SUBSET_REFERENCE
                      ? "the reference calls '%s%s%s': a reference may call only memory and math "
                        "functions and its own functions"
                      : "host code calls '%s%s%s', which is not on the host allow-list (CUDA "
                        "runtime, cuBLAS when declared, the trusted runtime, memory and math "
                        "functions, the C++/CUB/Thrust headers, the file's own functions and "
                        "kernels)",
                  ns, *ns ? "::" : "", name);
    free(ns);
    free(name);
}

/* c with implicit conversions and parentheses (and, with casts, explicit casts) peeled off. */
CXCursor hs_peel(CXCursor c, int casts)
{
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && !(casts && hs_is_cast(k)))
            return c;
        kids ks = hs_children(c);
        CXCursor next = ks.n ? ks.v[ks.n - 1] : clang_getNullCursor();
        size_t n = ks.n;
        free(ks.v);
        if (n == 0 || (n > 1 && !casts))
            return c;
        c = next;
    }
}

int hs_same_decl(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

/* Whether the expression e names the function fn (the callee of a direct call). */
static int names_function(CXCursor e, CXCursor fn)
{
    CXCursor p = hs_peel(e, 0);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return !clang_Cursor_isNull(r) && hs_same_decl(r, fn);
}

/* Whether e is a kernel of this file named as a value (for a cuda* API that takes one). */
static int kernel_value(CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return !clang_Cursor_isNull(r) && is_function_decl(clang_getCursorKind(r)) &&
           hs_has_child_kind(clang_getCursorDefinition(r), CXCursor_CUDAGlobalAttr);
}

static void walk(subset_ctx *x, CXCursor c);

static void walk_children(subset_ctx *x, CXCursor c)
{
    kids k = hs_children(c);
    for (size_t i = 0; i < k.n && !x->refused; i++)
        walk(x, k.v[i]);
    free(k.v);
}

/* The callee expression of a direct call: its own function type is what a call needs; what
 * it is applied to (the object of a member call) is walked as any code. */
static void walk_callee(subset_ctx *x, CXCursor c)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr) {
        kids ks = hs_children(c);
        for (size_t i = 0; i < ks.n && !x->refused; i++)
            walk_callee(x, ks.v[i]);
        free(ks.v);
        return;
    }
    walk_children(x, c);
}

/* The function a call names: libclang's answer, or for a parenthesised callee ((f)(x)) the
 * function its first child names. A null cursor when the call names none. */
static CXCursor callee_of(CXCursor call, const kids *k)
{
    CXCursor fn = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(fn) && is_function_decl(clang_getCursorKind(fn)))
        return fn;
    if (k->n == 0)
        return fn;
    CXCursor p = hs_peel(k->v[0], 0);
    enum CXCursorKind pk = clang_getCursorKind(p);
    CXCursor r = clang_getCursorReferenced(p);
    if ((pk == CXCursor_DeclRefExpr || pk == CXCursor_MemberRefExpr) && !clang_Cursor_isNull(r) &&
        is_function_decl(clang_getCursorKind(r)))
        return r;
    return fn;
}

static void walk_call(subset_ctx *x, CXCursor call)
{
    kids k = hs_children(call);
    CXCursor fn = callee_of(call, &k);
    if (clang_Cursor_isNull(fn) || !is_function_decl(clang_getCursorKind(fn))) {
        /* a construction without a constructor to name (a trivial one) has no callee child */
        int trivial = k.n == 0 || clang_getCursorKind(k.v[0]) == CXCursor_TypeRef;
        if (!trivial || !clang_Cursor_isNull(fn))
            hs_refuse(x, call, "indirect-call",
                      "%s makes an indirect call (its callee is not a named function): calls "
                      "through pointers, fields or computed expressions are not allowed",
                      code_name(x));
        for (size_t i = 0; i < k.n && !x->refused; i++)
            walk(x, k.v[i]);
        free(k.v);
        return;
    }
    if (hs_function_like(clang_getCursorType(call)))
        hs_refuse(x, call, "function-pointer",
                  "%s calls a function that returns a function pointer: functions may only be "
                  "called by name",
                  code_name(x));
    if (clang_getCursorKind(fn) == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(fn))
        hs_refuse(x, call, "virtual",
                  "host code makes a virtual call: it goes through a table of function pointers");
    char *name = hs_str_of(clang_getCursorSpelling(fn));
    /* a cuda* API that takes a kernel (occupancy, attributes, cudaLaunchKernel) may be given
     * one of the file's kernels; the host-callback APIs take host functions and never do */
    int takes_kernel = strncmp(name, "cuda", 4) == 0 &&
                       strncmp(name, "cudaLaunchHostFunc", 18) != 0 &&
                       strncmp(name, "cudaStreamAddCallback", 21) != 0;
    free(name);
    if (x->kind == CH_SUBSET_CANDIDATE)
        hs_judge_call_storage(x, call, fn, &k);
    int callee_seen = 0;
    for (size_t i = 0; i < k.n && !x->refused; i++) {
        if (!callee_seen && names_function(k.v[i], fn)) {
            callee_seen = 1;
            walk_callee(x, k.v[i]);
        } else if (takes_kernel && kernel_value(k.v[i])) {
            continue;
        } else if (hs_out_address_argument(x, call, fn, k.v[i])) {
            continue; /* &v for an out-parameter: v itself is a plain name */
        } else {
            walk(x, k.v[i]);
        }
    }
    free(k.v);
    /* after the arguments: a callback says more than the function that would take it */
    judge_callee(x, call, fn);
}

/* ---- conversions ----------------------------------------------------------------------------- */

/* Whether a C++ cast names a reference type: `cast<T &>` or `cast<T &&>`. */
static int to_reference(const subset_ctx *x, CXCursor c)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getCursorExtent(c), &t, &n);
    int ref = 0;
    for (unsigned i = 1; i < n; i++) {
        char *s = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
        int close = strcmp(s, ">") == 0 || strcmp(s, ">>") == 0;
        free(s);
        if (close) {
            char *before = hs_str_of(clang_getTokenSpelling(x->tu, t[i - 1]));
            ref = strcmp(before, "&") == 0 || strcmp(before, "&&") == 0;
            free(before);
            break;
        }
    }
    clang_disposeTokens(x->tu, t, n);
    return ref;
}

int hs_null_constant(CXCursor e)
{
    CXEvalResult r = clang_Cursor_Evaluate(e);
    if (!r)
        return 0;
    int zero = clang_EvalResult_getKind(r) == CXEval_Int && clang_EvalResult_getAsLongLong(r) == 0;
    clang_EvalResult_dispose(r);
    return zero;
}

/* A conversion (explicit, or implicit in C) from its operand's type to its own. */
static void judge_conversion(subset_ctx *x, CXCursor c, int is_implicit)
{
    kids k = hs_children(c);
    CXCursor operand = k.n ? k.v[k.n - 1] : clang_getNullCursor();
    size_t n = k.n;
    free(k.v);
    if ((is_implicit && n != 1) || clang_Cursor_isNull(operand) ||
        !clang_isExpression(clang_getCursorKind(operand)))
        return;
    CXType to = hs_canon(clang_getCursorType(c)), from = hs_canon(clang_getCursorType(operand));
    if (clang_getCursorKind(c) == CXCursor_CXXReinterpretCastExpr && to_reference(x, c)) {
        /* reinterpret_cast<long &>(p): the storage of p seen as another type (the cast's type
         * is the referred type, an lvalue) */
        if (compatible_pointees(to, from))
            return;
        hs_refuse(x, c, "cast",
                  "%s reinterprets an object as an unrelated type: pointers may not be forged",
                  code_name(x));
        return;
    }
    if (!hs_pointer_type(to) || hs_function_like(to))
        return;
    /* a reference reads its inputs and writes only its outputs: a const input written through a
     * cast (attacks5/ref02_writes_const_input.c) would change the caller's data on the host path */
    if (x->kind == CH_SUBSET_REFERENCE && hs_pointer_type(from) &&
        clang_isConstQualifiedType(clang_getPointeeType(from)) &&
        !clang_isConstQualifiedType(clang_getPointeeType(to))) {
        hs_refuse(x, c, "cast",
                  "%s casts away const%s: a reference reads its inputs and writes only its "
                  "outputs",
                  code_name(x), is_implicit ? " (an implicit conversion)" : "");
        return;
    }
    if (hs_integer_type(from) && !hs_null_constant(operand))
        hs_refuse(x, c, "cast",
                  "%s turns an integer into a pointer%s: pointers may not be forged (only a null "
                  "constant may become one)",
                  code_name(x), is_implicit ? " (an implicit conversion)" : "");
    else if (hs_pointer_type(from) && !hs_function_like(from) &&
             !compatible_pointees(clang_getPointeeType(to), clang_getPointeeType(from))) {
        char *a = hs_str_of(clang_getTypeSpelling(from)), *b = hs_str_of(clang_getTypeSpelling(to));
        hs_refuse(x, c, "cast",
                  "%s converts '%s' to the unrelated pointer type '%s': only void, character and "
                  "void** views of a pointer are allowed",
                  code_name(x), a, b);
        free(a);
        free(b);
    }
}

/* ---- declarations ------------------------------------------------------------------------------
 */

static enum CXVisitorResult pointer_field(CXCursor field, CXClientData data)
{
    if (hs_pointer_type(clang_getCursorType(field))) {
        *(int *)data = 1;
        return CXVisit_Break;
    }
    return CXVisit_Continue;
}

static void judge_declaration(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if ((k == CXCursor_VarDecl || k == CXCursor_FieldDecl || k == CXCursor_ParmDecl ||
         k == CXCursor_NonTypeTemplateParameter) &&
        hs_function_like(clang_getCursorType(c))) {
        char *name = hs_str_of(clang_getCursorSpelling(c));
        char *what = *name ? ch_xasprintf("'%s'", name) : ch_xstrdup("a parameter");
        hs_refuse(x, c, "function-pointer",
                  "%s declares %s of function-pointer type: no function may be held or passed as "
                  "a value (no callbacks)",
                  code_name(x), what);
        free(what);
        free(name);
    } else if (k == CXCursor_UnionDecl && clang_isCursorDefinition(c)) {
        int has = 0;
        clang_Type_visitFields(clang_getCursorType(c), pointer_field, &has);
        if (has)
            hs_refuse(x, c, "union",
                      "%s declares a union holding a pointer: it turns integers into pointers",
                      code_name(x));
    } else if (k == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(c)) {
        hs_refuse(x, c, "virtual",
                  "host code declares a virtual function: virtual calls go through a table of "
                  "function pointers");
    }
}

/* ---- the device launcher's pointers ---------------------------------------------------------- */

/* Whether e names a pointer parameter of the device launcher. */
static int launcher_pointer(const subset_ctx *x, CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return clang_getCursorKind(r) == CXCursor_ParmDecl && hs_pointer_type(clang_getCursorType(r)) &&
           hs_same_decl(clang_getCursorSemanticParent(r), x->launcher);
}

static int first_token_is(const subset_ctx *x, CXCursor c, const char *spelling)
{
    CXToken *t = clang_getToken(x->tu, clang_getCursorLocation(c));
    if (!t)
        return 0;
    char *s = hs_str_of(clang_getTokenSpelling(x->tu, *t));
    int yes = strcmp(s, spelling) == 0;
    free(s);
    clang_disposeTokens(x->tu, t, 1);
    return yes;
}

static void judge_dereference(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if (clang_Cursor_isNull(x->launcher))
        return;
    int deref = k == CXCursor_ArraySubscriptExpr ||
                (k == CXCursor_UnaryOperator && first_token_is(x, c, "*"));
    CXCursor base = clang_getNullCursor();
    kids ks = hs_children(c);
    if (deref && ks.n)
        base = ks.v[0];
    free(ks.v);
    if (k == CXCursor_MemberRefExpr) {
        ks = hs_children(c);
        if (ks.n && hs_pointer_type(clang_getCursorType(hs_peel(ks.v[0], 0))))
            base = ks.v[0];
        free(ks.v);
    }
    if (!clang_Cursor_isNull(base) && launcher_pointer(x, base))
        hs_refuse(x, c, "device-deref",
                  "%s dereferences a device pointer on the host: its pointers are device memory, "
                  "which only kernels and cudaMemcpy may touch",
                  x->device_launcher);
}

/* ---- the walk -------------------------------------------------------------------------------- */

/* The static variables of a device-only function (its body is not host code, but what it keeps
 * across launches is state all the same). */
static enum CXChildVisitResult device_statics(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    subset_ctx *x = data;
    if (clang_getCursorKind(c) == CXCursor_VarDecl)
        hs_judge_static_state(x, c, 1);
    return x->refused ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static void walk_function(subset_ctx *x, CXCursor c)
{
    if (hs_device_only(c)) {
        if (x->kind == CH_SUBSET_CANDIDATE)
            clang_visitChildren(c, device_statics, x);
        return;
    }
    char *name = hs_str_of(clang_getCursorSpelling(c));
    int launcher =
        x->device_launcher && clang_isCursorDefinition(c) && strcmp(name, x->device_launcher) == 0;
    free(name);
    CXCursor outer = x->launcher;
    if (launcher)
        x->launcher = c;
    judge_declaration(x, c, clang_getCursorKind(c));
    walk_children(x, c);
    x->launcher = outer;
    /* after the other rules: their reasons say more about the same code */
    hs_judge_provenance(x, c, launcher);
}

/* An array subscript: its array decays to a pointer only to be indexed, which the store rule
 * judges; the decay itself is no address handed out. */
static void walk_subscript(subset_ctx *x, CXCursor c)
{
    kids k = hs_children(c);
    for (size_t i = 0; i < k.n && !x->refused; i++) {
        CXCursor base = k.v[i];
        kids inner = hs_children(base);
        if (i == 0 && clang_getCursorKind(base) == CXCursor_UnexposedExpr && inner.n == 1 &&
            hs_array_type(clang_getCursorType(inner.v[0])))
            walk(x, inner.v[0]);
        else
            walk(x, base);
        free(inner.v);
    }
    free(k.v);
}

static void walk(subset_ctx *x, CXCursor c)
{
    if (x->refused)
        return;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (is_function_decl(k)) {
        walk_function(x, c);
        return;
    }
    switch (k) {
    case CXCursor_LambdaExpr:
        hs_refuse(x, c, "lambda",
                  "host code has a lambda: a lambda is a callback (a function made a value)");
        return;
    case CXCursor_GCCAsmStmt:
    case CXCursor_MSAsmStmt:
    case CXCursor_AsmLabelAttr:
        hs_refuse(x, c, "asm", "%s has inline assembly or an asm label", code_name(x));
        return;
    case CXCursor_AddrLabelExpr:
    case CXCursor_IndirectGotoStmt:
        hs_refuse(x, c, "goto", "%s has a computed goto (a label's address)", code_name(x));
        return;
    case CXCursor_BuiltinBitCastExpr:
        if (hs_pointer_type(clang_getCursorType(c)))
            hs_refuse(x, c, "cast", "%s bit-casts to a pointer: pointers may not be forged",
                      code_name(x));
        break;
    case CXCursor_CallExpr:
        hs_judge_host_store(x, c, k);
        hs_judge_pointer_value(x, c, k);
        walk_call(x, c);
        return;
    case CXCursor_ForStmt:
        if (x->n_loops < sizeof x->loops / sizeof *x->loops) {
            x->loops[x->n_loops++] = c;
            walk_children(x, c);
            x->n_loops--;
            return;
        }
        /* deeper loops bound no index: their subscripts are refused */
        break;

    case CXCursor_UnexposedDecl:
        /* file-scope asm("...") has no cursor kind of its own */
        if (first_token_is(x, c, "asm") || first_token_is(x, c, "__asm") ||
            first_token_is(x, c, "__asm__")) {
            hs_refuse(x, c, "asm", "%s has inline assembly or an asm label", code_name(x));
            return;
        }
        break;
    default:
        break;
    }
    judge_declaration(x, c, k);
    if (k == CXCursor_VarDecl)
        hs_judge_static_state(x, c, 0);
    if (hs_is_cast(k) || (k == CXCursor_UnexposedExpr && x->kind == CH_SUBSET_REFERENCE))
        judge_conversion(x, c, !hs_is_cast(k));
    if (clang_isExpression(k) && hs_function_like(clang_getCursorType(c)))
        hs_refuse(x, c, "function-pointer",
                  "%s uses a function as a value (its address taken, or passed as a callback): "
                  "functions may only be called by name",
                  code_name(x));
    judge_dereference(x, c, k);
    hs_judge_host_store(x, c, k);
    hs_judge_pointer_value(x, c, k);
    if (k == CXCursor_ArraySubscriptExpr && x->kind == CH_SUBSET_CANDIDATE)
        walk_subscript(x, c);
    else
        walk_children(x, c);
    if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator ||
        k == CXCursor_UnaryOperator)
        hs_judge_store(x, c);
}

static enum CXChildVisitResult top_level(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    subset_ctx *x = data;
    if (hs_from_main_file(c))
        walk(x, c);
    return x->refused ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* ---- parsing -----------------------------------------------------------------------------------
 */

/* Whether the location lies inside a device-only function of the main file. */
typedef struct device_span {
    unsigned line;
    int inside;
} device_span;

static enum CXChildVisitResult find_device_span(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    device_span *d = data;
    if (!hs_from_main_file(c))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec)
        return CXChildVisit_Recurse;
    if (!is_function_decl(k) || !hs_device_only(c))
        return CXChildVisit_Continue;
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned from = 0, to = 0;
    clang_getExpansionLocation(clang_getRangeStart(r), NULL, &from, NULL, NULL);
    clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &to, NULL, NULL);
    if (d->line >= from && d->line <= to) {
        d->inside = 1;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

/* The first error of the main file outside device-only functions: 1 with x refused. */
static int parse_errors(subset_ctx *x)
{
    unsigned n = clang_getNumDiagnostics(x->tu);
    for (unsigned i = 0; i < n && !x->refused; i++) {
        CXDiagnostic d = clang_getDiagnostic(x->tu, i);
        CXSourceLocation loc = clang_getDiagnosticLocation(d);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error &&
            clang_Location_isFromMainFile(loc)) {
            unsigned line = 0, col = 0;
            clang_getExpansionLocation(loc, NULL, &line, &col, NULL);
            device_span span = {line, 0};
            clang_visitChildren(clang_getTranslationUnitCursor(x->tu), find_device_span, &span);
            if (!span.inside) {
                char *text = hs_str_of(clang_getDiagnosticSpelling(d));
                x->refused = 1;
                x->rule = "parse";
                x->line = line;
                x->col = col;
                x->what =
                    ch_xasprintf("%s cannot be read as C%s (%s): what cannot be parsed "
                                 "cannot be checked",
                                 code_name(x), x->kind == CH_SUBSET_REFERENCE ? "" : "++", text);
                free(text);
            }
        }
        clang_disposeDiagnostic(d);
    }
    return x->refused;
}

static char *cuda_include_dir(void)
{
    const char *cuda = getenv("CUDA_HOME");
    return ch_xasprintf("%s/include", cuda && *cuda ? cuda : "/usr/local/cuda");
}

int ch_host_subset_check(const char *src, ch_subset_kind kind, const char *entry, int device_entry,
                         const char *file, ch_strbuf *msg, ch_subset_finding *f)
{
    ch_strvec args;
    ch_strvec_init(&args);
    char *tmpdir = NULL;
    ch_error err = {0};
    char *cuda_inc = cuda_include_dir();
    if (kind == CH_SUBSET_CANDIDATE) {
        tmpdir = ch_scan_cuda_host_args(&args, &err);
        ch_strvec_push(&args, "-std=c++17");
        /* CUDA 13 keeps CUB, Thrust and libcu++ there, and nvcc adds it as a system directory */
        char *cccl = ch_path_join(cuda_inc, "cccl");
        if (ch_is_dir(cccl)) {
            ch_strvec_push(&args, "-isystem");
            ch_strvec_push(&args, cccl);
        }
        free(cccl);
    } else {
        static const char *const c_args[] = {"-x", "c", "-std=gnu11", NULL};
        for (size_t i = 0; c_args[i]; i++)
            ch_strvec_push(&args, c_args[i]);
    }
    const char *path = kind == CH_SUBSET_CANDIDATE ? "ch-cc-candidate.cu" : "ch-cc-reference.c";
    /* the loop hints' arguments blanked, so that libclang walks their loops */
    char *parsed = ch_subset_parse_text(src);
    struct CXUnsavedFile unsaved = {path, parsed, (unsigned long)strlen(parsed)};
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode rc =
        clang_parseTranslationUnit2(idx, path, (const char *const *)args.items, (int)args.len,
                                    &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
    subset_ctx x = {0};
    x.tu = tu;
    x.kind = kind;
    x.libs = ch_object_libraries_declared(src);
    x.entry = entry;
    x.device_entry = device_entry;
    x.device_launcher = entry ? ch_xasprintf("%s_device_launcher", entry) : NULL;
    x.launcher = clang_getNullCursor();
    x.cuda_include = cuda_inc;
    x.source = src;
    if (rc != CXError_Success || !tu) {
        x.refused = 1;
        x.rule = "parse";
        x.what = ch_xasprintf("%s could not be parsed for the host subset check (libclang "
                              "error %d)",
                              code_name(&x), (int)rc);
    } else if (!parse_errors(&x)) {
        clang_visitChildren(clang_getTranslationUnitCursor(tu), top_level, &x);
        hs_judge_state_flow(&x);
    }
    if (!x.refused && x.held_what) {
        x.refused = 1;
        x.rule = x.held_rule;
        x.line = x.held_line;
        x.col = x.held_col;
        x.what = x.held_what;
        x.held_what = NULL;
    }
    free(x.held_what);
    /* last: every other rule's reason says more about the same code */
    if (!x.refused && tu)
        hs_judge_magic(&x);
    if (!x.refused && tu)
        hs_judge_unroll(&x);
    ch_strbuf_reset(msg);
    if (x.refused) {
        f->rule = x.rule;
        f->line = x.line;
        f->col = x.col;
        if (file && x.line)
            ch_strbuf_addf(msg, "%s:%u:%u: %s", file, x.line, x.col, x.what);
        else if (x.line)
            ch_strbuf_addf(msg, "%s (line %u, column %u)", x.what, x.line, x.col);
        else
            ch_strbuf_adds(msg, x.what);
    }
    free(x.what);
    free(x.device_launcher);
    free(cuda_inc);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    free(parsed); /* the unsaved file's text: the translation unit may read it until here */
    if (tmpdir) {
        ch_error e2;
        ch_remove_tree(tmpdir, &e2);
        free(tmpdir);
    }
    ch_strvec_free(&args);
    return x.refused;
}
