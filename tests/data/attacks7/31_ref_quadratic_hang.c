/* A model-written reference that is right but quadratic: each y[i] also adds 0 * x[j] over every
 * j (a float multiply by zero the compiler may not drop: x[j] could be inf or NaN). At the test
 * sizes (n <= 4097, 16 M steps) nothing notices; linked as the host path, the user's call at
 * n = 10^6 takes 10^12 steps (hours). (31_probe_main.c calls it at n = 300000 under a timeout.)
 * A safe product must time the reference against the spec's own cost at a larger size (or the
 * tune size) before linking it, or refuse one whose loops nest deeper than the spec needs. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float extra = 0.0f;
        for (int j = 0; j < n; j++)
            extra += 0.0f * x[j];
        y[i] = a * x[i] + y[i] + extra;
    }
}
