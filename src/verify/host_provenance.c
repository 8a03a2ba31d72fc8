/* The host subset's provenance rule (candidates only): host code does pointer arithmetic,
 * subscripts, dereferences, writes and copies (memcpy, cudaMemcpy*, memset and their kin, at
 * their destination and source) only through pointers that come from a parameter, an
 * allocation (malloc, calloc, new; the out-parameter of cudaMalloc*, cudaMallocHost,
 * cudaHostAlloc or of the file's own function), the address of a named object, or another
 * such pointer. The pointer-value rule keeps numbers from becoming pointers by a cast; without
 * this rule a variable that holds null is one anyway: `char *q = nullptr; q += target;` is the
 * address target.
 *
 * Each host function is followed in the order it runs, through assignments, conditionals,
 * loops (to a fixed point) and switches. A pointer variable holds an origin (none: only the
 * null pointer; a device allocation or the device launcher's parameter; another known origin;
 * unknown: uninitialised, loaded from memory, a library's result) and whether it may be null;
 * null tests (`if (p)`, `if (!p) return;`, `p != nullptr && ...`) clear the latter. A static
 * or global pointer may hold null or what any call stored: stores of a pointer of unknown
 * origin into one, or into memory, are refused. As the contract of the allocation APIs goes,
 * an out-parameter that an allocation wrote counts as allocated (cudaMalloc(&d, n); d + 1 is
 * accepted), and so does one the file's own function wrote.
 *
 * In NAME_device_launcher the kernels' pointer arguments must be device memory: its own
 * parameters (the runtime's device copies) or what it cudaMalloc'd, so no kernel learns a host
 * address there.
 *
 * A value also carries whether it may be moved: the result of pointer arithmetic, ++/--, &p[i],
 * a helper's parameter (its caller may hand it a moved one) or a helper's result unless the
 * helper returns only kept pointers or null. A static, or memory that is not a local's, may hold
 * only an unmoved pointer, the start of a buffer: a cursor kept and moved a step each call
 * counts the calls (attacks4/cand_pointer_counter_trojan.cu). The launcher and device launcher's
 * parameters come from the caller and count as unmoved. */
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "host_subset_internal.h"

/* Where a pointer may come from; the larger of two is their join. */
typedef enum { FROM_NONE, FROM_DEVICE, FROM_KNOWN, FROM_UNKNOWN } origin;

typedef struct pval {
    origin from;
    int nullable;
    int moved; /* may point past the start of what it came from (arithmetic, &p[i]) */
} pval;

typedef struct slot {
    CXCursor decl;
    pval v;
} slot;

/* The pointer variables' values at a point of a function; live: the point can be reached. */
typedef struct pstate {
    slot *s;
    size_t n, cap;
    int live;
} pstate;

typedef struct flow {
    subset_ctx *x;
    int device;         /* walking NAME_device_launcher */
    int entry;          /* walking NAME_launcher or NAME_device_launcher: what is called */
    pstate *brk, *cont; /* states at break / continue of the innermost loop or switch */
    pstate *sw_entry;   /* the state entering the innermost switch (its case labels) */
    int loop_depth;     /* bounds the fixed points of nested loops */
} flow;

static const char provenance_why[] =
    "pointers come from a parameter, an allocation, the address of a named object or another "
    "such pointer, and a pointer that may be null is tested first (arithmetic on null forges "
    "any address)";

static pval pv(origin o, int nullable)
{
    pval v = {o, nullable, 0};
    return v;
}

static pval moved(pval v)
{
    v.moved = 1;
    return v;
}

static pval join(pval a, pval b)
{
    pval v = pv(a.from > b.from ? a.from : b.from, a.nullable || b.nullable);
    v.moved = a.moved || b.moved;
    return v;
}

/* ---- states ---------------------------------------------------------------------------------- */

static pstate st_new(void)
{
    pstate s = {NULL, 0, 0, 1};
    return s;
}

static pstate st_copy(const pstate *a)
{
    pstate s = {NULL, a->n, a->n, a->live};
    if (a->n) {
        s.s = ch_xcalloc(a->n, sizeof *s.s);
        memcpy(s.s, a->s, a->n * sizeof *s.s);
    }
    return s;
}

static void st_free(pstate *s)
{
    free(s->s);
    s->s = NULL;
    s->n = s->cap = 0;
}

static void st_move(pstate *dst, pstate *src)
{
    st_free(dst);
    *dst = *src;
    *src = st_new();
}

static slot *st_find(const pstate *s, CXCursor decl)
{
    for (size_t i = 0; i < s->n; i++)
        if (hs_same_decl(s->s[i].decl, decl))
            return &s->s[i];
    return NULL;
}

static void st_set(pstate *s, CXCursor decl, pval v)
{
    slot *at = st_find(s, decl);
    if (at) {
        at->v = v;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->s = ch_xrealloc(s->s, s->cap * sizeof *s->s);
    }
    s->s[s->n].decl = decl;
    s->s[s->n++].v = v;
}

/* Whether a variable keeps its value across calls (static, global). */
static int lasting(CXCursor decl)
{
    return clang_getCursorKind(decl) == CXCursor_VarDecl &&
           clang_Cursor_hasVarDeclGlobalStorage(decl) == 1;
}

/* The value of a variable no statement of the walk has set yet. */
static pval initial(const flow *f, CXCursor decl)
{
    if (clang_getCursorKind(decl) == CXCursor_ParmDecl) {
        /* the entry's come from its caller; a helper's may be what the candidate moved */
        pval v = pv(f->device ? FROM_DEVICE : FROM_KNOWN, 0);
        return f->entry ? v : moved(v);
    }
    if (lasting(decl)) /* null, or what a call stored (never of unknown origin: refused) */
        return pv(FROM_KNOWN, 1);
    return pv(FROM_UNKNOWN, 1); /* declared without a value */
}

static pval st_get(const flow *f, const pstate *s, CXCursor decl)
{
    slot *at = st_find(s, decl);
    return at ? at->v : initial(f, decl);
}

/* into = the join of into and from (a state that cannot be reached adds nothing). */
static void st_join(const flow *f, pstate *into, const pstate *from)
{
    if (!from->live)
        return;
    if (!into->live) {
        pstate c = st_copy(from);
        st_move(into, &c);
        return;
    }
    for (size_t i = 0; i < from->n; i++)
        st_set(into, from->s[i].decl, join(st_get(f, into, from->s[i].decl), from->s[i].v));
    for (size_t i = 0; i < into->n; i++)
        if (!st_find(from, into->s[i].decl))
            into->s[i].v = join(into->s[i].v, initial(f, into->s[i].decl));
}

static int st_same(const flow *f, const pstate *a, const pstate *b)
{
    if (a->live != b->live)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        pval w = st_get(f, b, a->s[i].decl);
        if (w.from != a->s[i].v.from || w.nullable != a->s[i].v.nullable ||
            w.moved != a->s[i].v.moved)
            return 0;
    }
    for (size_t i = 0; i < b->n; i++)
        if (!st_find(a, b->s[i].decl))
            return 0;
    return 1;
}

/* ---- expressions ------------------------------------------------------------------------------
 */

static pval eval(flow *f, CXCursor e, pstate *st);
static void refine(flow *f, CXCursor cond, int truth, pstate *st);

/* The pointer variable or parameter e names (under parentheses and casts), or a null cursor. */
static CXCursor pointer_variable(CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return clang_getNullCursor();
    CXCursor r = clang_getCursorReferenced(p);
    enum CXCursorKind k = clang_getCursorKind(r);
    if ((k != CXCursor_VarDecl && k != CXCursor_ParmDecl) ||
        !hs_pointer_type(clang_getCursorType(r)))
        return clang_getNullCursor();
    return r;
}

/* The spelling of c's token i (counted from the end when i < 0), or NULL; *count: how many
 * tokens c has. Caller frees. */
static char *token_of(const subset_ctx *x, CXCursor c, int i, unsigned *count)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getCursorExtent(c), &t, &n);
    long at = i < 0 ? (long)n + i : i;
    char *s = at >= 0 && at < (long)n ? hs_str_of(clang_getTokenSpelling(x->tu, t[at])) : NULL;
    if (n)
        clang_disposeTokens(x->tu, t, n);
    *count = n;
    return s;
}

static int null_macro(const char *s)
{
    return s && (strcmp(s, "NULL") == 0 || strcmp(s, "__null") == 0);
}

/* Whether the tokens of c end in `= NULL` (or `= __null`): libclang shows no cursor for the
 * GNU null of C++'s NULL, so an assignment or initializer of it has no operand to read. */
static int ends_in_null(const subset_ctx *x, CXCursor c)
{
    unsigned n = 0;
    char *last = token_of(x, c, -1, &n), *eq = token_of(x, c, -2, &n);
    int yes = eq && strcmp(eq, "=") == 0 && null_macro(last);
    free(last);
    free(eq);
    return yes;
}

/* Whether c is spelled as the one token NULL or __null. */
static int null_token(const subset_ctx *x, CXCursor c)
{
    unsigned n = 0;
    char *s = token_of(x, c, 0, &n);
    int yes = n == 1 && null_macro(s);
    free(s);
    return yes;
}

/* Whether e is the null pointer constant (nullptr, NULL, 0), under parentheses and casts. */
static int null_literal(const subset_ctx *x, CXCursor e)
{
    CXCursor p = hs_peel(e, 1);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_CXXNullPtrLiteralExpr || k == CXCursor_GNUNullExpr)
        return 1;
    if (k == CXCursor_IntegerLiteral)
        return hs_null_constant(p);
    if (k == CXCursor_UnexposedExpr) { /* __null spelled out */
        kids ks = hs_children(p);
        size_t n = ks.n;
        free(ks.v);
        return n == 0 && null_token(x, p);
    }
    return 0;
}

char *hs_spelling_of(const subset_ctx *x, CXCursor e)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getCursorExtent(e), &t, &n);
    ch_strbuf b;
    ch_strbuf_init(&b);
    for (unsigned i = 0; i < n && b.len < 60; i++) {
        char *s = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
        ch_strbuf_adds(&b, s);
        free(s);
    }
    if (n)
        clang_disposeTokens(x->tu, t, n);
    if (b.len >= 60)
        ch_strbuf_adds(&b, "...");
    return ch_strbuf_detach(&b);
}

/* Refuses `what` (a verb phrase: "does arithmetic on") done with the pointer e of value v
 * unless v is a pointer of a known origin, and with arith (arithmetic, a subscript: null plus
 * an offset is any address) one that cannot be null. A null pointer itself only faults. */
static void require(flow *f, CXCursor at, CXCursor e, pval v, int arith, const char *what)
{
    if (f->x->refused ||
        (v.from != FROM_UNKNOWN && (!arith || (v.from != FROM_NONE && !v.nullable))))
        return;
    char *s = hs_spelling_of(f->x, e);
    if (v.from == FROM_UNKNOWN)
        hs_refuse(f->x, at, "provenance",
                  "host code %s the pointer '%s', whose origin is unknown here (uninitialised, "
                  "loaded from memory or a library's result): %s",
                  what, s, provenance_why);
    else
        hs_refuse(f->x, at, "provenance",
                  "host code %s the pointer '%s', which may be null here: %s", what, s,
                  provenance_why);
    free(s);
}

/* A pointer value stored where it outlives the walk's view (memory, a static): never of unknown
 * origin, since what is read back from there is trusted as known. */
static void judge_stored(flow *f, CXCursor at, CXCursor value, pval v, const char *where)
{
    if (f->x->refused || v.from != FROM_UNKNOWN)
        return;
    char *s = hs_spelling_of(f->x, value);
    hs_refuse(f->x, at, "provenance",
              "host code stores the pointer '%s', whose origin is unknown here, %s: %s", s, where,
              provenance_why);
    free(s);
}

static const char counter_why[] =
    "a pointer kept from one call to the next may hold only what an allocation (or another kept "
    "pointer) gave, the start of a buffer: one moved a step each call counts the calls, and lets a "
    "candidate behave one way while verified and another later";

/* A pointer value stored where it outlasts the call (a static, memory that is not a local's):
 * as judge_stored, and never one moved by arithmetic (attacks4/cand_pointer_counter_trojan.cu:
 * a kept cursor moved one byte a call and compared with base + 64). */
static void judge_kept(flow *f, CXCursor at, CXCursor value, pval v, const char *where)
{
    judge_stored(f, at, value, v, where);
    if (f->x->refused || !v.moved)
        return;
    char *s = hs_spelling_of(f->x, value);
    hs_refuse(f->x, at, "static-state",
              "host code stores the pointer '%s', moved by arithmetic, %s: %s", s, where,
              counter_why);
    free(s);
}

/* Where a store into the lasting variable var goes, for the messages (caller frees). */
static char *kept_in(CXCursor var)
{
    char *name = hs_str_of(clang_getCursorSpelling(var));
    char *where = ch_xasprintf("in '%s', which keeps it across calls", name);
    free(name);
    return where;
}

/* judge_kept for a store of v into the variable var, when var keeps its value across calls. */
static void judge_kept_var(flow *f, CXCursor at, CXCursor value, pval v, CXCursor var)
{
    if (!lasting(var))
        return;
    char *where = kept_in(var);
    judge_kept(f, at, value, v, where);
    free(where);
}

static pval eval_children(flow *f, CXCursor e, pstate *st)
{
    kids k = hs_children(e);
    pval last = pv(FROM_KNOWN, 0);
    for (size_t i = 0; i < k.n && !f->x->refused; i++)
        if (clang_isExpression(clang_getCursorKind(k.v[i])))
            last = eval(f, k.v[i], st);
        else if (clang_isStatement(clang_getCursorKind(k.v[i])) ||
                 clang_isDeclaration(clang_getCursorKind(k.v[i])))
            eval_children(f, k.v[i], st);
    free(k.v);
    return last;
}

/* Whether the variable's declaration gives it a value. */
static int initialised(CXCursor var)
{
    return !clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(var));
}

/* The declaration of the named object the lvalue e is part of (a variable, a field of one
 * through `.`, an element of its array), or a null cursor when e reaches memory through a
 * pointer. */
static CXCursor named_object(CXCursor e)
{
    for (int depth = 0; depth < 64; depth++) {
        CXCursor p = hs_peel(e, 0);
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_DeclRefExpr)
            return clang_getCursorReferenced(p);
        CXCursor base = hs_first_child(p);
        if (clang_Cursor_isNull(base))
            break;
        CXType bt = clang_getCursorType(hs_peel(base, 0));
        if ((k == CXCursor_MemberRefExpr && !hs_pointer_type(bt)) ||
            (k == CXCursor_ArraySubscriptExpr && hs_array_type(bt)))
            e = base;
        else
            break;
    }
    return clang_getNullCursor();
}

/* Whether the lvalue e is part of a named object that holds only what assignments stored: the
 * host-store rule keeps its address from copies, and assignments store no pointer of unknown
 * origin. A local declared without a value holds what an earlier frame left there. */
static int named_place(CXCursor e)
{
    CXCursor r = named_object(e);
    enum CXCursorKind rk = clang_getCursorKind(r);
    return !clang_Cursor_isNull(r) &&
           (rk == CXCursor_ParmDecl || (rk == CXCursor_VarDecl && (lasting(r) || initialised(r))));
}

/* Whether the lvalue e is part of a local variable of the walked function (one of automatic
 * storage): what is stored there ends with the call. */
static int automatic_place(CXCursor e)
{
    CXCursor r = named_object(e);
    return !clang_Cursor_isNull(r) && clang_getCursorKind(r) == CXCursor_VarDecl && !lasting(r);
}

/* The value a read of e gives: a pointer read from a named object is what an assignment stored
 * there (or null); one read through a pointer may be bytes a copy wrote, of unknown origin. */
static pval loaded(CXCursor e)
{
    if (!hs_pointer_type(clang_getCursorType(e)))
        return pv(FROM_KNOWN, 0);
    return named_place(e) ? pv(FROM_KNOWN, 1) : pv(FROM_UNKNOWN, 1);
}

/* An lvalue written or read through: `*p`, `p[i]`, `p->f` check p; a variable is fine. */
static pval eval_place(flow *f, CXCursor lhs, pstate *st, const char *what)
{
    CXCursor p = hs_peel(lhs, 0);
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_UnaryOperator && hs_operator_is(f->x, p, "*")) {
        CXCursor base = hs_first_child(p);
        require(f, p, base, eval(f, base, st), 0, what);
        return pv(FROM_KNOWN, 0);
    }
    return eval(f, lhs, st);
}

static const char *const device_allocators[] = {
    "cudaMalloc",      "cudaMallocManaged",       "cudaMallocAsync",
    "cudaMallocPitch", "cudaMallocFromPoolAsync", NULL};
static const char *const returning_allocators[] = {"malloc", "calloc", "aligned_alloc", "realloc",
                                                   NULL};
/* Functions that write through their first argument and read through their second. */
static const char *const copiers[] = {"memcpy",
                                      "memmove",
                                      "memset",
                                      "__builtin_memcpy",
                                      "__builtin_memmove",
                                      "__builtin_memset",
                                      "cudaMemcpy",
                                      "cudaMemcpyAsync",
                                      "cudaMemset",
                                      "cudaMemsetAsync",
                                      "cudaMemcpy2D",
                                      "cudaMemcpy2DAsync",
                                      "cudaMemset2D",
                                      "cudaMemset2DAsync",
                                      "strcpy",
                                      "strncpy",
                                      "cudaMemcpyPeer",
                                      "cudaMemcpyPeerAsync",
                                      NULL};
/* Of those, the ones whose second argument is a pointer read from (not a value). */
static const char *const copy_readers[] = {"memcpy",
                                           "memmove",
                                           "__builtin_memcpy",
                                           "__builtin_memmove",
                                           "cudaMemcpy",
                                           "cudaMemcpyAsync",
                                           "cudaMemcpy2D",
                                           "cudaMemcpy2DAsync",
                                           "strcpy",
                                           "strncpy",
                                           NULL};

static int own_function(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return !clang_Cursor_isNull(def) && hs_from_main_file(def);
}

typedef struct out_scan {
    const subset_ctx *x;
    CXCursor param;
    origin from;
    int seen;
} out_scan;

/* What the file's own function stores through its out-parameter: a device allocation when
 * every non-null store is cudaMalloc* given the parameter itself, else a known origin (its
 * stores of unknown origin are refused where it is walked). */
static enum CXChildVisitResult scan_out(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    out_scan *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_CallExpr) {
        CXCursor fn = clang_getCursorReferenced(c);
        int n = clang_Cursor_getNumArguments(c);
        for (int i = 0; i < n; i++) {
            CXCursor a = hs_peel(clang_Cursor_getArgument(c, (unsigned)i), 1);
            if (clang_getCursorKind(a) != CXCursor_DeclRefExpr ||
                !hs_same_decl(clang_getCursorReferenced(a), s->param))
                continue;
            char *name = hs_str_of(clang_getCursorSpelling(fn));
            origin o = i == 0 && hs_in_list(device_allocators, name) ? FROM_DEVICE : FROM_KNOWN;
            free(name);
            s->from = s->seen && s->from > o ? s->from : o;
            s->seen = 1;
        }
    } else if (k == CXCursor_BinaryOperator) {
        kids ks = hs_children(c);
        if (ks.n == 2) {
            CXCursor l = hs_peel(ks.v[0], 0);
            if (clang_getCursorKind(l) == CXCursor_UnaryOperator) {
                CXCursor b = hs_peel(hs_first_child(l), 1);
                if (clang_getCursorKind(b) == CXCursor_DeclRefExpr &&
                    hs_same_decl(clang_getCursorReferenced(b), s->param) &&
                    !null_literal(s->x, ks.v[1])) {
                    s->from = FROM_KNOWN; /* the larger of the two */
                    s->seen = 1;
                }
            }
        }
        free(ks.v);
    }
    return CXChildVisit_Recurse;
}

static origin own_out_origin(const subset_ctx *x, CXCursor fn, unsigned i)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if ((unsigned)clang_Cursor_getNumArguments(def) <= i)
        return FROM_KNOWN;
    out_scan s = {x, clang_Cursor_getArgument(def, i), FROM_KNOWN, 0};
    clang_visitChildren(def, scan_out, &s);
    return s.from;
}

typedef struct result_scan {
    const subset_ctx *x;
    int moved;
} result_scan;

/* Whether a return statement's value may be a moved pointer: anything but a variable that keeps
 * its value across calls (what an allocation stored there, by judge_kept) or null. */
static enum CXChildVisitResult scan_result(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    result_scan *r = data;
    if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
        return CXChildVisit_Recurse;
    CXCursor e = hs_first_child(c);
    if (clang_Cursor_isNull(e) || null_literal(r->x, e))
        return CXChildVisit_Continue;
    CXCursor p = hs_peel(e, 1);
    r->moved |=
        clang_getCursorKind(p) != CXCursor_DeclRefExpr || !lasting(clang_getCursorReferenced(p));
    return r->moved ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* Whether the file's own function fn may return a pointer moved by arithmetic (its walk does not
 * follow into the callee: what a helper returns counts as moved unless it returns only kept
 * pointers or null). */
static int own_result_moved(const subset_ctx *x, CXCursor fn)
{
    result_scan r = {x, 0};
    clang_visitChildren(clang_getCursorDefinition(fn), scan_result, &r);
    return r.moved;
}

/* A kernel launch: in the device launcher, every pointer argument is device memory. */
static pval eval_launch(flow *f, CXCursor call, CXCursor fn, pstate *st)
{
    int n = clang_Cursor_getNumArguments(call);
    for (int i = 0; i < n && !f->x->refused; i++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        pval v = eval(f, a, st);
        if (!f->device || !hs_pointer_type(clang_getCursorType(a)) || v.from <= FROM_DEVICE)
            continue;
        char *s = hs_spelling_of(f->x, a), *k = hs_str_of(clang_getCursorSpelling(fn));
        hs_refuse(f->x, a, "provenance",
                  "%s gives the kernel '%s' the pointer '%s', which is not device memory: its "
                  "kernels get only its parameters (the runtime's device copies) and what it "
                  "allocated with cudaMalloc, so that no kernel learns a host address",
                  f->x->device_launcher, k, s);
        free(s);
        free(k);
    }
    return pv(FROM_KNOWN, 0);
}

static pval eval_call(flow *f, CXCursor call, pstate *st)
{
    CXCursor fn = clang_getCursorReferenced(call);
    if (!clang_Cursor_isNull(fn) && hs_is_kernel(fn))
        return eval_launch(f, call, fn, st);
    char *name = clang_Cursor_isNull(fn) ? ch_xstrdup("") : hs_str_of(clang_getCursorSpelling(fn));
    int own = !clang_Cursor_isNull(fn) && own_function(fn);
    int n = clang_Cursor_getNumArguments(call);
    int copier = hs_in_list(copiers, name), reader = hs_in_list(copy_readers, name);
    /* the callee expression and the object of a member call */
    kids ks = hs_children(call);
    for (size_t i = 0; i < ks.n && n >= 0 && (int)i < (int)ks.n - n && !f->x->refused; i++)
        eval(f, ks.v[i], st);
    free(ks.v);
    for (int i = 0; i < n && !f->x->refused; i++) {
        CXCursor a = clang_Cursor_getArgument(call, (unsigned)i);
        CXCursor p = hs_peel(a, 1);
        int address =
            clang_getCursorKind(p) == CXCursor_UnaryOperator && hs_operator_is(f->x, p, "&");
        CXCursor v = address ? pointer_variable(hs_first_child(p)) : clang_getNullCursor();
        if (!clang_Cursor_isNull(v)) { /* &v: the callee writes v */
            origin o = FROM_KNOWN;
            if (i == 0 && hs_in_list(device_allocators, name))
                o = FROM_DEVICE;
            else if (own)
                o = own_out_origin(f->x, fn, (unsigned)i);
            st_set(st, v, pv(o, 0));
            continue;
        }
        pval val = eval(f, a, st);
        if (!hs_pointer_type(clang_getCursorType(a)))
            continue;
        if (copier && i == 0)
            require(f, a, a, val, 0, "copies into");
        else if (reader && i == 1)
            require(f, a, a, val, 0, "copies from");
        else if (own) /* whose parameters count as non-null pointers of a known origin */
            require(f, a, a, val, 1, "hands its own function");
    }
    pval result = loaded(call);
    if (hs_in_list(returning_allocators, name))
        result = pv(FROM_KNOWN, 0);
    else if (own && hs_pointer_type(clang_getCursorType(call)))
        result = own_result_moved(f->x, fn) ? moved(pv(FROM_KNOWN, 1)) : pv(FROM_KNOWN, 1);
    free(name);
    return result;
}

/* `p++`, `p += k` and the like on the pointer place at e (value v before): p is moved now, and
 * where p outlasts the call that is refused (judge_kept). */
static pval moved_in_place(flow *f, CXCursor e, CXCursor place, pval v, pstate *st)
{
    CXCursor var = pointer_variable(place);
    pval after = moved(pv(v.from, 0));
    if (clang_Cursor_isNull(var)) {
        if (!automatic_place(place))
            judge_kept(f, e, place, after, "in memory that may outlast the call");
        return after;
    }
    judge_kept_var(f, e, place, after, var);
    st_set(st, var, after);
    return after;
}

static pval eval_unary(flow *f, CXCursor e, pstate *st)
{
    CXCursor o = hs_first_child(e);
    if (clang_Cursor_isNull(o))
        return pv(FROM_KNOWN, 0);
    if (hs_operator_is(f->x, e, "&")) {
        CXCursor p = hs_peel(o, 0);
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_DeclRefExpr)
            return pv(FROM_KNOWN, 0); /* a named object */
        if (k == CXCursor_UnaryOperator && hs_operator_is(f->x, p, "*"))
            return eval(f, hs_first_child(p), st); /* &*q is q */
        eval(f, o, st);                            /* &p[i], &p->f: checks p */
        return moved(pv(FROM_KNOWN, 0));
    }
    if (hs_operator_is(f->x, e, "*")) {
        require(f, e, o, eval(f, o, st), 0, "dereferences");
        return loaded(e);
    }
    if ((hs_operator_is(f->x, e, "++") || hs_operator_is(f->x, e, "--")) &&
        hs_pointer_type(clang_getCursorType(o))) {
        pval v = eval(f, o, st);
        require(f, e, o, v, 1, "does arithmetic on");
        return moved_in_place(f, e, o, v, st);
    }
    eval(f, o, st);
    return loaded(e);
}

static pval eval_assign(flow *f, CXCursor e, CXCursor lhs, CXCursor rhs, pstate *st)
{
    pval v = eval(f, rhs, st);
    CXCursor var = pointer_variable(lhs);
    int pointer = hs_pointer_type(clang_getCursorType(lhs));
    if (!clang_Cursor_isNull(var) && clang_getCursorKind(hs_peel(lhs, 0)) == CXCursor_DeclRefExpr) {
        judge_kept_var(f, e, rhs, v, var);
        st_set(st, var, v);
        return v;
    }
    eval_place(f, lhs, st, "writes through");
    if (pointer && automatic_place(lhs))
        judge_stored(f, e, rhs, v, "in memory");
    else if (pointer)
        judge_kept(f, e, rhs, v, "in memory that may outlast the call");
    return v;
}

/* `lhs = <an operand libclang does not show>`: NULL, else of unknown origin. */
static pval eval_hidden_assign(flow *f, CXCursor e, CXCursor lhs, pstate *st)
{
    pval v = ends_in_null(f->x, e) ? pv(FROM_NONE, 1) : pv(FROM_UNKNOWN, 1);
    CXCursor var = pointer_variable(lhs);
    if (!clang_Cursor_isNull(var) && clang_getCursorKind(hs_peel(lhs, 0)) == CXCursor_DeclRefExpr) {
        if (lasting(var))
            judge_stored(f, e, e, v, "in a variable that keeps it across calls");
        st_set(st, var, v);
        return v;
    }
    eval_place(f, lhs, st, "writes through");
    if (hs_pointer_type(clang_getCursorType(lhs)))
        judge_stored(f, e, e, v, "in memory");
    return v;
}

static pval eval_binary(flow *f, CXCursor e, pstate *st)
{
    kids ks = hs_children(e);
    if (ks.n == 1 && clang_getCursorKind(e) == CXCursor_BinaryOperator &&
        hs_operator_is(f->x, e, "=")) {
        CXCursor lhs = ks.v[0];
        free(ks.v);
        return eval_hidden_assign(f, e, lhs, st);
    }
    if (ks.n != 2) {
        free(ks.v);
        return eval_children(f, e, st);
    }
    CXCursor l = ks.v[0], r = ks.v[1];
    free(ks.v);
    if (clang_getCursorKind(e) == CXCursor_CompoundAssignOperator) {
        if (hs_pointer_type(clang_getCursorType(l))) {
            pval v = eval(f, l, st);
            eval(f, r, st);
            require(f, e, l, v, 1, "does arithmetic on");
            return moved_in_place(f, e, l, v, st);
        }
        eval(f, r, st);
        eval_place(f, l, st, "writes through");
        return pv(FROM_KNOWN, 0);
    }
    if (hs_operator_is(f->x, e, "="))
        return eval_assign(f, e, l, r, st);
    if (hs_operator_is(f->x, e, "&&") || hs_operator_is(f->x, e, "||")) {
        int and = hs_operator_is(f->x, e, "&&");
        eval(f, l, st);
        pstate right = st_copy(st);
        refine(f, l, and, &right);
        eval(f, r, &right);
        refine(f, l, !and, st);
        st_join(f, st, &right);
        st_free(&right);
        return pv(FROM_KNOWN, 0);
    }
    pval lv = eval(f, l, st), rv = eval(f, r, st);
    int lp = hs_pointer_type(clang_getCursorType(l)), rp = hs_pointer_type(clang_getCursorType(r));
    if ((hs_operator_is(f->x, e, "+") || hs_operator_is(f->x, e, "-")) && lp != rp) {
        pval v = lp ? lv : rv;
        require(f, e, lp ? l : r, v, 1, "does arithmetic on");
        return moved(pv(v.from, 0));
    }
    if (hs_operator_is(f->x, e, ","))
        return rv;
    return pv(FROM_KNOWN, 0);
}

static pval eval_conditional(flow *f, CXCursor e, pstate *st)
{
    kids ks = hs_children(e);
    if (ks.n == 2) { /* c ? p : NULL, the GNU null not shown: null on one side */
        eval(f, ks.v[0], st);
        pval v = join(eval(f, ks.v[1], st), pv(FROM_NONE, 1));
        free(ks.v);
        return v;
    }
    if (ks.n != 3) {
        free(ks.v);
        return eval_children(f, e, st);
    }
    eval(f, ks.v[0], st);
    pstate no = st_copy(st);
    refine(f, ks.v[0], 1, st);
    refine(f, ks.v[0], 0, &no);
    pval a = eval(f, ks.v[1], st), b = eval(f, ks.v[2], &no);
    st_join(f, st, &no);
    st_free(&no);
    free(ks.v);
    return join(a, b);
}

static pval eval(flow *f, CXCursor e, pstate *st)
{
    if (f->x->refused)
        return pv(FROM_KNOWN, 0);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (null_literal(f->x, e))
        return pv(FROM_NONE, 1);
    switch (k) {
    case CXCursor_DeclRefExpr: {
        CXCursor var = pointer_variable(e);
        if (!clang_Cursor_isNull(var))
            return st_get(f, st, var);
        return pv(FROM_KNOWN, 0); /* an array (a named object), a function, a number */
    }
    case CXCursor_InitListExpr: {
        kids ks = hs_children(e);
        for (size_t i = 0; i < ks.n && !f->x->refused; i++) {
            pval v = eval(f, ks.v[i], st);
            if (hs_pointer_type(clang_getCursorType(ks.v[i])))
                judge_stored(f, ks.v[i], ks.v[i], v, "in an initializer");
        }
        free(ks.v);
        return pv(FROM_KNOWN, 0);
    }
    case CXCursor_UnaryOperator:
        return eval_unary(f, e, st);
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        return eval_binary(f, e, st);
    case CXCursor_ConditionalOperator:
        return eval_conditional(f, e, st);
    case CXCursor_CallExpr:
        return eval_call(f, e, st);
    case CXCursor_ArraySubscriptExpr: {
        kids ks = hs_children(e);
        if (ks.n == 2) {
            CXCursor base = ks.v[0];
            int array = hs_array_type(clang_getCursorType(hs_peel(base, 0)));
            pval b = eval(f, base, st);
            eval(f, ks.v[1], st);
            if (!array && hs_pointer_type(clang_getCursorType(base)))
                require(f, e, base, b, 1, "indexes");
        } else {
            eval_children(f, e, st);
        }
        free(ks.v);
        return loaded(e);
    }
    case CXCursor_MemberRefExpr: {
        CXCursor base = hs_first_child(e);
        if (!clang_Cursor_isNull(base) && clang_isExpression(clang_getCursorKind(base))) {
            pval b = eval(f, base, st);
            if (hs_pointer_type(clang_getCursorType(base)) &&
                clang_getCursorKind(hs_peel(base, 0)) != CXCursor_CXXThisExpr)
                require(f, e, base, b, 0, "reaches a field through");
        }
        return loaded(e);
    }
    case CXCursor_CXXNewExpr:
        eval_children(f, e, st);
        return pv(FROM_KNOWN, 0);
    case CXCursor_CXXThisExpr:
    case CXCursor_StringLiteral:
        return pv(FROM_KNOWN, 0);
    case CXCursor_UnexposedExpr:
    case CXCursor_ParenExpr:
    default:
        if (k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr || hs_is_cast(k)) {
            pval v = eval_children(f, e, st);
            return v;
        }
        eval_children(f, e, st);
        return loaded(e);
    }
}

/* What a condition's truth says of the pointers it tests against null. */
static void refine(flow *f, CXCursor cond, int truth, pstate *st)
{
    CXCursor c = hs_peel(cond, 1);
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor var = pointer_variable(c);
    if (!clang_Cursor_isNull(var)) {
        if (truth)
            st_set(st, var, pv(st_get(f, st, var).from, 0));
        return;
    }
    if (k == CXCursor_UnaryOperator && hs_operator_is(f->x, c, "!")) {
        refine(f, hs_first_child(c), !truth, st);
        return;
    }
    if (k != CXCursor_BinaryOperator)
        return;
    kids ks = hs_children(c);
    if (ks.n == 2) {
        CXCursor l = ks.v[0], r = ks.v[1];
        int eq = hs_operator_is(f->x, c, "=="), ne = hs_operator_is(f->x, c, "!=");
        if ((eq && !truth) || (ne && truth)) {
            CXCursor v = null_literal(f->x, r)   ? pointer_variable(l)
                         : null_literal(f->x, l) ? pointer_variable(r)
                                                 : clang_getNullCursor();
            if (!clang_Cursor_isNull(v))
                st_set(st, v, pv(st_get(f, st, v).from, 0));
        } else if (hs_operator_is(f->x, c, "&&") && truth) {
            refine(f, l, 1, st);
            refine(f, r, 1, st);
        } else if (hs_operator_is(f->x, c, "||") && !truth) {
            refine(f, l, 0, st);
            refine(f, r, 0, st);
        } else if (hs_operator_is(f->x, c, "=")) {
            refine(f, l, truth, st);
        }
    }
    free(ks.v);
}

/* ---- statements -------------------------------------------------------------------------------
 */

static void exec(flow *f, CXCursor s, pstate *st);

/* A variable's declaration: its initializer's value, a static's of an earlier call. */
static void exec_var(flow *f, CXCursor v, pstate *st)
{
    CXCursor init = clang_Cursor_getVarDeclInitializer(v);
    pval val = !clang_Cursor_isNull(init) ? eval(f, init, st)
               : ends_in_null(f->x, v)    ? pv(FROM_NONE, 1)
                                          : pv(FROM_UNKNOWN, 1);
    if (!hs_pointer_type(clang_getCursorType(v)))
        return;
    if (lasting(v)) {
        /* judge_stored, not judge_kept: a static's initializer runs once, so a moved pointer
         * there counts nothing */
        if (!clang_Cursor_isNull(init)) {
            char *where = kept_in(v);
            judge_stored(f, v, init, val, where);
            free(where);
        }
        val = pv(FROM_KNOWN, 1); /* its value of an earlier call, or null */
    }
    st_set(st, v, val);
}

static void exec_decl(flow *f, CXCursor d, pstate *st)
{
    kids ks = hs_children(d);
    for (size_t i = 0; i < ks.n && !f->x->refused; i++)
        if (clang_getCursorKind(ks.v[i]) == CXCursor_VarDecl)
            exec_var(f, ks.v[i], st);
        else
            exec(f, ks.v[i], st);
    free(ks.v);
}

/* Statement-kind children of a loop or if before its body, told apart by the tokens: which part
 * of `for (init; cond; inc)` a child is, from where it starts. */
static int for_part(const subset_ctx *x, CXCursor loop, CXCursor child)
{
    CXToken *t = NULL;
    unsigned n = 0;
    clang_tokenize(x->tu, clang_getCursorExtent(loop), &t, &n);
    unsigned off = 0;
    clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(child)), NULL, NULL, NULL,
                               &off);
    int depth = 0, part = 0;
    for (unsigned i = 0; i < n; i++) {
        char *s = hs_str_of(clang_getTokenSpelling(x->tu, t[i]));
        unsigned at = 0;
        clang_getExpansionLocation(clang_getTokenLocation(x->tu, t[i]), NULL, NULL, NULL, &at);
        if (at >= off) {
            free(s);
            break;
        }
        depth += strcmp(s, "(") == 0;
        depth -= strcmp(s, ")") == 0;
        if (depth == 1 && strcmp(s, ";") == 0)
            part++;
        if (depth == 0 && strcmp(s, ")") == 0)
            part = 3; /* past the parentheses: the body */
        free(s);
    }
    if (n)
        clang_disposeTokens(x->tu, t, n);
    return part;
}

hs_for_parts hs_split_for(const subset_ctx *x, CXCursor loop)
{
    hs_for_parts p = {clang_getNullCursor(), clang_getNullCursor(), clang_getNullCursor(),
                      clang_getNullCursor()};
    kids ks = hs_children(loop);
    for (size_t i = 0; i < ks.n; i++) {
        int part = i + 1 == ks.n ? 3 : for_part(x, loop, ks.v[i]);
        CXCursor *at = part == 0 ? &p.init : part == 1 ? &p.cond : part == 2 ? &p.inc : &p.body;
        *at = ks.v[i];
    }
    free(ks.v);
    return p;
}

/* A loop's condition tested on *it: the state where it is false joins *exits, and *it goes on
 * as the state where it is true (the next round). */
static void cond_exit(flow *f, CXCursor cond, pstate *it, pstate *exits)
{
    eval(f, cond, it);
    pstate out = st_copy(it);
    refine(f, cond, 0, &out);
    st_join(f, exits, &out);
    st_free(&out);
    refine(f, cond, 1, it);
}

/* Runs a loop's body (cond tested before it, or after it with !test_first; inc after it) to a
 * fixed point from *st and leaves the state at the loop's exits in *st. Without cond the loop
 * leaves only by break, unless may_skip (a range-for: it may run no round). */
static void exec_loop(flow *f, CXCursor cond, CXCursor body, CXCursor inc, int test_first,
                      int may_skip, pstate *st)
{
    pstate head = st_copy(st), exits = st_new(), brk = st_new();
    exits.live = brk.live = 0;
    pstate *outer_brk = f->brk, *outer_cont = f->cont;
    f->loop_depth++;
    int stable = 0;
    /* deeply nested loops get one round each, and their pointers are unknown from the start */
    int rounds = f->loop_depth > 6 ? 1 : 24;
    if (rounds == 1)
        for (size_t i = 0; i < head.n; i++)
            head.s[i].v = pv(FROM_UNKNOWN, 1);
    for (int round = 0; round < rounds && !stable && !f->x->refused; round++) {
        pstate it = st_copy(&head), cont = st_new();
        cont.live = 0;
        if (may_skip)
            st_join(f, &exits, &it);
        if (test_first && !clang_Cursor_isNull(cond))
            cond_exit(f, cond, &it, &exits);
        f->brk = &brk;
        f->cont = &cont;
        exec(f, body, &it);
        f->brk = outer_brk;
        f->cont = outer_cont;
        st_join(f, &it, &cont);
        st_free(&cont);
        if (!test_first && !clang_Cursor_isNull(cond))
            cond_exit(f, cond, &it, &exits);
        if (!clang_Cursor_isNull(inc))
            eval(f, inc, &it);
        pstate next = st_copy(&head);
        st_join(f, &next, &it);
        st_free(&it);
        stable = st_same(f, &next, &head);
        st_move(&head, &next);
    }
    if (!stable) /* no fixed point within the rounds: nothing is known after the loop */
        for (size_t i = 0; i < exits.n; i++)
            exits.s[i].v = pv(FROM_UNKNOWN, 1);
    f->loop_depth--;
    st_join(f, &exits, &brk);
    st_move(st, &exits);
    st_free(&head);
    st_free(&brk);
}

static void exec_for(flow *f, CXCursor s, pstate *st)
{
    hs_for_parts p = hs_split_for(f->x, s);
    exec(f, p.init, st);
    if (!clang_Cursor_isNull(p.body))
        exec_loop(f, p.cond, p.body, p.inc, 1, 0, st);
}

/* if ([init;] cond) then [else other]; cond may declare a variable (if (T *p = ...)). */
static void exec_if(flow *f, CXCursor s, pstate *st)
{
    kids ks = hs_children(s);
    size_t i = 0;
    /* C++17's init-statement: four children, or three of which the first is no expression */
    enum CXCursorKind k0 = ks.n ? clang_getCursorKind(ks.v[0]) : CXCursor_NullStmt;
    if (ks.n == 4 || (ks.n == 3 && clang_isStatement(k0)))
        exec(f, ks.v[i++], st);
    if (i + 1 >= ks.n) {
        free(ks.v);
        return;
    }
    CXCursor cond = ks.v[i];
    if (clang_getCursorKind(cond) == CXCursor_VarDecl) {
        exec_var(f, cond, st); /* the declared variable is the condition */
    } else {
        eval(f, cond, st);
    }
    pstate no = st_copy(st);
    if (clang_getCursorKind(cond) == CXCursor_VarDecl) {
        if (hs_pointer_type(clang_getCursorType(cond)))
            st_set(st, cond, pv(st_get(f, st, cond).from, 0));
    } else {
        refine(f, cond, 1, st);
        refine(f, cond, 0, &no);
    }
    exec(f, ks.v[i + 1], st);
    if (i + 2 < ks.n)
        exec(f, ks.v[i + 2], &no);
    st_join(f, st, &no);
    st_free(&no);
    free(ks.v);
}

static void exec_switch(flow *f, CXCursor s, pstate *st)
{
    kids ks = hs_children(s);
    for (size_t i = 0; i + 1 < ks.n && !f->x->refused; i++)
        exec(f, ks.v[i], st);
    if (ks.n < 2) {
        free(ks.v);
        return;
    }
    pstate entry = st_copy(st), brk = st_new();
    brk.live = 0;
    pstate *outer_brk = f->brk, *outer_entry = f->sw_entry;
    f->brk = &brk;
    f->sw_entry = &entry;
    st->live = 0; /* the body is entered at its case labels */
    exec(f, ks.v[ks.n - 1], st);
    f->brk = outer_brk;
    f->sw_entry = outer_entry;
    st_join(f, st, &brk);
    st_join(f, st, &entry); /* no label matched (without a default) */
    st_free(&entry);
    st_free(&brk);
    free(ks.v);
}

static void exec(flow *f, CXCursor s, pstate *st)
{
    if (f->x->refused || clang_Cursor_isNull(s))
        return;
    enum CXCursorKind k = clang_getCursorKind(s);
    switch (k) {
    case CXCursor_CompoundStmt: {
        kids ks = hs_children(s);
        for (size_t i = 0; i < ks.n && !f->x->refused; i++)
            exec(f, ks.v[i], st);
        free(ks.v);
        return;
    }
    case CXCursor_DeclStmt:
        exec_decl(f, s, st);
        return;
    case CXCursor_IfStmt:
        exec_if(f, s, st);
        return;
    case CXCursor_ForStmt:
        exec_for(f, s, st);
        return;
    case CXCursor_WhileStmt:
    case CXCursor_CXXForRangeStmt: {
        kids ks = hs_children(s);
        for (size_t i = 0; k == CXCursor_CXXForRangeStmt && i + 1 < ks.n; i++)
            exec(f, ks.v[i], st);
        if (ks.n)
            exec_loop(f, k == CXCursor_WhileStmt && ks.n == 2 ? ks.v[0] : clang_getNullCursor(),
                      ks.v[ks.n - 1], clang_getNullCursor(), 1, k == CXCursor_CXXForRangeStmt, st);
        free(ks.v);
        return;
    }
    case CXCursor_DoStmt: {
        kids ks = hs_children(s);
        if (ks.n == 2)
            exec_loop(f, ks.v[1], ks.v[0], clang_getNullCursor(), 0, 0, st);
        free(ks.v);
        return;
    }
    case CXCursor_SwitchStmt:
        exec_switch(f, s, st);
        return;
    case CXCursor_ReturnStmt: {
        CXCursor value = hs_first_child(s);
        if (!clang_Cursor_isNull(value)) {
            pval v = eval(f, value, st);
            if (hs_pointer_type(clang_getCursorType(value)))
                judge_stored(f, s, value, v, "as its result");
        }
        st->live = 0;
        return;
    }
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt: {
        pstate *to = k == CXCursor_BreakStmt ? f->brk : f->cont;
        if (to)
            st_join(f, to, st);
        st->live = 0;
        return;
    }
    case CXCursor_GotoStmt:
        st->live = 0;
        return;
    case CXCursor_LabelStmt:
        /* reached from any goto: nothing is known of the pointers there */
        st->live = 1;
        for (size_t i = 0; i < st->n; i++)
            st->s[i].v = pv(FROM_UNKNOWN, 1);
        eval_children(f, s, st);
        return;
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt: {
        /* reached from the switch's entry, or by falling through */
        if (f->sw_entry)
            st_join(f, st, f->sw_entry);
        else
            st->live = 1;
        kids ks = hs_children(s);
        for (size_t i = 0; i < ks.n && !f->x->refused; i++)
            if (i + 1 == ks.n)
                exec(f, ks.v[i], st);
            else
                eval(f, ks.v[i], st);
        free(ks.v);
        return;
    }
    default:
        if (clang_isExpression(k))
            eval(f, s, st);
        else
            eval_children(f, s, st);
        return;
    }
}

void hs_judge_provenance(subset_ctx *x, CXCursor fn, int device_launcher)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused || !clang_isCursorDefinition(fn))
        return;
    kids ks = hs_children(fn);
    CXCursor body = clang_getNullCursor();
    for (size_t i = 0; i < ks.n; i++)
        if (clang_getCursorKind(ks.v[i]) == CXCursor_CompoundStmt)
            body = ks.v[i];
    free(ks.v);
    if (clang_Cursor_isNull(body))
        return;
    /* NAME_launcher and NAME_device_launcher: the scaffold and the dispatcher call them */
    char *name = hs_str_of(clang_getCursorSpelling(fn));
    char *launcher = x->entry ? ch_xasprintf("%s_launcher", x->entry) : NULL;
    int entry = device_launcher || (launcher && strcmp(name, launcher) == 0);
    free(launcher);
    free(name);
    flow f = {x, device_launcher, entry, NULL, NULL, NULL, 0};
    pstate st = st_new();
    exec(&f, body, &st);
    st_free(&st);
}
