/* A model-written reference with a grow-once static scratch buffer (a common "avoid malloc per
 * call" pattern): kept state, and a data race when a user's program calls axpy from two threads
 * at once (one thread's a*x lands in the other's y). Single-threaded tests agree.
 * A safe product must refuse static storage in references (or test concurrent calls). */
#include <stdlib.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    static float *scratch = 0;
    static int cap = 0;
    if (n > cap) {
        free(scratch);
        scratch = (float *)malloc((size_t)n * sizeof(float));
        cap = scratch ? n : 0;
    }
    if (!scratch)
        return;
    for (int i = 0; i < n; i++)
        scratch[i] = a * x[i];
    for (int i = 0; i < n; i++)
        y[i] = scratch[i] + y[i];
}
