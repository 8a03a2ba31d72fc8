#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : m *n, b : n *m)
void transpose(int m, int n, const float *a, float *b)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            b[j * m + i] = a[i * n + j];
}

int main(void)
{
    int m = 300, n = 500;
    float *a = malloc(m * n * sizeof *a), *b = malloc(m * n * sizeof *b);
    for (int i = 0; i < m * n; i++)
        a[i] = rnd();
    transpose(m, n, a, b);
    for (int i = 0; i < m * n; i += 101)
        printf("%.6g\n", b[i]);
    return 0;
}
