/* A configuration for tests that open a pipeline session without the driver: a fresh cache in a
 * temporary directory, the builtin agent, no runner and no architecture (no GPU is assumed). */
#ifndef SESSION_FIXTURE_H
#define SESSION_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "ch/config.h"
#include "ch/fsutil.h"

/* Loads cfg and makes *tmp_dir (named after what) holding its cache; more settings, as
 * NULL-terminated name/value pairs, are set on the command line's level. */
static inline void fx_session_config(ch_config *cfg, char **tmp_dir, const char *what,
                                     const char *const *settings)
{
    ch_error err;
    *tmp_dir = ch_make_temp_dir(what, &err);
    cr_assert_not_null(*tmp_dir, "%s", err.msg);
    cr_assert_eq(ch_config_load(cfg, "/", &err), 0, "%s", err.msg);
    char *cache = ch_path_join(*tmp_dir, "cache");
    cr_assert_eq(ch_config_set(cfg, "cache_dir", cache, CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
    free(cache);
    const char *const base[] = {"provider", "builtin", "runner", "", "arch", "", NULL};
    for (const char *const *kv = base; *kv; kv += 2)
        cr_assert_eq(ch_config_set(cfg, kv[0], kv[1], CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
    for (const char *const *kv = settings; kv && *kv; kv += 2)
        cr_assert_eq(ch_config_set(cfg, kv[0], kv[1], CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
}

/* Removes the directory fx_session_config made and frees cfg. */
static inline void fx_session_free(ch_config *cfg, char *tmp_dir)
{
    ch_error err;
    ch_remove_tree(tmp_dir, &err);
    free(tmp_dir);
    ch_config_free(cfg);
}

#endif
