#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "histogram of the values in x (each in 0..bins-1) into counts" extent(x: n, counts: bins)
// clang-format on
void hist(int n, int bins, const int *x, int *counts);

int main(void)
{
    int n = 1 << 20, bins = 256;
    int *x = malloc(n * sizeof *x), *counts = malloc(bins * sizeof *counts);
    double got[256], want[256] = {0};
    for (int i = 0; i < n; i++)
        x[i] = (int)((spec_rand() + 1) * 128) % bins, want[x[i]] += 1;
    hist(n, bins, x, counts);
    SPEC_TO_DOUBLE(got, counts, bins);
    return spec_check("counts", got, want, bins, 0);
}
