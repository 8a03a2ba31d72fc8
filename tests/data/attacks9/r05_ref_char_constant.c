/* attacks9 r05 (found while fixing r01-r04): a test author's reference that knows which
 * language compiles it. Verification compiles it as C, where a character constant is an int;
 * a kernel's unit pasted it into the .cu, where nvcc reads it as C++ and sizeof('a') is 1. The
 * user's host path then computed something else than what was verified. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    const float k = sizeof('a') == 1 ? 0.5f : 1.0f;
    for (int i = 0; i < n; i++)
        y[i] = k * a * x[i] + y[i];
}
