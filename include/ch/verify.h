/* Synthesis-based progressive verification (DESIGN §3): is a candidate right, and how fast?
 *
 * Stages, stopping at the first failure (its result is the feedback):
 *   0 static   launcher signature, a kernel launch, no main, no file/process/network/env calls,
 *              allowed headers only, no host-side writes of outputs
 *   1 compile  nvcc -cubin -Xptxas -v of the candidate (kernel check + resource report), then
 *              nvcc of the scaffold
 *   2 smoke    the checklist's smallest sizes, outputs poisoned beforehand
 *   3 correct  every correctness size, two input sets in the same buffers (no output caching),
 *              in buffers unchanged, compared in the parent
 *   4 sanitize compute-sanitizer memcheck + racecheck on a small size (skipped when absent)
 *   5 perf     tune size: launcher (and kernel) time, memory floor, fraction achieved
 *
 * Isolation: test data and reference outputs live in a private directory of the ch_verifier;
 * each candidate runs in a fresh sandbox directory (ch/sandbox.h) holding only copies of its
 * inputs. Seeds are fresh per candidate unless the setup fixes one; they go into the report.
 *
 * The evolution loop's entry points: ch_verifier_open once per entry, ch_verifier_run once per
 * candidate (returns a ch_verify_report), ch_verifier_close.
 *
 * Ownership: everything a ch_verifier needs is copied or borrowed as documented in
 * ch_verify_setup; reports own their strings and details (ch_verify_report_free). */
#ifndef CH_VERIFY_H
#define CH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ch/checklist.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* ---- test data ---------------------------------------------------------------------------- */

/* One synthesized input set for one size: a value buffer per parameter. Scalars are 1-element
 * buffers; out-only buffers have data == NULL (their count is still set). */
typedef struct ch_dataset {
    uint64_t seed;
    size_t n;      /* == checklist n_params */
    size_t *count; /* elements per parameter */
    void **data;   /* owned */
} ch_dataset;

/* Seeded, deterministic synthesis: integer scalars from the size set (others from their range),
 * buffer values uniform in [lo, hi] (defaults by type when lo >= hi) with edge values (0, ±1,
 * the range ends, large magnitudes when the range allows) at random positions, index arrays
 * uniform in [0, index_hi), offsets arrays non-decreasing from 0 to offsets_hi. */
int ch_data_synthesize(const ch_checklist *c, const ch_ck_size *size, uint64_t seed,
                       ch_dataset *out, ch_error *err);
void ch_dataset_free(ch_dataset *d);
/* Writes DIR/P.bin for every scalar and every in/inout buffer. */
int ch_dataset_write(const ch_checklist *c, const ch_dataset *d, const char *dir, ch_error *err);
/* A fresh seed from the OS (never 0). */
uint64_t ch_fresh_seed(void);

/* ---- comparison --------------------------------------------------------------------------- */

typedef struct ch_mismatch {
    size_t index;
    double expected, got;
} ch_mismatch;

#define CH_CMP_FIRST 8

typedef struct ch_cmp_result {
    int ok;
    size_t count, n_bad;
    size_t n_nonfinite; /* NaN/Inf in the output where the reference is finite */
    double max_abs_err, rel_l2;
    int all_zero, constant; /* output all zero / constant while the reference is not */
    ch_mismatch first[CH_CMP_FIRST];
    size_t n_first;
    char pattern[64]; /* "tail from index 97", "every 32nd element", "everywhere", ... */
    char message[256];
} ch_cmp_result;

/* Default tolerances by type (rtol; atol is rtol times the reference's RMS magnitude). */
double ch_default_rtol(ch_scalar t);
/* Compares got with ref: |got-ref| <= atol + rtol*|ref| elementwise (integers exact), relative
 * L2 <= rtol, no NaN/Inf where ref is finite, no all-zero or constant output where ref is not.
 * rtol <= 0 / atol < 0 mean "default". Returns r->ok. */
int ch_compare(ch_scalar t, const void *got, const void *ref, size_t count, double rtol,
               double atol, ch_cmp_result *r);

/* ---- static checks ------------------------------------------------------------------------ */

/* Stage 0 on candidate source. Returns 0 when it passes; 1 with a one-line message in msg and
 * details (owned by the caller, may be NULL) describing what was found. */
int ch_static_check(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details);

/* The object check, after compilation (the text check above is the fast first filter): the
 * host side of a compiled candidate or reference may call only allowed functions (the CUDA
 * runtime, libc memory and math, the C++ runtime pieces nvcc needs), has no constructor or
 * destructor but nvcc's registration, and no system call instruction. Returns 0 when the object
 * at path passes; 1 with a one-line message in msg. */
int ch_object_check(const char *path, ch_strbuf *msg);
/* Whether an undefined symbol of host code is on the object check's allow-list. */
int ch_object_symbol_allowed(const char *name);

/* The candidate as the scaffold and the emitted unit call it: users often define the kernel's
 * host function under the entry's own name (`extern "C" void saxpy(...)`) rather than as
 * NAME_launcher. When src defines a host function `name` and never mentions name_launcher,
 * the copy has every unqualified use of the identifier `name` renamed name_launcher (comments,
 * strings and #include lines untouched, line numbers kept); else it is src as is. Stage 0
 * accepts both forms; the verifier compiles this copy, and so must whoever emits the kernel.
 * Caller frees. */
char *ch_candidate_launcher_form(const char *name, const char *src);

/* ---- reference oracle --------------------------------------------------------------------- */

typedef struct ch_oracle {
    /* entries with a body: the user's translation unit and the command that compiles it
     * ({"cc", "-I...", "-DX=1", "-std=c11", NULL}: compiler and the user's flags, no -c/-o) */
    const char *tu_path;
    char *const *cc_argv;
    /* spec-decl entries: a C source defining NAME_reference with the entry's signature */
    const char *reference_c;
    int cuda; /* tu_path is CUDA C++ and cc_argv is nvcc with the user's flags */
} ch_oracle;

/* Builds the reference program in dir: `ref SETDIR` reads SETDIR/P.bin and writes
 * SETDIR/P.out.bin for every buffer. A user `main` is renamed (objcopy). *exe is malloc'd;
 * log receives the compiler output on failure. */
int ch_reference_build(const ch_checklist *c, const ch_oracle *o, const char *dir, char **exe,
                       ch_strbuf *log, ch_error *err);

/* ---- the verifier ------------------------------------------------------------------------- */

typedef enum ch_stage {
    CH_STAGE_STATIC = 0,
    CH_STAGE_COMPILE,
    CH_STAGE_SMOKE,
    CH_STAGE_CORRECT,
    CH_STAGE_SANITIZE,
    CH_STAGE_PERF,
    CH_STAGE_COUNT_
} ch_stage;

const char *ch_stage_name(int stage); /* "static", "compile", ... */

typedef struct ch_verify_setup {
    const ch_checklist *checklist; /* borrowed; must outlive the verifier */
    ch_oracle oracle;              /* borrowed */
    const char *nvcc;              /* NULL: "nvcc" on PATH */
    const char *arch;              /* NULL: "sm_90" */
    char *const *nvcc_flags;       /* extra flags for candidate compiles, or NULL */
    const char *runner;            /* command prefix for GPU programs, or NULL */
    const char *cache_dir;         /* where the copy-bandwidth calibration is cached, or NULL */
    const char *sanitizer;         /* compute-sanitizer path; NULL: PATH, then CUDA_HOME/bin */
    int last_stage;                /* highest stage run (0..5); -1: all */
    uint64_t seed;                 /* 0: a fresh seed for every candidate */
    double wall_seconds;           /* per program run; 0: 20 s */
    int keep;                      /* keep work directories (their paths are in the report) */
} ch_verify_setup;

typedef enum ch_stage_status {
    CH_ST_NOT_RUN = 0,
    CH_ST_PASS,
    CH_ST_FAIL,
    CH_ST_SKIP
} ch_stage_status;

typedef struct ch_verify_report {
    int stage;     /* the failing stage, or the last stage run when everything passed */
    int passed;    /* every stage that ran passed (or was skipped) */
    int correct;   /* stages 0..4 passed or were skipped: usable as a kernel */
    char *message; /* one line: "correct: y[96..99] not written (NaN) at n=100" */
    uint64_t seed;
    ch_stage_status status[CH_STAGE_COUNT_];
    double seconds[CH_STAGE_COUNT_];
    double launcher_ms, kernel_ms; /* stage 5 medians; -1 when not measured */
    double floor_ms, fraction;     /* memory floor and floor / time; -1 when unknown */
    /* for the launcher's dispatch by size (stage 5; -1 when not measured): the host path (the
     * oracle) at the tune size, and the whole launcher call at the smallest smoke size */
    double host_ms, small_ms;
    char *work_dir; /* kept candidate directory (keep), else NULL */
    cJSON *details; /* owned: per-stage structured results */
} ch_verify_report;

void ch_verify_report_init(ch_verify_report *r);
void ch_verify_report_free(ch_verify_report *r);
/* The whole report as JSON (caller frees). */
char *ch_verify_report_json(const ch_verify_report *r);
/* The feedback text for the kernel author: the failing stage's diagnostics only (correctness
 * before speed), or timings and resources once correct. Never contains test data paths, the
 * seed or reference code. Caller frees. */
char *ch_verify_feedback(const ch_verify_report *r);

typedef struct ch_verifier ch_verifier;

/* Prepares verification of one entry: private reference directory, reference program build.
 * Fails (with the compiler's log in err) when the reference does not build. */
int ch_verifier_open(const ch_verify_setup *s, ch_verifier **out, ch_error *err);
/* Verifies one candidate (CUDA source text). Returns 0 with rep filled whatever the verdict;
 * -1 with err only for internal failures (cannot write temp files, reference crashed). */
int ch_verifier_run(ch_verifier *v, const char *candidate_src, ch_verify_report *rep,
                    ch_error *err);
void ch_verifier_close(ch_verifier *v);

/* ch_verifier_run in two halves, for the evolution loop: build runs stages 0-1 (CPU only; safe
 * to call from several threads at once for different candidates) and, when they pass and later
 * stages are to run, returns their state in *build (else NULL, with rep final). test runs the
 * remaining stages (GPU) on that state, completes rep and frees build. */
typedef struct ch_verify_build ch_verify_build;
int ch_verifier_build(ch_verifier *v, const char *candidate_src, ch_verify_report *rep,
                      ch_verify_build **build, ch_error *err);
int ch_verifier_test(ch_verifier *v, ch_verify_build *build, const char *candidate_src,
                     ch_verify_report *rep, ch_error *err);
/* Frees a build that will not be tested (its directory kept in rep->work_dir with keep). */
void ch_verify_build_free(ch_verifier *v, ch_verify_build *build, ch_verify_report *rep);

#endif
