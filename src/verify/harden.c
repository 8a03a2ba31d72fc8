/* Hardening a candidate's source: every local starts written (ch/harden.h says why).
 *
 * libclang finds the locals (variables of automatic storage in the candidate's own text, not in
 * headers); the text is then changed by insertion only, `{}` right after a declarator that has no
 * initialiser, so the hardened text keeps every line and column before the insertion point.
 * Whether a declarator has an initialiser is read from the text after its name (and its array
 * bounds): `=`, `(` or `{` begin one; `,` or `;` end a declarator without one; `:` and `)` end a
 * range-for variable or a catch parameter, which their statement writes. Anything else, or a
 * local declared by a macro (no place in the text to insert at), is refused: what cannot be made
 * to start written cannot run.
 *
 * `{}` value-initialises: zero for scalars, pointers, arrays and aggregates, but only the
 * constructor for a class with a default constructor of its own. So a class or struct of the
 * candidate's own with such a constructor must write every member, in its initialiser list or by
 * a default member initialiser; classes of the toolkit's headers are trusted to. */
#include <assert.h>
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/harden.h"
#include "ch/scan.h"

typedef struct insertion {
    size_t at; /* byte offset in the source where "{}" goes */
} insertion;

typedef struct harden_ctx {
    CXTranslationUnit tu;
    const char *src;
    size_t len;
    insertion *ins;
    size_t n_ins, cap_ins;
    ch_strbuf *why;
    int refused;
    int scrub; /* declares __shared__ memory or has inline assembly (src/emit/scrub.c) */
} harden_ctx;

/* Appended to the hardened text of a candidate whose code, as the compiler sees it (macros
 * expanded, lines spliced), declares shared memory or has inline assembly (which may address
 * it without a declaration): the emitted unit then scrubs shared memory before each call
 * (ch_emit_needs_scrub finds the word in it). Decided here, on the parse, because the text
 * can hide the word (`__sha\<newline>red__`, token pasting, string literals joined in asm). */
static const char scrub_mark[] =
    "/* ch-cc: this candidate declares shared memory or has inline assembly: its unit zeroes "
    "shared memory before each call (src/emit/scrub.c) */\n";

static char *str_of(CXString s)
{
    char *r = ch_xstrdup(clang_getCString(s) ? clang_getCString(s) : "");
    clang_disposeString(s);
    return r;
}

/* The cursor's place in the candidate's text (the file parsed), or 0 when it is elsewhere (a
 * header) or its spelling is inside a macro (then *in_macro is set). */
static int place_of(CXCursor c, size_t *offset, unsigned *line, unsigned *col, int *in_macro)
{
    CXSourceLocation loc = clang_getCursorLocation(c);
    *in_macro = 0;
    CXFile ef, sf;
    unsigned eo = 0, so = 0;
    clang_getExpansionLocation(loc, &ef, line, col, &eo);
    /* a name a macro spelled reads as not from the main file: its expansion's place decides */
    CXTranslationUnit tu = clang_Cursor_getTranslationUnit(c);
    if (!ef || !clang_Location_isFromMainFile(clang_getLocation(tu, ef, *line, *col)))
        return 0;
    clang_getSpellingLocation(loc, &sf, NULL, NULL, &so);
    *offset = eo;
    *in_macro = eo != so || !clang_File_isEqual(ef, sf);
    return 1;
}

/* Past whitespace and comments from p. */
static size_t skip_blank(const char *s, size_t n, size_t p)
{
    while (p < n) {
        if (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r' || s[p] == '\f' ||
            s[p] == '\v') {
            p++;
        } else if (s[p] == '\\' && p + 1 < n && s[p + 1] == '\n') {
            p += 2;
        } else if (s[p] == '/' && p + 1 < n && s[p + 1] == '/') {
            while (p < n && s[p] != '\n')
                p++;
        } else if (s[p] == '/' && p + 1 < n && s[p + 1] == '*') {
            const char *end = strstr(s + p + 2, "*/");
            p = end ? (size_t)(end - s) + 2 : n;
        } else {
            break;
        }
    }
    return p;
}

/* Past a balanced [...] at p (p at '['); n when it does not close. */
static size_t skip_brackets(const char *s, size_t n, size_t p)
{
    int depth = 0;
    for (; p < n; p++) {
        if (s[p] == '[')
            depth++;
        else if (s[p] == ']' && --depth == 0)
            return p + 1;
    }
    return n;
}

/* Past a balanced (...) at p (p at '('); n when it does not close. */
static size_t skip_parens(const char *s, size_t n, size_t p)
{
    int depth = 0;
    for (; p < n; p++) {
        if (s[p] == '(')
            depth++;
        else if (s[p] == ')' && --depth == 0)
            return p + 1;
    }
    return n;
}

static void refuse(harden_ctx *x, unsigned line, unsigned col, const char *fmt, const char *name)
{
    if (x->refused)
        return;
    x->refused = 1;
    ch_strbuf_reset(x->why);
    ch_strbuf_addf(x->why, "line %u:%u: ", line, col);
    ch_strbuf_addf(x->why, fmt, name);
}

static void add_insertion(harden_ctx *x, size_t at)
{
    if (x->n_ins == x->cap_ins) {
        x->cap_ins = x->cap_ins ? 2 * x->cap_ins : 16;
        x->ins = ch_xrealloc(x->ins, x->cap_ins * sizeof *x->ins);
    }
    x->ins[x->n_ins++] = (insertion){at};
}

static int has_attr(CXCursor c, enum CXCursorKind kind);

static enum CXChildVisitResult find_attr(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (clang_getCursorKind(c) == *(enum CXCursorKind *)data) {
        *(enum CXCursorKind *)data = CXCursor_InvalidCode;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

static int has_attr(CXCursor c, enum CXCursorKind kind)
{
    enum CXCursorKind k = kind;
    clang_visitChildren(c, find_attr, &k);
    return k == CXCursor_InvalidCode;
}

/* A variable of automatic storage: a local, not static, extern or __shared__. */
static int automatic(CXCursor c)
{
    enum CX_StorageClass sc = clang_Cursor_getStorageClass(c);
    return !clang_Cursor_hasVarDeclGlobalStorage(c) && sc != CX_SC_Static && sc != CX_SC_Extern &&
           !has_attr(c, CXCursor_CUDASharedAttr);
}

static void local_var(harden_ctx *x, CXCursor c, CXCursor parent)
{
    size_t at;
    unsigned line = 0, col = 0;
    int in_macro;
    if (!place_of(c, &at, &line, &col, &in_macro) || !automatic(c))
        return;
    char *name = str_of(clang_getCursorSpelling(c));
    size_t len = strlen(name);
    if (!len) {
        free(name);
        return; /* an unnamed parameter-like declaration has nothing to read */
    }
    if (in_macro || at + len > x->len || strncmp(x->src + at, name, len) != 0) {
        if (clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(c)))
            refuse(x, line, col,
                   "the local '%s' is declared by a macro without an initialiser: device memory "
                   "is not cleared between launches, so write the declaration out with an "
                   "initialiser",
                   name);
        free(name);
        return;
    }
    /* the rest of the declarator: array bounds, and in a parenthesised one (`T (*p)[4]`,
     * `T (*f)(int)`) its closing parentheses and a function pointer's parameters; `end` is
     * right after its last token, where `{}` goes */
    size_t end = at + len, p = skip_blank(x->src, x->len, end);
    int closed = 0;
    for (;;) {
        if (p < x->len && x->src[p] == '[') {
            end = skip_brackets(x->src, x->len, p);
        } else if (p < x->len && x->src[p] == ')' &&
                   clang_getCursorKind(parent) != CXCursor_CXXCatchStmt) {
            end = p + 1;
            closed = 1;
        } else if (closed && p < x->len && x->src[p] == '(') {
            end = skip_parens(x->src, x->len, p);
        } else {
            break;
        }
        p = skip_blank(x->src, x->len, end);
    }
    char next = p < x->len ? x->src[p] : '\0';
    if (next == ',' || next == ';') {
        add_insertion(x, end);
    } else if (next == ')' && clang_getCursorKind(parent) == CXCursor_CXXCatchStmt) {
        /* a catch parameter: the throw writes it */
    } else if (next == '\0' || !strchr("=({:", next)) {
        refuse(x, line, col,
               "cannot tell whether the local '%s' has an initialiser (what follows its "
               "declarator is neither an initialiser nor ',' or ';'): write one",
               name);
    }
    free(name);
}

typedef struct ctor_scan {
    char **inited; /* members its initialiser list writes */
    size_t n, cap;
    int pending; /* the last of them awaits its initialiser's expressions */
    int has_body;
} ctor_scan;

/* Whether an initialiser expression reads the member named by data (a char *). */
static enum CXChildVisitResult reads_member(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    const char **member = data;
    if (clang_getCursorKind(c) == CXCursor_MemberRefExpr) {
        char *name = str_of(clang_getCursorSpelling(c));
        int same = strcmp(name, *member) == 0;
        free(name);
        if (same) {
            *member = NULL; /* found */
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static enum CXChildVisitResult ctor_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    ctor_scan *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (clang_isExpression(k) && s->pending) {
        /* the initialiser of the member just listed: `c(c)` reads the member it writes, which
         * leaves it as unwritten as no initialiser would (attacks8 #05) */
        const char *member = s->inited[s->n - 1];
        clang_visitChildren(c, reads_member, &member);
        int self = member == NULL;
        if (!self && k == CXCursor_MemberRefExpr) {
            char *name = str_of(clang_getCursorSpelling(c));
            self = strcmp(name, s->inited[s->n - 1]) == 0;
            free(name);
        }
        if (self) {
            free(s->inited[--s->n]);
            s->pending = 0;
        }
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_MemberRef) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 8;
            s->inited = ch_xrealloc(s->inited, s->cap * sizeof *s->inited);
        }
        s->inited[s->n++] = str_of(clang_getCursorSpelling(c));
        s->pending = 1;
    } else if (k == CXCursor_CompoundStmt) {
        s->has_body = 1;
        s->pending = 0;
    }
    return CXChildVisit_Continue;
}

typedef struct record_scan {
    harden_ctx *x;
    CXCursor record;
    const ctor_scan *ctor; /* NULL while looking for the constructor */
    CXCursor ctor_cursor;
    int found;
} record_scan;

/* A member declared with a default member initialiser (`int v = 0;`, `int v{};`): read from the
 * text after its name and array bounds, since the bound of `int v[32];` is an expression too. */
static int member_initialised(const harden_ctx *x, CXCursor field)
{
    size_t at;
    unsigned line, col;
    int in_macro;
    if (!place_of(field, &at, &line, &col, &in_macro) || in_macro)
        return 0; /* a member a macro declares: only the constructor's list counts */
    char *name = str_of(clang_getCursorSpelling(field));
    size_t len = strlen(name);
    int inited = 0;
    if (len && at + len <= x->len && strncmp(x->src + at, name, len) == 0) {
        size_t p = skip_blank(x->src, x->len, at + len);
        while (p < x->len && x->src[p] == '[')
            p = skip_blank(x->src, x->len, skip_brackets(x->src, x->len, p));
        inited = p < x->len && (x->src[p] == '=' || x->src[p] == '{');
    }
    free(name);
    return inited;
}

static enum CXChildVisitResult record_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    record_scan *r = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (!r->ctor) {
        /* declared here, perhaps defined outside the class; one never defined is never run */
        CXCursor def =
            k == CXCursor_Constructor ? clang_getCursorDefinition(c) : clang_getNullCursor();
        if (!clang_Cursor_isNull(def) && clang_CXXConstructor_isDefaultConstructor(c) &&
            !clang_CXXMethod_isDefaulted(c)) {
            r->ctor_cursor = def;
            r->found = 1;
            return CXChildVisit_Break;
        }
        return CXChildVisit_Continue;
    }
    if (k == CXCursor_CXXBaseSpecifier) {
        /* a base's members: the constructor would have to write them too; too much to follow */
        size_t at;
        unsigned line = 0, col = 0;
        int in_macro;
        place_of(r->ctor_cursor, &at, &line, &col, &in_macro);
        char *what = str_of(clang_getCursorSpelling(r->record));
        refuse(r->x, line, col,
               "'%s' has a base class and a default constructor of its own, which may leave the "
               "base's members unwritten: drop the constructor and initialise members where they "
               "are declared",
               what);
        free(what);
        return CXChildVisit_Continue;
    }
    if (k != CXCursor_FieldDecl)
        return CXChildVisit_Continue;
    char *field = str_of(clang_getCursorSpelling(c));
    int written = 0;
    for (size_t i = 0; i < r->ctor->n && !written; i++)
        written = strcmp(r->ctor->inited[i], field) == 0;
    if (!written)
        written = member_initialised(r->x, c);
    if (!written) {
        size_t at;
        unsigned line = 0, col = 0;
        int in_macro;
        place_of(r->ctor_cursor, &at, &line, &col, &in_macro);
        char *what = str_of(clang_getCursorSpelling(r->record));
        char *msg = ch_xasprintf("the default constructor of '%s' leaves its member '%%s' "
                                 "unwritten, so a local of this type would start with what an "
                                 "earlier launch left: initialise every member in the "
                                 "constructor's initialiser list or where it is declared",
                                 what);
        refuse(r->x, line, col, msg, field);
        free(msg);
        free(what);
    }
    free(field);
    return CXChildVisit_Continue;
}

/* A class of the candidate's with a default constructor of its own must write every member. */
static void record(harden_ctx *x, CXCursor c)
{
    size_t at;
    unsigned line, col;
    int in_macro;
    if (!clang_isCursorDefinition(c) || !place_of(c, &at, &line, &col, &in_macro))
        return;
    record_scan r = {.x = x, .record = c};
    clang_visitChildren(c, record_child, &r);
    if (!r.found)
        return;
    ctor_scan s = {0};
    clang_visitChildren(r.ctor_cursor, ctor_child, &s);
    r.ctor = &s;
    clang_visitChildren(c, record_child, &r);
    for (size_t i = 0; i < s.n; i++)
        free(s.inited[i]);
    free(s.inited);
}

/* Memory from alloca has no declaration to give an initialiser: refused wherever it is. */
static void alloca_call(harden_ctx *x, CXCursor c)
{
    size_t at;
    unsigned line = 0, col = 0;
    int in_macro;
    if (!place_of(c, &at, &line, &col, &in_macro))
        return;
    char *name = str_of(clang_getCursorSpelling(c));
    if (strcmp(name, "alloca") == 0 || strncmp(name, "__builtin_alloca", 16) == 0)
        refuse(x, line, col,
               "'%s' gives memory that no declaration names, so it cannot be made to start "
               "written (device memory is not cleared between launches): use a local array",
               name);
    free(name);
}

/* c is the candidate's own code (its expansion is in the file parsed), macros included */
static int in_candidate(CXCursor c)
{
    size_t at;
    unsigned line, col;
    int in_macro;
    return place_of(c, &at, &line, &col, &in_macro);
}

static enum CXChildVisitResult walk(CXCursor c, CXCursor parent, CXClientData data)
{
    harden_ctx *x = data;
    switch (clang_getCursorKind(c)) {
    case CXCursor_VarDecl:
        if (in_candidate(c) && has_attr(c, CXCursor_CUDASharedAttr))
            x->scrub = 1;
        local_var(x, c, parent);
        break;
    case CXCursor_AsmStmt:
        if (in_candidate(c))
            x->scrub = 1;
        break;
    case CXCursor_CallExpr:
        alloca_call(x, c);
        break;
    case CXCursor_UnionDecl:
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
    case CXCursor_ClassTemplate:
        record(x, c);
        break;
    default:
        break;
    }
    return x->refused ? CXChildVisit_Break : CXChildVisit_Recurse;
}

static int by_offset(const void *a, const void *b)
{
    size_t p = ((const insertion *)a)->at, q = ((const insertion *)b)->at;
    return p < q ? -1 : p > q;
}

static char *apply(const harden_ctx *x)
{
    if (x->n_ins)
        qsort(x->ins, x->n_ins, sizeof *x->ins, by_offset);
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t copied = 0;
    for (size_t i = 0; i < x->n_ins; i++) {
        if (i && x->ins[i].at == x->ins[i - 1].at)
            continue; /* a template's declaration visited twice */
        assert(x->ins[i].at >= copied && x->ins[i].at <= x->len);
        ch_strbuf_add(&out, x->src + copied, x->ins[i].at - copied);
        ch_strbuf_adds(&out, "{}");
        copied = x->ins[i].at;
    }
    ch_strbuf_add(&out, x->src + copied, x->len - copied);
    if (x->scrub && !strstr(x->src, scrub_mark)) {
        if (x->len && x->src[x->len - 1] != '\n')
            ch_strbuf_addc(&out, '\n');
        ch_strbuf_adds(&out, scrub_mark);
    }
    return ch_strbuf_detach(&out);
}

static void parse_args(ch_strvec *args, char **tmpdir)
{
    ch_error err = {0};
    *tmpdir = ch_scan_cuda_host_args(args, &err);
    ch_strvec_push(args, "-std=c++17");
    const char *cuda = getenv("CUDA_HOME");
    char *cccl = ch_xasprintf("%s/include/cccl", cuda && *cuda ? cuda : "/usr/local/cuda");
    if (ch_is_dir(cccl)) {
        ch_strvec_push(args, "-isystem");
        ch_strvec_push(args, cccl);
    }
    free(cccl);
}

int ch_harden_locals(const char *src, char **out, ch_strbuf *why)
{
    *out = NULL;
    ch_strvec args;
    ch_strvec_init(&args);
    char *tmpdir = NULL;
    parse_args(&args, &tmpdir);
    const char *path = "ch-cc-candidate.cu";
    struct CXUnsavedFile unsaved = {path, src, (unsigned long)strlen(src)};
    CXIndex idx = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode rc =
        clang_parseTranslationUnit2(idx, path, (const char *const *)args.items, (int)args.len,
                                    &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
    int result;
    if (rc != CXError_Success || !tu) {
        ch_strbuf_reset(why);
        ch_strbuf_addf(why, "the candidate could not be parsed to harden it (libclang error %d)",
                       (int)rc);
        result = -1;
    } else {
        harden_ctx x = {.tu = tu, .src = src, .len = strlen(src), .why = why};
        clang_visitChildren(clang_getTranslationUnitCursor(tu), walk, &x);
        result = x.refused;
        if (!x.refused)
            *out = apply(&x);
        free(x.ins);
    }
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    ch_strvec_free(&args);
    if (tmpdir) {
        ch_remove_tree(tmpdir, NULL);
        free(tmpdir);
    }
    return result;
}
