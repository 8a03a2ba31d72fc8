/* The target-architecture rule of targets.h: nvcc's -arch / -code / -gencode options turned
 * into the real architectures kernels are built for, and the fallbacks of a command that names
 * none. A value nvcc would reject is skipped here: nvcc reports it on the user's own compile,
 * which runs with the same options. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/targets.h"

enum { ARCH_NONE = 0, ARCH_REAL, ARCH_GPU };

/* What separates values: lists ("sm_80,sm_90"), code=[...] and code="..." (the quotes nvcc's
 * documentation puts around a list survive when a build system passes them verbatim), and
 * spaces in the setting. */
#define SEPARATORS ",[]\"' \t"

/* One value: "sm_80", "compute_80", "lto_90a" give ARCH_REAL with the real architecture
 * ("sm_80", "sm_90a") in real; "native", "all", "all-major" give ARCH_GPU; anything else
 * ARCH_NONE. */
static int classify(const char *v, char real[16])
{
    if (strcmp(v, "native") == 0 || strcmp(v, "all") == 0 || strcmp(v, "all-major") == 0)
        return ARCH_GPU;
    static const char *const prefixes[] = {"sm_", "compute_", "lto_", NULL};
    for (size_t i = 0; prefixes[i]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(v, prefixes[i], n) != 0)
            continue;
        const char *num = v + n, *p = num;
        while (isdigit((unsigned char)*p))
            p++;
        size_t digits = (size_t)(p - num);
        const char *suffix = p;
        while (islower((unsigned char)*p)) /* the a of sm_90a, the f of sm_100f */
            p++;
        if (digits == 0 || digits > 4 || *p || p - suffix > 2)
            return ARCH_NONE;
        snprintf(real, 16, "sm_%s", num);
        return ARCH_REAL;
    }
    return ARCH_NONE;
}

static void add(ch_strvec *v, const char *arch)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], arch) == 0)
            return;
    ch_strvec_push(v, arch);
}

/* The GPU, asked once and only when the rule needs it. */
typedef struct gpu_ask {
    ch_gpu_arch_fn fn;
    void *ctx;
    int asked;
    char arch[16]; /* "" without a GPU (or with one whose architecture is not sm_NN) */
} gpu_ask;

static const char *gpu(gpu_ask *g)
{
    if (!g->asked) {
        g->asked = 1;
        const char *a = g->fn ? g->fn(g->ctx) : NULL;
        if (!a || classify(a, g->arch) != ARCH_REAL)
            g->arch[0] = '\0';
    }
    return g->arch[0] ? g->arch : NULL;
}

/* -gencode arch=A,code=C / code=[C1,C2]: the codes are the targets. Without code= (nvcc
 * rejects that) the arch's own real architecture. */
static void add_gencode(const char *value, ch_strvec *named)
{
    char *copy = ch_xstrdup(value), *save = NULL;
    char arch[16] = "", real[16];
    int in_code = 0, codes = 0;
    for (char *tok = strtok_r(copy, SEPARATORS, &save); tok;
         tok = strtok_r(NULL, SEPARATORS, &save)) {
        const char *v = tok;
        if (strncmp(tok, "arch=", 5) == 0)
            in_code = 0, v = tok + 5;
        else if (strncmp(tok, "code=", 5) == 0)
            in_code = 1, v = tok + 5;
        if (classify(v, real) != ARCH_REAL)
            continue;
        if (in_code) {
            add(named, real);
            codes++;
        } else {
            memcpy(arch, real, sizeof arch);
        }
    }
    if (!codes && arch[0])
        add(named, arch);
    free(copy);
}

/* The values of an -arch or -code option, or of the setting: real architectures into named
 * (unless skip_real), native/all into *want_gpu. Returns how many values were neither. */
static int add_values(const char *value, int skip_real, ch_strvec *named, int *want_gpu)
{
    char *copy = ch_xstrdup(value), *save = NULL;
    char real[16];
    int bad = 0;
    for (char *tok = strtok_r(copy, SEPARATORS, &save); tok;
         tok = strtok_r(NULL, SEPARATORS, &save)) {
        int kind = classify(tok, real);
        if (kind == ARCH_GPU)
            *want_gpu = 1;
        else if (kind == ARCH_REAL && !skip_real)
            add(named, real);
        else if (kind == ARCH_NONE)
            bad++;
    }
    free(copy);
    return bad;
}

/* sm_80 < sm_86 < sm_90 < sm_90a < sm_100: by number, then suffix. */
static int by_number(const void *pa, const void *pb)
{
    const char *a = *(char *const *)pa + 3, *b = *(char *const *)pb + 3;
    char *ea, *eb;
    long na = strtol(a, &ea, 10), nb = strtol(b, &eb, 10);
    if (na != nb)
        return na < nb ? -1 : 1;
    return strcmp(ea, eb);
}

int ch_targets(const ch_strvec *arch_opts, const char *cfg_arch, ch_gpu_arch_fn gpu_arch, void *ctx,
               ch_strvec *out, ch_error *warn)
{
    gpu_ask g = {gpu_arch, ctx, 0, ""};
    ch_strvec named;
    ch_strvec_init(&named);
    int has_code = 0, want_gpu = 0, rc = 0;
    for (size_t i = 0; i < arch_opts->len; i++)
        has_code |= strncmp(arch_opts->items[i], "-code=", 6) == 0;
    for (size_t i = 0; i < arch_opts->len; i++) {
        const char *o = arch_opts->items[i];
        if (strncmp(o, "-arch=", 6) == 0)
            add_values(o + 6, has_code, &named, &want_gpu);
        else if (strncmp(o, "-code=", 6) == 0)
            add_values(o + 6, 0, &named, &(int){0});
        else if (strncmp(o, "-gencode=", 9) == 0)
            add_gencode(o + 9, &named);
    }
    /* -arch=native with -code: the codes decide, as for any -arch value */
    if (want_gpu && !has_code && gpu(&g))
        add(&named, gpu(&g));
    if (named.len == 0 && cfg_arch && *cfg_arch) {
        int cfg_gpu = 0;
        if (add_values(cfg_arch, 0, &named, &cfg_gpu) > 0)
            rc = ch_error_set(warn,
                              "the arch setting (CH_CC_ARCH) '%s' holds a value that is no GPU "
                              "architecture (sm_NN, compute_NN, native): skipped",
                              cfg_arch);
        if (cfg_gpu && gpu(&g))
            add(&named, gpu(&g));
    }
    if (named.len == 0 && gpu(&g))
        add(&named, gpu(&g));
    if (named.len == 0)
        add(&named, "sm_90");
    qsort(named.items, named.len, sizeof *named.items, by_number);
    for (size_t i = 0; i < named.len; i++)
        add(out, named.items[i]);
    ch_strvec_free(&named);
    return rc;
}
