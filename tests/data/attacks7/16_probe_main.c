/* Links against axpy.o: one call at n = 8. */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 8;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++) x[i] = 10, y[i] = 1;
    axpy(n, 2.0f, x, y);
    printf("big x: y[7]=%g (want 21)\n", y[n - 1]);
    return 0;
}
