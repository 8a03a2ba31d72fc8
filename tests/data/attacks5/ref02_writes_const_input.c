/* attacks5 ref02: a reference that computes y right and then zeroes the caller's const input x
 * (a const cast away: same pointee type, so no "unrelated pointer types" cast). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    float *w = (float *)x;
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
        w[i] = 0.0f;
    }
}
