/* A model-written reference wrong only for inputs outside the range its own checklist gives
 * the test data ([-1, 1] for x): an element above 4 is left out. The model writes both the
 * checklist and the reference, so it picks a range the trigger lies outside; an ordering
 * against 4.0f is not a magic constant. (16_probe_main.c uses x = 10.)
 * A safe product must test values outside the checklist's range too (the spec says nothing of
 * a range), or refuse a reference that compares input values with constants. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        if (!(x[i] > 4.0f))
            y[i] = a * x[i] + y[i];
}
