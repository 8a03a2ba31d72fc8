#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "b[i][j] = 0.2*(a[i][j] + a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]) for the interior of the n x n row-major grid" extent(a: n*n, b: n*n)
// clang-format on
void jac(int n, const double *a, double *b);

int main(void)
{
    int n = 1500;
    double *a = malloc((long)n * n * sizeof *a), *b = malloc((long)n * n * sizeof *b);
    double *want = malloc((long)n * n * sizeof *want);
    for (long i = 0; i < (long)n * n; i++)
        a[i] = spec_rand(), b[i] = want[i] = 7;
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            want[(long)i * n + j] =
                0.2 * (a[(long)i * n + j] + a[(long)(i - 1) * n + j] + a[(long)(i + 1) * n + j] +
                       a[(long)i * n + j - 1] + a[(long)i * n + j + 1]);
    jac(n, a, b);
    return spec_check("b", b, want, (long)n * n, 1e-12);
}
