/* attacks9 r03: a test author's reference that tells the optimisation level apart with
 * __builtin_constant_p (an allowed pure builtin): a debug build (-O0) of the user's program
 * would get wrong results; verification compiles references at -O1/-O2 only. Here the host
 * path is compiled at -O2 too, so it only fires for a user who builds the host path at -O0. */
static const int ch_three = 3;
void axpy_reference(int n, float a, const float *x, float *y)
{
    const float k = __builtin_constant_p(ch_three * 2) ? 1.0f : 0.5f;
    for (int i = 0; i < n; i++)
        y[i] = k * a * x[i] + y[i];
}
