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

/* Namespaces of the headers a candidate may use whose members it may call: the C++ library,
 * CUB, Thrust, libcu++, cooperative groups, WMMA. What they reach of the system is by named
 * libc functions, which the object check judges in the compiled object. */
static const char *const trusted_namespaces[] = {
    "std", "cub", "thrust", "cuda", "cooperative_groups", "nvcuda", "__gnu_cxx", NULL};

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

typedef struct subset_ctx {
    CXTranslationUnit tu;
    ch_subset_kind kind;
    unsigned libs;         /* libraries the source declares (ch_object_libraries_declared) */
    char *device_launcher; /* NAME_device_launcher, or NULL */
    CXCursor launcher;     /* the device launcher being walked, or null */
    CXCursor loops[32];    /* the for statements around the cursor walked, innermost last */
    size_t n_loops;
    const char *cuda_include; /* the CUDA toolkit's include directory */
    int refused;
    const char *rule;
    char *what;
    unsigned line, col;
    /* the first host-store finding, held until the walk ends: any other rule's reason (a call
     * off the allow-list, a callback) says more about the same code, and wins */
    char *store_what;
    unsigned store_line, store_col;
} subset_ctx;

/* ---- small helpers --------------------------------------------------------------------------- */

static char *str_of(CXString s)
{
    const char *c = clang_getCString(s);
    char *out = ch_xstrdup(c ? c : "");
    clang_disposeString(s);
    return out;
}

static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static int has_prefix_in(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strncmp(s, list[i], strlen(list[i])) == 0)
            return 1;
    return 0;
}

static int from_main_file(CXCursor c)
{
    return clang_Location_isFromMainFile(clang_getCursorLocation(c));
}

static int is_function_decl(enum CXCursorKind k)
{
    return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
           k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
           k == CXCursor_FunctionTemplate;
}

static int is_cast(enum CXCursorKind k)
{
    return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
           k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
           k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_CXXAddrspaceCastExpr ||
           k == CXCursor_CXXDynamicCastExpr;
}

/* The children of c, in the order libclang visits them. */
typedef struct kids {
    CXCursor *v;
    size_t n, cap;
} kids;

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

static kids children(CXCursor c)
{
    kids k = {NULL, 0, 0};
    clang_visitChildren(c, collect, &k);
    return k;
}

/* Whether fn carries the CUDA attribute kind among its children. */
static int has_attr(CXCursor fn, enum CXCursorKind attr)
{
    kids k = children(fn);
    int found = 0;
    for (size_t i = 0; i < k.n && !found; i++)
        found = clang_getCursorKind(k.v[i]) == attr;
    free(k.v);
    return found;
}

/* A kernel, or a __device__ function without __host__: never compiled for the host. */
static int device_only(CXCursor fn)
{
    return has_attr(fn, CXCursor_CUDAGlobalAttr) ||
           (has_attr(fn, CXCursor_CUDADeviceAttr) && !has_attr(fn, CXCursor_CUDAHostAttr));
}

/* ---- types ----------------------------------------------------------------------------------- */

static CXType canon(CXType t)
{
    return clang_getCanonicalType(t);
}

static int function_type(CXType t)
{
    t = canon(t);
    return t.kind == CXType_FunctionProto || t.kind == CXType_FunctionNoProto;
}

/* A function, or a pointer, reference or member pointer to one. */
static int function_like(CXType t)
{
    t = canon(t);
    if (function_type(t))
        return 1;
    if (t.kind == CXType_Pointer || t.kind == CXType_LValueReference ||
        t.kind == CXType_RValueReference || t.kind == CXType_MemberPointer ||
        t.kind == CXType_BlockPointer)
        return function_type(clang_getPointeeType(t));
    return 0;
}

static int pointer_type(CXType t)
{
    t = canon(t);
    return t.kind == CXType_Pointer || t.kind == CXType_BlockPointer ||
           t.kind == CXType_MemberPointer;
}

static int integer_type(CXType t)
{
    t = canon(t);
    return (t.kind >= CXType_Bool && t.kind <= CXType_Int128) || t.kind == CXType_Enum;
}

static int byte_type(CXType t)
{
    t = canon(t);
    return t.kind == CXType_Void || t.kind == CXType_Char_U || t.kind == CXType_UChar ||
           t.kind == CXType_Char_S || t.kind == CXType_SChar;
}

/* Whether a pointer to a may view what a pointer to b points at: the same type (qualifiers
 * aside), an untyped or byte view (void, char), or pointers to such (void** <-> T**, as
 * cudaMalloc takes). */
static int compatible_pointees(CXType a, CXType b)
{
    a = canon(a);
    b = canon(b);
    if (byte_type(a) || byte_type(b))
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

__attribute__((format(printf, 4, 5))) static void refuse(subset_ctx *x, CXCursor at,
                                                         const char *rule, const char *fmt, ...)
{
    int store = strcmp(rule, "host-store") == 0;
    if (x->refused || (store && x->store_what))
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
    if (store) {
        x->store_what = ch_strbuf_detach(&b);
        x->store_line = line;
        x->store_col = col;
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
static char *outer_namespace(CXCursor c, int *in_class)
{
    char *ns = ch_xstrdup("");
    *in_class = 0;
    for (CXCursor p = clang_getCursorSemanticParent(c);
         !clang_Cursor_isNull(p) && clang_getCursorKind(p) != CXCursor_TranslationUnit;
         p = clang_getCursorSemanticParent(p)) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_Namespace) {
            free(ns);
            ns = str_of(clang_getCursorSpelling(p));
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
    char *path = file ? str_of(clang_getFileName(file)) : ch_xstrdup("");
    size_t n = strlen(x->cuda_include);
    int yes = (n && strncmp(path, x->cuda_include, n) == 0 && path[n] == '/') ||
              strstr(path, "/__clang_cuda_") != NULL;
    free(path);
    return yes;
}

static int builtin_allowed(const subset_ctx *x, const char *name)
{
    if (has_prefix_in(pure_builtins, name))
        return 1;
    ch_object_kind ok = x->kind == CH_SUBSET_REFERENCE ? CH_OBJECT_REFERENCE : CH_OBJECT_CANDIDATE;
    return ch_object_name_allowed(ok, x->libs, name + strlen("__builtin_"));
}

/* Judges the function a direct call reaches. */
static void judge_callee(subset_ctx *x, CXCursor call, CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(def) && from_main_file(def))
        return; /* the file's own function or kernel: walked itself */
    char *name = str_of(clang_getCursorSpelling(fn));
    int in_class = 0;
    char *ns = outer_namespace(fn, &in_class);
    int ok;
    if (in_list(address_builtins, name)) {
        refuse(x, call, "builtin",
               "%s calls %s: return and frame addresses lead from any callback into libc's "
               "symbol table; no builtin that hands out or jumps to a code address is allowed",
               code_name(x), name);
        ok = 1;
    } else if (strncmp(name, "__builtin_", 10) == 0) {
        ok = builtin_allowed(x, name);
    } else if (x->kind == CH_SUBSET_REFERENCE) {
        ok = !in_class && !*ns && ch_object_name_allowed(CH_OBJECT_REFERENCE, 0, name);
    } else if (from_main_file(fn)) {
        /* declared here but defined nowhere in the file: a hand-written prototype of a
         * library function, judged by its name alone */
        ok = !in_class && !*ns &&
             (ch_object_name_allowed(CH_OBJECT_CANDIDATE, x->libs, name) ||
              strncmp(name, "ch_rt_", 6) == 0);
    } else {
        ok = (*ns && in_list(trusted_namespaces, ns)) || (in_class && !*ns) ||
             ch_object_name_allowed(CH_OBJECT_CANDIDATE, x->libs, name) ||
             strncmp(name, "ch_rt_", 6) == 0 || cuda_header_inline(x, fn);
    }
    if (!ok)
        refuse(x, call, "call",
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
static CXCursor peel(CXCursor c, int casts)
{
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(c);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && !(casts && is_cast(k)))
            return c;
        kids ks = children(c);
        CXCursor next = ks.n ? ks.v[ks.n - 1] : clang_getNullCursor();
        size_t n = ks.n;
        free(ks.v);
        if (n == 0 || (n > 1 && !casts))
            return c;
        c = next;
    }
}

static int same_decl(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

/* Whether the expression e names the function fn (the callee of a direct call). */
static int names_function(CXCursor e, CXCursor fn)
{
    CXCursor p = peel(e, 0);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return !clang_Cursor_isNull(r) && same_decl(r, fn);
}

/* Whether e is a kernel of this file named as a value (for a cuda* API that takes one). */
static int kernel_value(CXCursor e)
{
    CXCursor p = peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return !clang_Cursor_isNull(r) && is_function_decl(clang_getCursorKind(r)) &&
           has_attr(clang_getCursorDefinition(r), CXCursor_CUDAGlobalAttr);
}

static void walk(subset_ctx *x, CXCursor c);

static void walk_children(subset_ctx *x, CXCursor c)
{
    kids k = children(c);
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
        kids ks = children(c);
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
    CXCursor p = peel(k->v[0], 0);
    enum CXCursorKind pk = clang_getCursorKind(p);
    CXCursor r = clang_getCursorReferenced(p);
    if ((pk == CXCursor_DeclRefExpr || pk == CXCursor_MemberRefExpr) && !clang_Cursor_isNull(r) &&
        is_function_decl(clang_getCursorKind(r)))
        return r;
    return fn;
}

static void judge_call_storage(subset_ctx *x, CXCursor call, CXCursor fn, const kids *k);
static int out_address_argument(subset_ctx *x, CXCursor call, CXCursor fn, CXCursor arg);

static void walk_call(subset_ctx *x, CXCursor call)
{
    kids k = children(call);
    CXCursor fn = callee_of(call, &k);
    if (clang_Cursor_isNull(fn) || !is_function_decl(clang_getCursorKind(fn))) {
        /* a construction without a constructor to name (a trivial one) has no callee child */
        int trivial = k.n == 0 || clang_getCursorKind(k.v[0]) == CXCursor_TypeRef;
        if (!trivial || !clang_Cursor_isNull(fn))
            refuse(x, call, "indirect-call",
                   "%s makes an indirect call (its callee is not a named function): calls "
                   "through pointers, fields or computed expressions are not allowed",
                   code_name(x));
        for (size_t i = 0; i < k.n && !x->refused; i++)
            walk(x, k.v[i]);
        free(k.v);
        return;
    }
    if (function_like(clang_getCursorType(call)))
        refuse(x, call, "function-pointer",
               "%s calls a function that returns a function pointer: functions may only be "
               "called by name",
               code_name(x));
    if (clang_getCursorKind(fn) == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(fn))
        refuse(x, call, "virtual",
               "host code makes a virtual call: it goes through a table of function pointers");
    char *name = str_of(clang_getCursorSpelling(fn));
    /* a cuda* API that takes a kernel (occupancy, attributes, cudaLaunchKernel) may be given
     * one of the file's kernels; the host-callback APIs take host functions and never do */
    int takes_kernel = strncmp(name, "cuda", 4) == 0 &&
                       strncmp(name, "cudaLaunchHostFunc", 18) != 0 &&
                       strncmp(name, "cudaStreamAddCallback", 21) != 0;
    free(name);
    if (x->kind == CH_SUBSET_CANDIDATE)
        judge_call_storage(x, call, fn, &k);
    int callee_seen = 0;
    for (size_t i = 0; i < k.n && !x->refused; i++) {
        if (!callee_seen && names_function(k.v[i], fn)) {
            callee_seen = 1;
            walk_callee(x, k.v[i]);
        } else if (takes_kernel && kernel_value(k.v[i])) {
            continue;
        } else if (out_address_argument(x, call, fn, k.v[i])) {
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
        char *s = str_of(clang_getTokenSpelling(x->tu, t[i]));
        int close = strcmp(s, ">") == 0 || strcmp(s, ">>") == 0;
        free(s);
        if (close) {
            char *before = str_of(clang_getTokenSpelling(x->tu, t[i - 1]));
            ref = strcmp(before, "&") == 0 || strcmp(before, "&&") == 0;
            free(before);
            break;
        }
    }
    clang_disposeTokens(x->tu, t, n);
    return ref;
}

static int null_constant(CXCursor e)
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
    kids k = children(c);
    CXCursor operand = k.n ? k.v[k.n - 1] : clang_getNullCursor();
    size_t n = k.n;
    free(k.v);
    if ((is_implicit && n != 1) || clang_Cursor_isNull(operand) ||
        !clang_isExpression(clang_getCursorKind(operand)))
        return;
    CXType to = canon(clang_getCursorType(c)), from = canon(clang_getCursorType(operand));
    if (clang_getCursorKind(c) == CXCursor_CXXReinterpretCastExpr && to_reference(x, c)) {
        /* reinterpret_cast<long &>(p): the storage of p seen as another type (the cast's type
         * is the referred type, an lvalue) */
        if (compatible_pointees(to, from))
            return;
        refuse(x, c, "cast",
               "%s reinterprets an object as an unrelated type: pointers may not be forged",
               code_name(x));
        return;
    }
    if (!pointer_type(to) || function_like(to))
        return;
    if (integer_type(from) && !null_constant(operand))
        refuse(x, c, "cast",
               "%s turns an integer into a pointer%s: pointers may not be forged (only a null "
               "constant may become one)",
               code_name(x), is_implicit ? " (an implicit conversion)" : "");
    else if (pointer_type(from) && !function_like(from) &&
             !compatible_pointees(clang_getPointeeType(to), clang_getPointeeType(from))) {
        char *a = str_of(clang_getTypeSpelling(from)), *b = str_of(clang_getTypeSpelling(to));
        refuse(x, c, "cast",
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
    if (pointer_type(clang_getCursorType(field))) {
        *(int *)data = 1;
        return CXVisit_Break;
    }
    return CXVisit_Continue;
}

static void judge_declaration(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if ((k == CXCursor_VarDecl || k == CXCursor_FieldDecl || k == CXCursor_ParmDecl ||
         k == CXCursor_NonTypeTemplateParameter) &&
        function_like(clang_getCursorType(c))) {
        char *name = str_of(clang_getCursorSpelling(c));
        char *what = *name ? ch_xasprintf("'%s'", name) : ch_xstrdup("a parameter");
        refuse(x, c, "function-pointer",
               "%s declares %s of function-pointer type: no function may be held or passed as "
               "a value (no callbacks)",
               code_name(x), what);
        free(what);
        free(name);
    } else if (k == CXCursor_UnionDecl && clang_isCursorDefinition(c)) {
        int has = 0;
        clang_Type_visitFields(clang_getCursorType(c), pointer_field, &has);
        if (has)
            refuse(x, c, "union",
                   "%s declares a union holding a pointer: it turns integers into pointers",
                   code_name(x));
    } else if (k == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(c)) {
        refuse(x, c, "virtual",
               "host code declares a virtual function: virtual calls go through a table of "
               "function pointers");
    }
}

/* ---- the device launcher's pointers ---------------------------------------------------------- */

/* Whether e names a pointer parameter of the device launcher. */
static int launcher_pointer(const subset_ctx *x, CXCursor e)
{
    CXCursor p = peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return 0;
    CXCursor r = clang_getCursorReferenced(p);
    return clang_getCursorKind(r) == CXCursor_ParmDecl && pointer_type(clang_getCursorType(r)) &&
           same_decl(clang_getCursorSemanticParent(r), x->launcher);
}

static int first_token_is(const subset_ctx *x, CXCursor c, const char *spelling)
{
    CXToken *t = clang_getToken(x->tu, clang_getCursorLocation(c));
    if (!t)
        return 0;
    char *s = str_of(clang_getTokenSpelling(x->tu, *t));
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
    kids ks = children(c);
    if (deref && ks.n)
        base = ks.v[0];
    free(ks.v);
    if (k == CXCursor_MemberRefExpr) {
        ks = children(c);
        if (ks.n && pointer_type(clang_getCursorType(peel(ks.v[0], 0))))
            base = ks.v[0];
        free(ks.v);
    }
    if (!clang_Cursor_isNull(base) && launcher_pointer(x, base))
        refuse(x, c, "device-deref",
               "%s dereferences a device pointer on the host: its pointers are device memory, "
               "which only kernels and cudaMemcpy may touch",
               x->device_launcher);
}

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
    t = canon(t);
    return t.kind == CXType_LValueReference || t.kind == CXType_RValueReference;
}

static int array_type(CXType t)
{
    t = canon(t);
    return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray;
}

static CXCursor first_child(CXCursor c)
{
    kids k = children(c);
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
            char *s = str_of(clang_getTokenSpelling(x->tu, t[i]));
            if (clang_getTokenKind(t[i]) == CXToken_Punctuation && strcmp(s, "(") != 0)
                op = s;
            else
                free(s);
            if (n == 1)
                break;
        }
    } else {
        CXCursor lhs = first_child(c);
        unsigned end = 0;
        clang_getExpansionLocation(clang_getRangeEnd(file_extent(x, lhs)), NULL, NULL, NULL, &end);
        for (unsigned i = 0; i < n && !op; i++) {
            unsigned at = 0;
            clang_getExpansionLocation(clang_getTokenLocation(x->tu, t[i]), NULL, NULL, NULL, &at);
            if (at >= end && clang_getTokenKind(t[i]) == CXToken_Punctuation)
                op = str_of(clang_getTokenSpelling(x->tu, t[i]));
        }
    }
    clang_disposeTokens(x->tu, t, n);
    return op ? op : ch_xstrdup("");
}

static int operator_is(const subset_ctx *x, CXCursor c, const char *spelling)
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
        return first_child(c);
    char *op =
        (k == CXCursor_BinaryOperator || k == CXCursor_UnaryOperator) ? operator_of(x, c) : NULL;
    int store =
        op && (k == CXCursor_BinaryOperator ? strcmp(op, "=") == 0 || !*op
                                            : strcmp(op, "++") == 0 || strcmp(op, "--") == 0);
    free(op);
    return store ? first_child(c) : clang_getNullCursor();
}

/* Whether e is the candidate's own storage, or a part of it: a variable or parameter (one of
 * reference type counts: its object may be one), a field of one (through `.`, `this` or an
 * implicit `this`) and, with subscripts, an element of one of its arrays. *root: the variable
 * or parameter, when the path starts at one. */
static int own_storage(CXCursor e, int subscripts, CXCursor *root)
{
    *root = clang_getNullCursor();
    for (;;) {
        CXCursor p = peel(e, 0);
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
        CXCursor base = first_child(p);
        if (k == CXCursor_MemberRefExpr) {
            if (clang_Cursor_isNull(base))
                return clang_getCursorKind(clang_getCursorReferenced(p)) == CXCursor_FieldDecl;
            CXCursor b = peel(base, 0);
            if (pointer_type(clang_getCursorType(b)))
                return clang_getCursorKind(b) == CXCursor_CXXThisExpr;
            e = base;
            continue;
        }
        if (k == CXCursor_ArraySubscriptExpr && subscripts && !clang_Cursor_isNull(base) &&
            array_type(clang_getCursorType(peel(base, 0)))) {
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
        CXCursor p = peel(e, 0);
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_StringLiteral || (k == CXCursor_UnaryOperator && operator_is(x, p, "*")))
            return 1;
        CXCursor base = first_child(p);
        if ((k == CXCursor_MemberRefExpr || k == CXCursor_ArraySubscriptExpr) &&
            !clang_Cursor_isNull(base)) {
            CXCursor b = peel(base, 0);
            CXType t = clang_getCursorType(b);
            if (k == CXCursor_MemberRefExpr && pointer_type(t))
                return clang_getCursorKind(b) != CXCursor_CXXThisExpr;
            if (k == CXCursor_ArraySubscriptExpr && !array_type(t))
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
    return own_storage(e, 1, &root) && !clang_Cursor_isNull(root) && same_decl(root, var);
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
    if (k == CXCursor_UnaryOperator && operator_is(x, c, "&") && own_root_is(first_child(c), var))
        return 1;
    kids ks = children(c);
    int yes = 0;
    for (size_t i = 0; i < ks.n && !yes; i++) {
        CXCursor a = ks.v[i];
        while (clang_getCursorKind(a) == CXCursor_ParenExpr)
            a = first_child(a);
        if (k == CXCursor_CallExpr && clang_getCursorKind(a) == CXCursor_DeclRefExpr &&
            same_decl(clang_getCursorReferenced(a), var))
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
    kids k = children(loop);
    int ok = k.n == 4 && clang_getCursorKind(k.v[0]) == CXCursor_DeclStmt &&
             integer_type(clang_getCursorType(var));
    if (ok) { /* init: the declaration of var, from a constant >= 0 */
        kids d = children(k.v[0]);
        ok = 0;
        for (size_t i = 0; i < d.n; i++)
            if (same_decl(d.v[i], var)) {
                kids init = children(d.v[i]);
                long long v0 = -1;
                ok = init.n && constant_int(init.v[init.n - 1], &v0) && v0 >= 0;
                free(init.v);
            }
        free(d.v);
    }
    long long bound = 0;
    if (ok) { /* condition: v < C or v <= C */
        CXCursor cond = k.v[1];
        kids ops = children(cond);
        char *op = operator_of(x, cond);
        ok = clang_getCursorKind(cond) == CXCursor_BinaryOperator && ops.n == 2 &&
             clang_getCursorKind(peel(ops.v[0], 0)) == CXCursor_DeclRefExpr &&
             same_decl(clang_getCursorReferenced(peel(ops.v[0], 0)), var) &&
             constant_int(ops.v[1], &bound) &&
             ((strcmp(op, "<") == 0 && bound <= n) || (strcmp(op, "<=") == 0 && bound < n));
        free(op);
        free(ops.v);
    }
    if (ok) { /* increment: v++ or ++v */
        CXCursor inc = k.v[2];
        CXCursor operand = first_child(inc);
        ok = clang_getCursorKind(inc) == CXCursor_UnaryOperator && operator_is(x, inc, "++") &&
             clang_getCursorKind(peel(operand, 0)) == CXCursor_DeclRefExpr &&
             same_decl(clang_getCursorReferenced(peel(operand, 0)), var);
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
    CXCursor p = peel(idx, 0);
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
    CXCursor p = peel(e, 0);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_DeclRefExpr) {
        CXCursor r = clang_getCursorReferenced(p);
        enum CXCursorKind rk = clang_getCursorKind(r);
        return (rk == CXCursor_VarDecl || rk == CXCursor_ParmDecl) &&
               !reference_type(clang_getCursorType(r));
    }
    kids ks = children(p);
    CXCursor base = ks.n ? peel(ks.v[0], 0) : clang_getNullCursor();
    CXCursor idx = ks.n == 2 ? ks.v[1] : clang_getNullCursor();
    free(ks.v);
    if (clang_Cursor_isNull(base))
        return 0;
    if (k == CXCursor_MemberRefExpr)
        return !pointer_type(clang_getCursorType(base)) && store_in_bounds(x, base);
    if (k == CXCursor_ArraySubscriptExpr) {
        CXType t = canon(clang_getCursorType(base));
        return t.kind == CXType_ConstantArray && !clang_Cursor_isNull(idx) &&
               index_in_bounds(x, idx, clang_getArraySize(t)) && store_in_bounds(x, base);
    }
    if (k == CXCursor_UnaryOperator && operator_is(x, p, "*"))
        return clang_getCursorKind(base) == CXCursor_DeclRefExpr &&
               clang_getCursorKind(clang_getCursorReferenced(base)) == CXCursor_ParmDecl &&
               out_parameter(x, clang_getCursorReferenced(base));
    return 0;
}

/* Whether e is `&v` (v a variable, parameter or a `.` field of one: no subscript, no `this`),
 * under any casts; *v set to the operand. */
static int address_of_variable(const subset_ctx *x, CXCursor e, CXCursor *v)
{
    CXCursor p = peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_UnaryOperator || !operator_is(x, p, "&"))
        return 0;
    *v = first_child(p);
    CXCursor root;
    return own_storage(*v, 0, &root) && !clang_Cursor_isNull(root) &&
           !reference_type(clang_getCursorType(root));
}

/* The spelling of t's canonical type without its leading qualifiers. */
static char *unqualified_spelling(CXType t)
{
    char *s = str_of(clang_getTypeSpelling(canon(t)));
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
    CXType pt = canon(param);
    if (pt.kind != CXType_Pointer)
        return 0;
    CXType to = canon(clang_getPointeeType(pt)), of = canon(clang_getCursorType(v));
    if (array_type(of) || to.kind == CXType_Void || byte_type(to))
        return 0;
    if (to.kind == CXType_Pointer && of.kind == CXType_Pointer &&
        canon(clang_getPointeeType(to)).kind == CXType_Void)
        return 1;
    return same_type_spelling(to, of);
}

static int own_static_function(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return !clang_Cursor_isNull(def) && from_main_file(def) && !device_only(def) &&
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
    CXType pt = canon(clang_getCursorType(parm));
    CXCursor def = clang_getCursorDefinition(fn);
    int library = clang_Cursor_isNull(def) || !from_main_file(def);
    if (library && pt.kind == CXType_Pointer &&
        clang_isConstQualifiedType(clang_getPointeeType(pt)))
        return 1; /* a library only reads it: cuBLAS's &alpha */
    if (!holds_exactly(pt, v))
        return 0;
    char *name = str_of(clang_getCursorSpelling(fn));
    int listed = in_list(cuda_out_calls, name);
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
    if (clang_getCursorKind(u->c) == CXCursor_UnaryOperator && operator_is(s->x, u->c, "*"))
        return;
    if (clang_getCursorKind(u->c) == CXCursor_CallExpr) {
        /* the argument is the chain's cursor just under the call */
        const chain *arg = here;
        while (arg->up != u)
            arg = arg->up;
        CXCursor fn = clang_getCursorReferenced(u->c);
        int i = argument_index(u->c, arg->c);
        char *name = str_of(clang_getCursorSpelling(fn));
        int listed = in_list(cuda_out_calls, name);
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
    if (k == CXCursor_DeclRefExpr && same_decl(clang_getCursorReferenced(c), s->target))
        judge_parameter_use(s, &here);
    kids ks = children(c);
    for (size_t i = 0; i < ks.n && !s->bad; i++)
        scan_uses(s, ks.v[i], &here);
    free(ks.v);
}

/* Every call of the function: argument `index` is &v of the parameter's pointee type. */
static void scan_calls(use_scan *s, CXCursor c, CXCursor parm)
{
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr && same_decl(clang_getCursorReferenced(c), s->target)) {
        CXCursor v;
        if ((int)s->index >= clang_Cursor_getNumArguments(c) ||
            !address_of_variable(s->x, clang_Cursor_getArgument(c, s->index), &v) ||
            !holds_exactly(clang_getCursorType(parm), v))
            s->bad = 1;
    }
    kids ks = children(c);
    for (size_t i = 0; i < ks.n && !s->bad; i++)
        scan_calls(s, ks.v[i], parm);
    free(ks.v);
}

static enum CXChildVisitResult scan_file_calls(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    use_scan *s = data;
    if (from_main_file(c))
        scan_calls(s, c, clang_Cursor_getArgument(clang_getCursorDefinition(s->target), s->index));
    return s->bad ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Whether parm is an out-parameter: a T* (T neither void, a byte nor an array) of a static host
 * function of the file, which only dereferences it or hands it to a listed CUDA call, and
 * which every call gives &v of a T. */
static int out_parameter(subset_ctx *x, CXCursor parm)
{
    CXCursor fn = clang_getCursorSemanticParent(parm);
    CXType t = canon(clang_getCursorType(parm));
    if (clang_getCursorKind(parm) != CXCursor_ParmDecl || !own_static_function(fn) ||
        t.kind != CXType_Pointer)
        return 0;
    CXType to = canon(clang_getPointeeType(t));
    if (to.kind == CXType_Void || byte_type(to) || array_type(to) || function_like(to))
        return 0;
    CXCursor def = clang_getCursorDefinition(fn);
    int n = clang_Cursor_getNumArguments(def), index = -1;
    for (int i = 0; i < n; i++)
        if (same_decl(clang_Cursor_getArgument(def, (unsigned)i), parm))
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
                                     : str_of(clang_getCursorSpelling(root));
}

static int lock_class(CXType t)
{
    char *s = unqualified_spelling(t);
    int yes = has_prefix_in(lock_classes, s);
    free(s);
    return yes;
}

/* The candidate's own storage handed to a call other than as a value: an argument bound to a
 * reference, or the object a method is called on. A copy (copy or move constructor) reads it,
 * and a lock takes its mutex; anything else could keep or hand out its address. */
static void judge_call_storage(subset_ctx *x, CXCursor call, CXCursor fn, const kids *k)
{
    int method = clang_getCursorKind(fn) == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(fn);
    int copy =
        clang_getCursorKind(fn) == CXCursor_Constructor &&
        (clang_CXXConstructor_isCopyConstructor(fn) || clang_CXXConstructor_isMoveConstructor(fn));
    CXCursor root, object = clang_getNullCursor();
    unsigned first_arg = 0;
    if (method) {
        CXCursor callee = k->n ? peel(k->v[0], 0) : clang_getNullCursor();
        if (clang_getCursorKind(callee) == CXCursor_MemberRefExpr) {
            object = first_child(callee);
            if (clang_Cursor_isNull(object))
                object = callee; /* an implicit this->method() */
        } else if (clang_Cursor_getNumArguments(call) > 0) {
            object = clang_Cursor_getArgument(call, 0); /* an operator's left operand */
            first_arg = 1;
        }
    }
    if (!clang_Cursor_isNull(object) && !foreign(x, object, &root) &&
        !(lock_class(clang_getCursorType(peel(object, 0))) &&
          !array_type(clang_getCursorType(peel(object, 0))))) {
        char *what = root_name(root), *name = str_of(clang_getCursorSpelling(fn));
        refuse(x, call, "host-store",
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
            a = first_child(a);
        enum CXCursorKind ak = clang_getCursorKind(a);
        if (ak != CXCursor_DeclRefExpr && ak != CXCursor_MemberRefExpr &&
            ak != CXCursor_ArraySubscriptExpr)
            continue; /* a value (converted), a temporary or foreign memory */
        if (!own_storage(a, 1, &root))
            continue;
        CXType t = clang_getCursorType(a);
        if ((copy || lock_class(t)) && !array_type(t))
            continue;
        char *what = root_name(root), *name = str_of(clang_getCursorSpelling(fn));
        refuse(x, call, "host-store",
               "host code binds its own storage ('%s') to a reference parameter of '%s': a "
               "reference is an address, and its variables' addresses may not leave host code",
               what, name);
        free(name);
        free(what);
    }
}

/* Whether a call's argument is `&v` given to an out-parameter (then it is not judged as an
 * address taken). */
static int out_address_argument(subset_ctx *x, CXCursor call, CXCursor fn, CXCursor arg)
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
    for (t = canon(t); array_type(t); t = canon(clang_getArrayElementType(t)))
        if (t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray)
            return 1;
    return 0;
}

/* A store's target (judged after its operands, whose own rules say more: a cast, a device
 * pointer dereferenced). */
static void judge_store(subset_ctx *x, CXCursor c)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused)
        return;
    CXCursor target = store_target(x, c);
    if (!clang_Cursor_isNull(target) && !store_in_bounds(x, target))
        refuse(x, c, "host-store",
               "host code writes through a pointer, a reference, a call's result or an index "
               "it cannot bound: a host store goes to a variable, a field of one, an element "
               "of its array at a constant index or at a for loop's counter bounded by the "
               "array's length, or through an out-parameter (*p where every call gives &v)");
}

static const char *const stack_allocators[] = {"alloca", "__builtin_alloca",
                                               "__builtin_alloca_with_align", NULL};

static void judge_host_store(subset_ctx *x, CXCursor c, enum CXCursorKind k)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused)
        return;
    CXCursor root;
    if ((k == CXCursor_VarDecl || k == CXCursor_ParmDecl || k == CXCursor_FieldDecl ||
         k == CXCursor_TypedefDecl) &&
        variable_length(k == CXCursor_TypedefDecl ? clang_getTypedefDeclUnderlyingType(c)
                                                  : clang_getCursorType(c))) {
        refuse(x, c, "host-store",
               "host code declares a variable-length array: its length is not known to fit "
               "the stack, and a large one reaches past it");
        return;
    }
    if (k == CXCursor_CallExpr) {
        char *name = str_of(clang_getCursorSpelling(c));
        if (in_list(stack_allocators, name))
            refuse(x, c, "host-store",
                   "host code calls %s: memory on the stack of a run-time size reaches past it",
                   name);
        free(name);
        return;
    }
    if (k == CXCursor_UnaryOperator && operator_is(x, c, "&") &&
        !foreign(x, first_child(c), &root)) {
        char *what = root_name(root);
        refuse(x, c, "host-store",
               "host code takes the address of its own storage ('%s'): a pointer into its "
               "stack or statics can write past them (only &v given straight to a CUDA "
               "out-parameter such as cudaMalloc(&p), or to the file's own out-parameter, is "
               "allowed)",
               what);
        free(what);
        return;
    }
    if (k == CXCursor_UnexposedExpr && pointer_type(clang_getCursorType(c))) {
        kids ks = children(c);
        if (ks.n == 1 && array_type(clang_getCursorType(ks.v[0])) && !foreign(x, ks.v[0], &root)) {
            char *what = root_name(root);
            refuse(x, c, "host-store",
                   "host code lets its array '%s' become a pointer (passed, assigned or "
                   "offset): a pointer into its stack or statics can write past them; index "
                   "the array instead",
                   what);
            free(what);
        }
        free(ks.v);
    }
}

/* ---- the walk -------------------------------------------------------------------------------- */

static void walk_function(subset_ctx *x, CXCursor c)
{
    if (device_only(c))
        return;
    char *name = str_of(clang_getCursorSpelling(c));
    int launcher =
        x->device_launcher && clang_isCursorDefinition(c) && strcmp(name, x->device_launcher) == 0;
    free(name);
    CXCursor outer = x->launcher;
    if (launcher)
        x->launcher = c;
    judge_declaration(x, c, clang_getCursorKind(c));
    walk_children(x, c);
    x->launcher = outer;
}

/* An array subscript: its array decays to a pointer only to be indexed, which the store rule
 * judges; the decay itself is no address handed out. */
static void walk_subscript(subset_ctx *x, CXCursor c)
{
    kids k = children(c);
    for (size_t i = 0; i < k.n && !x->refused; i++) {
        CXCursor base = k.v[i];
        kids inner = children(base);
        if (i == 0 && clang_getCursorKind(base) == CXCursor_UnexposedExpr && inner.n == 1 &&
            array_type(clang_getCursorType(inner.v[0])))
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
        refuse(x, c, "lambda",
               "host code has a lambda: a lambda is a callback (a function made a value)");
        return;
    case CXCursor_GCCAsmStmt:
    case CXCursor_MSAsmStmt:
    case CXCursor_AsmLabelAttr:
        refuse(x, c, "asm", "%s has inline assembly or an asm label", code_name(x));
        return;
    case CXCursor_AddrLabelExpr:
    case CXCursor_IndirectGotoStmt:
        refuse(x, c, "goto", "%s has a computed goto (a label's address)", code_name(x));
        return;
    case CXCursor_BuiltinBitCastExpr:
        if (pointer_type(clang_getCursorType(c)))
            refuse(x, c, "cast", "%s bit-casts to a pointer: pointers may not be forged",
                   code_name(x));
        break;
    case CXCursor_CallExpr:
        judge_host_store(x, c, k);
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
            refuse(x, c, "asm", "%s has inline assembly or an asm label", code_name(x));
            return;
        }
        break;
    default:
        break;
    }
    judge_declaration(x, c, k);
    if (is_cast(k) || (k == CXCursor_UnexposedExpr && x->kind == CH_SUBSET_REFERENCE))
        judge_conversion(x, c, !is_cast(k));
    if (clang_isExpression(k) && function_like(clang_getCursorType(c)))
        refuse(x, c, "function-pointer",
               "%s uses a function as a value (its address taken, or passed as a callback): "
               "functions may only be called by name",
               code_name(x));
    judge_dereference(x, c, k);
    judge_host_store(x, c, k);
    if (k == CXCursor_ArraySubscriptExpr && x->kind == CH_SUBSET_CANDIDATE)
        walk_subscript(x, c);
    else
        walk_children(x, c);
    if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator ||
        k == CXCursor_UnaryOperator)
        judge_store(x, c);
}

static enum CXChildVisitResult top_level(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    subset_ctx *x = data;
    if (from_main_file(c))
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
    if (!from_main_file(c))
        return CXChildVisit_Continue;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec)
        return CXChildVisit_Recurse;
    if (!is_function_decl(k) || !device_only(c))
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
                char *text = str_of(clang_getDiagnosticSpelling(d));
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

int ch_host_subset_check(const char *src, ch_subset_kind kind, const char *entry, const char *file,
                         ch_strbuf *msg, ch_subset_finding *f)
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
    struct CXUnsavedFile unsaved = {path, src, (unsigned long)strlen(src)};
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode rc =
        clang_parseTranslationUnit2(idx, path, (const char *const *)args.items, (int)args.len,
                                    &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
    subset_ctx x = {0};
    x.tu = tu;
    x.kind = kind;
    x.libs = ch_object_libraries_declared(src);
    x.device_launcher = entry ? ch_xasprintf("%s_device_launcher", entry) : NULL;
    x.launcher = clang_getNullCursor();
    x.cuda_include = cuda_inc;
    if (rc != CXError_Success || !tu) {
        x.refused = 1;
        x.rule = "parse";
        x.what = ch_xasprintf("%s could not be parsed for the host subset check (libclang "
                              "error %d)",
                              code_name(&x), (int)rc);
    } else if (!parse_errors(&x)) {
        clang_visitChildren(clang_getTranslationUnitCursor(tu), top_level, &x);
    }
    if (!x.refused && x.store_what) {
        x.refused = 1;
        x.rule = "host-store";
        x.line = x.store_line;
        x.col = x.store_col;
        x.what = x.store_what;
        x.store_what = NULL;
    }
    free(x.store_what);
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
    if (tmpdir) {
        ch_error e2;
        ch_remove_tree(tmpdir, &e2);
        free(tmpdir);
    }
    ch_strvec_free(&args);
    return x.refused;
}
