/* Hardening (ch/harden.h): every local a candidate declares without an initialiser gets `{}`,
 * on its own line, so that no thread reads what an earlier launch left in local memory
 * (attacks7 #21); a local the rule cannot reach is refused with its place. The hardened text
 * must still compile with nvcc where nvcc exists. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/harden.h"
#include "ch/strbuf.h"

static char *hardened(const char *src)
{
    ch_strbuf why;
    ch_strbuf_init(&why);
    char *out = NULL;
    int rc = ch_harden_locals(src, &out, &why);
    cr_assert_eq(rc, 0, "refused: %s", why.len ? why.data : "");
    ch_strbuf_free(&why);
    return out;
}

static char *refusal(const char *src)
{
    ch_strbuf why;
    ch_strbuf_init(&why);
    char *out = NULL;
    cr_assert_eq(ch_harden_locals(src, &out, &why), 1, "not refused: %s", out ? out : "");
    return ch_strbuf_detach(&why);
}

#define HEAD "#include <cuda_runtime.h>\n"

static const char counter_kernel[] =
    HEAD "__global__ void saxpy_k(int n, float a, const float *x, float *y)\n{\n"
         "    volatile unsigned slot[32];\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    int k = (n & 15) + 1;\n    unsigned seen = slot[k];\n"
         "    if (i < n && seen != 7u)\n        y[i] = a * x[i] + y[i];\n    slot[k] = 7u;\n}\n";

Test(harden, a_local_array_read_before_written_starts_zeroed)
{
    char *out = hardened(counter_kernel);
    cr_assert(strstr(out, "    volatile unsigned slot[32]{};\n"), "%s", out);
    cr_assert(strstr(out, "int i = blockIdx.x"), "initialised locals untouched");
    cr_assert(!strstr(out, "seen{}"));
    /* only insertions: as many lines, and the same text once the insertions are taken out */
    char *p;
    while ((p = strstr(out, "{}")))
        memmove(p, p + 2, strlen(p + 2) + 1);
    cr_assert_str_eq(out, counter_kernel);
    free(out);
}

Test(harden, every_declarator_without_an_initialiser_and_nothing_else)
{
    const char *src =
        HEAD "__device__ int g;\n__global__ void k(int *y)\n{\n"
             "    int a, b = 2, c[3] /* rows */ [2], *d;\n"
             "    static int s;\n    __shared__ float t[32];\n"
             "    for (int j; ;) { (void)j; break; }\n"
             "    int e[2] = {1, 2}, f(3), h{4};\n"
             "    for (int v : e) y[v] = a + b + c[0][0] + *d + s + (int)t[0] + f + h;\n"
             "}\n";
    char *out = hardened(src);
    cr_assert(strstr(out, "    int a{}, b = 2, c[3] /* rows */ [2]{}, *d{};\n"), "%s", out);
    cr_assert(strstr(out, "    static int s;\n    __shared__ float t[32];\n"), "%s", out);
    cr_assert(strstr(out, "for (int j{}; ;)"), "%s", out);
    cr_assert(strstr(out, "int e[2] = {1, 2}, f(3), h{4};"), "%s", out);
    cr_assert(strstr(out, "for (int v : e)"), "%s", out);
    cr_assert(strstr(out, "__device__ int g;"), "globals are the PTX check's");
    /* hardening twice changes nothing more */
    char *again = hardened(out);
    cr_assert_str_eq(again, out);
    free(again);
    free(out);
}

Test(harden, a_local_hidden_in_a_macro_is_refused)
{
    char *why =
        refusal(HEAD "#define SLOT(name) volatile unsigned name[32]\n"
                     "__global__ void k(unsigned *y)\n{\n    SLOT(s);\n    y[0] = s[1];\n}\n");
    cr_assert(strstr(why, "line 5:") && strstr(why, "macro"), "%s", why);
    free(why);
}

Test(harden, a_constructor_that_leaves_a_member_unwritten_is_refused)
{
    char *why = refusal(HEAD "struct S {\n    unsigned v;\n    float w = 0;\n"
                             "    __device__ S() {}\n};\n"
                             "__global__ void k(unsigned *y)\n{\n    S s;\n    y[0] = s.v;\n}\n");
    cr_assert(strstr(why, "'S'") && strstr(why, "'v'"), "%s", why);
    free(why);
    why = refusal(HEAD "struct S {\n    unsigned v;\n    __device__ S();\n};\n"
                       "__device__ S::S() {}\n"
                       "__global__ void k(unsigned *y)\n{\n    S s;\n    y[0] = s.v;\n}\n");
    cr_assert(strstr(why, "'v'"), "defined outside the class: %s", why);
    free(why);
    char *out =
        hardened(HEAD "struct P {\n    float v;\n    int i = -1;\n"
                      "    __device__ P() : v(0.0f) {}\n};\n"
                      "__global__ void k(float *y)\n{\n    P p;\n    y[0] = p.v + p.i;\n}\n");
    cr_assert(strstr(out, "    P p{};\n"), "%s", out);
    free(out);
    /* attacks8 #05: a member initialised from itself stays unwritten, however spelled */
    why = refusal(HEAD "struct C {\n    unsigned c;\n    __device__ C() : c(c) {}\n};\n"
                       "__global__ void k(unsigned *y)\n{\n    C s;\n    y[0] = s.c;\n}\n");
    cr_assert(strstr(why, "'c'"), "c(c): %s", why);
    free(why);
    why = refusal(HEAD "struct C {\n    unsigned c;\n    float f;\n"
                       "    __device__ C() : f(1.0f), c(this->c + 1u) {}\n};\n"
                       "__global__ void k(unsigned *y)\n{\n    C s;\n    y[0] = s.c;\n}\n");
    cr_assert(strstr(why, "'c'"), "c(this->c + 1): %s", why);
    free(why);
    /* another member's value (written before it, in declaration order) is fine */
    out = hardened(HEAD "struct Q {\n    float a;\n    float b;\n"
                        "    __device__ Q() : a(2.0f), b(a) {}\n};\n"
                        "__global__ void k(float *y)\n{\n    Q q;\n    y[0] = q.a + q.b;\n}\n");
    cr_assert(strstr(out, "    Q q{};\n"), "%s", out);
    free(out);
}

Test(harden, parenthesised_declarators_and_ones_it_cannot_read)
{
    char *out =
        hardened(HEAD "__global__ void k(int *y)\n{\n    extern __shared__ int s[];\n"
                      "    int (*p)[4], (*q)[4] = reinterpret_cast<int (*)[4]>(s);\n"
                      "    void (*f)(int);\n    y[0] = (*p)[0] + (*q)[0] + (f ? 1 : 0);\n}\n");
    cr_assert(strstr(out, "    int (*p)[4]{}, (*q)[4] = reinterpret_cast<int (*)[4]>(s);\n"
                          "    void (*f)(int){};\n"),
              "%s", out);
    free(out);
    char *why = refusal(HEAD "__global__ void k(int *y)\n{\n    int v __attribute__((unused));\n"
                             "    y[0] = v;\n}\n");
    cr_assert(strstr(why, "line 4:") && strstr(why, "'v'"), "%s", why);
    free(why);
}

/* shared memory or inline assembly, however the text spells it, marks the candidate for the
 * unit's scrub (src/emit/scrub.c looks for the word); a candidate with neither is not marked */
Test(harden, shared_memory_the_text_hides_is_marked_for_the_scrub)
{
    const char *spliced = HEAD "#define CAT(a, b) a##b\n"
                               "__global__ void k(float *y)\n{\n    __sha\\\nred__ float t[32];\n"
                               "    CAT(__sha, red__) float u[32];\n    y[0] = t[1] + u[1];\n}\n";
    char *out = hardened(spliced);
    cr_assert(strstr(out, "ch-cc: this candidate declares shared memory"), "%s", out);
    char *again = hardened(out);
    cr_assert_str_eq(again, out, "marked once");
    free(again);
    free(out);
    out = hardened(HEAD "__global__ void k(unsigned *y)\n{\n    unsigned v;\n"
                        "    asm volatile(\".sha\" \"red\" \"\" : \"=r\"(v));\n    y[0] = v;\n}\n");
    cr_assert(strstr(out, "ch-cc: this candidate declares shared memory"), "asm: %s", out);
    free(out);
    out = hardened(counter_kernel);
    cr_assert_null(strstr(out, "ch-cc: this candidate"), "%s", out);
    free(out);
}

Test(harden, unions_member_bounds_and_alloca)
{
    char *why = refusal(HEAD "union U {\n    unsigned v;\n    float f;\n    __device__ U() {}\n};\n"
                             "__global__ void k(unsigned *y)\n{\n    U u;\n    y[0] = u.v;\n}\n");
    cr_assert(strstr(why, "'U'") && strstr(why, "'v'"), "a union: %s", why);
    free(why);
    why = refusal(HEAD "struct S {\n    unsigned v[32];\n    __device__ S() {}\n};\n"
                       "__global__ void k(unsigned *y)\n{\n    S s;\n    y[0] = s.v[3];\n}\n");
    cr_assert(strstr(why, "'v'"), "an array member's bound is no initialiser: %s", why);
    free(why);
    why =
        refusal(HEAD "__global__ void k(unsigned *y)\n{\n"
                     "    unsigned *p = (unsigned *)__builtin_alloca(128);\n    y[0] = p[3];\n}\n");
    cr_assert(strstr(why, "line 4:") && strstr(why, "alloca"), "%s", why);
    free(why);
}

/* attacks8 #18: an allocator hands back a block with what an earlier call left in it; every
 * allocation the candidate names is renamed to a wrapper that zeroes the block (the prelude,
 * one line before the first code), wherever the name is written: a call, a macro's argument,
 * a macro of the candidate's, a qualified name, a call in a template */
static const char allocating[] =
    HEAD "#define CHECK(x) do { if ((x) != cudaSuccess) return 1; } while (0)\n"
         "#define GRAB(p) (p)\n"
         "template <class T> static int grab(T **p, size_t n) { return (int)cudaMalloc(p, n); }\n"
         "__global__ void k(unsigned *s, float *y) { y[0] = (float)s[0]; }\n"
         "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
         "    unsigned *s = 0;\n    float *t = 0;\n"
         "    CHECK(cudaMalloc(&s, 256));\n"
         "    if (cudaMallocAsync(GRAB((void **)&t), 64, 0) || ::cudaMallocManaged(&t, 4))\n"
         "        return 1;\n"
         "    if (grab(&t, 16))\n        return 1;\n"
         "    k<<<1, 1>>>(s, y);\n    cudaFree(s);\n    return 0;\n}\n";

Test(harden, every_allocation_the_candidate_names_starts_zeroed)
{
    char *out = hardened(allocating);
    cr_assert(strstr(out, "CHECK(ch_z_cudaMalloc(&s, 256));"), "%s", out);
    cr_assert(strstr(out, "if (ch_z_cudaMallocAsync(GRAB((void **)&t), 64, 0) ||"), "%s", out);
    cr_assert(strstr(out, "::ch_z_cudaMallocManaged(&t, 4)"), "%s", out);
    cr_assert(strstr(out, "return (int)ch_z_cudaMalloc(p, n);"), "%s", out);
    cr_assert(strstr(out, "cudaFree(s)") && !strstr(out, "ch_z_cudaFree"), "%s", out);
    /* the prelude once, on the first line of code: every line keeps its number */
    const char *pre = strstr(out, "ch_z_device");
    cr_assert(pre && strstr(pre + 1, "ch_z_device"), "%s", out);
    cr_assert(strstr(out, "template <class T> static int grab") > pre);
    size_t lines_in = 0, lines_out = 0;
    for (const char *p = allocating; *p; p++)
        lines_in += *p == '\n';
    for (const char *p = out; *p; p++)
        lines_out += *p == '\n';
    cr_assert_eq(lines_out, lines_in);
    cr_assert(strstr(out, "\n    k<<<1, 1>>>(s, y);\n"));
    /* hardened again (a text hardened before): nothing changes */
    char *again = hardened(out);
    cr_assert_str_eq(again, out);
    free(again);
    free(out);
    /* a candidate that allocates nothing gets no prelude */
    out = hardened(counter_kernel);
    cr_assert(!strstr(out, "ch_z_"), "%s", out);
    free(out);
}

Test(harden, an_allocation_token_pasting_or_a_macro_body_hides_is_refused)
{
    char *body = refusal(HEAD "#define GRAB(p) cudaMallocAsync(p, 64, 0)\n"
                              "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
                              "    float *t = 0;\n    return (int)GRAB(&t);\n}\n");
    cr_assert(strstr(body, "line 6:") && strstr(body, "cudaMallocAsync"), "%s", body);
    free(body);
    char *why = refusal(HEAD "#define ALLOC(kind) cuda##kind\n"
                             "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
                             "    float *t = 0;\n    ALLOC(Malloc)(&t, 64);\n    return 0;\n}\n");
    cr_assert(strstr(why, "line 6:") && strstr(why, "cudaMalloc") &&
                  strstr(why, "cannot be made to start zeroed"),
              "%s", why);
    free(why);
}

/* attacks9 #7: a CUDA array holds what an earlier call left in it and has no zeroing wrapper:
 * each of its allocators is refused where it is called, by name or through a macro */
Test(harden, a_cuda_array_allocation_is_refused)
{
    static const char *const calls[] = {
        "cudaMallocArray(&a, &fmt, 64, 1)",
        "cudaMalloc3DArray(&a, &fmt, make_cudaExtent(64, 1, 1))",
        "cudaMallocMipmappedArray(&m, &fmt, make_cudaExtent(64, 1, 0), 2)",
    };
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
        char *src = ch_xasprintf(
            HEAD "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
                 "    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();\n"
                 "    cudaArray_t a = 0;\n    cudaMipmappedArray_t m = 0;\n"
                 "    cudaError_t e = %s;\n    return (int)e + (a != 0) + (m != 0);\n}\n",
            calls[i]);
        char *why = refusal(src);
        cr_expect(strstr(why, "line 7:") && strstr(why, "allocates a CUDA array") &&
                      strstr(why, "cannot be made to start zeroed"),
                  "%s: %s", calls[i], why);
        free(why);
        free(src);
    }
    char *why = refusal(HEAD "#define ARR(p, f) cudaMallocArray(p, f, 64, 1)\n"
                             "extern \"C\" int f_device_launcher(int n, float *y)\n{\n"
                             "    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();\n"
                             "    cudaArray_t a = 0;\n    return (int)ARR(&a, &fmt);\n}\n");
    cr_expect(strstr(why, "line 7:") && strstr(why, "cannot be made to start zeroed"), "%s", why);
    free(why);
}

/* the hardened counter kernel and allocating launcher still compile (where nvcc is) */
Test(harden, the_hardened_text_compiles)
{
    const char *cuda = getenv("CUDA_HOME");
    char *nvcc = ch_xasprintf("%s/bin/nvcc", cuda && *cuda ? cuda : "/usr/local/cuda");
    if (access(nvcc, X_OK) != 0) {
        free(nvcc);
        cr_skip_test("no nvcc");
    }
    char *k = hardened(counter_kernel), *a = hardened(allocating);
    char *out = ch_xasprintf("%s\n%s", k, strstr(a, "#define CHECK"));
    free(k);
    free(a);
    char dir[] = "/tmp/ch-harden-XXXXXX";
    cr_assert(mkdtemp(dir));
    char *cu = ch_xasprintf("%s/k.cu", dir);
    FILE *f = fopen(cu, "w");
    cr_assert(f);
    fputs(out, f);
    fclose(f);
    char *cmd = ch_xasprintf("'%s' -c -arch=sm_90 -o '%s/k.o' '%s' 2>&1", nvcc, dir, cu);
    int rc = system(cmd);
    char *rm = ch_xasprintf("rm -rf '%s'", dir);
    cr_assert_eq(system(rm), 0);
    cr_assert_eq(rc, 0, "nvcc failed on:\n%s", out);
    free(rm);
    free(cmd);
    free(cu);
    free(out);
    free(nvcc);
}
