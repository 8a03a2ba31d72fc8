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
