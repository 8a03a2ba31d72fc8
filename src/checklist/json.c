/* Checklist <-> JSON with cJSON. Serialisation always writes every field (nulls included) in
 * the order of ch/checklist.h; parsing checks JSON types and field names with field-level
 * messages, builds the structure, then hands it to ch_checklist_validate for the semantics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ch/checklist.h"

/* ---- serialisation ---- */

static cJSON *str_or_null(const char *s)
{
    return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *size_to_json(const ch_ck_size *s)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < s->n; i++)
        cJSON_AddItemToObject(o, s->names[i], cJSON_CreateNumber((double)s->values[i]));
    return o;
}

static cJSON *sizes_to_json(const ch_ck_size *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, size_to_json(&v[i]));
    return a;
}

static int is_output(const ch_ck_param *p)
{
    return p->role != CH_ROLE_SCALAR && (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT);
}

static cJSON *param_to_json(const ch_ck_param *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "name", str_or_null(p->name));
    cJSON_AddItemToObject(o, "type", str_or_null(p->type));
    cJSON_AddStringToObject(o, "role", ch_role_name(p->role));
    cJSON_AddStringToObject(o, "elem", ch_scalar_name(p->elem));
    if (p->role == CH_ROLE_SCALAR)
        cJSON_AddNullToObject(o, "direction");
    else
        cJSON_AddStringToObject(o, "direction", ch_dir_name(p->dir));
    cJSON_AddItemToObject(o, "extent", str_or_null(p->extent));
    if (p->has_range) {
        cJSON *r = cJSON_CreateArray();
        cJSON_AddItemToArray(r, cJSON_CreateNumber(p->lo));
        cJSON_AddItemToArray(r, cJSON_CreateNumber(p->hi));
        cJSON_AddItemToObject(o, "range", r);
    } else {
        cJSON_AddNullToObject(o, "range");
    }
    cJSON_AddItemToObject(o, "index_of", str_or_null(p->index_of));
    cJSON_AddItemToObject(o, "index_lo", str_or_null(p->index_lo));
    cJSON_AddItemToObject(o, "index_hi", str_or_null(p->index_hi));
    cJSON_AddItemToObject(o, "offsets_hi", str_or_null(p->offsets_hi));
    if (p->perm)
        cJSON_AddTrueToObject(o, "perm");
    if (is_output(p)) {
        cJSON_AddNumberToObject(o, "rtol", p->rtol);
        cJSON_AddNumberToObject(o, "atol", p->atol);
    } else {
        cJSON_AddNullToObject(o, "rtol");
        cJSON_AddNullToObject(o, "atol");
    }
    if (p->written_only)
        cJSON_AddTrueToObject(o, "written_only");
    return o;
}

/* cJSON_Print indents with tabs and separates keys from values with a tab; the contract is two
 * spaces per level and ": ". Tabs inside strings are escaped, so every raw tab is layout. */
static char *reindent(const char *s)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    int line_start = 1;
    for (; *s; s++) {
        if (*s == '\t') {
            ch_strbuf_adds(&sb, line_start ? "  " : " ");
            continue;
        }
        line_start = *s == '\n';
        ch_strbuf_addc(&sb, *s);
    }
    char *out = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return out;
}

char *ch_checklist_to_json(const ch_checklist *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "name", str_or_null(c->name));
    cJSON_AddStringToObject(o, "kind", ch_kind_name(c->kind));
    cJSON_AddItemToObject(o, "signature", str_or_null(c->signature));
    cJSON_AddItemToObject(o, "description", str_or_null(c->description));
    cJSON_AddItemToObject(o, "reference", str_or_null(c->reference));
    cJSON *ps = cJSON_AddArrayToObject(o, "params");
    for (size_t i = 0; i < c->n_params; i++)
        cJSON_AddItemToArray(ps, param_to_json(&c->params[i]));
    cJSON *sz = cJSON_AddObjectToObject(o, "sizes");
    cJSON_AddItemToObject(sz, "smoke", sizes_to_json(c->smoke, c->n_smoke));
    cJSON_AddItemToObject(sz, "correctness", sizes_to_json(c->correctness, c->n_correctness));
    cJSON_AddItemToObject(sz, "tune", size_to_json(&c->tune));
    cJSON_AddBoolToObject(o, "device", c->device);
    if (c->budget > 0)
        cJSON_AddNumberToObject(o, "budget", c->budget);
    else
        cJSON_AddNullToObject(o, "budget");
    cJSON_AddItemToObject(o, "sample", str_or_null(c->sample));
    char *raw = cJSON_Print(o);
    cJSON_Delete(o);
    char *out = reindent(raw);
    cJSON_free(raw);
    return out;
}

/* ---- parsing ---- */

/* Checks that obj has only the allowed keys, each once. path is the object's field path. */
static int check_keys(const cJSON *obj, const char *path, const char *const *allowed, ch_error *err)
{
    const char *dot = path[0] ? "." : "";
    for (const cJSON *k = obj->child; k; k = k->next) {
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], k->string) != 0)
            i++;
        if (!allowed[i])
            return ch_error_set(err, "%s%s%s: unknown field", path, dot, k->string);
        for (const cJSON *j = obj->child; j != k; j = j->next)
            if (strcmp(j->string, k->string) == 0)
                return ch_error_set(err, "%s%s%s: duplicate field", path, dot, k->string);
    }
    return 0;
}

/* A string field: required (missing or null is an error) or optional (NULL stays NULL). */
static int get_str(const cJSON *obj, const char *path, const char *key, int required, char **out,
                   ch_error *err)
{
    const char *dot = path[0] ? "." : "";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!v || cJSON_IsNull(v)) {
        if (required)
            return ch_error_set(err, "%s%s%s: missing", path, dot, key);
        return 0;
    }
    if (!cJSON_IsString(v))
        return ch_error_set(err, "%s%s%s: expected a string", path, dot, key);
    *out = ch_xstrdup(v->valuestring);
    return 0;
}

/* An optional number field: *present tells whether it was given (non-null). */
static int get_num(const cJSON *obj, const char *path, const char *key, int *present, double *out,
                   ch_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *present = 0;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsNumber(v))
        return ch_error_set(err, "%s.%s: expected a number", path, key);
    *present = 1;
    *out = v->valuedouble;
    return 0;
}

static int parse_size(const cJSON *o, const char *path, ch_ck_size *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(o))
        return ch_error_set(err, "%s: expected an object of name: integer", path);
    for (const cJSON *k = o->child; k; k = k->next) {
        for (const cJSON *j = o->child; j != k; j = j->next)
            if (strcmp(j->string, k->string) == 0)
                return ch_error_set(err, "%s.%s: duplicate field", path, k->string);
        if (!cJSON_IsNumber(k))
            return ch_error_set(err, "%s.%s: expected an integer", path, k->string);
        double d = k->valuedouble;
        if (d != floor(d) || fabs(d) > 9007199254740992.0)
            return ch_error_set(err, "%s.%s: expected an integer, got %g", path, k->string, d);
        ch_ck_size_set(out, k->string, (long long)d);
    }
    return 0;
}

static int parse_size_list(const cJSON *a, const char *path, ch_ck_size **out, size_t *n,
                           ch_error *err)
{
    *out = NULL;
    *n = 0;
    if (!a || cJSON_IsNull(a))
        return ch_error_set(err, "%s: missing", path);
    if (!cJSON_IsArray(a))
        return ch_error_set(err, "%s: expected an array of size sets", path);
    int len = cJSON_GetArraySize(a);
    *out = ch_xcalloc((size_t)len + 1, sizeof **out);
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        (*n)++;
        if (parse_size(e, sub, &(*out)[i], err) != 0)
            return -1;
    }
    return 0;
}

static const char *const param_keys[] = {
    "name",     "type",     "role",       "elem", "direction", "extent",       "range", "index_of",
    "index_lo", "index_hi", "offsets_hi", "rtol", "atol",      "written_only", "perm",  NULL};

static int parse_param(const cJSON *o, const char *path, ch_ck_param *p, ch_error *err)
{
    if (!cJSON_IsObject(o))
        return ch_error_set(err, "%s: expected an object", path);
    if (check_keys(o, path, param_keys, err) != 0)
        return -1;
    char *s = NULL;
    if (get_str(o, path, "name", 1, &p->name, err) != 0 ||
        get_str(o, path, "type", 1, &p->type, err) != 0)
        return -1;
    if (get_str(o, path, "role", 1, &s, err) != 0)
        return -1;
    int bad = ch_role_parse(s, &p->role) != 0;
    if (bad)
        ch_error_set(err, "%s.role: unknown role '%s' (expected scalar, pointer or array)", path,
                     s);
    free(s);
    if (bad)
        return -1;
    if (get_str(o, path, "elem", 1, &s, err) != 0)
        return -1;
    p->elem = ch_scalar_parse(s);
    bad = p->elem == CH_T_UNKNOWN;
    if (bad)
        ch_error_set(err, "%s.elem: unknown scalar type '%s'", path, s);
    free(s);
    if (bad)
        return -1;
    if (get_str(o, path, "direction", 0, &s, err) != 0)
        return -1;
    p->dir = CH_DIR_NONE;
    if (s) {
        bad = ch_dir_parse(s, &p->dir) != 0 || p->dir == CH_DIR_NONE;
        if (bad)
            ch_error_set(err, "%s.direction: unknown direction '%s' (expected in, out or inout)",
                         path, s);
        free(s);
        if (bad)
            return -1;
    }
    if (get_str(o, path, "extent", 0, &p->extent, err) != 0 ||
        get_str(o, path, "index_of", 0, &p->index_of, err) != 0 ||
        get_str(o, path, "index_lo", 0, &p->index_lo, err) != 0 ||
        get_str(o, path, "index_hi", 0, &p->index_hi, err) != 0 ||
        get_str(o, path, "offsets_hi", 0, &p->offsets_hi, err) != 0)
        return -1;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "range");
    p->has_range = 0;
    if (r && !cJSON_IsNull(r)) {
        if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 ||
            !cJSON_IsNumber(cJSON_GetArrayItem(r, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(r, 1)))
            return ch_error_set(err, "%s.range: expected [lo, hi] (two numbers)", path);
        p->has_range = 1;
        p->lo = cJSON_GetArrayItem(r, 0)->valuedouble;
        p->hi = cJSON_GetArrayItem(r, 1)->valuedouble;
    }
    int has_rtol, has_atol;
    p->rtol = p->atol = 0;
    if (get_num(o, path, "rtol", &has_rtol, &p->rtol, err) != 0 ||
        get_num(o, path, "atol", &has_atol, &p->atol, err) != 0)
        return -1;
    int out = p->role != CH_ROLE_SCALAR && (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT);
    if (out && (!has_rtol || !has_atol))
        return ch_error_set(err, "%s.%s: missing (outputs need a tolerance; 0 for exact)", path,
                            has_rtol ? "atol" : "rtol");
    if (!out && (has_rtol || has_atol))
        return ch_error_set(err, "%s.%s: only outputs (out, inout) have a tolerance", path,
                            has_rtol ? "rtol" : "atol");
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(o, "perm");
    p->perm = 0;
    if (pm && !cJSON_IsNull(pm)) {
        if (!cJSON_IsBool(pm))
            return ch_error_set(err, "%s.perm: expected true or false", path);
        p->perm = cJSON_IsTrue(pm);
    }
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "written_only");
    p->written_only = 0;
    if (w && !cJSON_IsNull(w)) {
        if (!cJSON_IsBool(w))
            return ch_error_set(err, "%s.written_only: expected true or false", path);
        if (cJSON_IsTrue(w) && p->dir != CH_DIR_INOUT)
            return ch_error_set(err,
                                "%s.written_only: only inout buffers are written only (an in "
                                "buffer is read, an out buffer written whole)",
                                path);
        p->written_only = cJSON_IsTrue(w);
    }
    return 0;
}

static const char *const top_keys[] = {"name",      "kind",   "signature", "description",
                                       "reference", "params", "sizes",     "device",
                                       "budget",    "sample", NULL};
static const char *const size_keys[] = {"smoke", "correctness", "tune", NULL};

static int parse_checklist(const cJSON *o, ch_checklist *c, ch_error *err)
{
    if (!cJSON_IsObject(o))
        return ch_error_set(err, "checklist: expected a JSON object");
    if (check_keys(o, "", top_keys, err) != 0)
        return -1;
    char *s = NULL;
    if (get_str(o, "", "name", 1, &c->name, err) != 0 || get_str(o, "", "kind", 1, &s, err) != 0)
        return -1;
    int bad = ch_kind_parse(s, &c->kind) != 0;
    if (bad)
        ch_error_set(err, "kind: unknown kind '%s' (expected spec-decl, spec-def or c-def)", s);
    free(s);
    if (bad)
        return -1;
    if (get_str(o, "", "signature", 1, &c->signature, err) != 0 ||
        get_str(o, "", "description", 1, &c->description, err) != 0 ||
        get_str(o, "", "reference", 0, &c->reference, err) != 0)
        return -1;

    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(o, "params");
    if (!ps || cJSON_IsNull(ps))
        return ch_error_set(err, "params: missing");
    if (!cJSON_IsArray(ps))
        return ch_error_set(err, "params: expected an array");
    c->params = ch_xcalloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof *c->params);
    int i = 0;
    for (const cJSON *e = ps->child; e; e = e->next, i++) {
        char path[32];
        snprintf(path, sizeof path, "params[%d]", i);
        c->n_params++;
        if (parse_param(e, path, &c->params[i], err) != 0)
            return -1;
    }

    const cJSON *sz = cJSON_GetObjectItemCaseSensitive(o, "sizes");
    if (!sz || cJSON_IsNull(sz))
        return ch_error_set(err, "sizes: missing");
    if (!cJSON_IsObject(sz))
        return ch_error_set(err, "sizes: expected an object");
    if (check_keys(sz, "sizes", size_keys, err) != 0)
        return -1;
    if (parse_size_list(cJSON_GetObjectItemCaseSensitive(sz, "smoke"), "sizes.smoke", &c->smoke,
                        &c->n_smoke, err) != 0 ||
        parse_size_list(cJSON_GetObjectItemCaseSensitive(sz, "correctness"), "sizes.correctness",
                        &c->correctness, &c->n_correctness, err) != 0)
        return -1;
    const cJSON *tune = cJSON_GetObjectItemCaseSensitive(sz, "tune");
    if (!tune || cJSON_IsNull(tune))
        return ch_error_set(err, "sizes.tune: missing");
    if (parse_size(tune, "sizes.tune", &c->tune, err) != 0)
        return -1;

    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
    c->device = 0;
    if (dev && !cJSON_IsNull(dev)) {
        if (!cJSON_IsBool(dev))
            return ch_error_set(err, "device: expected true or false");
        c->device = cJSON_IsTrue(dev);
    }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "budget");
    c->budget = 0;
    if (b && !cJSON_IsNull(b)) {
        if (!cJSON_IsNumber(b) || b->valuedouble != floor(b->valuedouble) || b->valuedouble < 1 ||
            b->valuedouble > 1e6)
            return ch_error_set(err, "budget: expected a positive integer (rounds) or null");
        c->budget = (int)b->valuedouble;
    }
    return get_str(o, "", "sample", 0, &c->sample, err);
}

int ch_checklist_from_json(const char *json, ch_checklist *out, ch_error *err)
{
    memset(out, 0, sizeof *out);
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(json ? json : "", &end, 1);
    if (!o) {
        size_t off = end && json ? (size_t)(end - json) : 0;
        return ch_error_set(err, "checklist: invalid JSON at byte %zu", off);
    }
    int rc = parse_checklist(o, out, err);
    cJSON_Delete(o);
    if (rc == 0)
        rc = ch_checklist_validate(out, err);
    if (rc != 0)
        ch_checklist_free(out);
    return rc;
}
