/* Link mode: a command whose inputs are objects and archives only. The real linker driver
 * does the work; when an input carries device code (nvcc's fatbinary section, which harness
 * objects carry too) the CUDA runtime is added the way nvcc adds it, static. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
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
