/* Links against axpy.o: x and y carved from one allocation (y right after x). */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 8;
    float *buf = malloc(2 * n * sizeof *buf), *x = buf, *y = buf + n;
    for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1;
    axpy(n, 2.0f, x, y);
    printf("carved: y3=%g (want 7)\n", y[3]);
    free(buf);
    return 0;
}
