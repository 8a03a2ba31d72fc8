/* attack: the reference includes a header outside the C standard (POSIX I/O) */
#include <unistd.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
