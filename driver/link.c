/* Link mode: a command whose inputs are objects and archives only. The real linker driver
 * does the work; when an input carries device code (nvcc's fatbinary section, which harness
 * objects carry too) the CUDA runtime is added the way nvcc adds it, static. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "link.h"

static int file_has(const char *path, const char *needle)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int found = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            found = memmem(p, (size_t)st.st_size, needle, strlen(needle)) != NULL;
            munmap(p, (size_t)st.st_size);
        }
    }
    close(fd);
    return found;
}

int ch_link_needs_cuda_runtime(const ch_args *a)
{
    int has_source = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].lang != CH_LANG_OBJECT && a->inputs[i].lang != CH_LANG_OTHER)
            has_source = 1;
    if (a->compile_only || a->preprocess_only || a->assemble_only || a->syntax_only || a->dep_only)
        return 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].lang == CH_LANG_OBJECT &&
            file_has(a->inputs[i].path, CH_LINK_DEVICE_SECTION))
            return 1;
    (void)has_source;
    return 0;
}

void ch_link_cuda_runtime_flags(const char *nvcc_path, ch_strvec *out)
{
    char *bin = nvcc_path ? ch_path_dir(nvcc_path) : ch_xstrdup("/usr/local/cuda/bin");
    char *root = ch_path_dir(bin);
    char *lib = ch_path_join(root, "lib64");
    if (!ch_is_dir(lib)) {
        free(lib);
        lib = ch_path_join(root, "targets/x86_64-linux/lib");
    }
    ch_strvec_push_owned(out, ch_xasprintf("-L%s", lib));
    ch_strvec_push(out, "-lcudart_static");
    ch_strvec_push(out, "-lrt");
    ch_strvec_push(out, "-lpthread");
    ch_strvec_push(out, "-ldl");
    ch_strvec_push(out, "-lstdc++");
    ch_strvec_push(out, "-lm");
    free(lib);
    free(root);
    free(bin);
}
