/* Link mode: a command whose inputs are objects and archives only. The real linker driver
 * does the work; when an input carries device code (nvcc's fatbinary section, which harness
 * objects carry too) the CUDA runtime is added the way nvcc adds it, static. */
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "link.h"

int ch_link_needs_cuda_runtime(const ch_args *a)
{
    if (a->compile_only || a->preprocess_only || a->assemble_only || a->syntax_only || a->dep_only)
        return 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].lang == CH_LANG_OBJECT &&
            ch_file_contains(a->inputs[i].path, CH_LINK_DEVICE_SECTION,
                             strlen(CH_LINK_DEVICE_SECTION)))
            return 1;
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
