/* Probe for 42: x is a static const table (read-only pages). */
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
static const float table[4] = {1, 2, 3, 4};
int main(void)
{
    float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
    axpy(4, 2.0f, x, y);
    printf("writable x: y3=%g (want 8)\n", y[3]);
    fflush(stdout);
    axpy(4, 2.0f, table, y);
    printf("const table: y3=%g (want 16)\n", y[3]);
    return 0;
}
