/* TEST-ONLY stand-in for src/checklist (ch_checklist_from_json / _validate / _free), used by
 * test_agent.c until the checklist module is merged. Every definition is weak, so the real module
 * wins as soon as it is linked; delete this file (and its #include) once it is. It parses the
 * fields the agent layer reads and rejects what the real validator certainly rejects (missing
 * name/signature/params, unknown role or direction, pointer without extent). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/strbuf.h"

__attribute__((weak)) void ch_checklist_free(ch_checklist *c)
{
    if (!c)
        return;
    free(c->name);
    free(c->signature);
    free(c->description);
    free(c->reference);
    for (size_t i = 0; i < c->n_params; i++) {
        free(c->params[i].name);
        free(c->params[i].type);
        free(c->params[i].extent);
        free(c->params[i].index_of);
        free(c->params[i].index_hi);
    }
    free(c->params);
    ch_ck_size *sets[] = {c->smoke, c->correctness};
    size_t ns[] = {c->n_smoke, c->n_correctness};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < ns[k]; i++) {
            for (size_t j = 0; j < sets[k][i].n; j++)
                free(sets[k][i].names[j]);
            free(sets[k][i].names);
            free(sets[k][i].values);
        }
        free(sets[k]);
    }
    for (size_t j = 0; j < c->tune.n; j++)
        free(c->tune.names[j]);
    free(c->tune.names);
    free(c->tune.values);
    memset(c, 0, sizeof *c);
}

__attribute__((weak)) int ch_checklist_validate(const ch_checklist *c, ch_error *err)
{
    if (!c->name || !*c->name)
        return ch_error_set(err, "name: missing");
    if (!c->signature)
        return ch_error_set(err, "signature: missing");
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].role != CH_ROLE_SCALAR && !c->params[i].extent)
            return ch_error_set(err, "params[%zu].extent: missing", i);
    return 0;
}

static char *stub_str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? ch_xstrdup(v->valuestring) : NULL;
}

static void stub_size(const cJSON *o, ch_ck_size *s)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)cJSON_GetArraySize(o);
    s->names = ch_xcalloc(n + 1, sizeof *s->names);
    s->values = ch_xcalloc(n + 1, sizeof *s->values);
    const cJSON *v;
    cJSON_ArrayForEach(v, o)
    {
        s->names[s->n] = ch_xstrdup(v->string);
        s->values[s->n++] = (long long)v->valuedouble;
    }
}

static void stub_sizes(const cJSON *a, ch_ck_size **out, size_t *n)
{
    *n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
    *out = ch_xcalloc(*n + 1, sizeof **out);
    for (size_t i = 0; i < *n; i++)
        stub_size(cJSON_GetArrayItem(a, (int)i), &(*out)[i]);
}

__attribute__((weak)) int ch_checklist_from_json(const char *json, ch_checklist *c, ch_error *err)
{
    memset(c, 0, sizeof *c);
    cJSON *j = cJSON_Parse(json);
    if (!j)
        return ch_error_set(err, "not JSON");
    int rc = 0;
    c->name = stub_str(j, "name");
    c->signature = stub_str(j, "signature");
    c->description = stub_str(j, "description");
    c->reference = stub_str(j, "reference");
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(j, "params");
    if (!cJSON_IsArray(ps)) {
        rc = ch_error_set(err, "params: missing");
        goto out;
    }
    c->n_params = (size_t)cJSON_GetArraySize(ps);
    c->params = ch_xcalloc(c->n_params + 1, sizeof *c->params);
    for (size_t i = 0; i < c->n_params && rc == 0; i++) {
        const cJSON *p = cJSON_GetArrayItem(ps, (int)i);
        ch_ck_param *q = &c->params[i];
        q->name = stub_str(p, "name");
        q->type = stub_str(p, "type");
        q->extent = stub_str(p, "extent");
        char *role = stub_str(p, "role"), *dir = stub_str(p, "direction"),
             *elem = stub_str(p, "elem");
        if (!q->name || !role || ch_role_parse(role, &q->role) != 0)
            rc = ch_error_set(err, "params[%zu].role: invalid", i);
        else if (!dir || ch_dir_parse(dir, &q->dir) != 0)
            rc = ch_error_set(err, "params[%zu].direction: invalid", i);
        q->elem = elem ? ch_scalar_parse(elem) : CH_T_UNKNOWN;
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(p, "range");
        if (cJSON_GetArraySize(r) == 2) {
            q->lo = cJSON_GetArrayItem(r, 0)->valuedouble;
            q->hi = cJSON_GetArrayItem(r, 1)->valuedouble;
        }
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "rtol");
        q->rtol = cJSON_IsNumber(t) ? t->valuedouble : 0;
        t = cJSON_GetObjectItemCaseSensitive(p, "atol");
        q->atol = cJSON_IsNumber(t) ? t->valuedouble : 0;
        free(role);
        free(dir);
        free(elem);
    }
    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(j, "sizes");
    stub_sizes(cJSON_GetObjectItemCaseSensitive(sz, "smoke"), &c->smoke, &c->n_smoke);
    stub_sizes(cJSON_GetObjectItemCaseSensitive(sz, "correctness"), &c->correctness,
               &c->n_correctness);
    const cJSON *tune = cJSON_GetObjectItemCaseSensitive(sz, "tune");
    if (cJSON_IsObject(tune))
        stub_size(tune, &c->tune);
    c->device = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "device"));
    if (rc == 0)
        rc = ch_checklist_validate(c, err);
out:
    cJSON_Delete(j);
    if (rc != 0)
        ch_checklist_free(c);
    return rc;
}
