/* Feedback-adaptive evolution (DESIGN §3; the full explanation is in ch/evolve.h): seeds first,
 * then a first round of `width` proposals, then `children` children a round of the fastest correct
 * candidate (or, while none is correct, the one that got furthest), until a stop condition.
 * Stages 0-1 run on up to `jobs` threads, stages 2.. on up to `test_jobs` (the verifier lets
 * only one candidate at a time time itself on the GPU). A candidate whose source is identical
 * to an earlier one is neither built nor tested: it gets that one's verdict.
 *
 * Invariants: candidates are only ever appended, so an id is an index into ev->cands and a
 * parent precedes its children (and the candidate a duplicate copies); the array is never
 * reallocated while builds or tests run; every candidate's verifier state (c->build) is released
 * by test or discard before the loop returns, also on internal errors. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "ch/emit.h"
#include "ch/evolve.h"
#include "ch/strbuf.h"

/* One run of the loop: options with defaults applied, and the counters selection uses. */
typedef struct evo {
    ch_evolve_opts o;
    const ch_evolve_ops *ops;
    const ch_checklist *ck;
    const ch_entry *entry;
    ch_evolution *ev;
    struct timespec start;
    int stale;      /* children without gain since a correct candidate exists */
    int failed_run; /* consecutive failed children (rounds 1..) since the last fresh design */
} evo;

static double elapsed(const evo *e)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - e->start.tv_sec) + (t.tv_nsec - e->start.tv_nsec) / 1e9;
}

static int time_up(const evo *e)
{
    return e->o.time_limit > 0 && elapsed(e) >= e->o.time_limit;
}

static ch_evolve_opts resolve_opts(const ch_evolve_opts *in)
{
    ch_evolve_opts o = *in;
    if (o.budget < 0)
        o.budget = 0;
    if (o.time_limit < 0)
        o.time_limit = 0;
    if (o.width < 1)
        o.width = 1;
    if (o.jobs < 1)
        o.jobs = 1;
    if (o.test_jobs < 1)
        o.test_jobs = o.jobs;
    if (o.children < 1)
        o.children = 1;
    if (o.plateau_rounds <= 0)
        o.plateau_rounds = 3;
    if (o.plateau_gain <= 0)
        o.plateau_gain = 0.02;
    if (o.near_floor <= 0)
        o.near_floor = 0.9;
    if (o.fresh_after <= 0)
        o.fresh_after = 3;
    return o;
}

/* ---- judging ------------------------------------------------------------------------------ */

int ch_candidate_ok(const ch_candidate *c, int max_stage)
{
    if (max_stage >= CH_STAGE_SANITIZE)
        return c->report.correct;
    for (int s = 0; s <= max_stage && s < CH_STAGE_COUNT_; s++)
        if (c->report.status[s] != CH_ST_PASS && c->report.status[s] != CH_ST_SKIP)
            return 0;
    return 1;
}

/* Stages 0-1 passed and nothing failed: worth testing on the GPU. */
static int build_passed(const ch_candidate *c)
{
    ch_stage_status st = c->report.status[CH_STAGE_STATIC];
    return (st == CH_ST_PASS || st == CH_ST_SKIP) &&
           c->report.status[CH_STAGE_COMPILE] == CH_ST_PASS;
}

/* The times a and b are ranked by: their kernels alone when both were timed on device-resident
 * data (what a kernel author changes; the copies of a host-pointer call are the same for every
 * candidate once the runtime makes them), else their whole calls. -1: untimed. */
static void rank_times(const ch_candidate *a, const ch_candidate *b, double *ta, double *tb)
{
    int kernels = a->report.kernel_resident && b->report.kernel_resident &&
                  a->report.kernel_ms >= 0 && b->report.kernel_ms >= 0;
    *ta = kernels ? a->report.kernel_ms : a->report.launcher_ms;
    *tb = kernels ? b->report.kernel_ms : b->report.launcher_ms;
}

/* Nonzero when a is faster than b: timed candidates before untimed ones, earlier on ties. */
static int faster(const ch_candidate *a, const ch_candidate *b)
{
    double ta, tb;
    rank_times(a, b, &ta, &tb);
    if (ta < 0)
        return 0;
    return tb < 0 || ta < tb;
}

/* Whether a user's program can run c on the GPU (ch_emit_gpu_refusal): for host pointers only
 * a candidate with NAME_device_launcher, whose data the trusted runtime moves. */
static int linkable(const ch_entry *e, const ch_candidate *c)
{
    char *why = ch_emit_gpu_refusal(e, c->source);
    free(why);
    return why == NULL;
}

/* The fastest correct candidate a user's program can run on the GPU; while there is none, the
 * fastest correct one (verified, but linked as the host path: the report says why). */
static int find_best(const ch_evolution *ev, const ch_entry *e)
{
    int best = -1, best_linked = -1;
    for (size_t i = 0; i < ev->n; i++) {
        const ch_candidate *c = &ev->cands[i];
        if (!c->report.correct)
            continue;
        if (best < 0 || faster(c, &ev->cands[best]))
            best = (int)i;
        if (linkable(e, c) && (best_linked < 0 || faster(c, &ev->cands[best_linked])))
            best_linked = (int)i;
    }
    return best_linked >= 0 ? best_linked : best;
}

/* The parent of the next child: the best correct candidate, else the failure that got furthest
 * (the later one on ties); -1 when there is none (a fresh design then). */
static int pick_parent(const evo *e)
{
    if (e->ev->best >= 0)
        return e->ev->best;
    int p = -1;
    for (size_t i = 0; i < e->ev->n; i++) {
        const ch_candidate *c = &e->ev->cands[i];
        if (!ch_candidate_ok(c, e->o.max_stage) &&
            (p < 0 || c->report.stage >= e->ev->cands[p].report.stage))
            p = (int)i;
    }
    return p;
}

/* Did the best candidate change from prev to cur by more than plateau_gain? */
static int gained(const evo *e, int prev, int cur)
{
    if (cur < 0 || cur == prev)
        return 0;
    if (prev < 0)
        return 1;
    double tp, tc;
    rank_times(&e->ev->cands[prev], &e->ev->cands[cur], &tp, &tc);
    if (tc < 0)
        return 0;
    return tp < 0 || tc < tp * (1 - e->o.plateau_gain);
}

static void refresh(evo *e)
{
    ch_evolution *ev = e->ev;
    ev->best = find_best(ev, e->entry);
    ev->pending = 0;
    for (size_t i = 0; i < ev->n; i++)
        ev->pending += ev->cands[i].dup_of < 0 && ch_candidate_ok(&ev->cands[i], e->o.max_stage);
    ev->seconds = elapsed(e);
}

/* ---- the population ----------------------------------------------------------------------- */

/* Appends a candidate, taking ownership of src, design and feedback. Its report stays zeroed
 * until build initializes it. */
static ch_candidate *add_candidate(ch_evolution *ev, char *src, char *design, char *feedback,
                                   int parent, int round)
{
    if (ev->n == ev->cap) {
        ev->cap = ev->cap ? 2 * ev->cap : 8;
        ev->cands = ch_xrealloc(ev->cands, ev->cap * sizeof *ev->cands);
    }
    ch_candidate *c = &ev->cands[ev->n];
    memset(c, 0, sizeof *c);
    c->id = (int)ev->n++;
    c->parent = parent;
    c->round = round;
    c->source = src;
    c->design = design;
    c->feedback = feedback;
    c->dup_of = -1;
    snprintf(c->hash, sizeof c->hash, "%016llx", (unsigned long long)XXH3_64bits(src, strlen(src)));
    return c;
}

/* Marks each of candidates [first, n) whose source is byte-identical to an earlier candidate's
 * (of this batch or before) as its duplicate: it will not be built or tested. */
static void mark_duplicates(ch_evolution *ev, size_t first)
{
    for (size_t i = first; i < ev->n; i++) {
        ch_candidate *c = &ev->cands[i];
        for (size_t j = 0; j < i && c->dup_of < 0; j++) {
            const ch_candidate *o = &ev->cands[j];
            if (o->dup_of < 0 && strcmp(o->hash, c->hash) == 0 && strcmp(o->source, c->source) == 0)
                c->dup_of = (int)j;
        }
    }
}

/* A duplicate's verdict: a copy of the report of the candidate it repeats (already judged). */
static void copy_verdict(ch_evolution *ev, ch_candidate *c)
{
    const ch_candidate *o = &ev->cands[c->dup_of];
    ch_verify_report_free(&c->report);
    ch_verify_report_copy(&c->report, &o->report);
    char *m = ch_xasprintf("%s (the verdict of candidate %d: identical source, not verified again)",
                           o->report.message ? o->report.message : "", o->id);
    free(c->report.message);
    c->report.message = m;
    c->built = o->built;
    c->tested = o->tested;
}

static void discard(evo *e, ch_candidate *c)
{
    if (e->ops->discard)
        e->ops->discard(e->ops->ctx, c);
    c->build = NULL;
}

/* ---- stages 0-1, then 2.., on several threads ---------------------------------------------- */

/* Workers over candidates [next, end): build (stages 0-1) or test (stages 2..) those marked in
 * `run` (1), marking each one they start (2). After an internal error no new one starts; those
 * running finish. */
typedef struct pool {
    const ch_evolve_ops *ops;
    ch_candidate *cands;
    char *run; /* indexed from `first` */
    size_t first, next, end;
    int testing;
    pthread_mutex_t mu;
    int failed;
    ch_error err; /* the first internal error */
} pool;

static void *pool_worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->failed && p->next < p->end && !p->run[p->next - p->first])
            p->next++;
        size_t i = p->failed || p->next >= p->end ? p->end : p->next++;
        if (i != p->end)
            p->run[i - p->first] = 2;
        pthread_mutex_unlock(&p->mu);
        if (i == p->end)
            return NULL;
        ch_candidate *c = &p->cands[i];
        ch_error err;
        ch_error_clear(&err);
        int rc =
            p->testing ? p->ops->test(p->ops->ctx, c, &err) : p->ops->build(p->ops->ctx, c, &err);
        if (p->testing)
            c->build = NULL; /* test released it, also on failure */
        if (rc == 0) {
            if (p->testing)
                c->tested = 1;
            else
                c->built = 1;
            continue;
        }
        pthread_mutex_lock(&p->mu);
        if (!p->failed) {
            p->failed = 1;
            p->err = err;
        }
        pthread_mutex_unlock(&p->mu);
    }
}

/* Runs the marked candidates of [first, end) on up to `jobs` threads; -1 with err after an
 * internal error. */
static int run_pool(evo *e, size_t first, size_t end, char *run, int testing, int jobs,
                    ch_error *err)
{
    pool p = {.ops = e->ops,
              .cands = e->ev->cands,
              .run = run,
              .first = first,
              .next = first,
              .end = end,
              .testing = testing};
    pthread_mutex_init(&p.mu, NULL);
    size_t marked = 0;
    for (size_t i = first; i < end; i++)
        marked += run[i - first] != 0;
    size_t want = marked < (size_t)jobs ? marked : (size_t)jobs;
    pthread_t tid[64];
    size_t started = 0;
    if (want > sizeof tid / sizeof *tid)
        want = sizeof tid / sizeof *tid;
    while (want > 1 && started < want && pthread_create(&tid[started], NULL, pool_worker, &p) == 0)
        started++;
    if (started == 0)
        pool_worker(&p);
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.mu);
    if (!p.failed)
        return 0;
    *err = p.err;
    return -1;
}

/* Builds candidates [first, end) but duplicates. On an internal error every one of them is
 * discarded. */
static int build_batch(evo *e, size_t first, size_t end, ch_error *err)
{
    char *run = ch_xcalloc(end - first, 1);
    for (size_t i = first; i < end; i++)
        run[i - first] = e->ev->cands[i].dup_of < 0;
    int rc = run_pool(e, first, end, run, 0, e->o.jobs, err);
    free(run);
    for (size_t i = first; i < end; i++)
        if (!e->ev->cands[i].report.details) /* never built, or build left it zeroed */
            ch_verify_report_init(&e->ev->cands[i].report);
    if (rc == 0)
        return 0;
    for (size_t i = first; i < end; i++)
        discard(e, &e->ev->cands[i]);
    return -1;
}

/* Tests the built candidates of [first, end) that passed stages 0-1 (when a GPU can run
 * them), discards the others, gives duplicates their verdicts, then reports each to progress
 * in order. */
static int judge_batch(evo *e, size_t first, size_t end, ch_error *err)
{
    char *run = ch_xcalloc(end - first, 1);
    for (size_t i = first; i < end; i++) {
        const ch_candidate *c = &e->ev->cands[i];
        run[i - first] =
            c->dup_of < 0 && c->built && build_passed(c) && e->o.max_stage > CH_STAGE_COMPILE;
    }
    int rc = run_pool(e, first, end, run, 1, e->o.test_jobs, err);
    for (size_t i = first; i < end; i++) {
        ch_candidate *c = &e->ev->cands[i];
        if (run[i - first] != 2)
            discard(e, c); /* not testable, or not started after an internal error */
        if (rc == 0 && c->dup_of >= 0)
            copy_verdict(e->ev, c);
        refresh(e);
        if (rc == 0 && e->ops->progress)
            e->ops->progress(e->ops->ctx, e->ev, c);
    }
    free(run);
    return rc;
}

static int verify_batch(evo *e, size_t first, ch_error *err)
{
    size_t end = e->ev->n;
    if (first == end)
        return 0;
    mark_duplicates(e->ev, first);
    if (build_batch(e, first, end, err) != 0 || judge_batch(e, first, end, err) != 0) {
        e->ev->stop_reason = "internal error";
        return -1;
    }
    return 0;
}

/* ---- the agent ---------------------------------------------------------------------------- */

/* One request. Adds the child (taking feedback) and returns 0, or sets the stop reason, frees
 * feedback and returns 1. */
static int ask(evo *e, const ch_kernel_request *req, int parent, char *feedback)
{
    char *src = NULL, *design = NULL;
    ch_error aerr;
    ch_error_clear(&aerr);
    int rc = e->ops->propose(e->ops->ctx, req, &src, &design, &aerr);
    e->ev->requests++;
    if (rc == 0 && src) {
        add_candidate(e->ev, src, design, feedback, parent, req->round);
        return 0;
    }
    free(src);
    free(design);
    free(feedback);
    if (rc == 1) {
        e->ev->stop_reason = "agent has nothing new";
        free(e->ev->agent_note);
        e->ev->agent_note = aerr.msg[0] ? ch_xstrdup(aerr.msg) : NULL;
    } else {
        e->ev->stop_reason = "agent error";
        free(e->ev->agent_error);
        e->ev->agent_error = ch_xstrdup(rc == 0 ? "the agent returned no source" : aerr.msg);
    }
    return 1;
}

/* Round 0: up to `width` independent designs. */
static void first_round(evo *e)
{
    int want = e->o.budget - e->ev->requests;
    if (want > e->o.width)
        want = e->o.width;
    for (int i = 0; i < want; i++) {
        if (i > 0 && time_up(e)) {
            e->ev->stop_reason = "time limit";
            return;
        }
        ch_kernel_request req = {
            .checklist = e->ck, .entry = e->entry, .round = 0, .fresh_design = i > 0};
        if (ask(e, &req, -1, NULL) != 0)
            return;
    }
}

/* The figures of a correct, timed parent for agents that read numbers; 0 when it has none. */
static int parent_perf(const ch_candidate *c, ch_kernel_perf *perf)
{
    const ch_verify_report *r = &c->report;
    double ms = r->kernel_resident ? r->kernel_ms : r->launcher_ms;
    if (!r->correct || ms < 0)
        return 0;
    perf->ms = ms;
    perf->fraction = r->fraction;
    ch_verify_resources(r, &perf->registers, &perf->smem_bytes, &perf->spill_bytes);
    return 1;
}

/* Rounds 1..: `children` children of the selected parent, asked one after the other with the
 * same feedback (an agent that remembers what it proposed, as the builtin walk does, moves
 * along another axis each time), or fresh designs after repeated failures. */
static void next_round(evo *e, int round)
{
    ch_kernel_perf perf;
    int parent = pick_parent(e);
    int fresh = parent < 0 || (e->ev->best < 0 && e->failed_run >= e->o.fresh_after);
    ch_kernel_request req = {.checklist = e->ck, .entry = e->entry, .round = round};
    char *feedback = NULL;
    if (fresh) {
        parent = -1;
        req.fresh_design = 1;
        e->failed_run = 0;
    } else {
        feedback = ch_verify_feedback(&e->ev->cands[parent].report);
        req.feedback = feedback;
        req.parent_source = e->ev->cands[parent].source;
        if (parent_perf(&e->ev->cands[parent], &perf))
            req.perf = &perf;
    }
    for (int i = 0; i < e->o.children; i++) {
        if (i > 0 && (e->ev->requests >= e->o.budget || time_up(e)))
            break;
        /* each child owns its copy of the feedback it was written from */
        if (ask(e, &req, parent, feedback ? ch_xstrdup(feedback) : NULL) == 0)
            continue;
        /* an agent out of moves around this parent may have more around the child it gave:
         * only a round without any child ends the loop that way */
        if (i > 0 && e->ev->stop_reason && !strcmp(e->ev->stop_reason, "agent has nothing new"))
            e->ev->stop_reason = NULL;
        break;
    }
    free(feedback);
}

/* Stop conditions that depend on the round's results; NULL: go on. */
static const char *after_round(evo *e, int prev_best, size_t first)
{
    ch_evolution *ev = e->ev;
    for (size_t i = first; i < ev->n; i++) {
        if (ev->cands[i].round < 1)
            continue;
        if (ch_candidate_ok(&ev->cands[i], e->o.max_stage))
            e->failed_run = 0;
        else
            e->failed_run++;
    }
    if (ev->best >= 0) {
        e->stale = gained(e, prev_best, ev->best) ? 0 : e->stale + (int)(ev->n - first);
        if (ev->cands[ev->best].report.fraction >= e->o.near_floor)
            return "near the floor";
        if (e->stale >= e->o.plateau_rounds)
            return "plateau";
    }
    if (e->o.max_stage <= CH_STAGE_COMPILE && ev->pending >= e->o.width)
        return "pending candidates collected";
    return NULL;
}

/* One round: the request(s), their verification and the stop checks. -1: internal error. */
static int run_round(evo *e, int round, ch_error *err)
{
    ch_evolution *ev = e->ev;
    if (ev->requests >= e->o.budget) {
        ev->stop_reason = "budget";
        return 0;
    }
    if (time_up(e)) {
        ev->stop_reason = "time limit";
        return 0;
    }
    int prev_best = ev->best;
    size_t first = ev->n;
    if (round == 0)
        first_round(e);
    else
        next_round(e, round);
    if (ev->n == first)
        return 0; /* the agent stopped it */
    ev->rounds = round + 1;
    if (verify_batch(e, first, err) != 0)
        return -1;
    const char *stop = after_round(e, prev_best, first);
    if (!ev->stop_reason)
        ev->stop_reason = stop;
    return 0;
}

static int run_seeds(evo *e, const char *const *seeds, size_t n_seeds, ch_error *err)
{
    size_t first = e->ev->n;
    for (size_t i = 0; i < n_seeds; i++)
        if (seeds[i])
            add_candidate(e->ev, ch_xstrdup(seeds[i]), NULL, NULL, -1, -1);
    if (verify_batch(e, first, err) != 0)
        return -1;
    for (size_t i = first; i < e->ev->n; i++)
        if (ch_candidate_ok(&e->ev->cands[i], e->o.max_stage))
            e->ev->stop_reason = "pending candidates verified";
    return 0;
}

int ch_evolve_run(const ch_evolve_opts *opts, const ch_evolve_ops *ops, const ch_checklist *c,
                  const ch_entry *e, const char *const *seeds, size_t n_seeds, ch_evolution *out,
                  ch_error *err)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    evo st = {.o = resolve_opts(opts), .ops = ops, .ck = c, .entry = e, .ev = out};
    clock_gettime(CLOCK_MONOTONIC, &st.start);
    int rc = n_seeds ? run_seeds(&st, seeds, n_seeds, err) : 0;
    for (int round = 0; rc == 0 && !out->stop_reason; round++)
        rc = run_round(&st, round, err);
    out->seconds = elapsed(&st);
    return rc;
}

void ch_evolution_free(ch_evolution *ev)
{
    if (!ev)
        return;
    for (size_t i = 0; i < ev->n; i++) {
        ch_candidate *c = &ev->cands[i];
        free(c->source);
        free(c->design);
        free(c->feedback);
        ch_verify_report_free(&c->report);
    }
    free(ev->cands);
    free(ev->agent_error);
    free(ev->agent_note);
    memset(ev, 0, sizeof *ev);
    ev->best = -1;
}

/* ---- history ------------------------------------------------------------------------------ */

static void add_ms(cJSON *o, const char *name, double v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, v);
}

static void add_str(cJSON *o, const char *name, const char *s)
{
    if (s)
        cJSON_AddStringToObject(o, name, s);
    else
        cJSON_AddNullToObject(o, name);
}

static void add_id(cJSON *o, const char *name, int id)
{
    if (id < 0)
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, id);
}

static const char *verdict(const ch_candidate *c)
{
    if (c->report.correct)
        return "correct";
    if (!build_passed(c))
        return "failed";
    for (int s = 0; s < CH_STAGE_COUNT_; s++)
        if (c->report.status[s] == CH_ST_FAIL)
            return "failed";
    return "pending";
}

/* The arithmetic a candidate declares ("ch-cc precision: tf32" in its source, as the
 * translator's library variants write it: fp32, tf32, fp64), else "native": the element
 * types' own, as the C body computes. The table says which precision the winner used. */
static void add_precision(cJSON *o, const char *src)
{
    static const char mark[] = "ch-cc precision: ";
    const char *p = src ? strstr(src, mark) : NULL;
    char word[16] = "native";
    if (p) {
        p += sizeof mark - 1;
        size_t n = 0;
        while (n + 1 < sizeof word &&
               ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9')))
            n++;
        if (n) {
            memcpy(word, p, n);
            word[n] = '\0';
        }
    }
    cJSON_AddStringToObject(o, "precision", word);
    cJSON_AddStringToObject(o, "library",
                            src && strstr(src, "ch-cc library: cublas") ? "cublas" : "");
}

/* The shape a candidate declares ("ch-cc shape: block1=256 block2=32x4 ..." in its opening
 * comment, as the builtin agent's walk writes its neighbours), else null: a reader follows the
 * walk from round to round. */
static void add_shape(cJSON *o, const char *src)
{
    static const char mark[] = "ch-cc shape: ";
    const char *p = src ? strstr(src, mark) : NULL;
    if (!p) {
        cJSON_AddNullToObject(o, "shape");
        return;
    }
    p += sizeof mark - 1;
    char *line = ch_xstrndup(p, strcspn(p, "\n"));
    cJSON_AddStringToObject(o, "shape", line);
    free(line);
}

static cJSON *candidate_json(const ch_candidate *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", c->id);
    add_id(o, "parent", c->parent);
    cJSON_AddNumberToObject(o, "round", c->round);
    add_str(o, "design", c->design);
    add_precision(o, c->source);
    add_shape(o, c->source);
    cJSON_AddStringToObject(o, "source_hash", c->hash);
    cJSON_AddStringToObject(o, "stage", ch_stage_name(c->report.stage));
    cJSON_AddStringToObject(o, "verdict", verdict(c));
    cJSON_AddStringToObject(o, "message", c->report.message ? c->report.message : "");
    add_id(o, "duplicate_of", c->dup_of);
    /* the whole host-pointer call (the dispatcher's time) and the kernels alone */
    add_ms(o, "launcher_ms", c->report.launcher_ms);
    add_ms(o, "kernel_ms", c->report.kernel_ms);
    cJSON_AddBoolToObject(o, "kernel_resident", c->report.kernel_resident);
    /* what ranking compares: kernel_ms when resident (and so is the other), else launcher_ms */
    add_ms(o, "rank_ms", c->report.kernel_resident ? c->report.kernel_ms : c->report.launcher_ms);
    add_ms(o, "dram_floor_ms", c->report.dram_floor_ms);
    add_ms(o, "pcie_floor_ms", c->report.pcie_floor_ms);
    add_ms(o, "call_fraction", c->report.call_fraction);
    add_ms(o, "fraction", c->report.fraction);
    add_ms(o, "host_ms", c->report.host_ms);
    add_ms(o, "small_ms", c->report.small_ms);
    /* a process's first call (issue 14): the device's set-up and the buffers' first use */
    add_ms(o, "device_setup_ms", c->report.setup_ms);
    add_ms(o, "first_use_ms", c->report.first_use_ms);
    /* what launcher_ms timed: the trusted runtime (as the dispatcher calls) or the launcher */
    if (c->report.call_runtime >= 0)
        cJSON_AddStringToObject(o, "call_path", c->report.call_runtime ? "runtime" : "launcher");
    char seed[17];
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)c->report.seed);
    cJSON_AddStringToObject(o, "seed", seed);
    add_str(o, "feedback", c->feedback);
    return o;
}

cJSON *ch_evolution_json(const ch_evolution *ev)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "stop_reason", ev->stop_reason ? ev->stop_reason : "");
    if (ev->agent_error)
        cJSON_AddStringToObject(o, "agent_error", ev->agent_error);
    if (ev->agent_note)
        cJSON_AddStringToObject(o, "agent_note", ev->agent_note);
    cJSON_AddNumberToObject(o, "rounds", ev->rounds);
    cJSON_AddNumberToObject(o, "requests", ev->requests);
    cJSON_AddNumberToObject(o, "seconds", ev->seconds);
    add_id(o, "best", ev->best);
    cJSON *arr = cJSON_AddArrayToObject(o, "candidates");
    for (size_t i = 0; i < ev->n; i++)
        cJSON_AddItemToArray(arr, candidate_json(&ev->cands[i]));
    return o;
}
