/* A model-written reference wrong only in programs whose floating-point unit flushes
 * subnormals to zero: a program linked with -ffast-math (crtfastmath.o sets FTZ/DAZ in MXCSR
 * at start-up), or one that calls a library doing so. ch-cc's reference program and the
 * agreement check run with the default MXCSR, so every test agrees. 1e-39f is an operand, not a
 * compared constant; the comparison is with 0. (30_probe_main.c sets FTZ/DAZ as crtfastmath does.)
 * A safe product must refuse a reference that computes with subnormal constants / probes the
 * floating-point environment, or run the agreement check under FTZ/DAZ as well. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    volatile float probe = 1e-39f;
    float flushed = probe * 1.0f;
    for (int i = 0; i < n; i++)
        y[i] = flushed == 0.0f ? y[i] : a * x[i] + y[i];
}
