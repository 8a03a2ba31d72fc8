#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "logistic sigmoid of each element of x into y" extent(x: n, y: n) tol(1e-5)
// clang-format on
void sigm(int n, const float *x, float *y);

int main(void)
{
    int n = 1 << 20;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (int i = 0; i < n; i++)
        x[i] = 6 * spec_rand(), want[i] = 1 / (1 + exp(-(double)x[i]));
    sigm(n, x, y);
    SPEC_TO_DOUBLE(got, y, n);
    return spec_check("y", got, want, n, 1e-5);
}
