/* transpose: b (n x m) = a (m x n) transposed, 8192 x 8192 floats, row-major. */
#include "micro.h"

#pragma harness tune(m = 8192, n = 8192)
void transpose(int m, int n, const float *a, float *b)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            b[j * m + i] = a[i * n + j];
}
