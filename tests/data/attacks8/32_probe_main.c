/* Probe for 32: 64 MiB buffers, then the address space is capped near what is in use. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    int n = 16 << 20;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    for (int i = 0; i < n; i++) x[i] = 1, y[i] = 0;
    axpy(4, 2.0f, x, y);
    printf("free memory: y0=%g (want 2)\n", y[0]);
    struct rlimit r = {(rlim_t)160 << 20, (rlim_t)160 << 20};
    setrlimit(RLIMIT_AS, &r);
    for (int i = 0; i < n; i++) y[i] = 0;
    axpy(n, 2.0f, x, y);
    printf("pressure: y0=%g (want 2)\n", y[0]);
    return 0;
}
