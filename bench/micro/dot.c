/* dot: *r = sum of x[i]*y[i] over 2^26 floats. The sum is kept in double as a careful user
 * writes it: a float sum of 2^26 terms stops growing once it reaches 2^24 times the term size,
 * so no two summation orders would agree. Each product of two floats is exact in double, so
 * only the order of the additions differs, which tol() allows. */
#include "micro.h"

#pragma harness tune(n = 1 << 26) tol(1e-6)
void dot(int n, const float *x, const float *y, double *r)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)x[i] * y[i];
    *r = s;
}
