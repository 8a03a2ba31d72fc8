/* Scaffold, the whole call through the trusted runtime (ch/scaffold.h, ch/runtime.h).
 *
 * The dispatcher of a host-pointer entry whose candidate defines NAME_device_launcher hands the
 * call's buffers to the runtime (src/emit/runtime_path.c); so time mode times that, not the
 * candidate's own launcher, or the dispatch threshold is set from a path that never runs.
 *
 * Why a generator of its own rather than emit's: emit works on the parsed entry (ch_entry) and
 * the scaffold on the checklist (ch_checklist, which an agent may have written), and the scaffold
 * must not depend on emit. What the two share is the runtime's interface itself (the embedded
 * ch/runtime.h) and its contract; the call below is a dozen generated lines. */
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/scaffold.h"
#include "scaffold_internal.h"

extern const struct ch_embedded_file ch_runtime_header_files[];

static int is_buf(const ch_ck_param *p)
{
    return p->role != CH_ROLE_SCALAR;
}

/* The runtime's direction of a buffer: inputs are never written back. */
static const char *rt_dir(const ch_ck_param *p)
{
    if (p->dir == CH_DIR_OUT)
        return "CH_RT_OUT";
    return p->dir == CH_DIR_INOUT ? "CH_RT_INOUT" : "CH_RT_IN";
}

/* struct ch_rt_scalars and the thunk that runs NAME_device_launcher on the runtime's copies. */
static void emit_thunk(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_adds(o, "/* the call's scalars, handed to the thunk */\nstruct ch_rt_scalars {\n"
                      "    int ch_unused; /* never empty */\n");
    for (size_t i = 0; i < c->n_params; i++)
        if (!is_buf(&c->params[i])) {
            char *t = ch_scaffold_param_type(&c->params[i]);
            ch_strbuf_addf(o, "    %s %s;\n", t, c->params[i].name);
            free(t);
        }
    if (c->map)
        ch_strbuf_addf(o,
                       "};\n\n/* %s_device_launcher on one chunk of count elements (an "
                       "elementwise map over %s:\n * dev[k], the k-th buffer's device copy, is "
                       "offset to the chunk), as the dispatcher's\n * ch_rt_call_map_v1 runs it "
                       "*/\nstatic int ch_rt_thunk(void *const *dev, size_t count, const void "
                       "*ctx)\n{\n",
                       c->name, c->map);
    else
        ch_strbuf_addf(o,
                       "};\n\n/* %s_device_launcher on the runtime's device copies (dev[k]: "
                       "the k-th buffer) */\nstatic int ch_rt_thunk(void *const *dev, const void "
                       "*ctx)\n{\n",
                       c->name);
    ch_strbuf_addf(o,
                   "    const struct ch_rt_scalars *s = (const struct ch_rt_scalars *)ctx;\n"
                   "    (void)s;\n    return %s_device_launcher(",
                   c->name);
    size_t k = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        ch_strbuf_adds(o, i ? ", " : "");
        if (!is_buf(p) && c->map && strcmp(p->name, c->map) == 0) {
            char *t = ch_scaffold_param_type(p);
            ch_strbuf_addf(o, "(%s)count", t);
            free(t);
            continue;
        }
        if (!is_buf(p)) {
            ch_strbuf_addf(o, "s->%s", p->name);
            continue;
        }
        char *t = ch_scaffold_param_type(p);
        ch_strbuf_addf(o, "(%s)dev[%zu]", t, k++);
        free(t);
    }
    ch_strbuf_adds(o, ");\n}\n\n");
}

void ch_scaffold_runtime_call(ch_strbuf *o, const ch_checklist *c)
{
    const char *h = ch_embedded_text(ch_runtime_header_files, "runtime.h");
    ch_strbuf_adds(o, "/* ---- The whole call as the dispatcher makes it --------------------- */\n"
                      "/* the trusted runtime's interface (ch/runtime.h), weak: a scaffold linked "
                      "without\n * libch_runtime.a times the candidate's own launcher */\n"
                      "#define CH_RT_DECL __attribute__((weak))\n");
    ch_strbuf_adds(o, h ? h : "#error ch-cc was built without its runtime header\n");
    ch_strbuf_addf(o, "\nstatic ch_rt_site ch_rt_site_whole = CH_RT_SITE_INIT(\"%s\");\n\n",
                   c->name);
    emit_thunk(o, c);
    ch_strbuf_addf(o,
                   "/* 1 when the whole call goes through the runtime: the candidate has a device "
                   "launcher,\n * the runtime is linked and its GPU path is on (what the "
                   "dispatcher checks) */\nstatic int ch_rt_path(void)\n{\n"
                   "    return %s_device_launcher != NULL && %s != NULL &&\n"
                   "           ch_rt_usable_v1 != NULL && ch_rt_usable_v1();\n}\n\n",
                   c->name, c->map ? "ch_rt_call_map_v1" : "ch_rt_call_v1");
    ch_strbuf_addf(o,
                   "/* The device's set-up alone, as the dispatcher's first call pays it: the "
                   "runtime's\n * (probe, context, staging) when the whole call goes through it, "
                   "else the CUDA\n * context the launcher's first call makes. */\n"
                   "static void ch_device_setup(void)\n{\n"
                   "    if (%s_device_launcher != NULL && ch_rt_call_v1 != NULL && "
                   "ch_rt_setup_v1 != NULL) {\n"
                   "        ch_rt_setup_v1();\n        return;\n    }\n"
                   "    cudaFree(0);\n    cudaGetLastError();\n}\n\n",
                   c->name);
    char *proto = ch_scaffold_launcher_proto(c);
    /* the same parameters under the scaffold's own name */
    const char *params = proto + strcspn(proto, "(");
    ch_strbuf_addf(o,
                   "/* The whole host-pointer call: through the runtime when ch_rt_path(), else "
                   "the\n * candidate's launcher. A failed runtime call is a CUDA error "
                   "(exit 3). */\nstatic void %s_ch_whole_call%s\n{\n    if (!ch_rt_path()) {\n"
                   "        %s_launcher(",
                   c->name, params, c->name);
    free(proto);
    for (size_t i = 0; i < c->n_params; i++)
        ch_strbuf_addf(o, "%s%s", i ? ", " : "", c->params[i].name);
    ch_strbuf_adds(o, ");\n        return;\n    }\n");
    size_t nbuf = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (!is_buf(p))
            continue;
        nbuf++;
        ch_strbuf_addf(o, "    const size_t ch_count_%s = ch_count((long long)(", p->name);
        ch_scaffold_add_extent(o, p->extent ? p->extent : "1");
        ch_strbuf_addf(o, "), \"%s\");\n", p->name);
    }
    ch_strbuf_addf(o, "    ch_rt_buffer ch_bufs[%zu] = {\n", nbuf ? nbuf : 1);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (is_buf(p))
            ch_strbuf_addf(o, "        {(void *)%s, ch_count_%s * sizeof *%s, %s},\n", p->name,
                           p->name, p->name, rt_dir(p));
    }
    if (!nbuf)
        ch_strbuf_adds(o, "        {NULL, 0, CH_RT_IN},\n");
    ch_strbuf_adds(o, "    };\n    struct ch_rt_scalars ch_s;\n    ch_s.ch_unused = 0;\n");
    for (size_t i = 0; i < c->n_params; i++)
        if (!is_buf(&c->params[i]))
            ch_strbuf_addf(o, "    ch_s.%s = %s;\n", c->params[i].name, c->params[i].name);
    if (c->map)
        ch_strbuf_addf(o,
                       "    int ch_st = ch_rt_call_map_v1(&ch_rt_site_whole, ch_bufs, %zu, "
                       "(size_t)%s, ch_rt_thunk, &ch_s);\n",
                       nbuf, c->map);
    else
        ch_strbuf_addf(o,
                       "    int ch_st = ch_rt_call_v1(&ch_rt_site_whole, ch_bufs, %zu, "
                       "ch_rt_thunk, &ch_s);\n",
                       nbuf);
    ch_strbuf_addf(
        o,
        "    if (ch_st != 0) {\n"
        "        fprintf(stderr, \"ch-scaffold: the runtime's call of %s failed: %%s\\n\",\n"
        "                ch_rt_strerror_v1 ? ch_rt_strerror_v1(ch_st) : \"?\");\n"
        "        exit(3);\n    }\n}\n\n",
        c->name);
}
