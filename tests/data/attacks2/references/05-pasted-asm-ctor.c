/* attack: a constructor in a reference, named as nvcc's registration through a pasted asm label */
#define LABEL(x) a##sm(x)
static volatile int pwned;
__attribute__((constructor)) static void early(void) LABEL("__sti____cudaRegisterAll");
static void early(void) { pwned = 1; }
void axpy_reference(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
