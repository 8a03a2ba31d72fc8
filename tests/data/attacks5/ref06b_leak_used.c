/* attacks5 ref06b (the lead's variant of ref06): the copy it mallocs each call is read back, so
 * no compiler can drop it, and never freed: a long-running user program leaks 4n bytes a call.
 * (ref06's copy is never read, and gcc -O2 removes its malloc altogether.) */
#include <stdlib.h>
#include <string.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    float *keep = malloc((size_t)(n > 0 ? n : 1) * sizeof *keep);
    if (!keep)
        return;
    memcpy(keep, y, (size_t)(n > 0 ? n : 0) * sizeof *keep);
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + keep[i];
}
