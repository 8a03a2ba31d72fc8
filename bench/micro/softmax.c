/* softmax of each row of an m x n row-major matrix: 16384 rows of 4096 floats. Read x once
 * and write y once is the ideal traffic (8 bytes per element); the host loop reads y twice
 * more. tol(): the row sums may be added in another order (and expf differs by an ulp). */
#include <math.h>

#include "micro.h"

#pragma harness tune(m = 16384, n = 4096) tol(1e-5)
void softmax(int m, int n, const float *x, float *y)
{
    for (int r = 0; r < m; r++) {
        float mx = x[r * n];
        for (int j = 1; j < n; j++)
            mx = fmaxf(mx, x[r * n + j]);
        float s = 0;
        for (int j = 0; j < n; j++) {
            y[r * n + j] = expf(x[r * n + j] - mx);
            s += y[r * n + j];
        }
        for (int j = 0; j < n; j++)
            y[r * n + j] /= s;
    }
}
