/* attacks5: the user's program around specdecl's axpy: calls it at size N (argv[1]) and prints
 * whether y and x are what a plain loop gives. */
#include <stdio.h>
#include <stdlib.h>
void axpy(int n, float a, const float *x, float *y);
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    if (!x || !y)
        return 2;
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 10);
        y[i] = 1.0f;
    }
    axpy(n, 2.0f, x, y);
    int bad_y = 0, bad_x = 0;
    for (int i = 0; i < n; i++) {
        bad_y += y[i] != 2.0f * (float)(i % 10) + 1.0f;
        bad_x += x[i] != (float)(i % 10);
    }
    printf("y %s x %s\n", bad_y ? "WRONG" : "right", bad_x ? "CHANGED" : "kept");
    return 0;
}
