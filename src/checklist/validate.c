/* Field-level validation of a checklist (ch_checklist_validate): every rule a checklist must
 * satisfy before scaffold and verify may trust it, whether derived or written by an agent.
 * The first violation wins and is reported as "path: what is wrong" ("params[1].extent: ..."). */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/checklist.h"

static int is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

/* An extent or index bound: syntax, then every name must be a size parameter. */
static int check_size_expr(const ch_checklist *c, const char *path, const char *expr, ch_error *err)
{
    ch_strvec names;
    ch_strvec_init(&names);
    int rc = ch_checklist_expr_names(expr, &names, err);
    if (rc != 0) {
        ch_error_prefix(err, "%s", path);
    } else {
        for (size_t i = 0; i < names.len && rc == 0; i++) {
            const ch_ck_param *q = ch_checklist_param(c, names.items[i]);
            if (!q)
                rc = ch_error_set(err, "%s: unknown name '%s'", path, names.items[i]);
            else if (q->role != CH_ROLE_SCALAR || !ch_scalar_is_integer(q->elem))
                rc = ch_error_set(err, "%s: '%s' is not an integer scalar parameter", path,
                                  names.items[i]);
            else if (q->has_range)
                rc = ch_error_set(err, "%s: '%s' has a value range, so it is not a size parameter",
                                  path, names.items[i]);
        }
    }
    ch_strvec_free(&names);
    return rc;
}

/* Representable bounds of integer types, as doubles (exact for everything up to 2^53). */
static void int_limits(ch_scalar t, double *lo, double *hi)
{
    size_t bits = ch_scalar_size(t) * 8;
    if (t == CH_T_BOOL) {
        *lo = 0;
        *hi = 1;
    } else if (ch_scalar_is_signed(t)) {
        *lo = -ldexp(1.0, (int)bits - 1);
        *hi = ldexp(1.0, (int)bits - 1) - 1;
    } else {
        *lo = 0;
        *hi = ldexp(1.0, (int)bits) - 1;
    }
}

/* Whether [lo, hi] holds one value of the element type (float rounds both ends to float). */
static int holds_one_value(const ch_ck_param *p)
{
    return p->elem == CH_T_FLOAT ? (float)p->lo == (float)p->hi : p->lo == p->hi;
}

/* A floating value's position in its type's order (float or double bits, negatives below
 * positives): the count of values between two is the difference of their positions. */
static double value_position(double v, int as_float)
{
    if (as_float) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return b >> 31 ? -(double)(b & 0x7fffffffu) : (double)b;
    }
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b >> 63 ? -(double)(b & 0x7fffffffffffffffull) : (double)b;
}

/* How many values of p's floating type [lo, hi] holds. */
static double floating_values(const ch_ck_param *p)
{
    int f = p->elem == CH_T_FLOAT;
    return value_position(p->hi, f) - value_position(p->lo, f) + 1;
}

static int check_range(const ch_ck_param *p, const char *path, ch_error *err)
{
    if (!isfinite(p->lo) || !isfinite(p->hi))
        return ch_error_set(err, "%s.range: bounds must be finite", path);
    if (p->lo > p->hi)
        return ch_error_set(err, "%s.range: lo > hi", path);
    /* an input that is one value everywhere (x in [0, 0], attacks6 #19) tests one case, edge
     * values included: a kernel that ignores it, or computes nothing, agrees with the
     * reference. An output's range is only its fill before the call, so it may be one value. */
    if ((p->role == CH_ROLE_SCALAR || p->dir != CH_DIR_OUT) && holds_one_value(p))
        return ch_error_set(err,
                            "%s.range: [%g, %g] holds one value, so every test gives '%s' that "
                            "one value and a kernel that ignores it passes; give a range of "
                            "the values the function accepts (for example [-1, 1])",
                            path, p->lo, p->hi, p->name);
    /* a floating range of a few values (x in [0.5, 0.50000006], attacks7 #17) is one value in
     * all but name: a kernel that uses the constant 0.5 for x agrees with the reference */
    if ((p->role == CH_ROLE_SCALAR || p->dir != CH_DIR_OUT) && ch_scalar_is_float(p->elem) &&
        floating_values(p) < CH_CK_MIN_RANGE_VALUES)
        return ch_error_set(err,
                            "%s.range: [%.9g, %.9g] holds only %.0f values of %s, too few to "
                            "tell a kernel that ignores '%s' from one that uses it (at least %d); "
                            "give a range of the values the function accepts (for example "
                            "[-1, 1])",
                            path, p->lo, p->hi, floating_values(p), ch_scalar_name(p->elem),
                            p->name, CH_CK_MIN_RANGE_VALUES);
    if (ch_scalar_is_integer(p->elem)) {
        double tlo, thi;
        int_limits(p->elem, &tlo, &thi);
        if (p->lo != floor(p->lo) || p->hi != floor(p->hi))
            return ch_error_set(err, "%s.range: bounds of %s must be integers", path,
                                ch_scalar_name(p->elem));
        if (p->lo < tlo)
            return ch_error_set(err, "%s.range: lo %g is below the minimum of %s", path, p->lo,
                                ch_scalar_name(p->elem));
        if (p->hi > thi)
            return ch_error_set(err, "%s.range: hi %g is above the maximum of %s", path, p->hi,
                                ch_scalar_name(p->elem));
    }
    return 0;
}

static int check_tolerance(const ch_ck_param *p, const char *path, ch_error *err)
{
    const char *names[2] = {"rtol", "atol"};
    double vals[2] = {p->rtol, p->atol};
    for (int k = 0; k < 2; k++) {
        if (!isfinite(vals[k]) || vals[k] < 0)
            return ch_error_set(err, "%s.%s: must be a finite number >= 0", path, names[k]);
        if (ch_scalar_is_integer(p->elem) && vals[k] != 0)
            return ch_error_set(err, "%s.%s: integer outputs compare exactly (must be 0)", path,
                                names[k]);
    }
    return 0;
}

static int check_param(const ch_checklist *c, size_t i, ch_error *err)
{
    const ch_ck_param *p = &c->params[i];
    char path[32];
    snprintf(path, sizeof path, "params[%zu]", i);
    if (!p->name)
        return ch_error_set(err, "%s.name: missing", path);
    if (!is_ident(p->name))
        return ch_error_set(err, "%s.name: '%s' is not a C identifier", path, p->name);
    for (size_t j = 0; j < i; j++)
        if (c->params[j].name && strcmp(c->params[j].name, p->name) == 0)
            return ch_error_set(err, "%s.name: duplicate parameter '%s' (also params[%zu])", path,
                                p->name, j);
    if (!p->type || !p->type[0])
        return ch_error_set(err, "%s.type: missing", path);
    if (p->elem == CH_T_UNKNOWN || p->elem == CH_T_VOID || p->elem >= CH_T_COUNT_)
        return ch_error_set(err, "%s.elem: '%s' is not a parameter element type", path,
                            ch_scalar_name(p->elem));
    if (p->role != CH_ROLE_SCALAR && p->role != CH_ROLE_POINTER && p->role != CH_ROLE_ARRAY)
        return ch_error_set(err, "%s.role: invalid role", path);

    if (p->role == CH_ROLE_SCALAR) {
        if (p->dir != CH_DIR_NONE)
            return ch_error_set(err, "%s.direction: scalar parameters have no direction", path);
        if (p->extent)
            return ch_error_set(err, "%s.extent: scalar parameters have no extent", path);
        if (p->index_of || p->index_lo || p->index_hi || p->offsets_hi)
            return ch_error_set(err, "%s.%s: only integer arrays can be index or offsets arrays",
                                path,
                                p->index_of   ? "index_of"
                                : p->index_lo ? "index_lo"
                                : p->index_hi ? "index_hi"
                                              : "offsets_hi");
        if (!p->has_range && !ch_scalar_is_integer(p->elem))
            return ch_error_set(err, "%s.range: missing (floating scalars need a value range)",
                                path);
        return p->has_range ? check_range(p, path, err) : 0;
    }

    char sub[48];
    if (p->dir != CH_DIR_IN && p->dir != CH_DIR_OUT && p->dir != CH_DIR_INOUT)
        return ch_error_set(err, "%s.direction: missing (%s parameters need in, out or inout)",
                            path, ch_role_name(p->role));
    if (!p->extent)
        return ch_error_set(err, "%s.extent: missing (%s parameters need an element count)", path,
                            ch_role_name(p->role));
    snprintf(sub, sizeof sub, "%s.extent", path);
    if (check_size_expr(c, sub, p->extent, err) != 0)
        return -1;
    if (p->index_of || p->index_lo || p->index_hi) {
        if (!ch_scalar_is_integer(p->elem))
            return ch_error_set(err, "%s.%s: index arrays need an integer element type", path,
                                p->index_of   ? "index_of"
                                : p->index_lo ? "index_lo"
                                              : "index_hi");
        if (p->index_of) {
            const ch_ck_param *q = ch_checklist_param(c, p->index_of);
            if (!q)
                return ch_error_set(err, "%s.index_of: unknown parameter '%s'", path, p->index_of);
            if (q->role == CH_ROLE_SCALAR)
                return ch_error_set(err, "%s.index_of: '%s' is not an array parameter", path,
                                    p->index_of);
            if (q == p)
                return ch_error_set(err, "%s.index_of: an index array cannot index itself", path);
        }
        if (!p->index_hi)
            return ch_error_set(err, "%s.index_hi: missing (index arrays need an exclusive bound)",
                                path);
        snprintf(sub, sizeof sub, "%s.index_hi", path);
        if (check_size_expr(c, sub, p->index_hi, err) != 0)
            return -1;
        snprintf(sub, sizeof sub, "%s.index_lo", path);
        if (p->index_lo && check_size_expr(c, sub, p->index_lo, err) != 0)
            return -1;
        if (p->offsets_hi)
            return ch_error_set(
                err, "%s.offsets_hi: an array is an index array or an offsets array, not both",
                path);
        if (p->has_range)
            return ch_error_set(
                err, "%s.range: index arrays take values in [index_lo, index_hi); give null", path);
    } else if (p->perm) {
        return ch_error_set(err,
                            "%s.perm: only index arrays are permutations; give index_hi (the "
                            "number of distinct values) or drop perm",
                            path);
    } else if (p->offsets_hi) {
        if (!ch_scalar_is_integer(p->elem))
            return ch_error_set(err, "%s.offsets_hi: offsets arrays need an integer element type",
                                path);
        snprintf(sub, sizeof sub, "%s.offsets_hi", path);
        if (check_size_expr(c, sub, p->offsets_hi, err) != 0)
            return -1;
        if (p->has_range)
            return ch_error_set(
                err, "%s.range: offsets arrays take values in [0, offsets_hi]; give null", path);
    } else {
        if (!p->has_range)
            return ch_error_set(err, "%s.range: missing (buffers need a value range)", path);
        if (check_range(p, path, err) != 0)
            return -1;
    }
    if (p->dir == CH_DIR_OUT || p->dir == CH_DIR_INOUT)
        return check_tolerance(p, path, err);
    return 0;
}

static int check_size(const ch_checklist *c, const ch_ck_size *s, const char *path, ch_error *err)
{
    for (size_t i = 0; i < s->n; i++) {
        const ch_ck_param *q = ch_checklist_param(c, s->names[i]);
        if (!q)
            return ch_error_set(err, "%s: unknown parameter '%s'", path, s->names[i]);
        if (!ch_ck_param_is_size(q))
            return ch_error_set(err, "%s: '%s' is not a size parameter", path, s->names[i]);
        if (s->values[i] < 0)
            return ch_error_set(err, "%s.%s: negative size %lld", path, s->names[i], s->values[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->names[j], s->names[i]) == 0)
                return ch_error_set(err, "%s.%s: given twice", path, s->names[i]);
    }
    for (size_t i = 0; i < c->n_params; i++)
        if (ch_ck_param_is_size(&c->params[i]) && ch_ck_size_get(s, c->params[i].name, NULL) != 0)
            return ch_error_set(err, "%s: missing value for '%s'", path, c->params[i].name);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        long long ext, hi;
        if (ch_checklist_eval(p->extent, s, &ext, err) != 0)
            return ch_error_prefix(err, "%s: params[%zu].extent", path, i);
        if (ext < 0)
            return ch_error_set(err, "%s: params[%zu].extent '%s' is %lld", path, i, p->extent,
                                ext);
        if (p->index_hi) {
            long long lo = 0;
            if (ch_checklist_eval(p->index_hi, s, &hi, err) != 0)
                return ch_error_prefix(err, "%s: params[%zu].index_hi", path, i);
            if (p->index_lo && ch_checklist_eval(p->index_lo, s, &lo, err) != 0)
                return ch_error_prefix(err, "%s: params[%zu].index_lo", path, i);
            if (ext > 0 && hi <= lo && !p->index_lo)
                return ch_error_set(err, "%s: params[%zu].index_hi '%s' is %lld (no valid index)",
                                    path, i, p->index_hi, hi);
            if (ext > 0 && hi <= lo)
                return ch_error_set(err,
                                    "%s: params[%zu] index range [%s, %s) is [%lld, %lld) (no "
                                    "valid index)",
                                    path, i, p->index_lo, p->index_hi, lo, hi);
        }
    }
    return 0;
}

static int check_size_list(const ch_checklist *c, const ch_ck_size *v, size_t n, const char *path,
                           ch_error *err)
{
    if (n == 0)
        return ch_error_set(err, "%s: expected at least one size set", path);
    for (size_t i = 0; i < n; i++) {
        char sub[48];
        snprintf(sub, sizeof sub, "%s[%zu]", path, i);
        if (check_size(c, &v[i], sub, err) != 0)
            return -1;
    }
    return 0;
}

int ch_checklist_validate(const ch_checklist *c, ch_error *err)
{
    if (!c->name)
        return ch_error_set(err, "name: missing");
    if (!is_ident(c->name))
        return ch_error_set(err, "name: '%s' is not a C identifier", c->name);
    if (c->kind != CH_KIND_SPEC_DECL && c->kind != CH_KIND_SPEC_DEF && c->kind != CH_KIND_C_DEF)
        return ch_error_set(err, "kind: invalid kind");
    if (!c->signature || !c->signature[0])
        return ch_error_set(err, "signature: missing");
    if (!c->description || !c->description[0])
        return ch_error_set(err, "description: missing");
    if (c->kind != CH_KIND_SPEC_DECL && (!c->reference || !c->reference[0]))
        return ch_error_set(err, "reference: missing (entries with a body need a reference)");
    if (c->budget < 0)
        return ch_error_set(err, "budget: must be a positive integer");
    if (c->sample && !is_ident(c->sample))
        return ch_error_set(err, "sample: '%s' is not a C function name", c->sample);
    for (size_t i = 0; i < c->n_params; i++)
        if (check_param(c, i, err) != 0)
            return -1;
    int has_out = 0;
    for (size_t i = 0; i < c->n_params; i++)
        has_out |= c->params[i].role != CH_ROLE_SCALAR &&
                   (c->params[i].dir == CH_DIR_OUT || c->params[i].dir == CH_DIR_INOUT);
    if (!has_out)
        return ch_error_set(err, "params: no output (a kernel needs an out or inout buffer)");
    if (check_size_list(c, c->smoke, c->n_smoke, "sizes.smoke", err) != 0 ||
        check_size_list(c, c->correctness, c->n_correctness, "sizes.correctness", err) != 0 ||
        check_size(c, &c->tune, "sizes.tune", err) != 0)
        return -1;
    return 0;
}
