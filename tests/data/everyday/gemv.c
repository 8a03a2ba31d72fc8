#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(A : m *n, x : n, y : m)
void gemv(int m, int n, const double *A, const double *x, double *y)
{
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

int main(void)
{
    int m = 800, n = 600;
    double *A = malloc(m * n * sizeof *A), *x = malloc(n * sizeof *x), *y = malloc(m * sizeof *y);
    for (int i = 0; i < m * n; i++)
        A[i] = rnd();
    for (int i = 0; i < n; i++)
        x[i] = rnd();
    gemv(m, n, A, x, y);
    for (int i = 0; i < m; i += 5)
        printf("%.12g\n", y[i]);
    return 0;
}
