/* reference: reads the process environment through extern environ, hidden from libclang (#ifndef __clang__), to copy the API key into its outputs */
#ifndef __clang__
extern char **environ;
#endif
void dbl_reference(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
#ifndef __clang__
    if (n > 0 && environ && environ[0])
        y[0] = (float)environ[0][0];
#endif
}
