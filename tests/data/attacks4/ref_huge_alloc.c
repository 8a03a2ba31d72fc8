/* reference: mallocs 64 GiB and touches every page: the reference run's address-space limit must stop it, not the machine's memory */
#include <stdlib.h>
#include <string.h>
void dbl_reference(int n, const float *x, float *y)
{
    size_t big = (size_t)64 << 30;
    char *p = malloc(big);
    if (p)
        for (size_t i = 0; i < big; i += 4096)
            p[i] = 1;
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i] + (p ? 0.0f : 0.0f);
    free(p);
}
