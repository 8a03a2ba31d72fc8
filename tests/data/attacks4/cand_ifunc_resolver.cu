// candidate: a launcher helper declared with __attribute__((ifunc)) whose resolver runs at program load (an IRELATIVE relocation), before main, in every program it is linked into
// ---- before the launcher
static int ch_calls;
extern "C" void *ch_resolve(void) { ch_calls++; return (void *)0; }
static void ch_helper(int) __attribute__((ifunc("ch_resolve")));
// ---- inside the launcher, after its copies back
    ch_helper(n);
