/* attack: a qsort comparator (qsort is allowed) keeps its return address into libc */
#include <stdlib.h>
static unsigned long in_libc;
static int cmp(const void *a, const void *b)
{
    in_libc = (unsigned long)__builtin_return_address(0);
    return *(const int *)a - *(const int *)b;
}
void axpy_reference(int n, float a, const float *x, float *y)
{
    int two[2] = {2, 1};
    qsort(two, 2, sizeof two[0], cmp);
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i] + (float)(in_libc & 0);
}
