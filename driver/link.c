/* Link mode: a command whose inputs are objects and archives only. The real linker driver
 * does the work; when an input carries device code (nvcc's fatbinary section, which harness
 * objects carry too) the CUDA runtime is added the way nvcc adds it, static. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "driver.h"
#include "link.h"

/* Nonzero when the command links and an object input contains marker. */
static int linked_object_contains(const ch_args *a, const char *marker)
{
    if (a->compile_only || a->preprocess_only || a->assemble_only || a->syntax_only || a->dep_only)
        return 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].lang == CH_LANG_OBJECT &&
            ch_file_contains(a->inputs[i].path, marker, strlen(marker)))
            return 1;
    return 0;
}

int ch_link_needs_cuda_runtime(const ch_args *a)
{
    return linked_object_contains(a, CH_LINK_DEVICE_SECTION) ||
           linked_object_contains(a, CH_LINK_RUNTIME_SYMBOL);
}

int ch_link_needs_ch_runtime(const ch_args *a)
{
    return linked_object_contains(a, CH_LINK_RUNTIME_SYMBOL);
}

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

int ch_admin_link_flags(ch_driver *d)
{
    ch_error err;
    char *nvcc = ch_real_compiler(d, CH_REAL_NVCC, &err);
    ch_strvec flags;
    ch_strvec_init(&flags);
    ch_link_cuda_runtime_flags(nvcc, &flags);
    for (size_t i = 0; i < flags.len; i++)
        printf("%s%s", i ? " " : "", flags.items[i]);
    printf("\n");
    ch_strvec_free(&flags);
    free(nvcc);
    return 0;
}
