/* attack: the reference carries a constructor that would run in the user's program */
#include <stdlib.h>
__attribute__((constructor)) static void early(void)
{
    (system)("touch @MARKER@");
}
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
