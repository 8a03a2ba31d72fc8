/* Emit, linking the trusted runtime (ch/emit.h): where libch_runtime.a is and the arguments
 * that pull it into a program. It lives in the lib/ directory of ch-cc's installation (PREFIX/lib
 * after `make install`, build/lib in the build tree), found from the running binary: the front
 * binary is in bin/, the full one in libexec/ch-cc/. */
#include <stdlib.h>
#include <unistd.h>

#include "ch/emit.h"
#include "ch/fsutil.h"

/* DIR/REL/libch_runtime.a when it exists, else NULL. */
static char *library_at(const char *dir, const char *rel)
{
    char *lib = ch_path_join(dir, rel);
    char *path = ch_path_join(lib, "libch_runtime.a");
    free(lib);
    char *real = ch_file_exists(path) ? realpath(path, NULL) : NULL;
    free(path);
    return real; /* without the ../ (it shows in link lines) */
}

/* The library beside the binary at exe, or NULL. */
static char *library_beside(const char *exe)
{
    if (!exe || !*exe)
        return NULL;
    char *real = realpath(exe, NULL);
    if (!real)
        return NULL;
    char *dir = ch_path_dir(real);
    char *path = library_at(dir, "../lib");
    if (!path)
        path = library_at(dir, "../../lib");
    free(dir);
    free(real);
    return path;
}

char *ch_emit_runtime_library(void)
{
    const char *given = getenv("CH_CC_RUNTIME_LIB");
    if (given && *given)
        return ch_file_exists(given) ? ch_xstrdup(given) : NULL;
    char *path = library_beside("/proc/self/exe");
    if (!path) /* the full binary runs from libexec; the front binary said where it is */
        path = library_beside(getenv("CH_CC_SELF"));
    return path;
}

void ch_emit_runtime_link_args(ch_strvec *out)
{
    char *lib = ch_emit_runtime_library();
    if (!lib)
        return;
    ch_strvec_push(out, "-Wl,--undefined=ch_rt_call_v1");
    ch_strvec_push_owned(out, lib);
}

void ch_emit_runtime_nvcc_link_args(ch_strvec *out)
{
    char *lib = ch_emit_runtime_library();
    if (!lib)
        return;
    /* nvcc takes no -Wl,: linker options go through -Xlinker */
    ch_strvec_push(out, "-Xlinker");
    ch_strvec_push(out, "--undefined=ch_rt_call_v1");
    ch_strvec_push_owned(out, lib);
}
