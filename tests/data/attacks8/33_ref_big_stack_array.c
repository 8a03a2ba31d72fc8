/* A model-written reference that tiles through a fixed 4 MiB automatic array (1 << 20 floats):
 * not a VLA, so the VLA rule does not apply. The main thread's 8 MiB stack holds it; a user's
 * worker thread with a 2 MiB stack (OpenMP, thread pools, musl's 128 KiB default) dies with
 * SIGSEGV on the first call. (33_probe_main.c calls it from a 1 MiB-stack thread.)
 * A safe product must bound a reference's stack frame (e.g. -Wframe-larger-than / -fstack-usage
 * against a small limit) or run its checks on a small stack. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    float tile[1 << 20];
    for (int b = 0; b < n; b += 1 << 20) {
        int m = n - b < (1 << 20) ? n - b : (1 << 20);
        for (int i = 0; i < m; i++)
            tile[i] = a * x[b + i];
        for (int i = 0; i < m; i++)
            y[b + i] = tile[i] + y[b + i];
    }
}
