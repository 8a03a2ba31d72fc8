/* Cache keys: the same entry gives the same key in every run, process and machine (a golden
 * value), every listed change of meaning changes it, and spelling that carries no meaning
 * (spec whitespace, arch order, source position) does not; object keys add the tool identity,
 * flags and the NVCC_* environment. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ch/cache.h"

static char body_buf[256];

static ch_entry base_entry(void)
{
    ch_entry e;
    memset(&e, 0, sizeof e);
    strcpy(body_buf, "{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] + y [ i ] ; }");
    e.kind = CH_KIND_C_DEF;
    e.spec = "y = a*x + y";
    e.clauses_text = "tune(n = 1 << 20)";
    e.signature = "void saxpy(int n, float a, const float *x, float *y)";
    e.body_tokens = body_buf;
    return e;
}

static char *const base_archs[] = {"sm_90", "sm_80", NULL};

static void key_of(const ch_entry *e, char *const *archs, char out[33])
{
    cr_assert_eq(ch_cache_key(e, archs, out), 0);
    cr_assert(ch_cache_key_valid(out), "not 32 hex digits: %s", out);
}

Test(cache_key, stable_golden_value)
{
    ch_entry e = base_entry();
    char a[33], b[33];
    key_of(&e, base_archs, a);
    key_of(&e, base_archs, b);
    cr_assert_str_eq(a, b);
    /* the serialization is part of the cache format: a change here invalidates every cache */
    cr_assert_str_eq(a, "7257a6de7eb69e55242d2e2f4f8dde7e");
}

Test(cache_key, same_across_processes)
{
    ch_entry e = base_entry();
    char mine[33], theirs[33] = "";
    key_of(&e, base_archs, mine);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char k[33];
        ch_entry e2 = base_entry();
        ch_cache_key(&e2, base_archs, k);
        _exit(write(p[1], k, 33) == 33 ? 0 : 1);
    }
    close(p[1]);
    cr_assert_eq(read(p[0], theirs, 33), 33);
    int st;
    waitpid(pid, &st, 0);
    cr_assert_str_eq(mine, theirs);
}

typedef struct change {
    const char *what;
    const char *spec, *clauses, *signature, *body;
    int kind; /* -1: unchanged */
    const char *archs[3];
} change;

/* Each of these changes the meaning, so it must change the key. */
static const change must_change[] = {
    {"constant in the body",
     NULL,
     NULL,
     NULL,
     "{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] + y [ i ] + 1 ; }",
     -1,
     {0}},
    {"macro value in the expanded tokens",
     NULL,
     NULL,
     NULL,
     "{ for ( int i = 0 ; i < n ; i += 4 ) y [ i ] = a * x [ i ] + y [ i ] ; }",
     -1,
     {0}},
    {"operator",
     NULL,
     NULL,
     NULL,
     "{ for ( int i = 0 ; i < n ; i ++ ) y [ i ] = a * x [ i ] - y [ i ] ; }",
     -1,
     {0}},
    {"loop bound",
     NULL,
     NULL,
     NULL,
     "{ for ( int i = 0 ; i <= n ; i ++ ) y [ i ] = a * x [ i ] + y [ i ] ; }",
     -1,
     {0}},
    {"type in the signature",
     NULL,
     NULL,
     "void saxpy(int n, double a, const double *x, double *y)",
     NULL,
     -1,
     {0}},
    {"const-ness in the signature",
     NULL,
     NULL,
     "void saxpy(int n, float a, float *x, float *y)",
     NULL,
     -1,
     {0}},
    {"clause value", NULL, "tune(n = 1 << 21)", NULL, NULL, -1, {0}},
    {"added clause", NULL, "tune(n = 1 << 20) tol(1e-3)", NULL, NULL, -1, {0}},
    {"spec words", "y = a*x - y", NULL, NULL, NULL, -1, {0}},
    {"spec word case", "Y = a*x + y", NULL, NULL, NULL, -1, {0}},
    {"kind", NULL, NULL, NULL, NULL, CH_KIND_SPEC_DEF, {0}},
    {"arch", NULL, NULL, NULL, NULL, -1, {"sm_90", "sm_86", NULL}},
    {"arch removed", NULL, NULL, NULL, NULL, -1, {"sm_90", NULL}},
};

/* Each of these keeps the meaning, so it must keep the key. */
static const change must_keep[] = {
    {"spec whitespace", "  y =  a*x\t+\n y  ", NULL, NULL, NULL, -1, {0}},
    {"arch order", NULL, NULL, NULL, NULL, -1, {"sm_80", "sm_90", NULL}},
};

static void apply(const change *c, ch_entry *e, char *body, char *const **archs, char **arch_buf)
{
    if (c->spec)
        e->spec = (char *)c->spec;
    if (c->clauses)
        e->clauses_text = (char *)c->clauses;
    if (c->signature)
        e->signature = (char *)c->signature;
    if (c->body) {
        strcpy(body, c->body);
        e->body_tokens = body;
    }
    if (c->kind >= 0)
        e->kind = (ch_kind)c->kind;
    if (c->archs[0]) {
        for (int i = 0; i < 3; i++)
            arch_buf[i] = (char *)c->archs[i];
        *archs = arch_buf;
    }
}

Test(cache_key, changes_of_meaning_change_it)
{
    ch_entry e0 = base_entry();
    char k0[33];
    key_of(&e0, base_archs, k0);
    for (size_t i = 0; i < sizeof must_change / sizeof must_change[0]; i++) {
        ch_entry e = base_entry();
        char body[256], k[33], *arch_buf[3];
        char *const *archs = base_archs;
        apply(&must_change[i], &e, body, &archs, arch_buf);
        key_of(&e, archs, k);
        cr_expect_str_neq(k, k0, "%s did not change the key", must_change[i].what);
    }
}

Test(cache_key, spelling_without_meaning_keeps_it)
{
    ch_entry e0 = base_entry();
    char k0[33];
    key_of(&e0, base_archs, k0);
    for (size_t i = 0; i < sizeof must_keep / sizeof must_keep[0]; i++) {
        ch_entry e = base_entry();
        char body[256], k[33], *arch_buf[3];
        char *const *archs = base_archs;
        apply(&must_keep[i], &e, body, &archs, arch_buf);
        key_of(&e, archs, k);
        cr_expect_str_eq(k, k0, "%s changed the key", must_keep[i].what);
    }
    /* where the function sits, what file it is in, and duplicated archs do not matter; agent
     * and model are not inputs of ch_cache_key at all */
    ch_entry e = base_entry();
    e.file = "other/place.c";
    e.line = 99;
    e.col = 7;
    e.body_begin = 1234;
    char k[33];
    char *const dup[] = {"sm_90", "sm_80", "sm_90", NULL};
    key_of(&e, dup, k);
    cr_expect_str_eq(k, k0);
}

Test(cache_key, field_boundaries_are_unambiguous)
{
    /* moving text from one field to the next must not give the same stream */
    ch_entry a = base_entry(), b = base_entry();
    a.spec = "ab";
    a.clauses_text = "c";
    b.spec = "a";
    b.clauses_text = "bc";
    char ka[33], kb[33];
    key_of(&a, NULL, ka);
    key_of(&b, NULL, kb);
    cr_expect_str_neq(ka, kb);
    b = base_entry();
    b.spec = NULL; /* bare pragma differs from an empty spec */
    a = base_entry();
    a.spec = "";
    key_of(&a, NULL, ka);
    key_of(&b, NULL, kb);
    cr_expect_str_neq(ka, kb);
}

Test(cache_key, object_key_inputs)
{
    const char *ek = "7257a6de7eb69e55242d2e2f4f8dde7e";
    char *flags[] = {"-O3", "-arch=sm_90", NULL};
    ch_object_ident id = {"/usr/local/cuda/bin/nvcc\n100\n1.0\nV12.4",
                          "/usr/bin/cc\n5\n2.0\ngcc 12",
                          flags,
                          1,
                          NULL,
                          NULL,
                          NULL};
    char k0[33], k[33];
    cr_assert_eq(ch_cache_object_key(ek, &id, k0), 0);
    cr_assert_eq(ch_cache_object_key(ek, &id, k), 0);
    cr_assert_str_eq(k0, k);

    ch_object_ident v = id;
    v.nvcc_ident = "/usr/local/cuda/bin/nvcc\n100\n1.0\nV12.5";
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "nvcc version");
    v = id;
    v.host_cc_ident = "/usr/bin/cc\n5\n2.0\ngcc 13";
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "host compiler");
    char *flags2[] = {"-O2", "-arch=sm_90", NULL};
    v = id;
    v.flags = flags2;
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "flags");
    v = id;
    v.nvcc_prepend_flags = "-G";
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "NVCC_PREPEND_FLAGS");
    v = id;
    v.nvcc_append_flags = "-lineinfo";
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "NVCC_APPEND_FLAGS");
    v = id;
    v.nvcc_ccbin = "/usr/bin/g++-11";
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "NVCC_CCBIN");
    ch_cache_object_key("7257a6de7eb69e55242d2e2f4f8dde7f", &id, k);
    cr_expect_str_neq(k, k0, "entry key");

    /* from the environment when not given */
    v = id;
    v.env_given = 0;
    unsetenv("NVCC_PREPEND_FLAGS");
    unsetenv("NVCC_APPEND_FLAGS");
    unsetenv("NVCC_CCBIN");
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_eq(k, k0, "unset environment equals given NULLs");
    setenv("NVCC_APPEND_FLAGS", "-lineinfo", 1);
    ch_cache_object_key(ek, &v, k);
    cr_expect_str_neq(k, k0, "NVCC_APPEND_FLAGS from the environment");
    unsetenv("NVCC_APPEND_FLAGS");
}

Test(cache_key, tool_identity)
{
    ch_strbuf a, b;
    ch_strbuf_init(&a);
    ch_strbuf_init(&b);
    ch_error err;
    cr_assert_eq(ch_cache_tool_ident("/bin/ls", &a, &err), 0, "%s", err.msg);
    cr_assert_eq(ch_cache_tool_ident("/bin/ls", &b, &err), 0, "%s", err.msg);
    cr_assert_str_eq(a.data, b.data);
    cr_assert(strncmp(a.data, "/bin/ls\n", 8) == 0);
    cr_assert(strstr(a.data, "ls"), "version output included");
    cr_assert_neq(ch_cache_tool_ident("/nonexistent/nvcc", &b, &err), 0);
    ch_strbuf_free(&a);
    ch_strbuf_free(&b);
}

Test(cache_key, key_validation)
{
    cr_assert(ch_cache_key_valid("0123456789abcdef0123456789abcdef"));
    cr_assert_not(ch_cache_key_valid("0123456789ABCDEF0123456789abcdef"));
    cr_assert_not(ch_cache_key_valid("0123456789abcdef0123456789abcde"));
    cr_assert_not(ch_cache_key_valid("../3456789abcdef0123456789abcdef"));
    cr_assert_not(ch_cache_key_valid(NULL));
}
