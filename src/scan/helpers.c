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
    ch_strvec calls;    /* functions called that have visible definitions */
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
    char *name = clx_str(clang_getCursorSpelling(callee));
    if (!strvec_has(&u->calls, name))
        ch_strvec_push(&u->calls, name);
    free(name);
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

/* The definition of a function called name among the calls of scope, or a null cursor. */
typedef struct find_def {
    const char *name;
    CXCursor def;
} find_def;

static enum CXChildVisitResult visit_find(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    find_def *f = data;
    if (c.kind != CXCursor_CallExpr)
        return CXChildVisit_Recurse;
    CXCursor callee = clang_getCursorReferenced(c);
    char *name = clx_str(clang_getCursorSpelling(callee));
    if (strcmp(name, f->name) == 0 && callee.kind == CXCursor_FunctionDecl)
        f->def = clang_getCursorDefinition(callee);
    free(name);
    return clang_Cursor_isNull(f->def) ? CXChildVisit_Recurse : CXChildVisit_Break;
}

static char *pretty(CXCursor def)
{
    CXPrintingPolicy pol = clang_getCursorPrintingPolicy(def);
    clang_PrintingPolicy_setProperty(pol, CXPrintingPolicy_IncludeNewlines, 1);
    char *text = clx_str(clang_getCursorPrettyPrinted(def, pol));
    clang_PrintingPolicy_dispose(pol);
    return text;
}

static void add_helper(collect *k, CXCursor def);

/* The helpers scope calls, each added (after its own callees) unless already there. */
static void add_callees(collect *k, CXCursor scope, const ch_strvec *calls)
{
    for (size_t i = 0; i < calls->len; i++) {
        find_def f = {calls->items[i], clang_getNullCursor()};
        clang_visitChildren(scope, visit_find, &f);
        if (!clang_Cursor_isNull(f.def) && !seen(k, f.def) &&
            !clang_equalCursors(clang_getCanonicalCursor(f.def),
                                clang_getCanonicalCursor(k->entry_fn)))
            add_helper(k, f.def);
    }
}

static void add_helper(collect *k, CXCursor def)
{
    if (k->n_seen == MAX_HELPERS)
        return;
    k->seen[k->n_seen++] = clang_getCanonicalCursor(def);
    uses u = {def, {0}, {0}, {0}, 1};
    ch_strvec_init(&u.calls);
    ch_strbuf_init(&u.typedefs);
    ch_strvec_init(&u.typedef_names);
    u.device_ok = scalar_type(clang_getResultType(clang_getCursorType(def)));
    int np = clang_Cursor_getNumArguments(def);
    for (int i = 0; i < np; i++)
        u.device_ok &= scalar_type(clang_getCursorType(clang_Cursor_getArgument(def, (unsigned)i)));
    clang_visitChildren(def, visit_use, &u);
    add_callees(k, def, &u.calls);
    for (size_t i = 0; i < u.calls.len; i++) {
        const ch_entry_helper *h = ch_entry_helper_named(k->e, u.calls.items[i]);
        u.device_ok &= h && h->device_ok; /* a callee without a visible definition, or impure */
    }
    ch_entry *e = k->e;
    e->helpers = ch_xrealloc(e->helpers, (e->n_helpers + 1) * sizeof *e->helpers);
    ch_entry_helper *h = &e->helpers[e->n_helpers++];
    h->name = clx_str(clang_getCursorSpelling(def));
    char *text = pretty(def);
    h->definition_at = u.typedefs.len;
    ch_strbuf_adds(&u.typedefs, text);
    free(text);
    h->source = ch_strbuf_detach(&u.typedefs);
    h->device_ok = u.device_ok;
    ch_strvec_free(&u.calls);
    ch_strvec_free(&u.typedef_names);
}

void clx_collect_helpers(CXTranslationUnit tu, CXCursor fn, CXCursor body, ch_entry *e)
{
    (void)tu;
    collect k;
    memset(&k, 0, sizeof k);
    k.entry_fn = fn;
    k.e = e;
    uses top = {fn, {0}, {0}, {0}, 1};
    ch_strvec_init(&top.calls);
    ch_strbuf_init(&top.typedefs);
    ch_strvec_init(&top.typedef_names);
    clang_visitChildren(body, visit_use, &top);
    add_callees(&k, body, &top.calls);
    ch_strvec_free(&top.calls);
    ch_strbuf_free(&top.typedefs);
    ch_strvec_free(&top.typedef_names);
}
