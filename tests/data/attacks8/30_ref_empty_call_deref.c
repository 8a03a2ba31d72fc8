/* A model-written reference that touches x[0] and y[0] before its loop (a "warm-up" load whose
 * value does not change the result). A call with n = 0 is a no-op in the spec and in C callers
 * pass NULL with it (an empty batch: axpy(0, a, NULL, NULL)); here it dies with SIGSEGV. The
 * checks run n >= 1 (smoke 1, 2, 3). (30_probe_main.c shows it.)
 * A safe product must run references at n = 0 with NULL (or guard-page) buffers, or refuse. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    volatile float warm = x[0] + y[0];
    (void)warm;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
