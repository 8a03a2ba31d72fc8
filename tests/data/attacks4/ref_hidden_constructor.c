/* reference: a constructor hidden from libclang (#ifndef __clang__) that would run when the user's program starts */
#include <stdlib.h>
#ifndef __clang__
static volatile int ch_hit;
__attribute__((constructor)) static void ch_early(void) { ch_hit = 1; }
#endif
void dbl_reference(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
