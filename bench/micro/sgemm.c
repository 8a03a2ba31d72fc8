/* sgemm: C = alpha*A*B + beta*C, row-major, A ni x nk, B nk x nj, C ni x nj, 4096^3 floats.
 * A plain triple loop in the order PolyBench's gemm writes it (i, k, j: the inner loop runs
 * along rows of B and C), which is also the order gcc -O3 vectorises, so the one-core baseline
 * is gcc's best on this code rather than a strided walk down B's columns. tol(1e-4) is fp32's
 * default and admits reassociated fp32 sums (a cuBLAS SGEMM variant) but not TF32 (about
 * 1e-3 relative error per product). */
#include "micro.h"

#pragma harness tune(ni = 4096, nj = 4096, nk = 4096) tol(1e-4)
void sgemm(int ni, int nj, int nk, float alpha, const float *A, const float *B, float beta,
           float *C)
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                C[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
}
