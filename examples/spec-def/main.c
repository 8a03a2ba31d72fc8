/* Checks blend() against the host loop and reports the whole-call speedup
 * (unless --no-timing). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blend.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    /* --no-timing: the demo says so on a machine without a GPU, where both runs are the host
     * loop and their ratio would be noise */
    int timed = !(argc > 1 && strcmp(argv[1], "--no-timing") == 0);
    int n = 1 << 24;
    float *fg = malloc(n * sizeof *fg), *bg = malloc(n * sizeof *bg);
    float *out = malloc(n * sizeof *out), *ref = malloc(n * sizeof *ref);
    if (!fg || !bg || !out || !ref)
        return 2;
    for (int i = 0; i < n; i++) {
        fg[i] = (float)(i % 255) / 255.0f;
        bg[i] = (float)((i * 7) % 255) / 255.0f;
    }
    blend(n, 0.3f, fg, bg, out); /* warm-up */
    double t0 = now();
    blend(n, 0.3f, fg, bg, out);
    double t1 = now();
    blend_reference(n, 0.3f, fg, bg, ref);
    double t2 = now();
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (fabsf(out[i] - ref[i]) > 1e-4f * (1.0f + fabsf(ref[i])))
            bad++;
    if (timed)
        printf("blend: n=%d %s, harness %.2f ms, host loop %.2f ms, whole-call speedup %.1fx\n",
               n, bad ? "WRONG" : "correct", (t1 - t0) * 1e3, (t2 - t1) * 1e3,
               (t2 - t1) / (t1 - t0));
    else
        printf("blend: n=%d %s (the host path ran: no speedup to report)\n", n,
               bad ? "WRONG" : "correct");
    free(fg);
    free(bg);
    free(out);
    free(ref);
    return bad ? 1 : 0;
}
