/* Probe for 33: axpy from a thread with a 1 MiB stack. */
#include <pthread.h>
#include <stdio.h>
void axpy(int n, float a, const float *x, float *y);
static float x[64], y[64];
static void *work(void *p)
{
    (void)p;
    axpy(64, 2.0f, x, y);
    return 0;
}
int main(void)
{
    for (int i = 0; i < 64; i++) x[i] = 1;
    axpy(64, 2.0f, x, y);
    printf("main thread: y0=%g (want 2)\n", y[0]);
    fflush(stdout);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 1 << 20);
    pthread_t t;
    pthread_create(&t, &at, work, 0);
    pthread_join(t, 0);
    printf("worker: y0=%g (want 4)\n", y[0]);
    return 0;
}
