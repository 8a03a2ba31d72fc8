/* The pipeline session (ch/pipeline.h) without the driver: one key per command line, the cache
 * status protocol, pending entries, refusal caching, and the counters each outcome moves. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/report.h"
#include "session_fixture.h"

static char *tmp_dir;
static ch_config cfg;

static void setup(void)
{
    static const char *const settings[] = {"budget", "1", NULL};
    fx_session_config(&cfg, &tmp_dir, "session-test", settings);
}

static void teardown(void)
{
    fx_session_free(&cfg, tmp_dir);
}

TestSuite(session, .init = setup, .fini = teardown);

static void open_with(ch_session *s, const char *const *arch_opts)
{
    fx_session_open(s, &cfg, arch_opts);
}

static void scan(ch_session *s, const char *name, const char *text, ch_entry_list *l)
{
    fx_session_scan(s, tmp_dir, name, text, l);
}

/* the same target named by different nvcc spellings gives one key; another target another */
Test(session, one_key_for_every_spelling_of_a_target)
{
    const char *const spellings[][3] = {
        {"-arch=compute_80", NULL},
        {"-arch=sm_80", NULL},
        {"-gencode=arch=compute_80,code=sm_80", NULL},
        {"-gencode=arch=compute_80,code=[sm_80,compute_80]", NULL},
        {"-arch=compute_80", "-code=sm_80", NULL},
    };
    char first[33] = "";
    for (size_t k = 0; k < sizeof spellings / sizeof *spellings; k++) {
        ch_session s;
        open_with(&s, spellings[k]);
        cr_assert_eq(s.archs.len, 1);
        cr_assert_str_eq(s.archs.items[0], "sm_80", "spelling %zu", k);
        ch_entry_list l;
        scan(&s, "saxpy.c", fx_saxpy_c, &l);
        char key[33];
        ch_error err;
        cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0, "%s", err.msg);
        cr_assert_eq(strlen(key), 32);
        if (k == 0)
            memcpy(first, key, sizeof first);
        cr_assert_str_eq(key, first, "spelling %zu keys like -arch=compute_80", k);
        ch_entry_list_free(&l);
        fx_session_close(&s);
    }
    ch_session s;
    open_with(&s, (const char *const[]){"-arch=sm_90", NULL});
    ch_entry_list l;
    scan(&s, "saxpy.c", fx_saxpy_c, &l);
    char key[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0);
    cr_assert_str_neq(key, first, "another target, another key");
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

Test(session, status_names_round_trip)
{
    for (int i = 0; i < CH_STATUS_COUNT_; i++)
        cr_assert_eq(ch_entry_status_parse(ch_entry_status_name((ch_entry_status)i)), i);
    cr_assert_eq(ch_entry_status_parse(NULL), CH_STATUS_FAILED);
    /* explain's sentence for an entry present without a status knows the table's word for it */
    char *sentence = ch_report_outcome_sentence(NULL, ch_entry_status_name(CH_STATUS_UNRECORDED));
    cr_assert(strstr(sentence, "without a recorded status"), "%s", sentence);
    free(sentence);
    cr_assert_eq(ch_entry_status_parse("garbage"), CH_STATUS_FAILED);
    cr_assert_str_eq(ch_entry_status_name(CH_STATUS_PENDING), "pending");
    for (int i = 1; i < CH_REFUSAL_COUNT_; i++)
        cr_assert_eq(ch_refusal_parse(ch_refusal_name((ch_refusal)i)), i);
    cr_assert_eq(ch_refusal_parse(NULL), CH_REFUSAL_TRANSLATOR, "older entries: the translator");
    for (int i = 0; i < CH_FALLBACK_COUNT_; i++) {
        /* every fallback class is a counter of --harness-stats */
        char *name = ch_xasprintf("fallback_%s", ch_fallback_name((ch_fallback)i));
        int found = 0;
        for (size_t k = 0; ch_cache_stat_names[k]; k++)
            found |= strcmp(ch_cache_stat_names[k], name) == 0;
        cr_assert(found || i == CH_FALLBACK_NONE, "%s is a counter", name);
        free(name);
    }
}

/* a verified entry is served from the cache without a GPU probe or an agent */
Test(session, verified_entry_is_a_hit_without_gpu_or_agent)
{
    ch_session s;
    open_with(&s, (const char *const[]){"-arch=sm_80", NULL});
    cr_assert_not_null(s.cache, "%s", s.cache_err.msg);
    ch_entry_list l;
    scan(&s, "saxpy.c", fx_saxpy_c, &l);
    char key[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0);
    const char *files[] = {"kernel.cu", "__global__ void k(void) {}\n", NULL};
    fx_session_seed(&s, key, "verified", files);
    ch_outcome o;
    cr_assert_eq(ch_session_entry(&s, &l.items[0], "saxpy.c", &o, &err), 0, "%s", err.msg);
    cr_assert_str_eq(o.key, key);
    cr_assert_eq(o.status, CH_STATUS_VERIFIED);
    cr_assert_eq(o.fallback, CH_FALLBACK_NONE);
    cr_assert_not_null(o.kernel_src);
    cr_assert(o.cached);
    cr_assert_eq(s.gpu_probed, 0, "a hit needs no device");
    cr_assert_null(s.agent, "a hit needs no agent");
    cr_assert_eq(s.counts.host_fallbacks, 0);
    ch_outcome_free(&o);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

/* a pending entry on a machine without a GPU: the host path, counted as pending */
Test(session, pending_entry_waits_for_a_gpu)
{
    ch_session s;
    open_with(&s, (const char *const[]){"-arch=sm_80", NULL});
    if (ch_session_gpu(&s)->have_gpu) {
        fx_session_close(&s);
        cr_skip_test("a GPU is present: pending entries are verified (tests/gpu/)");
    }
    ch_entry_list l;
    scan(&s, "saxpy.c", fx_saxpy_c, &l);
    char key[33];
    ch_error err;
    cr_assert_eq(ch_session_key(&s, &l.items[0], key, &err), 0);
    const char *files[] = {"candidates/0.cu", "__global__ void k(void) {}\n", NULL};
    fx_session_seed(&s, key, "pending", files);
    ch_outcome o;
    cr_assert_eq(ch_session_entry(&s, &l.items[0], "saxpy.c", &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.status, CH_STATUS_PENDING);
    cr_assert_eq(o.fallback, CH_FALLBACK_PENDING);
    cr_assert_null(o.kernel_src);
    cr_assert_not_null(strstr(o.reason, "wait for a build with a GPU"), "%s", o.reason);
    cr_assert_null(s.agent, "the cached candidates are not asked for again");
    cr_assert_eq(s.counts.pending_entries, 1);
    cr_assert_eq(s.counts.fallback_pending, 1);
    cr_assert_eq(s.counts.host_fallbacks, 1);
    cr_assert_eq(s.counts.pending_verified, 0);
    ch_outcome_free(&o);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

static const char prefix_c[] = "#pragma harness extent(x: n, s: n)\n"
                               "void prefix(int n, const float *x, float *s)\n"
                               "{\n"
                               "    int i = 0;\n"
                               "    s[0] = x[0];\n"
                               "    while (++i < n)\n"
                               "        s[i] = s[i - 1] + x[i];\n"
                               "}\n";

/* what the builtin agent cannot translate is refused once: recorded with its class, served from
 * the cache by the next session without an agent, and counted both times */
Test(session, refusal_is_recorded_and_served_from_the_cache, .timeout = 120)
{
    ch_outcome o;
    ch_error err;
    char key[33];
    char *tu = ch_path_join(tmp_dir, "prefix.c");
    for (int round = 0; round < 2; round++) {
        ch_session s;
        open_with(&s, (const char *const[]){"-arch=sm_80", NULL});
        ch_entry_list l;
        scan(&s, "prefix.c", prefix_c, &l);
        cr_assert_eq(ch_session_entry(&s, &l.items[0], tu, &o, &err), 0, "%s", err.msg);
        cr_assert_null(o.kernel_src);
        cr_assert(o.refused, "round %d", round);
        cr_assert_eq(o.fallback, CH_FALLBACK_REFUSED, "round %d: %s", round, o.reason);
        cr_assert_eq(o.refusal, CH_REFUSAL_TRANSLATOR, "round %d", round);
        cr_assert_eq(o.status, CH_STATUS_UNSUPPORTED, "round %d", round);
        cr_assert_eq(s.counts.refused_translator, 1, "round %d", round);
        cr_assert_eq(s.counts.fallback_refused, 1, "round %d", round);
        if (round == 0) {
            memcpy(key, o.key, sizeof key);
        } else {
            cr_assert_str_eq(o.key, key);
            cr_assert_null(s.agent, "the recorded refusal needs no agent");
            cr_assert_eq(s.counts.agent_requests, 0);
            cr_assert(o.cached == 0 && o.hit.key[0], "served from the cache entry");
        }
        ch_outcome_free(&o);
        ch_entry_list_free(&l);
        fx_session_close(&s);
    }
    /* both sessions' counters reached the cache's statistics at close */
    ch_session s;
    open_with(&s, NULL);
    ch_cache_stats st;
    cr_assert_eq(ch_cache_stats_read(s.cache, &st, &err), 0, "%s", err.msg);
    cr_assert_eq(st.refused_translator, 2);
    cr_assert_eq(st.fallback_refused, 2);
    cr_assert_eq(st.host_fallbacks, 2);
    fx_session_close(&s);
    free(tu);
}

/* offline and a miss: the host path with its class, nothing generated or stored */
Test(session, offline_miss_is_its_own_fallback_class)
{
    ch_error err;
    cr_assert_eq(ch_config_set(&cfg, "offline", "1", CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
    ch_session s;
    open_with(&s, NULL);
    ch_entry_list l;
    scan(&s, "saxpy.c", fx_saxpy_c, &l);
    ch_outcome o;
    cr_assert_eq(ch_session_entry(&s, &l.items[0], "saxpy.c", &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.fallback, CH_FALLBACK_OFFLINE);
    cr_assert_null(s.agent);
    cr_assert_eq(s.counts.fallback_offline, 1);
    cr_assert_eq(s.counts.host_fallbacks, 1);
    ch_outcome_free(&o);
    ch_entry_list_free(&l);
    fx_session_close(&s);
}

/* a cache that cannot be opened: the host path of its own class, counted in the session (the
 * counts have nowhere to go: --harness-stats reads that cache), nothing asked of the agent */
Test(session, no_cache_is_its_own_fallback_class)
{
    ch_error err;
    char *file = ch_path_join(tmp_dir, "not-a-directory");
    cr_assert_eq(ch_write_file_atomic(file, "x", 1, 0, &err), 0, "%s", err.msg);
    char *under = ch_path_join(file, "cache");
    cr_assert_eq(ch_config_set(&cfg, "cache_dir", under, CH_CFG_CMDLINE, &err), 0, "%s", err.msg);
    ch_session s;
    open_with(&s, NULL);
    cr_assert_null(s.cache, "a cache under a plain file cannot be opened");
    ch_entry_list l;
    scan(&s, "saxpy.c", fx_saxpy_c, &l);
    ch_outcome o;
    cr_assert_eq(ch_session_entry(&s, &l.items[0], "saxpy.c", &o, &err), 0, "%s", err.msg);
    cr_assert_eq(o.fallback, CH_FALLBACK_NO_CACHE);
    cr_assert_null(o.kernel_src);
    cr_assert_null(s.agent, "no agent is asked without a cache to keep its answer");
    cr_assert_eq(s.counts.fallback_no_cache, 1);
    cr_assert_eq(s.counts.host_fallbacks, 1);
    ch_outcome_free(&o);
    ch_entry_list_free(&l);
    fx_session_close(&s);
    free(under);
    free(file);
}
