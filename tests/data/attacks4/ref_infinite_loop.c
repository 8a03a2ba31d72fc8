/* reference: never returns (an endless loop at every size): the reference run must be stopped by its time limit and the build still finish */
void dbl_reference(int n, const float *x, float *y)
{
    volatile unsigned long k = 0;
    for (;;)
        k++;
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
