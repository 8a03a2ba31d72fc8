#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(x : m *n, y : m *n) tol(1e-4)
void softmax(int m, int n, const float *x, float *y)
{
    for (int r = 0; r < m; r++) {
        float mx = x[r * n];
        for (int j = 1; j < n; j++)
            mx = fmaxf(mx, x[r * n + j]);
        float s = 0;
        for (int j = 0; j < n; j++) {
            y[r * n + j] = expf(x[r * n + j] - mx);
            s += y[r * n + j];
        }
        for (int j = 0; j < n; j++)
            y[r * n + j] /= s;
    }
}

int main(void)
{
    int m = 512, n = 256;
    float *x = malloc(m * n * sizeof *x), *y = malloc(m * n * sizeof *y);
    for (int i = 0; i < m * n; i++)
        x[i] = rnd() * 8;
    softmax(m, n, x, y);
    for (int i = 0; i < m * n; i += 331)
        printf("%.6g\n", y[i]);
    return 0;
}
