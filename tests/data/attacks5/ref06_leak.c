/* attacks5 ref06: each call mallocs a copy of y and never frees it: a long-running user program
 * leaks 4n bytes a call. */
#include <stdlib.h>
#include <string.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    float *keep = malloc((size_t)(n > 0 ? n : 1) * sizeof *keep);
    if (keep)
        memcpy(keep, y, (size_t)(n > 0 ? n : 0) * sizeof *keep);
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
