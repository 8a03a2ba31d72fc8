/* A model-written reference that needs a scratch copy and, when malloc fails, returns quietly
 * leaving y unchanged (no error channel in a void function). Under memory pressure (a big n, a
 * container's limit, ulimit -v) the user's program continues with wrong numbers where the
 * spec's loop needs no memory at all. Tests never run out of memory. (32_probe_main.c limits
 * its address space and calls it.)
 * A safe product must refuse a reference that can skip the work on a failed allocation (or
 * allocations in references whose spec needs none). */
#include <stdlib.h>
#include <string.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    if (n <= 0)
        return;
    float *t = (float *)malloc((size_t)n * sizeof(float));
    if (!t)
        return;
    memcpy(t, x, (size_t)n * sizeof(float));
    for (int i = 0; i < n; i++)
        y[i] = a * t[i] + y[i];
    free(t);
}
