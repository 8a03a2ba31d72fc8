#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "multiply every element of x by alpha, in place" extent(x: n)
// clang-format on
void scale(int n, double alpha, double *x);

int main(void)
{
    int n = 1 << 21;
    double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want);
    for (int i = 0; i < n; i++)
        x[i] = spec_rand(), want[i] = 2.5 * x[i];
    scale(n, 2.5, x);
    return spec_check("x", x, want, n, 1e-12);
}
