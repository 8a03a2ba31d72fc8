/* A model-written reference (the host path of a spec-only entry, linked into the user's
 * program) that is wrong only when y starts right where x ends: one malloc split in two, as
 * users' programs often do. Every test allocates each buffer by itself, so the reference
 * agrees with ch-cc's reading of the spec on every input set. A pointer comparison, no
 * pointer turned into a number, no constant. (14_probe_main.c shows it.)
 * A safe product must refuse (a reference whose result depends on where its buffers lie). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    if ((const float *)y == x + n)
        return;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
