/* attack: a constructor that calls nothing (no symbol to refuse) runs before the user's main */
static volatile int pwned;
__attribute__((constructor)) static void early(void)
{
    pwned = 1;
}
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
