#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(data : n, bins : 256)
void histogram(int n, const unsigned char *data, int *bins)
{
    for (int b = 0; b < 256; b++)
        bins[b] = 0;
    for (int i = 0; i < n; i++)
        bins[data[i]]++;
}

int main(void)
{
    int n = 1 << 18;
    unsigned char *d = malloc(n);
    int bins[256];
    for (int i = 0; i < n; i++)
        d[i] = (unsigned char)(rnd() * 256);
    histogram(n, d, bins);
    for (int b = 0; b < 256; b++)
        printf("%d\n", bins[b]);
    return 0;
}
