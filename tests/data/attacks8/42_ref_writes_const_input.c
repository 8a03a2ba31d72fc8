/* A model-written reference that scales x in place and restores it (casting away const): every
 * value it leaves is right and x reads back unchanged, so the "input preserved" and agreement
 * checks pass. In a user's program x may be read-only (a `static const` table in .rodata, a
 * PROT_READ mapping of a file): the first store dies with SIGSEGV; another thread reading x
 * meanwhile sees it scaled. (42_probe_main.c passes a static const table.)
 * A safe product must refuse writes through pointers to const in references (or run the
 * checks with inputs in read-only pages). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    float *xs = (float *)x;
    for (int i = 0; i < n; i++) {
        float old = xs[i];
        xs[i] = a * old;
        y[i] = xs[i] + y[i];
        xs[i] = old;
    }
}
