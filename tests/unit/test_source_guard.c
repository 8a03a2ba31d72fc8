/* The source guard reads a model's source as the preprocessor does: every spelling of an
 * #include of another file (digraphs, trigraphs, line splices, #import, #include_next,
 * __has_include, GCC dependency) and every host-side asm (statement, top level, label, in a line
 * split by a splice or behind digit separators or a raw string) is refused; device-side asm and
 * ordinary sources pass. */
#include <criterion/criterion.h>
#include <string.h>

#include "ch/source_guard.h"

typedef struct guard_case {
    const char *name;
    const char *src;
    const char *expect; /* part of the message; NULL: passes */
    unsigned line;
} guard_case;

#define LAUNCHER "extern \"C\" void f(int n, float *y) { k<<<1, 1>>>(n, y); }\n"
#define KERNEL   "__global__ void k(int n, float *y) { y[0] = n; }\n"

static const guard_case candidates[] = {
    {"plain", "#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n" KERNEL LAUNCHER, NULL, 0},
    {"digraph include", "%:include </home/u/.ssh/id_rsa>\n" KERNEL, "includes </home/u/.ssh", 1},
    {"digraph include, spaced", "  %:  include <unistd.h>\n", "includes <unistd.h>", 1},
    {"trigraph include", "?\?=include </etc/passwd>\n", "includes </etc/passwd>", 1},
    {"spliced include", "\n#inc\\\nlude </etc/passwd>\nint x;\n", "includes </etc/passwd>", 2},
    {"spliced with CRLF", "#include \\\r\n</etc/passwd>\n", "includes </etc/passwd>", 1},
    {"trigraph splice", "#inc?\?/\nlude </etc/passwd>\n", "includes </etc/passwd>", 1},
    {"comment between", "#/**/include/**/</etc/passwd>\n", "includes </etc/passwd>", 1},
    {"quoted", "#include \"../secret.h\"\n", "only system headers", 1},
    {"computed", "#define H </etc/passwd>\n#include H\n", "computed header name", 2},
    {"include_next", "#include_next <stdio.h>\n", "#include_next is not allowed", 1},
    {"import", "#import </etc/passwd>\n", "#import is not allowed", 1},
    {"embed", "#embed </etc/passwd>\n", "#embed is not allowed", 1},
    {"dot dot in an allowed dir", "#include <cuda/../../../etc/passwd>\n", "not an allowed", 1},
    {"has_include probe", "#if __has_include(</root/.netrc>)\n#error yes\n#endif\n",
     "includes </root/.netrc>", 1},
    {"has_include of a header", "#if __has_include(<cuda_fp16.h>)\n#endif\n",
     "on '__has_include' is not allowed", 1},
    /* conditionals the checks and the compiler evaluate differently */
    {"ifdef __NVCC__", KERNEL "#ifdef __NVCC__\nint hidden;\n#endif\n",
     "#ifdef on '__NVCC__' is not allowed", 2},
    {"ifndef __clang__", "\n#ifndef __clang__\n#endif\n", "#ifndef on '__clang__'", 2},
    {"if defined(__GNUC__)", "#if 1 && defined( __GNUC__ )\n#endif\n", "'__GNUC__'", 1},
    {"elif __CUDACC_VER_MAJOR__", "#if 0\n#elif __CUDACC_VER_MAJOR__ >= 12\n#endif\n",
     "#elif on '__CUDACC_VER_MAJOR__'", 2},
    {"if __OPTIMIZE__", "#if __OPTIMIZE__\n#endif\n", "'__OPTIMIZE__'", 1},
    {"ifdef __AVX2__", "#ifdef __AVX2__\n#endif\n", "'__AVX2__'", 1},
    {"has_builtin", "#if __has_builtin(__builtin_expect)\n#endif\n", "'__has_builtin'", 1},
    {"through the source's own macro",
     "#define IS_GCC (defined(__GNUC__) && !defined(__clang__))\n#if IS_GCC\n#endif\n",
     "#if on '__GNUC__'", 2},
    {"through two macros", "#define A __llvm__\n#define B A\n#ifdef X\n#elif B\n#endif\n",
     "'__llvm__'", 4},
    {"a macro defining itself ends", "#define A A\n#if A\n#endif\n", NULL, 0},
    {"gnu dialect name", "#ifdef linux\n#endif\n", "'linux'", 1},
    {"__CUDA_ARCH__ split", KERNEL "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#endif\n",
     NULL, 0},
    {"__cplusplus and own macros",
     "#define TILE 32\n#ifndef TILE\n#define TILE 16\n#elif TILE > 64 || __cplusplus < 201703L\n"
     "#endif\n",
     NULL, 0},
    {"compiler macro outside a conditional is text", "const char *v = \"__clang__\";\n", NULL, 0},
    /* what the compiler predefines from when and where it runs (attacks9 c08): the text is
     * compiled again where it is linked */
    {"__DATE__ in a kernel", "\n__global__ void k(float *y) { y[0] = __DATE__[10] == '6'; }\n",
     "__DATE__ is not allowed", 2},
    {"__TIME__", "const char *t = __TIME__;\n", "__TIME__ is not allowed", 1},
    {"__TIMESTAMP__", "int k = sizeof __TIMESTAMP__;\n", "__TIMESTAMP__ is not allowed", 1},
    {"__BASE_FILE__", "const char *b = __BASE_FILE__;\n", "__BASE_FILE__ is not allowed", 1},
    {"__FILE__ and __LINE__ read the same where it is linked (#line)",
     "#define CHECK(x) if (x) printf(\"%s:%d\", __FILE__, __LINE__)\n", NULL, 0},
    {"a name in a string", "const char *d = \"__DATE__\";\n", NULL, 0},
    /* clocks: a result that depends on when it runs */
    {"clock64", "__global__ void k(long long *o) { o[0] = clock64(); }\n",
     "reads a clock (clock64)", 1},
    {"globaltimer asm",
     "__global__ void k(unsigned long long *o) { unsigned long long t;\n"
     "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); o[0] = t; }\n",
     "reads the globaltimer register", 2},
    {"clock register asm",
     "__global__ void k(unsigned *o) { unsigned t; asm(\"mov.u32 %0, %%clock;\" : \"=r\"(t)); "
     "o[0] = t; }\n",
     "reads the clock register", 1},
    {"host time()", "#include <ctime>\nextern \"C\" void f(int *o) { o[0] = (int)time(0); }\n",
     "reads a clock (time)", 2},
    /* device effects: the user's stdout, the device heap */
    {"device printf",
     "#include <cstdio>\n__global__ void k(float *y)\n{\n    printf(\"ok\\n\");\n}\n",
     "device code prints (printf)", 4},
    {"device malloc", "__global__ void k(float **y)\n{\n    y[0] = (float *)malloc(64);\n}\n",
     "device code uses the device heap (malloc)", 3},
    {"host malloc and free beside a kernel",
     "#include <stdlib.h>\n__global__ void k(float *y) { y[0] = 1; }\n"
     "extern \"C\" void f(void) { void *p = malloc(4); free(p); }\n",
     NULL, 0},
    {"words near clocks",
     "__global__ void k(int clocks, int time_steps, float *y) { int time = "
     "clocks; y[0] = time + time_steps; }\n",
     NULL, 0},
    {"gcc dependency", "#pragma GCC dependency \"/etc/shadow\"\n", "GCC dependency", 1},
    {"_Pragma dependency", "_Pragma(\"GCC dependency \\\"/etc/shadow\\\"\")\n", "GCC dependency",
     1},
    {"define __device__", "#define __device__\n", "#define __device__ is not allowed", 1},
    {"undef __CUDA_ARCH__", "#undef __CUDA_ARCH__\n", "#undef __CUDA_ARCH__", 1},
    {"top-level asm", KERNEL "asm(\".include \\\"/etc/passwd\\\"\");\n", "inline assembly", 2},
    {"__asm in the launcher",
     KERNEL "extern \"C\" void f(int n, float *y) { __asm(\"nop\"); k<<<1, 1>>>(n, y); }\n",
     "inline assembly", 2},
    {"asm label", "extern \"C\" int run(const char *) asm(\"system\");\n", "asm label", 1},
    {"asm split by a splice", "a\\\nsm(\".incbin \\\"/etc/passwd\\\"\");\n", "inline assembly", 1},
    {"asm behind digit separators", "int a = 1'0; asm(\"nop\"); int b = 2'0;\n", "inline assembly",
     1},
    {"asm behind a raw string", "const char *s = R\"x( \" )x\"; asm(\"nop\");\n", "inline assembly",
     1},
    {"asm in a host-device function", "__host__ __device__ void g() { asm(\"syscall\"); }\n",
     "inline assembly", 1},
    {"asm in a string is text", "const char *s = \"asm(x)\";\n", NULL, 0},
    {"asm in device code",
     "__global__ void k(unsigned *o) { unsigned l; asm volatile(\"mov.u32 %0, %%laneid;\" : "
     "\"=r\"(l)); o[0] = l; }\n" LAUNCHER,
     NULL, 0},
    {"asm in a device function in a namespace",
     "namespace d { __device__ __forceinline__ unsigned lane() { unsigned l; asm(\"mov.u32 %0, "
     "%%laneid;\" : \"=r\"(l)); return l; } }\n",
     NULL, 0},
    {"asm in a device lambda",
     "extern \"C\" void f() { auto g = [] __device__ (int x) { asm(\"trap;\"); }; }\n", NULL, 0},
    {"pasted asm", "#define L(x) a##sm(x)\nstatic void e(void) L(\"__sti____cudaRegisterAll\");\n",
     "token pasting (##) is not allowed", 1},
    {"pasted through a digraph", "#define P(a, b) a %:%: b\n", "token pasting", 1},
    {"## in a string is text", "#define S \"a##b\"\n", NULL, 0},
    {"template <::", "#include <vector>\nstd::vector<::size_t> v;\n", NULL, 0},
};

Test(source_guard, candidates)
{
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        const guard_case *g = &candidates[i];
        ch_guard_finding f = {NULL, 0, 0};
        int rc = ch_source_guard(g->src, CH_GUARD_CANDIDATE, &msg, &f);
        if (!g->expect) {
            cr_expect_eq(rc, 0, "%s: refused: %s", g->name, msg.data);
            continue;
        }
        cr_expect_eq(rc, 1, "%s: passed", g->name);
        cr_expect(msg.data && strstr(msg.data, g->expect), "%s: message '%s'", g->name,
                  msg.data ? msg.data : "");
        cr_expect_eq(f.line, g->line, "%s: line %u, not %u", g->name, f.line, g->line);
        cr_expect_gt(f.col, 0, "%s: no column", g->name);
        cr_expect_not_null(f.check, "%s: the check's name", g->name);
    }
    ch_strbuf_free(&msg);
}

/* The finding names the column of the name a conditional tests. */
Test(source_guard, conditional_column)
{
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_guard_finding f = {NULL, 0, 0};
    cr_assert_eq(
        ch_source_guard("int a;\n#if 1 && __GNUC__ > 4\n#endif\n", CH_GUARD_CANDIDATE, &msg, &f),
        1);
    cr_expect_eq(f.line, 2);
    cr_expect_eq(f.col, 10, "column %u", f.col);
    cr_expect_str_eq(f.check, "conditional");
    ch_strbuf_free(&msg);
}

/* Macros followed from a conditional are each followed once: twenty macros that each name the
 * next one four times took 4^20 steps before (fuzz_guard's timeout). The last one's compiler
 * macro is still found through the chain; without it, the chain is accepted; and quickly. */
static char *macro_chain(int n, const char *last)
{
    ch_strbuf s;
    ch_strbuf_init(&s);
    for (int i = 0; i < n; i++)
        ch_strbuf_addf(&s, "#define M%d (M%d + M%d + M%d + M%d)\n", i, i + 1, i + 1, i + 1, i + 1);
    ch_strbuf_addf(&s, "#define M%d %s\n#if M0\nint a;\n#endif\n", n, last);
    return ch_strbuf_detach(&s);
}

Test(source_guard, a_macro_chain_is_followed_once_per_name, .timeout = 10)
{
    ch_guard_finding f = {NULL, 0, 0};
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    char *bad = macro_chain(20, "__GNUC__"), *good = macro_chain(20, "1");
    cr_assert_eq(ch_source_guard(bad, CH_GUARD_CANDIDATE, &msg, &f), 1, "%s", msg.data);
    cr_expect(strstr(msg.data, "'__GNUC__'"), "%s", msg.data);
    ch_strbuf_reset(&msg);
    /* the clean chain is no conditional's concern, but its 4^20 tokens are a compile bomb */
    cr_assert_eq(ch_source_guard(good, CH_GUARD_CANDIDATE, &msg, &f), 1, "%s", msg.data);
    cr_expect_str_eq(f.check, "macro-size");
    free(good);
    good = macro_chain(5, "1");
    cr_expect_eq(ch_source_guard(good, CH_GUARD_CANDIDATE, &msg, &f), 0, "%s", msg.data);
    free(bad);
    free(good);
    ch_strbuf_free(&msg);
}

/* attacks7 row 29: each #define doubles the last; the first whose expansion reaches 2^20
 * tokens is refused at its line, before anything parses it. Recursive names end (a macro is
 * not expanded inside itself), and ordinary macros pass. */
Test(source_guard, a_macro_bomb_is_refused_at_its_define, .timeout = 10)
{
    ch_strbuf s;
    ch_strbuf_init(&s);
    ch_strbuf_adds(&s, "#define B0 +1\n");
    for (int i = 1; i <= 28; i++)
        ch_strbuf_addf(&s, "#define B%d B%d B%d\n", i, i - 1, i - 1);
    ch_strbuf_adds(&s, "int big = (int)sizeof(char[1 B28]);\n");
    ch_guard_finding f = {NULL, 0, 0};
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_assert_eq(ch_source_guard(s.data, CH_GUARD_CANDIDATE, &msg, &f), 1);
    cr_expect_str_eq(f.check, "macro-size");
    cr_expect_eq(f.line, 20); /* B19: 2^20 tokens */
    cr_expect(strstr(msg.data, "the macro 'B19' expands to 1048576 tokens or more"), "%s",
              msg.data);
    static const char *const fine[] = {
        "#define A A A\n#define B C C\n#define C B B\nint x = A + B;\n",
        "#define CHECK(e) do { if ((e) != cudaSuccess) return; } while (0)\n"
        "#define TILE 32\n#define IDX(r, c) ((r) * TILE + (c))\n",
        NULL};
    for (size_t i = 0; fine[i]; i++)
        cr_expect_eq(ch_source_guard(fine[i], CH_GUARD_CANDIDATE, &msg, &f), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    ch_strbuf_free(&s);
}

/* A reference is host C: C standard headers only, no asm anywhere. */
Test(source_guard, references)
{
    static const guard_case refs[] = {
        {"plain", "#include <math.h>\nvoid f(int n, float *y) { y[0] = sqrtf(n); }\n", NULL, 0},
        {"C++ header", "#include <vector>\n", "C standard headers only", 1},
        {"CUDA header", "#include <cuda_runtime.h>\n", "C standard headers only", 1},
        {"digraph include", "%:include </etc/passwd>\n", "includes </etc/passwd>", 1},
        {"asm", "void f(void) { __asm__(\"nop\"); }\n", "inline assembly", 1},
        {"asm in a __global__", "__global__ void k() { asm(\"trap;\"); }\n", "inline assembly", 1},
        {"ifndef __clang__", "#include <stdlib.h>\n#ifndef __clang__\nstatic int x;\n#endif\n",
         "#ifndef on '__clang__'", 2},
        {"__STDC_VERSION__ follows the user's -std", "#if __STDC_VERSION__ >= 201112L\n#endif\n",
         "'__STDC_VERSION__'", 1},
        {"own macros pass", "#define N 4\n#if N > 2\nvoid f(void) {}\n#endif\n", NULL, 0},
        /* a reference is compiled after the candidate where a kernel is linked: a name it
         * does not define may be the candidate's macro there (attacks9 r01) */
        {"a name it does not define", "void f(void) {}\n#ifdef f_reference\n#endif\n",
         "#ifdef on 'f_reference' is not allowed", 2},
        {"defined() of its own include guard", "#if !defined(REF_H)\n#define REF_H\n#endif\n", NULL,
         0},
        {"__DATE__", "int y = __DATE__[0];\n", "__DATE__ is not allowed", 1},
    };
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        ch_guard_finding f = {NULL, 0, 0};
        int rc = ch_source_guard(refs[i].src, CH_GUARD_REFERENCE, &msg, &f);
        if (!refs[i].expect) {
            cr_expect_eq(rc, 0, "%s: refused: %s", refs[i].name, msg.data);
            continue;
        }
        cr_expect_eq(rc, 1, "%s: passed", refs[i].name);
        cr_expect(msg.data && strstr(msg.data, refs[i].expect), "%s: message '%s'", refs[i].name,
                  msg.data ? msg.data : "");
    }
    ch_strbuf_free(&msg);
}

/* Phase 2 keeps every line where it was: a joined line's removed newlines follow it. */
Test(source_guard, phase2_keeps_line_numbers)
{
    char *t = ch_source_phase2("a\\\nb\nc ?\?= <% %> <: :> %:\n<::x\n");
    cr_expect_str_eq(t, "ab\n\nc # { } [ ] #\n<::x\n");
    free(t);
}
