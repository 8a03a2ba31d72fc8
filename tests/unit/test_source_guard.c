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
    {"has_include of a header", "#if __has_include(<cuda_fp16.h>)\n#endif\n", NULL, 0},
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
        ch_guard_finding f = {NULL, 0};
        int rc = ch_source_guard(g->src, CH_GUARD_CANDIDATE, &msg, &f);
        if (!g->expect) {
            cr_expect_eq(rc, 0, "%s: refused: %s", g->name, msg.data);
            continue;
        }
        cr_expect_eq(rc, 1, "%s: passed", g->name);
        cr_expect(msg.data && strstr(msg.data, g->expect), "%s: message '%s'", g->name,
                  msg.data ? msg.data : "");
        cr_expect_eq(f.line, g->line, "%s: line %u, not %u", g->name, f.line, g->line);
        cr_expect_not_null(f.check, "%s: the check's name", g->name);
    }
    ch_strbuf_free(&msg);
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
    };
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        ch_guard_finding f = {NULL, 0};
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
