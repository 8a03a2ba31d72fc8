#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "z[i] = x[i] * y[i] for every i below n" extent(x: n, y: n, z: n)
// clang-format on
void vmul(int n, const float *x, const float *y, float *z);

int main(void)
{
    int n = 1 << 22;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (int i = 0; i < n; i++)
        x[i] = spec_rand(), y[i] = spec_rand();
    vmul(n, x, y, z);
    for (int i = 0; i < n; i++)
        want[i] = (double)(x[i] * y[i]);
    SPEC_TO_DOUBLE(got, z, n);
    return spec_check("z", got, want, n, 1e-6);
}
