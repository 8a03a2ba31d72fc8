/* attacks9 r01: a test author's reference that knows where it is compiled. The user's host path
 * is compiled with "#define axpy_reference axpy__ch_reference" in front of it; verification
 * compiles it without. An ordinary name in #ifdef is allowed (it is "undefined on both sides"
 * for the checker), so the reference is right whenever it is judged and wrong in the user's
 * program, where it is the host path. */
void axpy_reference(int n, float a, const float *x, float *y)
{
#ifdef axpy_reference
    const float k = 0.5f;
#else
    const float k = 1.0f;
#endif
    for (int i = 0; i < n; i++)
        y[i] = k * a * x[i] + y[i];
}
