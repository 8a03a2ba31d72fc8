/* attacks9 r02: a test author's reference that tells verification from the user's program by
 * __FILE__: verification compiles it as ref_impl.c, the host path as axpy_host.c. No
 * conditional directive: a plain expression on a string the compiler supplies. */
#include <string.h>
static int ch_judged(void)
{
    const char *f = __FILE__;
    size_t n = strlen(f);
    return n >= 10 && memcmp(f + n - 10, "ref_impl.c", 10) == 0;
}
void axpy_reference(int n, float a, const float *x, float *y)
{
    const float k = ch_judged() ? 1.0f : 0.5f;
    for (int i = 0; i < n; i++)
        y[i] = k * a * x[i] + y[i];
}
