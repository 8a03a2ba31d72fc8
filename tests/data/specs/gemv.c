#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "y = A x where A is an m x n row-major matrix" extent(A: m*n, x: n, y: m) tol(1e-9)
// clang-format on
void mv(int m, int n, const double *A, const double *x, double *y);

int main(void)
{
    int m = 3000, n = 2000;
    double *A = malloc((long)m * n * sizeof *A), *x = malloc(n * sizeof *x);
    double *y = malloc(m * sizeof *y), *want = malloc(m * sizeof *want);
    for (long i = 0; i < (long)m * n; i++)
        A[i] = spec_rand();
    for (int j = 0; j < n; j++)
        x[j] = spec_rand();
    for (int i = 0; i < m; i++) {
        want[i] = 0;
        for (int j = 0; j < n; j++)
            want[i] += A[(long)i * n + j] * x[j];
    }
    mv(m, n, A, x, y);
    return spec_check("y", y, want, m, 1e-9);
}
