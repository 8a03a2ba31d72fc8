/* Finding the real compilers: configuration first, then PATH, never ch-cc itself (a `cc`
 * symlink to ch-cc earlier on PATH is skipped the way ccache skips itself). */
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "driver.h"

static const struct {
    const char *setting;
    const char *fallback;
} kinds[] = {
    [CH_REAL_NVCC] = {"nvcc", "nvcc"},
    [CH_REAL_CC] = {"host_cc", "cc"},
    [CH_REAL_CXX] = {"host_cxx", "c++"},
};

const char *ch_real_kind_name(ch_real_kind kind)
{
    return kinds[kind].fallback;
}

char *ch_real_compiler(const ch_driver *d, ch_real_kind kind, ch_error *err)
{
    const char *setting = kinds[kind].setting;
    const char *configured = ch_config_get(&d->cfg, setting);
    const char *name = *configured ? configured : kinds[kind].fallback;
    char *found = ch_find_executable(name, 1);
    if (!found && kind == CH_REAL_NVCC && !*configured)
        found = ch_find_executable("/usr/local/cuda/bin/nvcc", 1);
    if (found)
        return found;
    const char *env = "";
    for (size_t i = 0; ch_settings[i].key; i++)
        if (strcmp(ch_settings[i].key, setting) == 0)
            env = ch_settings[i].env;
    char *any = ch_find_executable(name, 0);
    if (any && ch_is_self(any))
        ch_error_set(err,
                     "the real %s '%s' is ch-cc itself; set %s to the real compiler "
                     "(refusing to call myself)",
                     kinds[kind].fallback, any, env);
    else
        ch_error_set(err, "cannot find the real %s '%s' (set %s)", kinds[kind].fallback, name, env);
    free(any);
    return NULL;
}

char *ch_driver_compiler(const ch_driver *d, ch_error *err)
{
    if (d->launcher)
        return ch_xstrdup(d->launcher);
    return ch_real_compiler(d, d->personality, err);
}
