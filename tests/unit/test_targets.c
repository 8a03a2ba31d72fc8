/* The target-architecture rule (driver/targets.c): nvcc's meaning of -arch / -code / -gencode,
 * the fallbacks, and that neither order nor duplicates change the result (it is part of the
 * cache key that --harness-list and the build must agree on). */
#include <criterion/criterion.h>
#include <string.h>

#include "ch/targets.h"

/* The fake GPU: its architecture (NULL: none) and how often it was asked. */
typedef struct fake_gpu {
    const char *arch;
    int asked;
} fake_gpu;

static const char *fake_arch(void *ctx)
{
    fake_gpu *g = ctx;
    g->asked++;
    return g->arch;
}

/* The targets of opts (NULL-terminated) as one space-separated string. */
static char *targets(const char *const *opts, const char *cfg, fake_gpu *g, int *rc)
{
    ch_strvec o, out;
    ch_strvec_init(&o);
    ch_strvec_init(&out);
    for (size_t i = 0; opts && opts[i]; i++)
        ch_strvec_push(&o, opts[i]);
    ch_error warn;
    int r = ch_targets(&o, cfg, fake_arch, g, &out, &warn);
    if (rc)
        *rc = r;
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    for (size_t i = 0; i < out.len; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? " " : "", out.items[i]);
    ch_strvec_free(&o);
    ch_strvec_free(&out);
    return ch_strbuf_detach(&sb);
}

static void expect(const char *const *opts, const char *cfg, const char *gpu_arch, const char *want)
{
    fake_gpu g = {gpu_arch, 0};
    char *got = targets(opts, cfg, &g, NULL);
    cr_expect_str_eq(got, want, "%s%s%s: got '%s', want '%s'", opts && opts[0] ? opts[0] : "()",
                     opts && opts[0] && opts[1] ? " " : "",
                     opts && opts[0] && opts[1] ? opts[1] : "", got, want);
    cr_expect_leq(g.asked, 1, "the GPU is asked at most once");
    free(got);
}

#define OPTS(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(targets, arch_real_and_virtual)
{
    expect(OPTS("-arch=sm_80"), NULL, NULL, "sm_80");
    expect(OPTS("-arch=compute_80"), NULL, NULL, "sm_80");
    expect(OPTS("-arch=sm_90a"), NULL, NULL, "sm_90a");
    expect(OPTS("-arch=compute_90a"), NULL, NULL, "sm_90a");
}

Test(targets, code_decides_with_arch)
{
    /* -arch then names only the virtual architecture */
    expect(OPTS("-arch=compute_80", "-code=sm_86"), NULL, NULL, "sm_86");
    expect(OPTS("-code=sm_86", "-arch=compute_80"), NULL, NULL, "sm_86");
    expect(OPTS("-arch=compute_80", "-code=sm_86,compute_80"), NULL, NULL, "sm_80 sm_86");
    expect(OPTS("-arch=compute_90", "-code=lto_90"), NULL, NULL, "sm_90");
}

Test(targets, gencode)
{
    expect(OPTS("-gencode=arch=compute_80,code=sm_86"), NULL, NULL, "sm_86");
    expect(OPTS("-gencode=arch=compute_80,code=[sm_86,compute_80]"), NULL, NULL, "sm_80 sm_86");
    expect(OPTS("-gencode=arch=compute_80,code=\"sm_86,compute_80\""), NULL, NULL, "sm_80 sm_86");
    expect(OPTS("-gencode=arch=compute_80,code=compute_80"), NULL, NULL, "sm_80");
    /* no code= (nvcc rejects it): the arch's own */
    expect(OPTS("-gencode=arch=compute_75"), NULL, NULL, "sm_75");
}

Test(targets, order_and_duplicates_do_not_matter)
{
    const char *a = "-gencode=arch=compute_80,code=sm_80";
    const char *b = "-gencode=arch=compute_90,code=sm_90";
    expect(OPTS(a, b), NULL, NULL, "sm_80 sm_90");
    expect(OPTS(b, a), NULL, NULL, "sm_80 sm_90");
    expect(OPTS(b, a, b, "-arch=sm_80"), NULL, NULL, "sm_80 sm_90");
    /* by number, not by text: sm_100 after sm_90, the a variant after the plain one */
    expect(OPTS("-arch=sm_100", "-gencode=arch=compute_90a,code=sm_90a", "-arch=sm_90"), NULL, NULL,
           "sm_90 sm_90a sm_100");
}

Test(targets, native_and_all_take_the_gpu)
{
    expect(OPTS("-arch=native"), NULL, "sm_89", "sm_89");
    expect(OPTS("-arch=all"), NULL, "sm_89", "sm_89");
    expect(OPTS("-arch=all-major"), NULL, "sm_89", "sm_89");
    /* without a GPU: the fallbacks */
    expect(OPTS("-arch=native"), NULL, NULL, "sm_90");
    expect(OPTS("-arch=native"), "sm_75", NULL, "sm_75");
    /* with named targets besides it: those and the GPU */
    expect(OPTS("-arch=native", "-gencode=arch=compute_80,code=sm_80"), NULL, "sm_90",
           "sm_80 sm_90");
}

Test(targets, fallbacks)
{
    /* nothing named: the setting, else the GPU, else sm_90 */
    expect(NULL, NULL, NULL, "sm_90");
    expect(NULL, NULL, "sm_86", "sm_86");
    expect(NULL, "sm_80", "sm_86", "sm_80");
    expect(NULL, "compute_80", NULL, "sm_80");
    expect(NULL, "sm_90,sm_80", NULL, "sm_80 sm_90");
    expect(NULL, "native", "sm_86", "sm_86");
    /* a named target wins over the setting */
    expect(OPTS("-arch=sm_75"), "sm_80", NULL, "sm_75");
}

Test(targets, gpu_is_asked_only_when_needed)
{
    fake_gpu g = {"sm_86", 0};
    free(targets(OPTS("-arch=sm_80"), NULL, &g, NULL));
    cr_expect_eq(g.asked, 0, "named targets need no probe");
    free(targets(NULL, "sm_80", &g, NULL));
    cr_expect_eq(g.asked, 0, "the setting needs no probe");
    free(targets(NULL, NULL, &g, NULL));
    cr_expect_eq(g.asked, 1);
}

Test(targets, bad_setting_warns_and_is_skipped)
{
    fake_gpu g = {NULL, 0};
    int rc = 0;
    char *got = targets(NULL, "fermi", &g, &rc);
    cr_expect_eq(rc, -1);
    cr_expect_str_eq(got, "sm_90");
    free(got);
    got = targets(NULL, "fermi,sm_80", &g, &rc);
    cr_expect_eq(rc, -1);
    cr_expect_str_eq(got, "sm_80");
    free(got);
    /* values nvcc would reject on the command line are nvcc's to report */
    got = targets(OPTS("-arch=sm_xx"), NULL, &g, &rc);
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(got, "sm_90");
    free(got);
}
