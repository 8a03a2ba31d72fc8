#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(rp : m + 1, ci : nnz, v : nnz, x : n, y : m)
void spmv_csr(int m, int n, int nnz, const int *rp, const int *ci, const double *v, const double *x,
              double *y)
{
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int k = rp[i]; k < rp[i + 1]; k++)
            s += v[k] * x[ci[k]];
        y[i] = s;
    }
}

int main(void)
{
    int m = 2000, n = 2000, per = 9, nnz = m * per;
    int *rp = malloc((m + 1) * sizeof *rp), *ci = malloc(nnz * sizeof *ci);
    double *v = malloc(nnz * sizeof *v), *x = malloc(n * sizeof *x), *y = malloc(m * sizeof *y);
    for (int i = 0; i <= m; i++)
        rp[i] = i * per;
    for (int k = 0; k < nnz; k++) {
        ci[k] = (int)(rnd() * n);
        v[k] = rnd();
    }
    for (int i = 0; i < n; i++)
        x[i] = rnd();
    spmv_csr(m, n, nnz, rp, ci, v, x, y);
    for (int i = 0; i < m; i += 13)
        printf("%.12g\n", y[i]);
    return 0;
}
