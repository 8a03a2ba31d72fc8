/* The CUDA runtime's link (src/pipeline/cuda_link.c) over fake toolkits in a temporary
 * directory: the library directory found from nvcc's real path, from a wrapper's dry run (stubs
 * skipped), from CUDA_HOME; and the flags, with cuBLAS only where the toolkit has it. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cuda_link.h"
#include "ch/fsutil.h"

static char *root;

static void setup(void)
{
    ch_error err;
    root = ch_make_temp_dir("cudalink", &err);
    cr_assert(root, "%s", err.msg);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(root, &err);
    free(root);
    unsetenv("CUDA_HOME");
}

/* Writes root/rel (directories made), executable when exe. */
static char *put(const char *rel, const char *text, int exe)
{
    ch_error err;
    char *path = ch_path_join(root, rel);
    char *dir = ch_path_dir(path);
    cr_assert_eq(ch_mkdir_p(dir, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0, "%s", err.msg);
    if (exe)
        chmod(path, 0755);
    free(dir);
    return path;
}

static int has(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

/* A toolkit under root/top: bin/nvcc, and the static runtime in each of the library
 * directories named (NULL-terminated). Returns nvcc's path. */
static char *toolkit(const char *top, const char *const *libdirs)
{
    char *rel = ch_xasprintf("%s/bin/nvcc", top);
    char *nvcc = put(rel, "#!/bin/sh\nexit 1\n", 1);
    free(rel);
    for (size_t i = 0; libdirs[i]; i++) {
        rel = ch_xasprintf("%s/%s/libcudart_static.a", top, libdirs[i]);
        free(put(rel, "!<arch>\n", 0));
        free(rel);
    }
    return nvcc;
}

TestSuite(cuda_link, .init = setup, .fini = teardown);

/* nvcc in <root>/bin: the toolkit's first library directory holding libcudart_static.a */
Test(cuda_link, toolkit_above_nvcc)
{
    char *nvcc = toolkit("cuda", (const char *[]){"targets/x86_64-linux/lib", "lib", NULL});
    char *want = ch_path_join(root, "cuda/targets/x86_64-linux/lib");
    char *dir = ch_link_cuda_libdir(nvcc);
    cr_expect_str_eq(dir, want, "targets/x86_64-linux/lib comes before lib");
    free(dir);
    free(put("cuda/lib64/libcudart_static.a", "!<arch>\n", 0));
    free(want);
    want = ch_path_join(root, "cuda/lib64");
    dir = ch_link_cuda_libdir(nvcc);
    cr_expect_str_eq(dir, want, "lib64 comes first");
    free(dir);
    /* a symlink to nvcc elsewhere: its real path decides */
    char *link = ch_path_join(root, "bin/nvcc");
    char *bindir = ch_path_dir(link);
    ch_error err;
    cr_assert_eq(ch_mkdir_p(bindir, &err), 0);
    cr_assert_eq(symlink(nvcc, link), 0);
    dir = ch_link_cuda_libdir(link);
    cr_expect_str_eq(dir, want, "a symlink to nvcc finds the toolkit of its target");
    free(dir);
    free(bindir);
    free(link);
    free(want);
    free(nvcc);
}

/* a wrapper script without a toolkit around it: the last -L of its dry run that is no stubs dir */
Test(cuda_link, wrapper_dry_run)
{
    char *nvcc = put("wrap/nvcc",
                     "#!/bin/sh\n"
                     "echo '#$ _NVVM_BRANCH_=nvvm'\n"
                     "echo '#$ LIBRARIES=  \"-L/opt/tk/lib/stubs\" \"-L/opt/tk/lib\" "
                     "\"-L/opt/tk/lib/stubs\"'\n",
                     1);
    char *dir = ch_link_cuda_libdir(nvcc);
    cr_expect_str_eq(dir, "/opt/tk/lib");
    free(dir);
    free(nvcc);
}

/* neither: CUDA_HOME's library directory, else the default path */
Test(cuda_link, cuda_home_then_default)
{
    char *nvcc = put("none/nvcc", "#!/bin/sh\nexit 0\n", 1);
    free(toolkit("home", (const char *[]){"lib64", NULL}));
    char *home = ch_path_join(root, "home");
    setenv("CUDA_HOME", home, 1);
    char *want = ch_path_join(root, "home/lib64");
    char *dir = ch_link_cuda_libdir(nvcc);
    cr_expect_str_eq(dir, want);
    free(dir);
    free(want);
    char *empty = ch_path_join(root, "empty");
    setenv("CUDA_HOME", empty, 1);
    dir = ch_link_cuda_libdir(nvcc);
    cr_expect_str_eq(dir, "/usr/local/cuda/lib64", "a CUDA_HOME without the runtime: the default");
    free(dir);
    free(empty);
    free(home);
    free(nvcc);
}

/* the flags: -L the toolkit, the static runtime and what it needs; cuBLAS only when present */
Test(cuda_link, runtime_flags)
{
    char *nvcc = toolkit("cuda", (const char *[]){"lib64", NULL});
    char *lib = ch_path_join(root, "cuda/lib64");
    char *L = ch_xasprintf("-L%s", lib);
    char *rpath = ch_xasprintf("-Wl,-rpath,%s", lib);
    ch_strvec f;
    ch_strvec_init(&f);
    ch_link_cuda_runtime_flags(nvcc, &f);
    cr_expect(has(&f, L), "-L the toolkit's library directory");
    cr_expect(has(&f, "-lcudart_static") && has(&f, "-lrt") && has(&f, "-lpthread") &&
              has(&f, "-ldl") && has(&f, "-lstdc++"));
    cr_expect(!has(&f, "-lcublas") && !has(&f, rpath), "no cuBLAS in this toolkit");
    ch_strvec_free(&f);
    free(put("cuda/lib64/libcublas.so", "", 0));
    ch_strvec_init(&f);
    ch_link_cuda_runtime_flags(nvcc, &f);
    cr_expect(has(&f, "-Wl,--push-state,--as-needed") && has(&f, "-lcublas") &&
                  has(&f, "-Wl,--pop-state") && has(&f, rpath),
              "cuBLAS as needed, with the toolkit's run path");
    ch_strvec_free(&f);
    free(rpath);
    free(L);
    free(lib);
    free(nvcc);
}
