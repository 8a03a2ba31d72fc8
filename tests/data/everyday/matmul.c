#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned seed = 12345;
static float rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 65536.0f;
}

#pragma harness extent(A : n *n, B : n *n, C : n *n)
void matmul(int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}

int main(void)
{
    int n = 256;
    double *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B),
           *C = malloc(n * n * sizeof *C);
    for (int i = 0; i < n * n; i++) {
        A[i] = rnd();
        B[i] = rnd();
    }
    matmul(n, A, B, C);
    for (int i = 0; i < n * n; i += 211)
        printf("%.12g\n", C[i]);
    return 0;
}
