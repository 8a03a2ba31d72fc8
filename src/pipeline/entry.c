/* One harness entry through the pipeline (DESIGN §3): key, cache, and on a miss checklist ->
 * agent -> evolve (verify) -> cache. The outcome is what the object links for the entry: a
 * verified kernel, or the host path with the reason.
 *
 * Cache entries carry a status in their meta: "verified" (kernel.cu passed stages 0-4 on a
 * GPU), "pending" (made without a GPU: candidates/K.cu passed stages 0-1 and wait for the
 * first build that has a GPU, which verifies them without asking the agent again), "failed"
 * (evolution on a GPU found no correct kernel) and "unsupported" (the agent refused the entry,
 * with the reason). Only agent and network failures are not cached: they may pass. */
#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch/checklist.h"
#include "ch/emit.h"
#include "ch/evolve.h"
#include "ch/fsutil.h"
#include "ch/pipeline.h"
#include "ch/report.h"
#include "ch/spec_reader.h"

/* ---- progress ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the evolution's view of the agent and the verifier ---- */

typedef struct evo_ctx {
    ch_session *s;
    const ch_entry *e;
    ch_verifier *v;
    ch_agent *agent;
    double started;
} evo_ctx;

static int evo_propose(void *vctx, const ch_kernel_request *req, char **src, char **design,
                       ch_error *err)
{
    evo_ctx *x = vctx;
    if (!x->agent)
        return 1;
    ch_session_count(x->s, &x->s->counts.agent_requests);
    return x->agent->ops->kernel(x->agent, req, src, design, err);
}

static int evo_build(void *vctx, ch_candidate *c, ch_error *err)
{
    evo_ctx *x = vctx;
    ch_verify_build *vb = NULL;
    int rc = ch_verifier_build(x->v, c->source, &c->report, &vb, err);
    if (rc == 0 && c->report.status[CH_STAGE_COMPILE] != CH_ST_NOT_RUN)
        ch_session_count(x->s, &x->s->counts.kernel_compiles);
    c->build = vb;
    return rc;
}

/* Called from several threads at once: the verifier takes the machine-wide GPU lock itself,
 * shared for the functional stages and exclusive for timing (ch_gpu_lock in ch/verify.h). */
static int evo_test(void *vctx, ch_candidate *c, ch_error *err)
{
    evo_ctx *x = vctx;
    ch_session_count(x->s, &x->s->counts.gpu_runs);
    int rc = ch_verifier_test(x->v, c->build, c->source, &c->report, err);
    c->build = NULL;
    return rc;
}

static void evo_discard(void *vctx, ch_candidate *c)
{
    evo_ctx *x = vctx;
    ch_verify_build_free(x->v, c->build, &c->report);
    c->build = NULL;
}

/* What became of one candidate, in a user's words: a candidate that stops at a stage is not
 * an error of the build (the loop tries the next one), and one that waits for a GPU has passed
 * everything this machine can check. */
static const char *candidate_words(const ch_verify_report *r)
{
    static const char *const failed[CH_STAGE_COUNT_] = {
        [CH_STAGE_STATIC] = "rejected by the static checks",
        [CH_STAGE_COMPILE] = "did not compile",
        [CH_STAGE_SMOKE] = "crashed or hung on a small run",
        [CH_STAGE_CORRECT] = "gave wrong results",
        [CH_STAGE_SANITIZE] = "failed the memory checks",
        [CH_STAGE_PERF] = "failed its timing (skipped work, or could not be timed)",
    };
    if (r->correct && r->status[CH_STAGE_SMOKE] == CH_ST_SKIP)
        return "compiles; its test waits for a GPU";
    if (r->correct)
        return "correct";
    /* without a GPU verification ends at compile: a candidate that passed it waits, it did
     * not fail ("stage" is the last stage run when everything passed) */
    if (r->passed ||
        (r->stage >= 0 && r->stage < CH_STAGE_COUNT_ && r->status[r->stage] == CH_ST_SKIP))
        return "compiles; its test waits for a GPU";
    return r->stage >= 0 && r->stage < CH_STAGE_COUNT_ ? failed[r->stage] : "not checked";
}

static void evo_progress(void *vctx, const ch_evolution *ev, const ch_candidate *c)
{
    evo_ctx *x = vctx;
    if (!x->s->progress)
        return;
    char best[64] = "no correct kernel yet";
    if (ev->best < 0 && c->report.passed && !c->report.correct)
        snprintf(best, sizeof best, "no GPU here to test them");
    else if (ev->best >= 0 && ev->cands[ev->best].report.status[CH_STAGE_SMOKE] == CH_ST_SKIP)
        snprintf(best, sizeof best, "none can be tested here");
    else if (ev->best >= 0 && ev->cands[ev->best].report.launcher_ms >= 0)
        snprintf(best, sizeof best, "fastest correct so far: %.3f ms per call",
                 ev->cands[ev->best].report.launcher_ms);
    else if (ev->best >= 0)
        snprintf(best, sizeof best, "a correct kernel found");
    char own[48] = "";
    if (c->report.correct && c->report.launcher_ms >= 0)
        snprintf(own, sizeof own, ", %.3f ms per call", c->report.launcher_ms);
    char round[24] = "";
    if (c->round >= 0)
        snprintf(round, sizeof round, " (round %d)", c->round + 1);
    char *line = ch_xasprintf("ch-cc: %s: making a GPU kernel: candidate %d%s %s%s; %s", x->e->name,
                              c->id + 1, round, candidate_words(&c->report), own, best);
    x->s->progress(x->s->progress_ctx, line);
    free(line);
}

/* ---- what goes into the cache ---- */

static void put_text(ch_cache_txn *t, const char *name, const char *text, ch_error *err)
{
    if (text)
        ch_cache_put(t, name, text, strlen(text), err);
}

static const char *file_text(const ch_cache_file *f)
{
    return f ? (const char *)f->data : NULL;
}

/* Records the evolution's result in the transaction: status, kernel, pending candidates
 * (report.json is put_report's). Returns the status written. */
static ch_entry_status record(ch_cache_txn *t, const ch_evolution *ev, int max_stage, ch_error *err)
{
    ch_entry_status status = CH_STATUS_FAILED;
    if (ev->best >= 0 && ev->cands[ev->best].report.correct) {
        const ch_candidate *c = &ev->cands[ev->best];
        put_text(t, "kernel.cu", c->source, err);
        ch_cache_txn_meta(t, "design", c->design ? c->design : "");
        status = CH_STATUS_VERIFIED;
    } else if (max_stage < CH_STAGE_SMOKE) {
        int k = 0;
        for (size_t i = 0; i < ev->n; i++)
            if (ch_candidate_ok(&ev->cands[i], max_stage)) {
                char *name = ch_xasprintf("candidates/%d.cu", k++);
                put_text(t, name, ev->cands[i].source, err);
                free(name);
            }
        if (k > 0)
            status = CH_STATUS_PENDING;
    }
    ch_cache_txn_meta(t, "status", ch_entry_status_name(status));
    return status;
}

/* report.json (issue 18): what the session knows when it stores an entry, handed to
 * src/report's writer; once per outcome (verified, pending, failed: after the evolution;
 * unsupported: with the refusal). */
static void put_report(ch_session *s, ch_cache_txn *t, const ch_entry *e, const ch_checklist *c,
                       const ch_evolution *ev, ch_entry_status status, const ch_outcome *out,
                       const char *refusal)
{
    ch_strbuf hashed;
    ch_strbuf_init(&hashed);
    char key[33];
    ch_cache_key_text(e, s->archs.items, key, &hashed);
    const char *agent = ch_cache_txn_get_meta(t, "agent");
    ch_report_facts f = {
        .entry = e,
        .key = key,
        .hashed = hashed.data,
        .status = ch_entry_status_name(status),
        .agent = agent ? agent : (s->agent ? s->agent->ops->name : NULL),
        .model = ch_cache_txn_get_meta(t, "model"),
        .checklist = c,
        .ev = ev,
        .gpu_min_size = out->kernel_src ? out->gpu_min_size : -1,
        .cold = &out->cold,
        .reason = refusal           ? refusal
                  : out->kernel_src ? NULL
                                    : out->reason,
    };
    cJSON *report = ch_report_entry_json(&f);
    char *json = cJSON_Print(report);
    ch_error err;
    if (ch_cache_put(t, "report.json", json, strlen(json), &err) != 0) {
        pthread_mutex_lock(&s->lock);
        ch_strvec_push_owned(&s->warnings,
                             ch_xasprintf("%s: report.json not stored: %s", e->name, err.msg));
        pthread_mutex_unlock(&s->lock);
    }
    free(json);
    cJSON_Delete(report);
    ch_strbuf_free(&hashed);
}

/* The pending candidates of a cache entry (candidates/0.cu, 1.cu ...), borrowed. */
static size_t pending_sources(const ch_cache_txn *t, const char **out, size_t cap)
{
    size_t n = 0;
    for (; n < cap; n++) {
        char name[32];
        snprintf(name, sizeof name, "candidates/%zu.cu", n);
        const ch_cache_file *f = ch_cache_txn_file(t, name);
        if (!f)
            break;
        out[n] = (const char *)f->data;
    }
    return n;
}

/* ---- setting up one entry's verification ---- */

static int evolve_opts(ch_session *s, const ch_entry *e, ch_evolve_opts *o, ch_error *err)
{
    memset(o, 0, sizeof *o);
    long budget = 0, jobs = 0;
    double time_limit = 0;
    const ch_config *cfg = s->cfg;
    if (ch_config_long(cfg, "budget", &budget, err) != 0 ||
        ch_config_double(cfg, "time", &time_limit, err) != 0)
        return -1;
    if (*ch_config_get(cfg, "jobs") && ch_config_long(cfg, "jobs", &jobs, err) != 0)
        return -1;
    if (jobs <= 0)
        jobs = sysconf(_SC_NPROCESSORS_ONLN);
    /* a budget() clause is the entry's own limit, and the source's: a cloned repository's
     * budget(100000) sent thousands of model requests on the user's key (attacks9 #31). It
     * may lower the budget in effect (default, config, environment), never raise it; the
     * command line's wins over it */
    if (budget <= 0)
        budget = 1;
    if (e->clauses.has_budget && s->budget_source < CH_CFG_CMDLINE) {
        if (e->clauses.budget > budget) {
            pthread_mutex_lock(&s->lock);
            ch_strvec_push_owned(
                &s->warnings,
                ch_xasprintf("%s:%u:%u: budget(%d) is above the budget in effect, %ld rounds "
                             "(a source may only lower it): capped at %ld; raise it in your own "
                             "~/.config/ch-cc/config, the environment (CH_CC_BUDGET) or with "
                             "--harness-budget",
                             e->file, e->clauses.budget_line, e->clauses.budget_col,
                             e->clauses.budget, budget, budget));
            pthread_mutex_unlock(&s->lock);
        } else {
            budget = e->clauses.budget;
        }
    }
    o->budget = (int)budget;
    o->time_limit = time_limit;
    o->jobs = (int)(jobs > 0 ? jobs : 1);
    /* two designs at once: enough to compare, and pending builds stay cheap without a GPU */
    o->width = o->budget < 2 ? o->budget : 2;
    /* and two children a round: a round (compile, functional runs, timing) is most of a cold
     * build's latency, and the walk's next move rarely needs the last one's result to exist */
    o->children = o->width;
    o->max_stage = ch_session_gpu(s)->have_gpu ? CH_STAGE_PERF : CH_STAGE_COMPILE;
    return 0;
}

/* Where the dispatcher switches to the GPU, from verification's measured curve (the host path
 * and the whole call at several sizes, ch_emit_dispatch_threshold), or without one from the
 * tune and small times (ch_emit_gpu_min_size); 0 (always the GPU) when the size cannot be
 * measured. */
static long long dispatch_threshold(const ch_entry *e, const ch_checklist *c,
                                    const ch_verify_report *r, double fixed_ms, double per_ms)
{
    double size = 0;
    if (ch_emit_size_eval(e, &c->tune, &size) != 0)
        size = 0;
    ch_dispatch_point pts[4];
    size_t n = 0;
    for (int k = 0; size > 0 && k < r->n_curve && k < 4; k++) {
        double at = 0;
        if (ch_emit_size_eval(e, r->curve_set[k], &at) == 0)
            pts[n++] = (ch_dispatch_point){at, r->curve_host_ms[k], r->curve_call_ms[k]};
    }
    if (n >= 2)
        return ch_emit_cold_threshold(pts, n, fixed_ms, per_ms);
    long long warm = ch_emit_gpu_min_size(size, r->host_ms, r->launcher_ms, r->small_ms);
    if (fixed_ms <= 0 && per_ms <= 0)
        return warm;
    /* the linear model with the cold cost on top: fixed_ms joins the fixed part, per_ms the
     * per-element one */
    double small = r->small_ms > 0 && r->small_ms < r->launcher_ms ? r->small_ms : 0;
    long long cold = ch_emit_gpu_min_size(
        size, r->host_ms, r->launcher_ms + fixed_ms + per_ms * size, small + fixed_ms);
    return cold > warm ? cold : warm;
}

/* The thresholds for a process's first calls from the cold costs verification measured (none:
 * all zero, the warm threshold alone decides). The buffers' first use is taken per element of
 * the size measure, from its cost at the tune size. */
static void cold_thresholds(const ch_entry *e, const ch_checklist *c, const ch_verify_report *r,
                            long long warm, ch_emit_cold *out)
{
    memset(out, 0, sizeof *out);
    double size = 0;
    if (r->setup_ms < 0 || ch_emit_size_eval(e, &c->tune, &size) != 0 || size <= 0)
        return;
    out->setup_ms = r->setup_ms;
    out->first_use_ms_per = r->first_use_ms > 0 ? r->first_use_ms / size : 0;
    long long b = dispatch_threshold(e, c, r, 0, out->first_use_ms_per);
    long long d = dispatch_threshold(e, c, r, out->setup_ms, out->first_use_ms_per);
    out->buffers_min_size = b > warm ? b : warm;
    out->device_min_size = d > out->buffers_min_size ? d : out->buffers_min_size;
}

/* The cold thresholds as cache meta (what from_cached reads back). */
static void put_cold_meta(ch_cache_txn *t, const ch_emit_cold *cold)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%lld", cold->buffers_min_size);
    ch_cache_txn_meta(t, "gpu_min_size_buffers", buf);
    snprintf(buf, sizeof buf, "%lld", cold->device_min_size);
    ch_cache_txn_meta(t, "gpu_min_size_cold", buf);
    snprintf(buf, sizeof buf, "%.17g", cold->setup_ms);
    ch_cache_txn_meta(t, "cold_setup_ms", buf);
    snprintf(buf, sizeof buf, "%.17g", cold->first_use_ms_per);
    ch_cache_txn_meta(t, "cold_first_use_ms_per", buf);
}

/* The cold thresholds from cache meta (meta(src, name): a hit's or a transaction's); an entry
 * stored before they were measured has none: all zero, and its dispatcher decides as before
 * from the warm threshold alone. */
static void cold_from_meta(const char *(*meta)(const void *src, const char *name), const void *src,
                           ch_emit_cold *out)
{
    memset(out, 0, sizeof *out);
    const char *buffers = meta(src, "gpu_min_size_buffers"),
               *device = meta(src, "gpu_min_size_cold");
    const char *setup = meta(src, "cold_setup_ms"), *per = meta(src, "cold_first_use_ms_per");
    if (!buffers || !device)
        return;
    out->buffers_min_size = strtoll(buffers, NULL, 10);
    out->device_min_size = strtoll(device, NULL, 10);
    out->setup_ms = setup ? strtod(setup, NULL) : 0;
    out->first_use_ms_per = per ? strtod(per, NULL) : 0;
}

static const char *hit_meta(const void *hit, const char *name)
{
    return ch_cache_hit_meta(hit, name);
}

static const char *txn_meta(const void *t, const char *name)
{
    return ch_cache_txn_get_meta(t, name);
}

/* A reference program that does not build. When the body calls a function the file does not
 * define (the reference links the user's file alone), the error is located at the call and so
 * recorded as this entry's refusal until the body changes; any other failure (a missing
 * compiler, a full disk) is left unlocated and is not recorded. */
static int reference_failure(const ch_entry *e, ch_error *err)
{
    static const char undefined[] = "' is not defined in this file";
    if (strstr(err->msg, "the inputs need a clause")) {
        /* the reference crashed on synthesized data: the fix is a clause at the pragma, and
         * the refusal is recorded until the pragma (or the body) changes */
        char *why = ch_xstrdup(err->msg);
        int rc = ch_error_at(err, e->file, e->line, e->col, "%s", why);
        free(why);
        return rc;
    }
    const char *end = strstr(err->msg, undefined);
    const char *begin = end ? end : NULL;
    while (begin && begin > err->msg && begin[-1] != '\'')
        begin--;
    if (begin && begin > err->msg && end > begin) {
        char *name = ch_xstrndup(begin, (size_t)(end - begin));
        const ch_ir *call = ch_ir_find(e->body, CH_IR_CALL, name);
        int rc = 0;
        if (call)
            rc = ch_error_at(err, e->file, call->line, call->col,
                             "%s calls '%s', which this file does not define: the reference "
                             "program runs the function's own body and links this file alone; "
                             "define '%s' in this file (or static inline in a header)",
                             e->name, name, name);
        free(name);
        if (call)
            return rc;
    }
    return ch_error_prefix(err, "%s: the reference does not build", e->name);
}

/* Each candidate that failed a stage moves that stage's counter (stage_NAME_failed). */
static void count_stage_failures(ch_session *s, const ch_evolution *ev)
{
    unsigned long long *by_stage[CH_STAGE_COUNT_] = {
        [CH_STAGE_STATIC] = &s->counts.stage_static_failed,
        [CH_STAGE_COMPILE] = &s->counts.stage_compile_failed,
        [CH_STAGE_SMOKE] = &s->counts.stage_smoke_failed,
        [CH_STAGE_CORRECT] = &s->counts.stage_correct_failed,
        [CH_STAGE_SANITIZE] = &s->counts.stage_sanitize_failed,
        [CH_STAGE_PERF] = &s->counts.stage_perf_failed,
    };
    for (size_t i = 0; i < ev->n; i++) {
        const ch_verify_report *r = &ev->cands[i].report;
        if (r->stage >= 0 && r->stage < CH_STAGE_COUNT_ && r->status[r->stage] == CH_ST_FAIL)
            ch_session_count(s, by_stage[r->stage]);
    }
}

/* A test author's reference for a spec-only entry is checked against ch-cc's own reading of
 * the words where the builtin reader has one (reference_agree.c says why): the reading goes
 * into o, owned by *r. A reference that is that reading needs no comparison. */
static void with_reading(const ch_entry *e, const char *reference_c, ch_spec_reading *r,
                         ch_oracle *o)
{
    ch_error ignored;
    if (!reference_c || e->kind != CH_KIND_SPEC_DECL || ch_spec_read(e, r, &ignored) != 0)
        return;
    if (strcmp(r->reference, reference_c) == 0)
        return;
    o->reading_c = r->reference;
    o->reading_how = r->how;
}

/* Runs the evolution for an entry whose checklist (and reference) are known, inside the
 * transaction t; fills the outcome from its result. */
static int evolve_entry(ch_session *s, const ch_entry *e, const char *tu, const ch_checklist *c,
                        const char *reference_c, const char *const *seeds, size_t n_seeds,
                        ch_agent *agent, ch_cache_txn *t, ch_outcome *out, ch_error *err)
{
    ch_evolve_opts o;
    if (evolve_opts(s, e, &o, err) != 0)
        return -1;
    if (!agent)
        o.budget = 0;
    ch_verify_setup vs;
    memset(&vs, 0, sizeof vs);
    vs.checklist = c;
    char *gpu_lock = NULL;
    ch_session_verify_setup(s, e, tu, reference_c, &vs, &gpu_lock);
    ch_spec_reading reading = {0};
    with_reading(e, reference_c, &reading, &vs.oracle);
    ch_verifier *v = NULL;
    int opened = ch_verifier_open(&vs, &v, err);
    if (opened != 0) {
        ch_spec_reading_free(&reading);
        free(gpu_lock);
        out->refusal = CH_REFUSAL_REFERENCE;
        /* a test author's reference that fails its probe (a crash, a leak, a time limit) is
         * not linked as the host path either: the entry then has none, as when the checks
         * refuse the reference's text */
        free(out->host_src);
        out->host_src = NULL;
        return reference_failure(e, err);
    }
    evo_ctx x = {s, e, v, agent, now_s()};
    ch_evolve_ops ops = {&x, evo_propose, evo_build, evo_test, evo_discard, evo_progress};
    ch_evolution ev;
    int rc = ch_evolve_run(&o, &ops, c, e, seeds, n_seeds, &ev, err);
    if (s->progress)
        s->progress(s->progress_ctx, NULL);
    if (rc == 0 && ev.n == 0 && ev.agent_error) {
        /* the agent refused the entry before proposing anything: the caller decides whether
         * that is worth recording (a located refusal) or may pass (a network failure) */
        err->located = strstr(ev.agent_error, ": error: ") != NULL;
        snprintf(err->msg, sizeof err->msg, "%s", ev.agent_error);
        rc = -1;
    } else if (rc == 0) {
        count_stage_failures(s, &ev);
        ch_entry_status status = record(t, &ev, o.max_stage, err);
        out->status = status;
        out->seconds = now_s() - x.started;
        out->candidates = (int)ev.n;
        if (status == CH_STATUS_VERIFIED) {
            const ch_candidate *best = &ev.cands[ev.best];
            out->kernel_src = ch_candidate_launcher_form(e->name, best->source);
            out->design = best->design ? ch_xstrdup(best->design) : NULL;
            out->launcher_ms = best->report.launcher_ms;
            out->fraction = best->report.fraction;
            out->gpu_min_size = dispatch_threshold(e, c, &best->report, 0, 0);
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", out->gpu_min_size);
            ch_cache_txn_meta(t, "gpu_min_size", buf);
            cold_thresholds(e, c, &best->report, out->gpu_min_size, &out->cold);
            put_cold_meta(t, &out->cold);
        } else if (status == CH_STATUS_PENDING) {
            out->fallback = CH_FALLBACK_PENDING;
            out->reason =
                ch_xasprintf("nothing can be verified here (%s); %d candidate%s wait "
                             "in the cache for a build with a GPU",
                             ch_session_gpu(s)->gpu.why, ev.pending, ev.pending == 1 ? "" : "s");
        } else {
            out->fallback = CH_FALLBACK_FAILED;
            const ch_candidate *far = ev.n ? &ev.cands[ev.n - 1] : NULL;
            for (size_t i = 0; i < ev.n; i++)
                if (ev.cands[i].report.stage >= (far ? far->report.stage : 0))
                    far = &ev.cands[i];
            out->reason = ch_xasprintf(
                "no candidate passed verification (%d tried, stopped: %s)%s%s", (int)ev.n,
                ev.stop_reason ? ev.stop_reason : "?", far && far->report.message ? "; best: " : "",
                far && far->report.message ? far->report.message : "");
        }
        put_report(s, t, e, c, &ev, status, out, NULL);
    }
    ch_evolution_free(&ev);
    ch_verifier_close(v);
    ch_spec_reading_free(&reading); /* the verifier's setup pointed into it */
    free(gpu_lock);
    return rc;
}

/* ---- a miss: generate ---- */

static int generate(ch_session *s, const ch_entry *e, const char *tu, ch_cache_txn *t,
                    ch_outcome *out, ch_error *err)
{
    ch_agent *agent = ch_session_agent(s, err);
    if (!agent)
        return -1;
    ch_checklist c;
    memset(&c, 0, sizeof c);
    char *reference_c = NULL;
    int rc =
        e->has_body ? ch_checklist_derive(e, &c, err) : agent->ops->checklist(agent, e, &c, err);
    if (rc == 0 && e->kind == CH_KIND_SPEC_DECL) {
        rc = agent->ops->test_author(agent, &c, &reference_c, err);
        if (rc == 0) {
            put_text(t, "reference.c", reference_c, err);
            out->host_src = ch_xstrdup(reference_c);
        } else if (strstr(err->msg, CH_AGENT_REFERENCE_REFUSED)) {
            /* the model answered, with references the checks refuse: a reference refusal
             * (not recorded: the next build asks again) */
            out->refusal = CH_REFUSAL_REFERENCE;
        }
    }
    if (rc == 0) {
        char *json = ch_checklist_to_json(&c);
        put_text(t, "checklist.json", json, err);
        free(json);
        ch_cache_txn_meta(t, "agent", agent->ops->name);
        ch_cache_txn_meta(t, "version", CH_CC_REVISION);
        ch_cache_txn_meta(t, "model", ch_config_get(s->cfg, "model"));
        rc = evolve_entry(s, e, tu, &c, reference_c, NULL, 0, agent, t, out, err);
    }
    free(reference_c);
    ch_checklist_free(&c);
    return rc;
}

/* ---- a pending entry and a GPU: verify what the cache holds ---- */

static int verify_pending(ch_session *s, const ch_entry *e, const char *tu, ch_cache_txn *t,
                          ch_outcome *out, ch_error *err)
{
    ch_checklist c;
    memset(&c, 0, sizeof c);
    const char *json = file_text(ch_cache_txn_file(t, "checklist.json"));
    const char *reference_c = file_text(ch_cache_txn_file(t, "reference.c"));
    if (!json || ch_checklist_from_json(json, &c, err) != 0)
        return ch_error_set(err, "%s: the cached checklist is unusable", e->name);
    ch_checklist_note_map(&c, e); /* the user's body decides, not the cached JSON */
    const char *seeds[16];
    size_t n = pending_sources(t, seeds, 16);
    int offline = 0;
    ch_config_bool(s->cfg, "offline", &offline, err);
    ch_error agent_err;
    /* the agent is asked only when none of the pending candidates verifies */
    ch_agent *agent = offline ? NULL : ch_session_agent(s, &agent_err);
    if (reference_c)
        out->host_src = ch_xstrdup(reference_c);
    int rc = evolve_entry(s, e, tu, &c, reference_c, seeds, n, agent, t, out, err);
    ch_checklist_free(&c);
    return rc;
}

/* ---- an entry's outcome from a cache entry's files ---- */

static void from_cached(ch_session *s, ch_entry_status status, const ch_cache_file *kernel,
                        const ch_cache_file *reference, const char *design, const char *why,
                        const char *refusal, const char *gpu_min, ch_outcome *out)
{
    out->status = status;
    if (reference && !out->host_src)
        out->host_src = ch_xstrdup((const char *)reference->data);
    if (status == CH_STATUS_VERIFIED && kernel) {
        /* the cache keeps the kernel as its author wrote it; the emitted unit calls
         * NAME_launcher, as the scaffold that verified it did */
        out->kernel_src = ch_candidate_launcher_form(out->entry->name, (const char *)kernel->data);
        out->gpu_min_size = gpu_min ? strtoll(gpu_min, NULL, 10) : 0;
        out->design = design && *design ? ch_xstrdup(design) : NULL;
        out->cached = 1;
    } else if (status == CH_STATUS_PENDING) {
        out->fallback = CH_FALLBACK_PENDING;
        out->reason = ch_xasprintf("nothing can be verified here (%s); the cached candidates "
                                   "wait for a build with a GPU",
                                   ch_session_gpu(s)->gpu.why);
    } else if (why && *why) {
        out->reason = ch_xstrdup(why);
        out->refused = 1;
        out->fallback = CH_FALLBACK_REFUSED;
        out->refusal = ch_refusal_parse(refusal);
    } else {
        out->fallback = CH_FALLBACK_FAILED;
        out->reason = ch_xasprintf("the cache records that no kernel verified for this entry "
                                   "(%s; --harness-clean or a change to the function retries)",
                                   ch_entry_status_name(status));
    }
}

/* The outcome of a cache hit; the outcome takes the hit (its objects/ serve the emit step
 * without reading the entry again). */
static void from_hit(ch_session *s, ch_cache_hit *hit, ch_outcome *out)
{
    from_cached(s, ch_entry_status_parse(ch_cache_hit_meta(hit, "status")),
                ch_cache_hit_file(hit, "kernel.cu"), ch_cache_hit_file(hit, "reference.c"),
                ch_cache_hit_meta(hit, "design"), ch_cache_hit_meta(hit, "reason"),
                ch_cache_hit_meta(hit, "refusal"), ch_cache_hit_meta(hit, "gpu_min_size"), out);
    if (out->kernel_src)
        cold_from_meta(hit_meta, hit, &out->cold);
    out->hit = *hit;
    ch_cache_hit_init(hit);
}

/* A cache, lock or disk fault costs the kernel, never the build: the entry takes its host path
 * with the fault as its reason (an error only under --harness-on-fail=error, as for any entry
 * without a kernel). */
static int cache_fault(ch_outcome *out, const ch_error *err)
{
    free(out->reason);
    out->fallback = CH_FALLBACK_CACHE_FAULT;
    out->reason = ch_xasprintf("kernel cache fault (%s)", err->msg);
    return 0;
}

/* Stores what was made; a store that fails (full disk, tmp/ gone) loses only the cache copy:
 * the kernel made in this build is still linked. */
static int commit_or_warn(ch_session *s, ch_cache_txn *t, const ch_outcome *out)
{
    ch_error e;
    if (ch_cache_commit(t, &e) != 0) {
        pthread_mutex_lock(&s->lock);
        ch_strvec_push_owned(&s->warnings, ch_xasprintf("%s: kernel not stored in the cache: %s",
                                                        out->entry->name, e.msg));
        pthread_mutex_unlock(&s->lock);
    }
    return 0;
}

/* Under the key's lock (t holds the entry as it is now): verify pending candidates when a GPU
 * is here, else take what is cached. */
static int serve_locked(ch_session *s, const ch_entry *e, const char *tu, ch_cache_txn *t,
                        ch_outcome *out, ch_error *err)
{
    ch_entry_status status = ch_entry_status_parse(ch_cache_txn_get_meta(t, "status"));
    if (status == CH_STATUS_PENDING && ch_session_gpu(s)->have_gpu) {
        if (verify_pending(s, e, tu, t, out, err) != 0)
            return -1;
        if (out->status == CH_STATUS_VERIFIED)
            ch_session_count(s, &s->counts.pending_verified);
        return commit_or_warn(s, t, out);
    }
    from_cached(s, status, ch_cache_txn_file(t, "kernel.cu"), ch_cache_txn_file(t, "reference.c"),
                ch_cache_txn_get_meta(t, "design"), ch_cache_txn_get_meta(t, "reason"),
                ch_cache_txn_get_meta(t, "refusal"), ch_cache_txn_get_meta(t, "gpu_min_size"), out);
    if (out->kernel_src)
        cold_from_meta(txn_meta, t, &out->cold);
    ch_cache_abort(t);
    return 0;
}

static int fresh(ch_session *s, const ch_entry *e, const char *tu, ch_cache_txn *t, ch_outcome *out,
                 ch_error *err);

/* A "failed" or "unsupported" entry recorded by another provider than the configured one, or
 * by another revision of ch-cc (whose builtin agent may translate what an older one refused). */
static int retry_with_other_agent(ch_session *s, const ch_cache_hit *hit)
{
    const char *word = ch_cache_hit_meta(hit, "status");
    ch_entry_status status = ch_entry_status_parse(word);
    const char *agent = ch_cache_hit_meta(hit, "agent");
    const char *version = ch_cache_hit_meta(hit, "version");
    const char *now = ch_config_get(s->cfg, "provider");
    if (!word || (status != CH_STATUS_FAILED && status != CH_STATUS_UNSUPPORTED))
        return 0;
    if (!version || strcmp(version, CH_CC_REVISION) != 0)
        return 1;
    return agent && *now && strcmp(agent, now) != 0;
}

static int serve(ch_session *s, const ch_entry *e, const char *tu, ch_outcome *out, ch_error *err)
{
    if (!s->cache) {
        out->fallback = CH_FALLBACK_NO_CACHE;
        out->reason = ch_xasprintf("the kernel cache is unavailable (%s)", s->cache_err.msg);
        return 0;
    }
    ch_cache_hit hit;
    ch_cache_hit_init(&hit);
    int found = ch_cache_lookup(s->cache, out->key, &hit, err);
    if (found < 0)
        return cache_fault(out, err);
    ch_entry_status status =
        ch_entry_status_parse(found ? ch_cache_hit_meta(&hit, "status") : NULL);
    int offline = 0;
    ch_config_bool(s->cfg, "offline", &offline, err);
    if (found && !offline && retry_with_other_agent(s, &hit)) {
        /* a failure recorded by another agent: this one may succeed */
        ch_cache_hit_free(&hit);
        ch_cache_txn *t = NULL;
        if (ch_cache_begin_update(s->cache, out->key, &t, err) != 0)
            return cache_fault(out, err);
        return fresh(s, e, tu, t, out, err);
    }
    if (found && !(status == CH_STATUS_PENDING && ch_session_gpu(s)->have_gpu)) {
        from_hit(s, &hit, out);
        return 0;
    }
    ch_cache_hit_free(&hit);
    if (!found && offline) {
        out->fallback = CH_FALLBACK_OFFLINE;
        out->reason =
            ch_xstrdup("not in the kernel cache and CH_CC_OFFLINE forbids asking an agent");
        return 0;
    }
    ch_cache_txn *t = NULL;
    int rc = found ? ch_cache_begin_update(s->cache, out->key, &t, err)
                   : ch_cache_begin(s->cache, out->key, &t, &hit, err);
    if (rc < 0)
        return cache_fault(out, err);
    if (rc == 1) { /* another build generated it while this one waited for the lock */
        from_hit(s, &hit, out);
        return 0;
    }
    if (found)
        return serve_locked(s, e, tu, t, out, err);
    return fresh(s, e, tu, t, out, err);
}

/* The counter of a host path's class. */
static unsigned long long *fallback_counter(ch_session *s, ch_fallback f)
{
    unsigned long long *by_fallback[CH_FALLBACK_COUNT_] = {
        [CH_FALLBACK_NONE] = NULL,
        [CH_FALLBACK_NO_CACHE] = &s->counts.fallback_no_cache,
        [CH_FALLBACK_CACHE_FAULT] = &s->counts.fallback_cache_fault,
        [CH_FALLBACK_OFFLINE] = &s->counts.fallback_offline,
        [CH_FALLBACK_PENDING] = &s->counts.fallback_pending,
        [CH_FALLBACK_FAILED] = &s->counts.fallback_failed,
        [CH_FALLBACK_REFUSED] = &s->counts.fallback_refused,
        [CH_FALLBACK_AGENT] = &s->counts.fallback_agent,
        [CH_FALLBACK_OBJECT] = &s->counts.fallback_object,
    };
    assert(f > CH_FALLBACK_NONE && f < CH_FALLBACK_COUNT_);
    return by_fallback[f];
}

/* The counters an outcome moves: a host path by its class, a refusal by its class (recorded,
 * or a reference refused and not recorded: a model's, which the next build asks for again), a
 * pending entry. */
static void count_outcome(ch_session *s, const ch_outcome *out)
{
    assert(out->fallback >= 0 && out->fallback < CH_FALLBACK_COUNT_);
    if (out->kernel_src) {
        assert(out->fallback == CH_FALLBACK_NONE);
        return;
    }
    /* every host path has a class: the fallback_ counters add up to host_fallbacks */
    assert(out->fallback != CH_FALLBACK_NONE);
    ch_session_count(s, &s->counts.host_fallbacks);
    ch_session_count(s, fallback_counter(s, out->fallback));
    if (out->refusal == CH_REFUSAL_REFERENCE)
        ch_session_count(s, &s->counts.refused_reference);
    else if (out->fallback == CH_FALLBACK_REFUSED)
        ch_session_count(s, &s->counts.refused_translator);
    if (out->status == CH_STATUS_PENDING)
        ch_session_count(s, &s->counts.pending_entries);
}

void ch_session_fall_back(ch_session *s, ch_outcome *o, ch_fallback f, const char *reason)
{
    assert(o->kernel_src && o->fallback == CH_FALLBACK_NONE); /* counted once, as a kernel */
    free(o->kernel_src);
    free(o->design);
    free(o->reason);
    o->kernel_src = NULL;
    o->design = NULL;
    o->reason = ch_xstrdup(reason);
    o->fallback = f;
    count_outcome(s, o);
}

int ch_session_entry(ch_session *s, const ch_entry *e, const char *tu, ch_outcome *out,
                     ch_error *err)
{
    memset(out, 0, sizeof *out);
    ch_cache_hit_init(&out->hit);
    out->entry = e;
    out->launcher_ms = out->fraction = -1;
    if (ch_session_key(s, e, out->key, err) != 0)
        return -1;
    int rc = serve(s, e, tu, out, err);
    if (rc == 0)
        count_outcome(s, out);
    return rc;
}

/* A refusal for a warning line: a located error loses its "error:" word (it is the reason of
 * a warning, not an error of the build). Caller frees. */
static char *refusal_text(const ch_error *e)
{
    const char *at = e->located ? strstr(e->msg, ": error: ") : NULL;
    if (!at)
        return ch_xstrdup(e->msg);
    return ch_xasprintf("%.*s: %s", (int)(at - e->msg), e->msg, at + strlen(": error: "));
}

/* Generates the entry inside t (a new entry, or one replacing a recorded failure). */
static int fresh(ch_session *s, const ch_entry *e, const char *tu, ch_cache_txn *t, ch_outcome *out,
                 ch_error *err)
{
    ch_cache_txn_meta(t, "name", e->name);
    ch_cache_txn_meta(t, "kind", ch_kind_name(e->kind));
    ch_error gen_err;
    ch_error_clear(&gen_err);
    if (generate(s, e, tu, t, out, &gen_err) != 0) {
        /* an agent that cannot be reached may work next time: nothing is cached; a refusal
         * (the builtin agent cannot translate this body) is cached with its reason */
        if (s->agent && !gen_err.located) {
            ch_cache_abort(t);
        } else if (s->agent) {
            if (!out->refusal)
                out->refusal = CH_REFUSAL_TRANSLATOR;
            out->status = CH_STATUS_UNSUPPORTED;
            ch_cache_txn_meta(t, "agent", s->agent->ops->name);
            ch_cache_txn_meta(t, "version", CH_CC_REVISION);
            ch_cache_txn_meta(t, "status", ch_entry_status_name(CH_STATUS_UNSUPPORTED));
            ch_cache_txn_meta(t, "refusal", ch_refusal_name(out->refusal));
            char *why = refusal_text(&gen_err);
            ch_cache_txn_meta(t, "reason", why);
            put_report(s, t, e, NULL, NULL, CH_STATUS_UNSUPPORTED, out, why);
            free(why);
            ch_error ce;
            ch_cache_commit(t, &ce);
        } else {
            ch_cache_abort(t);
        }
        free(out->reason);
        out->reason = refusal_text(&gen_err);
        out->refused = 1;
        /* only a located refusal is the entry's: anything else may pass next time */
        out->fallback = s->agent && gen_err.located ? CH_FALLBACK_REFUSED : CH_FALLBACK_AGENT;
        return 0;
    }
    return commit_or_warn(s, t, out);
}

void ch_outcome_free(ch_outcome *o)
{
    free(o->kernel_src);
    free(o->host_src);
    free(o->design);
    free(o->reason);
    ch_cache_hit_free(&o->hit);
    memset(o, 0, sizeof *o);
}
