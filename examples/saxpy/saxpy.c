#include "saxpy.h"

/* The plain C loop is the specification and the oracle; ch-cc turns it into a kernel. */
#pragma harness tune(n = 1 << 26)
void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* The same loop, unannotated: what the program compares against and times. */
void saxpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
