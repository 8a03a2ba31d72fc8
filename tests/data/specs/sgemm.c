#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "C[i][j] = sum_k A[i][k]*B[k][j], row-major, A m x p, B p x n" extent(A: m*p, B: p*n, C: m*n) tol(1e-4)
// clang-format on
void mm(int m, int n, int p, const float *A, const float *B, float *C);

int main(void)
{
    int m = 700, n = 520, p = 390;
    float *A = malloc((long)m * p * sizeof *A), *B = malloc((long)p * n * sizeof *B);
    float *C = malloc((long)m * n * sizeof *C);
    double *got = malloc((long)m * n * sizeof *got), *want = malloc((long)m * n * sizeof *want);
    for (long i = 0; i < (long)m * p; i++)
        A[i] = spec_rand();
    for (long i = 0; i < (long)p * n; i++)
        B[i] = spec_rand();
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < p; k++)
                s += (double)A[(long)i * p + k] * B[(long)k * n + j];
            want[(long)i * n + j] = s;
        }
    mm(m, n, p, A, B, C);
    SPEC_TO_DOUBLE(got, C, (long)m * n);
    return spec_check("C", got, want, (long)m * n, 1e-4);
}
