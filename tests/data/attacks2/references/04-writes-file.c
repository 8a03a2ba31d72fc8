/* attack: the reference writes a file each time it runs (through a pointer: no call in the text) */
#include <stdio.h>
static FILE *(*volatile op)(const char *, const char *) = fopen;
void axpy_reference(int n, float a, const float *x, float *y)
{
    op("@MARKER@", "w");
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
