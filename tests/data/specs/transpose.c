#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "transpose the m x n row-major matrix a into t" extent(a: m*n, t: n*m)
// clang-format on
void transp(int m, int n, const double *a, double *t);

int main(void)
{
    int m = 1500, n = 1100;
    double *a = malloc((long)m * n * sizeof *a), *t = malloc((long)m * n * sizeof *t);
    double *want = malloc((long)m * n * sizeof *want);
    for (long i = 0; i < (long)m * n; i++)
        a[i] = spec_rand();
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            want[(long)j * m + i] = a[(long)i * n + j];
    transp(m, n, a, t);
    return spec_check("t", t, want, (long)m * n, 0);
}
