/* The harness path's trace unit: the object that defines, for the entries of one annotated file
 * that got no kernel, the function the program calls (src/emit/trace.c writes its source), so
 * that CH_CC_TRACE=1 reports their calls as the GPU dispatcher reports a kernel's. It is our
 * code, compiled by the real host compiler of the file's language (no CUDA toolkit, nothing
 * from the cache), and it passes the object check of an emitted unit before it is linked. */
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/verify.h"
#include "driver.h"

/* Flags that decide the object's ABI: the unit is merged with the user's object by `ld -r`, so
 * it must be built for the same target (-m32, -m64, -mx32, -mabi=, clang's --target=) and be
 * position-independent when the user's is. */
static int abi_flag(const char *s)
{
    return ch_driver_is_pic_flag(s) || strcmp(s, "-m32") == 0 || strcmp(s, "-m64") == 0 ||
           strcmp(s, "-mx32") == 0 || strncmp(s, "-mabi=", 6) == 0 ||
           strncmp(s, "--target=", 9) == 0;
}

/* The compiler and flags of the unit: the file's language, -O2 and the user's ABI flags. */
static int unit_compiler(const ch_driver *d, int c_linkage, ch_strvec *argv, ch_error *err)
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

/* The object check of an emitted unit, with the host paths the unit calls allowed. */
static int unit_passes(const ch_emit_traced *t, size_t n, const char *obj, ch_error *err)
{
    char **hosts = ch_xcalloc(n + 1, sizeof *hosts);
    for (size_t i = 0; i < n; i++)
        hosts[i] = ch_emit_traced_host_name(&t[i]);
    ch_strbuf why;
    ch_strbuf_init(&why);
    int rc = ch_object_check_as(obj, CH_OBJECT_UNIT, (const char *const *)hosts, 0, &why);
    if (rc != 0)
        ch_error_set(err, "the trace unit's object is refused: %s", why.data);
    ch_strbuf_free(&why);
    for (size_t i = 0; i < n; i++)
        free(hosts[i]);
    free(hosts);
    return rc == 0 ? 0 : -1;
}

int ch_harness_trace_object(const ch_driver *d, const char *file, const ch_emit_traced *t, size_t n,
                            int c_linkage, const char *tmp, const char *obj, ch_error *err)
{
    ch_strbuf unit, log;
    ch_strbuf_init(&unit);
    ch_strbuf_init(&log);
    ch_emit_trace_unit(file, t, n, c_linkage, &unit);
    char *src = ch_path_join(tmp, c_linkage ? "ch_trace.c" : "ch_trace.cpp");
    ch_strvec argv;
    ch_strvec_init(&argv);
    int rc = ch_write_file_atomic(src, unit.data, unit.len, 0, err);
    if (rc == 0)
        rc = unit_compiler(d, c_linkage, &argv, err);
    if (rc == 0 && ch_emit_compile(argv.items, src, obj, &log, err) != 0)
        rc = ch_error_prefix(err, "the trace unit does not compile");
    if (rc == 0)
        rc = unit_passes(t, n, obj, err);
    ch_strvec_free(&argv);
    free(src);
    ch_strbuf_free(&log);
    ch_strbuf_free(&unit);
    return rc;
}
