/* ch_session_object (ch/pipeline.h): a kernel outcome's generated unit, compiled by nvcc for the
 * session's architectures, checked, and kept in the entry's objects/ in the cache; or the
 * cached object when it passes the same check. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/harden.h"
#include "ch/static_child.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/verify.h"

/* nvcc and its flags for generated units: the session's architectures and the flags the
 * command adds (position-independent code when the user's compile is, the host compiler). */
static void unit_argv(const ch_session *s, ch_strvec *argv)
{
    ch_strvec_push(argv, s->nvcc);
    ch_strvec_push(argv, "-O3");
    for (size_t i = 0; i < s->archs.len; i++) {
        assert(strncmp(s->archs.items[i], "sm_", 3) == 0); /* targets' rule gives real ones */
        const char *sm = s->archs.items[i] + 3;
        ch_strvec_push(argv, "-gencode");
        ch_strvec_push_owned(argv,
                             ch_xasprintf("arch=compute_%s,code=[sm_%s,compute_%s]", sm, sm, sm));
    }
    ch_strvec_pushv(argv, &s->unit_flags);
}

/* The object key of an entry's unit: the entry key plus nvcc's identity, the unit flags and
 * the runtime interface's identity. */
static int object_key(ch_session *s, const char *entry_key, const ch_strvec *flags, int c_linkage,
                      int is_static, long long gpu_min_size, const ch_emit_cold *cold, char key[33],
                      ch_error *err)
{
    if (!s->nvcc_ident) { /* one nvcc --version per command */
        ch_strbuf sb;
        ch_strbuf_init(&sb);
        if (ch_cache_tool_ident(s->nvcc, &sb, err) != 0) {
            ch_strbuf_free(&sb);
            return -1;
        }
        s->nvcc_ident = ch_strbuf_detach(&sb);
    }
    ch_strvec all;
    ch_strvec_init(&all);
    ch_strvec_pushv(&all, flags);
    ch_strvec_push(&all, c_linkage ? "linkage=C" : "linkage=C++");
    ch_strvec_push_owned(&all, ch_xasprintf("dispatch=%lld", gpu_min_size));
    /* the first-call thresholds are in the unit too (none: the key of before they existed) */
    if (cold->device_min_size || cold->buffers_min_size)
        ch_strvec_push_owned(&all, ch_xasprintf("cold=%lld/%lld/%.17g/%.17g",
                                                cold->buffers_min_size, cold->device_min_size,
                                                cold->setup_ms, cold->first_use_ms_per));
    /* a static function's unit defines NAME__ch_dispatch instead of NAME */
    ch_strvec_push(&all, is_static ? "static" : "external");
    /* host pointers reach only the trusted runtime (issue 15): objects of dispatchers that
     * called a candidate's own launcher are not reused */
    ch_strvec_push(&all, "host-pointers=runtime");
    /* the candidate's locals start written (ch/harden.h): objects made before are not reused */
    ch_strvec_push(&all, "locals=zeroed");
    /* the candidate compiled as verified (headers, #line, no macros in front): objects whose
     * unit defined private names before it are not reused */
    ch_strvec_push(&all, "candidate=as-verified");
    /* the unit pastes the runtime's interface: another interface, another object */
    char rt[17];
    ch_emit_runtime_ident(rt);
    ch_strvec_push_owned(&all, ch_xasprintf("runtime=%s", rt));
    ch_object_ident id = {s->nvcc_ident, "", all.items, 0, NULL, NULL, NULL};
    int rc = ch_cache_object_key(entry_key, &id, key);
    ch_strvec_free(&all);
    return rc;
}

/* The object check of an entry's unit before it is linked into the user's program: what the
 * candidate profile allows, the dispatcher's pieces, the user's own host function, and the
 * libraries the verified candidate declares (a cuBLAS variant). */
static int unit_object_passes(const ch_outcome *o, const char *obj_path, ch_strbuf *why)
{
    char *bridge = ch_emit_host_bridge_name(o->entry);
    const char *extra[] = {bridge, NULL};
    unsigned libs = ch_object_libraries_declared(o->kernel_src);
    int ok = ch_object_check_as(obj_path, CH_OBJECT_UNIT, extra, libs, why) == 0;
    free(bridge);
    return ok;
}

/* A test author's reference is the host path of a kernel's unit: compiled alone, as C, with
 * the host C compiler, as verification compiled it (never as C++ inside the .cu, where
 * sizeof('a') and other rules differ), and merged into the unit's object at obj_path. */
static int merge_reference(ch_session *s, const ch_emit_kernel *k, const char *tmp,
                           const char *obj_path, ch_error *err)
{
    ch_strbuf src;
    ch_strbuf_init(&src);
    ch_emit_reference_unit(k, &src);
    char *c = ch_xasprintf("%s/%s_reference.c", tmp, k->entry->name);
    char *ro = ch_xasprintf("%s/%s_reference.o", tmp, k->entry->name);
    int rc = ch_write_file_atomic(c, src.data, src.len, 0, err);
    if (rc == 0)
        rc = ch_emit_compile_reference(s->ref_cc.items[0], k->entry, c, ro, err);
    const char *objs[] = {obj_path, ro};
    if (rc == 0)
        rc = ch_emit_merge(objs, 2, NULL, obj_path, err);
    free(c);
    free(ro);
    ch_strbuf_free(&src);
    return rc;
}

int ch_session_object_key(ch_session *s, const ch_outcome *o, int c_linkage, char key[33],
                          ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    unit_argv(s, &argv);
    int rc = object_key(s, o->key, &argv, c_linkage, o->entry->is_static, o->gpu_min_size, &o->cold,
                        key, err);
    ch_strvec_free(&argv);
    return rc;
}

int ch_session_object(ch_session *s, const ch_outcome *o, int c_linkage, const char *tmp,
                      const char *obj_path, ch_error *err)
{
    assert(o->kernel_src); /* a host path has no unit: reference objects are assemble.c's */
    ch_strvec argv;
    ch_strvec_init(&argv);
    unit_argv(s, &argv);
    char okey[33];
    if (object_key(s, o->key, &argv, c_linkage, o->entry->is_static, o->gpu_min_size, &o->cold,
                   okey, err) != 0) {
        ch_strvec_free(&argv);
        return -1;
    }
    char *name = ch_xasprintf("objects/%s.o", okey);
    /* a hit already holds the entry's objects; a kernel made now has none yet */
    const ch_cache_file *f = ch_cache_hit_file(&o->hit, name);
    int rc = 0;
    if (f) {
        rc = ch_write_file_atomic(obj_path, f->data, f->len, 0, err);
        ch_strbuf why;
        ch_strbuf_init(&why);
        if (rc == 0 && !unit_object_passes(o, obj_path, &why)) {
            pthread_mutex_lock(&s->lock);
            ch_strvec_push_owned(&s->warnings,
                                 ch_xasprintf("%s: the cached object is refused and rebuilt "
                                              "from its source: %s",
                                              o->entry->name, why.data));
            pthread_mutex_unlock(&s->lock);
            f = NULL;
        }
        ch_strbuf_free(&why);
    }
    if (!f && rc == 0) {
        char *plain = NULL, *size_expr = NULL;
        ch_emit_size_expr(o->entry, &plain, &size_expr);
        /* the text linked is the text verified: hardened the same way (verify.c) */
        char *kernel = NULL;
        ch_strbuf hwhy;
        ch_strbuf_init(&hwhy);
        if (ch_harden_locals_bounded(o->kernel_src, &kernel, &hwhy) != 0) {
            ch_error_set(err, "%s: the verified kernel could not be hardened: %s", o->entry->name,
                         hwhy.data ? hwhy.data : "");
            rc = -1;
        }
        ch_strbuf_free(&hwhy);
        ch_emit_kernel k = {o->entry,        kernel ? kernel : o->kernel_src,
                            o->host_src,     o->design,
                            o->key,          size_expr,
                            o->gpu_min_size, o->cold};
        ch_strbuf unit, log;
        ch_strbuf_init(&unit);
        ch_strbuf_init(&log);
        char *cu = ch_xasprintf("%s/%s.cu", tmp, o->entry->name);
        if (rc == 0)
            rc = ch_emit_entry_cu(&k, c_linkage, &unit, err);
        if (rc == 0)
            rc = ch_write_file_atomic(cu, unit.data, unit.len, 0, err);
        if (rc == 0) {
            ch_session_count(s, &s->counts.kernel_compiles);
            rc = ch_emit_compile(argv.items, cu, obj_path, &log, err);
        }
        if (rc == 0 && k.host_src)
            rc = merge_reference(s, &k, tmp, obj_path, err);
        if (rc == 0)
            rc = ch_emit_private_names(obj_path, o->entry, err);
        ch_strbuf why;
        ch_strbuf_init(&why);
        if (rc == 0 && !unit_object_passes(o, obj_path, &why))
            rc = ch_error_set(err, "%s: the kernel's object is refused: %s", o->entry->name,
                              why.data);
        ch_strbuf_free(&why);
        char *data = NULL;
        size_t len = 0;
        ch_cache_txn *t = NULL;
        ch_error store_err;
        /* storing is best effort: the object is built either way */
        if (rc == 0 && s->cache && ch_read_file(obj_path, &data, &len, &store_err) == 0 &&
            ch_cache_begin_update(s->cache, o->key, &t, &store_err) == 0) {
            if (ch_cache_put(t, name, data, len, &store_err) == 0 &&
                ch_cache_put(t, "emitted.cu", unit.data, unit.len, &store_err) == 0)
                ch_cache_commit(t, &store_err);
            else
                ch_cache_abort(t);
        }
        free(data);
        free(cu);
        free(kernel);
        free(plain);
        free(size_expr);
        ch_strbuf_free(&unit);
        ch_strbuf_free(&log);
    }
    free(name);
    ch_strvec_free(&argv);
    return rc;
}
