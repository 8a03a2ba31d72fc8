/* The comparator: candidate outputs against reference outputs, in the parent process. Besides
 * the elementwise tolerance and relative L2 it rejects what tolerances let through (NaN/Inf
 * where the reference is finite, all-zero or constant outputs where the reference is not) and
 * says where the errors are (tail, stride, everywhere), which is what a kernel author needs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ch/verify.h"

double ch_elem_value(ch_scalar t, const void *buf, size_t i)
{
    switch (t) {
    case CH_T_BOOL:
        return ((const unsigned char *)buf)[i] != 0;
    case CH_T_CHAR:
        return ((const char *)buf)[i];
    case CH_T_SCHAR:
        return ((const signed char *)buf)[i];
    case CH_T_UCHAR:
        return ((const unsigned char *)buf)[i];
    case CH_T_SHORT:
        return ((const short *)buf)[i];
    case CH_T_USHORT:
        return ((const unsigned short *)buf)[i];
    case CH_T_INT:
        return ((const int *)buf)[i];
    case CH_T_UINT:
        return ((const unsigned *)buf)[i];
    case CH_T_LONG:
        return (double)((const long *)buf)[i];
    case CH_T_ULONG:
        return (double)((const unsigned long *)buf)[i];
    case CH_T_LLONG:
        return (double)((const long long *)buf)[i];
    case CH_T_ULLONG:
        return (double)((const unsigned long long *)buf)[i];
    case CH_T_FLOAT:
        return ((const float *)buf)[i];
    case CH_T_DOUBLE:
        return ((const double *)buf)[i];
    default:
        return 0;
    }
}

/* Integers are compared bit for bit (doubles lose 64-bit precision). */
static int int_equal(ch_scalar t, const void *a, const void *b, size_t i)
{
    size_t es = ch_scalar_size(t);
    if (t == CH_T_BOOL)
        return (((const unsigned char *)a)[i] != 0) == (((const unsigned char *)b)[i] != 0);
    return memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0;
}

double ch_default_rtol(ch_scalar t)
{
    if (t == CH_T_FLOAT)
        return 1e-4;
    if (t == CH_T_DOUBLE)
        return 1e-10;
    return 0;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Where the bad elements are; bad[] is a bitmap-free second pass over the data. */
static void classify(ch_cmp_result *r, size_t first_bad, size_t last_bad, size_t stride)
{
    /* An unwritten range still holds some elements that happen to equal the reference (an
     * input that was already right, a zero): nine in ten bad is a block. */
    size_t span = r->n_bad ? last_bad - first_bad + 1 : 0;
    int dense = r->n_bad * 10 >= span * 9;
    if (r->n_bad == 0) {
        snprintf(r->pattern, sizeof r->pattern, "none");
    } else if (r->n_bad == r->count) {
        snprintf(r->pattern, sizeof r->pattern, "everywhere");
    } else if (last_bad == r->count - 1 && dense) {
        snprintf(r->pattern, sizeof r->pattern, "tail from index %zu", first_bad);
    } else if (dense) {
        snprintf(r->pattern, sizeof r->pattern, "contiguous block %zu..%zu", first_bad, last_bad);
    } else if (stride > 1 && r->n_bad >= 3) {
        snprintf(r->pattern, sizeof r->pattern, "every %zuth element from index %zu", stride,
                 first_bad);
    } else if (r->n_bad * 10 >= r->count * 9) {
        snprintf(r->pattern, sizeof r->pattern, "almost everywhere");
    } else {
        snprintf(r->pattern, sizeof r->pattern, "scattered");
    }
}

int ch_compare(ch_scalar t, const void *got, const void *ref, size_t count, double rtol,
               double atol, ch_cmp_result *r)
{
    memset(r, 0, sizeof *r);
    r->count = count;
    int is_int = ch_scalar_is_integer(t);
    if (rtol <= 0)
        rtol = ch_default_rtol(t);
    /* reference magnitude: RMS over finite values */
    double sumsq_ref = 0;
    size_t n_finite_ref = 0;
    for (size_t i = 0; i < count; i++) {
        double e = ch_elem_value(t, ref, i);
        if (isfinite(e)) {
            sumsq_ref += e * e;
            n_finite_ref++;
        }
    }
    double rms = n_finite_ref ? sqrt(sumsq_ref / (double)n_finite_ref) : 0;
    if (atol < 0 || (atol == 0 && !is_int))
        atol = rtol * rms;
    double sumsq_err = 0;
    size_t first_bad = 0, last_bad = 0, stride = 0;
    int got_all_zero = 1, ref_all_zero = 1, got_const = 1, ref_const = 1;
    double g0 = count ? ch_elem_value(t, got, 0) : 0, e0 = count ? ch_elem_value(t, ref, 0) : 0;
    for (size_t i = 0; i < count; i++) {
        double g = ch_elem_value(t, got, i), e = ch_elem_value(t, ref, i);
        int bad;
        if (g != 0)
            got_all_zero = 0;
        if (e != 0)
            ref_all_zero = 0;
        if (!(g == g0 || (isnan(g) && isnan(g0))))
            got_const = 0;
        if (!(e == e0 || (isnan(e) && isnan(e0))))
            ref_const = 0;
        if (is_int) {
            bad = !int_equal(t, got, ref, i);
        } else if (!isfinite(e)) {
            /* the reference's own NaN/Inf must be reproduced in kind */
            bad = !(isnan(e) ? isnan(g) : g == e);
        } else if (!isfinite(g)) {
            bad = 1;
            r->n_nonfinite++;
        } else {
            double d = fabs(g - e);
            bad = d > atol + rtol * fabs(e);
            sumsq_err += d * d;
            if (d > r->max_abs_err)
                r->max_abs_err = d;
        }
        if (is_int && bad) {
            double d = fabs(g - e);
            if (d > r->max_abs_err)
                r->max_abs_err = d;
            sumsq_err += d * d;
        }
        if (!bad)
            continue;
        if (r->n_bad == 0)
            first_bad = i;
        else
            stride = gcd(stride, i - last_bad);
        last_bad = i;
        if (r->n_first < CH_CMP_FIRST)
            r->first[r->n_first++] = (ch_mismatch){i, e, g};
        r->n_bad++;
    }
    r->rel_l2 = sumsq_ref > 0 ? sqrt(sumsq_err / sumsq_ref) : sqrt(sumsq_err);
    if (r->n_nonfinite)
        r->rel_l2 = INFINITY;
    r->all_zero = count > 1 && got_all_zero && !ref_all_zero;
    r->constant = count > 2 && got_const && !ref_const && !r->all_zero;
    classify(r, first_bad, last_bad, stride);
    int l2_bad = !is_int && isfinite(r->rel_l2) && r->rel_l2 > rtol && sumsq_ref > 0;
    r->ok = r->n_bad == 0 && !l2_bad && !r->all_zero && !r->constant;
    if (r->ok)
        snprintf(r->message, sizeof r->message, "match (max abs err %.3g, rel L2 %.3g)",
                 r->max_abs_err, r->rel_l2);
    else if (r->n_nonfinite)
        snprintf(r->message, sizeof r->message,
                 "%zu of %zu elements NaN/Inf where the reference is finite (%s)", r->n_nonfinite,
                 count, r->pattern);
    else if (r->all_zero)
        snprintf(r->message, sizeof r->message, "output is all zero, the reference is not");
    else if (r->constant)
        snprintf(r->message, sizeof r->message, "output is constant (%g), the reference is not",
                 g0);
    else if (r->n_bad)
        snprintf(r->message, sizeof r->message,
                 "%zu of %zu elements differ (%s; max abs err %.3g, rel L2 %.3g)", r->n_bad, count,
                 r->pattern, r->max_abs_err, r->rel_l2);
    else
        snprintf(r->message, sizeof r->message, "relative L2 error %.3g above %.3g", r->rel_l2,
                 rtol);
    return r->ok;
}
