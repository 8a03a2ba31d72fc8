#include <stdio.h>
int vec_add_on_gpu(int n, const float *a, const float *b, float *c);
int main(void)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, c[4] = {0};
    int rc = vec_add_on_gpu(4, a, b, c);
    printf("rc %d first %.1f\n", rc, c[0]);
    return 0;
}
