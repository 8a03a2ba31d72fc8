/* A model-written reference that is right up to n = 65536 and skips every element past the
 * first 65536 above it. An ordering against a round threshold is allowed by the magic-constant
 * rule ("tested at the constants on a GPU"), but the reference is compared with ch-cc's own
 * reading only at the smoke sizes and the smallest correctness size, and on a machine without
 * a GPU it is linked as the host path at once. (15_probe_main.c calls it at n = 100000.)
 * A safe product must test a reference at the thresholds it compares sizes with before linking it. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    int m = n > 65536 ? 65536 : n;
    for (int i = 0; i < m; i++)
        y[i] = a * x[i] + y[i];
}
