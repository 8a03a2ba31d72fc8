/* The helpers of an entry (clx_collect_helpers): functions its body calls whose definitions the
 * translation unit shows, such as `static inline` functions of the file or of a project header.
 * Each is kept as C text printed by clang from the AST (macros expanded), so that it is part of
 * the cache key (a changed helper changes the kernel's meaning) and can be compiled again as a
 * __device__ function when it is a pure scalar function. Invariant: callees come before their
 * callers, each helper once, and nothing from system headers (the C library is the C library
 * on both sides). */
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"
#include "clx.h"

enum { MAX_HELPERS = 64 };

typedef struct collect {
    CXCursor entry_fn;
    ch_entry *e;
    CXCursor seen[MAX_HELPERS]; /* canonical cursors of the helpers collected or in progress */
    size_t n_seen;
} collect;

static int scalar_type(CXType t)
{
    ch_scalar s = clx_scalar(clang_getCanonicalType(t));
    return s != CH_T_UNKNOWN && s != CH_T_VOID;
}

/* What one helper's body uses, gathered by a recursive visit. */
typedef struct uses {
    CXCursor fn;
    CXCursor callees[MAX_HELPERS]; /* definitions of the functions called, each once */
    size_t n_callees;
    int too_many_callees;
    ch_strbuf typedefs; /* "typedef double real;\n" for each scalar typedef named */
    ch_strvec typedef_names;
    int device_ok;
} uses;

static int strvec_has(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

static void note_typedef(uses *u, CXCursor ref)
{
    CXCursor td = clang_getCursorReferenced(ref);
    if (td.kind != CXCursor_TypedefDecl ||
        clang_Location_isInSystemHeader(clang_getCursorLocation(td)))
        return;
    char *name = clx_str(clang_getCursorSpelling(td));
    CXType under = clang_getCanonicalType(clang_getTypedefDeclUnderlyingType(td));
    if (!strvec_has(&u->typedef_names, name)) {
        ch_strvec_push(&u->typedef_names, name);
        if (scalar_type(under))
            ch_strbuf_addf(&u->typedefs, "typedef %s %s;\n", ch_scalar_name(clx_scalar(under)),
                           name);
        else
            u->device_ok = 0; /* a struct or array type: not a scalar device function */
    }
    free(name);
}

static void note_variable(uses *u, CXCursor c)
{
    if (!scalar_type(clang_getCursorType(c)) || clang_Cursor_getStorageClass(c) == CX_SC_Static)
        u->device_ok = 0; /* an array, a pointer or state kept across calls */
}

static void note_reference(uses *u, CXCursor c)
{
    CXCursor ref = clang_getCursorReferenced(c);
    if (ref.kind == CXCursor_VarDecl &&
        !clang_equalCursors(clang_getCursorSemanticParent(ref), u->fn))
        u->device_ok = 0; /* a global */
}

static void note_call(uses *u, CXCursor c)
{
    CXCursor callee = clang_getCursorReferenced(c);
    if (callee.kind != CXCursor_FunctionDecl)
        return;
    CXCursor def = clang_getCursorDefinition(callee);
    if (clang_Cursor_isNull(def) || clang_Location_isInSystemHeader(clang_getCursorLocation(def)))
        return; /* the C library (math.h): the translator knows its device twins */
    CXCursor canon = clang_getCanonicalCursor(def);
    for (size_t i = 0; i < u->n_callees; i++)
        if (clang_equalCursors(clang_getCanonicalCursor(u->callees[i]), canon))
            return;
    if (u->n_callees == MAX_HELPERS)
        u->too_many_callees = 1;
    else
        u->callees[u->n_callees++] = def;
}

static enum CXChildVisitResult visit_use(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    uses *u = data;
    switch (c.kind) {
    case CXCursor_TypeRef:
        note_typedef(u, c);
        break;
    case CXCursor_VarDecl:
        note_variable(u, c);
        break;
    case CXCursor_DeclRefExpr:
        note_reference(u, c);
        break;
    case CXCursor_CallExpr:
        note_call(u, c);
        break;
    default:
        break;
    }
    return CXChildVisit_Recurse;
}

static int seen(collect *k, CXCursor def)
{
    CXCursor canon = clang_getCanonicalCursor(def);
    for (size_t i = 0; i < k->n_seen; i++)
        if (clang_equalCursors(k->seen[i], canon))
            return 1;
    return 0;
}

char *clx_pretty(CXCursor def)
{
    CXPrintingPolicy pol = clang_getCursorPrintingPolicy(def);
    clang_PrintingPolicy_setProperty(pol, CXPrintingPolicy_IncludeNewlines, 1);
    char *text = clx_str(clang_getCursorPrettyPrinted(def, pol));
    clang_PrintingPolicy_dispose(pol);
    return text;
}

static void add_helper(collect *k, CXCursor def);

/* The helpers u calls, each added (after its own callees) unless already there. */
static void add_callees(collect *k, const uses *u)
{
    for (size_t i = 0; i < u->n_callees; i++)
        if (!seen(k, u->callees[i]) && !clang_equalCursors(clang_getCanonicalCursor(u->callees[i]),
                                                           clang_getCanonicalCursor(k->entry_fn)))
            add_helper(k, u->callees[i]);
}

/* A fresh record of what fn uses. */
static void uses_init(uses *u, CXCursor fn)
{
    memset(u, 0, sizeof *u);
    u->fn = fn;
    u->device_ok = 1;
    ch_strbuf_init(&u->typedefs);
    ch_strvec_init(&u->typedef_names);
}

static void add_helper(collect *k, CXCursor def)
{
    if (k->n_seen == MAX_HELPERS)
        return;
    k->seen[k->n_seen++] = clang_getCanonicalCursor(def);
    uses u;
    uses_init(&u, def);
    u.device_ok = scalar_type(clang_getResultType(clang_getCursorType(def)));
    int np = clang_Cursor_getNumArguments(def);
    for (int i = 0; i < np; i++)
        u.device_ok &= scalar_type(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i)));
    clang_visitChildren(def, visit_use, &u);
    add_callees(k, &u);
    u.device_ok &= !u.too_many_callees;
    for (size_t i = 0; i < u.n_callees; i++) {
        char *name = clx_str(clang_getCursorSpelling(u.callees[i]));
        const ch_entry_helper *h = ch_entry_helper_named(k->e, name);
        u.device_ok &= h && h->device_ok; /* a callee not collected (recursion), or impure */
        free(name);
    }
    ch_entry *e = k->e;
    e->helpers = ch_xrealloc(e->helpers, (e->n_helpers + 1) * sizeof *e->helpers);
    ch_entry_helper *h = &e->helpers[e->n_helpers++];
    h->name = clx_str(clang_getCursorSpelling(def));
    char *text = clx_pretty(def);
    h->definition_at = u.typedefs.len;
    ch_strbuf_adds(&u.typedefs, text);
    free(text);
    h->source = ch_strbuf_detach(&u.typedefs);
    h->device_ok = u.device_ok;
    ch_strvec_free(&u.typedef_names);
}

void clx_collect_helpers(CXTranslationUnit tu, CXCursor fn, CXCursor body, ch_entry *e)
{
    (void)tu;
    collect k;
    memset(&k, 0, sizeof k);
    k.entry_fn = fn;
    k.e = e;
    uses top;
    uses_init(&top, fn);
    clang_visitChildren(body, visit_use, &top);
    add_callees(&k, &top);
    ch_strbuf_free(&top.typedefs);
    ch_strvec_free(&top.typedef_names);
}
