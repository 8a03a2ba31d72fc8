/* Feedback-adaptive evolution (DESIGN §3, paper §4.3): the loop that turns an agent's proposals
 * into the fastest candidate that verification accepts.
 *
 * The loop keeps a population of candidates with their verification reports. Each round picks
 * a parent -- the fastest fully correct candidate, or while none is correct the one that got
 * furthest through the stages -- turns its report into feedback (correctness only while any
 * stage before performance fails; timings, resources and the fraction of the memory floor once
 * it is correct, with the figures in ch_kernel_perf for agents that read numbers), asks the
 * agent for `children` children (one by default; more are verified side by side, so a round's
 * latency buys several moves) and verifies them. A child never replaces its parent:
 * every candidate stays in the population, and selection only ever prefers a correct candidate
 * to an incorrect one, so a faster but wrong child cannot displace a correct parent and errors
 * do not accumulate. After `fresh_after` consecutive failed children the next request asks for
 * a fresh design instead of a repair. The loop stops at the round budget, the wall-time limit,
 * on a plateau (no improvement of the best time by more than `plateau_gain` over
 * `plateau_rounds` children once a correct candidate exists), when the best candidate reaches
 * `near_floor` of the memory floor, or when the agent has nothing new to propose.
 *
 * Verification is split the way the hardware is: stages 0-1 (static checks, nvcc) need only
 * CPUs and run for several candidates at once (`jobs` threads); stages 2-5 need the GPU: they
 * run for several candidates at once too (`test_jobs` threads), and the verifier lets the
 * functional stages share the device while timing (stage 5) waits for it alone. A candidate
 * whose source is byte-identical to an earlier one is not verified again: it gets that one's
 * verdict (its report says so). Without a GPU (max_stage 1) the loop collects candidates that
 * pass stages 0-1 -- "pending" ones, verified by the first build that has a GPU -- and stops once
 * it has `width` of them.
 *
 * Ranking compares kernel times when both candidates were timed on device-resident data (their
 * device launchers), else whole-call times; the floor fraction that stops the loop is the
 * verifier's (kernel against DRAM when resident).
 *
 * The agent and the verifier are reached through ch_evolve_ops, so that the loop is tested
 * with scripted agents and verdicts.
 *
 * Ownership: a ch_evolution owns its candidates (sources, designs, feedback, reports);
 * ch_evolution_free releases them. Seeds passed to ch_evolve_run are copied. */
#ifndef CH_EVOLVE_H
#define CH_EVOLVE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "ch/agent.h"
#include "ch/checklist.h"
#include "ch/entry.h"
#include "ch/error.h"
#include "ch/verify.h"

typedef struct ch_candidate {
    int id;                  /* index in the population, in the order proposed */
    int parent;              /* id of the parent, -1 for a fresh design or a seed */
    int round;               /* the round that proposed it (seeds: -1) */
    char *source;            /* CUDA source (owned) */
    char *design;            /* short design name from the agent (owned, may be NULL) */
    char *feedback;          /* the feedback the agent was given to write it (owned, NULL: none) */
    char hash[17];           /* XXH3-64 of the source, 16 hex digits */
    int dup_of;              /* -1, or the id of an earlier candidate with the identical source:
                              * this one was not verified, its report is a copy of that one's */
    int built;               /* stages 0-1 ran (report filled for them) */
    int tested;              /* stages 2.. ran */
    ch_verify_report report; /* owned */
    void *build;             /* the verifier's state between build and test (ops-owned) */
} ch_candidate;

typedef struct ch_evolve_opts {
    int budget;         /* agent requests at most (the first round's included); 0: no agent */
    double time_limit;  /* seconds for the whole loop, 0: none */
    int width;          /* proposals in the first round (and pending candidates wanted) */
    int jobs;           /* concurrent builds (stages 0-1) */
    int test_jobs;      /* concurrent tests (stages 2..; the verifier serialises timing), 0: jobs */
    int max_stage;      /* last stage verification can reach: CH_STAGE_PERF with a GPU,
                         * CH_STAGE_COMPILE without */
    int children;       /* children asked for at once in rounds 1.. (0: 1): verified side by
                         * side, so a round's latency buys several moves of the walk */
    int plateau_rounds; /* children without gain that end the loop (0: 3) */
    double plateau_gain; /* relative improvement that counts as gain (0: 0.02) */
    double near_floor;   /* stop when the best fraction of the floor reaches this (0: 0.9) */
    int fresh_after;     /* consecutive failed children before a fresh design (0: 3) */
} ch_evolve_opts;

typedef struct ch_evolution ch_evolution;

typedef struct ch_evolve_ops {
    void *ctx;
    /* The agent's kernel job: 0 with *src (and *design, may stay NULL) malloc'd; 1 when it has
     * nothing new; -1 with err on failure (which ends the loop with what it has). */
    int (*propose)(void *ctx, const ch_kernel_request *req, char **src, char **design,
                   ch_error *err);
    /* Stages 0-1 of c->source into c->report (zeroed on entry: build initializes it, as
     * ch_verifier_build does), keeping what test needs in c->build. Called from up to `jobs`
     * threads at once, for different candidates. -1: internal error. */
    int (*build)(void *ctx, ch_candidate *c, ch_error *err);
    /* Stages 2..max_stage of a candidate whose build passed; releases c->build (also on -1).
     * Called from up to `test_jobs` threads at once, for different candidates. -1: internal
     * error (tests already running finish, no new one starts). */
    int (*test)(void *ctx, ch_candidate *c, ch_error *err);
    /* Releases c->build of a candidate that will not be tested; called for every such
     * candidate, also when c->build is NULL (the function pointer may be NULL). */
    void (*discard)(void *ctx, ch_candidate *c);
    /* After each candidate is judged (may be NULL): progress lines. */
    void (*progress)(void *ctx, const ch_evolution *ev, const ch_candidate *c);
} ch_evolve_ops;

struct ch_evolution {
    ch_candidate *cands;
    size_t n, cap;
    int best;                /* id of the fastest correct candidate a user's program can run
                              * on the GPU (ch_emit_gpu_refusal: for host pointers, one with
                              * NAME_device_launcher), else of the fastest correct one; -1: none */
    int pending;             /* candidates that passed every stage that could run (no GPU);
                              * duplicates of another candidate not counted */
    int requests;            /* agent requests made */
    int rounds;              /* rounds run */
    double seconds;          /* wall time of the loop */
    const char *stop_reason; /* static text: "budget", "time limit", "plateau", "near the floor",
                              * "agent has nothing new", "agent error", "pending candidates
                              * collected" (no GPU), "pending candidates verified" (a seed
                              * passed), "internal error" (ch_evolve_run returned -1) */
    char *agent_error;       /* owned: the agent's message when stop_reason is "agent error" */
    char *agent_note; /* owned: why the agent had nothing new, when it said (the builtin agent's
                       * walk: a plateau, the floor), else NULL */
};

/* Runs the loop for one entry. seeds (may be NULL): candidates known before the loop (pending
 * ones from the cache), verified first; when one of them is correct the loop ends there without
 * asking the agent. Returns 0 with *out filled whatever the outcome (out->best may be -1); -1
 * with err only for internal failures (out still owns what was made). */
int ch_evolve_run(const ch_evolve_opts *opts, const ch_evolve_ops *ops, const ch_checklist *c,
                  const ch_entry *e, const char *const *seeds, size_t n_seeds, ch_evolution *out,
                  ch_error *err);
void ch_evolution_free(ch_evolution *ev);

/* Nonzero when the candidate passed every stage up to max_stage (correct with a GPU; "pending"
 * without one). */
int ch_candidate_ok(const ch_candidate *c, int max_stage);

/* The history for report.json: stop reason (and the agent's note on it), rounds, requests,
 * seconds, best, and per candidate id, parent, round, design, shape (what the source declares),
 * source hash, duplicate_of, stage reached, verdict, message, times
 * (launcher_ms: the whole call; kernel_ms with kernel_resident; rank_ms: the time ranking used),
 * floors (dram_floor_ms, pcie_floor_ms, call_fraction) and the fraction of the floor evolution
 * reads, seed, and the feedback it was written from. Caller deletes. */
cJSON *ch_evolution_json(const ch_evolution *ev);

#endif
