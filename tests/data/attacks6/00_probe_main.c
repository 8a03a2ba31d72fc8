/* The program the reference attacks (15-17, 30) link against axpy.o: a uniform x, whether x
 * survives a call, and the result after 2000 calls. */
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[8], y[8];
    /* uniform x */
    for (int i = 0; i < 8; i++) x[i] = 1, y[i] = 2;
    axpy(8, 2.0f, x, y);
    printf("uniform: y0=%g (want 4)\n", y[0]);
    /* input preserved */
    for (int i = 0; i < 8; i++) x[i] = (float)i + 0.5f, y[i] = 0;
    axpy(8, 1.0f, x, y);
    printf("input: x3=%g (want 3.5)\n", x[3]);
    /* after 2000 calls */
    for (int k = 0; k < 2000; k++) {
        for (int i = 0; i < 8; i++) x[i] = (float)i + 0.5f, y[i] = 0;
        axpy(8, 1.0f, x, y);
    }
    printf("late: y3=%g (want 3.5)\n", y[3]);
    return 0;
}
