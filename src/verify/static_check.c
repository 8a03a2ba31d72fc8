/* Stage 0, static checks on a candidate's source text (before anything is compiled): the
 * launcher exists with the entry's exact C signature, a kernel is launched, there is no main,
 * no file/process/network/environment call, only allowed headers, and the launcher does not
 * write outputs on the host. Text-level on purpose: cheap, and it sees what the author wrote.
 *
 * The launcher is NAME_launcher, or NAME itself: users write a kernel's host function under the
 * function's own name. ch_candidate_launcher_form renames the second form to the first in the
 * copy that is compiled, so the scaffold and the emitted unit know one contract. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ch/host_subset.h"
#include "ch/scaffold.h"
#include "ch/source_guard.h"
#include "ch/static_child.h"
#include "ch/verify.h"

/* Comments become blanks (newlines kept, so line numbers survive); with strings set, string
 * and character literals are blanked too (the quotes stay; the literal "C" is kept). */
static char *strip(const char *src, int strings)
{
    size_t n = strlen(src);
    char *o = ch_xstrdup(src);
    for (size_t i = 0; i < n;) {
        if (src[i] == '/' && src[i + 1] == '/') {
            while (i < n && src[i] != '\n')
                o[i++] = ' ';
        } else if (src[i] == '/' && src[i + 1] == '*') {
            o[i++] = ' ';
            o[i++] = ' ';
            while (i < n && !(src[i] == '*' && src[i + 1] == '/')) {
                if (src[i] != '\n')
                    o[i] = ' ';
                i++;
            }
            if (i < n)
                o[i++] = ' ', o[i++] = ' ';
        } else if (src[i] == '"' || src[i] == '\'') {
            char q = src[i++];
            size_t start = i;
            while (i < n && src[i] != q && src[i] != '\n')
                i += src[i] == '\\' ? 2 : 1;
            int keep = !strings || (q == '"' && i - start == 1 && src[start] == 'C');
            for (size_t k = start; !keep && k < i && k < n; k++)
                o[k] = ' ';
            i++;
        } else {
            i++;
        }
    }
    return o;
}

static int is_ident(int ch)
{
    return isalnum(ch) || ch == '_';
}

static unsigned line_of(const char *s, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off && s[i]; i++)
        line += s[i] == '\n';
    return line;
}

/* Next occurrence of identifier word in s at or after from, as a whole identifier. */
static const char *find_word(const char *s, const char *from, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
        if ((p == s || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[wl]))
            return p;
    return NULL;
}

static const char *skip_ws(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* Matching close of the bracket at p (one of ( [ {), or NULL. */
static const char *match(const char *p)
{
    char open = *p, close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (; *p; p++) {
        if (*p == open)
            depth++;
        else if (*p == close && --depth == 0)
            return p;
    }
    return NULL;
}

/* Is the function named at p a kernel or device function (__global__, or __device__ without
 * __host__, among the words of its declaration before the name)? */
static int device_function(const char *code, const char *p)
{
    const char *b = p;
    while (b > code && b[-1] != ';' && b[-1] != '}' && b[-1] != '{')
        b--;
    char *decl = ch_xstrndup(b, (size_t)(p - b));
    int dev =
        find_word(decl, decl, "__global__") != NULL ||
        (find_word(decl, decl, "__device__") != NULL && find_word(decl, decl, "__host__") == NULL);
    free(decl);
    return dev;
}

/* The definition `fname(...) {` in code (comments and literals blanked): where the name is,
 * with *pl and *pr at its parameter list's parentheses; NULL when there is none. With
 * host_only, kernels and device functions do not count. */
static const char *find_definition(const char *code, const char *fname, int host_only,
                                   const char **pl, const char **pr)
{
    for (const char *p = find_word(code, code, fname); p; p = find_word(code, p + 1, fname)) {
        const char *q = skip_ws(p + strlen(fname));
        if (*q != '(')
            continue;
        const char *r = match(q);
        if (!r || *skip_ws(r + 1) != '{' || (host_only && device_function(code, p)))
            continue;
        *pl = q;
        *pr = r;
        return p;
    }
    return NULL;
}

/* Whether the candidate's launcher is the entry's own name: it defines a host function NAME
 * and never mentions NAME_launcher (a candidate that does mention it means that one). */
static int launcher_is_name(const char *code, const char *name, const char *lname)
{
    const char *pl, *pr;
    return !find_word(code, code, lname) && find_definition(code, name, 1, &pl, &pr);
}

/* Is the identifier at p qualified (x.NAME, x->NAME, ns::NAME: another entity), inside a
 * string's remains (the kept "C"), or part of an #include line's header name? */
static int not_the_function(const char *code, const char *p)
{
    const char *b = p;
    while (b > code && (b[-1] == ' ' || b[-1] == '\t'))
        b--;
    if (b > code &&
        (b[-1] == '.' || b[-1] == '"' || (b - code >= 2 && b[-1] == ':' && b[-2] == ':') ||
         (b - code >= 2 && b[-1] == '>' && b[-2] == '-')))
        return 1;
    const char *line = p;
    while (line > code && line[-1] != '\n')
        line--;
    line = skip_ws(line);
    return *line == '#' && strncmp(skip_ws(line + 1), "include", 7) == 0;
}

/* Renaming, not a macro: -DNAME=NAME_launcher (or a #define before the candidate) would also
 * rename NAME in every header included after it, so an entry called copy, fill, reduce or sort
 * would break std::copy or thrust::reduce, and the emitted unit, which defines NAME itself (the
 * dispatcher) after the candidate, would need an #undef. Renaming the candidate's own
 * identifier tokens touches nothing else, keeps every line where it was (diagnostics of later
 * stages point at the author's lines), and leaves an ordinary candidate to compile. */
char *ch_candidate_launcher_form(const char *name, const char *src)
{
    char *code = strip(src, 1);
    char *lname = ch_xasprintf("%s_launcher", name);
    ch_strbuf out;
    ch_strbuf_init(&out);
    const char *copied = src; /* src is copied up to here */
    size_t len = strlen(name);
    if (launcher_is_name(code, name, lname)) {
        for (const char *p = find_word(code, code, name); p; p = find_word(code, p + len, name)) {
            if (not_the_function(code, p))
                continue;
            const char *at = src + (p - code);
            ch_strbuf_add(&out, copied, (size_t)(at - copied));
            ch_strbuf_adds(&out, lname);
            copied = at + len;
        }
    }
    ch_strbuf_adds(&out, copied);
    free(lname);
    free(code);
    return ch_strbuf_detach(&out);
}

static int fail(ch_strbuf *msg, cJSON **details, const char *check, const char *code, size_t off,
                const char *fmt, const char *arg)
{
    ch_strbuf_reset(msg);
    ch_strbuf_addf(msg, fmt, arg);
    if (code)
        ch_strbuf_addf(msg, " (line %u)", line_of(code, off));
    if (details) {
        *details = cJSON_CreateObject();
        cJSON_AddStringToObject(*details, "check", check);
        if (code)
            cJSON_AddNumberToObject(*details, "line", line_of(code, off));
    }
    return 1;
}

/* Normalised tokens of a parameter's type (restrict qualifiers dropped), name removed. */
static void param_type(const char *b, const char *e, ch_strbuf *type, ch_strbuf *name)
{
    ch_strbuf_reset(type);
    ch_strbuf_reset(name);
    char toks[32][64];
    int nt = 0;
    for (const char *p = b; p < e && nt < 32;) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *q = p;
        if (is_ident((unsigned char)*p))
            while (q < e && is_ident((unsigned char)*q))
                q++;
        else
            q++;
        size_t len = (size_t)(q - p) < 63 ? (size_t)(q - p) : 63;
        memcpy(toks[nt], p, len);
        toks[nt][len] = '\0';
        p = q;
        if (strcmp(toks[nt], "restrict") && strcmp(toks[nt], "__restrict__") &&
            strcmp(toks[nt], "__restrict"))
            nt++;
    }
    int name_at = -1;
    if (nt > 1 && is_ident((unsigned char)toks[nt - 1][0]) &&
        !isdigit((unsigned char)toks[nt - 1][0]))
        name_at = nt - 1;
    for (int i = 0; i < nt; i++) {
        if (i == name_at) {
            ch_strbuf_adds(name, toks[i]);
            continue;
        }
        if (type->len)
            ch_strbuf_addc(type, ' ');
        ch_strbuf_adds(type, toks[i]);
    }
}

static const char *const forbidden_calls[] = {
    "fopen",  "freopen", "fdopen",   "open",        "openat",        "creat",   "remove",
    "unlink", "rename",  "mkdir",    "rmdir",       "opendir",       "system",  "popen",
    "fork",   "vfork",   "clone",    "execl",       "execlp",        "execle",  "execv",
    "execvp", "execve",  "execvpe",  "posix_spawn", "posix_spawnp",  "socket",  "connect",
    "bind",   "listen",  "accept",   "getaddrinfo", "gethostbyname", "getenv",  "secure_getenv",
    "setenv", "putenv",  "unsetenv", "dlopen",      "dlsym",         "syscall", "ptrace",
    "kill",   "mmap",    "ifstream", "ofstream",    "fstream",       "__asm__", NULL};

/* Does body [b, e) write through identifier nm on the host? */
static const char *host_write(const char *code, const char *b, const char *e, const char *nm)
{
    for (const char *p = find_word(code, b, nm); p && p < e; p = find_word(code, p + 1, nm)) {
        const char *q = skip_ws(p + strlen(nm));
        const char *before = p;
        while (before > b && isspace((unsigned char)before[-1]))
            before--;
        int deref = before > b && before[-1] == '*' &&
                    !(before - 1 > b && (is_ident((unsigned char)before[-2]) || before[-2] == ')' ||
                                         before[-2] == ']'));
        if (*q == '[') {
            const char *m = match(q);
            if (!m || m >= e)
                continue;
            q = skip_ws(m + 1);
        } else if (!deref) {
            /* memcpy(nm, ...) / memset(nm, ...) / std::fill(nm, ...) from host code */
            const char *s = before;
            if (s > b && s[-1] == '(') {
                s--;
                while (s > b && isspace((unsigned char)s[-1]))
                    s--;
                const char *w = s;
                while (w > b && is_ident((unsigned char)w[-1]))
                    w--;
                size_t wl = (size_t)(s - w);
                if (wl > 10 && strncmp(w, "__builtin_", 10) == 0) /* the same call, spelt so */
                    w += 10, wl -= 10;
                if ((wl == 6 && (!strncmp(w, "memcpy", 6) || !strncmp(w, "memset", 6))) ||
                    (wl == 4 && !strncmp(w, "fill", 4)) || (wl == 7 && !strncmp(w, "memmove", 7)))
                    return p;
            }
            continue;
        }
        if ((q[0] == '=' && q[1] != '=') || (strchr("+-*/%&|^", q[0]) && q[0] && q[1] == '=') ||
            (q[0] == '+' && q[1] == '+') || (q[0] == '-' && q[1] == '-'))
            return p;
    }
    return NULL;
}

int ch_static_check_subset(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details)
{
    if (details)
        *details = NULL;
    ch_subset_finding sf;
    if (!ch_host_subset_check_bounded(src, CH_SUBSET_CANDIDATE, c->name, c->device, NULL, msg, &sf))
        return 0;
    if (details) {
        *details = cJSON_CreateObject();
        cJSON_AddStringToObject(*details, "check", "host-subset");
        cJSON_AddStringToObject(*details, "rule", sf.rule);
        cJSON_AddNumberToObject(*details, "line", sf.line);
        cJSON_AddNumberToObject(*details, "column", sf.col);
    }
    return 1;
}

int ch_static_check(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details)
{
    int rc = ch_static_check_text(c, src, msg, details);
    return rc ? rc : ch_static_check_subset(c, src, msg, details);
}

int ch_static_check_text(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details)
{
    if (details)
        *details = NULL;
    ch_guard_finding found;
    if (ch_source_guard(src, CH_GUARD_CANDIDATE, msg, &found)) {
        if (details) {
            *details = cJSON_CreateObject();
            cJSON_AddStringToObject(*details, "check", found.check);
            cJSON_AddNumberToObject(*details, "line", found.line);
            cJSON_AddNumberToObject(*details, "column", found.col);
        }
        return 1;
    }
    /* the rest reads the text as the compiler does: no splice or digraph hides a call */
    char *text = ch_source_phase2(src);
    char *code = strip(text, 1);
    char *lname = ch_xasprintf("%s_launcher", c->name);
    ch_strbuf type, name, want, want_name;
    ch_strbuf_init(&type);
    ch_strbuf_init(&name);
    ch_strbuf_init(&want);
    ch_strbuf_init(&want_name);
    char **pnames = ch_xcalloc(c->n_params + 1, sizeof(char *));
    int rc = 0;

    /* forbidden calls */
    for (size_t i = 0; forbidden_calls[i]; i++) {
        const char *w = forbidden_calls[i];
        for (const char *p = find_word(code, code, w); p; p = find_word(code, p + 1, w)) {
            const char *q = skip_ws(p + strlen(w));
            int decl_use = strstr(w, "stream") != NULL || !strcmp(w, "__asm__");
            if (*q == '(' || decl_use) {
                rc = fail(msg, details, "forbidden-call", code, (size_t)(p - code),
                          "calls %s: no file, process, network or environment access in a "
                          "candidate",
                          w);
                goto done;
            }
        }
    }
    const char *m = find_word(code, code, "main");
    if (m && *skip_ws(m + 4) == '(') {
        rc = fail(msg, details, "main", code, (size_t)(m - code),
                  "defines %s: the scaffold provides main", "main()");
        goto done;
    }
    /* the launcher definition: NAME_launcher, or the entry's own name (as users write it) */
    const char *pl = NULL, *pr = NULL;
    int named = launcher_is_name(code, c->name, lname);
    if (named) {
        free(lname);
        lname = ch_xstrdup(c->name);
    }
    const char *def = find_definition(code, lname, named, &pl, &pr);
    if (!def) {
        char *desc = ch_xasprintf("no definition of the launcher %s(...) { ... } (or of a host "
                                  "function %s(...) { ... } with the entry's signature)",
                                  lname, c->name);
        rc = fail(msg, details, "launcher", NULL, 0, "%s", desc);
        free(desc);
        goto done;
    }
    if (!strstr(code, "extern \"C\"") || strstr(code, "extern \"C\"") > def) {
        rc = fail(msg, details, "launcher", code, (size_t)(def - code),
                  "the launcher %s is not declared extern \"C\"", lname);
        goto done;
    }
    {
        /* return type: the word before the name must be void */
        const char *b = def;
        while (b > code && isspace((unsigned char)b[-1]))
            b--;
        if (b - code < 4 || strncmp(b - 4, "void", 4) != 0) {
            rc = fail(msg, details, "launcher", code, (size_t)(def - code),
                      "the launcher %s must return void", lname);
            goto done;
        }
    }
    {
        size_t np = 0;
        const char *b = pl + 1;
        int empty = *skip_ws(b) == ')' ||
                    (strncmp(skip_ws(b), "void", 4) == 0 && *skip_ws(skip_ws(b) + 4) == ')');
        while (!empty && b <= pr) {
            int depth = 0;
            const char *e = b;
            while (e < pr && !(depth == 0 && *e == ',')) {
                depth += *e == '(' || *e == '[';
                depth -= *e == ')' || *e == ']';
                e++;
            }
            param_type(b, e, &type, &name);
            if (np < c->n_params) {
                char *w = ch_scaffold_param_type(&c->params[np]);
                param_type(w, w + strlen(w), &want, &want_name);
                free(w);
                if (strcmp(type.data, want.data) != 0) {
                    char *desc =
                        ch_xasprintf("launcher parameter %zu (%s) has type '%s', the entry "
                                     "needs '%s'",
                                     np + 1, c->params[np].name, type.data, want.data);
                    rc = fail(msg, details, "signature", code, (size_t)(b - code), "%s", desc);
                    free(desc);
                    goto done;
                }
                pnames[np] = ch_xstrdup(name.len ? name.data : "");
            }
            np++;
            b = e + 1;
        }
        if (np != c->n_params) {
            char *desc = ch_xasprintf("the launcher takes %zu parameters, the entry has %zu", np,
                                      c->n_params);
            rc = fail(msg, details, "signature", code, (size_t)(def - code), "%s", desc);
            free(desc);
            goto done;
        }
    }
    /* a kernel launch or a library that launches */
    {
        int has_global = find_word(code, code, "__global__") != NULL;
        int launches = strstr(code, "<<<") || strstr(code, "cudaLaunchKernel") ||
                       strstr(code, "cudaLaunchCooperativeKernel");
        int library = strstr(code, "cublas") || strstr(code, "cub::") || strstr(code, "thrust::");
        if (!((has_global && launches) || library)) {
            rc = fail(msg, details, "kernel", NULL, 0, "%s",
                      has_global ? "a __global__ kernel is defined but never launched"
                                 : "no __global__ kernel and no CUDA library call: the work must "
                                   "run on the GPU");
            goto done;
        }
    }
    /* host-side writes of outputs in the launcher body (host-pointer convention) */
    if (!c->device) {
        const char *body = skip_ws(pr + 1);
        const char *end = match(body);
        for (size_t i = 0; end && i < c->n_params; i++) {
            const ch_ck_param *p = &c->params[i];
            if (p->role == CH_ROLE_SCALAR || p->dir == CH_DIR_IN || !pnames[i] || !*pnames[i])
                continue;
            const char *w = host_write(code, body, end, pnames[i]);
            if (w) {
                rc = fail(msg, details, "host-compute", code, (size_t)(w - code),
                          "the launcher writes output '%s' on the host: outputs must be computed "
                          "by kernels and copied back",
                          pnames[i]);
                goto done;
            }
        }
    }
done:
    for (size_t i = 0; i < c->n_params; i++)
        free(pnames[i]);
    free(pnames);
    ch_strbuf_free(&type);
    ch_strbuf_free(&name);
    ch_strbuf_free(&want);
    ch_strbuf_free(&want_name);
    free(lname);
    free(text);
    free(code);
    return rc;
}
