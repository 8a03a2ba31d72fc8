/* Emit, the GPU path through the trusted runtime (ch/emit.h, ch/runtime.h).
 *
 * When the verified candidate defines NAME_device_launcher, the dispatcher does not call the
 * candidate's host launcher: it hands the runtime the call's buffers (host pointers, byte counts
 * from the checklist's extents, directions) and a generated thunk that calls the device launcher
 * on the runtime's device copies. The runtime's interface is pasted into the unit with weak
 * declarations, so an object linked without libch_runtime.a still links and works: every call then
 * takes the host path. The candidate's own launcher (NAME_launcher, which copies the caller's data
 * itself) is never called in a user's program: candidate code gets the caller's host pointers
 * only inside verification's sandbox (issue 15). */
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <xxhash.h>

#include "ch/checklist.h"
#include "ch/embed.h"
#include "ch/emit.h"
#include "emit_internal.h"

extern const struct ch_embedded_file ch_runtime_header_files[];

/* Past whitespace and comments. */
static const char *skip_space(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        const char *q = (p[0] == '/' && (p[1] == '/' || p[1] == '*')) ? ch_c_skip_noncode(p) : p;
        if (q == p)
            return p;
        p = q;
    }
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

int ch_emit_has_device_launcher(const char *src, const char *name)
{
    if (!src || !name)
        return 0;
    char *want = ch_xasprintf("%s_device_launcher", name);
    size_t wl = strlen(want);
    int found = 0;
    for (const char *p = src; *p && !found;) {
        const char *q = ch_c_skip_noncode(p);
        if (q != p) {
            p = q;
            continue;
        }
        if (!ident_char(*p)) {
            p++;
            continue;
        }
        const char *start = p;
        while (ident_char(*p))
            p++;
        if ((size_t)(p - start) != wl || memcmp(start, want, wl) != 0)
            continue;
        /* the name, a parameter list, then a body: a definition, not a call or a prototype */
        const char *r = skip_space(p);
        if (*r != '(')
            continue;
        int depth = 0;
        while (*r) {
            const char *s = ch_c_skip_noncode(r);
            if (s != r) {
                r = s;
                continue;
            }
            depth += *r == '(';
            depth -= *r == ')';
            r++;
            if (depth == 0)
                break;
        }
        found = depth == 0 && *skip_space(r) == '{';
    }
    free(want);
    return found;
}

int ch_emit_runtime_eligible(const ch_entry *e)
{
    if (e->clauses.device)
        return 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role != CH_ROLE_SCALAR && (!p->extent || !*p->extent))
            return 0;
    }
    return 1;
}

char *ch_emit_gpu_refusal(const ch_entry *e, const char *kernel_src)
{
    if (!e || e->clauses.device)
        return NULL; /* the caller's pointers are device pointers: nothing of the host's to give */
    if (!ch_emit_has_device_launcher(kernel_src, e->name))
        return ch_xasprintf("the candidate copies the caller's data itself (no "
                            "%s_device_launcher); ch-cc links only kernels whose data the "
                            "trusted runtime moves",
                            e->name);
    if (!ch_emit_runtime_eligible(e))
        return ch_xstrdup("a buffer's extent is unknown, so the trusted runtime cannot move its "
                          "data; ch-cc links only kernels whose data the trusted runtime moves");
    return NULL;
}

/* The extent of p in long long arithmetic, min( and max( as the unit's helpers. */
static void extent_expr(const ch_entry *e, const ch_param *p, ch_strbuf *out, int *minmax)
{
    ch_strbuf wide;
    ch_strbuf_init(&wide);
    ch_emit_widen(e, p->extent, &wide);
    for (const char *s = wide.data; *s;) {
        if (ident_char(*s)) {
            const char *t = s;
            while (ident_char(*t))
                t++;
            int call = *skip_space(t) == '(';
            if (call && t - s == 3 && (memcmp(s, "min", 3) == 0 || memcmp(s, "max", 3) == 0)) {
                ch_strbuf_addf(out, "ch_%s_rt_%.3s", e->name, s);
                *minmax = 1;
            } else {
                ch_strbuf_add(out, s, (size_t)(t - s));
            }
            s = t;
        } else {
            ch_strbuf_addc(out, *s++);
        }
    }
    ch_strbuf_free(&wide);
}

/* The runtime's direction of a buffer: const memory is never written back (as in the
 * candidate's own launcher). */
static const char *rt_dir(const ch_param *p)
{
    if (p->is_const || p->dir == CH_DIR_IN || p->dir == CH_DIR_NONE)
        return "CH_RT_IN";
    return p->dir == CH_DIR_OUT ? "CH_RT_OUT" : "CH_RT_INOUT";
}

void ch_emit_runtime_ident(char out[17])
{
    /* the header is the whole interface (its _v1 names are the version): objects that paste
     * another header were built against another runtime */
    const char *h = ch_embedded_text(ch_runtime_header_files, "runtime.h");
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(h ? h : "", h ? strlen(h) : 0));
}

void ch_emit_runtime_interface(ch_strbuf *out)
{
    const char *h = ch_embedded_text(ch_runtime_header_files, "runtime.h");
    ch_strbuf_adds(out, "\n/* ---- the trusted runtime's interface (ch/runtime.h), weak: without "
                        "libch_runtime.a\n * linked in, every call takes the host path ---- */\n"
                        "#define CH_RT_DECL __attribute__((weak))\n");
    ch_strbuf_adds(out, h ? h : "#error ch-cc was built without its runtime header\n");
}

/* The arguments of NAME_device_launcher from the runtime's device copies (dev[k]: the k-th
 * buffer) and the scalars in s; a map's size parameter is the chunk's count instead. */
static void launcher_args(const ch_entry *e, const char *map, ch_strbuf *out)
{
    size_t k = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        ch_strbuf_adds(out, i ? ", " : "");
        if (p->role != CH_ROLE_SCALAR)
            ch_strbuf_addf(out, "(%s%s *)dev[%zu]", p->is_const ? "const " : "",
                           ch_scalar_name(p->elem), k++);
        else if (map && strcmp(p->name, map) == 0)
            ch_strbuf_addf(out, "(%s)count", ch_scalar_name(p->elem));
        else
            ch_strbuf_addf(out, "s->%s", p->name);
    }
}

/* The thunk the runtime calls: the device launcher on the runtime's device copies; for a map
 * (map: its size parameter), on one chunk of count elements, the copies offset to it. */
static void emit_thunk(const ch_entry *e, int scalars, const char *map, int scrub, ch_strbuf *out)
{
    const char *n = e->name;
    if (scalars) {
        ch_strbuf_addf(
            out, "/* the call's scalars, handed to the thunk */\nstruct ch_%s_rt_scalars {\n", n);
        for (size_t i = 0; i < e->n_params; i++)
            if (e->params[i].role == CH_ROLE_SCALAR) {
                ch_strbuf_adds(out, "    ");
                ch_param_cxx_decl(&e->params[i], out);
                ch_strbuf_adds(out, ";\n");
            }
        ch_strbuf_adds(out, "};\n\n");
    }
    if (map)
        ch_strbuf_addf(out,
                       "/* The device launcher on one chunk of the call: %s is an elementwise "
                       "map over %s\n * (element i of its outputs depends only on element i of "
                       "its buffers), so the runtime\n * runs it on [lo, lo + count) as a call of "
                       "count elements on dev[k] = the k-th buffer's\n * device copy + lo, "
                       "overlapping one chunk's copies with another's kernels. */\n"
                       "static int ch_%s_rt_device(void *const *dev, size_t count, const void "
                       "*ctx)\n{\n",
                       n, map, n);
    else
        ch_strbuf_addf(out,
                       "/* The device launcher on the runtime's device copies: dev[k] is the "
                       "k-th buffer\n * parameter. */\nstatic int ch_%s_rt_device(void *const "
                       "*dev, const void *ctx)\n{\n",
                       n);
    if (scalars)
        ch_strbuf_addf(out,
                       "    const struct ch_%s_rt_scalars *s = (const struct ch_%s_rt_scalars "
                       "*)ctx;\n",
                       n, n);
    else
        ch_strbuf_adds(out, "    (void)ctx;\n");
    if (scrub)
        ch_strbuf_addf(
            out,
            "    int ch_scrubbed = ch_%s_scrub(); /* shared memory as no call left it */\n"
            "    if (ch_scrubbed != 0)\n        return ch_scrubbed;\n",
            n);
    ch_strbuf_addf(out, "    return %s_device_launcher(", n);
    launcher_args(e, map, out);
    ch_strbuf_adds(out, ");\n}\n\n");
}

/* The element counts of the call's buffers, the check that they fit in size_t (else `return
 * bad;`) and `ch_rt_buffer ch_bufs[]` over the caller's pointers. Returns the buffer count; any
 * min/max helpers the extents need are noted in *minmax. */
static size_t emit_buffers(const ch_entry *e, const char *bad, ch_strbuf *out, int *minmax)
{
    size_t nbuf = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        if (!nbuf++)
            ch_strbuf_adds(out, "    /* element counts: the checklist's extents */\n");
        ch_strbuf_addf(out, "    const long long ch_count_%s = ", p->name);
        extent_expr(e, p, out, minmax);
        ch_strbuf_adds(out, ";\n");
    }
    if (!nbuf)
        return 0;
    ch_strbuf_adds(out, "    if (");
    size_t k = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        ch_strbuf_addf(out,
                       "%s(ch_count_%s < 0 || (unsigned long long)ch_count_%s > "
                       "(size_t)-1 / sizeof(%s))",
                       k++ ? " ||\n        " : "", p->name, p->name, ch_scalar_name(p->elem));
    }
    ch_strbuf_addf(out, ")\n        return %s;\n", bad);
    ch_strbuf_addf(out, "    ch_rt_buffer ch_bufs[%zu] = {\n", nbuf);
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role != CH_ROLE_SCALAR)
            ch_strbuf_addf(out, "        {(void *)%s, (size_t)ch_count_%s * sizeof(%s), %s},\n",
                           p->name, p->name, ch_scalar_name(p->elem), rt_dir(p));
    }
    ch_strbuf_adds(out, "    };\n");
    return nbuf;
}

void ch_emit_runtime_path(const ch_entry *e, int scrub, ch_strbuf *out)
{
    const char *n = e->name;
    size_t nscalar = 0;
    for (size_t i = 0; i < e->n_params; i++)
        nscalar += e->params[i].role == CH_ROLE_SCALAR;
    ch_strbuf params, bufs;
    ch_strbuf_init(&params);
    ch_strbuf_init(&bufs);
    ch_entry_cxx_params(e, &params);
    int minmax = 0;
    size_t nbuf =
        emit_buffers(e, "CH_RT_E_ARGS; /* the host path judges such a call */", &bufs, &minmax);

    ch_strbuf_addf(out,
                   "\n/* ---- GPU path through the runtime ---- */\n"
                   "/* The runtime moves %s's buffers (kept on the device across calls; pinned "
                   "staging filled\n * and drained by host threads while the DMA runs) and runs "
                   "%s_device_launcher on them. */\n"
                   "static ch_rt_site ch_%s_rt_site = CH_RT_SITE_INIT(\"%s\");\n\n",
                   n, n, n, n);
    if (minmax)
        ch_strbuf_addf(out,
                       "static long long ch_%s_rt_min(long long a, long long b)\n{\n"
                       "    return a < b ? a : b;\n}\n\n"
                       "static long long ch_%s_rt_max(long long a, long long b)\n{\n"
                       "    return a > b ? a : b;\n}\n\n",
                       n, n);
    const char *map = ch_checklist_map_size(e);
    emit_thunk(e, nscalar > 0, map, scrub, out);

    ch_strbuf_addf(out,
                   "/* 0 when the outputs are written; else a status, and the caller's memory "
                   "is as it was\n * (ch/runtime.h) */\nstatic int ch_%s_rt_call(%s)\n{\n"
                   "    if (!ch_rt_call_v1) /* libch_runtime.a is not linked in: the host path */\n"
                   "        return CH_RT_E_OFF;\n",
                   n, params.data);
    ch_strbuf_add(out, bufs.data, bufs.len);
    if (nscalar) {
        ch_strbuf_addf(out, "    struct ch_%s_rt_scalars ch_s = {", n);
        size_t k = 0;
        for (size_t i = 0; i < e->n_params; i++)
            if (e->params[i].role == CH_ROLE_SCALAR)
                ch_strbuf_addf(out, "%s%s", k++ ? ", " : "", e->params[i].name);
        ch_strbuf_adds(out, "};\n");
    }
    if (map)
        ch_strbuf_addf(out,
                       "    if (!ch_rt_call_map_v1) /* an older libch_runtime.a */\n"
                       "        return CH_RT_E_OFF;\n"
                       "    return ch_rt_call_map_v1(&ch_%s_rt_site, ch_bufs, %zu, (size_t)%s, "
                       "ch_%s_rt_device, %s);\n}\n\n",
                       n, nbuf, map, n, nscalar ? "&ch_s" : "NULL");
    else
        ch_strbuf_addf(out,
                       "    return ch_rt_call_v1(&ch_%s_rt_site, %s, %zu, ch_%s_rt_device, "
                       "%s);\n}\n\n",
                       n, nbuf ? "ch_bufs" : "NULL", nbuf, n, nscalar ? "&ch_s" : "NULL");

    ch_strbuf_addf(out,
                   "static const char *ch_%s_rt_status(int status)\n{\n"
                   "    if (ch_rt_strerror_v1)\n        return ch_rt_strerror_v1(status);\n"
                   "    return status > 0 ? cudaGetErrorString((cudaError_t)status) : \"?\";\n}\n\n"
                   "/* the runtime is linked in and has the GPU path on (a CUDA device is "
                   "usable) */\nstatic int ch_%s_rt_usable(void)\n{\n"
                   "    return ch_rt_call_v1 && ch_rt_usable_v1 && ch_rt_usable_v1();\n}\n",
                   n, n);
    ch_strbuf_free(&params);
    ch_strbuf_free(&bufs);
}

void ch_emit_runtime_cold(const ch_entry *e, ch_strbuf *out)
{
    const char *n = e->name;
    ch_strbuf params, bufs;
    ch_strbuf_init(&params);
    ch_strbuf_init(&bufs);
    ch_entry_cxx_params(e, &params);
    int minmax = 0;
    size_t nbuf = emit_buffers(e, "CH_RT_WARM; /* ch_rt_call_v1 refuses it: no cost to weigh */",
                               &bufs, &minmax);
    ch_strbuf_addf(out,
                   "\n/* What this call would pay besides its warm cost (ch_rt_cold_v1: the "
                   "device's set-up,\n * the site's buffers), or -1 when the runtime cannot tell. "
                   "Loads no driver. */\nstatic int ch_%s_rt_cold(%s)\n{\n"
                   "    if (!ch_rt_cold_v1 || !ch_rt_call_v1)\n        return -1;\n",
                   n, params.data);
    /* the scalars count only through the extents */
    for (size_t i = 0; i < e->n_params; i++)
        if (e->params[i].role == CH_ROLE_SCALAR)
            ch_strbuf_addf(out, "    (void)%s;\n", e->params[i].name);
    ch_strbuf_add(out, bufs.data, bufs.len);
    ch_strbuf_addf(out, "    return ch_rt_cold_v1(&ch_%s_rt_site, %s, %zu);\n}\n", n,
                   nbuf ? "ch_bufs" : "NULL", nbuf);
    ch_strbuf_free(&params);
    ch_strbuf_free(&bufs);
}
