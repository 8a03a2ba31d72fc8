/* Driver-internal: the per-command state of a harness build and the per-entry outcome
 * (pipeline.c), used by harness.c, which turns outcomes into the object file. */
#ifndef CH_DRIVER_PIPELINE_H
#define CH_DRIVER_PIPELINE_H

#include <pthread.h>

#include "ch/agent.h"
#include "ch/cache.h"
#include "ch/evolve.h"
#include "ch/gpu.h"
#include "driver.h"

/* What one compile command shares across its entries. Owned by harness.c (ch_build_open /
 * ch_build_close). */
typedef struct ch_build {
    ch_driver *d;
    ch_cache *cache; /* NULL when the cache cannot be opened (cache_err says why) */
    ch_error cache_err;
    ch_gpu_info gpu; /* the GPU of this machine (probed once, by ch_build_gpu) */
    int gpu_probed;
    int have_gpu;       /* verification can run: a device here, or CH_CC_RUNNER */
    ch_strvec archs;    /* target architectures of kernels (at least one) */
    char *nvcc;         /* the real nvcc */
    char *nvcc_ident;   /* its identity for object keys, read once (NULL until then) */
    ch_strvec ref_cc;   /* host compiler + the user's preprocessor flags and -O (the oracle) */
    ch_strvec ref_nvcc; /* the same with nvcc, for the oracle of a .cu file */
    ch_cfg_source budget_source;
    ch_agent *agent; /* opened on the first miss */
    int agent_failed;
    ch_error agent_err;
    int live; /* progress as a live line (stderr is a terminal) */
    int quiet;
    pthread_mutex_t lock;  /* guards counts (the evolution builds from several threads) */
    ch_cache_stats counts; /* agent requests, compiles, GPU runs, fallbacks of this command */
} ch_build;

/* Probes the GPU on first use (a cache hit needs no device: cuInit costs a warm rebuild
 * hundreds of milliseconds) and returns b with gpu and have_gpu set. */
ch_build *ch_build_gpu(ch_build *b);

/* Adds one to a counter of b->counts (thread-safe). */
void ch_build_count(ch_build *b, unsigned long long *field);

/* What an entry links. */
typedef struct ch_outcome {
    const ch_entry *entry;
    char key[33];
    char *kernel_src;       /* the verified candidate, NULL: host path */
    char *host_src;         /* spec-decl: the test author's reference (the host path), else NULL */
    char *design;           /* the kernel's design name, may be NULL */
    char *reason;           /* why the host path, when kernel_src is NULL */
    int refused;            /* the agent could not handle the entry */
    int cached;             /* the kernel came from the cache */
    int candidates;         /* evolved this time: candidates tried */
    double seconds;         /* evolved this time: wall time */
    double launcher_ms;     /* the kernel's whole-call time at the tune size, -1 unknown */
    double fraction;        /* of the memory floor, -1 unknown */
    long long gpu_min_size; /* the dispatcher's threshold (ch_emit_gpu_min_size) */
    ch_cache_hit hit;       /* the cache entry it came from (empty when generated now) */
} ch_outcome;

/* The entry's outcome: from the cache, or generated (and cached). -1 with err only for
 * failures that must fail the compile (the cache is unusable mid-way, ...). */
int ch_pipeline_entry(ch_build *b, const ch_entry *e, const char *tu, ch_outcome *out,
                      ch_error *err);
void ch_outcome_free(ch_outcome *o);

/* Stores the entry's report.json in t (pipeline_report.c): c and ev may be NULL (a refusal
 * before either existed); out gives the threshold or the reason, refusal (may be NULL)
 * replaces the reason. */
void ch_pipeline_put_report(ch_build *b, ch_cache_txn *t, const ch_entry *e, const ch_checklist *c,
                            const ch_evolution *ev, const char *status, const ch_outcome *out,
                            const char *refusal);

#endif
