/* Links against axpy.o: one call at n = 300000. */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 300000;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++) x[i] = 1, y[i] = 1;
    axpy(n, 2.0f, x, y);
    printf("large: y[n-1]=%g (want 3)\n", y[n - 1]);
    return 0;
}
