#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "largest element of x, result in r[0]" extent(x: n, r: 1)
// clang-format on
void vmax(int n, const float *x, float *r);

int main(void)
{
    int n = 1 << 22;
    float *x = malloc(n * sizeof *x), r;
    double want = -1e30, got;
    for (int i = 0; i < n; i++) {
        x[i] = spec_rand();
        if (x[i] > want)
            want = x[i];
    }
    vmax(n, x, &r);
    got = r;
    return spec_check("r", &got, &want, 1, 0);
}
