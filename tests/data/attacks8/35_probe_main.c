/* Probe for 35: a program that traps FP exceptions, and an x with a zero. */
#define _GNU_SOURCE
#include <fenv.h>
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[4] = {1, 0, 2, 3}, y[4] = {0, 0, 0, 0};
    axpy(4, 2.0f, x, y);
    printf("masked: y2=%g (want 4)\n", y[2]);
    fflush(stdout);
    feenableexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
    axpy(4, 2.0f, x, y);
    printf("trapping: y2=%g (want 8)\n", y[2]);
    return 0;
}
