/* attacks7 #15's size threshold without a comparison: `n >> 21` is nonzero exactly when
 * n >= 2^21 (twice the tune size); then only the first 2^21 elements are computed. No size is
 * compared with a constant (a shift and a truth test), so a rule that tests a reference "at the
 * thresholds it compares sizes with" has none to try. (49_probe_main.c calls it at n = 3M.)
 * A safe product must test references beyond the tune size too (a larger size at least once,
 * timed), or refuse size-dependent control flow in references. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    int m = (n >> 21) ? (1 << 21) : n;
    for (int i = 0; i < m; i++)
        y[i] = a * x[i] + y[i];
}
