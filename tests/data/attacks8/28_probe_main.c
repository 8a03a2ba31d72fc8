/* Probe for 28: a NaN in x. */
#include <math.h>
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[4] = {1, NAN, 1, 1}, y[4] = {0, 0, 0, 0};
    axpy(4, 2.0f, x, y);
    printf("nan: y1=%g (want nan)\n", y[1]);
    return 0;
}
