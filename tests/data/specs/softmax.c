#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "softmax of each row of x (rows x cols) into y" extent(x: rows*cols, y: rows*cols) tol(1e-5)
// clang-format on
void smax(int rows, int cols, const float *x, float *y);

int main(void)
{
    int rows = 4096, cols = 1000;
    long n = (long)rows * cols;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (long i = 0; i < n; i++)
        x[i] = 4 * spec_rand();
    for (int r = 0; r < rows; r++) {
        double m = -1e30, s = 0;
        for (int c = 0; c < cols; c++)
            m = x[(long)r * cols + c] > m ? x[(long)r * cols + c] : m;
        for (int c = 0; c < cols; c++)
            s += exp(x[(long)r * cols + c] - m);
        for (int c = 0; c < cols; c++)
            want[(long)r * cols + c] = exp(x[(long)r * cols + c] - m) / s;
    }
    smax(rows, cols, x, y);
    SPEC_TO_DOUBLE(got, y, n);
    return spec_check("y", got, want, n, 1e-4);
}
