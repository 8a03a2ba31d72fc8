/* attack: the reference makes the host assembler read a file */
__asm__(".include \"@SECRET@\"");
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
