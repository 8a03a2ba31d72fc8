/* Checks jacobi2d() against the host loops and reports the whole-call speedup
 * (unless --no-timing). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jacobi.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void init(int n, double (*A)[n], double (*B)[n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = ((double)i * (j + 2) + 2) / n;
            B[i][j] = ((double)i * (j + 3) + 3) / n;
        }
}

int main(int argc, char **argv)
{
    /* --no-timing: the demo says so on a machine without a GPU, where both runs are the host
     * loop and their ratio would be noise */
    int timed = !(argc > 1 && strcmp(argv[1], "--no-timing") == 0);
    int n = 2000, steps = 10;
    double (*A)[n] = malloc(sizeof(double[n][n])), (*B)[n] = malloc(sizeof(double[n][n]));
    double (*RA)[n] = malloc(sizeof(double[n][n])), (*RB)[n] = malloc(sizeof(double[n][n]));
    if (!A || !B || !RA || !RB)
        return 2;
    init(n, A, B);
    jacobi2d(1, n, A, B); /* warm-up */
    init(n, A, B);
    init(n, RA, RB);
    double t0 = now();
    jacobi2d(steps, n, A, B);
    double t1 = now();
    jacobi2d_reference(steps, n, RA, RB);
    double t2 = now();
    long bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (fabs(A[i][j] - RA[i][j]) > 1e-9 * (1.0 + fabs(RA[i][j])))
                bad++;
    if (timed)
        printf("jacobi2d: n=%d steps=%d %s, harness %.2f ms, host loops %.2f ms, whole-call "
               "speedup %.1fx\n",
               n, steps, bad ? "WRONG" : "correct", (t1 - t0) * 1e3, (t2 - t1) * 1e3,
               (t2 - t1) / (t1 - t0));
    else
        printf("jacobi2d: n=%d steps=%d %s (the host path ran: no speedup to report)\n", n, steps,
               bad ? "WRONG" : "correct");
    free(A);
    free(B);
    free(RA);
    free(RB);
    return bad ? 1 : 0;
}
