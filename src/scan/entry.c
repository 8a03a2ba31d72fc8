/* Lifetime of harness entries (ch/entry.h): every string, parameter and IR tree an entry
 * points to is owned by it. */
#include <stdlib.h>
#include <string.h>

#include "ch/entry.h"

void ch_entry_list_init(ch_entry_list *l)
{
    l->items = NULL;
    l->len = 0;
}

static void free_named(ch_named_expr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].expr);
    }
    free(v);
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void ch_entry_free(ch_entry *e)
{
    free(e->name);
    free(e->file);
    free(e->spec);
    free(e->clauses_text);
    free_named(e->clauses.extents, e->clauses.n_extents);
    free_named(e->clauses.tune, e->clauses.n_tune);
    ch_range_exprs_free(e->clauses.ranges, e->clauses.n_ranges);
    free_named(e->clauses.offsets, e->clauses.n_offsets);
    free_named(e->clauses.perms, e->clauses.n_perms);
    free(e->clauses.sample);
    free_names(e->clauses.in, e->clauses.n_in);
    free_names(e->clauses.out, e->clauses.n_out);
    free_names(e->clauses.inout, e->clauses.n_inout);
    for (size_t i = 0; i < e->n_params; i++) {
        ch_param *p = &e->params[i];
        free(p->name);
        free(p->type);
        free(p->extent);
        free_names(p->dims, p->ndims);
        free(p->index_lo);
        free(p->index_hi);
        free(p->offsets_hi);
    }
    free(e->params);
    free(e->signature);
    free(e->body_tokens);
    ch_ir_free(e->body);
    for (size_t i = 0; i < e->n_helpers; i++) {
        free(e->helpers[i].name);
        free(e->helpers[i].source);
    }
    free(e->helpers);
    free(e->sample_source);
    memset(e, 0, sizeof *e);
}

void ch_range_exprs_free(ch_range_expr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].lo);
        free(v[i].hi);
    }
    free(v);
}

void ch_entry_list_free(ch_entry_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        ch_entry_free(&l->items[i]);
    free(l->items);
    l->items = NULL;
    l->len = 0;
}

const ch_param *ch_entry_param(const ch_entry *e, const char *name)
{
    for (size_t i = 0; i < e->n_params; i++)
        if (strcmp(e->params[i].name, name) == 0)
            return &e->params[i];
    return NULL;
}

void ch_param_cxx_decl(const ch_param *p, ch_strbuf *out)
{
    if (p->role == CH_ROLE_SCALAR) {
        ch_strbuf_addf(out, "%s %s", ch_scalar_name(p->elem), p->name);
        return;
    }
    ch_strbuf_addf(out, "%s%s *%s%s", p->is_const ? "const " : "", ch_scalar_name(p->elem),
                   p->role == CH_ROLE_POINTER && p->is_restrict ? "__restrict__ " : "", p->name);
}

void ch_entry_cxx_params(const ch_entry *e, ch_strbuf *out)
{
    for (size_t i = 0; i < e->n_params; i++) {
        if (i)
            ch_strbuf_adds(out, ", ");
        ch_param_cxx_decl(&e->params[i], out);
    }
    if (e->n_params == 0)
        ch_strbuf_adds(out, "void");
}

void ch_entry_call_args(const ch_entry *e, ch_strbuf *out)
{
    for (size_t i = 0; i < e->n_params; i++)
        ch_strbuf_addf(out, "%s%s", i ? ", " : "", e->params[i].name);
}

const ch_entry_helper *ch_entry_helper_named(const ch_entry *e, const char *name)
{
    for (size_t i = 0; i < e->n_helpers; i++)
        if (strcmp(e->helpers[i].name, name) == 0)
            return &e->helpers[i];
    return NULL;
}
