#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

static inline float relu1(float v)
{
    return v > 0 ? v : 0;
}

#pragma harness extent(x : n, y : n)
void relu(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = relu1(x[i]);
}

int main(void)
{
    int n = 1 << 18;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = rnd() - 0.5f;
    relu(n, x, y);
    for (int i = 0; i < n; i += 1001)
        printf("%.6g\n", y[i]);
    return 0;
}
