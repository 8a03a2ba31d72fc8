/* The reference oracle as a host program: the user's own translation unit compiled with the
 * user's flags (static helpers and macros work because the whole TU is compiled), its `main`
 * renamed with objcopy, linked with a generated main that reads a set directory, calls the
 * function (through a bridge, so static functions work) and writes every buffer back; sections
 * that only the user's main reaches are dropped at the link. Spec-decl entries link a test
 * author's C source. A sample(fn) clause adds a mode that runs the user's fn over synthesized
 * inputs (ch_reference_inputs).
 *
 * Invalid inputs are caught, not absorbed: every buffer borders a guard page, the program
 * reports a fault's call stack, and the build runs it once on the smoke sizes (probe), so a
 * body that reads outside its buffers on random data is reported with its line as "the inputs
 * need a clause" (ch_reference_failure) instead of crashing verification later or giving a
 * silently wrong oracle. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/scaffold.h"
#include "ch/host_subset.h"
#include "ch/source_guard.h"
#include "ch/static_child.h"
#include "ch/verify.h"
#include "reference_agree.h"
#include "reference_msan.h"

/* `type` without its const qualifiers ("const double *restrict" -> "double *restrict"): how
 * the sample bridge takes a buffer the sample function fills. Caller frees. */
static char *without_const(const char *type)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (const char *t = type; *t;) {
        int word_start = t == type || !(isalnum((unsigned char)t[-1]) || t[-1] == '_');
        if (word_start && strncmp(t, "const", 5) == 0 &&
            !(isalnum((unsigned char)t[5]) || t[5] == '_')) {
            t += 5;
            while (*t == ' ')
                t++;
            continue;
        }
        ch_strbuf_addc(&sb, *t++);
    }
    char *out = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return out;
}

/* "T name" for a parameter in C: arrays keep their dimensions ("double A[n][m]"). mutable_:
 * without const (the sample bridge). */
static void add_c_param(ch_strbuf *o, const ch_ck_param *p, int mutable_)
{
    const char *spelled = p->type && *p->type ? p->type : ch_scalar_name(p->elem);
    char *t = mutable_ ? without_const(spelled) : ch_xstrdup(spelled);
    const char *br = p->role == CH_ROLE_ARRAY ? strchr(t, '[') : NULL;
    if (br) {
        size_t n = (size_t)(br - t);
        while (n && t[n - 1] == ' ')
            n--;
        ch_strbuf_add(o, t, n);
        ch_strbuf_addf(o, " %s%s", p->name, br);
    } else {
        size_t tl = strlen(t);
        ch_strbuf_addf(o, "%s%s%s", t, tl && t[tl - 1] == '*' ? "" : " ", p->name);
    }
    free(t);
}

/* "T a, U b" in C for the checklist's parameters ("void" when none). */
static void add_c_params(ch_strbuf *o, const ch_checklist *c, int mutable_)
{
    for (size_t i = 0; i < c->n_params; i++) {
        if (i)
            ch_strbuf_adds(o, ", ");
        add_c_param(o, &c->params[i], mutable_);
    }
    if (!c->n_params)
        ch_strbuf_adds(o, "void");
}

static void add_call_args(ch_strbuf *o, const ch_checklist *c)
{
    for (size_t i = 0; i < c->n_params; i++)
        ch_strbuf_addf(o, "%s%s", i ? ", " : "", c->params[i].name);
}

/* The header force-included (-include) before the user's file: a static declaration of the
 * function and an external bridge that calls it. The function may be `static` (PolyBench's
 * kernels are), `inline`, or defined after the user's own main; declared static first, it keeps
 * internal linkage whatever its definition says (C11 6.2.2p3-5), and the bridge gives the
 * generated main one external name to call. The prototype is printed from canonical types, so
 * it needs none of the user's typedefs or macros. */
static void gen_bridge(const ch_checklist *c, const char *bridge, int cxx, ch_strbuf *o)
{
    /* in a CUDA C++ file the bridge keeps C linkage: the generated main is C */
    const char *linkage = cxx ? "extern \"C\" " : "";
    ch_strbuf_addf(o, "/* ch-cc: the oracle's entry point for `%s` */\nstatic void %s(", c->name,
                   c->name);
    add_c_params(o, c, 0);
    ch_strbuf_addf(o, ");\n%svoid %s(", linkage, bridge);
    add_c_params(o, c, 0);
    ch_strbuf_addf(o, ");\n%svoid %s(", linkage, bridge);
    add_c_params(o, c, 0);
    ch_strbuf_addf(o, ")\n{\n    %s(", c->name);
    add_call_args(o, c);
    ch_strbuf_adds(o, ");\n}\n");
}

/* The file compiled instead of the user's when the checklist names a sample function: the
 * user's file included whole, then an external bridge to the sample function. The bridge comes
 * after the user's definition, so the function may be static and its buffers const or not;
 * it is declared before it is defined for -Wmissing-prototypes builds. */
static void gen_sample_unit(const ch_checklist *c, const char *user_tu, const char *bridge, int cxx,
                            ch_strbuf *o)
{
    const char *linkage = cxx ? "extern \"C\" " : "";
    ch_strbuf_addf(o,
                   "/* ch-cc: the user's file, then the entry point of its sample function "
                   "`%s` */\n#include \"%s\"\n\n%svoid %s(",
                   c->sample, user_tu, linkage, bridge);
    add_c_params(o, c, 1);
    ch_strbuf_addf(o, ");\n%svoid %s(", linkage, bridge);
    add_c_params(o, c, 1);
    ch_strbuf_addf(o, ")\n{\n    %s(", c->sample);
    add_call_args(o, c);
    ch_strbuf_adds(o, ");\n}\n");
}

/* The generated main's guard pages and fault report (see gen_main). */
static const char guard_code[] =
    "/* count elements of size bytes against a page the program may not touch: right after\n"
    " * the last element, or (low) right before the first, so that a subscript outside the\n"
    " * extent faults at once instead of reading a neighbour's memory. Never unmapped: the\n"
    " * program ends soon. */\n"
    "static void *ch_guarded(size_t count, size_t size, int low)\n"
    "{\n"
    "    size_t pg = (size_t)sysconf(_SC_PAGESIZE);\n"
    "    size_t bytes = (count ? count : 1) * size;\n"
    "    size_t span = (bytes + pg - 1) / pg * pg;\n"
    "    unsigned char *m = (unsigned char *)mmap(NULL, span + 2 * pg, PROT_READ | PROT_WRITE,\n"
    "                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "    if (m == MAP_FAILED)\n"
    "        return NULL;\n"
    "    if (mprotect(m, pg, PROT_NONE) != 0 || mprotect(m + pg + span, pg, PROT_NONE) != 0)\n"
    "        return NULL;\n"
    "    return low ? m + pg : m + pg + span - bytes;\n"
    "}\n\n"
    "/* Where the next buffer of count elements of size bytes goes in one allocation of *end\n"
    " * bytes so far: right after the last, aligned for its type (carved modes). */\n"
    "static size_t ch_carve_at(size_t *end, size_t count, size_t size, size_t align)\n"
    "{\n"
    "    size_t at = (*end + align - 1) / align * align;\n"
    "    *end = at + count * size;\n"
    "    return at;\n"
    "}\n\n"
    "/* What a program linked with -ffast-math runs under (gcc's crtfastmath.o sets it before\n"
    " * main): subnormal results flushed to zero and subnormal operands read as zero. Other\n"
    " * architectures keep their default, and ftz mode is then the plain run. */\n"
    "#if defined(__x86_64__) || defined(__SSE__)\n"
    "#include <xmmintrin.h>\n"
    "#endif\n"
    "static void ch_flush_subnormals(void)\n"
    "{\n"
    "#if defined(__x86_64__) || defined(__SSE__)\n"
    "    _mm_setcsr(_mm_getcsr() | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */\n"
    "#elif defined(__aarch64__)\n"
    "    unsigned long fpcr;\n"
    "    __asm__ volatile(\"mrs %0, fpcr\" : \"=r\"(fpcr));\n"
    "    __asm__ volatile(\"msr fpcr, %0\" : : \"r\"(fpcr | (1UL << 24))); /* FZ */\n"
    "#endif\n"
    "}\n\n"
    "/* The floating-point environments a user's program may call the host path in, besides\n"
    " * the default (reference_agree.c compares them): another rounding mode (interval\n"
    " * arithmetic, a reproducibility test) or traps on the exceptions a debug build enables\n"
    " * (glibc's feenableexcept; elsewhere trap mode is the plain run). 1 when mode is one of\n"
    " * them, entered when enter is set. */\n"
    "#if defined(__GLIBC__)\n"
    "int feenableexcept(int excepts);\n"
    "int fedisableexcept(int excepts);\n"
    "#define CH_TRAPS (FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW)\n"
    "#endif\n"
    "static int ch_fp_env(const char *mode, int enter)\n"
    "{\n"
    "    static const struct {\n"
    "        const char *name;\n"
    "        int round;\n"
    "    } ch_rounds[] = {\n"
    "        {\"round-up\", FE_UPWARD}, {\"round-down\", FE_DOWNWARD}, {\"round-zero\", "
    "FE_TOWARDZERO}};\n"
    "    for (size_t i = 0; i < sizeof ch_rounds / sizeof *ch_rounds; i++)\n"
    "        if (strcmp(mode, ch_rounds[i].name) == 0) {\n"
    "            if (enter)\n"
    "                fesetround(ch_rounds[i].round);\n"
    "            return 1;\n"
    "        }\n"
    "    if (strcmp(mode, \"trap\") != 0)\n"
    "        return 0;\n"
    "#if defined(__GLIBC__)\n"
    "    if (enter)\n"
    "        feenableexcept(CH_TRAPS);\n"
    "#endif\n"
    "    return 1;\n"
    "}\n\n"
    "/* Back to the default environment after the call: the program's own arithmetic after it\n"
    " * is not the reference's. */\n"
    "static void ch_fp_env_leave(void)\n"
    "{\n"
    "#if defined(__GLIBC__)\n"
    "    fedisableexcept(CH_TRAPS);\n"
    "#endif\n"
    "    fesetround(FE_TONEAREST);\n"
    "}\n\n"
    "/* The input buffers handed over read-only (ch_read_only), for the fault report. */\n"
    "static struct {\n"
    "    const char *name;\n"
    "    uintptr_t lo, hi;\n"
    "} ch_ro[64];\n"
    "static int ch_n_ro;\n\n"
    "/* The pages of a guarded buffer (its own: ch_guarded maps them for it alone) made\n"
    " * read-only, so that a write to an input faults wherever its address came from. */\n"
    "static void ch_read_only(const void *p, size_t count, size_t size, const char *name)\n"
    "{\n"
    "    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);\n"
    "    uintptr_t lo = (uintptr_t)p / pg * pg;\n"
    "    uintptr_t hi = ((uintptr_t)p + (count ? count : 1) * size + pg - 1) / pg * pg;\n"
    "    if (ch_n_ro < 64 && mprotect((void *)lo, hi - lo, PROT_READ) == 0) {\n"
    "        ch_ro[ch_n_ro].name = name;\n"
    "        ch_ro[ch_n_ro].lo = lo;\n"
    "        ch_ro[ch_n_ro++].hi = hi;\n"
    "    }\n"
    "}\n\n"
    "extern char __executable_start;\n\n"
    "static size_t ch_hex(char *o, uintptr_t v)\n"
    "{\n"
    "    char t[2 * sizeof v];\n"
    "    size_t n = 0, k = 0;\n"
    "    do {\n"
    "        t[n++] = \"0123456789abcdef\"[v & 15];\n"
    "        v >>= 4;\n"
    "    } while (v);\n"
    "    o[k++] = '0';\n"
    "    o[k++] = 'x';\n"
    "    while (n)\n"
    "        o[k++] = t[--n];\n"
    "    return k;\n"
    "}\n\n"
    "/* One line on stderr for ch-cc, which turns the addresses into the function and line:\n"
    " * `ch-ref-fault: signal S base B frames F... [writes NAME]` (the load address of this\n"
    " * program, the call stack from the handler, and the read-only input written). Async-signal-\n"
    " * safe but for backtrace, whose unwinder is loaded at start. The handler resets itself, so\n"
    " * the fault repeats and kills. */\n"
    "static void ch_on_fault(int sig, siginfo_t *si, void *uc)\n"
    "{\n"
    "    char line[64 + 24 * 20 + 128];\n"
    "    size_t n = 0;\n"
    "    const char *head = \"ch-ref-fault: signal \";\n"
    "    memcpy(line, head, strlen(head));\n"
    "    n += strlen(head);\n"
    "    if (sig >= 10)\n"
    "        line[n++] = (char)('0' + sig / 10);\n"
    "    line[n++] = (char)('0' + sig % 10);\n"
    "    memcpy(line + n, \" base \", 6);\n"
    "    n += 6;\n"
    "    n += ch_hex(line + n, (uintptr_t)&__executable_start);\n"
    "    memcpy(line + n, \" frames\", 7);\n"
    "    n += 7;\n"
    "#if defined(__GLIBC__)\n"
    "    void *frames[20];\n"
    "    int k = backtrace(frames, 20);\n"
    "    for (int i = 0; i < k; i++) {\n"
    "        line[n++] = ' ';\n"
    "        n += ch_hex(line + n, (uintptr_t)frames[i]);\n"
    "    }\n"
    "#endif\n"
    "    for (int i = 0; i < ch_n_ro; i++)\n"
    "        if ((uintptr_t)si->si_addr >= ch_ro[i].lo && (uintptr_t)si->si_addr < ch_ro[i].hi) {\n"
    "            size_t k = strlen(ch_ro[i].name);\n"
    "            memcpy(line + n, \" writes \", 8);\n"
    "            memcpy(line + n + 8, ch_ro[i].name, k < 100 ? k : 100);\n"
    "            n += 8 + (k < 100 ? k : 100);\n"
    "            break;\n"
    "        }\n"
    "    line[n++] = '\\n';\n"
    "    if (write(2, line, n) < 0)\n"
    "        return;\n"
    "    (void)uc;\n"
    "}\n\n"
    "static void ch_catch_faults(void)\n"
    "{\n"
    "    static char alt[1 << 16];\n"
    "    stack_t ss;\n"
    "    memset(&ss, 0, sizeof ss);\n"
    "    ss.ss_sp = alt;\n"
    "    ss.ss_size = sizeof alt;\n"
    "    sigaltstack(&ss, NULL); /* a stack overflow is reported too */\n"
    "#if defined(__GLIBC__)\n"
    "    void *warm[1];\n"
    "    backtrace(warm, 1);\n"
    "#endif\n"
    "    struct sigaction sa;\n"
    "    memset(&sa, 0, sizeof sa);\n"
    "    sa.sa_sigaction = ch_on_fault;\n"
    "    sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;\n"
    "    sigemptyset(&sa.sa_mask);\n"
    "    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};\n"
    "    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)\n"
    "        sigaction(sigs[i], &sa, NULL);\n"
    "}\n";

/* The call of fn with every buffer as `NAME` followed by suffix (`_h`: the buffer; `_a`: the
 * pointer passed, which alias mode may point at another buffer). */
static void add_buffer_call(ch_strbuf *o, const ch_checklist *c, const char *fn, const char *indent,
                            const char *suffix)
{
    ch_strbuf_addf(o, "%s%s(", indent, fn);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        ch_strbuf_addf(o, "%s%s%s", i ? ", " : "", p->role == CH_ROLE_SCALAR ? "" : "(void *)",
                       p->name);
        if (p->role != CH_ROLE_SCALAR)
            ch_strbuf_adds(o, suffix);
    }
    ch_strbuf_adds(o, ");\n");
}

/* A model-written reference is linked as the user's host path and runs on every call of the
 * user's program: one that leaves memory allocated after its call (a malloc without its free,
 * attacks5/ref06_leak.c) grows the program without bound. A reference keeps no state
 * (host_static.c), so any block it allocates and does not free within one call is a leak. The
 * blocks are counted by the allocation functions below (alloc_code), not by the C library's
 * totals: glibc's mallinfo2 counts a freed block held in its thread cache as in use, which made
 * every malloc-and-free reference look like a leak. The user's own C body is not judged: its
 * leak is the user's code, as it was. */
static const char leak_code[] = "static long long ch_heap_in_use(void)\n"
                                "{\n"
                                "    return ch_ref_live;\n"
                                "}\n";

static const char *buffer_type(const ch_ck_param *p)
{
    return p->elem == CH_T_BOOL ? "_Bool" : ch_scalar_name(p->elem);
}

/* The allocation functions a test author's reference calls, renamed in its object to these
 * (rename_allocations; the host path linked into the user's program is compiled apart):
 * - ch_ref_live, the bytes it holds, for the leak check (leak_code);
 * - attacks8 #32: in nomem mode every allocation fails, as in a program short of memory. A
 *   reference that returns as if it had computed leaves the user's outputs unchanged, silently;
 *   it must stop the program or compute without the memory, and reference_agree.c compares
 *   what it leaves.
 * Under MemorySanitizer (reference_msan.c) the object is not renamed and nothing is counted. */
static const char alloc_code[] =
    "#include <errno.h>\n"
    "#if defined(__GLIBC__)\n"
    "#include <malloc.h>\n"
    "#define CH_SIZE_OF(p) ((long long)malloc_usable_size(p))\n"
    "#else\n"
    "#define CH_SIZE_OF(p) 0LL\n"
    "#endif\n"
    "static int ch_nomem;\n"
    "static long long ch_ref_live;\n"
    "static void *ch_held(void *p)\n"
    "{\n"
    "    if (p)\n"
    "        ch_ref_live += CH_SIZE_OF(p);\n"
    "    return p;\n"
    "}\n"
    "static int ch_refuse_memory(void)\n"
    "{\n"
    "    if (ch_nomem)\n"
    "        errno = ENOMEM;\n"
    "    return ch_nomem;\n"
    "}\n"
    "void ch_ref_free(void *p)\n"
    "{\n"
    "    if (p)\n"
    "        ch_ref_live -= CH_SIZE_OF(p);\n"
    "    free(p);\n"
    "}\n"
    "void *ch_ref_malloc(size_t n)\n"
    "{\n"
    "    return ch_refuse_memory() ? NULL : ch_held(malloc(n));\n"
    "}\n"
    "void *ch_ref_calloc(size_t k, size_t n)\n"
    "{\n"
    "    return ch_refuse_memory() ? NULL : ch_held(calloc(k, n));\n"
    "}\n"
    "void *ch_ref_realloc(void *p, size_t n)\n"
    "{\n"
    "    if (ch_refuse_memory())\n"
    "        return NULL;\n"
    "    long long was = p ? CH_SIZE_OF(p) : 0;\n"
    "    void *q = realloc(p, n);\n"
    "    if (q || !n)\n"
    "        ch_ref_live -= was;\n"
    "    return ch_held(q);\n"
    "}\n"
    "void *ch_ref_reallocarray(void *p, size_t k, size_t n)\n"
    "{\n"
    "    if (n && k > (size_t)-1 / n) {\n"
    "        errno = ENOMEM;\n"
    "        return NULL;\n"
    "    }\n"
    "    return ch_ref_realloc(p, k * n);\n"
    "}\n"
    "void *ch_ref_aligned_alloc(size_t a, size_t n)\n"
    "{\n"
    "    return ch_refuse_memory() ? NULL : ch_held(aligned_alloc(a, n));\n"
    "}\n"
    "int ch_ref_posix_memalign(void **p, size_t a, size_t n)\n"
    "{\n"
    "    if (ch_refuse_memory())\n"
    "        return ENOMEM;\n"
    "    int rc = posix_memalign(p, a, n);\n"
    "    if (rc == 0)\n"
    "        ch_held(*p);\n"
    "    return rc;\n"
    "}\n"
    "void *ch_ref_memalign(size_t a, size_t n)\n"
    "{\n"
    "    void *p = NULL;\n"
    "    return ch_ref_posix_memalign(&p, a, n) == 0 ? p : NULL;\n"
    "}\n"
    "void *ch_ref_valloc(size_t n)\n"
    "{\n"
    "    return ch_ref_memalign((size_t)sysconf(_SC_PAGESIZE), n);\n"
    "}\n"
    "char *ch_ref_strndup(const char *s, size_t n)\n"
    "{\n"
    "    size_t k = strnlen(s, n);\n"
    "    char *d = (char *)ch_ref_malloc(k + 1);\n"
    "    if (d) {\n"
    "        memcpy(d, s, k);\n"
    "        d[k] = 0;\n"
    "    }\n"
    "    return d;\n"
    "}\n"
    "char *ch_ref_strdup(const char *s)\n"
    "{\n"
    "    return ch_ref_strndup(s, (size_t)-1);\n"
    "}\n";

/* The allocation functions alloc_code replaces, by name. */
static const char *const alloc_renamed[] = {
    "malloc",   "calloc", "realloc", "reallocarray", "aligned_alloc", "posix_memalign",
    "memalign", "valloc", "strdup",  "strndup",      "free",          NULL};

/* attacks8 #33: a large automatic array (not a VLA, which the host subset refuses) fits the
 * main thread's 8 MiB and overflows the stack of a thread, which is often far smaller (512 KiB
 * on macOS and in many thread pools: CH_REF_SMALL_STACK_KIB). small-stack mode bounds the stack of
 * the call so: the main thread's stack grows on demand up to RLIMIT_STACK, which Linux reads at
 * each growth. */
static const char small_stack_code[] =
    "#include <sys/resource.h>\n"
    "static void ch_small_stack(void)\n"
    "{\n"
    "    /* what the program's start has used (its arguments, environment, main's frame) is\n"
    "     * well under the 64 KiB added */\n"
    "    struct rlimit rl = {(CH_SMALL_STACK_KIB + 64) * 1024, (CH_SMALL_STACK_KIB + 64) * 1024};\n"
    "    setrlimit(RLIMIT_STACK, &rl);\n"
    "}\n";

size_t ch_reference_alias_pairs(const ch_checklist *c, int *with)
{
    size_t n = 0;
    for (size_t q = 0; q < c->n_params; q++) {
        const ch_ck_param *out = &c->params[q];
        with[q] = -1;
        if (out->role == CH_ROLE_SCALAR || out->dir == CH_DIR_IN || strstr(out->type, "restrict"))
            continue;
        for (size_t i = 0; i < c->n_params && with[q] < 0; i++) {
            const ch_ck_param *in = &c->params[i];
            int taken = 0;
            for (size_t k = 0; k < q; k++)
                taken |= with[k] == (int)i;
            if (in->role != CH_ROLE_SCALAR && in->dir == CH_DIR_IN && in->elem == out->elem &&
                !strstr(in->type, "restrict") && !taken)
                with[q] = (int)i;
        }
        n += with[q] >= 0;
    }
    return n;
}

/* The pointers passed (`NAME_a`): each buffer's own, but in alias mode an output or in-out
 * buffer's for the input paired with it (ch_reference_alias_pairs) where the two have one
 * length, the output then holding the input's values: the call a C caller makes with one array
 * for both, which a prototype without restrict allows (attacks8 #27). The input's own buffer
 * keeps its values, and is written back as it was. */
static void add_alias_pointers(ch_strbuf *o, const ch_checklist *c)
{
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].role != CH_ROLE_SCALAR)
            ch_strbuf_addf(o, "    %s *%s_a = %s_h;\n", buffer_type(&c->params[i]),
                           c->params[i].name, c->params[i].name);
    int *with = ch_xcalloc(c->n_params ? c->n_params : 1, sizeof *with);
    ch_reference_alias_pairs(c, with);
    for (size_t q = 0; q < c->n_params; q++) {
        if (with[q] < 0)
            continue;
        const char *out = c->params[q].name, *in = c->params[with[q]].name;
        ch_strbuf_addf(o,
                       "    if (ch_alias && %s_h && %s_h && ch_count_%s == ch_count_%s) {\n"
                       "        memcpy(%s_h, %s_h, ch_count_%s * sizeof(*%s_h));\n"
                       "        %s_a = %s_h;\n"
                       "    }\n",
                       out, in, out, in, out, in, in, in, in, out);
    }
    free(with);
}

/* The carved modes' layout: `ch_at_NAME`, the offset of every buffer in one allocation
 * `ch_block` (the program's buffers carved from one malloc, as users' programs often are),
 * each right after the one before it, in parameter order (ch_carve 1) or reversed (2). A
 * reference whose result depends on where its buffers lie (attacks7 #14: `y == x + n`) then
 * shows it. */
static void add_carving(ch_strbuf *o, const ch_checklist *c)
{
    ch_strbuf_adds(o, "    size_t ch_end = 0;\n");
    for (size_t i = 0; i < c->n_params; i++)
        if (c->params[i].role != CH_ROLE_SCALAR)
            ch_strbuf_addf(o, "    size_t ch_at_%s = 0;\n", c->params[i].name);
    for (int rev = 0; rev < 2; rev++) {
        ch_strbuf_addf(o, "    %sif (ch_carve == %d) {\n", rev ? "else " : "", rev + 1);
        for (size_t k = 0; k < c->n_params; k++) {
            const ch_ck_param *p = &c->params[rev ? c->n_params - 1 - k : k];
            if (p->role == CH_ROLE_SCALAR)
                continue;
            const char *t = buffer_type(p);
            ch_strbuf_addf(o,
                           "        ch_at_%s = ch_carve_at(&ch_end, ch_count_%s, sizeof(%s), "
                           "_Alignof(%s));\n",
                           p->name, p->name, t, t);
        }
        ch_strbuf_adds(o, "    }\n");
    }
    ch_strbuf_adds(o, "    unsigned char *ch_block =\n"
                      "        ch_carve ? (unsigned char *)ch_guarded(ch_end, 1, 1) : NULL;\n"
                      "    if (ch_carve && !ch_block)\n        return 2;\n");
}

/* sample: the name of the sample bridge, or NULL when the checklist names no sample function;
 * leaks: judge what the call leaves allocated (a model-written reference). */
static void gen_main(const ch_checklist *c, const char *fn, const char *sample, int leaks,
                     ch_strbuf *o)
{
    ch_strbuf_addf(
        o,
        "/* Reference program for `%s`, generated by ch-cc: `ref SETDIR` reads "
        "SETDIR/P.bin, calls the\n * oracle, writes SETDIR/P.out.bin for every "
        "buffer. `ref SETDIR time` instead times the\n * call (the host path's cost, "
        "for the launcher's dispatch by size) and writes nothing. `ref SETDIR\n"
        " * low` is the first with every buffer against a guard page before its first "
        "element\n * rather than after its last. `ref SETDIR carved` (carved-rev) "
        "takes every buffer from one\n * allocation, each right after the one before "
        "it in parameter order (reversed); `ref\n * SETDIR ftz` calls it with "
        "subnormals flushed to zero, as a -ffast-math program does;\n * round-up, round-down, "
        "round-zero and trap in that floating-point environment (ch_fp_env); empty\n"
        " * with NULL for every buffer of no element; alias with an input and an output in one\n"
        " * buffer; small-stack on a small stack; nomem with every allocation of a test author's\n"
        " * reference failing.%s */\n"
        "#define _DEFAULT_SOURCE\n"
        "#define _POSIX_C_SOURCE 200809L\n"
        "#include <fenv.h>\n#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n"
        "#include <stdlib.h>\n#include <string.h>\n#include <sys/mman.h>\n"
        "#include <time.h>\n#include <unistd.h>\n"
        "#if defined(__GLIBC__)\n#include <execinfo.h>\n#endif\n\n",
        c->name,
        sample ? " `ref SETDIR sample` calls the user's sample function on the\n * "
                 "inputs and writes them back to SETDIR/P.bin."
               : "");
    ch_scaffold_bufio_code(o);
    ch_strbuf_adds(o, "\n");
    ch_strbuf_adds(o, guard_code);
    ch_strbuf_addf(o, "\n#define CH_SMALL_STACK_KIB %d\n", CH_REF_SMALL_STACK_KIB);
    ch_strbuf_adds(o, small_stack_code);
    if (leaks) {
        ch_strbuf_adds(o, alloc_code);
        ch_strbuf_adds(o, leak_code);
    }
    ch_strbuf_addf(o, "\nvoid %s(", fn);
    add_c_params(o, c, 0);
    ch_strbuf_adds(o, ");\n");
    if (sample) {
        ch_strbuf_addf(o, "void %s(", sample);
        add_c_params(o, c, 1);
        ch_strbuf_adds(o, ");\n");
    }
    ch_strbuf_addf(
        o,
        "\nint main(int argc, char **argv)\n{\n"
        "    char ch_pb[4096];\n"
        "    const char *ch_mode = argc == 3 ? argv[2] : \"\";\n"
        "    const int ch_timing = strcmp(ch_mode, \"time\") == 0;\n"
        "    const int ch_low = strcmp(ch_mode, \"low\") == 0;\n"
        "    const int ch_carve = strcmp(ch_mode, \"carved\") == 0       ? 1\n"
        "                         : strcmp(ch_mode, \"carved-rev\") == 0 ? 2\n"
        "                                                                : 0;\n"
        "    const int ch_ftz = strcmp(ch_mode, \"ftz\") == 0;\n"
        "    const int ch_env = ch_fp_env(ch_mode, 0);\n"
        "    const int ch_empty = strcmp(ch_mode, \"empty\") == 0;\n"
        "    const int ch_alias = strcmp(ch_mode, \"alias\") == 0;\n"
        "    const int ch_low_stack = strcmp(ch_mode, \"small-stack\") == 0;\n"
        "    const int ch_no_memory = strcmp(ch_mode, \"nomem\") == 0;\n"
        "    if (argc != 2 &&\n"
        "        !(argc == 3 && (ch_timing || ch_low || ch_carve || ch_ftz || ch_env || "
        "ch_empty ||\n"
        "                        ch_alias || ch_low_stack || ch_no_memory%s))) {\n"
        "        fprintf(stderr, \"usage: %%s SETDIR [time|low|carved|carved-rev|ftz|round-up|\"\n"
        "                        "
        "\"round-down|round-zero|trap|empty|alias|small-stack|nomem%s]\\n\",\n"
        "                argv[0]);\n"
        "        return 2;\n"
        "    }\n"
        "    const char *ch_sd = argv[1];\n"
        "    ch_catch_faults();\n",
        sample ? " || strcmp(ch_mode, \"sample\") == 0" : "", sample ? "|sample" : "");
    ch_scaffold_emit_inputs(o, c, "ch_sd", "    ", 0);
    add_carving(o, c);
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        const char *t = buffer_type(p);
        ch_strbuf_addf(o,
                       "    const int ch_null_%s = ch_empty && ch_count_%s == 0;\n"
                       "    %s *%s_h = (%s *)(ch_null_%s ? NULL\n"
                       "                      : ch_carve ? (void *)(ch_block + ch_at_%s)\n"
                       "                      : ch_guarded(ch_count_%s, sizeof(%s), ch_low));\n"
                       "    if (!%s_h && !ch_null_%s)\n        return 2;\n",
                       p->name, p->name, t, p->name, t, p->name, p->name, p->name, t, p->name,
                       p->name);
        if (p->dir != CH_DIR_OUT)
            ch_strbuf_addf(o,
                           "    ch_buf_read_into(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                           "\".bin\"), \"%s\", sizeof(%s), %s_h, ch_count_%s);\n",
                           p->name, ch_scalar_tag(p->elem), t, p->name, p->name);
    }
    if (sample) {
        /* sample mode: the user's function fills the inputs, which replace the set's */
        ch_strbuf_adds(o, "    if (strcmp(ch_mode, \"sample\") == 0) {\n");
        add_buffer_call(o, c, sample, "        ", "_h");
        for (size_t i = 0; i < c->n_params; i++) {
            const ch_ck_param *p = &c->params[i];
            if (p->role != CH_ROLE_SCALAR && p->dir != CH_DIR_OUT)
                ch_strbuf_addf(o,
                               "        ch_buf_write(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", "
                               "\".bin\"), \"%s\", sizeof(*%s_h), %s_h, ch_count_%s);\n",
                               p->name, ch_scalar_tag(p->elem), p->name, p->name, p->name);
        }
        ch_strbuf_adds(o, "        return 0;\n    }\n");
    }
    /* a test author's reference becomes the user's host path: one that writes an input
     * (through y[(x - y) + i], no cast to see, attacks6 #17) would clear the caller's data on
     * every call, so its inputs are handed over read-only and such a write faults (not when
     * carved: an input shares its pages with its neighbours there, and the agreement check
     * compares what is left in every buffer) */
    for (size_t i = 0; leaks && i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role != CH_ROLE_SCALAR && p->dir == CH_DIR_IN)
            ch_strbuf_addf(o,
                           "    if (!ch_carve && %s_h)\n"
                           "        ch_read_only(%s_h, ch_count_%s, sizeof(*%s_h), \"%s\");\n",
                           p->name, p->name, p->name, p->name, p->name);
    }
    add_alias_pointers(o, c);
    ch_strbuf_adds(o, "    if (ch_ftz)\n        ch_flush_subnormals();\n"
                      "    if (ch_low_stack)\n        ch_small_stack();\n"
                      "    ch_fp_env(ch_mode, 1);\n");
    /* time mode: the best of a few calls (one when a call takes over 100 ms) */
    if (leaks)
        ch_strbuf_adds(o, "    const long long ch_heap0 = ch_heap_in_use();\n");
    ch_strbuf_adds(o, "    double ch_best = -1;\n"
                      "    for (int ch_k = 0; ch_k < (ch_timing ? 5 : 1); ch_k++) {\n"
                      "        struct timespec ch_t0, ch_t1;\n"
                      "        clock_gettime(CLOCK_MONOTONIC, &ch_t0);\n");
    if (leaks)
        ch_strbuf_adds(o, "        ch_nomem = ch_no_memory;\n");
    add_buffer_call(o, c, fn, "        ", "_a");
    if (leaks)
        ch_strbuf_adds(o, "        ch_nomem = 0;\n");
    ch_strbuf_adds(o, "        clock_gettime(CLOCK_MONOTONIC, &ch_t1);\n"
                      "        double ch_ms = (double)(ch_t1.tv_sec - ch_t0.tv_sec) * 1e3 +\n"
                      "                       (double)(ch_t1.tv_nsec - ch_t0.tv_nsec) / 1e6;\n"
                      "        if (ch_best < 0 || ch_ms < ch_best)\n"
                      "            ch_best = ch_ms;\n"
                      "        if (ch_ms > 100)\n"
                      "            break;\n"
                      "    }\n"
                      "    ch_fp_env_leave();\n"
                      "    if (ch_timing) {\n"
                      "        printf(\"ch-time: host_ms=%.6f\\n\", ch_best);\n"
                      "        return 0;\n"
                      "    }\n");
    if (leaks)
        ch_strbuf_adds(o, "    if (ch_heap_in_use() > ch_heap0) {\n"
                          "        fprintf(stderr, \"the call left %lld bytes allocated (a malloc "
                          "without its free), on every call of the user's program\\n\",\n"
                          "                ch_heap_in_use() - ch_heap0);\n"
                          "        return 5;\n"
                          "    }\n");
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        ch_strbuf_addf(
            o,
            "    ch_buf_write(ch_path(ch_pb, sizeof ch_pb, ch_sd, \"%s\", \".out.bin\"), "
            "\"%s\", sizeof(*%s_h), %s_h, ch_count_%s);\n",
            p->name, ch_scalar_tag(p->elem), p->name, p->name, p->name);
    }
    ch_strbuf_adds(o, "    return 0;\n}\n");
}

/* The one line of a failed compile or link that says why: an undefined symbol named as the
 * user can act on it (the oracle links the user's translation unit alone), else the tool's
 * first `error:` line, else its first line. The whole output stays in the log. */
static void failure_summary(const char *out, ch_strbuf *why)
{
    const char *undef = strstr(out, "undefined reference to `");
    if (undef) {
        undef += strlen("undefined reference to `");
        size_t n = strcspn(undef, "'\n");
        ch_strbuf_addf(why,
                       "'%.*s' is not defined in this file, and the reference program links "
                       "the file alone",
                       (int)n, undef);
        return;
    }
    const char *line = strstr(out, "error:");
    while (line && line > out && line[-1] != '\n')
        line--;
    line = line ? line : out;
    ch_strbuf_add(why, line, strcspn(line, "\n"));
}

/* Runs argv capturing output into log; nonzero exit is an error naming what. With box (the
 * directory of a test author's reference, which is model-written source), it runs there in the
 * sandbox as a compiler; without, as the user's own compile of the user's own file. */
static int run_step(char *const *argv, const char *what, const char *box, ch_strbuf *log,
                    ch_error *err)
{
    ch_proc_result r;
    ch_proc_result_init(&r);
    int rc;
    if (box) {
        ch_sandbox_opts so;
        ch_sandbox_opts_compiler(&so, box, 300);
        rc = ch_sandbox_run(&so, argv, &r, err);
    } else {
        ch_proc_opts po;
        memset(&po, 0, sizeof po);
        po.capture_stdout = 1;
        po.merge_stderr = 1;
        po.stdin_path = "/dev/null";
        po.wall_seconds = 300;
        rc = ch_proc_run(argv, &po, &r, err);
    }
    if (rc == 0 && r.exit_code != 0) {
        ch_strbuf why;
        ch_strbuf_init(&why);
        failure_summary(r.out.data ? r.out.data : "", &why);
        rc = ch_error_set(err, "reference: %s failed (exit %d)%s%s", what, r.exit_code,
                          why.len ? ": " : "", why.len ? why.data : "");
        ch_strbuf_free(&why);
    }
    if (log)
        ch_strbuf_add(log, r.out.data, r.out.len);
    ch_proc_result_free(&r);
    return rc;
}

/* Compiles the user's translation unit into obj with the user's flags: with the oracle bridge
 * force-included (bridge_h, NULL for a spec-decl entry whose oracle is the test author's) and,
 * when unit is given, through that file (the user's file plus the sample bridge). Debug
 * information (-g) lets a crash on synthesized data be reported with its line; it does not
 * change the code. */
static int compile_user_tu(const ch_oracle *o, const char *bridge_h, const char *unit,
                           const char *obj, ch_strbuf *log, ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    for (char *const *a = o->cc_argv; a && *a; a++)
        ch_strvec_push(&argv, *a);
    if (!argv.len)
        ch_strvec_push(&argv, "cc");
    /* the pragma is for ch-cc, not for -Werror builds of the oracle; a section per
     * function, so the link below can drop the user's main and whatever it alone calls
     * (PolyBench's main calls polybench.c, which is not linked here) */
    if (o->cuda) {
        /* CUDA C++ whatever its suffix (`-x cu file.c`) */
        ch_strvec_push(&argv, "-x");
        ch_strvec_push(&argv, "cu");
        ch_strvec_push(&argv, "-Xcompiler");
        ch_strvec_push(&argv, "-Wno-unknown-pragmas,-ffunction-sections,-fdata-sections");
    } else {
        ch_strvec_push(&argv, "-Wno-unknown-pragmas");
        ch_strvec_push(&argv, "-ffunction-sections");
        ch_strvec_push(&argv, "-fdata-sections");
    }
    ch_strvec_push(&argv, "-g");
    if (bridge_h) {
        ch_strvec_push(&argv, "-include");
        ch_strvec_push(&argv, bridge_h);
    }
    ch_strvec_push(&argv, "-c");
    ch_strvec_push(&argv, unit ? unit : o->tu_path);
    ch_strvec_push(&argv, "-o");
    ch_strvec_push(&argv, obj);
    int rc = run_step(argv.items, "compiling the oracle", NULL, log, err);
    ch_strvec_free(&argv);
    if (rc)
        return rc;
    /* the user's main (if any) must not clash with ours */
    char *rn[] = {"objcopy", "--redefine-sym", "main=ch_user_main", (char *)obj, NULL};
    return run_step(rn, "renaming main", NULL, log, err);
}

static int probe(const ch_checklist *c, const char *exe, const char *dir, ch_strbuf *log,
                 ch_error *err);

/* The test author's allocation calls in obj pointed at alloc_code's (only in this program: the
 * host path linked into the user's is compiled apart). 0 or -1 with err. */
static int rename_allocations(const char *obj, ch_strbuf *log, ch_error *err)
{
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, "objcopy");
    for (size_t i = 0; alloc_renamed[i]; i++) {
        char *pair = ch_xasprintf("%s=ch_ref_%s", alloc_renamed[i], alloc_renamed[i]);
        ch_strvec_push(&argv, "--redefine-sym");
        ch_strvec_push(&argv, pair);
        free(pair);
    }
    ch_strvec_push(&argv, obj);
    int rc = run_step(argv.items, "renaming the reference's allocations", NULL, log, err);
    ch_strvec_free(&argv);
    return rc;
}

/* Builds o's reading of the spec in dir/reading and compares the reference exe with it
 * (ch_reference_agree). A reading that does not build is ch-cc's own fault, not the test
 * author's: the comparison is skipped, with a line in log. */
static int agree_with_reading(const ch_checklist *c, const ch_oracle *o, const char *dir,
                              const char *exe, ch_strbuf *log, ch_error *err)
{
    ch_oracle ro = {.cc_argv = o->cc_argv, .reference_c = o->reading_c, .own = 1};
    char *rdir = ch_path_join(dir, "reading"), *reading_exe = NULL;
    ch_error e2;
    int rc = 0;
    if (ch_reference_build(c, &ro, rdir, &reading_exe, log, &e2) != 0) {
        if (log)
            ch_strbuf_addf(log, "reference: not compared with ch-cc's reading of the spec: %s\n",
                           e2.msg);
    } else {
        rc = ch_reference_agree(c, exe, o->reference_c, reading_exe, o->reading_how, rdir, err);
    }
    free(reading_exe);
    free(rdir);
    return rc;
}

int ch_reference_build(const ch_checklist *c, const ch_oracle *o, const char *dir, char **exe,
                       ch_strbuf *log, ch_error *err)
{
    *exe = NULL;
    if (!o->tu_path && !o->reference_c)
        return ch_error_set(err, "reference: entry %s has neither a body nor a reference source",
                            c->name);
    if (c->sample && !o->tu_path)
        return ch_error_set(err,
                            "reference: sample(%s) of %s needs the user's file, and the oracle "
                            "was given none",
                            c->sample, c->name);
    /* the user's body is the oracle unless a test author wrote one (spec-decl); the user's
     * file is still compiled then when it holds the sample function */
    int body = o->reference_c == NULL;
    const char *cc = o->cc_argv && o->cc_argv[0] ? o->cc_argv[0] : "cc";
    /* a test author's reference is compiled and linked in the sandbox, in a directory of its
     * own: the sandbox gives that directory to its unprivileged user, never dir itself */
    char *box = body ? NULL : ch_path_join(dir, "author");
    const char *bdir = box ? box : dir;
    char *main_c = ch_path_join(bdir, "ref_main.c");
    char *obj = ch_path_join(bdir, "oracle.o");
    char *user_obj = ch_path_join(bdir, "user.o");
    char *impl_c = ch_path_join(bdir, CH_REFERENCE_FILE);
    char *unit_c = ch_path_join(bdir, o->cuda ? "ref_unit.cu" : "ref_unit.c");
    char *out = ch_path_join(bdir, "ref");
    char *bridge_h = ch_path_join(bdir, "ref_bridge.h");
    char *fn =
        body ? ch_xasprintf("%s__ch_oracle", c->name) : ch_xasprintf("%s_reference", c->name);
    char *sample_fn = c->sample ? ch_xasprintf("%s__ch_sample", c->name) : NULL;
    char *tu_abs = o->tu_path ? realpath(o->tu_path, NULL) : NULL;
    ch_strbuf src;
    ch_strbuf_init(&src);
    gen_main(c, fn, sample_fn, !body, &src);
    ch_strvec argv;
    ch_strvec_init(&argv);
    int rc = box ? ch_mkdir_p(box, err) : 0;
    if (rc == 0)
        rc = ch_write_file_atomic(main_c, src.data, src.len, 0, err);
    if (rc)
        goto done;
    if (body) {
        ch_strbuf_reset(&src);
        gen_bridge(c, fn, o->cuda, &src);
        if ((rc = ch_write_file_atomic(bridge_h, src.data, src.len, 0, err)))
            goto done;
    } else {
        ch_strvec_push(&argv, cc);
        ch_strvec_push(&argv, "-O2");
        ch_strvec_push(&argv, "-g");
        ch_strvec_push(&argv, "-std=gnu11");
        ch_strvec_push(&argv, "-c");
        /* by its plain name in its own directory (the compile's working directory): its
         * __FILE__ is the one it reads where it is linked (#line in the emitted units) */
        ch_strvec_push(&argv, CH_REFERENCE_FILE);
        ch_strvec_push(&argv, "-o");
        ch_strvec_push(&argv, obj);
        ch_strbuf seen;
        ch_strbuf_init(&seen);
        ch_guard_finding found;
        ch_subset_finding subset;
        /* a reference from anywhere (a cache, a file) is guarded as the model's is: what the
         * compiler may read, then what its code may do (it becomes the user's host path) */
        if (ch_source_guard(o->reference_c, CH_GUARD_REFERENCE, &seen, &found) ||
            ch_host_subset_check_bounded(o->reference_c, CH_SUBSET_REFERENCE, NULL, 0, NULL, &seen,
                                         &subset))
            rc = ch_error_set(err, "reference: the test author's reference for %s is refused: %s",
                              c->name, seen.data);
        ch_strbuf_free(&seen);
        if (rc)
            goto done;
        if ((rc = ch_write_file_atomic(impl_c, o->reference_c, strlen(o->reference_c), 0, err)) ||
            (rc = run_step(argv.items, "compiling the oracle", box, log, err)))
            goto done;
        ch_strbuf why;
        ch_strbuf_init(&why);
        /* it runs here and becomes the host path of the user's program: judged as compiled */
        if (ch_object_check_as(obj, CH_OBJECT_REFERENCE, NULL, 0, &why) != 0)
            rc = ch_error_set(err, "reference: the test author's reference for %s is refused: %s",
                              c->name, why.data);
        ch_strbuf_free(&why);
        if (rc || (rc = rename_allocations(obj, log, err)))
            goto done;
    }
    if (c->sample) {
        ch_strbuf_reset(&src);
        gen_sample_unit(c, tu_abs ? tu_abs : o->tu_path, sample_fn, o->cuda, &src);
        if ((rc = ch_write_file_atomic(unit_c, src.data, src.len, 0, err)))
            goto done;
    }
    if (o->tu_path && (body || c->sample) &&
        (rc = compile_user_tu(o, body ? bridge_h : NULL, c->sample ? unit_c : NULL,
                              body ? obj : user_obj, log, err)))
        goto done;
    /* link */
    ch_strvec_free(&argv);
    ch_strvec_init(&argv);
    /* a CUDA oracle links through nvcc (its runtime and C++ library); nvcc compiles the
     * generated main as C */
    ch_strvec_push(&argv, o->cuda && o->cc_argv ? o->cc_argv[0] : cc);
    ch_strvec_push(&argv, "-O1");
    if (!o->cuda)
        ch_strvec_push(&argv, "-std=gnu11");
    ch_strvec_push(&argv, "-w");
    ch_strvec_push(&argv, "-o");
    ch_strvec_push(&argv, out);
    ch_strvec_push(&argv, o->cuda ? "-Xlinker=--gc-sections" : "-Wl,--gc-sections");
    ch_strvec_push(&argv, main_c);
    ch_strvec_push(&argv, obj);
    if (!body && c->sample)
        ch_strvec_push(&argv, user_obj);
    ch_strvec_push(&argv, "-lm");
    if ((rc = run_step(argv.items, "linking the reference program", box, log, err)))
        goto done;
    if ((rc = probe(c, out, dir, log, err)))
        goto done;
    /* a test author's reference whose outputs depend on memory nothing wrote */
    if (!body && !o->cuda && !o->own &&
        (rc = ch_reference_msan_check(c, main_c, impl_c, box, log, err)))
        goto done;
    /* or that computes something else than ch-cc's own reading of the spec */
    if (!body && !o->cuda && !o->own && o->reading_c &&
        (rc = agree_with_reading(c, o, dir, out, log, err)))
        goto done;
    *exe = out;
    out = NULL;
done:
    ch_strvec_free(&argv);
    ch_strbuf_free(&src);
    free(box);
    free(main_c);
    free(obj);
    free(user_obj);
    free(impl_c);
    free(unit_c);
    free(bridge_h);
    free(out);
    free(fn);
    free(sample_fn);
    free(tu_abs);
    return rc;
}

/* ---- running it: sample inputs, the probe, what a failure means ---- */

static char *failure_text(const ch_checklist *c, const char *exe, const ch_proc_result *pr,
                          const ch_ck_size *size, int sampling);

/* Runs `exe set [mode]` in the sandbox with set as its directory. */
static int run_ref(const char *exe, const char *set, const char *mode, double seconds,
                   ch_proc_result *pr, ch_error *err)
{
    ch_sandbox_opts so;
    ch_sandbox_opts_cpu(&so, set, seconds);
    /* glibc's per-thread cache holds freed chunks as in use: without it, the bytes in use after
     * a call are what the call left allocated (leak_code); the timing keeps the cache */
    static char *const no_tcache[] = {"GLIBC_TUNABLES=glibc.malloc.tcache_count=0", NULL};
    if (!mode || strcmp(mode, "time") != 0)
        so.extra_env = no_tcache;
    char *argv[] = {(char *)exe, (char *)set, (char *)mode, NULL};
    ch_proc_result_init(pr);
    return ch_sandbox_run(&so, argv, pr, err);
}

int ch_reference_inputs(const ch_checklist *c, const char *exe, const ch_ck_size *size,
                        uint64_t seed, ch_dataset *out, ch_error *err)
{
    return ch_reference_inputs_shaped(c, exe, size, seed, CH_DATA_RANDOM, out, err);
}

int ch_reference_inputs_shaped(const ch_checklist *c, const char *exe, const ch_ck_size *size,
                               uint64_t seed, ch_data_shape shape, ch_dataset *out, ch_error *err)
{
    if (ch_data_synthesize_shaped(c, size, seed, shape, out, err) != 0)
        return -1;
    if (!c->sample)
        return 0;
    char *set = ch_make_temp_dir("sample", err);
    if (!set) {
        ch_dataset_free(out);
        return -1;
    }
    ch_proc_result pr;
    int rc = ch_dataset_write(c, out, set, err);
    /* the reference's probe runs get 60 s (probe); filling one set of inputs is less work
     * than computing it, and a sample function that never returns (attacks5 sb03) must not
     * hold the build for long */
    if (rc == 0 && (rc = run_ref(exe, set, "sample", 30, &pr, err)) == 0) {
        if (pr.timed_out || pr.signaled || pr.exit_code != 0) {
            char *why = failure_text(c, exe, &pr, size, 1);
            rc = ch_error_set(err, "%s", why);
            free(why);
        }
        ch_proc_result_free(&pr);
    }
    for (size_t i = 0; rc == 0 && i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR || p->dir == CH_DIR_OUT)
            continue;
        char *path = ch_xasprintf("%s/%s.bin", set, p->name);
        void *data = NULL;
        rc = ch_buf_read(path, p->elem, out->count[i], &data, NULL, err);
        free(path);
        if (rc == 0) {
            free(out->data[i]);
            out->data[i] = data;
        }
    }
    ch_error ignored;
    ch_remove_tree(set, &ignored);
    free(set);
    if (rc)
        ch_dataset_free(out);
    return rc;
}

/* Runs the new reference program on every smoke size, with buffers against guard pages after
 * their last element and then before their first, before any candidate is judged: a body that
 * reads outside its buffers on the synthesized inputs is an error now, with its line, rather
 * than a crash in the middle of the correctness stage or, worse, a silently wrong oracle.
 * The seed is fixed: the same entry gets the same verdict on every build. */
static int probe(const ch_checklist *c, const char *exe, const char *dir, ch_strbuf *log,
                 ch_error *err)
{
    static const char *const modes[] = {NULL, "low"};
    char *set = ch_path_join(dir, "probe");
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < c->n_smoke; k++) {
        ch_dataset ds;
        if ((rc = ch_reference_inputs(c, exe, &c->smoke[k], 0x5eedULL + k, &ds, err)) != 0)
            break;
        for (size_t m = 0; rc == 0 && m < 2; m++) {
            ch_proc_result pr;
            if ((rc = ch_mkdir_p(set, err)) != 0 ||
                (rc = ch_dataset_write(c, &ds, set, err)) != 0 ||
                (rc = run_ref(exe, set, modes[m], 60, &pr, err)) != 0)
                break;
            if (pr.timed_out || pr.signaled || pr.exit_code != 0) {
                if (log)
                    ch_strbuf_add(log, pr.err.data, pr.err.len);
                char *why = ch_reference_failure(c, exe, &pr, &c->smoke[k]);
                rc = ch_error_set(err, "%s", why);
                free(why);
            }
            ch_proc_result_free(&pr);
            ch_error ignored;
            ch_remove_tree(set, &ignored);
        }
        ch_dataset_free(&ds);
    }
    free(set);
    return rc;
}

/* The frames of a `ch-ref-fault:` line as addresses in exe's own numbering (what addr2line
 * takes): a position-independent program is loaded at `base`. The third frame is where the
 * fault happened (after the handler and the signal trampoline); the others are return
 * addresses, moved back into their call. Returns how many. */
static size_t fault_frames(const char *text, const char *exe, unsigned long long *addrs, size_t max)
{
    const char *l = text ? strstr(text, "ch-ref-fault: signal ") : NULL;
    const char *b = l ? strstr(l, " base ") : NULL;
    const char *f = b ? strstr(b, " frames") : NULL;
    if (!f)
        return 0;
    unsigned long long base = strtoull(b + 6, NULL, 16);
    unsigned char hdr[18] = {0};
    FILE *fp = fopen(exe, "rb");
    size_t got = fp ? fread(hdr, 1, sizeof hdr, fp) : 0;
    if (fp)
        fclose(fp);
    int pie = got == sizeof hdr && (hdr[16] | hdr[17] << 8) == 3; /* ET_DYN */
    size_t n = 0, i = 0;
    for (const char *p = f + 7; *p == ' ' && n < max; i++) {
        char *end;
        unsigned long long a = strtoull(p + 1, &end, 16);
        if (end == p + 1)
            break;
        p = end;
        if (pie && a < base)
            continue; /* a shared library below the program */
        a -= pie ? base : 0;
        addrs[n++] = i == 2 || a == 0 ? a : a - 1;
    }
    return n;
}

/* "in spmv at t.c:9": the first frame of the fault line that addr2line places in code that
 * is not ch-cc's own (the generated main and bridges). */
static char *fault_place(const ch_checklist *c, const char *exe, const char *text)
{
    unsigned long long addrs[20];
    size_t n = fault_frames(text, exe, addrs, 20);
    if (!n)
        return NULL;
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, "addr2line");
    ch_strvec_push(&argv, "-f");
    ch_strvec_push(&argv, "-C");
    ch_strvec_push(&argv, "-e");
    ch_strvec_push(&argv, exe);
    for (size_t i = 0; i < n; i++)
        ch_strvec_push_owned(&argv, ch_xasprintf("0x%llx", addrs[i]));
    ch_strbuf out;
    ch_strbuf_init(&out);
    ch_error err;
    char *place = NULL;
    char *oracle = ch_xasprintf("%s__ch_", c->name);
    if (ch_proc_capture(argv.items, &out, &err) == 0 && out.data) {
        char *save = NULL, *text2 = ch_xstrdup(out.data);
        for (char *func = strtok_r(text2, "\n", &save); func && !place;
             func = strtok_r(NULL, "\n", &save)) {
            char *where = strtok_r(NULL, "\n", &save);
            if (!where)
                break;
            where[strcspn(where, " ")] = '\0'; /* "(discriminator 2)" */
            const char *base = strrchr(where, '/') ? strrchr(where, '/') + 1 : where;
            int ours = strncmp(func, "ch_", 3) == 0 || strcmp(func, "main") == 0 ||
                       strncmp(func, oracle, strlen(oracle)) == 0 || strncmp(base, "ref_", 4) == 0;
            if (!ours && where[0] != '?' && !strstr(where, ":?") && !strstr(where, ":0"))
                place = ch_xasprintf("in %s at %s", func, where);
        }
        free(text2);
    }
    free(oracle);
    ch_strbuf_free(&out);
    ch_strvec_free(&argv);
    return place;
}

/* What the user can say about valid inputs, naming the parameters it may concern: integer
 * input arrays without a known structure first (indices, offsets), else floating ones. */
static void clause_advice(const ch_checklist *c, ch_strbuf *sb)
{
    ch_strbuf names;
    ch_strbuf_init(&names);
    const char *first_int = NULL, *first_float = NULL;
    for (size_t i = 0; i < c->n_params; i++) {
        const ch_ck_param *p = &c->params[i];
        if (p->role == CH_ROLE_SCALAR || p->dir == CH_DIR_OUT || p->index_hi || p->offsets_hi)
            continue;
        if (ch_scalar_is_integer(p->elem) && !first_int)
            first_int = p->name;
        if (!ch_scalar_is_integer(p->elem) && !first_float)
            first_float = p->name;
        if (ch_scalar_is_integer(p->elem))
            ch_strbuf_addf(&names, "%s%s", names.len ? ", " : "", p->name);
    }
    if (c->sample) {
        ch_strbuf_addf(sb,
                       "the inputs need a clause: the inputs sample(%s) fills are not valid "
                       "for the body (or an extent() is too small); correct %s, or describe "
                       "the inputs with range() and offsets()",
                       c->sample, c->sample);
    } else {
        ch_strbuf_adds(sb, "the inputs need a clause: random values are not valid inputs here, "
                           "and inference cannot see what valid means");
        if (names.len)
            ch_strbuf_addf(sb, " for %s", names.data);
        ch_strbuf_adds(sb, "; say it in the #pragma harness with ");
        if (first_int)
            ch_strbuf_addf(sb,
                           "range(%s: LO, HI) (values in [LO, HI), such as indices into "
                           "another array), offsets(%s: LAST) (non-decreasing from 0 to LAST, "
                           "such as CSR row pointers), perm(%s: N) (distinct values in [0, N), "
                           "such as a permutation a scatter writes through), ",
                           first_int, first_int, first_int);
        else if (first_float)
            ch_strbuf_addf(sb, "range(%s: LO, HI) (values between LO and HI), ", first_float);
        ch_strbuf_addf(sb,
                       "or sample(FN) (FN a function of this file with the parameters of %s "
                       "that fills valid inputs); or correct an extent() that is too small",
                       c->name);
    }
    ch_strbuf_free(&names);
}

/* The input buffer whose read-only pages a write faulted on (" writes NAME" on the fault
 * line), or NULL; caller frees. */
static char *written_input(const char *text)
{
    const char *l = text ? strstr(text, "ch-ref-fault: signal ") : NULL;
    const char *w = l ? strstr(l, " writes ") : NULL;
    const char *eol = l ? strchr(l, '\n') : NULL;
    if (!w || (eol && w > eol))
        return NULL;
    w += strlen(" writes ");
    return ch_xstrndup(w, strcspn(w, " \n"));
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case 4:
        return "SIGILL";
    case 6:
        return "SIGABRT";
    case 7:
        return "SIGBUS";
    case 8:
        return "SIGFPE";
    case 11:
        return "SIGSEGV";
    default:
        return "a signal";
    }
}

/* ch_reference_failure; sampling: the run was `sample` mode, so what failed is the user's
 * sample function (or the buffers it was given), not the oracle. */
static char *failure_text(const ch_checklist *c, const char *exe, const ch_proc_result *pr,
                          const ch_ck_size *size, int sampling)
{
    char *who =
        sampling ? ch_xasprintf("the sample function '%s' of '%s'", c->sample, c->name)
        : c->kind == CH_KIND_SPEC_DECL
            ? ch_xasprintf("the reference program (the test author's reference of '%s')", c->name)
            : ch_xasprintf("the reference program (the C body of '%s')", c->name);
    char *words = ch_ck_size_text(size);
    char *sizes = ch_xasprintf("%s%s", *words ? " at " : "", words);
    free(words);
    const char *errtext = pr->err.data ? pr->err.data : "";
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    char *input = NULL;
    if (pr->timed_out) {
        ch_strbuf_addf(&sb, "%s ran past its time limit%s", who, sizes);
    } else if (pr->signaled && (input = written_input(errtext)) != NULL) {
        char *place = fault_place(c, exe, errtext);
        ch_strbuf_addf(&sb,
                       "%s writes its input buffer '%s'%s%s%s: an input is the caller's data, "
                       "which the user's program keeps using after the call; a reference may "
                       "write only its outputs",
                       who, input, sizes, place ? ", " : "", place ? place : "");
        free(place);
    } else if (pr->signaled) {
        int sig = pr->exit_code - 128;
        char *place = fault_place(c, exe, errtext);
        ch_strbuf_addf(&sb, "%s crashed with %s (signal %d) on synthesized inputs%s%s%s: ", who,
                       signal_name(sig), sig, sizes, place ? ", " : "", place ? place : "");
        free(place);
        if (sampling)
            ch_strbuf_addf(&sb,
                           "correct %s: it gets every buffer allocated with its extent (and the "
                           "scalars of the test size) and must stay inside them",
                           c->sample);
        else
            clause_advice(c, &sb);
    } else {
        size_t n = strcspn(errtext, "\n");
        ch_strbuf_addf(&sb, "%s exited with status %d%s%s%.*s", who, pr->exit_code, sizes,
                       n ? ": " : "", (int)(n > 300 ? 300 : n), errtext);
    }
    free(input);
    free(who);
    free(sizes);
    char *t = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return t;
}

char *ch_reference_failure(const ch_checklist *c, const char *exe, const ch_proc_result *pr,
                           const ch_ck_size *size)
{
    return failure_text(c, exe, pr, size, 0);
}
