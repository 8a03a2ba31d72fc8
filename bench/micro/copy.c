/* copy: b = a, 2^26 floats. The plain loop a user writes; its kernel should sit at the device
 * copy floor (baselines.cu measures cudaMemcpy device to device in the same run). */
#include "micro.h"

#pragma harness tune(n = 1 << 26)
void copy(int n, const float *a, float *b)
{
    for (int i = 0; i < n; i++)
        b[i] = a[i];
}
