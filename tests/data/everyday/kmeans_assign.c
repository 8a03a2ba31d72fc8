#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(p : n *d, c : k *d, lab : n)
void kmeans_assign(int n, int k, int d, const float *p, const float *c, int *lab)
{
    for (int i = 0; i < n; i++) {
        float best = 1e30f;
        int at = 0;
        for (int j = 0; j < k; j++) {
            float s = 0;
            for (int t = 0; t < d; t++) {
                float df = p[i * d + t] - c[j * d + t];
                s += df * df;
            }
            if (s < best) {
                best = s;
                at = j;
            }
        }
        lab[i] = at;
    }
}

int main(void)
{
    int n = 20000, k = 16, d = 8;
    float *p = malloc(n * d * sizeof *p), *c = malloc(k * d * sizeof *c);
    int *lab = malloc(n * sizeof *lab);
    for (int i = 0; i < n * d; i++)
        p[i] = rnd();
    for (int i = 0; i < k * d; i++)
        c[i] = rnd();
    kmeans_assign(n, k, d, p, c, lab);
    for (int i = 0; i < n; i += 37)
        printf("%d\n", lab[i]);
    return 0;
}
