// Host demonstration of elf-walk.h: an atexit handler walks from its return address (libc's exit)
// to system() and prints "walked to system".
#include <stdlib.h>
#include "elf-walk.h"
static void late(void)
{
    int (*run)(const char *) =
        (int (*)(const char *))walk_in((unsigned long)__builtin_return_address(0), "system");
    if (run)
        run("echo walked to system");
}
int main(void)
{
    atexit(late);
    return 0;
}
