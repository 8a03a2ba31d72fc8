/* --harness-list and --harness-checklist: the scan and checklist stages' view of a file.
 * Prints one JSON array (cJSON) on stdout; on a bad annotation prints its located error and
 * exits 1 without any output. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"
#include "ch/pipeline.h"
#include "ch/scan.h"
#include "driver.h"

static cJSON *param_json(const ch_param *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddStringToObject(o, "type", p->type);
    cJSON_AddStringToObject(o, "role", ch_role_name(p->role));
    cJSON_AddStringToObject(o, "elem", ch_scalar_name(p->elem));
    if (p->role == CH_ROLE_SCALAR)
        return o;
    cJSON_AddStringToObject(o, "direction", ch_dir_name(p->dir));
    if (p->extent)
        cJSON_AddStringToObject(o, "extent", p->extent);
    else
        cJSON_AddNullToObject(o, "extent");
    if (p->role == CH_ROLE_ARRAY) {
        cJSON *dims = cJSON_AddArrayToObject(o, "dims");
        for (size_t i = 0; i < p->ndims; i++)
            cJSON_AddItemToArray(dims, cJSON_CreateString(p->dims[i]));
    }
    if (p->is_index) {
        cJSON_AddBoolToObject(o, "index", 1);
        if (p->index_lo)
            cJSON_AddStringToObject(o, "index_lo", p->index_lo);
        if (p->index_hi)
            cJSON_AddStringToObject(o, "index_hi", p->index_hi);
    }
    if (p->is_perm)
        cJSON_AddBoolToObject(o, "perm", 1);
    if (p->offsets_hi)
        cJSON_AddStringToObject(o, "offsets_hi", p->offsets_hi);
    if (p->has_range) {
        cJSON *r = cJSON_AddArrayToObject(o, "range");
        cJSON_AddItemToArray(r, cJSON_CreateNumber(p->lo));
        cJSON_AddItemToArray(r, cJSON_CreateNumber(p->hi));
    }
    if (p->values_explicit)
        cJSON_AddBoolToObject(o, "values_from_clause", 1);
    return o;
}

static cJSON *names_json(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static cJSON *pairs_json(const ch_named_expr *v, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < n; i++)
        cJSON_AddStringToObject(o, v[i].name, v[i].expr);
    return o;
}

static cJSON *clauses_json(const ch_clauses *c)
{
    cJSON *o = cJSON_CreateObject();
    if (c->n_extents)
        cJSON_AddItemToObject(o, "extent", pairs_json(c->extents, c->n_extents));
    if (c->n_in)
        cJSON_AddItemToObject(o, "in", names_json(c->in, c->n_in));
    if (c->n_out)
        cJSON_AddItemToObject(o, "out", names_json(c->out, c->n_out));
    if (c->n_inout)
        cJSON_AddItemToObject(o, "inout", names_json(c->inout, c->n_inout));
    if (c->n_tune)
        cJSON_AddItemToObject(o, "tune", pairs_json(c->tune, c->n_tune));
    if (c->has_tol)
        cJSON_AddNumberToObject(o, "tol", c->tol);
    if (c->device)
        cJSON_AddBoolToObject(o, "device", 1);
    if (c->has_budget)
        cJSON_AddNumberToObject(o, "budget", c->budget);
    if (c->n_ranges) {
        cJSON *r = cJSON_AddObjectToObject(o, "range");
        for (size_t i = 0; i < c->n_ranges; i++) {
            cJSON *b = cJSON_AddArrayToObject(r, c->ranges[i].name);
            cJSON_AddItemToArray(b, cJSON_CreateString(c->ranges[i].lo));
            cJSON_AddItemToArray(b, cJSON_CreateString(c->ranges[i].hi));
        }
    }
    if (c->n_offsets)
        cJSON_AddItemToObject(o, "offsets", pairs_json(c->offsets, c->n_offsets));
    if (c->n_perms)
        cJSON_AddItemToObject(o, "perm", pairs_json(c->perms, c->n_perms));
    if (c->sample)
        cJSON_AddStringToObject(o, "sample", c->sample);
    return o;
}

static cJSON *entry_json(const ch_session *s, const ch_entry *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", e->name);
    char key[33];
    ch_error err;
    if (ch_session_key(s, e, key, &err) == 0)
        cJSON_AddStringToObject(o, "key", key);
    cJSON_AddStringToObject(o, "kind", ch_kind_name(e->kind));
    cJSON_AddStringToObject(o, "file", e->file);
    cJSON_AddNumberToObject(o, "line", e->line);
    cJSON_AddNumberToObject(o, "column", e->col);
    if (e->spec)
        cJSON_AddStringToObject(o, "spec", e->spec);
    else
        cJSON_AddNullToObject(o, "spec");
    cJSON_AddStringToObject(o, "signature", e->signature);
    cJSON *params = cJSON_AddArrayToObject(o, "params");
    for (size_t i = 0; i < e->n_params; i++)
        cJSON_AddItemToArray(params, param_json(&e->params[i]));
    cJSON_AddItemToObject(o, "clauses", clauses_json(&e->clauses));
    return o;
}

int ch_admin_list(ch_driver *d, int checklist_form)
{
    ch_error err;
    ch_error_clear(&err);
    if (d->args.n_inputs == 0) {
        ch_error_set(&err, "--harness-%s needs a source file",
                     checklist_form ? "checklist" : "list");
        ch_driver_report(&err);
        return 1;
    }
    ch_entry_list list;
    ch_entry_list_init(&list);
    /* the build's session for the same command line: its targets are in the key */
    ch_session s;
    ch_driver_session_open(d, &s);
    for (size_t i = 0; i < d->args.n_inputs; i++) {
        const ch_input *in = &d->args.inputs[i];
        if (ch_session_scan(&s, in->path, in->lang, NULL, &list, &err) != 0) {
            ch_driver_report(&err);
            ch_entry_list_free(&list);
            ch_driver_session_close(&s);
            return 1;
        }
    }
    cJSON *arr = cJSON_CreateArray();
    int status = 0;
    for (size_t i = 0; i < list.len && status == 0; i++) {
        if (!checklist_form) {
            cJSON_AddItemToArray(arr, entry_json(&s, &list.items[i]));
            continue;
        }
        ch_checklist c;
        memset(&c, 0, sizeof c);
        if (ch_checklist_derive(&list.items[i], &c, &err) != 0) {
            ch_driver_report(&err);
            status = 1;
            break;
        }
        char *json = ch_checklist_to_json(&c);
        cJSON_AddItemToArray(arr, cJSON_Parse(json));
        free(json);
        ch_checklist_free(&c);
    }
    ch_driver_session_close(&s);
    if (status != 0) {
        cJSON_Delete(arr);
        ch_entry_list_free(&list);
        return status;
    }
    char *text = cJSON_Print(arr);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(arr);
    ch_entry_list_free(&list);
    return 0;
}

const ch_input *ch_admin_source(const ch_driver *d)
{
    const ch_input *in = NULL;
    for (size_t i = 0; i < d->args.n_inputs; i++)
        if (d->args.inputs[i].lang == CH_LANG_C || d->args.inputs[i].lang == CH_LANG_CXX ||
            d->args.inputs[i].lang == CH_LANG_CU)
            in = &d->args.inputs[i];
    return in;
}
