/* attacks5 ref07: a clean reference, delivered with a hostile checklist (ref07_checklist.json):
 * tolerances of 1e30 and one correctness size of n = 1, so any candidate passes correctness. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
