#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(a : n *n, c : n *n)
void sym_fill(int n, const double *a, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            c[i * n + j] = a[i * n + j] + a[j * n + i];
            c[j * n + i] = c[i * n + j];
        }
}

int main(void)
{
    int n = 400;
    double *a = malloc(n * n * sizeof *a), *c = malloc(n * n * sizeof *c);
    for (int i = 0; i < n * n; i++)
        a[i] = rnd();
    sym_fill(n, a, c);
    for (int i = 0; i < n * n; i += 97)
        printf("%.10g\n", c[i]);
    return 0;
}
