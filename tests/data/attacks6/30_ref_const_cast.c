/* A model-written reference that casts const away and clears the caller's input x: the plain
 * spelling of 17 (which gets the same effect without a cast). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    float *xs = (float *)x;
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
        xs[i] = 0.0f;
    }
}
