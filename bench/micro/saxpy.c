/* saxpy: y = a*x + y, 2^26 floats. 12 bytes per element: read x and y, write y. */
#include "micro.h"

#pragma harness tune(n = 1 << 26)
void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
