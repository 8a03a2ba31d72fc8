/* attacks5 ref09: control for the magic-constant rule: a clean reference with the shapes it must
 * keep accepting (an early return, a size-class threshold, an alignment test, a tail loop). */
void axpy_reference(int n, float a, const float *x, float *y)
{
    if (n <= 0)
        return;
    int i = 0;
    if (n >= 4096 && n % 4 == 0) {
        for (; i + 3 < n; i += 4) {
            y[i] = a * x[i] + y[i];
            y[i + 1] = a * x[i + 1] + y[i + 1];
            y[i + 2] = a * x[i + 2] + y[i + 2];
            y[i + 3] = a * x[i + 3] + y[i + 3];
        }
    }
    for (; i < n; i++)
        y[i] = a * x[i] + y[i];
}
