/* Probe for 48: an x of 150. */
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[2] = {1, 150}, y[2] = {0, 0};
    axpy(2, 2.0f, x, y);
    printf("x=150: y1=%g (want 300)\n", y[1]);
    return 0;
}
