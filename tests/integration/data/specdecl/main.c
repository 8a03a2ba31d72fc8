#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 1, 1, 1, 1};
    axpy(5, 2.0f, x, y);
    printf("%g %g %g %g %g\n", y[0], y[1], y[2], y[3], y[4]);
    return 0;
}
