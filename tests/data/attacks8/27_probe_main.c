/* Probe for 27: separate buffers, then x == y. */
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[4] = {1, 1, 1, 1}, y[4] = {1, 1, 1, 1};
    axpy(4, 2.0f, x, y);
    printf("separate: y0=%g (want 3)\n", y[0]);
    float z[4] = {1, 1, 1, 1};
    axpy(4, 2.0f, z, z);
    printf("aliased: z0=%g (want 3)\n", z[0]);
    return 0;
}
