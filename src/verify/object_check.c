/* The object check: what a candidate's (or a model-written reference's) compiled host code can
 * do, judged from its ELF object rather than its text, which token pasting, function pointers
 * and line splices hide. Every undefined symbol must come from an allow-list (CUDA runtime entry
 * points, libc memory and math functions, the C++ runtime pieces nvcc's output needs); no
 * constructor or destructor runs at load or exit except nvcc's own fatbinary registration; no
 * syscall instruction is anywhere in executable code. The object is parsed here with <elf.h>:
 * every offset is checked against the file's size before it is read. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/verify.h"

/* A candidate's object is a few hundred KiB; anything far larger is not one. */
#define MAX_OBJECT_BYTES (256u << 20)

/* nvcc's fatbinary registration, the one constructor a CUDA object has (C++ and C spelling). */
static const char *const registration[] = {"_ZL24__sti____cudaRegisterAllv",
                                           "__sti____cudaRegisterAll", NULL};

/* Exact names a launcher or nvcc's generated code may call, beyond the prefixes below. Derived
 * from `nm -u` of the builtin translator's candidates, plus the memory and math functions of
 * libc and the C++ runtime pieces (guards, unwinding, operator new/delete) they may pull in. */
static const char *const allowed[] = {
    /* C++ runtime pieces nvcc's output and <mutex> need */
    "__gxx_personality_v0", "_Unwind_Resume", "__cxa_guard_acquire", "__cxa_guard_release",
    "__cxa_guard_abort", "__cxa_atexit", "atexit", "__dso_handle", "__cxa_begin_catch",
    "__cxa_end_catch", "__cxa_rethrow", "__cxa_pure_virtual", "_ZSt9terminatev",
    "_ZSt20__throw_system_errori", "_ZSt17__throw_bad_allocv", "__stack_chk_fail",
    "pthread_mutex_lock", "pthread_mutex_unlock", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm",
    "_ZdaPvm", "__assert_fail", "abort",
    /* (abort stays: nvcc's own host code may call it; a launcher that aborts on a condition
     * verification never meets is refused by the kept-state rule, host_flow.c) */
    /* libc memory */
    "memcpy", "memmove", "memset", "memcmp", "malloc", "calloc", "realloc", "free", "aligned_alloc",
    "posix_memalign", "abs", "labs", "llabs", NULL};

/* cuBLAS's host entry points (the _v2 names its header maps the plain ones to), allowed only in
 * a candidate that declares "ch-cc library: cublas": the translator's library variants
 * (src/translate/library.c), whose `nm -u` shows cublasCreate_v2 and cublasGemmEx, plus the
 * GEMV/SYRK/GEMM forms and the settings a library candidate may use. The library runs only
 * what these calls ask for on the device: no file, process or network access. */
static const char *const cublas_symbols[] = {"cublasCreate_v2",
                                             "cublasDestroy_v2",
                                             "cublasGetVersion_v2",
                                             "cublasSetStream_v2",
                                             "cublasGetStream_v2",
                                             "cublasSetMathMode",
                                             "cublasGetMathMode",
                                             "cublasSetPointerMode_v2",
                                             "cublasSetWorkspace_v2",
                                             "cublasGemmEx",
                                             "cublasSgemm_v2",
                                             "cublasDgemm_v2",
                                             "cublasSgemv_v2",
                                             "cublasDgemv_v2",
                                             "cublasSsyrk_v2",
                                             "cublasDsyrk_v2",
                                             "cublasGemmStridedBatchedEx",
                                             NULL};

/* A model-written reference is host C that computes: memory and math, nothing else (no I/O, no
 * processes, no environment, no ending the program: it is the user's host path). No qsort or
 * bsearch either: they call back into the reference through a function pointer, and their
 * callbacks' return addresses lead into libc (the host subset check, ch/host_subset.h, refuses the
 * callback in the source). */
static const char *const reference_allowed[] = {
    "memcpy",           "memmove", "memset",  "memcmp", "memchr",
    "malloc",           "calloc",  "realloc", "free",   "aligned_alloc",
    "posix_memalign",   "abs",     "labs",    "llabs",  "strlen",
    "__stack_chk_fail", NULL};

/* What the emitted unit adds around a verified candidate (src/emit/emit.c): the dispatcher's
 * environment switches, its trace lines on stderr, its once-only decision and the clock that
 * times the host path of cold calls (the rent toward the device's set-up, issue 14). */
static const char *const unit_allowed[] = {
    "_GLOBAL_OFFSET_TABLE_", "getenv", "fprintf", "fputs",         "fwrite", "stderr",
    "pthread_once",          "strcmp", "atoi",    "clock_gettime", NULL};

/* libm functions, each also with the f and l suffixes (sinf, sinl). */
static const char *const math[] = {
    "acos",   "asin",    "atan",  "atan2",     "cos",    "sin",      "tan",       "cosh",
    "sinh",   "tanh",    "acosh", "asinh",     "atanh",  "exp",      "exp2",      "expm1",
    "log",    "log2",    "log10", "log1p",     "pow",    "sqrt",     "cbrt",      "fabs",
    "floor",  "ceil",    "round", "trunc",     "fmod",   "fmin",     "fmax",      "fma",
    "hypot",  "erf",     "erfc",  "tgamma",    "lgamma", "copysign", "nearbyint", "rint",
    "lround", "llround", "lrint", "ldexp",     "frexp",  "modf",     "remainder", "fdim",
    "scalbn", "ilogb",   "logb",  "nextafter", NULL};

/* The CUDA runtime entry points a kernel's launcher may call: allocation, copies and memset,
 * launch and its configuration, streams and events, errors, device properties and attributes,
 * occupancy, function attributes, synchronisation, pointer attributes, pinned and registered
 * host memory, texture and surface objects. Collected from `nm -u` of the builtin translator's
 * candidates and of launchers using CUB, Thrust and cooperative groups, then widened to each
 * family a launcher may reach for. An allow-list, not a deny-list: each new runtime adds entry
 * points (cudaLogsDumpToFile writes any file it is given; cudaDeviceSetCacheConfig, peer access,
 * graph memory trims change what every kernel of the user's program runs with), and none of them
 * is a launcher's work. A name ending in '*' is a prefix; cuda_denied below is checked first. */
static const char *const cuda_allowed[] = {
    /* memory */
    "cudaMalloc*", "cudaFree*", "cudaMemcpy*", "cudaMemset*", "cudaMemGetInfo",
    "cudaMemPrefetchAsync*", "cudaMemAdvise*", "cudaHostAlloc", "cudaHostRegister",
    "cudaHostUnregister", "cudaHostGetDevicePointer", "cudaHostGetFlags",
    "cudaPointerGetAttributes", "cudaGetSymbolSize", "cudaCreateChannelDesc",
    "cudaCreateTextureObject", "cudaDestroyTextureObject", "cudaCreateSurfaceObject",
    "cudaDestroySurfaceObject",
    /* launch */
    "cudaLaunchKernel*", "cudaLaunchCooperativeKernel*", "cudaConfigureCall", "cudaSetupArgument",
    "cudaLaunch", "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
    "cudaFuncSetSharedMemConfig", "cudaFuncGetName", "cudaOccupancy*",
    /* streams, events, synchronisation */
    "cudaStreamCreate*", "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamQuery",
    "cudaStreamWaitEvent", "cudaStreamGetFlags", "cudaStreamGetPriority", "cudaStreamGetDevice",
    "cudaEventCreate*", "cudaEventDestroy", "cudaEventRecord*", "cudaEventSynchronize",
    "cudaEventQuery", "cudaEventElapsedTime*", "cudaDeviceSynchronize", "cudaThreadSynchronize",
    /* errors, device queries */
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties*", "cudaDeviceGetAttribute",
    "cudaDeviceGetLimit", "cudaDeviceGetCacheConfig", "cudaDeviceGetSharedMemConfig",
    "cudaDeviceGetStreamPriorityRange", "cudaDriverGetVersion", "cudaRuntimeGetVersion",
    "cudaDeviceCanAccessPeer", "cudaChooseDevice", "cudaGetDeviceFlags", NULL};

/* Entry points of the families above that reach past the launcher's own work anyway: a host
 * callback from a runtime thread, handing out the driver's function tables, memory shared with
 * another process, process-wide device state. Checked before cuda_allowed. */
static const char *const cuda_denied[] = {"cudaDeviceReset",
                                          "cudaThreadExit",
                                          "cudaSetDevice",
                                          "cudaSetDeviceFlags",
                                          "cudaSetValidDevices",
                                          "cudaDeviceSetLimit",
                                          "cudaThreadSetLimit",
                                          "cudaDeviceSetMemPool",
                                          "cudaInitDevice",
                                          "cudaLaunchHostFunc",
                                          "cudaStreamAddCallback",
                                          "cudaGraphAddHostNode",
                                          "cudaGraphHostNodeSetParams",
                                          "cudaGraphExecHostNodeSetParams",
                                          "cudaUserObjectCreate",
                                          "cudaGetExportTable",
                                          "cudaGetDriverEntryPoint*",
                                          "cudaGetFuncBySymbol",
                                          "cudaIpc*",
                                          "cudaImportExternal*",
                                          "cudaMemPoolImport*",
                                          "cudaMemPoolExport*",
                                          "cudaProfiler*",
                                          "cudaGraphics*",
                                          "cudaEGL*",
                                          "cudaVDPAU*",
                                          "cudaGL*",
                                          "cudaLogs*",
                                          "cudaMallocFromPoolAsync",
                                          NULL};

/* Entry points that write a module-scope device variable from the host (or hand out its
 * address for cudaMemcpy to write): a __constant__ or __device__ variable written across calls
 * is state kept between them, a counter the device-code check (ch_ptx_check) cannot see, since
 * device code only reads it (issue 15). Checked before cuda_allowed. */
static const char *const symbol_writers[] = {"cudaMemcpyToSymbol*", "cudaGetSymbolAddress", NULL};

/* Allocations of CUDA arrays (attacks9 #7): they hand back blocks with what an earlier call left
 * in them, as cudaMalloc does, and the hardening has no zeroing wrapper for them (src/verify/
 * harden.c refuses them by name): an array's layout is the driver's, with no plain memset, and
 * layered, cube, sparse and mipmapped arrays would each need their own way to clear. Checked
 * before cuda_allowed, whose cudaMalloc* they match. */
static const char *const unzeroed_allocators[] = {"cudaMallocArray", "cudaMalloc3DArray",
                                                  "cudaMallocMipmappedArray", NULL};

static int in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

/* in_list where an entry ending in '*' matches every name it begins. */
static int matches_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++) {
        size_t n = strlen(list[i]);
        if (n && list[i][n - 1] == '*' ? strncmp(list[i], name, n - 1) == 0
                                       : strcmp(list[i], name) == 0)
            return 1;
    }
    return 0;
}

static int is_math(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; math[i]; i++) {
        size_t m = strlen(math[i]);
        if (strncmp(math[i], name, m) == 0 &&
            (n == m || (n == m + 1 && (name[m] == 'f' || name[m] == 'l'))))
            return 1;
    }
    return 0;
}

/* The CUDA runtime entry points of cuda_allowed (cudaMalloc, cudaMemcpyAsync, ...) and nvcc's
 * registration and launch helpers (__cudaRegisterFunction, __cudaLaunchKernel, ...). */
int ch_object_allocator_unzeroed(const char *name)
{
    return in_list(unzeroed_allocators, name);
}

int ch_object_symbol_allowed(const char *name)
{
    if (matches_list(cuda_denied, name) || matches_list(symbol_writers, name) ||
        in_list(unzeroed_allocators, name))
        return 0;
    return matches_list(cuda_allowed, name) || strncmp(name, "__cuda", 6) == 0 ||
           in_list(allowed, name) || is_math(name);
}

/* Whether name is one of the functions in list with C++ linkage: Itanium-mangled at top level
 * ("_Z11saxpy__hostifPKfPf" for saxpy__host), as a C++ file's unit declares the user's own
 * function. */
static int mangled_in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++) {
        char prefix[300];
        int n = snprintf(prefix, sizeof prefix, "_Z%zu%s", strlen(list[i]), list[i]);
        if (n > 0 && (size_t)n < sizeof prefix && strncmp(name, prefix, (size_t)n) == 0 &&
            name[n] != '\0')
            return 1;
    }
    return 0;
}

static int symbol_allowed_as(ch_object_kind kind, const char *const *extra, const char *name)
{
    if (extra && (in_list(extra, name) || mangled_in_list(extra, name)))
        return 1;
    switch (kind) {
    case CH_OBJECT_REFERENCE:
        return in_list(reference_allowed, name) || is_math(name);
    case CH_OBJECT_UNIT:
        /* the trusted data-movement runtime (src/runtime) is linked beside the unit */
        /* a spec-decl's unit holds the reference too */
        return ch_object_symbol_allowed(name) || in_list(unit_allowed, name) ||
               in_list(reference_allowed, name) || strncmp(name, "ch_rt_", 6) == 0;
    case CH_OBJECT_CANDIDATE:
        break;
    }
    return ch_object_symbol_allowed(name);
}

static int library_symbol(const char *name, unsigned libs);

/* The function a _FORTIFY_SOURCE name stands for ("__fprintf_chk": "fprintf") into base, or 0.
 * Some distributions' compilers (Ubuntu's gcc among them) fortify by default at -O, turning
 * fprintf and memcpy into the same functions with a bounds check. */
static int fortified_base(const char *name, char *base, size_t size)
{
    size_t n = strlen(name);
    if (n <= 6 || strncmp(name, "__", 2) != 0 || strcmp(name + n - 4, "_chk") != 0 || n - 6 >= size)
        return 0;
    memcpy(base, name + 2, n - 6);
    base[n - 6] = '\0';
    return 1;
}

/* Whether an undefined symbol is allowed in an object of this kind (fortified or not). */
static int name_allowed(ch_object_kind kind, const char *const *extra, unsigned libs,
                        const char *name)
{
    char base[128];
    if (symbol_allowed_as(kind, extra, name) || library_symbol(name, libs))
        return 1;
    return fortified_base(name, base, sizeof base) && symbol_allowed_as(kind, extra, base);
}

int ch_object_name_allowed(ch_object_kind kind, unsigned libs, const char *name)
{
    return name_allowed(kind, NULL, libs, name);
}

typedef struct elf_view {
    const unsigned char *data;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh; /* e_shnum headers, bounds-checked */
} elf_view;

static int in_file(const elf_view *v, uint64_t off, uint64_t len)
{
    return off <= v->size && len <= v->size - off;
}

/* A NUL-terminated string at off in section strtab, or NULL when it runs outside. */
static const char *str_at(const elf_view *v, size_t strtab, uint64_t off)
{
    if (strtab >= v->eh->e_shnum)
        return NULL;
    const Elf64_Shdr *s = &v->sh[strtab];
    if (s->sh_type != SHT_STRTAB || off >= s->sh_size)
        return NULL;
    const char *p = (const char *)v->data + s->sh_offset + off;
    return memchr(p, '\0', s->sh_size - off) ? p : NULL;
}

static int open_view(elf_view *v, const char *text, size_t len, ch_strbuf *msg)
{
    v->data = (const unsigned char *)text;
    v->size = len;
    v->eh = (const Elf64_Ehdr *)text;
    if (len < sizeof *v->eh || memcmp(v->eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        v->eh->e_ident[EI_CLASS] != ELFCLASS64 || v->eh->e_ident[EI_DATA] != ELFDATA2LSB ||
        v->eh->e_type != ET_REL || v->eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(v, v->eh->e_shoff, (uint64_t)v->eh->e_shnum * sizeof(Elf64_Shdr)) ||
        v->eh->e_shoff % 8 != 0) {
        ch_strbuf_adds(msg, "object check: not a 64-bit relocatable ELF object");
        return 1;
    }
    v->sh = (const Elf64_Shdr *)(v->data + v->eh->e_shoff);
    for (size_t i = 0; i < v->eh->e_shnum; i++)
        if (v->sh[i].sh_type != SHT_NOBITS && !in_file(v, v->sh[i].sh_offset, v->sh[i].sh_size)) {
            ch_strbuf_addf(msg, "object check: section %zu lies outside the object", i);
            return 1;
        }
    return 0;
}

/* not inlined: gcc's -Wstring-compare misfires on the "?" of a nameless section */
__attribute__((noinline)) static int has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *section_name(const elf_view *v, size_t i)
{
    const char *n = str_at(v, v->eh->e_shstrndx, v->sh[i].sh_name);
    return n ? n : "?";
}

/* The symbol table's entries (NULL when there is none or it is malformed). */
static const Elf64_Sym *symbols(const elf_view *v, size_t *count, size_t *strtab)
{
    for (size_t i = 0; i < v->eh->e_shnum; i++) {
        const Elf64_Shdr *s = &v->sh[i];
        if (s->sh_type != SHT_SYMTAB || s->sh_entsize != sizeof(Elf64_Sym) || s->sh_offset % 8 != 0)
            continue;
        *count = s->sh_size / sizeof(Elf64_Sym);
        *strtab = s->sh_link;
        return (const Elf64_Sym *)(v->data + s->sh_offset);
    }
    return NULL;
}

unsigned ch_object_libraries_declared(const char *src)
{
    return src && strstr(src, "ch-cc library: cublas") ? CH_OBJECT_LIB_CUBLAS : 0u;
}

static int library_symbol(const char *name, unsigned libs)
{
    return (libs & CH_OBJECT_LIB_CUBLAS) && in_list(cublas_symbols, name);
}

static int check_undefined(const elf_view *v, ch_object_kind kind, const char *const *extra,
                           unsigned libs, ch_strbuf *msg)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t i = 1; sym && i < n; i++) {
        if (sym[i].st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym[i].st_info) == STB_LOCAL)
            continue;
        const char *name = str_at(v, strtab, sym[i].st_name);
        if (!name) {
            ch_strbuf_adds(msg, "object check: a symbol's name lies outside its table");
            return 1;
        }
        if (*name && matches_list(symbol_writers, name) && !(extra && in_list(extra, name))) {
            ch_strbuf_addf(msg,
                           "object check: host code calls '%s', which writes a __constant__ or "
                           "__device__ variable (state kept across calls); initialise a table in "
                           "its definition, pass values as kernel arguments",
                           name);
            return 1;
        }
        if (*name && in_list(unzeroed_allocators, name) && !(extra && in_list(extra, name))) {
            ch_strbuf_addf(msg,
                           "object check: host code calls '%s', which allocates a CUDA array "
                           "that cannot be made to start zeroed (it may hold what an earlier call "
                           "left); allocate with cudaMalloc or cudaMallocPitch",
                           name);
            return 1;
        }
        if (*name && matches_list(cuda_denied, name) && !(extra && in_list(extra, name))) {
            ch_strbuf_addf(
                msg,
                "object check: host code calls '%s', a CUDA runtime function that "
                "reaches past a launcher's own work (files, process-wide device state, host "
                "callbacks, driver tables or memory shared with other processes)",
                name);
            return 1;
        }
        if (*name && !name_allowed(kind, extra, libs, name) && strncmp(name, "cuda", 4) == 0) {
            ch_strbuf_addf(msg,
                           "object check: host code calls '%s', a CUDA runtime function not on "
                           "the launcher's allow-list (allocation, copies, launch, streams, "
                           "events, errors, device queries, occupancy): it reaches past a "
                           "launcher's own work",
                           name);
            return 1;
        }
        if (*name && !name_allowed(kind, extra, libs, name)) {
            ch_strbuf_addf(msg,
                           kind == CH_OBJECT_REFERENCE
                               ? "object check: the reference calls '%s', which a reference may "
                                 "not use (memory and math functions only)"
                               : "object check: host code calls '%s', which a kernel's launcher "
                                 "may not use (CUDA runtime, memory and math functions only)",
                           name);
            return 1;
        }
    }
    return 0;
}

/* The function an .init_array slot points at: the relocation's symbol, or for a section symbol
 * the function defined at the addend. NULL when it cannot be named. */
static const char *init_target(const elf_view *v, size_t init)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t r = 0; sym && r < v->eh->e_shnum; r++) {
        const Elf64_Shdr *s = &v->sh[r];
        if (s->sh_type != SHT_RELA || s->sh_info != init || s->sh_entsize != sizeof(Elf64_Rela) ||
            s->sh_size != sizeof(Elf64_Rela) || s->sh_offset % 8 != 0)
            continue;
        const Elf64_Rela *rel = (const Elf64_Rela *)(v->data + s->sh_offset);
        size_t k = ELF64_R_SYM(rel->r_info);
        if (k >= n)
            return NULL;
        if (ELF64_ST_TYPE(sym[k].st_info) != STT_SECTION)
            return rel->r_addend == 0 ? str_at(v, strtab, sym[k].st_name) : NULL;
        for (size_t i = 1; i < n; i++)
            if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx == sym[k].st_shndx &&
                (int64_t)sym[i].st_value == rel->r_addend)
                return str_at(v, strtab, sym[i].st_name);
    }
    return NULL;
}

/* .init and .fini: the linker splices their bytes into _init and _fini, which the C runtime
 * calls before main and after exit; a function placed there runs with no constructor entry. */
static int code_run_by_crt(const char *name)
{
    return strcmp(name, ".init") == 0 || strcmp(name, ".fini") == 0;
}

/* No code runs at load or exit but nvcc's registration: one .init_array slot pointing at it,
 * nothing in .preinit_array, .fini_array, .ctors or .dtors. */
static int check_constructors(const elf_view *v, ch_object_kind kind, ch_strbuf *msg)
{
    int registrations = 0;
    for (size_t i = 0; i < v->eh->e_shnum; i++) {
        const Elf64_Shdr *s = &v->sh[i];
        const char *name = section_name(v, i);
        int ctor = s->sh_type == SHT_INIT_ARRAY || has_prefix(name, ".init_array");
        int other = s->sh_type == SHT_FINI_ARRAY || s->sh_type == SHT_PREINIT_ARRAY ||
                    has_prefix(name, ".fini_array") || has_prefix(name, ".ctors") ||
                    has_prefix(name, ".dtors") || has_prefix(name, ".preinit_array") ||
                    code_run_by_crt(name);
        if (!s->sh_size || (!ctor && !other))
            continue;
        const char *target = ctor && s->sh_size == 8 ? init_target(v, i) : NULL;
        /* a reference is plain C: not even a registration. nvcc emits one, at the default
         * priority (.init_array itself); a second, or one at a priority (.init_array.NNNNN), is
         * a function that took the name (an asm label) to run first. */
        if (target && kind != CH_OBJECT_REFERENCE && in_list(registration, target) &&
            strcmp(name, ".init_array") == 0 && registrations++ == 0)
            continue;
        ch_strbuf_addf(msg,
                       "object check: host code runs at program %s (%s%s%s); a candidate may "
                       "not have constructors or destructors",
                       ctor ? "start" : "start or exit", name, target ? ": " : "",
                       target ? target : "");
        return 1;
    }
    return 0;
}

/* syscall, sysenter and int 0x80 anywhere in executable bytes (aligned or not: a jump into
 * the middle of an instruction reaches them too). */
static int check_syscalls(const elf_view *v, ch_strbuf *msg)
{
    for (size_t i = 0; i < v->eh->e_shnum; i++) {
        const Elf64_Shdr *s = &v->sh[i];
        if (!(s->sh_flags & SHF_EXECINSTR) || s->sh_type == SHT_NOBITS)
            continue;
        const unsigned char *p = v->data + s->sh_offset;
        for (uint64_t k = 0; k + 1 < s->sh_size; k++)
            if ((p[k] == 0x0f && (p[k + 1] == 0x05 || p[k + 1] == 0x34)) ||
                (p[k] == 0xcd && p[k + 1] == 0x80)) {
                ch_strbuf_addf(msg,
                               "object check: a system call instruction in %s at offset 0x%llx; "
                               "host code may not make system calls",
                               section_name(v, i), (unsigned long long)k);
                return 1;
            }
    }
    return 0;
}

/* Executable bytes only in .text and .text.* (where the compiler puts functions): a section of
 * another name (".init", ".gnu.linkonce.*", a name a linker script of the user's program
 * gives a meaning) is placed or run by rules the other checks do not follow. */
static int check_code_sections(const elf_view *v, ch_strbuf *msg)
{
    for (size_t i = 0; i < v->eh->e_shnum; i++) {
        const char *name = section_name(v, i);
        if (!(v->sh[i].sh_flags & SHF_EXECINSTR) || strcmp(name, ".text") == 0 ||
            has_prefix(name, ".text."))
            continue;
        ch_strbuf_addf(msg,
                       "object check: executable code in section '%s'; host code may only be "
                       "in .text",
                       name);
        return 1;
    }
    return 0;
}

/* An ifunc's resolver runs while the dynamic loader relocates the program, before any
 * constructor and in every program the object is linked into, whether the launcher is called
 * or not. */
static int check_symbol_types(const elf_view *v, ch_strbuf *msg)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t i = 1; sym && i < n; i++) {
        if (ELF64_ST_TYPE(sym[i].st_info) != STT_GNU_IFUNC)
            continue;
        const char *name = str_at(v, strtab, sym[i].st_name);
        ch_strbuf_addf(msg,
                       "object check: '%s' is an indirect function (ifunc), whose resolver runs "
                       "while the program loads; host code may not have one",
                       name ? name : "?");
        return 1;
    }
    return 0;
}

/* Functions that register code to run at exit: nvcc's registration calls atexit for its
 * unregistration; anywhere else (a static local with a destructor, a direct call, its address
 * taken) is a destructor by another name. */
static const char *const exit_registrars[] = {
    "atexit", "__cxa_atexit", "on_exit", "__cxa_thread_atexit", "__cxa_thread_atexit_impl", NULL};

/* The name of the function in section shndx whose bytes hold offset, or NULL. */
static const char *function_at(const Elf64_Sym *sym, size_t n, const elf_view *v, size_t strtab,
                               size_t shndx, uint64_t offset)
{
    for (size_t i = 1; i < n; i++)
        if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx == shndx &&
            sym[i].st_value <= offset && offset - sym[i].st_value < sym[i].st_size)
            return str_at(v, strtab, sym[i].st_name);
    return NULL;
}

static int check_exit_handlers(const elf_view *v, ch_strbuf *msg)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t r = 0; sym && r < v->eh->e_shnum; r++) {
        const Elf64_Shdr *s = &v->sh[r];
        if (s->sh_type != SHT_RELA || s->sh_entsize != sizeof(Elf64_Rela) || s->sh_offset % 8 != 0)
            continue;
        const Elf64_Rela *rel = (const Elf64_Rela *)(v->data + s->sh_offset);
        for (size_t k = 0; k < s->sh_size / sizeof *rel; k++) {
            size_t target = ELF64_R_SYM(rel[k].r_info);
            const char *name = target < n ? str_at(v, strtab, sym[target].st_name) : NULL;
            if (!name || !in_list(exit_registrars, name))
                continue;
            const char *from =
                s->sh_info < v->eh->e_shnum && (v->sh[s->sh_info].sh_flags & SHF_EXECINSTR)
                    ? function_at(sym, n, v, strtab, s->sh_info, rel[k].r_offset)
                    : NULL;
            if (from && in_list(registration, from))
                continue;
            ch_strbuf_addf(msg,
                           "object check: host code registers a function to run at program exit "
                           "(%s%s%s); a candidate may not have constructors or destructors",
                           name, from ? " in " : "", from ? from : "");
            return 1;
        }
    }
    return 0;
}

/* Functions the verification programs call (src/scaffold, the reference's harness) besides the
 * allow-lists: the timing clock, the comparison, the dumps of inputs and outputs. */
static const char *const verifier_used[] = {
    "main",     "exit",     "clock_gettime", "fopen",   "fread",   "fwrite",  "fclose",  "printf",
    "fprintf",  "snprintf", "strcmp",        "strncmp", "strncpy", "strlen",  "strstr",  "strcspn",
    "strerror", "atoi",     "getenv",        "stdout",  "stderr",  "environ", "ch_rt_*", NULL};

static int mangled(const char *name)
{
    return name[0] == '_' && name[1] == 'Z';
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Why a definition the object exports would replace another's in the program it is linked
 * into (the verification program links it unprivatized: a candidate's clock_gettime would time
 * it, its memcmp compare its outputs, its cudaMemcpy copy them back), or NULL. A candidate's
 * only external C functions are its launchers; nvcc's kernels and stubs are C++ names. */
static const char *replaced_by(ch_object_kind kind, unsigned libs, const Elf64_Sym *sym,
                               const char *name, int kernel)
{
    if (name_allowed(kind, NULL, libs, name) || ch_object_symbol_allowed(name) ||
        strncmp(name, "cuda", 4) == 0 || matches_list(cuda_denied, name) ||
        matches_list(verifier_used, name) || in_list(exit_registrars, name))
        return "a function or object the program takes from the C library, the C++ runtime, "
               "CUDA or the verifier";
    int type = ELF64_ST_TYPE(sym->st_info);
    if (kind == CH_OBJECT_CANDIDATE && !mangled(name) && !ends_with(name, "_launcher") && !kernel &&
        (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_NOTYPE))
        return "an external C function other than a launcher (declare helpers static)";
    if (kind == CH_OBJECT_CANDIDATE && !mangled(name) && name[0] == '_' &&
        (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
        return "a name reserved to the implementation";
    return NULL;
}

/* Whether name is an extern "C" __global__ function's host side: nvcc gives each kernel a
 * stub named __device_stub__Z<length><name>... (C++ linkage or not). */
static int kernel_host_side(const elf_view *v, const Elf64_Sym *sym, size_t n, size_t strtab,
                            const char *name)
{
    char stub[300];
    int len = snprintf(stub, sizeof stub, "__device_stub__Z%zu%s", strlen(name), name);
    for (size_t i = 1; len > 0 && (size_t)len < sizeof stub && i < n; i++) {
        const char *other = ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_shndx
                                ? str_at(v, strtab, sym[i].st_name)
                                : NULL;
        if (other && strstr(other, stub))
            return 1;
    }
    return 0;
}

/* What a candidate or reference defines with external linkage. A unit is privatized to its
 * entry's symbol before it joins the user's object (ch_emit_privatize), so its other
 * definitions never reach another object. */
static int check_definitions(const elf_view *v, ch_object_kind kind, unsigned libs, ch_strbuf *msg)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t i = 1; sym && kind != CH_OBJECT_UNIT && i < n; i++) {
        int type = ELF64_ST_TYPE(sym[i].st_info);
        if (sym[i].st_shndx == SHN_UNDEF || ELF64_ST_BIND(sym[i].st_info) == STB_LOCAL ||
            type == STT_SECTION || type == STT_FILE)
            continue;
        const char *name = str_at(v, strtab, sym[i].st_name);
        if (!name || !*name)
            continue;
        /* looked for only where it decides: a stub search per symbol would be quadratic */
        int kernel = kind == CH_OBJECT_CANDIDATE && !mangled(name) &&
                     !ends_with(name, "_launcher") && kernel_host_side(v, sym, n, strtab, name);
        const char *why = replaced_by(kind, libs, &sym[i], name, kernel);
        if (!why)
            continue;
        ch_strbuf_addf(msg,
                       "object check: host code defines '%s' with external linkage, %s; the "
                       "definition would replace it wherever the object is linked",
                       name, why);
        return 1;
    }
    return 0;
}

/* Undefined symbols host code may use as a value, not only call: data objects (nvcc's
 * registration passes &__dso_handle to __cxa_atexit), and the personality routine every C++
 * object's unwind tables point at (DW.ref.__gxx_personality_v0, a data word). */
static const char *const value_allowed[] = {
    "__dso_handle", "__gxx_personality_v0", "_GLOBAL_OFFSET_TABLE_", "stderr", "stdout", NULL};

/* Whether the relocation at off in section t patches the operand of a call or jump: e8/e9
 * (call, jmp rel32), 0f 8x (jcc rel32), ff 15 / ff 25 (call, jmp through the GOT, -fno-plt). */
static int call_site(const elf_view *v, const Elf64_Shdr *t, uint64_t off, unsigned type)
{
    if (t->sh_type == SHT_NOBITS || off < 2 || off > t->sh_size)
        return 0;
    const unsigned char *p = v->data + t->sh_offset + off;
    if (type == R_X86_64_PLT32 || type == R_X86_64_PC32)
        return p[-1] == 0xe8 || p[-1] == 0xe9 || (p[-2] == 0x0f && (p[-1] & 0xf0) == 0x80);
    if (type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX)
        return p[-2] == 0xff && (p[-1] == 0x15 || p[-1] == 0x25);
    return 0;
}

/* An allowed function may be called, never taken as a value: its address stored in a table or
 * loaded into a register is a base from which a fixed offset reaches any function of the same
 * library (abort + 0x260f1 is system in one glibc), which no symbol check can see. So every
 * relocation against an undefined symbol, in code or data the program loads, must be a call or
 * jump, or name one of the few data objects above. */
static int check_address_taken(const elf_view *v, ch_strbuf *msg)
{
    size_t n = 0, strtab = 0;
    const Elf64_Sym *sym = symbols(v, &n, &strtab);
    for (size_t r = 0; sym && r < v->eh->e_shnum; r++) {
        const Elf64_Shdr *s = &v->sh[r];
        if (s->sh_type != SHT_RELA || s->sh_entsize != sizeof(Elf64_Rela) ||
            s->sh_offset % 8 != 0 || s->sh_info >= v->eh->e_shnum ||
            !(v->sh[s->sh_info].sh_flags & SHF_ALLOC))
            continue;
        const Elf64_Shdr *t = &v->sh[s->sh_info];
        const Elf64_Rela *rel = (const Elf64_Rela *)(v->data + s->sh_offset);
        for (size_t k = 0; k < s->sh_size / sizeof *rel; k++) {
            size_t target = ELF64_R_SYM(rel[k].r_info);
            unsigned type = (unsigned)ELF64_R_TYPE(rel[k].r_info);
            if (target == 0 || target >= n || sym[target].st_shndx != SHN_UNDEF ||
                ELF64_ST_BIND(sym[target].st_info) == STB_LOCAL)
                continue;
            const char *name = str_at(v, strtab, sym[target].st_name);
            if (!name || !*name || in_list(value_allowed, name) ||
                ((t->sh_flags & SHF_EXECINSTR) && call_site(v, t, rel[k].r_offset, type)))
                continue;
            ch_strbuf_addf(msg,
                           "object check: host code takes the address of '%s' (relocation type "
                           "%u in %s at offset 0x%llx) instead of calling it; a function of the "
                           "C library or CUDA may only be called (its address is a base for "
                           "reaching the rest of the library)",
                           name, type, section_name(v, s->sh_info),
                           (unsigned long long)rel[k].r_offset);
            return 1;
        }
    }
    return 0;
}

/* Static data a program maps at load: a candidate's buffers come from cudaMalloc and malloc,
 * so a huge .bss (a 1 TiB array links fine) only makes the program fail to start or eat memory
 * wherever it is linked. */
#define MAX_STATIC_BYTES (256ull << 20)
static int check_static_size(const elf_view *v, ch_strbuf *msg)
{
    unsigned long long total = 0;
    for (size_t i = 0; i < v->eh->e_shnum; i++)
        if (v->sh[i].sh_flags & SHF_ALLOC)
            total += v->sh[i].sh_size < MAX_STATIC_BYTES ? v->sh[i].sh_size : MAX_STATIC_BYTES;
    if (total < MAX_STATIC_BYTES)
        return 0;
    ch_strbuf_addf(msg,
                   "object check: host code has %llu MiB or more of static data; a kernel's "
                   "buffers come from cudaMalloc or malloc",
                   MAX_STATIC_BYTES >> 20);
    return 1;
}

int ch_object_check(const char *path, ch_strbuf *msg)
{
    return ch_object_check_libs(path, 0, msg);
}

int ch_object_check_libs(const char *path, unsigned libs, ch_strbuf *msg)
{
    return ch_object_check_as(path, CH_OBJECT_CANDIDATE, NULL, libs, msg);
}

int ch_object_check_as(const char *path, ch_object_kind kind, const char *const *extra_allowed,
                       unsigned libs, ch_strbuf *msg)
{
    char *text = NULL;
    size_t len = 0;
    ch_error err;
    /* a larger file is refused by its size, before a byte of it is held in memory */
    int rc = ch_read_file_max(path, MAX_OBJECT_BYTES, &text, &len, &err);
    if (rc != 0) {
        if (rc == 1)
            ch_strbuf_addf(msg, "object check: the object is over %u MiB", MAX_OBJECT_BYTES >> 20);
        else
            ch_strbuf_addf(msg, "object check: %s", err.msg);
        return 1;
    }
    elf_view v;
    int rejected =
        open_view(&v, text, len, msg) || check_undefined(&v, kind, extra_allowed, libs, msg) ||
        check_definitions(&v, kind, libs, msg) || check_constructors(&v, kind, msg) ||
        check_symbol_types(&v, msg) || check_exit_handlers(&v, msg) ||
        check_code_sections(&v, msg) || check_syscalls(&v, msg) || check_static_size(&v, msg) ||
        (kind != CH_OBJECT_UNIT && check_address_taken(&v, msg));
    free(text);
    return rejected;
}
