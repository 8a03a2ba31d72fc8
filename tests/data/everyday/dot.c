#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(x : n, y : n, r : 1) tol(1e-3)
void dot(int n, const float *x, const float *y, float *r)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    *r = s;
}

int main(void)
{
    int n = 1 << 16;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), r;
    for (int i = 0; i < n; i++) {
        x[i] = rnd();
        y[i] = rnd();
    }
    dot(n, x, y, &r);
    printf("%.6g\n", r);
    return 0;
}
