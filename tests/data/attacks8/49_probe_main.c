/* Probe for 49: n = 3M. */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 3 << 20;
    float *x = malloc((size_t)n * 4), *y = calloc((size_t)n, 4);
    for (int i = 0; i < n; i++) x[i] = 1;
    axpy(n, 2.0f, x, y);
    printf("n=3M: y[last]=%g (want 2)\n", y[n - 1]);
    return 0;
}
