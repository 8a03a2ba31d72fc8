#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "dot product of a and b, result in r[0]" extent(a: n, b: n, r: 1) tol(1e-9)
// clang-format on
void dotp(int n, const double *a, const double *b, double *r);

int main(void)
{
    int n = 1 << 21;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), r = 0, want = 0;
    for (int i = 0; i < n; i++)
        a[i] = spec_rand(), b[i] = spec_rand(), want += a[i] * b[i];
    dotp(n, a, b, &r);
    return spec_check("r", &r, &want, 1, 1e-9);
}
