/* A configuration for tests that open a pipeline session without the driver: a fresh cache in a
 * temporary directory, the builtin agent, no runner and no architecture (no GPU is assumed). */
#ifndef SESSION_FIXTURE_H
#define SESSION_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "ch/config.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"

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

/* Opens s over cfg with the given architecture options (NULL-terminated, NULL: none), quiet. */
static inline void fx_session_open(ch_session *s, const ch_config *cfg,
                                   const char *const *arch_opts)
{
    ch_strvec opts;
    ch_strvec_init(&opts);
    for (size_t i = 0; arch_opts && arch_opts[i]; i++)
        ch_strvec_push(&opts, arch_opts[i]);
    ch_session_opts o = {.cfg = cfg, .arch_opts = &opts, .nvcc = "nvcc", .quiet = 1};
    ch_session_open(s, &o);
    ch_strvec_free(&opts);
}

/* Closes s, dropping its warnings. */
static inline void fx_session_close(ch_session *s)
{
    ch_strvec w;
    ch_strvec_init(&w);
    ch_session_close(s, &w);
    ch_strvec_free(&w);
}

/* Writes text as dir/name and scans it through the session into l (initialised here), which
 * must hold one entry. */
static inline void fx_session_scan(ch_session *s, const char *dir, const char *name,
                                   const char *text, ch_entry_list *l)
{
    char *path = ch_path_join(dir, name);
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0, "%s", err.msg);
    ch_entry_list_init(l);
    ch_scan_source src = {text, strlen(text), NULL, 0};
    cr_assert_eq(ch_session_scan(s, path, CH_LANG_C, &src, l, &err), 0, "%s", err.msg);
    cr_assert_eq(l->len, 1, "one entry in %s", name);
    free(path);
}

/* Seeds the session's cache with an entry under key: meta records and files (name, text pairs,
 * each NULL-terminated; NULL: none). */
static inline void fx_session_seed_meta(ch_session *s, const char *key, const char *const *meta,
                                        const char *const *files)
{
    ch_cache_txn *t = NULL;
    ch_cache_hit hit;
    ch_cache_hit_init(&hit);
    ch_error err;
    cr_assert_eq(ch_cache_begin(s->cache, key, &t, &hit, &err), 0, "%s", err.msg);
    for (size_t i = 0; files && files[i]; i += 2)
        cr_assert_eq(ch_cache_put(t, files[i], files[i + 1], strlen(files[i + 1]), &err), 0);
    for (size_t i = 0; meta && meta[i]; i += 2)
        ch_cache_txn_meta(t, meta[i], meta[i + 1]);
    cr_assert_eq(ch_cache_commit(t, &err), 0, "%s", err.msg);
}

/* The same with a status meta (NULL: none). */
static inline void fx_session_seed(ch_session *s, const char *key, const char *status,
                                   const char *const *files)
{
    const char *const meta[] = {"status", status, NULL};
    fx_session_seed_meta(s, key, status ? meta : NULL, files);
}

/* A one-entry C file the builtin agent translates. */
static const char fx_saxpy_c[] = "#pragma harness extent(x: n, y: n)\n"
                                 "void saxpy(int n, float a, const float *x, float *y)\n"
                                 "{\n"
                                 "    for (int i = 0; i < n; i++)\n"
                                 "        y[i] = a * x[i] + y[i];\n"
                                 "}\n";

#endif
