/* The object check judges what nvcc made of a candidate: a builtin translator's candidate
 * passes; a constructor, a destructor, a call to system() through a function pointer, a static
 * initializer and an inline `syscall` are rejected, whatever the text looked like. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/verify.h"

static char *dir;

static void setup(void)
{
    ch_error err;
    dir = ch_make_temp_dir("objcheck-test", &err);
    cr_assert(dir, "%s", err.msg);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(dir, &err);
    free(dir);
}

TestSuite(object_check, .init = setup, .fini = teardown, .timeout = 300);

/* nvcc -c of src in the test's directory; the object's path (caller frees). */
static char *compile(const char *name, const char *src)
{
    char *cu = ch_xasprintf("%s/%s.cu", dir, name), *obj = ch_xasprintf("%s/%s.o", dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(cu, src, strlen(src), 0, &err), 0, "%s", err.msg);
    char *cmd = ch_xasprintf("nvcc -c -arch=sm_90 -o '%s' '%s' 2>&1", obj, cu);
    cr_assert_eq(system(cmd), 0, "nvcc failed on %s", name);
    free(cmd);
    free(cu);
    return obj;
}

static void expect_rejected(const char *name, const char *src, const char *why)
{
    char *obj = compile(name, src);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(obj, &msg), 1, "%s passed the object check", name);
    cr_expect(msg.data && strstr(msg.data, why), "%s: %s", name, msg.data ? msg.data : "");
    ch_strbuf_free(&msg);
    free(obj);
}

#define KERNEL                                                                                     \
    "__global__ void k(int n, float *x) { int i = threadIdx.x; if (i < n) x[i] *= 2; }\n"          \
    "extern \"C\" void twice_launcher(int n, float *x) { k<<<1, 32>>>(n, x); }\n"

Test(object_check, builtin_candidate_passes)
{
    const char *src_dir = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    char *path = ch_xasprintf("%s/tests/unit/data/builtin_twice.cu", src_dir), *text;
    ch_error err;
    cr_assert_eq(ch_read_file(path, &text, NULL, &err), 0, "%s", err.msg);
    char *obj = compile("builtin", text);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(obj, &msg), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    free(obj);
    free(text);
    free(path);
}

Test(object_check, plain_kernel_with_math_passes)
{
    char *obj = compile("math", "#include <math.h>\n#include <string.h>\n" KERNEL
                                "extern \"C\" double h(double *a, int n) { memset(a, 0, n);"
                                " return sqrt(a[0]) + sinf((float)a[1]); }\n");
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(obj, &msg), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    free(obj);
}

Test(object_check, constructor_rejected)
{
    expect_rejected("ctor", KERNEL "__attribute__((constructor)) static void early(void) { }\n",
                    "runs at program start");
}

Test(object_check, destructor_rejected)
{
    expect_rejected("dtor", KERNEL "__attribute__((destructor)) static void late(void) { }\n",
                    "start or exit");
}

Test(object_check, system_through_a_function_pointer_rejected)
{
    expect_rejected(
        "sys",
        "#include <stdlib.h>\n" KERNEL "static int (*volatile run)(const char *) = (system);\n"
        "extern \"C\" void twice(int n, float *x) { run(\"id\"); twice_launcher(n, x); }\n",
        "calls 'system'");
}

Test(object_check, static_initializer_rejected)
{
    expect_rejected("init",
                    "#include <unistd.h>\n" KERNEL "static int pid = getpid();\n"
                    "extern \"C\" int who(void) { return pid; }\n",
                    "object check");
}

Test(object_check, inline_syscall_rejected)
{
    expect_rejected("asm",
                    KERNEL "extern \"C\" long raw(long n) { long r; __asm__ volatile(\"syscall\" : "
                           "\"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\", \"memory\"); return r; }\n",
                    "system call instruction");
}

/* A constructor that takes the registration's name through an asm label (the C spelling
 * nvcc's own, C++, registration does not use) at a priority, so that it runs first: the
 * registration is accepted once, at the default priority only. Token pasting forms the asm
 * keyword, as the text check cannot see through it. */
Test(object_check, constructor_named_as_the_registration_rejected)
{
    expect_rejected("label_prio",
                    "#define LABEL(x) a##sm(x)\n" KERNEL
                    "__attribute__((constructor(101))) static void early(void) "
                    "LABEL(\"__sti____cudaRegisterAll\");\n"
                    "static void early(void) { }\n",
                    "runs at program start (.init_array.00101: __sti____cudaRegisterAll)");
}

Test(object_check, a_second_registration_rejected)
{
    expect_rejected("label_twice",
                    "#define LABEL(x) a##sm(x)\n" KERNEL
                    "static void early(void) LABEL(\"__sti____cudaRegisterAll\");\n"
                    "__attribute__((section(\".init_array\"), used)) static void (*slot)(void) "
                    "= early;\n"
                    "static void early(void) { }\n",
                    "runs at program start");
}

Test(object_check, huge_static_data_rejected)
{
    expect_rejected("bss",
                    KERNEL "static char huge[1ull << 40];\n"
                           "extern \"C\" void touch(int n) { huge[n] = 1; }\n",
                    "MiB or more of static data");
}

Test(object_check, not_an_object_rejected)
{
    char *path = ch_xasprintf("%s/junk.o", dir);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path,
                                      "\x7f"
                                      "ELFjunk",
                                      8, 0, &err),
                 0);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(path, &msg), 1);
    cr_expect(strstr(msg.data, "not a 64-bit relocatable ELF object"), "%s", msg.data);
    ch_strbuf_free(&msg);
    free(path);
}

Test(object_check, allow_list)
{
    cr_expect(ch_object_symbol_allowed("cudaMemcpyAsync"));
    cr_expect(ch_object_symbol_allowed("__cudaRegisterFunction"));
    cr_expect(ch_object_symbol_allowed("sqrtf"));
    cr_expect(ch_object_symbol_allowed("memcpy"));
    cr_expect_not(ch_object_symbol_allowed("system"));
    cr_expect_not(ch_object_symbol_allowed("fopen"));
    cr_expect_not(ch_object_symbol_allowed("syscall"));
    cr_expect_not(ch_object_symbol_allowed("sinh_evil"));
    cr_expect_not(ch_object_symbol_allowed("environ"));
}

/* cc -O2 -D_FORTIFY_SOURCE=2 -c of C source src (what Ubuntu's gcc does by default at -O). */
static char *compile_fortified(const char *name, const char *src)
{
    char *c = ch_xasprintf("%s/%s.c", dir, name), *obj = ch_xasprintf("%s/%s.o", dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(c, src, strlen(src), 0, &err), 0, "%s", err.msg);
    char *cmd = ch_xasprintf("cc -O2 -D_FORTIFY_SOURCE=2 -c -o '%s' '%s' 2>&1", obj, c);
    cr_assert_eq(system(cmd), 0, "cc failed on %s", name);
    free(cmd);
    free(c);
    return obj;
}

/* A fortified fprintf or memcpy (__fprintf_chk, __memcpy_chk) is allowed wherever the plain
 * function is; a fortified function that is not allowed plain (fgets) is still refused. */
Test(object_check, fortified_names)
{
    char *ok = compile_fortified("fortified_ok",
                                 "#include <stdio.h>\n#include <string.h>\n"
                                 "void f(char *d, const char *s, size_t n, int v)\n{\n"
                                 "    char b[16];\n    memcpy(b, s, n < 16 ? n : 16);\n"
                                 "    memcpy(d, b, 16);\n    fprintf(stderr, \"%d\\n\", v);\n}\n");
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check_as(ok, CH_OBJECT_UNIT, NULL, 0, &msg), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    char *bad = compile_fortified("fortified_bad",
                                  "#include <stdio.h>\n"
                                  "void g(FILE *in, char *line) { char b[8]; fgets(b, 8, in); "
                                  "line[0] = b[0]; }\n");
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check_as(bad, CH_OBJECT_UNIT, NULL, 0, &msg), 1, "fgets passed");
    cr_expect(msg.data && strstr(msg.data, "fgets"), "%s", msg.data ? msg.data : "");
    ch_strbuf_free(&msg);
    free(ok);
    free(bad);
}
