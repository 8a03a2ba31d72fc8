/* What every spec program shares: deterministic inputs and a comparison against the plain C
 * loop written beside the spec, printing "OK" or the first element that differs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned spec_seed = 2024;
static double spec_rand(void) /* in [-1, 1) */
{
    spec_seed = spec_seed * 1103515245u + 12345u;
    return ((spec_seed >> 8) & 0xffff) / 32768.0 - 1.0;
}

static int spec_check(const char *what, const double *got, const double *want, long n, double tol)
{
    for (long i = 0; i < n; i++) {
        double scale = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
        if (!(fabs(got[i] - want[i]) <= tol * scale)) {
            printf("BAD %s[%ld]: %.9g, expected %.9g\n", what, i, got[i], want[i]);
            return 1;
        }
    }
    printf("OK\n");
    return 0;
}

#define SPEC_TO_DOUBLE(dst, src, n)                                                                \
    do {                                                                                           \
        for (long i_ = 0; i_ < (long)(n); i_++)                                                    \
            (dst)[i_] = (double)(src)[i_];                                                         \
    } while (0)
