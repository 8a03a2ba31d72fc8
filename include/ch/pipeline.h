/* The pipeline session (src/pipeline/): what one ch-cc command shares across the entries it
 * serves, and the two steps the driver calls per entry. DESIGN §3.
 *
 * A session owns the settings' view of the command (target architectures by targets' one rule,
 * scan arguments, the oracle compiler and its flags, the real nvcc and its identity), the
 * cache, and opens the agent and the GPU probe lazily (a warm rebuild needs neither). The build,
 * --harness-list, --harness-verify and --harness-propose open the same session from the same
 * command line, so one file gives one key everywhere.
 *
 *   ch_session_entry   key -> cache -> (miss) checklist -> agent -> evolve -> cache: the outcome
 *   ch_session_object  the entry's generated unit compiled by nvcc (or its cached object)
 *   ch_session_assemble  one annotated input's object: the host copy, the units, `ld -r`
 *                        (ch/assemble.h)
 *
 * Every outcome moves a counter of the session's counts (hit, miss, pending, refusal class,
 * failing verification stage, host fallback class); ch_session_close adds them to the cache's
 * statistics (--harness-stats). The library never prints: warnings wait in the session for the
 * driver (ch_session_take_warnings), live progress goes to the progress callback.
 *
 * Internal to ch-cc (not installed). Ownership: the session owns everything it opens; outcomes
 * own their strings and their cache hit (ch_outcome_free). */
#ifndef CH_PIPELINE_H
#define CH_PIPELINE_H

#include <pthread.h>

#include "ch/agent.h"
#include "ch/cache.h"
#include "ch/config.h"
#include "ch/emit.h"
#include "ch/entry.h"
#include "ch/error.h"
#include "ch/gpu.h"
#include "ch/scan.h"
#include "ch/strbuf.h"
#include "ch/verify.h"

/* The status a cache entry records in its meta "status". */
typedef enum ch_entry_status {
    CH_STATUS_FAILED = 0,  /* evolution on a GPU found no correct kernel (also: no status) */
    CH_STATUS_VERIFIED,    /* kernel.cu passed stages 0-4 on a GPU */
    CH_STATUS_PENDING,     /* made without a GPU: candidates/K.cu passed stages 0-1 */
    CH_STATUS_UNSUPPORTED, /* the agent refused the entry (meta "reason" says why) */
    CH_STATUS_UNRECORDED,  /* an entry present without a status meta (an older ch-cc or another
                              tool wrote it): what explain shows, never recorded */
    CH_STATUS_COUNT_
} ch_entry_status;

/* The meta spelling ("verified", ...); ch_entry_status_parse maps NULL and unknown words to
 * CH_STATUS_FAILED (an entry without a usable status holds no kernel). */
const char *ch_entry_status_name(ch_entry_status s);
ch_entry_status ch_entry_status_parse(const char *word);

/* Why an entry that has no verified kernel refused: recorded in meta "refusal". */
typedef enum ch_refusal {
    CH_REFUSAL_NONE = 0,
    CH_REFUSAL_TRANSLATOR, /* the agent cannot translate the body (located in the body) */
    CH_REFUSAL_REFERENCE,  /* the reference program does not build or needs a clause */
    CH_REFUSAL_COUNT_
} ch_refusal;
const char *ch_refusal_name(ch_refusal r);
ch_refusal ch_refusal_parse(const char *word);

/* Why an entry links its host path: each class is a counter (fallback_NAME). */
typedef enum ch_fallback {
    CH_FALLBACK_NONE = 0,    /* a verified kernel */
    CH_FALLBACK_NO_CACHE,    /* the cache cannot be opened */
    CH_FALLBACK_CACHE_FAULT, /* a cache, lock or disk fault mid-way */
    CH_FALLBACK_OFFLINE,     /* a miss and CH_CC_OFFLINE */
    CH_FALLBACK_PENDING,     /* candidates wait for a build with a GPU */
    CH_FALLBACK_FAILED,      /* no candidate passed verification */
    CH_FALLBACK_REFUSED,     /* the agent refused the entry (a recorded refusal) */
    CH_FALLBACK_AGENT,       /* the agent could not be opened or reached, or the reference
                                its test author wrote was refused (not recorded) */
    CH_FALLBACK_OBJECT,      /* the kernel's object could not be made or was refused at the
                                object step (ch/assemble.h) */
    CH_FALLBACK_COUNT_
} ch_fallback;
const char *ch_fallback_name(ch_fallback f);

/* Live progress: one line of text per candidate; NULL clears the line. */
typedef void (*ch_session_progress_fn)(void *ctx, const char *line);

/* What the driver hands a session: borrowed, read during ch_session_open only (cfg must
 * outlive the session). NULL vectors are empty. */
typedef struct ch_session_opts {
    const ch_config *cfg;
    const ch_strvec *arch_opts;  /* "-arch=V", "-code=V", "-gencode=V" as ch_args records */
    const ch_strvec *scan_args;  /* -I/-D/-U/-isystem/-include/-std in clang's spelling */
    const char *opt;             /* the user's -O level ("2", "s", ""), NULL: none given */
    const char *nvcc;            /* the real nvcc; NULL: the nvcc setting, else "nvcc" */
    const ch_strvec *unit_flags; /* nvcc flags of generated units from the command (PIC,
                                    -ccbin): part of object keys */
    int quiet;
    ch_session_progress_fn progress; /* NULL: no live progress */
    void *progress_ctx;
} ch_session_opts;

typedef struct ch_session {
    const ch_config *cfg;
    ch_cache *cache; /* NULL when the cache cannot be opened (cache_err says why) */
    ch_error cache_err;
    ch_gpu_info gpu; /* the GPU of this machine (probed once, by ch_session_gpu) */
    int gpu_probed;
    int have_gpu;         /* verification can run: a device here, or CH_CC_RUNNER */
    ch_strvec archs;      /* target architectures of kernels (targets' rule; at least one) */
    ch_strvec scan_args;  /* NULL-terminated, for ch_scan_file */
    char *nvcc;           /* the real nvcc */
    char *nvcc_ident;     /* its identity for object keys, read once (NULL until then) */
    ch_strvec ref_cc;     /* host compiler + the user's preprocessor flags and -O (the oracle) */
    ch_strvec ref_nvcc;   /* the same with nvcc, for the oracle of a .cu file */
    ch_strvec unit_flags; /* from the options */
    char *runtime_lib;    /* libch_runtime.a (ch_emit_runtime_library), NULL when not found:
                             every verifier's scaffold links it */
    ch_cfg_source budget_source;
    ch_agent *agent; /* opened on the first miss */
    int agent_failed;
    ch_error agent_err;
    int quiet;
    ch_session_progress_fn progress;
    void *progress_ctx;
    pthread_mutex_t lock;  /* guards counts and warnings (evolution runs several threads) */
    ch_cache_stats counts; /* what this command did, added to the cache's stats at close */
    ch_strvec warnings;    /* for the driver to print */
} ch_session;

/* Opens s. Never fails: a cache that cannot be opened leaves s->cache NULL (entries then take
 * their host path, cache_err says why); a bad arch setting becomes a warning. */
void ch_session_open(ch_session *s, const ch_session_opts *o);
/* Adds the counts to the cache's statistics, closes the cache and the agent; the warnings not
 * taken yet go to warnings (NULL: dropped). */
void ch_session_close(ch_session *s, ch_strvec *warnings);
/* Moves the pending warnings into out (the caller prints them). */
void ch_session_take_warnings(ch_session *s, ch_strvec *out);

/* Probes the GPU on first use (a cache hit needs no device: cuInit costs a warm rebuild
 * hundreds of milliseconds) and returns s with gpu and have_gpu set. */
ch_session *ch_session_gpu(ch_session *s);
/* The agent, opened on first use with the session's GPU as hardware; NULL with err. */
ch_agent *ch_session_agent(ch_session *s, ch_error *err);
/* Adds one to a counter of s->counts (thread-safe). */
void ch_session_count(ch_session *s, unsigned long long *field);

/* The entry's cache key (ch_cache_key over the session's architectures). */
int ch_session_key(const ch_session *s, const ch_entry *e, char key[33], ch_error *err);
/* A source file read once and its pragma lines located once (ch_pragma_find over text): what a
 * compile shares between the grammar check, the scan and the host copy. Borrowed. */
typedef struct ch_scan_source {
    const char *text; /* NUL-terminated at len */
    size_t len;
    const ch_pragma_loc *pragmas;
    size_t n_pragmas;
} ch_scan_source;

/* Scans path (lang C, C++ or CUDA) with the session's scan arguments. src: the file's text and
 * pragma lines when the caller has them already (NULL: read and located here). */
int ch_session_scan(const ch_session *s, const char *path, ch_lang lang, const ch_scan_source *src,
                    ch_entry_list *out, ch_error *err);

/* An admin command's entry: scans path into l and sets *first to the entry called name (any
 * entry when name is NULL or ""); with only_one and no name, a file with several entries is an
 * error, as is a file without the entry. 0, or -1 with err. */
int ch_session_scan_named(const ch_session *s, const char *path, ch_lang lang, const char *name,
                          int only_one, ch_entry_list *l, const ch_entry **first, ch_error *err);

/* --harness-propose's step: asks the session's agent for up to count candidates of e (fewer
 * when it has nothing new) and writes each, unverified, as dir/NAME.K.cu (dir exists); wrote
 * (may be NULL) is told each file and its design name ("" when none). 0, or -1 with err. */
typedef void (*ch_session_proposed_fn)(void *ctx, const char *path, const char *design);
int ch_session_propose(ch_session *s, const ch_entry *e, const char *dir, long count,
                       ch_session_proposed_fn wrote, void *ctx, ch_error *err);

/* --harness-plan's text: for the entry called name in path (every entry when name is NULL or
 * ""), what the builtin translator makes of its body (statements, loops, each strategy's plan
 * or its located refusal), appended to out. 0, or -1 with err (the file or the entry). */
int ch_session_plan(const ch_session *s, const char *path, ch_lang lang, const char *name,
                    ch_strbuf *out, ch_error *err);

/* --harness-verify's step: the candidate's source judged for the entry called name in path
 * (any entry when name is NULL or "" and the file has one), as the build judges the agent's
 * candidates (ch_session_verify_setup). */
typedef struct ch_judgement {
    ch_verify_report report; /* the verifier's (ch_verify_report_free) */
    char key[33];            /* the entry's cache key for this command line, "" when unknown */
    const char *pending;     /* stages 0-1 passed and no GPU can run the rest: why (borrowed
                                from the session); NULL when the verdict is the report's */
    char *not_linked;        /* why a user's program would never run this candidate on the GPU, even
                                verified (ch_emit_gpu_refusal: it moves the caller's data itself); NULL
                                when it would. ch_judgement_free frees it. */
} ch_judgement;
void ch_judgement_free(ch_judgement *j);
/* 0 (out->report filled; free it), or -1 with err: no such entry, a spec-only entry, a
 * reference that cannot be built. */
int ch_session_judge(ch_session *s, const char *path, ch_lang lang, const char *name,
                     const char *candidate_src, ch_judgement *out, ch_error *err);

/* The verifier's setup for an entry (the oracle compiled as the build compiles it: the user's
 * preprocessor flags and -O; the session's nvcc, targets, runner and runtime library);
 * *gpu_lock (caller frees) is the machine-wide GPU lock file. v borrows from s. */
void ch_session_verify_setup(ch_session *s, const ch_entry *e, const char *tu,
                             const char *reference_c, ch_verify_setup *v, char **gpu_lock);

/* What an entry links. */
typedef struct ch_outcome {
    const ch_entry *entry;
    char key[33];
    ch_entry_status status; /* what the cache records (or now records) for the entry */
    ch_fallback fallback;   /* why the host path (CH_FALLBACK_NONE with a kernel) */
    char *kernel_src;       /* the verified candidate, NULL: host path */
    char *host_src;         /* spec-decl: the test author's reference (the host path), else NULL */
    char *design;           /* the kernel's design name, may be NULL */
    char *reason;           /* why the host path, when kernel_src is NULL */
    int refused;            /* the agent could not handle the entry */
    ch_refusal refusal;     /* why, when refused */
    int cached;             /* the kernel came from the cache */
    int candidates;         /* evolved this time: candidates tried */
    double seconds;         /* evolved this time: wall time */
    double launcher_ms;     /* the kernel's whole-call time at the tune size, -1 unknown */
    double fraction;        /* of the memory floor, -1 unknown */
    long long gpu_min_size; /* the dispatcher's threshold (ch_emit_gpu_min_size) */
    ch_emit_cold cold;      /* its thresholds for first calls (zero: unknown) */
    ch_cache_hit hit;       /* the cache entry it came from (empty when generated now) */
} ch_outcome;

/* The entry's outcome: from the cache, or generated (and cached). tu: the file the entry is in
 * (the oracle's translation unit). -1 with err only for failures that must fail the compile
 * (the key cannot be computed); a cache fault costs the kernel, not the build. Counts the
 * outcome. */
int ch_session_entry(ch_session *s, const ch_entry *e, const char *tu, ch_outcome *out,
                     ch_error *err);
void ch_outcome_free(ch_outcome *o);
/* Turns a kernel outcome into a host path (the kernel and its design dropped) of class f with
 * reason, and counts it (host_fallbacks and fallback_<class>): a kernel lost after its entry
 * was served (ch/assemble.h, the object step). */
void ch_session_fall_back(ch_session *s, ch_outcome *o, ch_fallback f, const char *reason);

/* The object of a kernel outcome at obj_path: from the entry's objects/ in the cache (when it
 * passes the object check: a cache can be written by others), else emitted into tmp, compiled
 * by nvcc with the session's unit flags, checked and stored there. c_linkage: the unit is
 * called from C. Returns 0 or -1 with err. */
int ch_session_object(ch_session *s, const ch_outcome *o, int c_linkage, const char *tmp,
                      const char *obj_path, ch_error *err);
/* The key of an outcome's object (the entry key, nvcc's identity, the unit flags, linkage,
 * dispatch threshold, the runtime interface). */
int ch_session_object_key(ch_session *s, const ch_outcome *o, int c_linkage, char key[33],
                          ch_error *err);

#endif
