/* Stage 1's fast first verdict (DESIGN §3): the candidate's device code compiled in process with
 * NVRTC, before nvcc compiles the whole candidate.
 *
 * NVRTC compiles device code only and refuses host functions and host variables, so it gets the
 * candidate with its host parts blanked (ch_device_code: same length and lines, so diagnostics
 * point at the candidate's own lines). The split is a token-level reading of the namespace scope,
 * not a C++ parser, so a failure counts only when it cannot come from the split: every error is
 * on a line of kept device code (a kernel, a __device__ function or variable) and is not about
 * something the split or a missing header could have removed (undefined names that look like a
 * header's, anything in std, host functions, JIT mode, files). Everything else is "unsure" and
 * nvcc decides, so NVRTC never rejects what nvcc accepts; it only makes wrong kernels fail fast.
 *
 * libnvrtc is loaded with dlopen (CUDA_HOME, the nvcc's toolkit, the loader path), so ch-cc
 * links no CUDA library and machines without NVRTC skip the check. */
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/verify.h"

/* ---- tokens of the candidate ----------------------------------------------------------------- */

typedef struct tok {
    size_t b, e; /* bytes [b, e) of the source */
    char kind;   /* 'i' identifier or keyword, 'n' number, 's' string or char literal,
                  * 'p' one punctuation character, '#' a preprocessor directive (whole lines) */
} tok;

typedef struct toks {
    tok *v;
    size_t n, cap;
} toks;

static void push_tok(toks *t, size_t b, size_t e, char kind)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->v = ch_xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n++] = (tok){b, e, kind};
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The end of a literal starting with its quote at i (escapes honoured; stops at a newline). */
static size_t skip_quoted(const char *s, size_t i)
{
    char q = s[i++];
    while (s[i] && s[i] != q && s[i] != '\n')
        i += s[i] == '\\' && s[i + 1] ? 2 : 1;
    return s[i] == q ? i + 1 : i;
}

/* The end of a raw string R"delim( ... )delim" whose quote is at i. */
static size_t skip_raw(const char *s, size_t i)
{
    size_t d = i + 1;
    while (s[d] && s[d] != '(' && d - i < 18)
        d++;
    if (s[d] != '(')
        return skip_quoted(s, i);
    char close[24];
    snprintf(close, sizeof close, ")%.*s\"", (int)(d - i - 1), s + i + 1);
    const char *end = strstr(s + d, close);
    return end ? (size_t)(end - s) + strlen(close) : strlen(s);
}

/* The end of a directive starting at i: the line, with backslash continuations. */
static size_t skip_directive(const char *s, size_t i)
{
    while (s[i] && s[i] != '\n') {
        if (s[i] == '\\' && s[i + 1] == '\n')
            i++;
        else if (s[i] == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (size_t)(e - s) + 1 : strlen(s) - 1;
        }
        i++;
    }
    return i;
}

static void lex(const char *s, toks *out)
{
    int line_start = 1;
    for (size_t i = 0; s[i];) {
        char c = s[i];
        if (c == '\n') {
            line_start = 1;
            i++;
        } else if (isspace((unsigned char)c)) {
            i++;
        } else if (c == '/' && s[i + 1] == '/') {
            while (s[i] && s[i] != '\n')
                i++;
        } else if (c == '/' && s[i + 1] == '*') {
            const char *e = strstr(s + i + 2, "*/");
            i = e ? (size_t)(e - s) + 2 : strlen(s);
        } else if (c == '#' && line_start) {
            size_t e = skip_directive(s, i);
            push_tok(out, i, e, '#');
            i = e;
        } else if (c == '"' || c == '\'') {
            size_t e = skip_quoted(s, i);
            push_tok(out, i, e, 's');
            i = e;
            line_start = 0;
        } else if (isalpha((unsigned char)c) || c == '_') {
            size_t e = i;
            while (ident_char(s[e]))
                e++;
            if (s[e] == '"' && s[e - 1] == 'R' && e - i <= 3) { /* R"(...)", u8R"(...)" */
                size_t r = skip_raw(s, e);
                push_tok(out, i, r, 's');
                i = r;
            } else if (s[e] == '"' || s[e] == '\'') { /* u8"..", L'x' */
                size_t r = skip_quoted(s, e);
                push_tok(out, i, r, 's');
                i = r;
            } else {
                push_tok(out, i, e, 'i');
                i = e;
            }
            line_start = 0;
        } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[i + 1]))) {
            size_t e = i + 1;
            for (;;) {
                if (ident_char(s[e]) || s[e] == '.' ||
                    (s[e] == '\'' && ident_char(s[e + 1]))) /* digit separators */
                    e++;
                else if ((s[e] == '+' || s[e] == '-') && strchr("eEpP", s[e - 1]))
                    e++;
                else
                    break;
            }
            push_tok(out, i, e, 'n');
            i = e;
            line_start = 0;
        } else {
            push_tok(out, i, i + 1, 'p');
            i++;
            line_start = 0;
        }
    }
}

/* ---- the split ---------------------------------------------------------------------------------
 */

typedef struct split {
    const char *s;
    toks t;
    char *out;  /* the copy being blanked */
    char *host; /* every blanked item's text (names the split removed), NUL-separated words */
    ch_strbuf hostbuf;
    unsigned char *dev_line; /* 1-based */
    size_t n_lines;
    int has_kernel, dropped;
} split;

static int is_word(const split *x, size_t i, const char *w)
{
    const tok *k = &x->t.v[i];
    size_t n = strlen(w);
    return k->kind == 'i' && k->e - k->b == n && memcmp(x->s + k->b, w, n) == 0;
}

static int is_punct(const split *x, size_t i, char c)
{
    return i < x->t.n && x->t.v[i].kind == 'p' && x->s[x->t.v[i].b] == c;
}

static int has_word(const split *x, size_t from, size_t to, const char *w)
{
    for (size_t i = from; i < to; i++)
        if (is_word(x, i, w))
            return 1;
    return 0;
}

static size_t line_of(const char *s, size_t off)
{
    size_t l = 1;
    for (size_t i = 0; i < off; i++)
        l += s[i] == '\n';
    return l;
}

/* Blanks source bytes [b, e) (newlines kept) and remembers their text. */
static void blank(split *x, size_t b, size_t e)
{
    ch_strbuf_add(&x->hostbuf, x->s + b, e - b);
    ch_strbuf_addc(&x->hostbuf, '\n');
    for (size_t i = b; i < e; i++)
        if (x->out[i] != '\n')
            x->out[i] = ' ';
}

static void mark_device(split *x, size_t b, size_t e)
{
    size_t l0 = line_of(x->s, b), l1 = line_of(x->s, e);
    for (size_t l = l0; l <= l1 && l <= x->n_lines; l++)
        x->dev_line[l] = 1;
}

/* Headers NVRTC compiles from the toolkit's include directories (-I), and C headers it gets as
 * small stand-ins (ch_nvrtc_stub): kept. Other includes (the C++ library, host APIs) are
 * blanked: only host code uses them. */
static int kept_include(const char *name, size_t n)
{
    static const char *const kept[] = {"cuda_runtime.h",
                                       "cuda_runtime_api.h",
                                       "cuda.h",
                                       "device_launch_parameters.h",
                                       "cuda_fp16.h",
                                       "cuda_bf16.h",
                                       "cuda_fp8.h",
                                       "mma.h",
                                       "cooperative_groups.h",
                                       "cuda_pipeline.h",
                                       "cuda_awbarrier.h",
                                       "vector_types.h",
                                       "vector_functions.h",
                                       "math_constants.h",
                                       "crt/",
                                       "cooperative_groups/",
                                       "cuda/",
                                       "cub/",
                                       "sm_",
                                       "curand_kernel.h",
                                       NULL};
    for (const char *const *k = kept; *k; k++) {
        size_t kl = strlen(*k);
        if (n >= kl && memcmp(name, *k, kl) == 0 &&
            ((*k)[kl - 1] == '/' || n == kl || !strcmp(*k, "sm_")))
            return 1;
    }
    return ch_nvrtc_stub(name, n) != NULL;
}

static void directive(split *x, const tok *k)
{
    const char *p = x->s + k->b + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "include", 7) != 0)
        return;
    p += 7;
    while (*p == ' ' || *p == '\t')
        p++;
    char close = *p == '<' ? '>' : *p == '"' ? '"' : 0;
    const char *e = close ? strchr(p + 1, close) : NULL;
    if (e && e < x->s + k->e && kept_include(p + 1, (size_t)(e - p - 1)))
        return;
    blank(x, k->b, k->e);
    x->dropped++;
}

/* The first token of an item after a leading template <...> header. */
static size_t after_template(const split *x, size_t i, size_t end)
{
    if (!is_word(x, i, "template") || !is_punct(x, i + 1, '<'))
        return i;
    int depth = 0, paren = 0;
    for (size_t j = i + 1; j < end; j++) {
        if (is_punct(x, j, '('))
            paren++;
        else if (is_punct(x, j, ')'))
            paren--;
        else if (paren == 0 && is_punct(x, j, '<'))
            depth++;
        else if (paren == 0 && is_punct(x, j, '>') && --depth == 0)
            return j + 1;
    }
    return i;
}

/* The matching closing brace of the one at i (n when unbalanced). */
static size_t match_brace(const split *x, size_t i)
{
    int depth = 0;
    for (size_t j = i; j < x->t.n; j++) {
        if (is_punct(x, j, '{'))
            depth++;
        else if (is_punct(x, j, '}') && --depth == 0)
            return j;
    }
    return x->t.n;
}

static int device_word(const split *x, size_t from, size_t to)
{
    return has_word(x, from, to, "__global__") || has_word(x, from, to, "__device__") ||
           has_word(x, from, to, "__constant__") || has_word(x, from, to, "__shared__") ||
           has_word(x, from, to, "__managed__");
}

/* A declaration [i, end] ending with ';': kept when it declares device things, types, templates
 * or constants; host variables and host function prototypes are blanked. */
static void declaration(split *x, size_t i, size_t end)
{
    const tok *first = &x->t.v[i], *last = &x->t.v[end];
    if (device_word(x, i, end)) {
        mark_device(x, first->b, last->e);
        return;
    }
    if (is_word(x, i, "template"))
        return; /* templates are instantiated only where device code uses them */
    static const char *const types[] = {"struct", "class",         "union",     "enum", "typedef",
                                        "using",  "static_assert", "namespace", NULL};
    for (const char *const *w = types; *w; w++)
        if (is_word(x, i, *w))
            return;
    /* a variable is kept when constant (device code may read constant host variables) */
    size_t eq = end;
    int paren = 0;
    for (size_t j = i; j < end; j++) {
        if (is_punct(x, j, '(') || is_punct(x, j, '['))
            paren++;
        else if (is_punct(x, j, ')') || is_punct(x, j, ']'))
            paren--;
        else if (paren == 0 && is_punct(x, j, '=') && eq == end)
            eq = j;
    }
    int constant = has_word(x, i, eq, "constexpr");
    for (size_t j = i; j < eq && !constant; j++)
        if (is_word(x, j, "const")) {
            constant = 1;
            for (size_t k = j + 1; k < eq; k++)
                if (is_punct(x, k, '*') || is_punct(x, k, '&'))
                    constant = 0;
        }
    if (!constant)
        blank(x, first->b, last->e);
}

/* Items of one scope from token i; returns the index after the scope's closing brace (or n). */
static size_t scope(split *x, size_t i, int nested)
{
    while (i < x->t.n) {
        const tok *k = &x->t.v[i];
        if (k->kind == '#') {
            directive(x, k);
            i++;
            continue;
        }
        if (is_punct(x, i, '}')) {
            if (nested)
                return i + 1;
            i++; /* an unbalanced brace at file scope: skip it */
            continue;
        }
        if (is_punct(x, i, ';')) {
            i++;
            continue;
        }
        /* namespace NAME { and extern "C" {: their contents are items of their own */
        if (is_word(x, i, "namespace") || (is_word(x, i, "extern") && i + 1 < x->t.n &&
                                           x->t.v[i + 1].kind == 's' && is_punct(x, i + 2, '{'))) {
            size_t j = i + 1;
            while (j < x->t.n && !is_punct(x, j, '{') && !is_punct(x, j, ';'))
                j++;
            if (is_punct(x, j, '{')) {
                i = scope(x, j + 1, 1);
                continue;
            }
        }
        /* an item: up to ';' at depth 0, or a function body */
        size_t h = after_template(x, i, x->t.n);
        int type_head = is_word(x, h, "struct") || is_word(x, h, "class") ||
                        is_word(x, h, "union") || is_word(x, h, "enum") || is_word(x, h, "typedef");
        int paren = 0, eq = 0, group = 0;
        size_t j = h;
        for (; j < x->t.n; j++) {
            if (x->t.v[j].kind == '#')
                continue;
            if (is_punct(x, j, '(') || is_punct(x, j, '['))
                paren++;
            else if (is_punct(x, j, ')') || is_punct(x, j, ']'))
                group |= --paren == 0 && is_punct(x, j, ')');
            else if (paren == 0 && is_punct(x, j, '='))
                eq = 1;
            else if (paren == 0 && is_punct(x, j, ';'))
                break;
            else if (paren == 0 && is_punct(x, j, '}'))
                break; /* the enclosing scope ends: an item without ';' */
            else if (paren == 0 && is_punct(x, j, '{')) {
                size_t close = match_brace(x, j);
                if (!eq && group && !type_head) { /* a function definition */
                    size_t last = close < x->t.n ? close : x->t.n - 1;
                    const tok *a = &x->t.v[i], *z = &x->t.v[last];
                    if (has_word(x, i, j, "__global__") || has_word(x, i, j, "__device__")) {
                        x->has_kernel |= has_word(x, i, j, "__global__");
                        mark_device(x, a->b, z->e);
                    } else {
                        blank(x, a->b, z->e);
                    }
                    j = last + 1;
                    goto next;
                }
                j = close; /* a class body or a braced initializer: the item goes on */
            }
        }
        if (j < x->t.n && is_punct(x, j, ';'))
            declaration(x, i, j);
        else if (j > i)
            declaration(x, i, j - 1);
        j = j < x->t.n && is_punct(x, j, ';') ? j + 1 : j;
    next:
        i = j;
    }
    return i;
}

int ch_device_code(const char *src, ch_device_split *out)
{
    memset(out, 0, sizeof *out);
    split x;
    memset(&x, 0, sizeof x);
    x.s = src;
    x.out = ch_xstrdup(src);
    ch_strbuf_init(&x.hostbuf);
    x.n_lines = line_of(src, strlen(src));
    x.dev_line = ch_xcalloc(x.n_lines + 2, 1);
    lex(src, &x.t);
    scope(&x, 0, 0);
    free(x.t.v);
    out->code = x.out;
    out->host_text = ch_strbuf_detach(&x.hostbuf);
    out->device_line = x.dev_line;
    out->n_lines = x.n_lines;
    out->has_kernel = x.has_kernel;
    out->dropped_includes = x.dropped;
    return 0;
}

void ch_device_split_free(ch_device_split *d)
{
    free(d->code);
    free(d->host_text);
    free(d->device_line);
    memset(d, 0, sizeof *d);
}

/* ---- C headers NVRTC lacks: small stand-ins with their constants and types ------------------ */

static const char stub_stddef[] = "#pragma once\n#ifndef NULL\n#define NULL 0\n#endif\n"
                                  "typedef decltype((char *)0 - (char *)0) ptrdiff_t;\n"
                                  "#define offsetof(t, m) __builtin_offsetof(t, m)\n";

static const char stub_stdint[] =
    "#pragma once\n"
    "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\n"
    "typedef long int64_t;\ntypedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\n"
    "typedef unsigned int uint32_t;\ntypedef unsigned long uint64_t;\ntypedef long intptr_t;\n"
    "typedef unsigned long uintptr_t;\ntypedef long intmax_t;\ntypedef unsigned long uintmax_t;\n"
    "typedef int8_t int_least8_t;\ntypedef int16_t int_least16_t;\n"
    "typedef int32_t int_least32_t;\ntypedef int64_t int_least64_t;\n"
    "typedef uint8_t uint_least8_t;\ntypedef uint16_t uint_least16_t;\n"
    "typedef uint32_t uint_least32_t;\ntypedef uint64_t uint_least64_t;\n"
    "typedef int8_t int_fast8_t;\ntypedef long int_fast16_t;\ntypedef long int_fast32_t;\n"
    "typedef int64_t int_fast64_t;\ntypedef uint8_t uint_fast8_t;\n"
    "typedef unsigned long uint_fast16_t;\ntypedef unsigned long uint_fast32_t;\n"
    "typedef uint64_t uint_fast64_t;\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n"
    "#define INT16_MIN (-32767 - 1)\n#define INT16_MAX 32767\n#define UINT16_MAX 65535\n"
    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n"
    "#define UINT32_MAX 4294967295U\n#define INT64_MIN (-9223372036854775807L - 1)\n"
    "#define INT64_MAX 9223372036854775807L\n#define UINT64_MAX 18446744073709551615UL\n"
    "#define INTPTR_MIN INT64_MIN\n#define INTPTR_MAX INT64_MAX\n#define UINTPTR_MAX UINT64_MAX\n"
    "#define INTMAX_MIN INT64_MIN\n#define INTMAX_MAX INT64_MAX\n#define UINTMAX_MAX UINT64_MAX\n"
    "#define SIZE_MAX UINT64_MAX\n#define PTRDIFF_MIN INT64_MIN\n#define PTRDIFF_MAX INT64_MAX\n"
    "#define INT8_C(x) x\n#define INT16_C(x) x\n#define INT32_C(x) x\n#define INT64_C(x) x##L\n"
    "#define UINT8_C(x) x\n#define UINT16_C(x) x\n#define UINT32_C(x) x##U\n"
    "#define UINT64_C(x) x##UL\n#define INTMAX_C(x) x##L\n#define UINTMAX_C(x) x##UL\n";

static const char stub_limits[] =
    "#pragma once\n#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n"
    "#define UCHAR_MAX 255\n#define CHAR_MIN SCHAR_MIN\n#define CHAR_MAX SCHAR_MAX\n"
    "#define MB_LEN_MAX 16\n#define SHRT_MIN (-32767 - 1)\n#define SHRT_MAX 32767\n"
    "#define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n#define INT_MAX 2147483647\n"
    "#define UINT_MAX 4294967295U\n#define LONG_MIN (-9223372036854775807L - 1)\n"
    "#define LONG_MAX 9223372036854775807L\n#define ULONG_MAX 18446744073709551615UL\n"
    "#define LLONG_MIN (-9223372036854775807LL - 1)\n#define LLONG_MAX 9223372036854775807LL\n"
    "#define ULLONG_MAX 18446744073709551615ULL\n";

static const char stub_float[] =
    "#pragma once\n#define FLT_RADIX 2\n#define FLT_MANT_DIG 24\n#define DBL_MANT_DIG 53\n"
    "#define FLT_DIG 6\n#define DBL_DIG 15\n#define FLT_DECIMAL_DIG 9\n#define DBL_DECIMAL_DIG 17\n"
    "#define FLT_MIN_EXP (-125)\n#define FLT_MAX_EXP 128\n#define DBL_MIN_EXP (-1021)\n"
    "#define DBL_MAX_EXP 1024\n"
    "#define FLT_MAX 3.40282346638528859811704183484516925e+38F\n"
    "#define FLT_MIN 1.17549435082228750796873653722224568e-38F\n"
    "#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F\n"
    "#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F\n"
    "#define DBL_MAX 1.79769313486231570814527423731704357e+308\n"
    "#define DBL_MIN 2.22507385850720138309023271733240406e-308\n"
    "#define DBL_EPSILON 2.22044604925031308084726333618164062e-16\n"
    "#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324\n";

static const char stub_math[] =
    "#pragma once\n#define M_E 2.7182818284590452354\n#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n#define INFINITY (__int_as_float(0x7f800000))\n"
    "#define NAN (__int_as_float(0x7fffffff))\n#define HUGE_VALF INFINITY\n"
    "#define HUGE_VAL (__longlong_as_double(0x7ff0000000000000LL))\n";

static const char stub_stdlib[] = "#pragma once\n#ifndef NULL\n#define NULL 0\n#endif\n"
                                  "#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n"
                                  "#define RAND_MAX 2147483647\n";

static const char stub_stdio[] =
    "#pragma once\n#ifndef NULL\n#define NULL 0\n#endif\n#define EOF (-1)\n";

static const char stub_null[] = "#pragma once\n#ifndef NULL\n#define NULL 0\n#endif\n";

/* device code keeps the assertion's expression compiled (NVRTC only compiles it) */
static const char stub_assert[] = "#pragma once\n#define assert(e) ((void)(e))\n";

static const struct {
    const char *name, *text;
} stubs[] = {
    {"stddef.h", stub_stddef}, {"cstddef", stub_stddef},    {"stdint.h", stub_stdint},
    {"cstdint", stub_stdint},  {"inttypes.h", stub_stdint}, {"cinttypes", stub_stdint},
    {"limits.h", stub_limits}, {"climits", stub_limits},    {"float.h", stub_float},
    {"cfloat", stub_float},    {"math.h", stub_math},       {"cmath", stub_math},
    {"stdlib.h", stub_stdlib}, {"cstdlib", stub_stdlib},    {"stdio.h", stub_stdio},
    {"cstdio", stub_stdio},    {"string.h", stub_null},     {"cstring", stub_null},
    {"stdbool.h", stub_null},  {"assert.h", stub_assert},   {"cassert", stub_assert},
};

#define N_STUBS (sizeof stubs / sizeof *stubs)

const char *ch_nvrtc_stub(const char *name, size_t n)
{
    for (size_t i = 0; i < N_STUBS; i++)
        if (strlen(stubs[i].name) == n && memcmp(stubs[i].name, name, n) == 0)
            return stubs[i].text;
    return NULL;
}

/* ---- the verdict ---------------------------------------------------------------------------- */

/* An undefined name the split or a header could explain: macros and constants (upper case),
 * types of C headers (_t), compiler and CUDA reserved names, names of blanked host code. */
static int header_like(const char *id, const ch_device_split *d)
{
    int upper = 1;
    for (const char *p = id; *p; p++)
        if (islower((unsigned char)*p))
            upper = 0;
    size_t n = strlen(id);
    if (upper || (n > 2 && strcmp(id + n - 2, "_t") == 0) || strncmp(id, "__", 2) == 0 ||
        strncmp(id, "cuda", 4) == 0 || strncmp(id, "cu", 2) == 0 || strncmp(id, "nv", 2) == 0)
        return 1;
    for (const char *p = d->host_text; p && (p = strstr(p, id)) != NULL; p += n) {
        int start = p == d->host_text || !ident_char(p[-1]);
        if (start && !ident_char(p[n]))
            return 1;
    }
    return 0;
}

ch_nvrtc_verdict ch_nvrtc_classify(const char *log, const char *name, const ch_device_split *d)
{
    static const char *const unsure[] = {
        "JIT mode",      "cannot open source file", "std",          "__host__",
        "host function", "host variable",           "catastrophic", NULL};
    size_t nl = strlen(name);
    int errors = 0;
    for (const char *l = log; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        const char *err = memmem(l, len, ": error: ", 9);
        const char *cat = memmem(l, len, "catastrophic error", 18);
        if (err || cat) {
            errors++;
            if (!err || len < nl + 2 || memcmp(l, name, nl) != 0 || l[nl] != '(')
                return CH_NVRTC_UNSURE; /* in a header, or not located */
            size_t line = strtoul(l + nl + 1, NULL, 10);
            if (line == 0 || line > d->n_lines || !d->device_line[line])
                return CH_NVRTC_UNSURE; /* outside kept device code */
            char *msg = ch_xstrndup(err + 9, len - (size_t)(err + 9 - l));
            int doubt = 0;
            for (const char *const *u = unsure; *u && !doubt; u++)
                doubt = strstr(msg, *u) != NULL;
            const char *q = strstr(msg, "identifier \"");
            if (!doubt && q && strstr(msg, "is undefined")) {
                q += 12;
                char *id = ch_xstrndup(q, strcspn(q, "\""));
                doubt = header_like(id, d);
                free(id);
            }
            free(msg);
            if (doubt)
                return CH_NVRTC_UNSURE;
        }
        l = e ? e + 1 : NULL;
    }
    return errors ? CH_NVRTC_FAIL : CH_NVRTC_UNSURE;
}

/* ---- libnvrtc -------------------------------------------------------------------------------- */

typedef struct nvrtc_prog *nvrtc_prog; /* nvrtcProgram */

static struct {
    int tried, ok;
    int (*create)(nvrtc_prog *, const char *, const char *, int, const char *const *,
                  const char *const *);
    int (*compile)(nvrtc_prog, int, const char *const *);
    int (*log_size)(nvrtc_prog, size_t *);
    int (*log)(nvrtc_prog, char *);
    int (*destroy)(nvrtc_prog *);
} nv;

/* Guards nv and every NVRTC call (one compile at a time: a fraction of a second each). */
static pthread_mutex_t nv_mu = PTHREAD_MUTEX_INITIALIZER;

static void *sym(void *h, const char *name)
{
    return h ? dlsym(h, name) : NULL;
}

static void nv_load(const char *cuda_home)
{
    if (nv.tried)
        return;
    nv.tried = 1;
    static const char *const names[] = {"lib64/libnvrtc.so",
                                        "lib64/libnvrtc.so.13",
                                        "lib64/libnvrtc.so.12",
                                        "libnvrtc.so",
                                        "libnvrtc.so.13",
                                        "libnvrtc.so.12",
                                        NULL};
    void *h = NULL;
    for (const char *const *n = names; *n && !h; n++) {
        if (strncmp(*n, "lib64/", 6) == 0) {
            if (!cuda_home)
                continue;
            char *p = ch_path_join(cuda_home, *n);
            h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
            free(p);
        } else {
            h = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
        }
    }
    *(void **)&nv.create = sym(h, "nvrtcCreateProgram");
    *(void **)&nv.compile = sym(h, "nvrtcCompileProgram");
    *(void **)&nv.log_size = sym(h, "nvrtcGetProgramLogSize");
    *(void **)&nv.log = sym(h, "nvrtcGetProgramLog");
    *(void **)&nv.destroy = sym(h, "nvrtcDestroyProgram");
    nv.ok = nv.create && nv.compile && nv.log_size && nv.log && nv.destroy;
}

/* NVRTC (LLVM inside) installs its own handlers for interrupts and crashes when it loads and
 * when it compiles. The interrupts never reach them: every thread blocks those and one thread
 * of src/base/cleanup.c takes them with sigwait (its handler exits with status 4, so a SIGINT
 * it took ended the build with 4, not as an interrupt). The handlers in place before are put
 * back after each of its calls all the same: ch-cc's own are the fallback for a thread that
 * has the signals unblocked, and crashes are not blocked. */
static const int nv_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
                                 SIGSEGV, SIGBUS,  SIGABRT, SIGFPE,  SIGILL};
#define N_NV_SIGNALS (sizeof nv_signals / sizeof *nv_signals)

static void nv_save_signals(struct sigaction *saved)
{
    for (size_t i = 0; i < N_NV_SIGNALS; i++)
        sigaction(nv_signals[i], NULL, &saved[i]);
}

static void nv_restore_signals(const struct sigaction *saved)
{
    for (size_t i = 0; i < N_NV_SIGNALS; i++)
        sigaction(nv_signals[i], &saved[i], NULL);
}

/* Compiles code; 0 compiled, 1 errors (log filled), -1 NVRTC unusable. */
static int nv_compile(const char *code, const char *name, const char *arch, const char *cuda_home,
                      ch_strbuf *log)
{
    const char *hnames[N_STUBS], *htexts[N_STUBS];
    for (size_t i = 0; i < N_STUBS; i++) {
        hnames[i] = stubs[i].name;
        htexts[i] = stubs[i].text;
    }
    char *o_arch = ch_xasprintf("--gpu-architecture=%s", arch);
    char *o_inc = cuda_home ? ch_xasprintf("-I%s/include", cuda_home) : NULL;
    char *o_cccl = cuda_home ? ch_xasprintf("-I%s/include/cccl", cuda_home) : NULL;
    /* -default-device: what the split keeps unannotated (class members, constants) is
     * compiled for the device, as device code would use it */
    const char *opts[] = {o_arch, "-default-device", "-std=c++17", "-Xptxas=-v", o_inc, o_cccl};
    int n_opts = cuda_home ? 6 : 4;
    int rc = -1;
    pthread_mutex_lock(&nv_mu);
    struct sigaction saved[N_NV_SIGNALS];
    nv_save_signals(saved);
    /* should its handler take a signal all the same, its exit(4) must still clean up
     * (src/base/cleanup.c) */
    ch_cleanup_foreign_begin();
    nv_load(cuda_home);
    nvrtc_prog prog = NULL;
    if (nv.ok && nv.create(&prog, code, name, (int)N_STUBS, htexts, hnames) == 0) {
        int cr = nv.compile(prog, n_opts, opts);
        size_t n = 0;
        if (nv.log_size(prog, &n) == 0 && n > 1) {
            char *text = ch_xmalloc(n);
            if (nv.log(prog, text) == 0)
                ch_strbuf_add(log, text, strlen(text));
            free(text);
        }
        /* 6: NVRTC_ERROR_COMPILATION; anything else (a bad option, an old NVRTC that does not
         * know the architecture) means NVRTC cannot judge */
        rc = cr == 0 ? 0 : cr == 6 ? 1 : -1;
        nv.destroy(&prog);
    }
    nv_restore_signals(saved);
    ch_cleanup_foreign_end();
    pthread_mutex_unlock(&nv_mu);
    free(o_arch);
    free(o_inc);
    free(o_cccl);
    return rc;
}

ch_nvrtc_verdict ch_nvrtc_check(const char *src, const char *name, const char *arch,
                                const char *cuda_home, ch_strbuf *log)
{
    ch_device_split d;
    ch_device_code(src, &d);
    ch_nvrtc_verdict v = CH_NVRTC_SKIP;
    if (d.has_kernel) {
        int rc = nv_compile(d.code, name, arch, cuda_home, log);
        v = rc < 0    ? CH_NVRTC_SKIP
            : rc == 0 ? CH_NVRTC_PASS
                      : ch_nvrtc_classify(log->data, name, &d);
    }
    ch_device_split_free(&d);
    return v;
}
