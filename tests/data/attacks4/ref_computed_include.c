/* reference: a computed #include (a macro expanding to <unistd.h>) and a hidden fork() behind it, hoping the header check reads only literal include names */
#include <stdlib.h>
#define CH_HDR <unistd.h>
#include CH_HDR
void dbl_reference(int n, const float *x, float *y)
{
    if (n == 3)
        fork();
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
