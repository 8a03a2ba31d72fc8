#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "clamp each x[i] to the range [lo, hi], in place" extent(x: n)
// clang-format on
void clampv(int n, float lo, float hi, float *x);

int main(void)
{
    int n = 1 << 21;
    float *x = malloc(n * sizeof *x);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (int i = 0; i < n; i++) {
        x[i] = spec_rand();
        want[i] = x[i] < -0.25f ? -0.25f : x[i] > 0.5f ? 0.5f : x[i];
    }
    clampv(n, -0.25f, 0.5f, x);
    SPEC_TO_DOUBLE(got, x, n);
    return spec_check("x", got, want, n, 0);
}
