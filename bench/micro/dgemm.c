/* dgemm: sgemm's loop in double, 4096^3. tol(1e-10), fp64's default, admits reassociated
 * sums (a cuBLAS DGEMM variant). */
#include "micro.h"

#pragma harness tune(ni = 4096, nj = 4096, nk = 4096) tol(1e-10)
void dgemm(int ni, int nj, int nk, double alpha, const double *A, const double *B, double beta,
           double *C)
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
}
