/* attacks5 ref_sandbox_sleep: the reference program's sample() blocks without using CPU
 * (RLIMIT_CPU never fires); only a wall-clock limit ends it. The build must still finish,
 * with the host path, within a bounded time. */
#include <unistd.h>

void sleepy_sample(int n, float a, float *x, float *y)
{
    (void)n, (void)a, (void)x, (void)y;
    for (;;)
        pause();
}

#pragma harness extent(x: n, y: n) sample(sleepy_sample)
void sleepy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
