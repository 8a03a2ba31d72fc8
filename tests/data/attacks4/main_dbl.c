/* a user program calling dbl(n = argv[1] or 4242): runs the host path (the reference) */
#include <stdio.h>
#include <stdlib.h>
void dbl(int n, const float *x, float *y);
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4242;
    float *x = calloc(n, 4), *y = calloc(n, 4);
    dbl(n, x, y);
    printf("ok %g\n", y[0]);
    return 0;
}
