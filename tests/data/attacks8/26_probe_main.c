/* Probe for 26: n = 4M from main (16 MiB on the stack). */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 4 << 20;
    float *x = calloc((size_t)n, 4), *y = calloc((size_t)n, 4);
    for (int i = 0; i < n; i++) x[i] = 1;
    axpy(8, 2.0f, x, y);
    printf("small: y0=%g (want 2)\n", y[0]);
    fflush(stdout);
    axpy(n, 2.0f, x, y);
    printf("big: y0=%g (want 4)\n", y[0]);
    return 0;
}
