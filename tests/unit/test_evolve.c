/* The evolution loop against a scripted agent (sources in order, every request recorded) and a
 * scripted verifier (verdicts keyed by source text): selection of parent and best, the feedback
 * each request carries, fresh designs, every stop condition, seeds, the no-GPU mode, parallel
 * builds and the JSON history. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "ch/evolve.h"
#include "ch/strbuf.h"
#include "scan_helpers.h"

/* ---- the scripted verifier ---- */

#define OK      (-1) /* rule.fail: no stage fails */
#define UNTIMED (-1.0)

typedef struct rule {
    const char *src;
    int fail;        /* the stage that fails, or OK */
    double ms;       /* launcher time once stages 2.. ran (also for failures), UNTIMED: none */
    double fraction; /* of the memory floor, -1: unknown */
} rule;

/* Kernel times on device-resident data (kernel_resident) by source; others get 0.75 x ms. */
typedef struct kernel_time {
    const char *src;
    double ms;
} kernel_time;

#define MAX_REQ 64

typedef struct fake {
    /* agent */
    const char *const *script; /* NULL-terminated; exhausted: "nothing new" */
    size_t next;
    int error_at; /* request index that fails, -1: none */
    int n_req;
    char *feedback[MAX_REQ];
    char *parent_src[MAX_REQ];
    int fresh[MAX_REQ];
    int round[MAX_REQ];
    int has_perf[MAX_REQ];
    ch_kernel_perf perf[MAX_REQ];
    const char *note; /* the agent's word when it has nothing new, or NULL */
    /* verifier */
    const rule *rules; /* terminated by src == NULL */
    int max_stage;
    long build_sleep_ns, test_sleep_ns;
    const kernel_time *kernels;  /* terminated by src == NULL, or NULL */
    const char *build_error_src; /* build of this source is an internal error */
    const char *test_error_src;  /* test of this source is an internal error */
    const char *resources;       /* details.compile.resources of every tested candidate (JSON) */
    atomic_int builds, tests, discards, progress, in_flight, max_in_flight;
    atomic_int tests_in_flight, max_tests_in_flight;
} fake;

static void fake_init(fake *f, const char *const *script, const rule *rules, int max_stage)
{
    memset(f, 0, sizeof *f);
    f->script = script;
    f->rules = rules;
    f->max_stage = max_stage;
    f->error_at = -1;
}

static void fake_free(fake *f)
{
    for (int i = 0; i < f->n_req && i < MAX_REQ; i++) {
        free(f->feedback[i]);
        free(f->parent_src[i]);
    }
}

static char *dup_or_null(const char *s)
{
    return s ? ch_xstrdup(s) : NULL;
}

static int fake_propose(void *ctx, const ch_kernel_request *req, char **src, char **design,
                        ch_error *err)
{
    fake *f = ctx;
    int i = f->n_req++;
    cr_assert_lt(i, MAX_REQ);
    f->feedback[i] = dup_or_null(req->feedback);
    f->parent_src[i] = dup_or_null(req->parent_source);
    f->fresh[i] = req->fresh_design;
    f->round[i] = req->round;
    f->has_perf[i] = req->perf != NULL;
    if (req->perf)
        f->perf[i] = *req->perf;
    if (i == f->error_at)
        return ch_error_set(err, "model said no (HTTP 500)");
    if (!f->script[f->next]) {
        if (f->note)
            ch_error_set(err, "%s", f->note);
        return 1;
    }
    *src = ch_xstrdup(f->script[f->next++]);
    *design = ch_xasprintf("design %d", i);
    return 0;
}

static const rule *find_rule(const fake *f, const char *src)
{
    for (const rule *r = f->rules; r->src; r++)
        if (strcmp(r->src, src) == 0)
            return r;
    return NULL;
}

static void set_fail(ch_candidate *c, int stage)
{
    c->report.status[stage] = CH_ST_FAIL;
    c->report.stage = stage;
    c->report.message = ch_xasprintf("%s: %s is wrong", ch_stage_name(stage), c->source);
}

static int fake_build(void *ctx, ch_candidate *c, ch_error *err)
{
    fake *f = ctx;
    int now = atomic_fetch_add(&f->in_flight, 1) + 1;
    int seen = atomic_load(&f->max_in_flight);
    while (now > seen && !atomic_compare_exchange_weak(&f->max_in_flight, &seen, now))
        ;
    if (f->build_sleep_ns) {
        struct timespec ts = {0, f->build_sleep_ns};
        nanosleep(&ts, NULL);
    }
    atomic_fetch_add(&f->builds, 1);
    atomic_fetch_sub(&f->in_flight, 1);
    /* builds run on worker threads: report problems through err, not cr_assert */
    if (c->report.details)
        return ch_error_set(err, "the report was not zeroed before build");
    ch_verify_report_init(&c->report);
    c->report.seed = 0xabcdef0123ULL;
    c->build = ch_xstrdup("build state"); /* a leak unless test or discard releases it */
    if (f->build_error_src && strcmp(c->source, f->build_error_src) == 0)
        return ch_error_set(err, "cannot create the work directory");
    const rule *r = find_rule(f, c->source);
    if (!r)
        return ch_error_set(err, "no verdict scripted for '%s'", c->source);
    for (int s = CH_STAGE_STATIC; s <= CH_STAGE_COMPILE; s++) {
        if (r->fail == s) {
            set_fail(c, s);
            return 0;
        }
        c->report.status[s] = CH_ST_PASS;
    }
    c->report.stage = CH_STAGE_COMPILE;
    c->report.passed = 1;
    return 0;
}

static int fake_test(void *ctx, ch_candidate *c, ch_error *err)
{
    fake *f = ctx;
    atomic_fetch_add(&f->tests, 1);
    int now = atomic_fetch_add(&f->tests_in_flight, 1) + 1;
    int seen = atomic_load(&f->max_tests_in_flight);
    while (now > seen && !atomic_compare_exchange_weak(&f->max_tests_in_flight, &seen, now))
        ;
    if (f->test_sleep_ns) {
        struct timespec ts = {0, f->test_sleep_ns};
        nanosleep(&ts, NULL);
    }
    atomic_fetch_sub(&f->tests_in_flight, 1);
    cr_assert(c->built, "tested after a build");
    cr_assert_eq(c->report.status[CH_STAGE_COMPILE], CH_ST_PASS, "tested only after stages 0-1");
    free(c->build);
    c->build = NULL;
    if (f->test_error_src && strcmp(c->source, f->test_error_src) == 0)
        return ch_error_set(err, "the reference crashed");
    const rule *r = find_rule(f, c->source);
    cr_assert_not_null(r, "no verdict scripted for '%s'", c->source);
    int failed = 0;
    for (int s = CH_STAGE_SMOKE; s <= f->max_stage && !failed; s++) {
        c->report.stage = s;
        if (r->fail == s) {
            set_fail(c, s);
            failed = 1;
        } else {
            c->report.status[s] = CH_ST_PASS;
        }
    }
    c->report.passed = !failed;
    c->report.correct =
        f->max_stage >= CH_STAGE_SANITIZE && (r->fail == OK || r->fail == CH_STAGE_PERF);
    if (r->ms != UNTIMED && f->max_stage >= CH_STAGE_PERF) {
        c->report.launcher_ms = r->ms;
        c->report.kernel_ms = r->ms * 0.75;
        for (const kernel_time *k = f->kernels; k && k->src; k++)
            if (strcmp(k->src, c->source) == 0) {
                c->report.kernel_ms = k->ms;
                c->report.kernel_resident = 1;
            }
        c->report.floor_ms = r->fraction >= 0 ? r->ms * r->fraction : -1;
        c->report.fraction = r->fraction;
    }
    if (f->resources) {
        cJSON *compile = cJSON_AddObjectToObject(c->report.details, "compile");
        cJSON_AddItemToObject(compile, "resources", cJSON_Parse(f->resources));
    }
    if (!c->report.message)
        c->report.message = ch_xstrdup("passed stages 0-5");
    return 0;
}

static void fake_discard(void *ctx, ch_candidate *c)
{
    fake *f = ctx;
    atomic_fetch_add(&f->discards, 1);
    free(c->build);
    c->build = NULL;
}

static void fake_progress(void *ctx, const ch_evolution *ev, const ch_candidate *c)
{
    fake *f = ctx;
    cr_assert(c->id >= 0 && (size_t)c->id < ev->n && c == &ev->cands[c->id], "a known candidate");
    cr_assert(c->built, "judged after its build");
    if (ev->best >= 0)
        cr_assert(ev->cands[ev->best].report.correct, "best is up to date when progress runs");
    atomic_fetch_add(&f->progress, 1);
}

static ch_evolve_ops ops_of(fake *f)
{
    return (ch_evolve_ops){.ctx = f,
                           .propose = fake_propose,
                           .build = fake_build,
                           .test = fake_test,
                           .discard = fake_discard,
                           .progress = fake_progress};
}

static ch_evolve_opts gpu_opts(int budget)
{
    return (ch_evolve_opts){.budget = budget, .width = 1, .jobs = 2, .max_stage = CH_STAGE_PERF};
}

static ch_checklist ck; /* the loop only passes it through */

/* Runs the loop and checks what must hold after every run. */
static void run(fake *f, const ch_evolve_opts *o, const char *const *seeds, size_t n_seeds,
                ch_evolution *ev)
{
    ch_evolve_ops ops = ops_of(f);
    ch_error err;
    ch_error_clear(&err);
    cr_assert_eq(ch_evolve_run(o, &ops, &ck, NULL, seeds, n_seeds, ev, &err), 0, "%s", err.msg);
    cr_assert_not_null(ev->stop_reason);
    cr_assert_eq(ev->requests, f->n_req, "every propose call is counted");
    size_t dups = 0;
    for (size_t i = 0; i < ev->n; i++)
        dups += ev->cands[i].dup_of >= 0;
    cr_assert_eq((size_t)atomic_load(&f->builds), ev->n - dups,
                 "every candidate built once, but repeated sources");
    cr_assert_eq((size_t)(atomic_load(&f->tests) + atomic_load(&f->discards)), ev->n,
                 "every build state released once");
    cr_assert_eq((size_t)atomic_load(&f->progress), ev->n, "progress once per candidate");
    for (size_t i = 0; i < ev->n; i++) {
        cr_assert_eq(ev->cands[i].id, (int)i);
        cr_assert_null(ev->cands[i].build);
        cr_assert_lt(ev->cands[i].parent, (int)i, "a parent precedes its child");
    }
}

static int req_index_of(const ch_evolution *ev, const char *src)
{
    for (size_t i = 0; i < ev->n; i++)
        if (strcmp(ev->cands[i].source, src) == 0)
            return (int)i;
    return -1;
}

/* ---- selection ---- */

Test(evolve, wrong_then_right_best_is_the_right_one)
{
    const char *script[] = {"// cand A", "// cand B", NULL};
    const rule rules[] = {
        {"// cand A", CH_STAGE_CORRECT, 0.5, -1}, {"// cand B", OK, 2.0, 0.3}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(2);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 2);
    cr_assert_eq(ev.best, 1);
    cr_assert_eq(ev.pending, 1);
    cr_assert_eq(ev.cands[1].parent, 0);
    cr_assert_eq(ev.cands[1].round, 1);
    cr_assert_str_eq(ev.stop_reason, "budget");
    cr_assert_eq(ev.rounds, 2);
    /* the first request is a plain first design; the second repairs A with its failure only */
    cr_assert_null(f.feedback[0]);
    cr_assert_null(f.parent_src[0]);
    cr_assert_eq(f.fresh[0], 0);
    cr_assert_str_eq(f.parent_src[1], "// cand A");
    cr_assert_eq(f.fresh[1], 0);
    cr_assert_eq(f.round[1], 1);
    char *want = ch_verify_feedback(&ev.cands[0].report);
    cr_assert_str_eq(f.feedback[1], want);
    cr_assert_str_eq(ev.cands[1].feedback, want, "the child keeps the feedback it came from");
    free(want);
    cr_assert(strstr(f.feedback[1], "stage 3 (correctness): correctness: // cand A is wrong"), "%s",
              f.feedback[1]);
    cr_assert_null(strstr(f.feedback[1], "Launcher time"), "no timings while incorrect");
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* Issue 15: a user's program runs a host-pointer entry's kernels only through the trusted
 * runtime (NAME_device_launcher); the best is the fastest correct candidate that has one, and
 * only while none has one the fastest correct one (linked as the host path). */
Test(evolve, best_is_the_fastest_candidate_a_program_can_run)
{
    ch_entry_list l;
    ch_error err;
    cr_assert_eq(scan_text("f.c",
                           "#pragma harness extent(y: n)\nvoid f(int n, float *y)\n{\n"
                           "    for (int i = 0; i < n; i++)\n        y[i] = 1;\n}\n",
                           CH_LANG_C, &l, &err),
                 0, "%s", err.msg);
    const char *own = "// cand A: copies the caller's data itself\n";
    const char *dev = "// cand B\nextern \"C\" int f_device_launcher(int n, float *y) "
                      "{ return 0; }\n";
    const char *script[] = {own, dev, NULL};
    const rule rules[] = {{own, OK, 1.0, 0.3}, {dev, OK, 2.0, 0.2}, {0}};
    for (int with_entry = 0; with_entry < 2; with_entry++) {
        fake f;
        fake_init(&f, script, rules, CH_STAGE_PERF);
        ch_evolve_opts o = gpu_opts(2);
        ch_evolve_ops ops = ops_of(&f);
        ch_evolution ev;
        cr_assert_eq(
            ch_evolve_run(&o, &ops, &ck, with_entry ? &l.items[0] : NULL, NULL, 0, &ev, &err), 0,
            "%s", err.msg);
        cr_assert_eq(ev.n, 2);
        /* without an entry nothing tells host pointers: the fastest, as before */
        cr_assert_eq(ev.best, with_entry ? 1 : 0, "with entry %d: best %d", with_entry, ev.best);
        ch_evolution_free(&ev);
        fake_free(&f);
    }
    /* none with a device launcher: the fastest correct one still */
    const char *script2[] = {own, "// cand C\n", NULL};
    const rule rules2[] = {{own, OK, 1.0, 0.3}, {"// cand C\n", OK, 2.0, 0.2}, {0}};
    fake f;
    fake_init(&f, script2, rules2, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(2);
    ch_evolve_ops ops = ops_of(&f);
    ch_evolution ev;
    cr_assert_eq(ch_evolve_run(&o, &ops, &ck, &l.items[0], NULL, 0, &ev, &err), 0, "%s", err.msg);
    cr_assert_eq(ev.best, 0);
    ch_evolution_free(&ev);
    fake_free(&f);
    ch_entry_list_free(&l);
}

Test(evolve, faster_but_wrong_child_never_displaces_the_correct_parent)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", NULL};
    /* B is faster and got further than anything (sanitizer), but is wrong */
    const rule rules[] = {{"// cand A", OK, 2.0, 0.3},
                          {"// cand B", CH_STAGE_SANITIZE, 0.1, 0.9},
                          {"// cand C", OK, 1.5, 0.4},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(3);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 3);
    cr_assert_eq(ev.cands[1].parent, 0);
    cr_assert_eq(ev.cands[2].parent, 0, "after a failed child the parent is still A");
    cr_assert_str_eq(f.parent_src[2], "// cand A");
    cr_assert(strstr(f.feedback[2], "The candidate is correct"), "%s", f.feedback[2]);
    cr_assert(strstr(f.feedback[2], "Whole call (copies included) 2.0000 ms"), "%s", f.feedback[2]);
    cr_assert_eq(ev.best, 2);
    cr_assert_eq(ev.pending, 2);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, best_is_the_fastest_correct_and_timed_ranks_before_untimed)
{
    const char *script[] = {"// cand D", "// cand A", "// cand B", "// cand C", "// cand E", NULL};
    const rule rules[] = {{"// cand D", OK, UNTIMED, -1},
                          {"// cand A", OK, 3.0, 0.1},
                          {"// cand B", OK, 1.0, 0.3},
                          {"// cand C", OK, 2.0, 0.2},
                          {"// cand E", CH_STAGE_CORRECT, 0.01, 0.99},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(5);
    o.width = 5;
    o.jobs = 3;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 5);
    cr_assert_eq(ev.best, req_index_of(&ev, "// cand B"));
    cr_assert_eq(ev.pending, 4);
    cr_assert_eq(ev.rounds, 1);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(f.fresh[i], i > 0, "round 0: every design after the first is fresh");
        cr_assert_null(f.parent_src[i]);
        cr_assert_null(f.feedback[i]);
        cr_assert_eq(f.round[i], 0);
        cr_assert_eq(ev.cands[i].parent, -1);
        cr_assert_eq(ev.cands[i].round, 0);
    }
    cr_assert_str_eq(ev.stop_reason, "budget");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, furthest_failure_is_the_parent_while_nothing_is_correct)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_CORRECT, UNTIMED, -1},
                          {"// cand B", CH_STAGE_COMPILE, UNTIMED, -1},
                          {"// cand C", CH_STAGE_STATIC, UNTIMED, -1},
                          {"// cand D", CH_STAGE_CORRECT, UNTIMED, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(5);
    o.width = 3;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.best, -1);
    cr_assert_eq(ev.cands[3].parent, 0, "A got furthest (correctness)");
    cr_assert_eq(ev.cands[3].round, 1);
    /* D ties with A at correctness and is later: it is the next parent */
    cr_assert_str_eq(f.parent_src[4], "// cand D");
    cr_assert_str_eq(ev.stop_reason, "agent has nothing new");
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- fresh designs ---- */

Test(evolve, fresh_design_after_three_failed_children_in_a_row)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D",
                            "// cand E", "// cand F", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_CORRECT, UNTIMED, -1},
                          {"// cand B", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand C", CH_STAGE_COMPILE, UNTIMED, -1},
                          {"// cand D", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand E", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand F", CH_STAGE_SMOKE, UNTIMED, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(6);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 6);
    for (int i = 1; i <= 3; i++) {
        cr_assert_eq(f.fresh[i], 0, "request %d repairs", i);
        cr_assert_not_null(f.parent_src[i]);
        cr_assert_not_null(f.feedback[i]);
    }
    cr_assert_eq(f.fresh[4], 1, "three failed children: a fresh design");
    cr_assert_null(f.parent_src[4]);
    cr_assert_null(f.feedback[4]);
    cr_assert_eq(ev.cands[4].parent, -1);
    cr_assert_null(ev.cands[4].feedback);
    cr_assert_eq(ev.cands[4].round, 4);
    /* the count starts again after a fresh design: the next request repairs the furthest (A) */
    cr_assert_eq(f.fresh[5], 0);
    cr_assert_str_eq(f.parent_src[5], "// cand A");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, failed_children_go_back_to_the_correct_one_not_to_a_fresh_design)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", "// cand E", NULL};
    const rule rules[] = {{"// cand A", OK, 1.0, 0.2},
                          {"// cand B", CH_STAGE_CORRECT, 0.5, -1},
                          {"// cand C", CH_STAGE_SMOKE, 0.5, -1},
                          {"// cand D", CH_STAGE_SANITIZE, 0.5, -1},
                          {"// cand E", CH_STAGE_CORRECT, 0.5, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(5);
    o.plateau_rounds = 10;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 5);
    for (int i = 1; i <= 4; i++) {
        cr_assert_eq(f.fresh[i], 0);
        cr_assert_str_eq(f.parent_src[i], "// cand A");
        cr_assert_eq(ev.cands[i].parent, 0);
    }
    cr_assert_eq(ev.best, 0);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- stops ---- */

Test(evolve, plateau_after_rounds_without_gain_and_a_real_gain_resets_it)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D",
                            "// cand E", "// cand F", "// cand G", NULL};
    /* B: 1% (no gain); C: halves (gain); D, E, F: under 2% each */
    const rule rules[] = {{"// cand A", OK, 1.0, 0.1},   {"// cand B", OK, 0.99, 0.1},
                          {"// cand C", OK, 0.5, 0.2},   {"// cand D", OK, 0.499, 0.2},
                          {"// cand E", OK, 0.498, 0.2}, {"// cand F", OK, 0.497, 0.2},
                          {"// cand G", OK, 0.1, 0.2},   {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(20);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "plateau");
    cr_assert_eq(ev.requests, 6);
    cr_assert_eq(ev.best, 5, "small gains still make the best");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, plateau_rounds_and_gain_are_options)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", OK, 1.0, 0.1},
                          {"// cand B", OK, 0.95, 0.1},
                          {"// cand C", OK, 0.9, 0.1},
                          {"// cand D", OK, 0.85, 0.1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(20);
    o.plateau_rounds = 1;
    o.plateau_gain = 0.10; /* 5% steps are not enough */
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "plateau");
    cr_assert_eq(ev.requests, 2);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* Several children a round: asked of the same parent with the same feedback, verified in one
 * batch; the plateau counts children, so two rounds of two children without gain end it at
 * three (the default) as three rounds of one did. */
Test(evolve, children_of_one_round_share_the_parent_and_count_for_the_plateau)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", "// cand E", NULL};
    /* A, then B and C (round 1, no gain), then D and E (round 2, no gain) */
    const rule rules[] = {{"// cand A", OK, 1.0, 0.1}, {"// cand B", OK, 0.99, 0.1},
                          {"// cand C", OK, 1.5, 0.1}, {"// cand D", OK, 0.995, 0.1},
                          {"// cand E", OK, 1.2, 0.1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(20);
    o.children = 2;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "plateau");
    cr_assert_eq(ev.requests, 5, "1 + 2 + 2 requests");
    cr_assert_eq(ev.rounds, 3, "three rounds, not five");
    for (int i = 1; i < 5; i++) {
        cr_assert_eq(f.round[i], (i + 1) / 2, "request %d in round %d", i, f.round[i]);
        cr_assert_str_eq(f.parent_src[i], i < 3 ? "// cand A" : "// cand B");
        cr_assert_not_null(f.feedback[i]);
    }
    cr_assert_str_eq(f.feedback[1], f.feedback[2], "one feedback for the round's children");
    cr_assert_eq(ev.cands[1].round, ev.cands[2].round);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* An agent out of moves after the round's first child goes on from the next parent: only a
 * round with no child at all ends the loop as "nothing new". */
Test(evolve, a_later_child_refused_does_not_end_the_loop)
{
    const char *script[] = {"// cand A", "// cand B", NULL};
    const rule rules[] = {{"// cand A", OK, 1.0, 0.1}, {"// cand B", OK, 0.5, 0.1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(20);
    o.children = 2;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "agent has nothing new");
    cr_assert_eq(ev.rounds, 2, "round 2 (B) ran although its second request had nothing");
    cr_assert_eq(f.n_req, 4, "A; B and a refusal; round 3's first refusal ends it: %d", f.n_req);
    cr_assert_eq(f.round[3], 2, "round 3 asked (after B was judged)");
    cr_assert_eq(ev.best, 1);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, budget_counts_requests_exactly)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D",
                            "// cand E", "// cand F", "// cand G", NULL};
    const rule rules[] = {
        {"// cand A", CH_STAGE_SMOKE, UNTIMED, -1}, {"// cand B", CH_STAGE_SMOKE, UNTIMED, -1},
        {"// cand C", CH_STAGE_SMOKE, UNTIMED, -1}, {"// cand D", CH_STAGE_SMOKE, UNTIMED, -1},
        {"// cand E", CH_STAGE_SMOKE, UNTIMED, -1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(5);
    o.width = 2;
    o.fresh_after = 100;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "budget");
    cr_assert_eq(ev.requests, 5);
    cr_assert_eq(ev.n, 5);
    cr_assert_eq(ev.rounds, 4, "round 0 (two proposals) and rounds 1-3");
    cr_assert_eq(atomic_load(&f.tests), 5);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, budget_smaller_than_width_and_zero_budget)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand B", CH_STAGE_SMOKE, UNTIMED, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(2);
    o.width = 4;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.requests, 2);
    cr_assert_str_eq(ev.stop_reason, "budget");
    ch_evolution_free(&ev);
    fake_free(&f);

    fake_init(&f, script, rules, CH_STAGE_PERF);
    o.budget = 0;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.requests, 0);
    cr_assert_eq(ev.n, 0);
    cr_assert_eq(ev.best, -1);
    cr_assert_str_eq(ev.stop_reason, "budget");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, agent_with_nothing_new_ends_the_loop)
{
    const char *script[] = {"// cand A", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_CORRECT, UNTIMED, -1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(10);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "agent has nothing new");
    cr_assert_eq(ev.requests, 2);
    cr_assert_eq(ev.n, 1);
    cr_assert_eq(ev.rounds, 1);
    cr_assert_null(ev.agent_error);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, agent_error_ends_the_loop_with_its_message)
{
    const char *script[] = {"// cand A", "// cand B", NULL};
    const rule rules[] = {{"// cand A", OK, 1.0, 0.1}, {"// cand B", OK, 0.5, 0.1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.error_at = 1;
    ch_evolve_opts o = gpu_opts(10);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "agent error");
    cr_assert_str_eq(ev.agent_error, "model said no (HTTP 500)");
    cr_assert_eq(ev.best, 0, "what was made is kept");
    cr_assert_eq(ev.requests, 2);
    cJSON *j = ch_evolution_json(&ev);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "agent_error")->valuestring,
                     "model said no (HTTP 500)");
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, near_the_floor_stops)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", NULL};
    const rule rules[] = {{"// cand A", OK, 1.0, 0.5},
                          {"// cand B", OK, 0.55, 0.92},
                          {"// cand C", OK, 0.5, 0.99},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(10);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "near the floor");
    cr_assert_eq(ev.requests, 2);
    cr_assert_eq(ev.best, 1);
    ch_evolution_free(&ev);
    fake_free(&f);

    fake_init(&f, script, rules, CH_STAGE_PERF);
    o.near_floor = 0.95;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "near the floor");
    cr_assert_eq(ev.requests, 3, "near_floor is an option");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, time_limit_stops_early)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand B", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand C", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand D", CH_STAGE_SMOKE, UNTIMED, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.build_sleep_ns = 5 * 1000 * 1000;
    ch_evolve_opts o = gpu_opts(100);
    o.time_limit = 0.001;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "time limit");
    cr_assert_leq(ev.requests, 1);
    cr_assert_geq(ev.seconds, 0.001);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- seeds ---- */

Test(evolve, correct_seed_means_no_agent_request)
{
    const char *script[] = {"// cand A", NULL};
    const rule rules[] = {
        {"// seed 1", CH_STAGE_CORRECT, UNTIMED, -1}, {"// seed 2", OK, 1.0, 0.4}, {0}};
    const char *seeds[] = {"// seed 1", "// seed 2"};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(5);
    ch_evolution ev;
    run(&f, &o, seeds, 2, &ev);
    cr_assert_eq(f.n_req, 0);
    cr_assert_eq(ev.requests, 0);
    cr_assert_str_eq(ev.stop_reason, "pending candidates verified");
    cr_assert_eq(ev.best, 1);
    cr_assert_eq(ev.rounds, 0);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(ev.cands[i].round, -1);
        cr_assert_eq(ev.cands[i].parent, -1);
        cr_assert(ev.cands[i].source != seeds[i], "seeds are copied");
    }
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, failed_seed_leads_to_the_agent_and_can_be_a_parent)
{
    const char *script[] = {"// cand A", "// cand B", NULL};
    const rule rules[] = {{"// seed 1", CH_STAGE_SANITIZE, UNTIMED, -1},
                          {"// cand A", CH_STAGE_STATIC, UNTIMED, -1},
                          {"// cand B", OK, 1.0, 0.4},
                          {0}};
    const char *seeds[] = {"// seed 1"};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(2);
    ch_evolution ev;
    run(&f, &o, seeds, 1, &ev);
    cr_assert_eq(ev.requests, 2);
    cr_assert_null(f.parent_src[0], "round 0 is still a first design");
    cr_assert_str_eq(f.parent_src[1], "// seed 1", "the seed got furthest");
    cr_assert_eq(ev.cands[2].parent, 0);
    cr_assert_eq(ev.best, 2);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- without a GPU ---- */

Test(evolve, without_gpu_collects_width_pending_and_never_tests)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_CORRECT, 1.0, 0.5}, /* would fail on a GPU */
                          {"// cand B", CH_STAGE_COMPILE, UNTIMED, -1},
                          {"// cand C", OK, 1.0, 0.5},
                          {"// cand D", OK, 1.0, 0.5},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_COMPILE);
    ch_evolve_opts o = {.budget = 10, .width = 2, .jobs = 2, .max_stage = CH_STAGE_COMPILE};
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "pending candidates collected");
    cr_assert_eq(ev.pending, 2);
    cr_assert_eq(ev.n, 3);
    cr_assert_eq(ev.requests, 3);
    cr_assert_eq(atomic_load(&f.tests), 0);
    cr_assert_eq(atomic_load(&f.discards), 3);
    cr_assert_eq(ev.best, -1);
    cr_assert_str_eq(f.parent_src[2], "// cand B", "the failure is repaired");
    cr_assert(ch_candidate_ok(&ev.cands[0], CH_STAGE_COMPILE));
    cr_assert_not(ch_candidate_ok(&ev.cands[1], CH_STAGE_COMPILE));
    cJSON *j = ch_evolution_json(&ev);
    cJSON *cands = cJSON_GetObjectItem(j, "candidates");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 0), "verdict")->valuestring,
                     "pending");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 1), "verdict")->valuestring,
                     "failed");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "best")));
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- builds ---- */

Test(evolve, first_round_builds_concurrently)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand B", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand C", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand D", CH_STAGE_SMOKE, UNTIMED, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.build_sleep_ns = 30 * 1000 * 1000;
    ch_evolve_opts o = gpu_opts(4);
    o.width = 4;
    o.jobs = 4;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_geq(atomic_load(&f.max_in_flight), 2, "builds overlap");
    cr_assert_leq(atomic_load(&f.max_in_flight), 4);
    ch_evolution_free(&ev);
    fake_free(&f);

    fake_init(&f, script, rules, CH_STAGE_PERF);
    o.jobs = 1;
    f.build_sleep_ns = 1000 * 1000;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(atomic_load(&f.max_in_flight), 1, "jobs 1: one build at a time");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, build_or_test_internal_error_is_an_error_and_releases_every_build)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", NULL};
    const rule rules[] = {
        {"// cand A", OK, 1.0, 0.1}, {"// cand B", OK, 1.0, 0.1}, {"// cand C", OK, 1.0, 0.1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.build_error_src = "// cand B";
    ch_evolve_opts o = gpu_opts(3);
    o.width = 3;
    o.jobs = 3;
    ch_evolve_ops ops = ops_of(&f);
    ch_evolution ev;
    ch_error err;
    cr_assert_eq(ch_evolve_run(&o, &ops, &ck, NULL, NULL, 0, &ev, &err), -1);
    cr_assert_str_eq(err.msg, "cannot create the work directory");
    cr_assert_str_eq(ev.stop_reason, "internal error");
    cr_assert_eq(atomic_load(&f.tests), 0);
    cr_assert_eq(atomic_load(&f.discards), 3);
    for (size_t i = 0; i < ev.n; i++)
        cr_assert_null(ev.cands[i].build);
    ch_evolution_free(&ev);
    fake_free(&f);

    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.test_error_src = "// cand A";
    o.test_jobs = 1; /* one test at a time: none starts after the error */
    cr_assert_eq(ch_evolve_run(&o, &ops, &ck, NULL, NULL, 0, &ev, &err), -1);
    cr_assert_str_eq(err.msg, "the reference crashed");
    cr_assert_eq(atomic_load(&f.tests), 1, "no test after the error");
    cr_assert_eq(atomic_load(&f.discards), 2);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- verification speed ---- */

Test(evolve, identical_source_is_not_verified_again_and_gets_the_verdict)
{
    const char *script[] = {"// cand A", "// cand A", "// cand B", "// cand B", NULL};
    const rule rules[] = {
        {"// cand A", OK, 2.0, 0.3}, {"// cand B", CH_STAGE_CORRECT, UNTIMED, -1}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(4);
    o.width = 2; /* the duplicate in the same batch as its original */
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.n, 4);
    cr_assert_eq(atomic_load(&f.builds), 2, "each distinct source built once");
    cr_assert_eq(atomic_load(&f.tests), 2, "and tested once");
    cr_assert_eq(ev.cands[0].dup_of, -1);
    cr_assert_eq(ev.cands[1].dup_of, 0);
    cr_assert_eq(ev.cands[3].dup_of, 2, "a duplicate of an earlier round's candidate");
    cr_assert(ev.cands[1].report.correct);
    cr_assert_float_eq(ev.cands[1].report.launcher_ms, 2.0, 1e-12);
    cr_assert_not(ev.cands[3].report.correct);
    cr_assert_eq(ev.cands[3].report.stage, CH_STAGE_CORRECT);
    cr_assert_not_null(strstr(ev.cands[1].report.message, "verdict of candidate 0"), "%s",
                       ev.cands[1].report.message);
    cr_assert_eq(ev.best, 0, "the original wins the tie");
    cJSON *j = ch_evolution_json(&ev);
    cJSON *c1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "candidates"), 1);
    cr_assert_eq(cJSON_GetObjectItem(c1, "duplicate_of")->valueint, 0);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(j, "candidates"), 0), "duplicate_of")));
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, tests_of_a_round_run_concurrently)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", OK, 2.0, 0.1},
                          {"// cand B", OK, 1.0, 0.1},
                          {"// cand C", CH_STAGE_SMOKE, UNTIMED, -1},
                          {"// cand D", OK, 3.0, 0.1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.test_sleep_ns = 30 * 1000 * 1000;
    ch_evolve_opts o = gpu_opts(4);
    o.width = 4;
    o.jobs = 4;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_geq(atomic_load(&f.max_tests_in_flight), 2, "tests overlap");
    cr_assert_eq(ev.best, 1, "the verdicts are the same as one at a time");
    ch_evolution_free(&ev);
    fake_free(&f);

    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.test_sleep_ns = 1000 * 1000;
    o.test_jobs = 1;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(atomic_load(&f.max_tests_in_flight), 1, "test_jobs 1: one test at a time");
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, kernels_timed_alone_are_ranked_by_kernel_time)
{
    const char *script[] = {"// cand A", "// cand B", NULL};
    /* B's whole call is faster (its launcher copies better) but A's kernels are faster: with
     * both timed on device-resident data the kernels decide */
    const rule rules[] = {{"// cand A", OK, 2.0, 0.5}, {"// cand B", OK, 1.5, 0.3}, {0}};
    const kernel_time kernels[] = {{"// cand A", 0.4}, {"// cand B", 0.8}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.kernels = kernels;
    ch_evolve_opts o = gpu_opts(2);
    o.width = 2;
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.best, 0);
    cJSON *j = ch_evolution_json(&ev);
    cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "candidates"), 0);
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(c0, "kernel_resident")));
    cr_assert_float_eq(cJSON_GetObjectItem(c0, "rank_ms")->valuedouble, 0.4, 1e-12);
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);

    /* without device launchers the whole calls decide, as before */
    const rule plain[] = {{"// cand A", OK, 2.0, 0.5}, {"// cand B", OK, 1.5, 0.3}, {0}};
    fake_init(&f, script, plain, CH_STAGE_PERF);
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(ev.best, 1);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* Agents that read numbers get the parent's figures with performance feedback (the time ranking
 * uses, the floor fraction, ptxas's registers, shared memory and spills), none with correctness
 * feedback. */
Test(evolve, performance_requests_carry_the_parents_figures)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", "// cand D", NULL};
    const rule rules[] = {{"// cand A", CH_STAGE_CORRECT, UNTIMED, -1},
                          {"// cand B", OK, 2.0, 0.4},
                          {"// cand C", OK, 1.0, 0.6},
                          {"// cand D", OK, 3.0, 0.2},
                          {0}};
    const kernel_time kernels[] = {{"// cand C", 0.5}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.kernels = kernels;
    f.resources = "[{\"function\": \"k0\", \"registers\": 40, \"smem_bytes\": 8192},"
                  " {\"function\": \"k1\", \"registers\": 72, \"smem_bytes\": 0},"
                  " {\"function\": \"k1\", \"spill_store_bytes\": 16}]";
    ch_evolve_opts o = gpu_opts(4);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_eq(f.n_req, 4);
    cr_assert_not(f.has_perf[0], "the first request has no parent");
    cr_assert_not(f.has_perf[1], "a wrong parent: correctness feedback, no figures");
    cr_assert(f.has_perf[2]);
    cr_assert_float_eq(f.perf[2].ms, 2.0, 1e-12, "B's whole call (no device launcher)");
    cr_assert_float_eq(f.perf[2].fraction, 0.4, 1e-12);
    cr_assert_eq(f.perf[2].registers, 72);
    cr_assert_eq(f.perf[2].smem_bytes, 8192);
    cr_assert_eq(f.perf[2].spill_bytes, 16);
    cr_assert(f.has_perf[3]);
    cr_assert_float_eq(f.perf[3].ms, 0.5, 1e-12, "C's kernels alone (device-resident)");
    cr_assert_float_eq(f.perf[3].fraction, 0.6, 1e-12);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* An agent that has nothing new may say why (the builtin walk's plateau): the history keeps it,
 * and each candidate's declared shape. */
Test(evolve, agent_note_and_shapes_in_the_history)
{
    const char *script[] = {"// cand A", "// ch-cc shape: block1=512 block2=32x8 waves=0\n// B",
                            NULL};
    const rule rules[] = {{"// cand A", OK, 2.0, 0.4}, {script[1], OK, 1.0, 0.5}, {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    f.note = "mm: the walk along translator v11's shape stopped (plateau)";
    ch_evolve_opts o = gpu_opts(8);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cr_assert_str_eq(ev.stop_reason, "agent has nothing new");
    cr_assert_str_eq(ev.agent_note, f.note);
    cJSON *j = ch_evolution_json(&ev);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "agent_note")->valuestring, f.note);
    cJSON *cands = cJSON_GetObjectItem(j, "candidates");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 0), "shape")));
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cands, 1), "shape")->valuestring,
                     "block1=512 block2=32x8 waves=0");
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);

    /* saying nothing leaves no note */
    fake_init(&f, script, rules, CH_STAGE_PERF);
    run(&f, &o, NULL, 0, &ev);
    cr_assert_null(ev.agent_note);
    j = ch_evolution_json(&ev);
    cr_assert_null(cJSON_GetObjectItem(j, "agent_note"));
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);
}

/* ---- history ---- */

Test(evolve, json_history_has_one_row_per_candidate)
{
    const char *script[] = {"// cand A", "// cand B", "// cand C", NULL};
    const rule rules[] = {{"// cand A", OK, 2.0, 0.3},
                          {"// cand B", CH_STAGE_SANITIZE, UNTIMED, -1},
                          {"// cand C", OK, 1.5, -1},
                          {0}};
    fake f;
    fake_init(&f, script, rules, CH_STAGE_PERF);
    ch_evolve_opts o = gpu_opts(3);
    ch_evolution ev;
    run(&f, &o, NULL, 0, &ev);
    cJSON *j = ch_evolution_json(&ev);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "stop_reason")->valuestring, "budget");
    cr_assert_eq(cJSON_GetObjectItem(j, "requests")->valueint, 3);
    cr_assert_eq(cJSON_GetObjectItem(j, "rounds")->valueint, 3);
    cr_assert_eq(cJSON_GetObjectItem(j, "best")->valueint, 2);
    cr_assert(cJSON_IsNumber(cJSON_GetObjectItem(j, "seconds")));
    cJSON *cands = cJSON_GetObjectItem(j, "candidates");
    cr_assert_eq(cJSON_GetArraySize(cands), 3);
    const char *verdicts[] = {"correct", "failed", "correct"};
    const char *stages[] = {"performance", "sanitizer", "performance"};
    for (int i = 0; i < 3; i++) {
        cJSON *c = cJSON_GetArrayItem(cands, i);
        cr_assert_eq(cJSON_GetObjectItem(c, "id")->valueint, i);
        cr_assert_eq(cJSON_GetObjectItem(c, "round")->valueint, i);
        char want[17];
        snprintf(want, sizeof want, "%016llx",
                 (unsigned long long)XXH3_64bits(script[i], strlen(script[i])));
        cr_assert_str_eq(cJSON_GetObjectItem(c, "source_hash")->valuestring, want);
        cr_assert_str_eq(ev.cands[i].hash, want);
        cr_assert_str_eq(cJSON_GetObjectItem(c, "verdict")->valuestring, verdicts[i]);
        cr_assert_str_eq(cJSON_GetObjectItem(c, "stage")->valuestring, stages[i]);
        cr_assert_str_eq(cJSON_GetObjectItem(c, "seed")->valuestring, "000000abcdef0123");
        cr_assert_str_eq(cJSON_GetObjectItem(c, "message")->valuestring,
                         ev.cands[i].report.message);
        char design[32];
        snprintf(design, sizeof design, "design %d", i);
        cr_assert_str_eq(cJSON_GetObjectItem(c, "design")->valuestring, design);
    }
    cJSON *c0 = cJSON_GetArrayItem(cands, 0), *c1 = cJSON_GetArrayItem(cands, 1),
          *c2 = cJSON_GetArrayItem(cands, 2);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(c0, "parent")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(c0, "feedback")));
    cr_assert_eq(cJSON_GetObjectItem(c1, "parent")->valueint, 0);
    cr_assert_eq(cJSON_GetObjectItem(c2, "parent")->valueint, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(c2, "feedback")->valuestring, f.feedback[2]);
    cr_assert_float_eq(cJSON_GetObjectItem(c0, "launcher_ms")->valuedouble, 2.0, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(c0, "kernel_ms")->valuedouble, 1.5, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(c0, "fraction")->valuedouble, 0.3, 1e-12);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(c1, "launcher_ms")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(c2, "fraction")));
    cr_assert_null(cJSON_GetObjectItem(j, "agent_error"));
    cJSON_Delete(j);
    ch_evolution_free(&ev);
    fake_free(&f);
}

Test(evolve, candidate_ok_by_max_stage)
{
    ch_candidate c;
    memset(&c, 0, sizeof c);
    ch_verify_report_init(&c.report);
    c.report.status[CH_STAGE_STATIC] = CH_ST_PASS;
    c.report.status[CH_STAGE_COMPILE] = CH_ST_PASS;
    cr_assert(ch_candidate_ok(&c, CH_STAGE_COMPILE));
    cr_assert_not(ch_candidate_ok(&c, CH_STAGE_SMOKE), "smoke not run");
    cr_assert_not(ch_candidate_ok(&c, CH_STAGE_PERF), "not correct");
    c.report.status[CH_STAGE_SMOKE] = CH_ST_SKIP;
    cr_assert(ch_candidate_ok(&c, CH_STAGE_SMOKE));
    c.report.correct = 1;
    c.report.status[CH_STAGE_PERF] = CH_ST_FAIL;
    cr_assert(ch_candidate_ok(&c, CH_STAGE_PERF), "correct is what counts with a GPU");
    c.report.status[CH_STAGE_STATIC] = CH_ST_FAIL;
    cr_assert_not(ch_candidate_ok(&c, CH_STAGE_COMPILE));
    ch_verify_report_free(&c.report);
}
