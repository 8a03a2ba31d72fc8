#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : m *n, out : m) tol(1e-4)
void row_norm(int m, int n, const float *a, float *out)
{
    for (int i = 0; i < m; i++) {
        float s = 0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j] * a[i * n + j];
        out[i] = sqrtf(s);
    }
}

int main(void)
{
    int m = 1000, n = 300;
    float *a = malloc(m * n * sizeof *a), *o = malloc(m * sizeof *o);
    for (int i = 0; i < m * n; i++)
        a[i] = rnd();
    row_norm(m, n, a, o);
    for (int i = 0; i < m; i += 7)
        printf("%.6g\n", o[i]);
    return 0;
}
