/* Probe for 30: an empty call with NULL buffers. */
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[2] = {1, 1}, y[2] = {0, 0};
    axpy(2, 2.0f, x, y);
    printf("normal: y0=%g (want 2)\n", y[0]);
    fflush(stdout);
    axpy(0, 2.0f, NULL, NULL);
    printf("empty call survived\n");
    return 0;
}
