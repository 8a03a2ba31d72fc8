#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : m *d, b : n *d, D : m *n) tol(1e-4)
void pairwise_dist(int m, int n, int d, const float *a, const float *b, float *D)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int t = 0; t < d; t++) {
                float q = a[i * d + t] - b[j * d + t];
                s += q * q;
            }
            D[i * n + j] = sqrtf(s);
        }
}

int main(void)
{
    int m = 300, n = 200, d = 16;
    float *a = malloc(m * d * sizeof *a), *b = malloc(n * d * sizeof *b),
          *D = malloc(m * n * sizeof *D);
    for (int i = 0; i < m * d; i++)
        a[i] = rnd();
    for (int i = 0; i < n * d; i++)
        b[i] = rnd();
    pairwise_dist(m, n, d, a, b, D);
    for (int i = 0; i < m * n; i += 59)
        printf("%.6g\n", D[i]);
    return 0;
}
