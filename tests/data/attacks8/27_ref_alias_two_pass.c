/* A model-written reference that adds a*x in two halves (a "compensated" two-pass form):
 * exact enough for separate buffers (within rtol 1e-5), but when the caller passes the same
 * array as x and y (legal: the prototype has no restrict, and y[i] = a*y[i] + y[i] is what the
 * spec then means), the second pass reads x after the first pass changed it. No pointer
 * comparison. ch-cc's tests give each pointer its own buffer (or adjacent carved ones).
 * (27_probe_main.c shows it.)
 * A safe product must test aliased in/inout arguments when the prototype allows them, or
 * refuse references that read an input after writing an output. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = y[i] + 0.5f * (a * x[i]);
    for (int i = 0; i < n; i++)
        y[i] = y[i] + 0.5f * (a * x[i]);
}
