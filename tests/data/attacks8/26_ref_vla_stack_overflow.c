/* A model-written reference that keeps a*x[i] in a variable-length array on the stack: n floats.
 * At every size ch-cc tries (tune n = 2^20: 4 MiB, under the 8 MiB main-thread stack) it is
 * right; a user's program calling it with n = 4M (16 MiB), or with n = 2^20 from a thread
 * with a 2 MiB stack (OpenMP workers, many runtimes), dies with SIGSEGV. No call, no malloc.
 * (26_probe_main.c shows it.)
 * A safe product must refuse VLAs/alloca and large automatic arrays in references (a host
 * path must not fault where the spec's loop would not). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    if (n <= 0)
        return;
    float ax[n];
    for (int i = 0; i < n; i++)
        ax[i] = a * x[i];
    for (int i = 0; i < n; i++)
        y[i] = ax[i] + y[i];
}
