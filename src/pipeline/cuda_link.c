/* The link of a program with verified kernels: the CUDA toolkit's static runtime found from
 * nvcc (its real path, its dry run, CUDA_HOME), and the flags that link it as nvcc does, with
 * the trusted runtime and cuBLAS when a kernel may call it (ch/cuda_link.h). Library code: the
 * driver decides when a link needs them and prints them (--harness-link-flags). */
#include <stdlib.h>
#include <string.h>

#include "ch/cuda_link.h"
#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/proc.h"

/* The toolkit's library directory under root when it holds the static runtime, else NULL. */
static char *libdir_under(const char *root)
{
    static const char *const subdirs[] = {"lib64", "targets/x86_64-linux/lib", "lib"};
    for (size_t i = 0; i < sizeof subdirs / sizeof *subdirs; i++) {
        char *dir = ch_path_join(root, subdirs[i]);
        char *lib = ch_path_join(dir, "libcudart_static.a");
        int found = ch_file_exists(lib);
        free(lib);
        if (found)
            return dir;
        free(dir);
    }
    return NULL;
}

/* The last non-stub -L directory of nvcc's `#$ LIBRARIES=` dry-run line, or NULL. */
static char *libdir_from_nvcc(const char *nvcc_path)
{
    char *argv[] = {(char *)nvcc_path, "--dryrun", "-x",        "cu", "-c",
                    "/dev/null",       "-o",       "/dev/null", NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    char *dir = NULL;
    if (ch_proc_capture(argv, &out, &err) >= 0) {
        const char *line = strstr(out.data ? out.data : "", "#$ LIBRARIES=");
        size_t line_len = line ? strcspn(line, "\n") : 0;
        for (const char *p = line; p && (p = strstr(p, "-L")) && p < line + line_len; p += 2) {
            const char *start = p + 2, *end = start;
            while (end < line + line_len && *end != '"' && *end != ' ')
                end++;
            if (end - start >= 6 && memcmp(end - 6, "/stubs", 6) == 0)
                continue;
            free(dir);
            dir = ch_xstrndup(start, (size_t)(end - start));
        }
    }
    ch_strbuf_free(&out);
    return dir;
}

char *ch_link_cuda_libdir(const char *nvcc_path)
{
    /* nvcc itself, symlinks resolved: <root>/bin/nvcc */
    char *real = nvcc_path ? realpath(nvcc_path, NULL) : NULL;
    if (real) {
        char *bin = ch_path_dir(real);
        char *root = ch_path_dir(bin);
        char *dir = libdir_under(root);
        free(root);
        free(bin);
        free(real);
        if (dir)
            return dir;
    }
    /* a wrapper script elsewhere on PATH (/usr/local/bin/nvcc): ask nvcc where it links from */
    char *dir = nvcc_path ? libdir_from_nvcc(nvcc_path) : NULL;
    if (dir)
        return dir;
    const char *home = getenv("CUDA_HOME");
    dir = libdir_under(home && *home ? home : "/usr/local/cuda");
    return dir ? dir : ch_xstrdup("/usr/local/cuda/lib64");
}

/* The CUDA libraries a linked kernel may call (a translator library variant calls cuBLAS; its
 * source says "ch-cc library: cublas"). Only the shared libcublas exists in some toolkits, so it
 * is linked --as-needed: a program none of whose kernels calls cuBLAS does not depend on it,
 * and one that does finds it through the run path of the toolkit's library folder. Nothing is
 * added when the toolkit has no cuBLAS (the verifier's link of such a candidate fails first). */
static void link_libraries(const char *libdir, ch_strvec *out)
{
    char *so = ch_path_join(libdir, "libcublas.so");
    int have = ch_file_exists(so);
    free(so);
    if (!have)
        return;
    ch_strvec_push(out, "-Wl,--push-state,--as-needed");
    ch_strvec_push(out, "-lcublas");
    ch_strvec_push(out, "-Wl,--pop-state");
    ch_strvec_push_owned(out, ch_xasprintf("-Wl,-rpath,%s", libdir));
}

void ch_link_cuda_runtime_flags(const char *nvcc_path, ch_strvec *out)
{
    char *lib = ch_link_cuda_libdir(nvcc_path);
    ch_strvec_push_owned(out, ch_xasprintf("-L%s", lib));
    /* the trusted runtime that moves the data of harness calls; it needs the CUDA runtime */
    ch_emit_runtime_link_args(out);
    ch_strvec_push(out, "-lcudart_static");
    ch_strvec_push(out, "-lrt");
    ch_strvec_push(out, "-lpthread");
    ch_strvec_push(out, "-ldl");
    ch_strvec_push(out, "-lstdc++");
    ch_strvec_push(out, "-lm");
    link_libraries(lib, out);
    free(lib);
}
