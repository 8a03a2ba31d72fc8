#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(x : n, r : 1)
void vec_max(int n, const float *x, float *r)
{
    float m = x[0];
    for (int i = 1; i < n; i++)
        m = fmaxf(m, x[i]);
    *r = m;
}

int main(void)
{
    int n = 1 << 20;
    float *x = malloc(n * sizeof *x), r;
    for (int i = 0; i < n; i++)
        x[i] = rnd() * 1000 - 500;
    vec_max(n, x, &r);
    printf("%.9g\n", r);
    return 0;
}
