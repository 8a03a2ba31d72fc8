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
void argmax(int n, const int *x, int *r)
{
    int m = x[0], at = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > m) {
            m = x[i];
            at = i;
        }
    *r = at;
}

int main(void)
{
    int n = 50000;
    int *x = malloc(n * sizeof *x), r;
    for (int i = 0; i < n; i++)
        x[i] = (int)(rnd() * 1000000);
    argmax(n, x, &r);
    printf("%d\n", r);
    return 0;
}
