/* The host subset's static-state rule: what a candidate (or a model-written reference, which may
 * keep nothing mutable at all) keeps from one call to the next. Called from the walk in
 * host_subset.c for every variable declaration, whose state and helpers it shares through
 * host_subset_internal.h.
 *
 * State kept across calls lets a candidate behave one way while it is verified and another way
 * later: a counter that returns zeros after call 64 (attacks4/cand_call_counter_trojan.cu), a
 * __device__ counter bumped by atomicAdd that breaks the kernel after N launches
 * (attacks4/cand_device_counter_trojan.cu). Testing cannot see either, so the rule is static:
 * every variable of static storage duration (file or namespace scope, function-static, a static
 * member, thread_local) that the candidate can change is refused, except what the survey of
 * legitimate candidates needs (the builtin agent's and the translator's generated launchers, the
 * cuBLAS template, tests/gpu/llm/saxpy_right.cu, and the prompt, which allows "device buffers and
 * pinned staging memory across calls (in static variables)"):
 *  - constants: const or constexpr objects, __constant__ tables; __shared__ arrays (one block's
 *    scratch for one launch, nothing survives it);
 *  - resources: pointers (device buffers, pinned memory) and the CUDA and cuBLAS handles, which
 *    are pointers (streams, events, cublasHandle_t), alone, in arrays or in structs of nothing
 *    else (the staging ring); a pointer never becomes a number in host code (the pointer-value
 *    rule), so what code can learn from one is whether it is null: whether a cache is filled;
 *  - locks (std::mutex, std::once_flag): their interface hands out no value;
 *  - remembered values: a number (or an array of numbers) that code only compares and only sets
 *    to a value that reads no static storage and no pointer: the size of a kept buffer
 *    (`if (bytes > have) { ...; have = bytes; }`, or through a grow helper's out-parameter
 *    `size_t *have`). It can remember what a call was given; it cannot compute on its own past
 *    (no ++, --, op=, no `c = c + 1`, no value of it read into arithmetic, a call or a return).
 * Never allowed: a mutable __device__ or __managed__ global (no legitimate candidate has one; a
 * kernel's scratch lives in memory the launcher allocates).
 * A kept pointer also holds only a buffer's start: host_provenance.c refuses storing one moved by
 * arithmetic there (a cursor moved a step a call counts the calls).
 * Implicit flows are host_flow.c's: code that compares a remembered value or tests a kept
 * pointer against null branches, and a branch can set the value to another call-free constant
 * (`if (c == i) c = i + 1` in a loop counts the calls); that rule lets such branches decide only
 * resources and failure in the code a user's program runs. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "host_subset_internal.h"

/* Standard classes whose static objects are locks: their methods hand out no value a later call
 * could branch on (in one thread a lock always succeeds). */
static const char *const lock_types[] = {"std::mutex", "std::recursive_mutex", "std::once_flag",
                                         "std::__1::mutex", NULL};

/* Whether the declaration of v spells __managed__ (libclang shows no attribute cursor for it,
 * and the __device__ it implies is implicit). */
static int managed(const subset_ctx *x, CXCursor v)
{
    CXToken *t = NULL;
    unsigned n = 0;
    /* from the start of its line: the extent of the declaration begins after the attribute */
    CXFile file;
    unsigned line = 0;
    CXSourceRange r = clang_getCursorExtent(v);
    clang_getExpansionLocation(clang_getRangeStart(r), &file, &line, NULL, NULL);
    clang_tokenize(x->tu,
                   clang_getRange(clang_getLocation(x->tu, file, line, 1), clang_getRangeEnd(r)),
                   &t, &n);
    int yes = 0;
    for (unsigned i = 0; i < n && !yes; i++) {
        char *s = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
        yes = strcmp(s, "__managed__") == 0 || strcmp(s, "managed") == 0;
        free(s);
    }
    if (n)
        clang_disposeTokens(x->tu, t, n);
    return yes;
}

/* Whether v has static (or thread) storage duration: at file or namespace scope, `static` in a
 * function, a static member. Only definitions: a declaration of storage defined elsewhere is the
 * object check's (an undefined symbol). */
static int static_storage(CXCursor v)
{
    if (clang_Cursor_getStorageClass(v) == CX_SC_Extern && !clang_isCursorDefinition(v))
        return 0;
    if (clang_Cursor_getStorageClass(v) == CX_SC_Static || clang_getCursorTLSKind(v) != CXTLS_None)
        return 1;
    enum CXCursorKind p = clang_getCursorKind(clang_getCursorSemanticParent(v));
    return p == CXCursor_TranslationUnit || p == CXCursor_Namespace || p == CXCursor_LinkageSpec ||
           p == CXCursor_ClassDecl || p == CXCursor_StructDecl || p == CXCursor_ClassTemplate ||
           p == CXCursor_UnionDecl;
}

/* The element type of t through any array dimensions. */
static CXType element_of(CXType t)
{
    t = hs_canon(t);
    while (hs_array_type(t))
        t = hs_canon(clang_getArrayElementType(t));
    return t;
}

static int arithmetic_type(CXType t)
{
    t = hs_canon(t);
    return hs_integer_type(t) || t.kind == CXType_Float || t.kind == CXType_Double ||
           t.kind == CXType_LongDouble || t.kind == CXType_Half || t.kind == CXType_Float16 ||
           t.kind == CXType_Float128;
}

static int lock_type(CXType t)
{
    char *s = hs_str_of(clang_getTypeSpelling(hs_canon(t)));
    int yes = hs_in_list(lock_types, s);
    free(s);
    return yes;
}

static int resource_type(CXType t);

static enum CXVisitorResult resource_field(CXCursor field, CXClientData data)
{
    if (!resource_type(clang_getCursorType(field))) {
        *(int *)data = 0;
        return CXVisit_Break;
    }
    return CXVisit_Continue;
}

/* A pointer to data (a buffer or a handle), or an array or a plain struct of nothing else. */
static int resource_type(CXType t)
{
    t = element_of(t);
    if (hs_pointer_type(t))
        return !hs_function_like(t) && t.kind == CXType_Pointer;
    if (t.kind != CXType_Record)
        return 0;
    int all = 1;
    if (clang_Type_visitFields(t, resource_field, &all) == CXVisit_Break)
        return 0;
    return all;
}

/* A const object, or an array of const elements (libclang puts an array's const on the
 * canonical array type, not on its elements). */
static int const_type(CXType t)
{
    return clang_isConstQualifiedType(t) || clang_isConstQualifiedType(hs_canon(t)) ||
           clang_isConstQualifiedType(element_of(t));
}

/* ---- uses of a remembered value ------------------------------------------------------------- */

/* The walk over a function body (or the whole file) that judges every use of one variable (or,
 * for an out-parameter, every use of *param): the chain of cursors from the root to the cursor
 * visited, to read a use's context. */
typedef struct use_walk {
    subset_ctx *x;
    CXCursor var;   /* the remembered variable, or the out-parameter */
    int through;    /* 1: var is a T* out-parameter; its uses are *var */
    CXCursor *path; /* ancestors, root first */
    size_t depth, cap;
    CXCursor bad; /* the first use outside the allowed contexts, or null */
    const char *why;
} use_walk;

static int is_comparison(const subset_ctx *x, CXCursor c)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!=", NULL};
    if (clang_getCursorKind(c) != CXCursor_BinaryOperator)
        return 0;
    for (size_t i = 0; ops[i]; i++)
        if (hs_operator_is(x, c, ops[i]))
            return 1;
    return 0;
}

static int is_transparent(enum CXCursorKind k)
{
    return k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr;
}

typedef struct reads_state {
    const subset_ctx *x;
    int found;
} reads_state;

/* Whether e reads static storage that code can change, or memory through a pointer (a value an
 * out-parameter may hold). */
static enum CXChildVisitResult find_state_read(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    reads_state *r = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
        CXCursor d = clang_getCursorReferenced(c);
        if (clang_getCursorKind(d) == CXCursor_VarDecl && static_storage(d) &&
            !const_type(clang_getCursorType(d)))
            r->found = 1;
    } else if (k == CXCursor_CallExpr) {
        r->found = 1; /* a call's result may be anything it read */
    } else if (k == CXCursor_UnaryOperator && hs_operator_is(r->x, c, "*")) {
        r->found = 1;
    } else if (k == CXCursor_ArraySubscriptExpr &&
               hs_pointer_type(clang_getCursorType(hs_peel(hs_first_child(c), 0)))) {
        r->found = 1;
    }
    return r->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int reads_state_or_memory(const subset_ctx *x, CXCursor e)
{
    reads_state r = {x, 0};
    find_state_read(e, clang_getNullCursor(), &r);
    if (!r.found)
        clang_visitChildren(e, find_state_read, &r);
    return r.found;
}

/* The index on the path of the nearest ancestor of path[i] that is not an implicit conversion
 * or parentheses; -1 past the root. Its child on the path is path[index + 1]. */
static long parent_index(const use_walk *w, long i)
{
    long p = i - 1;
    while (p >= 0 && is_transparent(clang_getCursorKind(w->path[p])))
        p--;
    return p;
}

static int operator_cursor(const use_walk *w, long i, enum CXCursorKind kind, const char *op)
{
    return i >= 0 && clang_getCursorKind(w->path[i]) == kind &&
           hs_operator_is(w->x, w->path[i], op);
}

/* Whether the call passes the variable's address straight to a function of the file whose
 * matching parameter keeps to the same contexts (a grow helper's `size_t *have`). */
static int judge_out_parameter(use_walk *w, CXCursor call, CXCursor arg);

static void bad_use(use_walk *w, CXCursor at, const char *why)
{
    w->bad = at;
    w->why = why;
}

/* Judges the use of the variable at the top of the path. */
static void judge_use(use_walk *w)
{
    long i = (long)w->depth - 1, p = parent_index(w, i);
    if (w->through) { /* the out-parameter itself: only dereferenced, *have */
        if (!operator_cursor(w, p, CXCursor_UnaryOperator, "*")) {
            bad_use(w, w->path[i],
                    "the out-parameter that holds it is used other than dereferenced");
            return;
        }
        i = p;
        p = parent_index(w, i);
    }
    /* an element of a remembered array: the array is the subscript's base */
    if (p >= 0 && clang_getCursorKind(w->path[p]) == CXCursor_ArraySubscriptExpr &&
        clang_equalCursors(hs_first_child(w->path[p]), w->path[p + 1])) {
        i = p;
        p = parent_index(w, i);
    }
    if (p < 0) {
        bad_use(w, w->path[i], "its value is used");
        return;
    }
    CXCursor ctx = w->path[p];
    if (is_comparison(w->x, ctx))
        return;
    if (operator_cursor(w, p, CXCursor_BinaryOperator, "=") &&
        clang_equalCursors(hs_first_child(ctx), w->path[p + 1])) {
        kids k = hs_children(ctx);
        int bad = k.n != 2 || reads_state_or_memory(w->x, k.v[1]);
        free(k.v);
        if (bad)
            bad_use(w, ctx, "it is set to a value read from static storage, a pointer or a call");
        return;
    }
    if (!w->through && operator_cursor(w, p, CXCursor_UnaryOperator, "&")) {
        long c = parent_index(w, p);
        if (c >= 0 && clang_getCursorKind(w->path[c]) == CXCursor_CallExpr &&
            judge_out_parameter(w, w->path[c], w->path[c + 1]))
            return;
        if (clang_Cursor_isNull(w->bad))
            bad_use(w, ctx,
                    "its address is given to something other than an out-parameter of the "
                    "file's own functions that keeps to these uses");
        return;
    }
    bad_use(w, w->path[i],
            "its value is used in arithmetic, a call, a condition or a return, or it is changed "
            "by ++, -- or a compound assignment");
}

static enum CXChildVisitResult visit_use(CXCursor c, CXCursor parent, CXClientData data);

static void walk_uses(use_walk *w, CXCursor root)
{
    if (w->depth == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 32;
        w->path = ch_xrealloc(w->path, w->cap * sizeof *w->path);
    }
    w->path[w->depth++] = root;
    enum CXCursorKind k = clang_getCursorKind(root);
    if (k == CXCursor_DeclRefExpr && hs_from_main_file(root) &&
        hs_same_decl(clang_getCursorReferenced(root), w->var))
        judge_use(w);
    else
        clang_visitChildren(root, visit_use, w);
    w->depth--;
}

static enum CXChildVisitResult visit_use(CXCursor c, CXCursor parent, CXClientData data)
{
    use_walk *w = data;
    /* of the file's top level, only what the candidate wrote: the headers cannot name it */
    if (clang_getCursorKind(parent) == CXCursor_TranslationUnit && !hs_from_main_file(c))
        return CXChildVisit_Continue;
    if (clang_Cursor_isNull(w->bad))
        walk_uses(w, c);
    return clang_Cursor_isNull(w->bad) ? CXChildVisit_Continue : CXChildVisit_Break;
}

static int judge_out_parameter(use_walk *w, CXCursor call, CXCursor arg)
{
    CXCursor fn = clang_getCursorDefinition(clang_getCursorReferenced(call));
    if (clang_Cursor_isNull(fn) || !hs_from_main_file(fn))
        return 0;
    int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n; i++) {
        if (!clang_equalCursors(clang_Cursor_getArgument(call, (unsigned)i), arg))
            continue;
        if (i >= clang_Cursor_getNumArguments(fn))
            return 0;
        use_walk inner = {
            w->x, clang_Cursor_getArgument(fn, (unsigned)i), 1, NULL, 0, 0, clang_getNullCursor(),
            NULL};
        walk_uses(&inner, fn);
        free(inner.path);
        if (!clang_Cursor_isNull(inner.bad)) {
            w->bad = inner.bad;
            w->why = inner.why;
            return 0;
        }
        return 1;
    }
    return 0;
}

/* ---- the rule ---------------------------------------------------------------------------------
 */

static void refuse_state(subset_ctx *x, CXCursor at, const char *name, const char *why)
{
    hs_refuse(x, at, "static-state",
              "host code keeps '%s' across calls and %s: state kept from one call to the next "
              "lets a candidate behave one way while verified and another later (static "
              "storage may hold constants, device buffers, pinned memory, CUDA and cuBLAS "
              "handles, locks, and sizes it only compares and sets from the call's values)",
              name, why);
}

/* A model-written reference is linked as the user's host path and computes each call from its
 * arguments alone: it keeps nothing across calls, so any static storage it can change (a counter,
 * a remembered pointer, a scratch array) is refused; constants stay. */
static void judge_reference_static(subset_ctx *x, CXCursor v)
{
    if (const_type(clang_getCursorType(v)))
        return;
    char *name = hs_str_of(clang_getCursorSpelling(v));
    hs_refuse(x, v, "static-state",
              "the reference keeps '%s' across calls: a reference computes each call from its "
              "arguments alone, so its static storage holds constants only (state kept from one "
              "call to the next lets the host path behave one way while tested and another "
              "later)",
              name);
    free(name);
}

/* Storage no call can change: a constant, a __constant__ table, a block's __shared__ scratch
 * (nothing of it survives a launch). */
static int unchanging(CXCursor v)
{
    return hs_has_child_kind(v, CXCursor_CUDAConstantAttr) ||
           hs_has_child_kind(v, CXCursor_CUDASharedAttr) || const_type(clang_getCursorType(v));
}

int hs_kept_kind(CXCursor v)
{
    if (clang_getCursorKind(v) != CXCursor_VarDecl || !hs_from_main_file(v) || !static_storage(v))
        return HS_KEPT_NONE;
    CXType t = clang_getCursorType(v);
    if (unchanging(v) || lock_type(element_of(t)))
        return HS_KEPT_NONE;
    return resource_type(t) ? HS_KEPT_BUFFER : HS_KEPT_NUMBER;
}

void hs_judge_static_state(subset_ctx *x, CXCursor v, int in_device)
{
    if (clang_getCursorKind(v) != CXCursor_VarDecl || !hs_from_main_file(v) || !static_storage(v))
        return;
    if (x->kind == CH_SUBSET_REFERENCE) {
        judge_reference_static(x, v);
        return;
    }
    if (x->kind != CH_SUBSET_CANDIDATE)
        return;
    if (unchanging(v))
        return;
    CXType t = clang_getCursorType(v);
    char *name = hs_str_of(clang_getCursorSpelling(v));
    if (in_device || hs_has_child_kind(v, CXCursor_CUDADeviceAttr) || managed(x, v)) {
        hs_refuse(x, v, "static-state",
                  "the candidate declares the device variable '%s' of static storage, which "
                  "kernels can change: "
                  "state kept from one launch to the next lets a kernel behave one way while "
                  "verified and another later (use __constant__ for tables, __shared__ for a "
                  "block's scratch, device memory the launcher allocates for the rest)",
                  name);
    } else if (lock_type(element_of(t)) || resource_type(t)) {
        /* a lock, or a cache of buffers and handles */
    } else if (!arithmetic_type(element_of(t))) {
        refuse_state(x, v, name, "is neither a buffer, a handle, a lock nor a number");
    } else {
        use_walk w = {x, v, 0, NULL, 0, 0, clang_getNullCursor(), NULL};
        walk_uses(&w, clang_getTranslationUnitCursor(x->tu));
        free(w.path);
        if (!clang_Cursor_isNull(w.bad))
            hs_refuse(x, w.bad, "static-state",
                      "host code keeps the number '%s' across calls, and %s: a number kept "
                      "from one call to the next may only be compared and set from the call's "
                      "own values (a kept buffer's size); one that counts or computes lets a "
                      "candidate behave one way while verified and another later",
                      name, w.why);
    }
    free(name);
}
