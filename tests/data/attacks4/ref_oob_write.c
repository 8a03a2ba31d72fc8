/* reference: writes 4096 floats past the end of y (a model's off-by-a-lot): must crash on the guard page and be reported, never corrupt the parent */
void dbl_reference(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
    for (int i = n; i < n + 4096; i++)
        y[i] = 0.0f;
}
