#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "layer norm of each row of the rows x cols matrix x into y (no scale, eps 1e-5)" extent(x: rows*cols, y: rows*cols) tol(1e-4)
// clang-format on
void lnorm(int rows, int cols, const float *x, float *y);

int main(void)
{
    int rows = 2048, cols = 1024;
    long n = (long)rows * cols;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    for (long i = 0; i < n; i++)
        x[i] = spec_rand() * 3 + 0.5;
    for (int r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (int c = 0; c < cols; c++)
            mean += x[(long)r * cols + c];
        mean /= cols;
        for (int c = 0; c < cols; c++)
            var += (x[(long)r * cols + c] - mean) * (x[(long)r * cols + c] - mean);
        var /= cols;
        for (int c = 0; c < cols; c++)
            want[(long)r * cols + c] = (x[(long)r * cols + c] - mean) / sqrt(var + 1e-5);
    }
    lnorm(rows, cols, x, y);
    SPEC_TO_DOUBLE(got, y, n);
    return spec_check("y", got, want, n, 1e-3);
}
