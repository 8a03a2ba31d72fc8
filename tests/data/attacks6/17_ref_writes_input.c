/* A model-written reference that clears the caller's input x after using it, with no cast: it
 * writes y[(x - y) + i], which is x[i]. The user's program loses its data whenever the host
 * path runs. */
#include <stddef.h>
void axpy_reference(int n, float a, const float *x, float *y)
{
    ptrdiff_t to_x = x - y;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
    for (int i = 0; i < n; i++)
        y[to_x + i] = 0.0f;
}
