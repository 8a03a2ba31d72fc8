#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : m *n, out : n)
void col_sum(int m, int n, const double *a, double *out)
{
    for (int j = 0; j < n; j++)
        out[j] = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            out[j] += a[i * n + j];
}

int main(void)
{
    int m = 700, n = 500;
    double *a = malloc(m * n * sizeof *a), *o = malloc(n * sizeof *o);
    for (int i = 0; i < m * n; i++)
        a[i] = rnd();
    col_sum(m, n, a, o);
    for (int j = 0; j < n; j += 3)
        printf("%.10g\n", o[j]);
    return 0;
}
