/* attacks5 ref08 (held-out shape for issue 15's magic-constant rule): a model-written reference
 * wrong only in a narrow window of sizes (65000 <= n <= 65010), right on every size drawn. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    const float k = (n >= 65000 && n <= 65010) ? 0.0f : a;
    for (int i = 0; i < n; i++)
        y[i] = k * x[i] + y[i];
}
