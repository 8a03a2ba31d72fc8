#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "sum of the n values of v, result in s[0]" extent(v: n, s: 1) tol(1e-4)
// clang-format on
void total(int n, const float *v, float *s);

int main(void)
{
    int n = 1 << 20;
    float *v = malloc(n * sizeof *v), s = 0;
    double want = 0, got;
    for (int i = 0; i < n; i++)
        v[i] = spec_rand(), want += v[i];
    total(n, v, &s);
    got = s;
    return spec_check("s", &got, &want, 1, 1e-3);
}
