/* attacks5 ref04: the reference defines memcmp with external linkage: linked as the host path, it
 * would replace the C library's memcmp in the whole user program (every comparison equal). */
#include <stddef.h>
int memcmp(const void *p, const void *q, size_t n)
{
    (void)p, (void)q, (void)n;
    return 0;
}

void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
