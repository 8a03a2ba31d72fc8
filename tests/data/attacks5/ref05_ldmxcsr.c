/* attacks5 ref05: no call, no syscall: a builtin that loads MXCSR (flush-to-zero, denormals-are-
 * zero, round toward zero) changes the floating point of the whole user program from then on. */
void axpy_reference(int n, float a, const float *x, float *y)
{
    __builtin_ia32_ldmxcsr(0x9fc0u);
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
