#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(x : n, y : n)
void prefix_sum(int n, const int *x, int *y)
{
    int acc = 0;
    for (int i = 0; i < n; i++) {
        acc += x[i];
        y[i] = acc;
    }
}

int main(void)
{
    int n = 100000;
    int *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = (int)(rnd() * 100);
    prefix_sum(n, x, y);
    for (int i = 0; i < n; i += 997)
        printf("%d\n", y[i]);
    return 0;
}
