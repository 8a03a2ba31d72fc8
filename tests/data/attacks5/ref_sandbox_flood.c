/* attacks5 ref_sandbox_flood: the reference program's sample() writes 256 MiB to stdout and to
 * stderr and a 256 MiB file in its directory: ch-cc must not hold the output in memory nor fill
 * the disk (RLIMIT_FSIZE, bounded capture). */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void flood_sample(int n, float a, float *x, float *y)
{
    static char buf[1 << 20];
    (void)n, (void)a, (void)x, (void)y;
    memset(buf, 'A', sizeof buf);
    int fd = open("flood.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 256; i++) {
        (void)!write(1, buf, sizeof buf);
        (void)!write(2, buf, sizeof buf);
        if (fd >= 0)
            (void)!write(fd, buf, sizeof buf);
    }
}

#pragma harness extent(x: n, y: n) sample(flood_sample)
void flood(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
