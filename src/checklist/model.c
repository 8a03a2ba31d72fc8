/* The checklist structure (ch/checklist.h): lifetime, parameter lookup and size sets.
 * A ch_checklist owns every string, parameter and size set it points to; ch_checklist_free
 * releases all of it and leaves a zeroed structure. */
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/strbuf.h"

void ch_ck_size_free(ch_ck_size *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    free(s->values);
    memset(s, 0, sizeof *s);
}

char *ch_ck_size_text(const ch_ck_size *s)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; s && i < s->n; i++)
        ch_strbuf_addf(&sb, "%s%s=%lld", i ? ", " : "", s->names[i], s->values[i]);
    return ch_strbuf_detach(&sb);
}

void ch_ck_size_set(ch_ck_size *s, const char *name, long long value)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0) {
            s->values[i] = value;
            return;
        }
    s->names = ch_xrealloc(s->names, (s->n + 1) * sizeof *s->names);
    s->values = ch_xrealloc(s->values, (s->n + 1) * sizeof *s->values);
    s->names[s->n] = ch_xstrdup(name);
    s->values[s->n] = value;
    s->n++;
}

int ch_ck_size_get(const ch_ck_size *s, const char *name, long long *value)
{
    if (!s)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0) {
            if (value)
                *value = s->values[i];
            return 0;
        }
    return -1;
}

void ch_ck_size_copy(ch_ck_size *dst, const ch_ck_size *src)
{
    memset(dst, 0, sizeof *dst);
    for (size_t i = 0; i < src->n; i++)
        ch_ck_size_set(dst, src->names[i], src->values[i]);
}

int ch_ck_param_is_size(const ch_ck_param *p)
{
    return p->role == CH_ROLE_SCALAR && ch_scalar_is_integer(p->elem) && !p->has_range;
}

static void free_sizes(ch_ck_size *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ch_ck_size_free(&v[i]);
    free(v);
}

void ch_checklist_free(ch_checklist *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->signature);
    free(c->description);
    free(c->reference);
    for (size_t i = 0; i < c->n_params; i++) {
        ch_ck_param *p = &c->params[i];
        free(p->name);
        free(p->type);
        free(p->extent);
        free(p->index_of);
        free(p->index_lo);
        free(p->index_hi);
        free(p->offsets_hi);
    }
    free(c->params);
    free_sizes(c->smoke, c->n_smoke);
    free_sizes(c->correctness, c->n_correctness);
    ch_ck_size_free(&c->tune);
    free(c->sample);
    free(c->map);
    memset(c, 0, sizeof *c);
}

const ch_ck_param *ch_checklist_param(const ch_checklist *c, const char *name)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].name && strcmp(c->params[i].name, name) == 0)
            return &c->params[i];
    return NULL;
}
