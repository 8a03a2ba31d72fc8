/* Links against axpy.o: one call as a -ffast-math program makes it (FTZ|DAZ set in MXCSR, what
 * gcc's crtfastmath.o does before main). */
#include <stdio.h>
#include <xmmintrin.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    _mm_setcsr(_mm_getcsr() | 0x8040);
    float x[8], y[8];
    for (int i = 0; i < 8; i++) x[i] = (float)i, y[i] = 1;
    axpy(8, 2.0f, x, y);
    printf("fast-math program: y3=%g (want 7)\n", y[3]);
    return 0;
}
