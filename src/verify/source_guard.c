/* The source guard (include/ch/source_guard.h): which files a model-written source can make the
 * compiler or the host assembler read. A text check like stage 0's other checks, but on the text
 * as the preprocessor tokenises it: `%:include`, `??=include` and `#inc\<newline>lude` are
 * #include to the compiler, so they are here too. Literals and comments are blanked the way the
 * compiler ends them (raw strings, C++14 digit separators), so no literal can hide code. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/source_guard.h"

/* C standard headers: all a reference (host C) may include, and part of a candidate's list */
static const char *const c_headers[] = {
    "assert.h", "complex.h", "ctype.h",    "errno.h",  "float.h",   "inttypes.h",
    "limits.h", "math.h",    "stdalign.h", "stdarg.h", "stdbool.h", "stddef.h",
    "stdint.h", "stdio.h",   "stdlib.h",   "string.h", "time.h",    NULL};

/* CUDA runtime and math, cuBLAS */
static const char *const cuda_headers[] = {"cuda_runtime.h",
                                           "cuda_runtime_api.h",
                                           "cuda.h",
                                           "cuda_fp16.h",
                                           "cuda_bf16.h",
                                           "cuda_fp8.h",
                                           "math_constants.h",
                                           "device_launch_parameters.h",
                                           "mma.h",
                                           "cuda_pipeline.h",
                                           "cooperative_groups.h",
                                           "cuda_awbarrier.h",
                                           "sm_90_rt.h",
                                           "cublas_v2.h",
                                           "cublas.h",
                                           "cublasLt.h",
                                           NULL};

static const char *const allowed_dirs[] = {"cooperative_groups/", "cub/", "thrust/", "cuda/", NULL};
/* C++ standard headers that reach files, processes or threads */
static const char *const denied_cxx[] = {"fstream", "filesystem", "thread", "future",
                                         "csignal", "cstdio_ext", NULL};

/* Names a source may not #define or #undef: they decide what is device code. */
static const char *const reserved_macros[] = {"__device__", "__global__", "__host__",      "asm",
                                              "__asm",      "__asm__",    "__CUDA_ARCH__", NULL};

static int in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static int header_allowed(const char *h, ch_guard_kind kind)
{
    if (in_list(c_headers, h))
        return 1;
    if (kind == CH_GUARD_REFERENCE)
        return 0;
    if (in_list(cuda_headers, h))
        return 1;
    for (size_t i = 0; allowed_dirs[i]; i++)
        if (strncmp(h, allowed_dirs[i], strlen(allowed_dirs[i])) == 0 && !strstr(h, ".."))
            return 1;
    if (in_list(denied_cxx, h))
        return 0;
    /* other C++ standard headers: a plain lower-case name without '.' or '/' */
    for (const char *p = h; *p; p++)
        if (!(islower((unsigned char)*p) || *p == '_'))
            return 0;
    return *h != '\0';
}

/* ---- translation phases 1 and 2 ------------------------------------------------------------ */

/* The character a trigraph at s stands for, or 0. */
static char trigraph(const char *s)
{
    static const char from[] = "=/'()!<>-", to[] = "#\\^[]|{}~";
    if (s[0] != '?' || s[1] != '?' || !s[2])
        return 0;
    const char *k = strchr(from, s[2]);
    return k ? to[k - from] : 0;
}

/* The character a digraph at s stands for (its length is 2), or 0. `<::` not followed by : or
 * > is `<` then `::` (C++11). */
static char digraph(const char *s)
{
    if (s[0] == '%' && s[1] == ':')
        return '#';
    if (s[0] == '<' && s[1] == '%')
        return '{';
    if (s[0] == '%' && s[1] == '>')
        return '}';
    if (s[0] == ':' && s[1] == '>')
        return ']';
    if (s[0] == '<' && s[1] == ':')
        return s[2] == ':' && s[3] != ':' && s[3] != '>' ? 0 : '[';
    return 0;
}

char *ch_source_phase2(const char *src)
{
    ch_strbuf out;
    ch_strbuf_init(&out);
    size_t joined = 0; /* newlines removed by splices on this logical line */
    for (size_t i = 0; src[i];) {
        char c = trigraph(src + i);
        size_t len = c ? 3 : 1;
        if (!c)
            c = src[i];
        size_t after = i + len;
        if (c == '\\' && (src[after] == '\n' || (src[after] == '\r' && src[after + 1] == '\n'))) {
            i = after + (src[after] == '\r' ? 2 : 1);
            joined++;
            continue;
        }
        if (c == '\n') {
            for (size_t k = 0; k <= joined; k++)
                ch_strbuf_addc(&out, '\n');
            joined = 0;
            i = after;
            continue;
        }
        char d = len == 1 ? digraph(src + i) : 0;
        ch_strbuf_addc(&out, d ? d : c);
        i = d ? i + 2 : after;
    }
    for (size_t k = 0; k < joined; k++)
        ch_strbuf_addc(&out, '\n');
    return ch_strbuf_detach(&out);
}

/* ---- blanking ---------------------------------------------------------------------------- */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether the quote at s[i] is a C++14 digit separator: inside a number (1'000'000). */
static int digit_separator(const char *s, size_t i)
{
    size_t b = i;
    while (b > 0 && (ident_char(s[b - 1]) || s[b - 1] == '.' || s[b - 1] == '\''))
        b--;
    return b < i && isdigit((unsigned char)s[b]) && ident_char(s[i + 1]);
}

/* The end of the raw string whose quote is at s[i] (R"delim( ... )delim"), or 0 when the
 * quote does not open one. */
static size_t raw_string_end(const char *s, size_t i)
{
    if (i == 0 || s[i - 1] != 'R')
        return 0;
    size_t b = i - 1;
    while (b > 0 && ident_char(s[b - 1]))
        b--;
    size_t plen = i - 1 - b; /* "", u8, u, U, L before R */
    if (!(plen == 0 || (plen == 2 && s[b] == 'u' && s[b + 1] == '8') ||
          (plen == 1 && strchr("uUL", s[b]))))
        return 0;
    size_t d = i + 1;
    while (s[d] && s[d] != '(' && d - i <= 17)
        d++;
    if (s[d] != '(')
        return 0;
    char close[24];
    size_t dl = d - i - 1;
    close[0] = ')';
    memcpy(close + 1, s + i + 1, dl);
    close[dl + 1] = '"';
    close[dl + 2] = '\0';
    const char *e = strstr(s + d, close);
    return e ? (size_t)(e - s) + dl + 2 : strlen(s);
}

/* The end (one past the closing quote, or the end of the line when it is missing) of the
 * literal whose quote is at s[i]. */
static size_t literal_end(const char *s, size_t i)
{
    size_t raw = s[i] == '"' ? raw_string_end(s, i) : 0;
    if (raw)
        return raw;
    size_t to = i + 1;
    while (s[to] && s[to] != s[i] && s[to] != '\n')
        to += s[to] == '\\' && s[to + 1] ? 2 : 1;
    return s[to] == s[i] ? to + 1 : to;
}

static void blank_range(char *o, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        if (o[k] != '\n')
            o[k] = ' ';
}

/* Comments, and with literals set the insides of string and character literals, become blanks
 * (newlines and quotes stay). */
static char *blank(const char *s, int literals)
{
    size_t n = strlen(s);
    char *o = ch_xstrdup(s);
    for (size_t i = 0; i < n;) {
        if (s[i] == '/' && s[i + 1] == '/') {
            size_t to = i;
            while (to < n && s[to] != '\n')
                to++;
            blank_range(o, i, to);
            i = to;
        } else if (s[i] == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            size_t to = e ? (size_t)(e - s) + 2 : n;
            blank_range(o, i, to);
            i = to;
        } else if ((s[i] == '"' || s[i] == '\'') && !(s[i] == '\'' && digit_separator(s, i))) {
            size_t to = literal_end(s, i);
            if (literals)
                blank_range(o, i + 1, to > i + 1 && s[to - 1] == s[i] ? to - 1 : to);
            i = to;
        } else {
            i++;
        }
    }
    return o;
}

/* ---- the checks ---------------------------------------------------------------------------- */

static unsigned line_at(const char *s, const char *p)
{
    unsigned line = 1;
    for (; s < p; s++)
        line += *s == '\n';
    return line;
}

static unsigned col_at(const char *s, const char *p)
{
    const char *b = p;
    while (b > s && b[-1] != '\n')
        b--;
    return (unsigned)(p - b) + 1;
}

static int refuse(ch_strbuf *msg, ch_guard_finding *f, const char *name, const char *text,
                  const char *at, const char *what)
{
    f->check = name;
    f->line = line_at(text, at);
    f->col = col_at(text, at);
    ch_strbuf_reset(msg);
    ch_strbuf_addf(msg, "%s (line %u, column %u)", what, f->line, f->col);
    return 1;
}

static const char *skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
    return p;
}

/* The identifier at p into word (empty when none); returns the end. */
static const char *read_word(const char *p, char *word, size_t size)
{
    size_t n = 0;
    while (ident_char(*p)) {
        if (n + 1 < size)
            word[n++] = *p;
        p++;
    }
    word[n] = '\0';
    return p;
}

/* A header name <...> or "..." at p (on its line): 0 with name filled, -1 when p holds none. */
static int header_name(const char *p, char *name, size_t size, char *quote)
{
    if (*p != '<' && *p != '"')
        return -1;
    char close = *p == '<' ? '>' : '"';
    const char *q = p + 1;
    while (*q && *q != close && *q != '\n')
        q++;
    if (*q != close)
        return -1;
    size_t len = (size_t)(q - p - 1) < size - 1 ? (size_t)(q - p - 1) : size - 1;
    memcpy(name, p + 1, len);
    name[len] = '\0';
    *quote = *p;
    return 0;
}

/* The verdict on a header name at p, for #include and __has_include alike. */
static int judge_header(const char *text, const char *p, ch_guard_kind kind, ch_strbuf *msg,
                        ch_guard_finding *f)
{
    char name[256], quote = 0;
    char *what = NULL;
    if (header_name(p, name, sizeof name, &quote) != 0)
        what = ch_xasprintf("a computed header name is not allowed (the compiler would read "
                            "whatever file it names)");
    else if (quote == '"')
        what = ch_xasprintf("includes \"%s\": only system headers <...> are allowed (the source "
                            "is one self-contained file)",
                            name);
    else if (!header_allowed(name, kind))
        what = ch_xasprintf(kind == CH_GUARD_REFERENCE
                                ? "includes <%s>, which is not an allowed header (a reference "
                                  "includes C standard headers only)"
                                : "includes <%s>, which is not an allowed header (C/C++ standard, "
                                  "CUDA runtime and math, cooperative groups, CUB, Thrust, "
                                  "libcu++, cuBLAS)",
                            name);
    if (!what)
        return 0;
    refuse(msg, f, "include", text, p, what);
    free(what);
    return 1;
}

/* One directive line (p just after its '#'). */
static int judge_directive(const char *text, const char *p, ch_guard_kind kind, ch_strbuf *msg,
                           ch_guard_finding *f)
{
    char word[64], arg[64];
    p = read_word(skip_blank(p), word, sizeof word);
    const char *rest = skip_blank(p);
    if (strcmp(word, "include") == 0)
        return judge_header(text, rest, kind, msg, f);
    if (strcmp(word, "include_next") == 0 || strcmp(word, "import") == 0 ||
        strcmp(word, "embed") == 0) {
        char *what = ch_xasprintf("#%s is not allowed (it reads a file; use #include <...> of an "
                                  "allowed header)",
                                  word);
        refuse(msg, f, "include", text, rest, what);
        free(what);
        return 1;
    }
    if (strcmp(word, "define") == 0 || strcmp(word, "undef") == 0) {
        read_word(rest, arg, sizeof arg);
        if (in_list(reserved_macros, arg)) {
            char *what =
                ch_xasprintf("#%s %s is not allowed: it changes what is device code", word, arg);
            refuse(msg, f, "macro", text, rest, what);
            free(what);
            return 1;
        }
    }
    if (strcmp(word, "pragma") == 0) {
        const char *q = read_word(rest, arg, sizeof arg);
        if (strcmp(arg, "GCC") == 0) {
            read_word(skip_blank(q), arg, sizeof arg);
            if (strcmp(arg, "dependency") == 0)
                return refuse(msg, f, "include", text, rest,
                              "#pragma GCC dependency is not allowed (it reads another file)");
        }
    }
    return 0;
}

/* Token pasting in a directive (p at its '#', in the text with literals blanked): `a##sm`
 * makes the asm keyword, `po##pen` a call, out of words no text check can see. Nothing a
 * kernel needs; the object check would still judge calls, but an asm made so runs in the host
 * assembler before any object exists. */
static int judge_pasting(const char *bare, const char *p, ch_strbuf *msg, ch_guard_finding *f)
{
    const char *e = strchr(p, '\n');
    for (const char *q = p + 1; q + 1 < (e ? e : p + strlen(p)); q++)
        if (q[0] == '#' && q[1] == '#')
            return refuse(msg, f, "macro", bare, q,
                          "token pasting (##) is not allowed: it forms names (asm, a libc "
                          "call) that no check of the text can see");
    return 0;
}

/* The next whole identifier word in s at or after from. */
static const char *next_word(const char *s, const char *from, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
        if ((p == s || !ident_char(p[-1])) && !ident_char(p[wl]))
            return p;
    return NULL;
}

static int has_word(const char *b, const char *e, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = b; p + wl <= e; p++)
        if (strncmp(p, word, wl) == 0 && (p == b || !ident_char(p[-1])) &&
            (p + wl == e || !ident_char(p[wl])))
            return 1;
    return 0;
}

/* Whether p (in code with literals blanked) lies inside a kernel or device-only function: a
 * block enclosing it opens after a declaration naming __global__, or __device__ without
 * __host__ (host and device functions are compiled for the host too). */
static int in_device_code(const char *code, const char *p)
{
    int depth = 0;
    for (const char *k = p; k > code;) {
        k--;
        if (*k == '}') {
            depth++;
        } else if (*k == '{' && depth > 0) {
            depth--;
        } else if (*k == '{') {
            const char *b = k;
            while (b > code && b[-1] != ';' && b[-1] != '}' && b[-1] != '{')
                b--;
            if (has_word(b, k, "__global__") ||
                (has_word(b, k, "__device__") && !has_word(b, k, "__host__")))
                return 1;
        }
    }
    return 0;
}

/* ---- compiler-dependent conditionals -------------------------------------------------------- */

/* The checks after this one (the host subset's libclang parse) do not read the source with the
 * compiler that builds it (gcc for a reference, nvcc and its host g++ for a candidate): each
 * side predefines its own macros (__clang__ and __GNUC__ == 4 on one, __NVCC__, __GNUC__ == 13,
 * __OPTIMIZE__ at -O2 on the other), so a conditional on one of them shows the checker one
 * program and gives the compiler another. Comparing the two sides' `-dM -E` sets would still
 * miss the user's flags (-O, -march, -std), which are known only at build time; so the rule is an
 * allow-list: a conditional may test names the source defines itself, ordinary names (undefined,
 * hence 0, on both sides), and only these reserved ones, whose value both sides agree on:
 * __CUDA_ARCH__ (undefined in libclang's CUDA host parse and in nvcc's host pass alike) and
 * __cplusplus (both parse C++17 for a candidate; undefined in C). A reference's __STDC_VERSION__
 * follows the user's -std, which the checker's gnu11 need not match. */
static const char *const agreed_candidate[] = {"__CUDA_ARCH__",    "__cplusplus",     "__STDC__",
                                               "__STDC_VERSION__", "__STDC_HOSTED__", NULL};
static const char *const agreed_reference[] = {"__cplusplus", "__STDC__", "__STDC_HOSTED__",
                                               "__CUDA_ARCH__", NULL};
/* Ordinary names gcc predefines in the GNU dialects only (-std=gnu11, not -std=c11). */
static const char *const dialect_names[] = {"linux", "unix", "i386", "i686", "x86_64", NULL};

static int reserved_name(const char *w)
{
    return w[0] == '_' && (w[1] == '_' || (w[1] >= 'A' && w[1] <= 'Z'));
}

/* The source's own #define of name (in code, a directive line), or NULL: the body after it. */
static const char *own_define(const char *code, const char *name)
{
    for (const char *line = code; line && *line;) {
        const char *p = skip_blank(line);
        char word[64], arg[64];
        if (*p == '#') {
            p = read_word(skip_blank(p + 1), word, sizeof word);
            if (strcmp(word, "define") == 0) {
                const char *q = read_word(skip_blank(p), arg, sizeof arg);
                if (strcmp(arg, name) == 0)
                    return q;
            }
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return NULL;
}

/* The source's macros differs() has followed for one conditional. Each is followed once: its
 * verdict does not depend on the way it was reached, and following every occurrence made a few
 * macros that each name the next ones several times take exponential time (found by
 * fuzz_guard). A conditional that reaches more macros than this is refused. */
#define CH_GUARD_MACROS 256
typedef struct followed_macros {
    char names[CH_GUARD_MACROS][64];
    int n;
} followed_macros;

/* 1 when name was followed before; else records it (-1 when there is no room left). */
static int followed_before(followed_macros *seen, const char *name)
{
    for (int i = 0; i < seen->n; i++)
        if (strcmp(seen->names[i], name) == 0)
            return 1;
    if (seen->n == CH_GUARD_MACROS)
        return -1;
    snprintf(seen->names[seen->n++], sizeof seen->names[0], "%s", name);
    return 0;
}

/* Whether an identifier from b to the end of its line may be seen differently by the compiler
 * and the checker, following the source's own macros, each once (seen); the first such name
 * goes into out. */
static int differs(const char *code, const char *b, ch_guard_kind kind, followed_macros *seen,
                   char *out, size_t size)
{
    const char *const *agreed = kind == CH_GUARD_REFERENCE ? agreed_reference : agreed_candidate;
    for (const char *p = b; *p && *p != '\n';) {
        if (!ident_char(*p) || (p > b && ident_char(p[-1]))) {
            p++;
            continue;
        }
        if (isdigit((unsigned char)*p)) { /* a number (1e5, 0x1f): no name */
            while (ident_char(*p) || *p == '.')
                p++;
            continue;
        }
        char word[64];
        const char *e = read_word(p, word, sizeof word);
        const char *body = reserved_name(word) ? NULL : own_define(code, word);
        /* a reference is compiled alone when verified and, where a kernel is linked, after
         * the candidate in the kernel's unit: a name neither it nor the language defines may
         * be the candidate's macro there */
        int foreign = kind == CH_GUARD_REFERENCE && !reserved_name(word) && !body &&
                      strcmp(word, "defined") != 0;
        if ((reserved_name(word) && !in_list(agreed, word)) || in_list(dialect_names, word) ||
            foreign) {
            snprintf(out, size, "%s", word);
            return 1;
        }
        if (body) {
            int before = followed_before(seen, word);
            if (before < 0) {
                snprintf(out, size, "%s", word); /* too many macros to follow */
                return 1;
            }
            if (!before && differs(code, body, kind, seen, out, size))
                return 1;
        }
        p = e;
    }
    return 0;
}

/* #if, #ifdef, #ifndef, #elif, #elifdef, #elifndef (p just after the '#', in code). */
static int judge_conditional(const char *code, const char *p, ch_guard_kind kind, ch_strbuf *msg,
                             ch_guard_finding *f)
{
    static const char *const conditionals[] = {"if",      "ifdef",    "ifndef", "elif",
                                               "elifdef", "elifndef", NULL};
    char word[64], name[64];
    const char *rest = skip_blank(read_word(skip_blank(p), word, sizeof word));
    if (!in_list(conditionals, word))
        return 0;
    followed_macros *seen = ch_xcalloc(1, sizeof *seen);
    int found = differs(code, rest, kind, seen, name, sizeof name);
    free(seen);
    if (!found)
        return 0;
    const char *eol = strchr(rest, '\n');
    const char *at = next_word(code, rest, name);
    if (!at || (eol && at > eol))
        at = rest; /* reached through the source's own macro */
    char *what = ch_xasprintf(
        "#%s on '%s' is not allowed: its value depends on the compiler, its version or its flags, "
        "so the checks and the compiler would see different code (test only __CUDA_ARCH__, "
        "__cplusplus or macros the source defines)",
        word, name);
    refuse(msg, f, "conditional", code, at, what);
    free(what);
    return 1;
}

/* ---- clocks -------------------------------------------------------------------------------- */

/* A kernel that reads a clock can compute one thing while it is verified and another later (a
 * date past verification, a count of cycles): no test can see it. Timing is the verifier's job.
 * This is the fast first filter on the spelling; the authority is the device-code check on the
 * compiled PTX (ptx_check.c), since libraries and macros hide the spelling (issue 15). */
static int judge_clocks(const char *code, const char *bare, ch_strbuf *msg, ch_guard_finding *f)
{
    static const char *const calls[] = {
        "clock", "clock64", "__globaltimer", "globaltimer", "clock_gettime", "time", NULL};
    for (size_t i = 0; calls[i]; i++)
        for (const char *p = next_word(bare, bare, calls[i]); p;
             p = next_word(bare, p + 1, calls[i])) {
            if (strcmp(calls[i], "time") == 0 && *skip_blank(p + 4) != '(')
                continue; /* a variable named time; the call is what reads the clock */
            char *what = ch_xasprintf("reads a clock (%s): a candidate's result may not depend on "
                                      "when it runs (timing is the verifier's job)",
                                      calls[i]);
            refuse(msg, f, "clock", bare, p, what);
            free(what);
            return 1;
        }
    /* PTX special registers in inline assembly: %globaltimer(_lo/_hi), %clock, %clock64 */
    static const char *const regs[] = {"%globaltimer", "%clock", NULL};
    for (size_t i = 0; regs[i]; i++)
        for (const char *p = strstr(code, regs[i]); p; p = strstr(p + 1, regs[i])) {
            char *what = ch_xasprintf("inline assembly reads the %s register: a candidate's "
                                      "result may not depend on when it runs",
                                      regs[i] + 1);
            refuse(msg, f, "clock", code, p, what);
            free(what);
            return 1;
        }
    return 0;
}

/* ---- macro expansion ---------------------------------------------------------------------- */

/* A cheap bound before any parse: a macro whose replacement, expanded, passes this many tokens
 * is a compile bomb (28 doubling #defines are 2^28 tokens in 2 KB; attacks7 row 29), which the
 * parse (ch/static_child.h) and nvcc would take seconds and gigabytes to refuse. Honest macros
 * are a few dozen tokens; clang has no limit of its own that stops a parse. */
#define MACRO_TOKENS_MAX (1L << 20)
/* Nesting followed beyond this is left to the bounded parse (a chain this deep is no kernel). */
#define MACRO_DEPTH_MAX 64

/* One #define in the text with comments and literals blanked. */
typedef struct macro_def {
    const char *name; /* its name (not NUL-ended: len) */
    size_t len;
    const char *body, *end; /* its replacement list */
    long size;              /* tokens once expanded; 0 not yet known, -1 being expanded */
} macro_def;

static int macro_cmp(const void *a, const void *b)
{
    const macro_def *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = strncmp(x->name, y->name, n);
    if (c || x->len != y->len)
        return c ? c : x->len < y->len ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name; /* in source order */
}

/* The last #define of w (defs sorted by macro_cmp), or NULL. */
static macro_def *macro_find(macro_def *defs, size_t n, const char *w, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t k = defs[mid].len < len ? defs[mid].len : len;
        int c = strncmp(defs[mid].name, w, k);
        if (!c)
            c = defs[mid].len < len ? -1 : defs[mid].len > len ? 1 : 0;
        if (c <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && defs[lo - 1].len == len && !strncmp(defs[lo - 1].name, w, len) ? &defs[lo - 1]
                                                                                    : NULL;
}

/* Tokens of d's replacement once every object or function macro in it is expanded (an
 * estimate: arguments are not substituted), capped at MACRO_TOKENS_MAX. */
static long macro_size(macro_def *defs, size_t n, macro_def *d, int depth)
{
    if (d->size)
        return d->size < 0 ? 1 : d->size; /* a macro is not expanded inside itself */
    if (depth > MACRO_DEPTH_MAX)
        return 1;
    d->size = -1;
    long total = 0;
    for (const char *p = d->body; p < d->end && total < MACRO_TOKENS_MAX;) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *q = p + 1;
        while (ident_char(*p) && q < d->end && ident_char(*q))
            q++;
        macro_def *r = ident_char(*p) && !isdigit((unsigned char)*p)
                           ? macro_find(defs, n, p, (size_t)(q - p))
                           : NULL;
        total += r ? macro_size(defs, n, r, depth + 1) : 1;
        p = q;
    }
    d->size = total < MACRO_TOKENS_MAX ? total : MACRO_TOKENS_MAX;
    return d->size;
}

/* The #define at p (just after its '#' in code), onto defs. */
static void macro_collect(const char *p, macro_def **defs, size_t *n, size_t *cap)
{
    char word[16];
    p = read_word(skip_blank(p), word, sizeof word);
    if (strcmp(word, "define") != 0)
        return;
    const char *name = skip_blank(p), *q = name;
    while (ident_char(*q))
        q++;
    if (q == name)
        return;
    const char *end = strchr(q, '\n');
    end = end ? end : q + strlen(q);
    const char *body = q;
    if (*q == '(') { /* function-like: the body follows the parameters */
        const char *close = memchr(q, ')', (size_t)(end - q));
        body = close ? close + 1 : end;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *defs = ch_xrealloc(*defs, *cap * sizeof **defs);
    }
    (*defs)[(*n)++] = (macro_def){name, (size_t)(q - name), body, end, 0};
}

/* The first #define (in source order) whose expansion reaches MACRO_TOKENS_MAX. */
static int judge_macro_sizes(const char *code, ch_strbuf *msg, ch_guard_finding *f)
{
    macro_def *defs = NULL;
    size_t n = 0, cap = 0;
    for (const char *line = code; line && *line;) {
        const char *p = skip_blank(line);
        if (*p == '#')
            macro_collect(p + 1, &defs, &n, &cap);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (n)
        qsort(defs, n, sizeof *defs, macro_cmp);
    const macro_def *worst = NULL;
    for (size_t i = 0; i < n; i++)
        if (macro_size(defs, n, &defs[i], 0) >= MACRO_TOKENS_MAX &&
            (!worst || defs[i].name < worst->name))
            worst = &defs[i];
    int rc = 0;
    if (worst) {
        char *what = ch_xasprintf("the macro '%.*s' expands to %ld tokens or more: refused (a "
                                  "compile bomb; parsing and compiling it would take minutes "
                                  "and gigabytes; keep macro expansion small)",
                                  (int)worst->len, worst->name, MACRO_TOKENS_MAX);
        rc = refuse(msg, f, "macro-size", code, worst->name, what);
        free(what);
    }
    free(defs);
    return rc;
}

/* ---- device effects ---------------------------------------------------------------------- */

/* What a kernel does besides writing the buffers its launcher hands it: printf reaches the user's
 * program's stdout (a forged "ALL TESTS PASSED" among the program's own lines,
 * attacks5/cand19_device_printf.cu), and the device heap (malloc, free, new, delete in device
 * code) is state kept from one launch to the next, which a kernel that allocates and never frees
 * exhausts after N launches (attacks5/cand10_device_heap_counter.cu). Host code is the allow-
 * list's (host_subset.c, object_check.c), which refuses printf and keeps malloc to buffers. */
static int judge_device_effects(const char *bare, ch_guard_kind kind, ch_strbuf *msg,
                                ch_guard_finding *f)
{
    if (kind == CH_GUARD_REFERENCE)
        return 0;
    static const char *const calls[] = {"printf", "vprintf", "malloc", "free",
                                        "new",    "delete",  NULL};
    for (size_t i = 0; calls[i]; i++)
        for (const char *p = next_word(bare, bare, calls[i]); p;
             p = next_word(bare, p + 1, calls[i])) {
            if (!in_device_code(bare, p))
                continue;
            int print = calls[i][0] == 'p' || calls[i][0] == 'v';
            char *what = ch_xasprintf(
                "device code %s (%s): %s", print ? "prints" : "uses the device heap", calls[i],
                print ? "a kernel's output reaches the user's program's stdout; kernels write "
                        "only the buffers their launcher hands them"
                      : "the device heap is state kept from one launch to the next; scratch "
                        "memory is the launcher's to allocate");
            refuse(msg, f, "device-effect", bare, p, what);
            free(what);
            return 1;
        }
    return 0;
}

static int judge_code(const char *text, const char *code, const char *bare, ch_guard_kind kind,
                      ch_strbuf *msg, ch_guard_finding *f)
{
    static const char *const probes[] = {"__has_include", "__has_include_next", "__has_embed",
                                         NULL};
    for (size_t i = 0; probes[i]; i++)
        for (const char *p = next_word(code, code, probes[i]); p;
             p = next_word(code, p + 1, probes[i])) {
            const char *q = skip_blank(p + strlen(probes[i]));
            if (*q == '(' && judge_header(text, skip_blank(q + 1), kind, msg, f))
                return 1;
        }
    for (const char *p = next_word(code, code, "_Pragma"); p;
         p = next_word(code, p + 1, "_Pragma")) {
        const char *e = strchr(p, '\n');
        if (has_word(p, e ? e : p + strlen(p), "dependency"))
            return refuse(msg, f, "include", text, p,
                          "_Pragma(\"GCC dependency ...\") is not allowed (it reads another file)");
    }
    /* what the compiler predefines from when and where it runs: the text is compiled again
     * where it is linked (another day, another file name), so a result that depends on these
     * is not the result verified; __FILE__ and __LINE__ are kept equal there (#line) */
    static const char *const build_macros[] = {"__DATE__",      "__TIME__",      "__TIMESTAMP__",
                                               "__BASE_FILE__", "__FILE_NAME__", NULL};
    for (size_t i = 0; build_macros[i]; i++) {
        const char *p = next_word(bare, bare, build_macros[i]);
        if (p) {
            char *what = ch_xasprintf("%s is not allowed: it is the compiler's date, time or main "
                                      "file, which differ where the verified text is compiled "
                                      "again to be linked",
                                      build_macros[i]);
            int rc = refuse(msg, f, "build-time", bare, p, what);
            free(what);
            return rc;
        }
    }
    static const char *const asm_words[] = {"asm", "__asm", "__asm__", NULL};
    for (size_t i = 0; asm_words[i]; i++)
        for (const char *p = next_word(bare, bare, asm_words[i]); p;
             p = next_word(bare, p + 1, asm_words[i]))
            if (kind == CH_GUARD_REFERENCE || !in_device_code(bare, p))
                return refuse(msg, f, "asm", bare, p,
                              "inline assembly or an asm label in host code is not allowed (the "
                              "host assembler reads files through .include and .incbin, and "
                              "runs what it is given): assembly belongs in device code only");
    return 0;
}

int ch_source_guard(const char *src, ch_guard_kind kind, ch_strbuf *msg, ch_guard_finding *f)
{
    char *text = ch_source_phase2(src);
    char *code = blank(text, 0);
    char *bare = blank(text, 1);
    int rc = 0;
    for (const char *line = code; line && *line && !rc;) {
        const char *p = skip_blank(line);
        if (*p == '#')
            rc = judge_directive(code, p + 1, kind, msg, f);
        if (!rc && *p == '#')
            rc = judge_pasting(bare, bare + (p - code), msg, f);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!rc)
        rc = judge_code(code, code, bare, kind, msg, f);
    /* after judge_code: a __has_include of a header not allowed says so */
    for (const char *line = code; line && *line && !rc;) {
        const char *p = skip_blank(line);
        if (*p == '#')
            rc = judge_conditional(code, p + 1, kind, msg, f);
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!rc)
        rc = judge_macro_sizes(code, msg, f);
    if (!rc && kind == CH_GUARD_CANDIDATE)
        rc = judge_clocks(code, bare, msg, f);
    if (!rc)
        rc = judge_device_effects(bare, kind, msg, f);
    free(bare);
    free(code);
    free(text);
    return rc;
}
