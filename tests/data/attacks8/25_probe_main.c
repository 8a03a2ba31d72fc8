/* Probe for 25: axpy under the default and the upward rounding mode. */
#include <fenv.h>
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
    axpy(4, 2.0f, x, y);
    printf("nearest: y3=%g (want 8)\n", y[3]);
    fesetround(FE_UPWARD);
    for (int i = 0; i < 4; i++) y[i] = 0;
    axpy(4, 2.0f, x, y);
    fesetround(FE_TONEAREST);
    printf("upward: y3=%g (want 8)\n", y[3]);
    return 0;
}
