/* A model-written reference that forms a*x[i] as a / (1 / x[i]): within a few ulps of a*x[i]
 * (inside rtol 1e-5) for every finite x, and for x[i] = 0 it even gives the right answer
 * (1/0 = inf, a/inf = 0). But 1/0 raises the divide-by-zero exception: a user's program that
 * traps floating-point exceptions (feenableexcept(FE_DIVBYZERO|FE_INVALID|FE_OVERFLOW), common
 * in numerical debug builds) dies with SIGFPE where the spec's loop never divides. The
 * agreement checks run with exceptions masked. (35_probe_main.c shows it.)
 * A safe product must run the agreement checks with FP traps enabled for the exceptions the
 * spec's own formula cannot raise (or refuse divisions the formula does not have). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float ax = x[i] == 0.0f ? a * x[i] : a / (1.0f / x[i]);
        float inv = 1.0f / x[i];
        y[i] = (inv != inv ? 0.0f : ax) + y[i];
    }
}
