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
#include <ctype.h>
#include <clang-c/Index.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/fsutil.h"
#include "ch/harden.h"
#include "ch/host_subset.h"
#include "ch/scan.h"
#include "ch/verify.h"

typedef struct insertion {
    size_t at;        /* byte offset in the source where text goes */
    const char *text; /* "{}", ALLOC_PREFIX or the allocation prelude */
    int first;        /* goes before the others at the same offset (the prelude) */
} insertion;

/* An allocation the candidate names is renamed to the prelude's wrapper of it: the prefix goes
 * right before the name (zeroed_alloc.cu). */
#define ALLOC_PREFIX "ch_z_"
static const char *const allocators[] = {
    "cudaMalloc",      "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D",
    "cudaMallocAsync", "cudaMallocHost",    "cudaHostAlloc",   NULL};

extern const struct ch_embedded_file ch_template_files[];

typedef struct harden_ctx {
    CXTranslationUnit tu;
    CXFile main; /* the candidate's text (clang_getLocation maps a place in a macro's argument
                  * to the macro's use, so places are compared by file) */
    const char *src;
    size_t len;
    insertion *ins;
    size_t n_ins, cap_ins;
    ch_strbuf *why;
    int refused;
    int scrub;  /* declares __shared__ memory or has inline assembly (src/emit/scrub.c) */
    int zeroes; /* an allocation was renamed: the prelude goes in */
    /* the prelude's bytes in src when src was hardened before: its own calls stay as they are */
    size_t prelude_at, prelude_end;
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

static void add_text(harden_ctx *x, size_t at, const char *text, int first)
{
    if (x->n_ins == x->cap_ins) {
        x->cap_ins = x->cap_ins ? 2 * x->cap_ins : 16;
        x->ins = ch_xrealloc(x->ins, x->cap_ins * sizeof *x->ins);
    }
    x->ins[x->n_ins++] = (insertion){at, text, first};
}

static void add_insertion(harden_ctx *x, size_t at)
{
    add_text(x, at, "{}", 0);
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

static int is_allocator(const char *name)
{
    for (size_t i = 0; allocators[i]; i++)
        if (strcmp(allocators[i], name) == 0)
            return 1;
    return 0;
}

/* A reference to a CUDA allocation function (a call, or its name taken) in the candidate's own
 * code: the wrapper's prefix goes before the name where it is spelled, in the candidate's text
 * (a macro of the candidate's, or a macro's argument, is renamed where it is written). A name a
 * header's macro or token pasting spells has no place to rename: refused. */
static void allocator_ref(harden_ctx *x, CXCursor c)
{
    char *name = str_of(clang_getCursorSpelling(c));
    CXCursor d = clang_getCursorKind(c) == CXCursor_OverloadedDeclRef
                     ? clang_getOverloadedDecl(c, 0)
                     : clang_getCursorReferenced(c);
    size_t at, len = strlen(name);
    unsigned line = 0, col = 0;
    int in_macro;
    /* the toolkit's declaration, not a function of the candidate's own of that name */
    int toolkit =
        !clang_Cursor_isNull(d) && !clang_Location_isFromMainFile(clang_getCursorLocation(d));
    if (toolkit && ch_object_allocator_unzeroed(name) && place_of(c, &at, &line, &col, &in_macro)) {
        refuse(x, line, col,
               "'%s' allocates a CUDA array, which cannot be made to start zeroed (an allocator "
               "hands back blocks with what an earlier call left in them, and an array's layout "
               "is the driver's): allocate with cudaMalloc or cudaMallocPitch (a texture object "
               "can read pitched memory)",
               name);
        free(name);
        return;
    }
    if (!is_allocator(name) || !toolkit || !place_of(c, &at, &line, &col, &in_macro)) {
        free(name);
        return;
    }
    /* the name is renamed where the candidate wrote it: the file location, which is the name's
     * own place outside macros, the argument's place for a token of a macro's argument, and
     * the macro's use for a token of a macro's body (whose text there is not the name, so
     * refused below) */
    (void)in_macro;
    CXFile ff;
    unsigned fo = 0;
    clang_getFileLocation(clang_getCursorLocation(c), &ff, NULL, NULL, &fo);
    at = ff && x->main && clang_File_isEqual(ff, x->main) ? fo : x->len + 1;
    if (at >= x->prelude_at && at < x->prelude_end) {
        free(name);
        return; /* the prelude's own call, in a text hardened before */
    }
    if (at + len > x->len || strncmp(x->src + at, name, len) != 0)
        refuse(x, line, col,
               "the allocation '%s' is spelled by a macro or by token pasting, so the memory "
               "it gives cannot be made to start zeroed (an allocator hands back blocks with "
               "what an earlier call left in them): call it by its name where the call is (a "
               "macro's argument is fine)",
               name);
    else
        add_text(x, at, ALLOC_PREFIX, 0);
    x->zeroes = 1;
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
    case CXCursor_DeclRefExpr:
    case CXCursor_OverloadedDeclRef:
        allocator_ref(x, c);
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
    const insertion *p = a, *q = b;
    if (p->at != q->at)
        return p->at < q->at ? -1 : 1;
    return q->first - p->first;
}

/* Where the prelude goes: before the first token of code that is not a preprocessor directive,
 * at namespace scope (nothing precedes it but directives and comments), so that it stays on
 * that token's line and every line keeps its number. The end of the text when there is none. */
static size_t first_code(const char *src, size_t len)
{
    size_t p = 0;
    for (;;) {
        p = skip_blank(src, len, p);
        if (p >= len || src[p] != '#')
            return p;
        while (p < len && src[p] != '\n') /* the directive, with its continued lines */
            p += src[p] == '\\' && p + 1 < len && src[p + 1] == '\n' ? 2 : 1;
    }
}

/* The prelude of zeroed_alloc.cu on one line (its comments are block comments, it has no
 * directive), so that inserting it moves no line; owned by the caller. */
static char *prelude_text(void)
{
    const char *t = ch_embedded_text(ch_template_files, "zeroed_alloc.cu");
    assert(t && !strstr(t, "//") && !strchr(t, '#'));
    char *one = ch_xasprintf("%s ", t);
    for (char *q = one; *q; q++)
        if (*q == '\n')
            *q = ' ';
    return one;
}

/* A name of an allocator in the text, as a word, outside comments, literals and the prelude:
 * one the parse did not see (a text it could not read in full), which would not be zeroed. Its
 * offset, or len when none. */
static size_t unrenamed_allocator(const char *t, size_t len, size_t pre_at, size_t pre_end)
{
    for (size_t p = 0; p < len;) {
        const char *q = ch_c_skip_noncode(t + p);
        if (q != t + p) {
            p = (size_t)(q - t);
            continue;
        }
        if (!(isalpha((unsigned char)t[p]) || t[p] == '_')) {
            p++;
            continue;
        }
        size_t e = p;
        while (e < len && (isalnum((unsigned char)t[e]) || t[e] == '_'))
            e++;
        char word[32];
        size_t n = e - p < sizeof word - 1 ? e - p : sizeof word - 1;
        memcpy(word, t + p, n);
        word[n] = '\0';
        if ((p < pre_at || p >= pre_end) && e - p < sizeof word - 1 &&
            (is_allocator(word) || ch_object_allocator_unzeroed(word)))
            return p;
        p = e;
    }
    return len;
}

static char *apply(const harden_ctx *x)
{
    if (x->n_ins)
        qsort(x->ins, x->n_ins, sizeof *x->ins, by_offset);
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t copied = 0;
    for (size_t i = 0; i < x->n_ins; i++) {
        if (i && x->ins[i].at == x->ins[i - 1].at && x->ins[i].text == x->ins[i - 1].text)
            continue; /* a template's declaration visited twice, a macro of the candidate's
                       * used twice */
        assert(x->ins[i].at >= copied && x->ins[i].at <= x->len);
        ch_strbuf_add(&out, x->src + copied, x->ins[i].at - copied);
        ch_strbuf_adds(&out, x->ins[i].text);
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

/* The prelude's bytes [*at, *end) in text (len bytes), both len + 1 when it has none. Returns
 * whether it has it. */
static int prelude_span(const char *text, size_t len, const char *prelude, size_t *at, size_t *end)
{
    const char *in = strstr(text, prelude);
    *at = in ? (size_t)(in - text) : len + 1;
    *end = in ? *at + strlen(prelude) : len + 1;
    return in != NULL;
}

/* The check after the renaming: no allocator's name is left outside the prelude (fail closed
 * where the parse missed a call). 1 with *out freed and why set when one is. */
static int refuse_unrenamed(char **out, const char *prelude, ch_strbuf *why)
{
    if (!*out)
        return 0;
    size_t len = strlen(*out), pre_at, pre_end;
    prelude_span(*out, len, prelude, &pre_at, &pre_end);
    size_t at = unrenamed_allocator(*out, len, pre_at, pre_end);
    if (at == len)
        return 0;
    unsigned line = 1;
    for (size_t i = 0; i < at; i++)
        line += (*out)[i] == '\n';
    ch_strbuf_reset(why);
    ch_strbuf_addf(why,
                   "line %u: an allocation the parse of the candidate could not follow: the memory "
                   "it gives cannot be made to start zeroed (an allocator hands back blocks with "
                   "what an earlier call left in them)",
                   line);
    free(*out);
    *out = NULL;
    return 1;
}

int ch_harden_locals(const char *src, char **out, ch_strbuf *why)
{
    *out = NULL;
    ch_strvec args;
    ch_strvec_init(&args);
    char *tmpdir = NULL;
    parse_args(&args, &tmpdir);
    const char *path = "ch-cc-candidate.cu";
    /* the same text as the static check parses (loop hints' arguments blanked: every loop
     * walked); the offsets found in it are the candidate's own */
    char *parsed = ch_subset_parse_text(src);
    struct CXUnsavedFile unsaved = {path, parsed, (unsigned long)strlen(parsed)};
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
        x.main = clang_getFile(tu, path);
        char *prelude = prelude_text();
        int had = prelude_span(src, x.len, prelude, &x.prelude_at, &x.prelude_end);
        clang_visitChildren(clang_getTranslationUnitCursor(tu), walk, &x);
        if (x.zeroes && !had && !x.refused)
            add_text(&x, first_code(src, x.len), prelude, 1);
        result = x.refused;
        if (!x.refused)
            *out = apply(&x);
        result = result || refuse_unrenamed(out, prelude, why);
        free(prelude);
        free(x.ins);
    }
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(idx);
    free(parsed);
    ch_strvec_free(&args);
    if (tmpdir) {
        ch_remove_tree(tmpdir, NULL);
        free(tmpdir);
    }
    return result;
}
