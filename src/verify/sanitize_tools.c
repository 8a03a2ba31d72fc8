/* Which compute-sanitizer tools a candidate needs (issue 11: verification cheaper by design).
 *
 * The sanitizer stage runs the candidate under each tool in turn, each run instrumented and
 * many times slower than the kernel. memcheck (out-of-bounds and misaligned accesses to any
 * memory) applies to every kernel. The other two look at one thing each: racecheck reports
 * hazards on shared memory only, synccheck invalid uses of barriers and warp-synchronous
 * primitives only. A kernel that has neither gives them nothing to find, so running them is
 * two wasted instrumented runs per distinct candidate, which a cold `make -j` pays for every
 * elementwise and stencil entry.
 *
 * initcheck reports reads of device memory that nothing wrote. The scaffold writes every
 * buffer it hands the candidate, so what initcheck can find is memory the candidate allocates
 * itself: scratch space, or a block a later call's allocation gets back with the bytes an
 * earlier call left there. That is a channel for state kept across calls without a kept
 * pointer (a counter that turns the result wrong after the tests have run), which no output
 * comparison sees on the calls it makes. It runs where the candidate may allocate device
 * memory: an allocator named in its code, or code that may hide one.
 *
 * The decision reads two witnesses, and a tool runs when either says it may apply:
 * - ptxas's resource lines of the compile stage: static shared memory (`N bytes smem`) and
 *   named barriers (`used N barriers`);
 * - the candidate's code without its comments (generated candidates explain themselves in
 *   words like "shared" and "synchronizes"), for what ptxas does not count: dynamic shared
 *   memory (`extern __shared__` has no static size), warp-level `_sync` primitives, and
 *   whatever may hide either from a text match (token pasting, universal character names,
 *   inline asm, library templates such as CUB, Thrust or CUTLASS that use shared memory and
 *   barriers inside).
 * A missed case costs a weaker check, never a wrong verdict on its own: correctness compares
 * every output on several sizes before this stage runs. */
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"
#include "sanitize_tools.h"

/* Words whose presence means the candidate may use shared memory, or may hide that it does. */
static const char *const shared_words[] = {
    "shared", "cub", "thrust", "cutlass", "cute::",       "asm", "##",
    "\\u",    "\\U", "mma",    "cuda::",  "memcpy_async", NULL};
/* Words whose presence means the candidate may synchronise threads, or may hide that it does
 * (host calls are spelt Synchronize, with a capital). */
static const char *const sync_words[] = {"_sync",   "barrier", "cooperative",  "cub", "thrust",
                                         "cutlass", "cute::",  "asm",          "##",  "\\u",
                                         "\\U",     "cuda::",  "memcpy_async", NULL};
/* Words whose presence means the candidate may allocate device memory, or may hide that it
 * does: every CUDA allocator's name holds "alloc" or "Alloc" (cudaMalloc*, cuMemAlloc*,
 * cudaMallocAsync from a pool, device-side malloc), and the libraries allocate their own
 * temporary storage. */
static const char *const alloc_words[] = {"alloc",  "Alloc", "cub",  "thrust", "cutlass",
                                          "cute::", "asm",   "##",   "\\u",    "\\U",
                                          "cuda::", "cuMem", "new ", "new(",   NULL};

/* The length of the string or character literal at s (quote q), up to its closing quote. */
static size_t literal_len(const char *s, char q)
{
    size_t i = 1;
    while (s[i] && s[i] != q && s[i] != '\n')
        i += s[i] == '\\' && s[i + 1] ? 2 : 1;
    return s[i] == q ? i + 1 : i;
}

/* src without comments and line splices (so `__sha\<newline>red__` reads as one word);
 * literals kept whole so a comment opener inside one opens nothing. A raw string literal could
 * hold one too: then the text is kept as it is (more tools run, never fewer). Caller frees. */
static char *code_only(const char *src)
{
    if (strstr(src, "R\""))
        return ch_xstrdup(src);
    ch_strbuf out;
    ch_strbuf_init(&out);
    for (const char *p = src; *p;) {
        if (p[0] == '\\' && p[1] == '\n') {
            p += 2;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p += p[0] == '\\' && p[1] == '\n' ? 2 : 1;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
            ch_strbuf_add(&out, " ", 1);
        } else if (*p == '"' || *p == '\'') {
            size_t n = literal_len(p, *p);
            ch_strbuf_add(&out, p, n);
            p += n;
        } else {
            ch_strbuf_add(&out, p++, 1);
        }
    }
    return ch_strbuf_detach(&out);
}

static int mentions_any(const char *src, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strstr(src, words[i]))
            return 1;
    return 0;
}

/* The largest number item NAME of the objects in resources holds (0 when none does). */
static double resource_max(const cJSON *resources, const char *name)
{
    double most = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, resources)
    {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(r, name);
        if (cJSON_IsNumber(v) && v->valuedouble > most)
            most = v->valuedouble;
    }
    return most;
}

/* Named barriers from a ptxas line ("Used 32 registers, used 1 barriers, ..."): ptxas counts
 * barrier 0 of __syncthreads too. */
static int line_barriers(const char *line)
{
    const char *b = strstr(line, " barriers");
    if (!b)
        return 0;
    while (b > line && b[-1] >= '0' && b[-1] <= '9')
        b--;
    return b[0] >= '1' && b[0] <= '9';
}

static int any_barriers(const cJSON *resources)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, resources)
    {
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(r, "line");
        if (cJSON_IsString(line) && line_barriers(line->valuestring))
            return 1;
    }
    return 0;
}

unsigned ch_sanitizer_tools(const char *src, const cJSON *resources)
{
    unsigned tools = CH_SAN_MEMCHECK;
    /* without ptxas's lines (an unknown compile) only the text speaks: run everything */
    if (!src || !cJSON_IsArray(resources) || cJSON_GetArraySize(resources) == 0)
        return CH_SAN_ALL;
    char *code = code_only(src);
    if (mentions_any(code, shared_words) || resource_max(resources, "smem_bytes") > 0)
        tools |= CH_SAN_RACECHECK;
    if (mentions_any(code, sync_words) || any_barriers(resources))
        tools |= CH_SAN_SYNCCHECK;
    if (mentions_any(code, alloc_words))
        tools |= CH_SAN_INITCHECK;
    free(code);
    return tools;
}
