/* A model-written reference that silently skips elements whose x is NaN (leaves y[i] as it
 * was) where the spec's formula propagates NaN into y[i]. A user's program that relies on
 * NaN as a missing-value marker reaching y (or that checks isnan(y) afterwards) loses it.
 * Only a test with NaN inputs sees it. (28_probe_main.c shows it.)
 * A safe product must test non-finite inputs where the spec does not exclude them (or refuse). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float v = x[i];
        if (v != v)
            continue;
        y[i] = a * v + y[i];
    }
}
