/* Test-data synthesis: seeded, deterministic inputs for one checklist size (types, value ranges,
 * index arrays in [index_lo, index_hi), permutations, offsets arrays, edge values). The generator
 * is splitmix64; the same (checklist, size, seed) always gives the same bytes, and a new seed per
 * verification run keeps candidates honest. */
#include <assert.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/scaffold.h"
#include "ch/verify.h"

/* The most bytes one test data set may take, inputs and outputs together: a huge or wrong
 * extent is an error naming the buffer, not an out-of-memory abort or gigabytes of temp files
 * (the data and the expected outputs are written under /tmp for every case). */
#define MAX_DATA_BYTES (8ULL << 30)

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) /* [0, 1) */
{
    return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t ch_fresh_seed(void)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
            seed = 0;
        close(fd);
    }
    if (seed == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)getpid();
    }
    return seed ? seed : 1;
}

/* The representable range of an integer type, as doubles. */
static void type_range(ch_scalar t, double *lo, double *hi)
{
    size_t bits = 8 * ch_scalar_size(t);
    if (t == CH_T_BOOL) {
        *lo = 0, *hi = 1;
    } else if (ch_scalar_is_signed(t)) {
        *lo = -ldexp(1.0, (int)bits - 1);
        *hi = ldexp(1.0, (int)bits - 1) - 1;
    } else {
        *lo = 0;
        *hi = ldexp(1.0, (int)bits) - 1;
    }
}

/* Value range of a parameter's inputs: the checklist's, else a default by type. */
static void value_range(const ch_ck_param *p, double *lo, double *hi)
{
    if (p->lo < p->hi) {
        *lo = p->lo, *hi = p->hi;
    } else if (ch_scalar_is_float(p->elem)) {
        *lo = -1, *hi = 1;
    } else if (p->elem == CH_T_BOOL) {
        *lo = 0, *hi = 1;
    } else {
        *lo = ch_scalar_is_signed(p->elem) ? -100 : 0;
        *hi = 100;
    }
    if (ch_scalar_is_integer(p->elem)) {
        double tlo, thi;
        type_range(p->elem, &tlo, &thi);
        *lo = fmax(ceil(*lo), tlo);
        *hi = fmin(floor(*hi), thi);
    }
}

static void store(ch_scalar t, void *buf, size_t i, double v)
{
    switch (t) {
    case CH_T_BOOL:
        ((unsigned char *)buf)[i] = v != 0;
        break;
    case CH_T_CHAR:
        ((char *)buf)[i] = (char)v;
        break;
    case CH_T_SCHAR:
        ((signed char *)buf)[i] = (signed char)v;
        break;
    case CH_T_UCHAR:
        ((unsigned char *)buf)[i] = (unsigned char)v;
        break;
    case CH_T_SHORT:
        ((short *)buf)[i] = (short)v;
        break;
    case CH_T_USHORT:
        ((unsigned short *)buf)[i] = (unsigned short)v;
        break;
    case CH_T_INT:
        ((int *)buf)[i] = (int)v;
        break;
    case CH_T_UINT:
        ((unsigned *)buf)[i] = (unsigned)v;
        break;
    case CH_T_LONG:
        ((long *)buf)[i] = (long)v;
        break;
    case CH_T_ULONG:
        ((unsigned long *)buf)[i] = (unsigned long)v;
        break;
    case CH_T_LLONG:
        ((long long *)buf)[i] = (long long)v;
        break;
    case CH_T_ULLONG:
        ((unsigned long long *)buf)[i] = (unsigned long long)v;
        break;
    case CH_T_FLOAT:
        ((float *)buf)[i] = (float)v;
        break;
    case CH_T_DOUBLE:
        ((double *)buf)[i] = v;
        break;
    default:
        break;
    }
}

/* A value in [lo, hi]: integers uniform over the integers of the range. */
static double draw(uint64_t *s, ch_scalar t, double lo, double hi)
{
    if (ch_scalar_is_integer(t)) {
        double span = hi - lo + 1;
        double v = lo + floor(uniform(s) * span);
        return v > hi ? hi : v;
    }
    return lo + uniform(s) * (hi - lo);
}

/* The nth "round" value in [lo, hi] from base: few mantissa bits and none of the edge values
 * 0, +-1, +-2 that every set has (0.5, 1.5, 3: what users write, what random draws almost never
 * give). Consecutive n give different values while the range holds several; a range holding
 * none gets a draw rounded to three mantissa bits. */
static double round_value(uint64_t *s, ch_scalar t, double lo, double hi, uint64_t base, size_t n)
{
    static const double picks[] = {1.5, 0.5, 3, 0.25, 2.5, -0.5, -1.5, 0.75, 4, -3, 10, 0.125};
    const size_t np = sizeof picks / sizeof picks[0];
    double in_range[sizeof picks / sizeof picks[0]];
    size_t ni = 0;
    for (size_t i = 0; i < np; i++)
        if (picks[i] >= lo && picks[i] <= hi &&
            (!ch_scalar_is_integer(t) || picks[i] == floor(picks[i])))
            in_range[ni++] = picks[i];
    if (ni)
        return in_range[(base + n) % ni];
    double d = draw(s, t, lo, hi);
    if (ch_scalar_is_integer(t) || d == 0)
        return d;
    int e = 0;
    double m = frexp(d, &e);
    double r = ldexp(round(m * 8) / 8, e);
    return r >= lo && r <= hi ? r : d;
}

/* CH_DATA_EQUAL: buffer i takes the values of an earlier plain buffer of its type and length
 * when all of them lie in its range (the same array passed twice, a copy compared with its
 * original). */
static void copy_equal(const ch_checklist *c, ch_dataset *out, const unsigned char *plain, size_t i,
                       double lo, double hi)
{
    const ch_ck_param *p = &c->params[i];
    size_t es = ch_scalar_size(p->elem);
    for (size_t j = 0; j < i; j++) {
        if (!plain[j] || c->params[j].elem != p->elem || out->count[j] != out->count[i])
            continue;
        int fits = 1;
        for (size_t k = 0; fits && k < out->count[j]; k++) {
            double v = ch_elem_value(p->elem, out->data[j], k);
            fits = v >= lo && v <= hi;
        }
        if (fits) {
            memcpy(out->data[i], out->data[j], out->count[i] * es);
            return;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An offsets array (CSR row pointers): cnt non-decreasing positions in [0, last], the first 0
 * and the last `last`, so that every range [v[k], v[k+1]) it bounds lies inside the array it
 * points into and together they cover it, as a real matrix's do. */
static void fill_offsets(uint64_t *s, ch_scalar t, void *buf, long long cnt, long long last)
{
    if (cnt <= 0)
        return;
    double *v = ch_xcalloc((size_t)cnt, sizeof *v);
    for (long long k = 0; k < cnt; k++)
        v[k] = draw(s, t, 0, (double)last);
    qsort(v, (size_t)cnt, sizeof *v, cmp_double);
    v[0] = 0;
    v[cnt - 1] = (double)last;
    for (long long k = 0; k < cnt; k++)
        store(t, buf, (size_t)k, v[k]);
    free(v);
}

/* cnt pairwise distinct values in [lo, hi), in random order: a permutation of lo..hi-1 when cnt
 * is hi - lo (a scatter `y[p[i]] = x[i]` through them writes each element at most once). The
 * values are chosen by selection sampling (each of the span values kept with the probability
 * that leaves exactly cnt), then shuffled (Fisher-Yates): O(span) time, O(cnt) memory. The
 * caller has checked cnt <= hi - lo. */
static void fill_distinct(uint64_t *s, ch_scalar t, void *buf, long long cnt, long long lo,
                          long long hi)
{
    if (cnt <= 0)
        return;
    long long *v = ch_xcalloc((size_t)cnt, sizeof *v), kept = 0;
    for (long long x = lo; x < hi && kept < cnt; x++)
        if ((double)(hi - x) * uniform(s) < (double)(cnt - kept))
            v[kept++] = x;
    assert(kept == cnt);
    for (long long k = cnt - 1; k > 0; k--) {
        long long j = (long long)(next(s) % (uint64_t)(k + 1)), tmp = v[k];
        v[k] = v[j];
        v[j] = tmp;
    }
    for (long long k = 0; k < cnt; k++)
        store(t, buf, (size_t)k, (double)v[k]);
    free(v);
}

/* Edge values inside [lo, hi]: 0, ±1, the ends, and large magnitudes when the range allows. */
static size_t edge_values(double lo, double hi, double *out)
{
    const double cands[] = {0, 1, -1, lo, hi, 1e6, -1e6, 1e30, -1e30};
    size_t n = 0;
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
        if (cands[i] >= lo && cands[i] <= hi && isfinite(cands[i]))
            out[n++] = cands[i];
    return n;
}

static int find_size(const ch_ck_size *size, const char *name, long long *v)
{
    for (size_t i = 0; size && i < size->n; i++)
        if (strcmp(size->names[i], name) == 0) {
            *v = size->values[i];
            return 1;
        }
    return 0;
}

void ch_dataset_free(ch_dataset *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->data[i]);
    free(d->data);
    free(d->count);
    memset(d, 0, sizeof *d);
}

/* Adds a buffer of cnt elements of es bytes to *total; -1 with err past MAX_DATA_BYTES. */
static int add_data_bytes(const ch_ck_param *p, long long cnt, size_t es, unsigned long long *total,
                          ch_error *err)
{
    unsigned long long bytes;
    if (!__builtin_mul_overflow((unsigned long long)cnt, (unsigned long long)es, &bytes) &&
        !__builtin_add_overflow(*total, bytes, total) && *total <= MAX_DATA_BYTES)
        return 0;
    return ch_error_set(err,
                        "the test data would take more than %llu GiB (extent of %s is %lld "
                        "elements of %zu bytes at this size); lower the sizes in tune() or "
                        "check the extent",
                        MAX_DATA_BYTES >> 30, p->name, cnt, es);
}

/* 0 when the buffers of the size set all fit under MAX_DATA_BYTES together; extents that do
 * not evaluate are left to the caller's own reading, which reports them. */
static int data_fits(const ch_checklist *c, const ch_ck_size *all, ch_error *err)
{
    unsigned long long total = 0;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        long long cnt;
        size_t es = ch_scalar_size(p->elem);
        ch_error ignored = {0};
        if (p->role == CH_ROLE_SCALAR || !p->extent || !es ||
            ch_checklist_eval(p->extent, all, &cnt, &ignored) != 0 || cnt < 0) {
            ch_error_clear(&ignored);
            continue;
        }
        if (add_data_bytes(p, cnt, es, &total, err) != 0)
            return -1;
    }
    return 0;
}

int ch_data_synthesize(const ch_checklist *c, const ch_ck_size *size, uint64_t seed,
                       ch_dataset *out, ch_error *err)
{
    return ch_data_synthesize_shaped(c, size, seed, CH_DATA_RANDOM, out, err);
}

/* CH_DATA_NONFINITE: NaN, +Inf and -Inf at random positions of a floating buffer of cnt
 * elements, one in 16 and at least one of each where there is room. */
static void add_nonfinite(uint64_t *s, ch_scalar t, void *buf, size_t cnt)
{
    static const double kinds[] = {NAN, INFINITY, -INFINITY};
    size_t places = cnt / 16 + (cnt >= 3 ? 3 : cnt);
    for (size_t k = 0; cnt && k < places; k++)
        store(t, buf, (size_t)(next(s) % cnt), kinds[k % 3]);
}

/* value_range, 33 times as wide around its middle for a floating p under CH_DATA_WIDE */
static void shaped_range(const ch_ck_param *p, ch_data_shape shape, double *lo, double *hi)
{
    value_range(p, lo, hi);
    if (shape != CH_DATA_WIDE || ch_scalar_is_integer(p->elem))
        return;
    double w = *hi - *lo > 1 ? *hi - *lo : 1;
    *lo -= 16 * w;
    *hi += 16 * w;
}

int ch_data_synthesize_shaped(const ch_checklist *c, const ch_ck_size *size, uint64_t seed,
                              ch_data_shape shape, ch_dataset *out, ch_error *err)
{
    unsigned long long total = 0;
    memset(out, 0, sizeof *out);
    out->seed = seed;
    out->n = c->n_params;
    out->count = ch_xcalloc(c->n_params ? c->n_params : 1, sizeof *out->count);
    out->data = ch_xcalloc(c->n_params ? c->n_params : 1, sizeof *out->data);
    /* The size set extended with the integer scalars drawn here (extents may use them). */
    ch_ck_size all = {0, ch_xcalloc(c->n_params + (size ? size->n : 0) + 1, sizeof(char *)),
                      ch_xcalloc(c->n_params + (size ? size->n : 0) + 1, sizeof(long long))};
    for (size_t i = 0; size && i < size->n; i++) {
        all.names[all.n] = size->names[i];
        all.values[all.n++] = size->values[i];
    }
    uint64_t s = seed;
    int rc = 0;
    /* where the round values of CH_DATA_UNIFORM start; plain value buffers (CH_DATA_EQUAL) */
    uint64_t round_base = next(&s);
    unsigned char *plain = ch_xcalloc(c->n_params ? c->n_params : 1, 1);
    /* scalars first: extents and index bounds are expressions of them */
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role != CH_ROLE_SCALAR)
            continue;
        size_t es = ch_scalar_size(p->elem);
        if (!es) {
            rc = ch_error_set(err, "parameter %s: unsupported type", p->name);
            goto done;
        }
        out->count[i] = 1;
        out->data[i] = ch_xcalloc(1, es);
        long long v;
        if (find_size(size, p->name, &v)) {
            store(p->elem, out->data[i], 0, (double)v);
        } else {
            double lo, hi;
            shaped_range(p, shape, &lo, &hi);
            double d = draw(&s, p->elem, lo, hi);
            if (shape == CH_DATA_UNIFORM && !ch_scalar_is_integer(p->elem))
                d = round_value(&s, p->elem, lo, hi, round_base, i);
            store(p->elem, out->data[i], 0, d);
            if (ch_scalar_is_integer(p->elem)) {
                all.names[all.n] = p->name;
                all.values[all.n++] = (long long)d;
            }
        }
    }
    /* every buffer's size first: a size set past the limit is refused before a byte of it is
     * allocated (a model's checklist may ask for billions of elements) */
    if ((rc = data_fits(c, &all, err)) != 0)
        goto done;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        long long cnt;
        if (!p->extent || ch_checklist_eval(p->extent, &all, &cnt, err) != 0) {
            rc = p->extent ? ch_error_prefix(err, "extent of %s", p->name)
                           : ch_error_set(err, "buffer %s has no extent", p->name);
            goto done;
        }
        if (cnt < 0) {
            rc = ch_error_set(err, "extent of %s is negative (%lld)", p->name, cnt);
            goto done;
        }
        size_t es = ch_scalar_size(p->elem);
        if (!es) {
            rc = ch_error_set(err, "parameter %s: unsupported element type", p->name);
            goto done;
        }
        if ((rc = add_data_bytes(p, cnt, es, &total, err)) != 0)
            goto done;
        out->count[i] = (size_t)cnt;
        if (p->dir == CH_DIR_OUT)
            continue;
        void *buf = ch_xcalloc(cnt ? (size_t)cnt : 1, es);
        out->data[i] = buf;
        double lo, hi;
        if (p->index_hi && *p->index_hi) {
            long long ilo = 0, ihi;
            if (ch_checklist_eval(p->index_hi, &all, &ihi, err) != 0 ||
                (p->index_lo && ch_checklist_eval(p->index_lo, &all, &ilo, err) != 0)) {
                rc = ch_error_prefix(err, "index bound of %s", p->name);
                goto done;
            }
            if (ihi <= ilo && cnt > 0) {
                rc = ch_error_set(err, "index range of %s is [%lld, %lld): no valid index", p->name,
                                  ilo, ihi);
                goto done;
            }
            if (p->perm && cnt > ihi - ilo) {
                rc = ch_error_set(err,
                                  "%s holds %lld elements, but its values are distinct in [%lld, "
                                  "%lld): only %lld such values; make its extent at most the "
                                  "bound of perm()",
                                  p->name, cnt, ilo, ihi, ihi - ilo);
                goto done;
            }
            if (p->perm)
                fill_distinct(&s, p->elem, buf, cnt, ilo, ihi);
            else
                for (long long k = 0; k < cnt; k++)
                    store(p->elem, buf, (size_t)k,
                          draw(&s, p->elem, (double)ilo, (double)(ihi - 1)));
            continue;
        }
        if (p->offsets_hi && *p->offsets_hi) {
            long long last;
            if (ch_checklist_eval(p->offsets_hi, &all, &last, err) != 0) {
                rc = ch_error_prefix(err, "offsets bound of %s", p->name);
                goto done;
            }
            if (last < 0) {
                rc = ch_error_set(err, "offsets bound of %s is %lld", p->name, last);
                goto done;
            }
            fill_offsets(&s, p->elem, buf, cnt, last);
            continue;
        }
        shaped_range(p, shape, &lo, &hi);
        plain[i] = 1;
        if (shape == CH_DATA_UNIFORM) {
            /* one value for the whole buffer, another for the next */
            double v = round_value(&s, p->elem, lo, hi, round_base, i);
            for (long long k = 0; k < cnt; k++)
                store(p->elem, buf, (size_t)k, v);
            continue;
        }
        for (long long k = 0; k < cnt; k++)
            store(p->elem, buf, (size_t)k, draw(&s, p->elem, lo, hi));
        /* edge values at random positions (about one element in 64, at least one of each
         * when there is room) */
        double edges[16];
        size_t ne = edge_values(lo, hi, edges);
        size_t places = (size_t)cnt / 64 + (cnt > 4 ? ne : 0);
        for (size_t k = 0; ne && k < places; k++)
            store(p->elem, buf, (size_t)(next(&s) % (uint64_t)cnt), edges[k % ne]);
        if (shape == CH_DATA_EQUAL)
            copy_equal(c, out, plain, i, lo, hi);
        if (shape == CH_DATA_NONFINITE && !ch_scalar_is_integer(p->elem))
            add_nonfinite(&s, p->elem, buf, (size_t)cnt);
    }
done:
    free(plain);
    free(all.names);
    free(all.values);
    if (rc)
        ch_dataset_free(out);
    return rc;
}

int ch_dataset_write(const ch_checklist *c, const ch_dataset *d, const char *dir, ch_error *err)
{
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role != CH_ROLE_SCALAR && p->dir == CH_DIR_OUT)
            continue;
        char *path = ch_xasprintf("%s/%s.bin", dir, p->name);
        int rc = ch_buf_write(path, p->elem, d->data[i], d->count[i], err);
        free(path);
        if (rc)
            return rc;
    }
    return 0;
}
