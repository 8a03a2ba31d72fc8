#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : n *n, b : n *n)
void jacobi(int n, const float *a, float *b)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            b[i * n + j] = 0.2f * (a[i * n + j] + a[(i - 1) * n + j] + a[(i + 1) * n + j] +
                                   a[i * n + j - 1] + a[i * n + j + 1]);
}

int main(void)
{
    int n = 600;
    float *a = malloc(n * n * sizeof *a), *b = calloc(n * n, sizeof *b);
    for (int i = 0; i < n * n; i++)
        a[i] = rnd();
    jacobi(n, a, b);
    for (int i = 0; i < n * n; i += 113)
        printf("%.6g\n", b[i]);
    return 0;
}
