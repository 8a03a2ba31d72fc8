/* The builtin agent (DESIGN §4): offline and deterministic. Its kernel job translates a harness
 * function's C body to CUDA (analysis.c, plan.c, codegen.c) and walks through the mapping
 * variants as evolution feeds back; entries without a body need an LLM provider. */
#include <stdlib.h>
#include <string.h>

#include "ch/agent.h"
#include "ch/agent_builtin.h"

#define NEED_LLM                                                                                   \
    "the builtin agent only translates C bodies; configure an LLM provider "                       \
    "(CH_CC_PROVIDER=openai|anthropic, CH_CC_MODEL, CH_CC_API_BASE)"

/* What the agent remembers per entry: the variants it has proposed. Owned by the agent. */
typedef struct bi_memory {
    char *key; /* entry name + signature */
    unsigned char *tried;
} bi_memory;

typedef struct bi_state {
    bi_memory *mem;
    size_t n;
} bi_state;

static bi_memory *memory_for(bi_state *st, const ch_entry *e)
{
    char *key = ch_xasprintf("%s\n%s", e->name, e->signature ? e->signature : "");
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->mem[i].key, key) == 0) {
            free(key);
            return &st->mem[i];
        }
    st->mem = ch_xrealloc(st->mem, (st->n + 1) * sizeof *st->mem);
    bi_memory *m = &st->mem[st->n++];
    m->key = key;
    m->tried = ch_xcalloc(bi_variant_count(), 1);
    return m;
}

static int builtin_checklist(ch_agent *ag, const ch_entry *e, ch_checklist *out, ch_error *err)
{
    (void)ag;
    if (e->kind == CH_KIND_SPEC_DECL || !e->has_body)
        return ch_error_at(err, e->file, e->line, e->col, "%s: %s", e->name, NEED_LLM);
    return ch_checklist_derive(e, out, err);
}

static int builtin_test_author(ch_agent *ag, const ch_checklist *c, char **reference_c,
                               ch_error *err)
{
    (void)ag;
    *reference_c = NULL;
    if (c->kind == CH_KIND_SPEC_DECL)
        return ch_error_set(err, "%s: %s", c->name ? c->name : "entry", NEED_LLM);
    return ch_error_set(err,
                        "%s: the C body is the reference of this entry; no test author is "
                        "needed",
                        c->name ? c->name : "entry");
}

static int builtin_kernel(ch_agent *ag, const ch_kernel_request *req, char **cuda_src,
                          char **design, ch_error *err)
{
    *cuda_src = NULL;
    if (design)
        *design = NULL;
    const ch_entry *e = req->entry;
    if (!e)
        return ch_error_set(err, "%s: %s",
                            req->checklist && req->checklist->name ? req->checklist->name : "entry",
                            NEED_LLM);
    if (!e->has_body || !e->body || e->kind == CH_KIND_SPEC_DECL)
        return ch_error_at(err, e->file, e->line, e->col, "%s: %s", e->name, NEED_LLM);
    bi_program prog;
    if (bi_analyse(e, &prog, err) != 0)
        return -1;
    bi_memory *m = memory_for(ag->impl, e);
    int parent = bi_variant_of_source(req->parent_source);
    if (parent >= 0)
        m->tried[parent] = 1;
    int v =
        bi_variant_choose(m->tried, req->feedback, req->fresh_design, parent, !e->clauses.device);
    if (v < 0) {
        bi_program_free(&prog);
        return 1;
    }
    m->tried[v] = 1;
    *cuda_src = bi_generate(&prog, bi_variant_get((size_t)v), ag->hw.sm_count);
    if (design)
        *design = bi_variant_design(bi_variant_get((size_t)v));
    bi_program_free(&prog);
    return 0;
}

static void builtin_close(ch_agent *ag)
{
    bi_state *st = ag->impl;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++) {
        free(st->mem[i].key);
        free(st->mem[i].tried);
    }
    free(st->mem);
    free(st);
    ag->impl = NULL;
}

static const ch_agent_ops builtin_ops = {
    .name = "builtin",
    .checklist = builtin_checklist,
    .test_author = builtin_test_author,
    .kernel = builtin_kernel,
    .close = builtin_close,
};

int ch_agent_builtin_open(ch_agent *ag, ch_error *err)
{
    (void)err;
    ag->ops = &builtin_ops;
    ag->impl = ch_xcalloc(1, sizeof(bi_state));
    return 0;
}
