/* The session of ch/pipeline.h: one command's settings, targets, oracle, nvcc and cache, with
 * the agent and the GPU opened on first use; the name tables of statuses, refusals and host
 * fallbacks. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/scan.h"
#include "ch/targets.h"

/* ---- name tables ---- */

static const char *const status_names[CH_STATUS_COUNT_] = {
    [CH_STATUS_FAILED] = "failed",      [CH_STATUS_VERIFIED] = "verified",
    [CH_STATUS_PENDING] = "pending",    [CH_STATUS_UNSUPPORTED] = "unsupported",
    [CH_STATUS_UNRECORDED] = "unknown",
};

const char *ch_entry_status_name(ch_entry_status s)
{
    assert(s >= 0 && s < CH_STATUS_COUNT_);
    return status_names[s];
}

ch_entry_status ch_entry_status_parse(const char *word)
{
    for (int i = 0; word && i < CH_STATUS_COUNT_; i++)
        if (strcmp(word, status_names[i]) == 0)
            return (ch_entry_status)i;
    return CH_STATUS_FAILED;
}

static const char *const refusal_names[CH_REFUSAL_COUNT_] = {
    [CH_REFUSAL_NONE] = "none",
    [CH_REFUSAL_TRANSLATOR] = "translator",
    [CH_REFUSAL_REFERENCE] = "reference",
};

const char *ch_refusal_name(ch_refusal r)
{
    assert(r >= 0 && r < CH_REFUSAL_COUNT_);
    return refusal_names[r];
}

ch_refusal ch_refusal_parse(const char *word)
{
    for (int i = 1; word && i < CH_REFUSAL_COUNT_; i++)
        if (strcmp(word, refusal_names[i]) == 0)
            return (ch_refusal)i;
    /* entries recorded before refusals had a class were the translator's */
    return CH_REFUSAL_TRANSLATOR;
}

static const char *const fallback_names[CH_FALLBACK_COUNT_] = {
    [CH_FALLBACK_NONE] = "none",
    [CH_FALLBACK_NO_CACHE] = "no_cache",
    [CH_FALLBACK_CACHE_FAULT] = "cache_fault",
    [CH_FALLBACK_OFFLINE] = "offline",
    [CH_FALLBACK_PENDING] = "pending",
    [CH_FALLBACK_FAILED] = "failed",
    [CH_FALLBACK_REFUSED] = "refused",
    [CH_FALLBACK_AGENT] = "agent",
    [CH_FALLBACK_OBJECT] = "object",
};

const char *ch_fallback_name(ch_fallback f)
{
    assert(f >= 0 && f < CH_FALLBACK_COUNT_);
    return fallback_names[f];
}

/* ---- open and close ---- */

/* The GPU for the target rule: the session's own probe, so a rule that needs it does not probe
 * twice. */
static const char *session_gpu_arch(void *ctx)
{
    ch_session *s = ch_session_gpu(ctx);
    return s->gpu.present ? s->gpu.arch : NULL;
}

static void push_all(ch_strvec *to, const ch_strvec *from)
{
    if (from)
        ch_strvec_pushv(to, from);
}

void ch_session_open(ch_session *s, const ch_session_opts *o)
{
    assert(o->cfg);
    memset(s, 0, sizeof *s);
    s->cfg = o->cfg;
    pthread_mutex_init(&s->lock, NULL);
    if (ch_cache_open(&s->cache, o->cfg, &s->cache_err) != 0)
        s->cache = NULL;
    ch_strvec none;
    ch_strvec_init(&none);
    ch_error warn;
    if (ch_targets(o->arch_opts ? o->arch_opts : &none, ch_config_get(o->cfg, "arch"),
                   session_gpu_arch, s, &s->archs, &warn) != 0)
        ch_strvec_push(&s->warnings, warn.msg);
    ch_strvec_free(&none);
    assert(s->archs.len > 0); /* the rule never leaves it empty: verification compiles for [0] */
    push_all(&s->scan_args, o->scan_args);
    const char *nvcc_setting = ch_config_get(o->cfg, "nvcc");
    s->nvcc = ch_xstrdup(o->nvcc ? o->nvcc : *nvcc_setting ? nvcc_setting : "nvcc");
    const char *host_cc = ch_config_get(o->cfg, "host_cc");
    ch_strvec_push(&s->ref_cc, *host_cc ? host_cc : "cc");
    push_all(&s->ref_cc, o->scan_args);
    ch_strvec_push(&s->ref_nvcc, s->nvcc);
    push_all(&s->ref_nvcc, o->scan_args);
    /* the oracle is also the host path whose time the dispatcher weighs: the user's -O */
    if (o->opt) {
        ch_strvec_push_owned(&s->ref_cc, ch_xasprintf("-O%s", o->opt));
        ch_strvec_push_owned(&s->ref_nvcc, ch_xasprintf("-O%s", o->opt));
    }
    push_all(&s->unit_flags, o->unit_flags);
    /* found once (a path beside this binary): every verifier of the command links it */
    s->runtime_lib = ch_emit_runtime_library();
    for (size_t i = 0; ch_settings[i].key; i++)
        if (strcmp(ch_settings[i].key, "budget") == 0)
            s->budget_source = o->cfg->src[i];
    s->quiet = o->quiet;
    s->progress = o->progress;
    s->progress_ctx = o->progress_ctx;
}

void ch_session_close(ch_session *s, ch_strvec *warnings)
{
    if (s->cache) {
        /* a command that served no entry (--harness-list, --harness-plan) writes no stats */
        static const ch_cache_stats nothing;
        ch_error err;
        if (memcmp(&s->counts, &nothing, sizeof nothing) != 0)
            ch_cache_count(s->cache, &s->counts, &err);
        ch_cache_take_warnings(s->cache, &s->warnings);
        ch_cache_close(s->cache);
    }
    if (warnings)
        ch_strvec_pushv(warnings, &s->warnings);
    ch_agent_close(s->agent);
    ch_strvec_free(&s->archs);
    ch_strvec_free(&s->scan_args);
    ch_strvec_free(&s->ref_cc);
    ch_strvec_free(&s->ref_nvcc);
    ch_strvec_free(&s->unit_flags);
    ch_strvec_free(&s->warnings);
    free(s->nvcc);
    free(s->nvcc_ident);
    free(s->runtime_lib);
    pthread_mutex_destroy(&s->lock);
    memset(s, 0, sizeof *s);
}

void ch_session_take_warnings(ch_session *s, ch_strvec *out)
{
    if (s->cache)
        ch_cache_take_warnings(s->cache, &s->warnings);
    pthread_mutex_lock(&s->lock);
    ch_strvec_pushv(out, &s->warnings);
    ch_strvec_free(&s->warnings);
    pthread_mutex_unlock(&s->lock);
}

/* ---- lazily opened parts ---- */

ch_session *ch_session_gpu(ch_session *s)
{
    if (s->gpu_probed)
        return s;
    s->gpu_probed = 1;
    const char *runner = ch_config_get(s->cfg, "runner");
    ch_gpu_probe(&s->gpu);
    s->have_gpu = s->gpu.present || *runner;
    if (!s->gpu.present && *runner)
        snprintf(s->gpu.why, sizeof s->gpu.why, "verification runs through CH_CC_RUNNER");
    return s;
}

ch_agent *ch_session_agent(ch_session *s, ch_error *err)
{
    if (!s->agent && !s->agent_failed) {
        ch_agent_hw hw;
        memset(&hw, 0, sizeof hw);
        snprintf(hw.arch, sizeof hw.arch, "%s", s->archs.items[0]);
        if (ch_session_gpu(s)->gpu.present) {
            snprintf(hw.name, sizeof hw.name, "%.63s", s->gpu.name);
            hw.sm_count = s->gpu.sm_count;
            hw.l2_bytes = s->gpu.l2_bytes;
            hw.smem_per_block = s->gpu.smem_per_block;
            hw.max_threads_per_block = s->gpu.max_threads_per_block;
        }
        if (ch_agent_open(s->cfg, NULL, &hw, &s->agent, &s->agent_err) != 0)
            s->agent_failed = 1;
    }
    if (!s->agent)
        *err = s->agent_err;
    return s->agent;
}

void ch_session_count(ch_session *s, unsigned long long *field)
{
    assert((char *)field >= (char *)&s->counts &&
           (char *)field < (char *)&s->counts + sizeof s->counts);
    pthread_mutex_lock(&s->lock);
    (*field)++;
    pthread_mutex_unlock(&s->lock);
}

/* ---- what every command computes the same way ---- */

int ch_session_key(const ch_session *s, const ch_entry *e, char key[33], ch_error *err)
{
    if (ch_cache_key(e, s->archs.items, key) != 0)
        return ch_error_set(err, "%s: cannot compute the cache key", e->name);
    assert(strlen(key) == 32);
    return 0;
}

int ch_session_scan(const ch_session *s, const char *path, ch_lang lang, const ch_scan_source *src,
                    ch_entry_list *out, ch_error *err)
{
    ch_lang scan_lang = lang == CH_LANG_CU || lang == CH_LANG_CXX ? lang : CH_LANG_C;
    if (src)
        return ch_scan_text(path, src->text, src->len, src->pragmas, src->n_pragmas, scan_lang,
                            s->scan_args.items, out, err);
    return ch_scan_file(path, scan_lang, s->scan_args.items, out, err);
}

int ch_session_scan_named(const ch_session *s, const char *path, ch_lang lang, const char *name,
                          int only_one, ch_entry_list *l, const ch_entry **first, ch_error *err)
{
    *first = NULL;
    if (ch_session_scan(s, path, lang, NULL, l, err) != 0)
        return -1;
    int named = name && *name;
    for (size_t i = 0; i < l->len; i++) {
        if (named && strcmp(l->items[i].name, name) != 0)
            continue;
        if (*first && only_one && !named)
            return ch_error_set(err,
                                "%s has several harness entries: choose one with "
                                "--harness-entry=NAME",
                                path);
        if (!*first)
            *first = &l->items[i];
    }
    if (!*first)
        return named ? ch_error_set(err, "%s has no harness entry named %s", path, name)
                     : ch_error_set(err, "%s has no harness entry", path);
    return 0;
}

void ch_session_verify_setup(ch_session *s, const ch_entry *e, const char *tu,
                             const char *reference_c, ch_verify_setup *v, char **gpu_lock)
{
    /* with a test author's reference the file still holds a sample(fn) function */
    v->oracle.tu_path = reference_c && !e->clauses.sample ? NULL : tu;
    /* a CUDA file: nvcc compiles its oracle, as it compiles the file itself */
    v->oracle.cuda = e->is_cuda;
    v->oracle.cc_argv = v->oracle.cuda ? s->ref_nvcc.items : s->ref_cc.items;
    v->oracle.reference_c = reference_c;
    v->nvcc = s->nvcc;
    /* the whole call is timed through the runtime the dispatcher will use */
    v->runtime_lib = s->runtime_lib;
    v->arch = s->archs.items[0];
    const char *runner = ch_config_get(s->cfg, "runner");
    v->runner = *runner ? runner : NULL;
    v->cache_dir = s->cache ? ch_cache_dir(s->cache) : NULL;
    /* under the cache's locks/ so every ch-cc process of a make -j finds the same one */
    *gpu_lock = s->cache ? ch_xasprintf("%s/locks/gpu-0.lock", ch_cache_dir(s->cache)) : NULL;
    v->gpu_lock = *gpu_lock;
    v->last_stage = ch_session_gpu(s)->have_gpu ? CH_STAGE_PERF : CH_STAGE_COMPILE;
    ch_error err;
    ch_config_bool(s->cfg, "keep", &v->keep, &err);
}
