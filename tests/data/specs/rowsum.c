#include "check.h"
/* the spec on one line, as a user writes it */
// clang-format off
#pragma harness "s[i] = sum over j of a[i][j], a is rows x cols row-major" extent(a: rows*cols, s: rows) tol(1e-9)
// clang-format on
void rowsum(int rows, int cols, const double *a, double *s);

int main(void)
{
    int rows = 4000, cols = 900;
    double *a = malloc((long)rows * cols * sizeof *a), *s = malloc(rows * sizeof *s);
    double *want = malloc(rows * sizeof *want);
    for (int i = 0; i < rows; i++) {
        want[i] = 0;
        for (int j = 0; j < cols; j++)
            a[(long)i * cols + j] = spec_rand(), want[i] += a[(long)i * cols + j];
    }
    rowsum(rows, cols, a, s);
    return spec_check("s", s, want, rows, 1e-9);
}
