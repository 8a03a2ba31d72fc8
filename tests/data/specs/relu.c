#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "y = max(x, 0) elementwise over n floats" extent(x: n, y: n)
// clang-format on
void relu(int n, const float *x, float *y);

int main(void)
{
    int n = 1 << 22;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (int i = 0; i < n; i++)
        x[i] = spec_rand(), want[i] = x[i] > 0 ? x[i] : 0;
    relu(n, x, y);
    SPEC_TO_DOUBLE(got, y, n);
    return spec_check("y", got, want, n, 0);
}
