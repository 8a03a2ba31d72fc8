/* Shared by the dispatcher's unit tests (test_emit.c, test_emit_cold.c): emitting a unit and
 * looking for its lines, finding nvcc, compiling the pieces of a program around a unit, and the
 * object check the driver runs on a unit before linking it. */
#ifndef EMIT_FIXTURE_H
#define EMIT_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/verify.h"

/* The unit ch_emit_entry_cu writes for k (C linkage) into out (reset first). */
static inline void emit_unit(const ch_emit_kernel *k, ch_strbuf *out)
{
    ch_error err;
    ch_strbuf_reset(out);
    cr_assert_eq(ch_emit_entry_cu(k, 1, out, &err), 0, "%s", err.msg);
}

/* Every one of the n strings of want occurs in text. */
static inline void expect_all_in(const char *text, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(strstr(text, want[i]), "missing: %s\nin:\n%s", want[i], text);
}

/* nvcc on PATH or in /usr/local/cuda/bin, or NULL (malloc'd). */
static inline char *find_nvcc(void)
{
    char *nvcc = ch_find_executable("nvcc", 0);
    if (!nvcc && ch_file_exists("/usr/local/cuda/bin/nvcc"))
        nvcc = ch_xstrdup("/usr/local/cuda/bin/nvcc");
    return nvcc;
}

/* The C source text compiled warning-free into dir/name.o; returns the object's path. */
static inline char *compile_c(const char *dir, const char *name, const char *text)
{
    ch_error err;
    char *c = ch_xasprintf("%s/%s.c", dir, name), *o = ch_xasprintf("%s/%s.o", dir, name);
    cr_assert_eq(ch_write_file_atomic(c, text, strlen(text), 0, &err), 0);
    char *argv[] = {"cc", "-Wall", "-Wextra", "-Werror", "-c", c, "-o", o, NULL};
    ch_strbuf out;
    ch_strbuf_init(&out);
    cr_assert_eq(ch_proc_capture(argv, &out, &err), 0, "%s: %s", name, out.data);
    ch_strbuf_free(&out);
    free(c);
    return o;
}

/* A unit as the cache would hand it back passes the object check the driver runs before linking
 * it (only the user's host function beyond the unit profile). */
static inline void expect_unit_passes(const ch_entry *e, const char *obj)
{
    char *bridge = ch_emit_host_bridge_name(e);
    const char *extra[] = {bridge, NULL};
    ch_strbuf why;
    ch_strbuf_init(&why);
    cr_assert_eq(ch_object_check_as(obj, CH_OBJECT_UNIT, extra, 0, &why), 0, "%s", why.data);
    ch_strbuf_free(&why);
    free(bridge);
}

/* The unit of k compiled by nvcc (host compiler warnings as errors) into dir/u.o, checked as
 * the driver checks it; returns the object's path. */
static inline char *compile_unit(const ch_emit_kernel *k, const char *nvcc, const char *dir)
{
    ch_error err;
    ch_strbuf unit, log;
    ch_strbuf_init(&unit);
    ch_strbuf_init(&log);
    emit_unit(k, &unit);
    char *cu = ch_path_join(dir, "u.cu"), *uo = ch_path_join(dir, "u.o");
    cr_assert_eq(ch_write_file_atomic(cu, unit.data, unit.len, 0, &err), 0);
    char *argv[] = {(char *)nvcc, "-arch=sm_90", "-Xcompiler=-Wall,-Wextra,-Werror", NULL};
    cr_assert_eq(ch_emit_compile(argv, cu, uo, &log, &err), 0, "%s\n%s", err.msg, log.data);
    /* as the pipeline does: the entry points get their private names in the object */
    cr_assert_eq(ch_emit_private_names(uo, k->entry, &err), 0, "%s", err.msg);
    expect_unit_passes(k->entry, uo);
    free(cu);
    ch_strbuf_free(&unit);
    ch_strbuf_free(&log);
    return uo;
}

/* The host copy of src (k's entry renamed) compiled into dir/h.o and merged with the unit of k
 * into dir/m.o, its private symbols made local; returns the merged object's path. */
static inline char *merged_unit(const ch_emit_kernel *k, const char *src, const char *nvcc,
                                const char *dir)
{
    const ch_entry *e = k->entry;
    ch_error err;
    char *uo = compile_unit(k, nvcc, dir);
    size_t len;
    char *host = ch_emit_host_source(src, strlen(src), &e, 1, 1, &len);
    char *ho = compile_c(dir, "h", host);
    char *merged = ch_path_join(dir, "m.o");
    const char *objs[] = {ho, uo};
    ch_strvec priv;
    ch_strvec_init(&priv);
    ch_emit_private_symbols(e, &priv);
    cr_assert_eq(ch_emit_merge(objs, 2, priv.items, merged, &err), 0, "%s", err.msg);
    ch_strvec_free(&priv);
    free(host);
    free(ho);
    free(uo);
    return merged;
}

#endif
