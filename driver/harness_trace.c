/* The harness path's trace unit compiler: how the object that defines, for the entries of one
 * annotated file that got no kernel, the function the program calls (src/emit/trace.c writes
 * its source, src/pipeline/assemble.c builds and checks it) is compiled. It is our code,
 * compiled by the real host compiler of the file's language (no CUDA toolkit), for the same
 * target as the user's object, since `ld -r` merges the two. */
#include <string.h>

#include "driver.h"

/* Flags that decide the object's ABI: -m32, -m64, -mx32, -mabi=, clang's --target=, and
 * position independence when the user's object has it. */
static int abi_flag(const char *s)
{
    return ch_driver_is_pic_flag(s) || strcmp(s, "-m32") == 0 || strcmp(s, "-m64") == 0 ||
           strcmp(s, "-mx32") == 0 || strncmp(s, "-mabi=", 6) == 0 ||
           strncmp(s, "--target=", 9) == 0;
}

int ch_harness_unit_compiler(const ch_driver *d, int c_linkage, ch_strvec *argv, ch_error *err)
{
    char *compiler = ch_real_compiler(d, c_linkage ? CH_REAL_CC : CH_REAL_CXX, err);
    if (!compiler)
        return -1;
    ch_strvec_push_owned(argv, compiler);
    ch_strvec_push(argv, "-O2");
    const ch_args *a = &d->args;
    for (size_t i = 0; i < a->expanded.len; i++)
        if (abi_flag(a->expanded.items[i]))
            ch_strvec_push(argv, a->expanded.items[i]);
    for (size_t i = 0; i < a->xcompiler.len; i++)
        if (abi_flag(a->xcompiler.items[i]))
            ch_strvec_push(argv, a->xcompiler.items[i]);
    return 0;
}
