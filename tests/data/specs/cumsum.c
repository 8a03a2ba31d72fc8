#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "inclusive prefix sum of in into out" extent(in: n, out: n)
// clang-format on
void cumsum(int n, const int *in, int *out);

int main(void)
{
    int n = 1 << 20;
    int *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    long run = 0;
    for (int i = 0; i < n; i++)
        in[i] = (int)(spec_rand() * 100), run += in[i], want[i] = (double)run;
    cumsum(n, in, out);
    SPEC_TO_DOUBLE(got, out, n);
    return spec_check("out", got, want, n, 0);
}
