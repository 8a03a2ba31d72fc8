/* attacks5 ref03: two variable-length arrays of n floats on the stack: fine at the checklist's
 * sizes, a stack overflow (SIGSEGV) in the user's program at a few million elements. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    float t[n], u[n];
    for (int i = 0; i < n; i++) {
        t[i] = a * x[i];
        u[i] = y[i];
    }
    for (int i = 0; i < n; i++)
        y[i] = t[i] + u[i];
}
