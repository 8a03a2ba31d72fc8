/* Probe for 29: x is the last page of a mapping followed by an unmapped page. */
#include <stdio.h>
#include <sys/mman.h>
void axpy(int n, float a, const float *x, float *y);
int main(void)
{
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m + 4096, 4096);
    float *x = (float *)(m + 4096) - 4, y[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) x[i] = 1;
    axpy(4, 2.0f, x, y);
    printf("page end: y3=%g (want 2)\n", y[3]);
    return 0;
}
