/* ch_scan_file: parses a source file with libclang and turns each `#pragma harness` (found in
 * the text: libclang drops unknown pragmas) or HARNESS annotate attribute into a ch_entry.
 * Invariants: entries come out in source order, every location is the expansion location in
 * the main file, and any problem with an annotation is a located error, never a skip. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/scan.h"
#include "ch/strbuf.h"
#include "clx.h"

#define ATTR_PREFIX "harness:"
#define ATTR_SEP    '\x01'

/* A top-level declaration of the main file, in source order. */
typedef struct top_decl {
    CXCursor c;
    size_t offset;
} top_decl;

typedef struct decl_list {
    top_decl *v;
    size_t n;
} decl_list;

/* What the whole scan of one file shares. The preprocessed copy of the file (expand.c) is made
 * and parsed at most once, for the first entry that needs it, and kept for the others. */
typedef struct scan_ctx {
    const char *path;
    const char *text; /* the file as read once by the caller (libclang and -E take it from here) */
    size_t len;
    ch_lang lang;
    char *const *clang_args;
    const ch_pragma_loc *pragmas; /* the file's pragma lines, located by the caller or here */
    size_t n_pragmas;
    int expand_tried;
    char *expand_dir; /* holds the preprocessed copy */
    CXIndex expand_index;
    CXTranslationUnit expand_tu; /* NULL when preprocessing or parsing failed */
    unsigned *expand_lines;      /* its lines -> the user's (clx_expanded_lines) */
    size_t n_expand_lines;
} scan_ctx;

/* One annotation (pragma or attribute) bound to a function. */
typedef struct annot {
    ch_pragma p;
    unsigned line, col;
    CXCursor fn;
} annot;

static enum CXChildVisitResult collect_top(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    decl_list *l = data;
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    if (c.kind == CXCursor_LinkageSpec || c.kind == CXCursor_Namespace)
        return CXChildVisit_Recurse;
    l->v = ch_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    l->v[l->n++] = (top_decl){c, clx_extent_begin(c).offset};
    return CXChildVisit_Continue;
}

static int is_function(CXCursor c)
{
    return c.kind == CXCursor_FunctionDecl;
}

/* The definition of fn when the main file has one (a pragma on a prototype still gets the
 * body), else fn itself. */
static CXCursor definition_of(CXCursor fn)
{
    CXCursor d = clang_getCursorDefinition(fn);
    if (!clang_Cursor_isNull(d) && clang_Location_isFromMainFile(clang_getCursorLocation(d)))
        return d;
    return fn;
}

/* --- parameters --- */

static int word_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Appends one dimension's expression (already printed by clang from the AST, so macros and
 * typedefs are expanded) to p->dims, simplified when it is a polynomial. */
static void push_dim(ch_param *p, const char *expr)
{
    p->dims = ch_xrealloc(p->dims, (p->ndims + 1) * sizeof *p->dims);
    char *simple = expr[0] ? ch_poly_simplify(expr) : NULL;
    p->dims[p->ndims++] = simple ? simple : ch_xstrdup(expr);
}

/* Skips the qualifiers C99 allows inside a parameter's outermost brackets
 * (`double A[static restrict const n]`). */
static const char *skip_dim_qualifiers(const char *s)
{
    static const char *const quals[] = {"static", "restrict", "const", "volatile", NULL};
    for (;;) {
        while (*s == ' ')
            s++;
        size_t i = 0;
        for (; quals[i]; i++) {
            size_t n = strlen(quals[i]);
            if (strncmp(s, quals[i], n) == 0 && !word_char(s[n]))
                break;
        }
        if (!quals[i])
            return s;
        s += strlen(quals[i]);
    }
}

/* The dimensions of a parameter's type, outermost first, from the spelling clang prints for the
 * type as declared ("double[n][m]", "const float[static 4][12]", "double (*)[m]"). That
 * spelling comes from the AST, not from the tokens, so declarators written through macros
 * (PolyBench's `POLYBENCH_2D(A,N,M,n,m)`), typedef'd arrays and macro extents come out as C
 * (libclang 14 keeps the declared, undecayed type of a parameter). A pointer to
 * an array has an unsized outermost dimension (""). */
static void array_dims(CXType declared, ch_param *p)
{
    /* canonical: a typedef'd array (`typedef float vec[8]`) shows its brackets */
    CXType t = clang_getCanonicalType(declared);
    char *spelled = clx_str(clang_getTypeSpelling(t));
    const char *s = spelled;
    if (t.kind == CXType_Pointer) {
        push_dim(p, "");
        const char *close = strstr(s, "(*");
        s = close ? strchr(close, ')') : NULL;
        s = s ? s + 1 : spelled + strlen(spelled);
    } else {
        s = strchr(s, '[');
        s = s ? s : spelled + strlen(spelled);
    }
    ch_strbuf dim;
    ch_strbuf_init(&dim);
    int depth = 0;
    for (; *s; s++) {
        if (*s == '[' && depth++ == 0) {
            ch_strbuf_reset(&dim);
            s = skip_dim_qualifiers(s + 1) - 1;
        } else if (*s == ']' && --depth == 0) {
            while (dim.len && dim.data[dim.len - 1] == ' ')
                dim.data[--dim.len] = '\0';
            push_dim(p, dim.data);
        } else if (depth > 0) {
            ch_strbuf_addc(&dim, *s);
        }
    }
    ch_strbuf_free(&dim);
    free(spelled);
}

static int param_fail(ch_error *err, const char *file, CXCursor parm, const char *name,
                      const char *type)
{
    clx_loc l = clx_cursor_loc(parm);
    return ch_error_at(err, file, l.line, l.col,
                       "unsupported type '%s' of harness parameter '%s'; use a scalar (int, long, "
                       "size_t, float, double, ...), a pointer to one, or a C99 array such as "
                       "double A[n][m]",
                       type, name);
}

static int fill_param(CXTranslationUnit tu, const char *file, CXCursor parm, ch_param *p,
                      ch_error *err)
{
    p->name = clx_str(clang_getCursorSpelling(parm));
    CXType t = clang_getCanonicalType(clang_getCursorType(parm));
    char *spelled = clx_str(clang_getTypeSpelling(clang_getCursorType(parm)));
    int rc = 0;
    if (t.kind != CXType_Pointer && t.kind != CXType_ConstantArray &&
        t.kind != CXType_IncompleteArray && t.kind != CXType_VariableArray) {
        p->role = CH_ROLE_SCALAR;
        p->elem = clx_scalar(t);
        if (p->elem == CH_T_UNKNOWN || p->elem == CH_T_VOID)
            rc = param_fail(err, file, parm, p->name, spelled);
        else
            p->type = ch_xstrdup(ch_scalar_name(p->elem));
        free(spelled);
        return rc;
    }
    p->is_restrict = t.kind == CXType_Pointer && clang_isRestrictQualifiedType(t);
    CXType el = t.kind == CXType_Pointer ? clang_getPointeeType(t) : clang_getArrayElementType(t);
    int nested = 0;
    /* a canonical array type carries its elements' qualifiers on itself */
    p->is_const = clang_isConstQualifiedType(el) ||
                  (t.kind != CXType_Pointer && clang_isConstQualifiedType(t));
    while (el.kind == CXType_ConstantArray || el.kind == CXType_VariableArray ||
           el.kind == CXType_IncompleteArray) {
        el = clang_getArrayElementType(el);
        p->is_const |= clang_isConstQualifiedType(el);
        nested++;
    }
    el = clang_getCanonicalType(el);
    p->is_const |= clang_isConstQualifiedType(el);
    p->elem = clx_scalar(el);
    if (p->elem == CH_T_UNKNOWN || p->elem == CH_T_VOID) {
        rc = param_fail(err, file, parm, p->name, spelled);
        free(spelled);
        return rc;
    }
    free(spelled);
    if (nested > 0 || t.kind != CXType_Pointer)
        array_dims(clang_getCursorType(parm), p);
    const char *cq = p->is_const ? "const " : "";
    const char *en = ch_scalar_name(p->elem);
    if (nested > 0 || t.kind != CXType_Pointer || p->ndims > 0) {
        p->role = CH_ROLE_ARRAY;
        ch_strbuf sb;
        ch_strbuf_init(&sb);
        ch_strbuf_addf(&sb, "%s%s ", cq, en);
        for (size_t i = 0; i < p->ndims; i++)
            ch_strbuf_addf(&sb, "[%s]", p->dims[i]);
        p->type = ch_strbuf_detach(&sb);
    } else {
        p->role = CH_ROLE_POINTER;
        p->type = ch_xasprintf("%s%s *%s", cq, en, p->is_restrict ? "restrict" : "");
    }
    return 0;
}

static char *make_signature(const ch_entry *e)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "void %s(", e->name);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (i)
            ch_strbuf_adds(&sb, ", ");
        if (p->role == CH_ROLE_ARRAY) {
            const char *br = strchr(p->type, '[');
            size_t head = br ? (size_t)(br - p->type) : strlen(p->type);
            ch_strbuf_add(&sb, p->type, head);
            ch_strbuf_addf(&sb, "%s%s", p->name, br ? br : "");
        } else if (p->type[strlen(p->type) - 1] == '*') {
            ch_strbuf_addf(&sb, "%s%s", p->type, p->name);
        } else {
            ch_strbuf_addf(&sb, "%s %s", p->type, p->name);
        }
    }
    ch_strbuf_adds(&sb, e->n_params ? ")" : "void)");
    return ch_strbuf_detach(&sb);
}

/* --- the body's canonical token stream (for the cache key) --- */

static int punct3(const char *s)
{
    static const char *const ops[] = {"<<=", ">>=", "...", "->", "++", "--", "<<", ">>",
                                      "<=",  ">=",  "==",  "!=", "&&", "||", "+=", "-=",
                                      "*=",  "/=",  "%=",  "&=", "|=", "^=", NULL};
    for (size_t i = 0; ops[i]; i++)
        if (strncmp(s, ops[i], strlen(ops[i])) == 0)
            return (int)strlen(ops[i]);
    return 1;
}

/* Re-tokenises the printed IR: C tokens joined by one space. */
static char *token_stream(const ch_ir *body)
{
    ch_strbuf printed, out;
    ch_strbuf_init(&printed);
    ch_strbuf_init(&out);
    ch_ir_print(&printed, body, 0, NULL, NULL);
    for (const char *s = printed.data; *s;) {
        if (*s == ' ' || *s == '\n' || *s == '\t') {
            s++;
            continue;
        }
        size_t n = 1;
        if (word_char(*s) || *s == '.') {
            while (word_char(s[n]) || s[n] == '.' ||
                   ((s[n] == '+' || s[n] == '-') && (s[n - 1] == 'e' || s[n - 1] == 'E') &&
                    s[0] >= '0' && s[0] <= '9'))
                n++;
        } else if (*s == '"') {
            while (s[n] && s[n] != '"')
                n += s[n] == '\\' && s[n + 1] ? 2 : 1;
            n += s[n] ? 1 : 0;
        } else {
            n = (size_t)punct3(s);
        }
        if (out.len)
            ch_strbuf_addc(&out, ' ');
        ch_strbuf_add(&out, s, n);
        s += n;
    }
    ch_strbuf_free(&printed);
    return ch_strbuf_detach(&out);
}

/* --- entries --- */

static enum CXChildVisitResult find_body(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    if (c.kind == CXCursor_CompoundStmt) {
        *(CXCursor *)data = c;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

static int check_names(const ch_entry *e, const ch_pragma *p, ch_error *err)
{
    for (size_t i = 0; i < p->n_names; i++) {
        const ch_pragma_name *nm = &p->names[i];
        const ch_param *par = ch_entry_param(e, nm->name);
        int scalar_clause = strcmp(nm->clause, "tune") == 0;
        if (par && (par->role == CH_ROLE_SCALAR) == scalar_clause)
            continue;
        ch_strbuf names;
        ch_strbuf_init(&names);
        for (size_t k = 0; k < e->n_params; k++)
            if ((e->params[k].role == CH_ROLE_SCALAR) == scalar_clause)
                ch_strbuf_addf(&names, "%s%s", names.len ? ", " : "", e->params[k].name);
        ch_error_at(err, e->file, nm->line, nm->col,
                    "'%s' in %s() names no %s parameter of '%s'; use one of: %s", nm->name,
                    nm->clause, scalar_clause ? "scalar" : "pointer or array", e->name,
                    names.len ? names.data : "(none)");
        ch_strbuf_free(&names);
        return -1;
    }
    return 0;
}

static ch_ir *expanded_body(scan_ctx *sc, const char *fn_name);
static int check_sample(CXTranslationUnit tu, ch_entry *e, ch_error *err);

static size_t count_opaque(const ch_ir *n)
{
    if (!n)
        return 0;
    size_t c = n->kind == CH_IR_OPAQUE;
    for (size_t i = 0; i < n->nkids; i++)
        c += count_opaque(n->kids[i]);
    return c;
}

static int build_entry(CXTranslationUnit tu, scan_ctx *sc, annot *a, ch_entry *e, ch_error *err)
{
    const char *path = sc->path;
    CXCursor decl = a->fn, def = definition_of(a->fn);
    e->name = clx_str(clang_getCursorSpelling(decl));
    e->file = ch_xstrdup(path);
    e->line = a->line;
    e->col = a->col;
    clx_loc fl = clx_cursor_loc(def);
    e->fn_line = fl.line;
    e->fn_col = fl.col;
    e->name_offset = fl.offset;
    e->is_cuda = sc->lang == CH_LANG_CU;
    e->is_static = clang_Cursor_getStorageClass(decl) == CX_SC_Static ||
                   clang_Cursor_getStorageClass(def) == CX_SC_Static;
    e->spec = a->p.spec ? ch_xstrdup(a->p.spec) : NULL;
    e->clauses_text = ch_xstrdup(a->p.clauses_text ? a->p.clauses_text : "");
    CXType rt = clang_getCanonicalType(clang_getResultType(clang_getCursorType(def)));
    e->return_type = clx_scalar(rt);
    if (rt.kind != CXType_Void) {
        char *s = clx_str(clang_getTypeSpelling(clang_getResultType(clang_getCursorType(def))));
        ch_error_at(err, path, a->line, a->col,
                    "harness function '%s' returns '%s'; it must return void (write results "
                    "through an out pointer)",
                    e->name, s);
        free(s);
        return -1;
    }
    int np = clang_Cursor_getNumArguments(def);
    e->params = ch_xcalloc((size_t)(np > 0 ? np : 1), sizeof *e->params);
    for (int i = 0; i < np; i++) {
        e->n_params++;
        if (fill_param(tu, path, clang_Cursor_getArgument(def, (unsigned)i), &e->params[i], err))
            return -1;
    }
    e->signature = make_signature(e);
    if (check_names(e, &a->p, err) != 0)
        return -1;
    ch_pragma_take_clauses(&a->p, &e->clauses);
    CXCursor body = clang_getNullCursor();
    if (clang_isCursorDefinition(def))
        clang_visitChildren(def, find_body, &body);
    e->has_body = !clang_Cursor_isNull(body);
    if (e->has_body) {
        clx_loc b = clx_extent_begin(body);
        e->body_begin = b.offset;
        e->body_end = clx_extent_end(body).offset;
        e->body_line = b.line;
        e->body_col = b.col;
        e->body = clx_build_body(tu, def, body);
        size_t opaque = count_opaque(e->body);
        ch_ir *expanded = opaque ? expanded_body(sc, e->name) : NULL;
        if (expanded && count_opaque(expanded) < opaque) {
            ch_ir_free(e->body);
            e->body = expanded;
        } else {
            ch_ir_free(expanded);
        }
        e->body_tokens = token_stream(e->body);
        clx_collect_helpers(tu, def, body, e);
    }
    e->kind = !e->has_body ? CH_KIND_SPEC_DECL : e->spec ? CH_KIND_SPEC_DEF : CH_KIND_C_DEF;
    if (e->kind == CH_KIND_SPEC_DECL && !e->spec)
        return ch_error_at(err, path, a->line, a->col,
                           "bare #pragma harness on the declaration of '%s': there is no body to "
                           "translate; add a spec (#pragma harness \"what it computes\") or a "
                           "definition",
                           e->name);
    if (ch_infer_entry(e, err) != 0)
        return -1;
    return check_sample(tu, e, err);
}

/* --- attributes --- */

typedef struct attr_find {
    CXCursor attr;
    int found;
} attr_find;

static enum CXChildVisitResult find_attr(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    attr_find *f = data;
    if (c.kind == CXCursor_AnnotateAttr) {
        char *s = clx_str(clang_getCursorSpelling(c));
        if (strncmp(s, ATTR_PREFIX, strlen(ATTR_PREFIX)) == 0) {
            f->attr = c;
            f->found++;
        }
        free(s);
    }
    return CXChildVisit_Continue;
}

/* The HARNESS(spec, clauses) attribute of fn, parsed into a; 0 none, 1 found, -1 error. */
static int attribute_of(CXCursor fn, const char *path, annot *a, ch_error *err)
{
    attr_find f = {clang_getNullCursor(), 0};
    clang_visitChildren(fn, find_attr, &f);
    if (!f.found)
        return 0;
    clx_loc l = clx_cursor_loc(f.attr);
    char *s = clx_str(clang_getCursorSpelling(f.attr));
    const char *spec = s + strlen(ATTR_PREFIX);
    const char *sep = strchr(spec, ATTR_SEP);
    if (!sep) {
        free(s);
        return ch_error_at(err, path, l.line, l.col,
                           "malformed harness annotation; use HARNESS(\"spec\", \"clauses\") "
                           "from <harness.h>");
    }
    if (ch_pragma_parse_clauses(sep + 1, strlen(sep + 1), path, l.line, l.col, &a->p, err)) {
        free(s);
        return -1;
    }
    if (sep > spec)
        a->p.spec = ch_xstrndup(spec, (size_t)(sep - spec));
    a->line = l.line;
    a->col = l.col;
    a->fn = fn;
    free(s);
    return 1;
}

/* --- parsing --- */

typedef struct parse_setup {
    ch_strvec args;
    char *tmpdir;
} parse_setup;

char *ch_scan_cuda_host_args(ch_strvec *args, ch_error *err)
{
    const char *cuda = getenv("CUDA_HOME");
    if (!cuda || !*cuda)
        cuda = "/usr/local/cuda";
    char *tmpdir = ch_make_temp_dir("scan", err);
    if (tmpdir) {
        /* clang 14's CUDA wrapper includes texture_fetch_functions.h, which CUDA 13 dropped */
        char *f = ch_path_join(tmpdir, "texture_fetch_functions.h");
        ch_write_file_atomic(f, "", 0, 0, err);
        free(f);
        ch_strvec_push_owned(args, ch_xasprintf("-I%s", tmpdir));
    }
    static const char *const cu[] = {"-x",
                                     "cuda",
                                     "--cuda-host-only",
                                     "-nocudalib",
                                     "--no-cuda-version-check",
                                     "-D__CLANG_CUDA_TEXTURE_INTRINSICS_H__",
                                     "-Wno-unknown-cuda-version",
                                     NULL};
    for (size_t i = 0; cu[i]; i++)
        ch_strvec_push(args, cu[i]);
    ch_strvec_push_owned(args, ch_xasprintf("--cuda-path=%s", cuda));
    return tmpdir;
}

static void add_cuda_args(parse_setup *s, ch_error *err)
{
    s->tmpdir = ch_scan_cuda_host_args(&s->args, err);
}

/* Without CUDA mode: the CUDA keywords defined away so the host-side C++ still parses. */
static void add_fallback_args(parse_setup *s)
{
    static const char *const fb[] = {"-x",
                                     "c++",
                                     "-D__global__=",
                                     "-D__device__=",
                                     "-D__host__=",
                                     "-D__shared__=",
                                     "-D__constant__=",
                                     "-D__managed__=",
                                     "-D__forceinline__=inline",
                                     "-D__launch_bounds__(...)=",
                                     "-D__restrict__=__restrict",
                                     "-D__CUDACC__=1",
                                     NULL};
    for (size_t i = 0; fb[i]; i++)
        ch_strvec_push(&s->args, fb[i]);
}

/* Parses path; text (len bytes, may be NULL: read by libclang) is its contents, handed to
 * libclang as an unsaved file so that a compile reads the user's file once. */
static CXTranslationUnit parse_tu(CXIndex idx, const char *path, const char *text, size_t len,
                                  ch_lang lang, char *const *clang_args, int fallback,
                                  parse_setup *s, ch_error *err)
{
    ch_strvec_init(&s->args);
    s->tmpdir = NULL;
    if (lang == CH_LANG_CU && !fallback)
        add_cuda_args(s, err);
    else if (lang == CH_LANG_CU)
        add_fallback_args(s);
    else {
        ch_strvec_push(&s->args, "-x");
        ch_strvec_push(&s->args, lang == CH_LANG_CXX ? "c++" : "c");
    }
    ch_strvec_push(&s->args, "-D__CH_CC_SCAN__=1");
    for (size_t i = 0; clang_args && clang_args[i]; i++)
        ch_strvec_push(&s->args, clang_args[i]);
    CXTranslationUnit tu = NULL;
    unsigned opts = CXTranslationUnit_KeepGoing;
    struct CXUnsavedFile file = {path, text, (unsigned long)len};
    enum CXErrorCode rc =
        clang_parseTranslationUnit2(idx, path, (const char *const *)s->args.items, (int)s->args.len,
                                    text ? &file : NULL, text ? 1 : 0, opts, &tu);
    if (rc != CXError_Success)
        tu = NULL;
    return tu;
}

static void setup_free(parse_setup *s)
{
    if (s->tmpdir) {
        ch_error e;
        ch_remove_tree(s->tmpdir, &e);
        free(s->tmpdir);
    }
    ch_strvec_free(&s->args);
}

/* Nonzero when the main file itself has an error diagnostic (CUDA mode then falls back). */
static int main_file_errors(CXTranslationUnit tu)
{
    unsigned n = clang_getNumDiagnostics(tu);
    int bad = 0;
    for (unsigned i = 0; i < n && !bad; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error &&
            clang_Location_isFromMainFile(clang_getDiagnosticLocation(d)))
            bad = 1;
        clang_disposeDiagnostic(d);
    }
    return bad;
}

static int same_function(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

/* Binds each pragma to the declaration after it, adds attributes, and rejects doubles. */
static int bind_annotations(const scan_ctx *sc, const char *text, decl_list *dl, annot **out,
                            size_t *n_out, ch_error *err)
{
    const char *path = sc->path;
    const ch_pragma_loc *locs = sc->pragmas;
    size_t nl = sc->n_pragmas;
    annot *v = ch_xcalloc(nl + dl->n + 1, sizeof *v);
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < nl && rc == 0; i++) {
        const ch_pragma_loc *L = &locs[i];
        annot *a = &v[n];
        rc = ch_pragma_parse(text + L->body_offset, L->end_offset - L->body_offset, path,
                             L->body_line, L->body_col, &a->p, err);
        if (rc)
            break;
        n++;
        a->line = L->line;
        a->col = L->col;
        size_t k = 0;
        while (k < dl->n && dl->v[k].offset <= L->hash_offset)
            k++;
        if (k == dl->n || !is_function(dl->v[k].c))
            rc = ch_error_at(err, path, L->line, L->col,
                             "#pragma harness is not followed by a function; put it directly "
                             "before the function's declaration or definition");
        else
            a->fn = dl->v[k].c;
    }
    for (size_t k = 0; k < dl->n && rc == 0; k++) {
        if (!is_function(dl->v[k].c))
            continue;
        int found = attribute_of(dl->v[k].c, path, &v[n], err);
        if (found < 0)
            rc = -1;
        n += found > 0;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        for (size_t j = 0; j < i && rc == 0; j++)
            if (same_function(v[i].fn, v[j].fn)) {
                annot *late = v[i].line > v[j].line ? &v[i] : &v[j];
                char *name = clx_str(clang_getCursorSpelling(v[i].fn));
                rc = ch_error_at(err, path, late->line, late->col,
                                 "second harness annotation on '%s'; merge the clauses into one "
                                 "#pragma harness",
                                 name);
                free(name);
            }
    *out = v;
    *n_out = n;
    return rc;
}

static int annot_cmp(const void *x, const void *y)
{
    const annot *a = x, *b = y;
    return a->line != b->line ? (a->line < b->line ? -1 : 1)
                              : (a->col > b->col) - (a->col < b->col);
}

static int scan_tu(CXTranslationUnit tu, scan_ctx *sc, const char *text, ch_entry_list *out,
                   ch_error *err)
{
    decl_list dl = {NULL, 0};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), collect_top, &dl);
    annot *v;
    size_t n;
    int rc = bind_annotations(sc, text, &dl, &v, &n, err);
    qsort(v, n, sizeof *v, annot_cmp);
    size_t base = out->len;
    if (rc == 0 && n > 0)
        out->items = ch_xrealloc(out->items, (out->len + n) * sizeof *out->items);
    for (size_t i = 0; i < n && rc == 0; i++) {
        ch_entry *e = &out->items[out->len++];
        memset(e, 0, sizeof *e);
        rc = build_entry(tu, sc, &v[i], e, err);
    }
    if (rc != 0) {
        while (out->len > base)
            ch_entry_free(&out->items[--out->len]);
        if (out->len == 0) {
            free(out->items);
            out->items = NULL;
        }
    }
    for (size_t i = 0; i < n + 1; i++)
        ch_pragma_free(&v[i].p);
    free(v);
    free(dl.v);
    return rc;
}

/* --- bodies through the preprocessor (expand.c) --- */

typedef struct find_fn {
    const char *name;
    CXCursor def;
} find_fn;

static enum CXChildVisitResult visit_fn(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    find_fn *f = data;
    if (c.kind == CXCursor_LinkageSpec || c.kind == CXCursor_Namespace)
        return CXChildVisit_Recurse;
    if (c.kind != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) ||
        !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    char *name = clx_str(clang_getCursorSpelling(c));
    int hit = strcmp(name, f->name) == 0;
    free(name);
    if (hit)
        f->def = c;
    return hit ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* The scalar behind a parameter type and whether it is behind a pointer or array. */
static ch_scalar param_scalar(CXType t, int *indirect)
{
    t = clang_getCanonicalType(t);
    *indirect = 0;
    for (int depth = 0; depth < 8; depth++) {
        CXType inner;
        if (t.kind == CXType_Pointer)
            inner = clang_getPointeeType(t);
        else if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
                 t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray)
            inner = clang_getArrayElementType(t);
        else
            break;
        t = clang_getCanonicalType(inner);
        *indirect = 1;
    }
    return clx_scalar(t);
}

/* sample(fn): fn is defined in this file and takes the entry's parameters in order, each of
 * the same scalar or element type (a pointer may drop const: fn writes the inputs), since the
 * reference program calls it with the entry's arguments. Keeps its text for the cache key. */
static int check_sample(CXTranslationUnit tu, ch_entry *e, ch_error *err)
{
    const ch_clauses *c = &e->clauses;
    if (!c->sample)
        return 0;
    find_fn f = {c->sample, clang_getNullCursor()};
    clang_visitChildren(clang_getTranslationUnitCursor(tu), visit_fn, &f);
    if (strcmp(c->sample, e->name) == 0)
        return ch_error_at(err, e->file, c->sample_line, c->sample_col,
                           "sample(%s) names the harness function itself; name a function that "
                           "fills valid inputs for it",
                           c->sample);
    if (clang_Cursor_isNull(f.def))
        return ch_error_at(err, e->file, c->sample_line, c->sample_col,
                           "sample(%s): this file defines no function '%s'; define it here with "
                           "the parameters of '%s' (%s): it gets the buffers allocated and fills "
                           "valid inputs",
                           c->sample, c->sample, e->name, e->signature);
    int np = clang_Cursor_getNumArguments(f.def);
    if (np != (int)e->n_params)
        return ch_error_at(err, e->file, c->sample_line, c->sample_col,
                           "sample(%s): '%s' takes %d parameters, '%s' %zu; a sample function "
                           "takes the parameters of '%s' in the same order (%s), const dropped "
                           "where it fills a buffer",
                           c->sample, c->sample, np, e->name, e->n_params, e->name, e->signature);
    for (int i = 0; i < np; i++) {
        const ch_param *p = &e->params[i];
        CXType t = clang_getCursorType(clang_Cursor_getArgument(f.def, (unsigned)i));
        int indirect = 0;
        ch_scalar s = param_scalar(t, &indirect);
        if (s == p->elem && indirect == (p->role != CH_ROLE_SCALAR))
            continue;
        char *spelled = clx_str(clang_getTypeSpelling(t));
        int rc =
            ch_error_at(err, e->file, c->sample_line, c->sample_col,
                        "sample(%s): parameter %d of '%s' is '%s', but '%s' of '%s' is '%s'; "
                        "a sample function takes the parameters of '%s' in the same order, "
                        "const dropped where it fills a buffer",
                        c->sample, i + 1, c->sample, spelled, p->name, e->name, p->type, e->name);
        free(spelled);
        return rc;
    }
    e->sample_source = clx_pretty(f.def);
    return 0;
}

/* Puts the user's line numbers on the nodes (0: a line from elsewhere, kept as it is). */
static void remap_lines(ch_ir *n, const unsigned *map, size_t n_lines)
{
    if (!n)
        return;
    if (n->line < n_lines && map[n->line])
        n->line = map[n->line];
    for (size_t i = 0; i < n->nkids; i++)
        remap_lines(n->kids[i], map, n_lines);
}

/* The preprocessed copy of the file, parsed (C and C++ files only: a .cu file preprocessed for
 * the host loses its device parts); sc->expand_tu stays NULL when that fails. */
static void expanded_open(scan_ctx *sc)
{
    sc->expand_tried = 1;
    ch_error err;
    if (sc->lang == CH_LANG_CU || !(sc->expand_dir = ch_make_temp_dir("expand", &err)))
        return;
    int cxx = sc->lang == CH_LANG_CXX;
    char *out = ch_path_join(sc->expand_dir, cxx ? "expanded.cpp" : "expanded.c");
    char *text = NULL;
    size_t len = 0;
    if (clx_expand_text(sc->path, sc->text, sc->len, cxx ? "c++" : "c", sc->clang_args,
                        sc->expand_dir, out, &err) == 0 &&
        ch_read_file(out, &text, &len, &err) == 0) {
        /* the expanded text needs no -I/-D/-include any more; the language standard stays */
        ch_strvec std;
        ch_strvec_init(&std);
        for (size_t i = 0; sc->clang_args && sc->clang_args[i]; i++)
            if (strncmp(sc->clang_args[i], "-std=", 5) == 0)
                ch_strvec_push(&std, sc->clang_args[i]);
        sc->expand_index = clang_createIndex(0, 0);
        parse_setup setup;
        sc->expand_tu =
            parse_tu(sc->expand_index, out, text, len, sc->lang, std.items, 0, &setup, &err);
        setup_free(&setup);
        ch_strvec_free(&std);
        sc->expand_lines = clx_expanded_lines(text, len, sc->path, &sc->n_expand_lines);
    }
    free(out);
    free(text);
}

static void expanded_close(scan_ctx *sc)
{
    if (sc->expand_tu)
        clang_disposeTranslationUnit(sc->expand_tu);
    if (sc->expand_index)
        clang_disposeIndex(sc->expand_index);
    if (sc->expand_dir) {
        ch_error err;
        ch_remove_tree(sc->expand_dir, &err);
        free(sc->expand_dir);
    }
    free(sc->expand_lines);
}

/* The IR of fn_name's body built from the preprocessed file, or NULL. */
static ch_ir *expanded_body(scan_ctx *sc, const char *fn_name)
{
    if (!sc->expand_tried)
        expanded_open(sc);
    if (!sc->expand_tu)
        return NULL;
    find_fn f = {fn_name, clang_getNullCursor()};
    clang_visitChildren(clang_getTranslationUnitCursor(sc->expand_tu), visit_fn, &f);
    CXCursor body = clang_getNullCursor();
    if (!clang_Cursor_isNull(f.def))
        clang_visitChildren(f.def, find_body, &body);
    if (clang_Cursor_isNull(body))
        return NULL;
    ch_ir *ir = clx_build_body(sc->expand_tu, f.def, body);
    remap_lines(ir, sc->expand_lines, sc->n_expand_lines);
    return ir;
}

int ch_scan_file(const char *path, ch_lang lang, char *const *clang_args, ch_entry_list *out,
                 ch_error *err)
{
    char *text;
    size_t len;
    if (ch_read_file(path, &text, &len, err) != 0)
        return -1;
    int rc = ch_scan_text(path, text, len, NULL, 0, lang, clang_args, out, err);
    free(text);
    return rc;
}

int ch_scan_text(const char *path, const char *text, size_t len, const ch_pragma_loc *pragmas,
                 size_t n_pragmas, ch_lang lang, char *const *clang_args, ch_entry_list *out,
                 ch_error *err)
{
    if (!memmem(text, len, "harness", 7) && !memmem(text, len, "HARNESS", 7))
        return 0;
    ch_pragma_loc *found = NULL;
    if (!pragmas) {
        ch_pragma_find(text, len, &found, &n_pragmas);
        pragmas = found;
    }
    CXIndex idx = clang_createIndex(0, 0);
    parse_setup setup;
    CXTranslationUnit tu = parse_tu(idx, path, text, len, lang, clang_args, 0, &setup, err);
    if (lang == CH_LANG_CU && (!tu || main_file_errors(tu))) {
        if (tu)
            clang_disposeTranslationUnit(tu);
        setup_free(&setup);
        tu = parse_tu(idx, path, text, len, lang, clang_args, 1, &setup, err);
    }
    int rc;
    scan_ctx sc = {path, text, len,  lang, clang_args, pragmas, n_pragmas,
                   0,    NULL, NULL, NULL, NULL,       0};
    if (!tu)
        rc = ch_error_set(err, "%s: libclang could not parse the file", path);
    else
        rc = scan_tu(tu, &sc, text, out, err);
    expanded_close(&sc);
    if (tu)
        clang_disposeTranslationUnit(tu);
    setup_free(&setup);
    clang_disposeIndex(idx);
    free(found);
    return rc;
}
