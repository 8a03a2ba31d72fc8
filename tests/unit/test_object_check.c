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
    char *obj =
        compile("math", "#include <math.h>\n#include <string.h>\n" KERNEL
                        "extern \"C\" double h_launcher(double *a, int n) { memset(a, 0, n);"
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
    expect_rejected("sys",
                    "#include <stdlib.h>\n" KERNEL
                    "static int (*volatile run)(const char *) = (system);\n"
                    "extern \"C\" void twice2_launcher(int n, float *x) { run(\"id\"); "
                    "twice_launcher(n, x); }\n",
                    "calls 'system'");
}

Test(object_check, static_initializer_rejected)
{
    expect_rejected("init",
                    "#include <unistd.h>\n" KERNEL "static int pid = getpid();\n"
                    "extern \"C\" int who_launcher(void) { return pid; }\n",
                    "object check");
}

Test(object_check, inline_syscall_rejected)
{
    expect_rejected(
        "asm",
        KERNEL "extern \"C\" long raw_launcher(long n) { long r; __asm__ volatile(\"syscall\" : "
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
                           "extern \"C\" void touch_launcher(int n) { huge[n] = 1; }\n",
                    "MiB or more of static data");
}

/* Load-time code without a constructor entry: an ifunc's resolver runs while the loader
 * relocates; .init and .fini bytes are spliced into _init and _fini. */
Test(object_check, ifunc_rejected)
{
    expect_rejected("ifunc",
                    KERNEL "extern \"C\" { static void *pick(void) { return 0; }\n"
                           "static void hooked(void) __attribute__((ifunc(\"pick\"))); }\n"
                           "extern \"C\" void go_launcher(int n) { if (n < 0) hooked(); }\n",
                    "'hooked' is an indirect function (ifunc)");
}

Test(object_check, init_and_fini_sections_rejected)
{
    expect_rejected("init_section",
                    KERNEL "__attribute__((section(\".init\"), used)) static void e(void) { }\n",
                    "runs at program start or exit (.init)");
    expect_rejected("fini_section",
                    KERNEL "__attribute__((section(\".fini\"), used)) static void e(void) { }\n",
                    "runs at program start or exit (.fini)");
}

Test(object_check, code_outside_text_rejected)
{
    expect_rejected("odd_section",
                    KERNEL "__attribute__((section(\".gnu.linkonce.x\"), used)) static void "
                           "e(void) { }\n",
                    "executable code in section");
}

/* A static local with a destructor registers it with __cxa_atexit from the launcher; nvcc's
 * own registration calls atexit too, and passes (builtin_candidate_passes). */
Test(object_check, exit_handler_outside_the_registration_rejected)
{
    expect_rejected("static_dtor",
                    KERNEL "struct Later { ~Later() { cudaFree(0); } };\n"
                           "extern \"C\" void go_launcher(int n) { static Later l; (void)l; }\n",
                    "registers a function to run at program exit (__cxa_atexit in go_launcher)");
}

Test(object_check, cuda_calls_past_the_launcher_rejected)
{
    expect_rejected("reset", KERNEL "extern \"C\" void go_launcher(void) { cudaDeviceReset(); }\n",
                    "calls 'cudaDeviceReset', a CUDA runtime function");
    cr_expect_not(ch_object_symbol_allowed("cudaIpcOpenMemHandle"));
    cr_expect_not(ch_object_symbol_allowed("cudaGetDriverEntryPointByVersion"));
    cr_expect(ch_object_symbol_allowed("cudaDeviceSynchronize"));
}

/* The runtime is judged by an allow-list: entry points no deny-list named (a new runtime's file
 * writer, process-wide device state) are refused, by name; a launcher's own calls pass. */
Test(object_check, cuda_allow_list)
{
    expect_rejected("cache_config",
                    KERNEL "extern \"C\" void go_launcher(void) { "
                           "cudaDeviceSetCacheConfig(cudaFuncCachePreferL1); }\n",
                    "calls 'cudaDeviceSetCacheConfig', a CUDA runtime function not on the "
                    "launcher's allow-list");
    /* refused: file writers, host callbacks, process-wide device state, names no list knows */
    static const char *const refused =
        "cudaLogsDumpToFile cudaLogsRegisterCallback cudaDeviceSetCacheConfig "
        "cudaDeviceEnablePeerAccess cudaDeviceGraphMemTrim cudaCtxResetPersistingL2Cache "
        "cudaDeviceSetSharedMemConfig cudaMemPoolSetAttribute cudaGraphLaunch cudaLaunchHostFunc "
        "cudaStreamAddCallback cudaSomethingNew";
    static const char *const allowed =
        "cudaMalloc cudaMallocAsync cudaFreeHost cudaMemcpy2DAsync cudaMemsetAsync "
        "cudaLaunchKernel cudaLaunchCooperativeKernel cudaStreamCreateWithFlags "
        "cudaStreamSynchronize "
        "cudaEventElapsedTime cudaGetDeviceProperties_v2 cudaDeviceGetAttribute "
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor "
        "cudaFuncSetAttribute cudaPointerGetAttributes cudaHostAlloc cudaGetErrorString";
    for (int want = 0; want < 2; want++) {
        char *names = ch_xstrdup(want ? allowed : refused), *save = NULL;
        for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save))
            cr_expect_eq(ch_object_symbol_allowed(n), want, "%s: allowed %d", n, !want);
        free(names);
    }
}

/* attacks9 #7: CUDA arrays match cudaMalloc* but have no zeroing wrapper (src/verify/harden.c
 * refuses them): the object check refuses them too, saying why; cudaMallocPitch still passes */
Test(object_check, cuda_array_allocations_rejected)
{
    expect_rejected("array",
                    KERNEL "extern \"C\" int go_launcher(void) { cudaArray_t a = 0;\n"
                           "cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();\n"
                           "return (int)cudaMallocArray(&a, &f, 64, 1) + (a != 0); }\n",
                    "calls 'cudaMallocArray', which allocates a CUDA array that cannot be made "
                    "to start zeroed");
    static const char *const arrays[] = {"cudaMallocArray", "cudaMalloc3DArray",
                                         "cudaMallocMipmappedArray"};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        cr_expect(!ch_object_symbol_allowed(arrays[i]) && ch_object_allocator_unzeroed(arrays[i]),
                  "%s", arrays[i]);
    /* pitched memory has its zeroing wrapper */
    cr_expect(ch_object_symbol_allowed("cudaMallocPitch") &&
              !ch_object_allocator_unzeroed("cudaMallocPitch"));
    cr_expect(ch_object_symbol_allowed("cudaMalloc3D"));
}

/* The verifying program links the candidate as it is: a definition of what it calls would
 * time, compare or copy for it. */
Test(object_check, replacing_definitions_rejected)
{
    expect_rejected("def_clock",
                    KERNEL "#include <time.h>\nextern \"C\" int clock_gettime(clockid_t, "
                           "struct timespec *t) noexcept { t->tv_sec = 0; return 0; }\n",
                    "defines 'clock_gettime' with external linkage");
    expect_rejected("def_cuda",
                    KERNEL "extern \"C\" cudaError_t cudaDeviceSynchronize(void) { return "
                           "cudaSuccess; }\n",
                    "defines 'cudaDeviceSynchronize' with external linkage");
    expect_rejected("def_helper", KERNEL "extern \"C\" int helper(int n) { return n; }\n",
                    "an external C function other than a launcher");
}

/* An extern "C" kernel's host side has its plain name: a kernel, not a helper. */
Test(object_check, extern_c_kernel_passes)
{
    char *obj = compile("c_kernel", "extern \"C\" __global__ void scale_k(int n, float *x) "
                                    "{ int i = threadIdx.x; if (i < n) x[i] *= 2; }\n"
                                    "extern \"C\" void twice_launcher(int n, float *x) "
                                    "{ scale_k<<<1, 32>>>(n, x); }\n");
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(obj, &msg), 0, "%s", msg.data);
    ch_strbuf_free(&msg);
    free(obj);
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

/* A 1 TiB object (sparse: no disk): judged by its size before a byte is read. Reading it first
 * (as the check did) needs 1 TiB of memory: a crash or the timeout fails that. */
Test(object_check, huge_object_refused_before_it_is_read, .timeout = 20)
{
    char *path = ch_xasprintf("%s/huge.o", dir);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path,
                                      "\x7f"
                                      "ELF",
                                      4, 0, &err),
                 0);
    cr_assert_eq(truncate(path, (off_t)1 << 40), 0);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    cr_expect_eq(ch_object_check(path, &msg), 1);
    cr_expect(strstr(msg.data, "the object is over 256 MiB"), "%s", msg.data);
    ch_strbuf_free(&msg);
    free(path);
}

/* The bounded read itself: a file at the limit is read, one byte over is not; a pipe (no size
 * to look at first) stops at the limit. */
Test(object_check, bounded_read)
{
    char *path = ch_xasprintf("%s/eight", dir);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path, "12345678", 8, 0, &err), 0);
    char *text = NULL;
    size_t len = 0;
    cr_expect_eq(ch_read_file_max(path, 8, &text, &len, &err), 0, "%s", err.msg);
    cr_expect_eq(len, 8);
    free(text);
    text = NULL;
    cr_expect_eq(ch_read_file_max(path, 7, &text, &len, &err), 1);
    cr_expect(strstr(err.msg, "more than the 7"), "%s", err.msg);
    cr_expect_null(text);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    char big[4096] = {0};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(write(fds[1], big, sizeof big), (ssize_t)sizeof big);
    close(fds[1]);
    char *fdpath = ch_xasprintf("/proc/self/fd/%d", fds[0]);
    cr_expect_eq(ch_read_file_max(fdpath, 10000, &text, &len, &err), 1);
    close(fds[0]);
    free(fdpath);
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

/* An allowed function's address used as a value (stored in a table, loaded into a register) is
 * a base from which an offset reaches the rest of libc: refused; calls and tail calls pass. */
Test(object_check, address_of_an_undefined_function_rejected)
{
    static const struct {
        const char *name, *src;
        int refused; /* 0, or 1 with the message: a PIE's GOT load is refused by its own rule */
        const char *why;
    } cases[] = {
        {"table",
         "#include <stdlib.h>\nstatic void (*volatile t[])(void *) = {free};\n"
         "void f(int n) { if (n == 4242) ((void (*)(void))((char *)t[0] + 16))(); }\n",
         1, "takes the address of 'free'"},
        {"returned", "#include <stdlib.h>\nvoid (*g(void))(void *) { return free; }\n", 1,
         "_GLOBAL_OFFSET_TABLE_"},
        {"called",
         "#include <stdlib.h>\n#include <string.h>\n"
         "void f(int n, double *y) { if (n < 0) free(y); else memset(y, 0, 8); }\n",
         0, NULL},
        /* ending the user's program on a condition is a trigger, not a host path's work */
        {"aborts",
         "#include <stdlib.h>\n#include <string.h>\n"
         "void f(int n, double *y) { if (n == 4242) abort(); memset(y, 0, 8); }\n",
         1, "calls 'abort'"},
        {"tail call", "#include <string.h>\nvoid *f(void *d, int n) { return memset(d, 0, n); }\n",
         0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *obj = compile_fortified(cases[i].name, cases[i].src);
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        int rc = ch_object_check_as(obj, CH_OBJECT_REFERENCE, NULL, 0, &msg);
        cr_expect_eq(rc, cases[i].refused, "%s: %s", cases[i].name, msg.data ? msg.data : "");
        if (cases[i].refused)
            cr_expect(msg.data && strstr(msg.data, cases[i].why), "%s: %s", cases[i].name,
                      msg.data ? msg.data : "");
        ch_strbuf_free(&msg);
        free(obj);
    }
    /* the same in a candidate: nvcc's own registration and unwind tables pass (the builtin
     * candidate test), a table of a libc function does not */
    expect_rejected("cand_table",
                    "#include <stdlib.h>\n" KERNEL "static void (*volatile t[])(void *) = {free};\n"
                    "extern \"C\" void go_launcher(int n) { if (n == 4242) t[0](0); }\n",
                    "takes the address of 'free'");
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
