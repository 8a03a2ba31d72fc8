/* Synthesis-based progressive verification (DESIGN §3): is a candidate right, and how fast?
 *
 * Stages, stopping at the first failure (its result is the feedback):
 *   0 static   launcher signature, a kernel launch, no main, no file/process/network/env calls,
 *              allowed headers only, no host-side writes of outputs
 *   1 compile  NVRTC on the candidate's device code, in process (a fast first verdict; skipped
 *              when libnvrtc is absent), then nvcc -c -Xptxas -v of the candidate (resource
 *              report, object check) linked with the entry's scaffold object (compiled once)
 *   2 smoke    the checklist's smallest sizes, outputs poisoned beforehand (stages 2-3 judge
 *              NAME_device_launcher's outputs too when the candidate defines one: its time is
 *              what ranking compares, so its results are checked like the launcher's)
 *   3 correct  the correctness sizes the plan keeps (ch_verify_plan), two input sets in the same
 *              buffers (no output caching) or one for large sizes, in buffers unchanged,
 *              compared in the parent
 *   4 sanitize compute-sanitizer memcheck (+ racecheck, synccheck, initcheck where they apply)
 *              on a small size (skipped when absent); once per distinct candidate source
 *   5 perf     tune size: the kernels alone on device-resident data (NAME_device_launcher) against
 *              the DRAM floor, and the whole host-pointer call against the PCIe floor and the
 *              host path; repeats stop once the median is stable; afterwards the device
 *              launcher must still agree with the launcher (skipped work when called often)
 *
 * Concurrency: stages 0-1 use only CPUs; stages 2-4 of any number of candidates and entries
 * share the GPU (ch_gpu_lock shared, device memory bounded per verifier); stage 5 holds it
 * exclusively.
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

/* The name a test author's reference is compiled under when verified (its __FILE__), and
 * where it is pasted to be linked (#line), so both compiles read the same. */
#define CH_REFERENCE_FILE "ref_impl.c"

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ch/checklist.h"
#include "ch/error.h"
#include "ch/lock.h"
#include "ch/proc.h"
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
 * uniform in [index_lo, index_hi) (index_lo NULL: 0; pairwise distinct in random order when
 * perm, an error when the extent exceeds the number of values), offsets arrays non-decreasing
 * from 0 to offsets_hi. A sample(fn) function is not run here: see ch_reference_inputs. */
int ch_data_synthesize(const ch_checklist *c, const ch_ck_size *size, uint64_t seed,
                       ch_dataset *out, ch_error *err);
/* Structured inputs, besides random ones: the values users' programs hold and random draws
 * almost never give, on which a kernel must be right too (a trigger on them is one no random
 * test reaches). Index, permutation and offsets arrays stay as ch_data_synthesize makes them. */
typedef enum ch_data_shape {
    CH_DATA_RANDOM,   /* ch_data_synthesize's */
    CH_DATA_UNIFORM,  /* each value buffer one value, each a different round one (1.5, 0.5, 3)
                         where the range allows; floating scalars round too */
    CH_DATA_EQUAL,    /* random, with each value buffer equal to an earlier one of its type and
                         length (the same array passed twice) */
    CH_DATA_WIDE,     /* random, floating values and scalars from 33 times their range around
                         it: for two references of one spec, which must agree off the checklist's
                         range as well (a reference's trigger may hide beyond it), never for a
                         candidate, whose contract the range is */
    CH_DATA_NONFINITE /* random, with NaN, +Inf and -Inf at random positions of floating value
                         buffers (about one element in 16, and three where there is room):
                         for two references of one spec, never for a candidate */
} ch_data_shape;
int ch_data_synthesize_shaped(const ch_checklist *c, const ch_ck_size *size, uint64_t seed,
                              ch_data_shape shape, ch_dataset *out, ch_error *err);
void ch_dataset_free(ch_dataset *d);
/* Writes DIR/P.bin for every scalar and every in/inout buffer. */
int ch_dataset_write(const ch_checklist *c, const ch_dataset *d, const char *dir, ch_error *err);
/* A fresh seed from the OS (never 0). */
uint64_t ch_fresh_seed(void);

/* ---- comparison --------------------------------------------------------------------------- */

/* Element i of a buffer of t as a double (64-bit integers lose precision past 2^53). */
double ch_elem_value(ch_scalar t, const void *buf, size_t i);

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
/* Its two halves, ch_static_check being the first and then the second: the checks on the text
 * (fast: forbidden names, includes, the launcher's signature) and the host subset on libclang's
 * AST (seconds: the candidate is parsed with the CUDA headers, in a bounded child process,
 * ch/static_child.h). Verification runs the second beside nvcc, which compiles in the sandbox
 * and never runs what it compiles (and is stopped when the second refuses): only a program
 * that passed both is run. Same returns as ch_static_check. */
int ch_static_check_text(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details);
int ch_static_check_subset(const ch_checklist *c, const char *src, ch_strbuf *msg, cJSON **details);

/* The object check, after compilation (the text check above is the fast first filter): the
 * host side of a compiled candidate or reference may call only allowed functions (the CUDA
 * runtime, libc memory and math, the C++ runtime pieces nvcc needs), has no constructor or
 * destructor but nvcc's registration, and no system call instruction. Returns 0 when the object
 * at path passes; 1 with a one-line message in msg. */
int ch_object_check(const char *path, ch_strbuf *msg);
/* The device-code check, after compilation (the text checks are the fast first filter): the
 * PTX nvcc made of a candidate reads no special register that depends on the time, the GPU or
 * the launch history, has no trap and no assertion, and lets no module-scope variable's address
 * reach a store, an atomic or a call. unit: the candidate's file name as the PTX's .file lines
 * end (to locate findings on its lines). Returns 0 when it passes; 1 with a one-line message. */
int ch_ptx_check(const char *ptx, const char *unit, ch_strbuf *msg);
/* Libraries a candidate may call from its host side when it declares them (bits). */
enum { CH_OBJECT_LIB_CUBLAS = 1u };
/* The libraries src declares it uses: "ch-cc library: cublas" in its text (the translator's
 * library variants write it in their opening comment). */
unsigned ch_object_libraries_declared(const char *src);
/* ch_object_check with the host entry points of the libraries in libs allowed as well. */
int ch_object_check_libs(const char *path, unsigned libs, ch_strbuf *msg);

/* Whether name allocates a CUDA array (cudaMallocArray, cudaMalloc3DArray,
 * cudaMallocMipmappedArray): memory with an earlier call's contents that the hardening cannot
 * zero, so neither it (src/verify/harden.c) nor the object check lets a candidate call one. */
int ch_object_allocator_unzeroed(const char *name);

/* What an object is checked as: a candidate (above); a model-written reference (host C: libc
 * memory and math only, no constructor at all: it becomes the host path of the user's program);
 * an emitted unit taken from the cache (a candidate plus the dispatcher's getenv, stderr trace
 * and pthread_once, and the trusted runtime's ch_rt_* entry points). */
typedef enum { CH_OBJECT_CANDIDATE, CH_OBJECT_REFERENCE, CH_OBJECT_UNIT } ch_object_kind;
/* ch_object_check for kind; extra_allowed (NULL-ended, or NULL) adds exact names (the user's
 * own function a unit falls back to; with C++ linkage, its mangled forms too), libs the
 * libraries' entry points (candidates and units). */
int ch_object_check_as(const char *path, ch_object_kind kind, const char *const *extra_allowed,
                       unsigned libs, ch_strbuf *msg);
/* Whether an object of kind may call the function name (a C name, fortified or not), with the
 * libraries in libs: the object check's allow-list, which the host subset check
 * (ch/host_subset.h) applies to the calls it sees in the source. */
int ch_object_name_allowed(ch_object_kind kind, unsigned libs, const char *name);
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

/* ---- NVRTC: stage 1's fast first verdict (src/verify/nvrtc.c) ----------------------------- */

/* The candidate's device code as NVRTC takes it: the source with its host parts blanked (same
 * length, newlines kept, so NVRTC's lines are the candidate's): function definitions without
 * __global__/__device__, namespace-scope variables that are neither device variables nor
 * constants, host function prototypes, and #include lines of headers NVRTC has neither in the
 * toolkit nor as a stand-in (ch_nvrtc_stub). Types, templates, macros and device code stay. */
typedef struct ch_device_split {
    char *code;                 /* owned */
    char *host_text;            /* the blanked items' text, owned */
    unsigned char *device_line; /* [1..n_lines]: the line is in kept device code */
    size_t n_lines;
    int has_kernel;       /* a __global__ function was kept */
    int dropped_includes; /* #include lines blanked */
} ch_device_split;

int ch_device_code(const char *src, ch_device_split *out);
void ch_device_split_free(ch_device_split *d);
/* The stand-in NVRTC gets for a C header it lacks ("limits.h", "cmath", ...: constants, types),
 * or NULL. */
const char *ch_nvrtc_stub(const char *name, size_t n);

typedef enum ch_nvrtc_verdict {
    CH_NVRTC_PASS,   /* the device code compiles (log: ptxas -v resource lines) */
    CH_NVRTC_FAIL,   /* errors nvcc would report too: in kept device code, not about anything
                      * the split or a missing header removed */
    CH_NVRTC_UNSURE, /* errors that may come from the split: nvcc decides */
    CH_NVRTC_SKIP    /* no libnvrtc, no kernel in the source, or NVRTC cannot judge */
} ch_nvrtc_verdict;

/* Compiles src's device code in process (libnvrtc by dlopen from cuda_home/lib64 or the loader
 * path; calls serialised) for arch ("sm_90"), naming the program `name` as nvcc would print the
 * file ("candidate.cu"). NVRTC's log goes to log. */
ch_nvrtc_verdict ch_nvrtc_check(const char *src, const char *name, const char *arch,
                                const char *cuda_home, ch_strbuf *log);
/* The verdict of a failed compile's log (exposed for tests). */
ch_nvrtc_verdict ch_nvrtc_classify(const char *log, const char *name, const ch_device_split *d);

/* ---- reference oracle --------------------------------------------------------------------- */

typedef struct ch_oracle {
    /* entries with a body: the user's translation unit and the command that compiles it
     * ({"cc", "-I...", "-DX=1", "-std=c11", NULL}: compiler and the user's flags, no -c/-o);
     * with reference_c too, the file is compiled only for a sample(fn) function */
    const char *tu_path;
    char *const *cc_argv;
    /* spec-decl entries: a C source defining NAME_reference with the entry's signature */
    const char *reference_c;
    int cuda; /* tu_path is CUDA C++ and cc_argv is nvcc with the user's flags */
    /* spec-decl entries whose words ch-cc can read itself (ch_spec_read): that reading, a C
     * source defining NAME_reference too, and what it is ("formula: ..."); reference_c must
     * agree with it (ch_reference_build). NULL: none */
    const char *reading_c;
    const char *reading_how;
    int own; /* ch-cc wrote reference_c (its spec reader): not checked as a test author's */
} ch_oracle;

/* Builds the reference program in dir (a test author's reference_c is also built under
 * MemorySanitizer and, with reading_c, checked against that reading, reference_agree.h): `ref
 * SETDIR` reads SETDIR/P.bin and writes SETDIR/P.out.bin for every buffer (`ref SETDIR time` times
 * the call, `ref SETDIR low` puts the buffers' guard pages before them, `ref SETDIR sample` runs
 * the sample function). A user `main` is renamed (objcopy). Then runs it on every smoke size (CPU
 * only, sandboxed): a crash there fails the build with ch_reference_failure's message ("the inputs
 * need a clause"). With a sample function, o->tu_path must name the user's file even for a
 * spec-decl entry (whose oracle stays reference_c). *exe is malloc'd; log receives the compiler
 * output and a crashed run's error output on failure. */
int ch_reference_build(const ch_checklist *c, const ch_oracle *o, const char *dir, char **exe,
                       ch_strbuf *log, ch_error *err);

/* The inputs verification feeds at one size: ch_data_synthesize, then, when the checklist
 * names a sample function, the reference program exe run in `sample` mode over them (in a
 * temporary directory, sandboxed): its writes to in and inout buffers replace the synthesized
 * values. Every stage that writes inputs for a candidate or the oracle takes them from here. */
int ch_reference_inputs(const ch_checklist *c, const char *exe, const ch_ck_size *size,
                        uint64_t seed, ch_dataset *out, ch_error *err);
/* The same with structured inputs (ch_data_shape); a sample function replaces them as it
 * replaces random ones. */
int ch_reference_inputs_shaped(const ch_checklist *c, const char *exe, const ch_ck_size *size,
                               uint64_t seed, ch_data_shape shape, ch_dataset *out, ch_error *err);

/* Why a run of the reference program exe at size failed, as one line: a timeout; a crash with
 * the signal, the function and line of the fault (from the program's fault report and its
 * debug information, when found) and "the inputs need a clause: ..." naming the clauses that
 * would say what valid inputs are; or the exit status and first error line. Caller frees. */
char *ch_reference_failure(const ch_checklist *c, const char *exe, const ch_proc_result *pr,
                           const ch_ck_size *size);

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
    double magic_ref_seconds;      /* the reference's time at a size at a constant; 0:
                                      CH_MAGIC_REF_SECONDS */
    int keep;                      /* keep work directories (their paths are in the report) */
    /* the GPU lock file shared by every ch-cc process of the machine (ch_gpu_lock_acquire), or
     * NULL: threads of this process only */
    const char *gpu_lock;
    double device_mem_budget; /* bytes of device memory concurrent tests may use; 0: 8 GiB */
    int no_nvrtc;             /* skip the NVRTC check of stage 1 (nvcc alone) */
    /* libch_runtime.a (ch_emit_runtime_library), linked into every scaffold program so that the
     * whole call of a candidate with a device launcher is timed through the trusted runtime, as
     * the dispatcher makes it; NULL: the candidate's own launcher is timed */
    const char *runtime_lib;
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
    int correct;   /* stages 0..4 passed or were skipped and stage 5 did not fail: usable as a
                    * kernel (a timing that caught skipped work disqualifies) */
    char *message; /* one line: "correct: y[96..99] not written (NaN) at n=100" */
    uint64_t seed;
    ch_stage_status status[CH_STAGE_COUNT_];
    double seconds[CH_STAGE_COUNT_];
    /* stage 5 medians, -1 when not measured. launcher_ms: the whole host-pointer call (wall
     * clock; what a user's call costs and what the dispatcher reads). kernel_ms: the kernels
     * alone on device-resident data when kernel_resident (through NAME_device_launcher, or a
     * `device` entry's launcher); else the launcher's event time, copies included. */
    double launcher_ms, kernel_ms;
    int kernel_resident;
    /* the floor evolution and feedback read, and floor_ms / its time; -1 when unknown:
     * with kernel_resident the DRAM floor against kernel_ms, else (as before device launchers)
     * the larger of the PCIe and DRAM floors against launcher_ms */
    double floor_ms, fraction;
    double dram_floor_ms; /* bytes moved / calibrated device-copy bandwidth */
    double pcie_floor_ms; /* host<->device bytes / pinned copy bandwidths (host-pointer entries) */
    double call_fraction; /* pcie_floor_ms / launcher_ms */
    double peak_gflops;   /* fp32 peak of the device (calibration), -1 unknown; the checklist
                           * gives no flop count, so no compute floor is derived from it */
    /* for the launcher's dispatch by size (stage 5; -1 when not measured): the host path (the
     * oracle) at the tune size, and the whole launcher call at the smallest smoke size */
    double host_ms, small_ms;
    /* the path the whole call (launcher_ms) was timed through: 1 the trusted runtime (what the
     * dispatcher of a candidate with a device launcher runs), 0 the candidate's launcher, -1 not
     * timed */
    int call_runtime;
    /* the dispatch curve (stage 5): the host path and the whole call at up to
     * 4 sizes of the checklist (smallest smoke set, a middle one, tune), ascending by buffer
     * elements; n_curve 0 when not measured */
    int n_curve;
    const ch_ck_size *curve_set[4]; /* borrowed from the verifier's checklist */
    double curve_host_ms[4], curve_call_ms[4];
    /* the cold costs (stage 5, issue 14; -1 when not measured): what a process's first call pays
     * besides the warm call the curve measures. setup_ms: the device's set-up alone (driver,
     * context, the runtime's staging), timed first thing in a fresh scaffold process, the
     * largest over its timing runs; first_use_ms: the first whole call at the tune size right
     * after it, less the warm median there (the entry's device buffers, its module, its
     * stream) */
    double setup_ms, first_use_ms;
    char *work_dir;            /* kept candidate directory (keep), else NULL */
    unsigned isolation_failed; /* CH_ISO_* sandbox steps that could not be set up (ch/sandbox.h) */
    cJSON *details;            /* owned: per-stage structured results */
} ch_verify_report;

void ch_verify_report_init(ch_verify_report *r);
void ch_verify_report_free(ch_verify_report *r);
/* A deep copy of src into dst (dst uninitialised; work_dir is not copied). */
void ch_verify_report_copy(ch_verify_report *dst, const ch_verify_report *src);
/* The whole report as JSON (caller frees). */
char *ch_verify_report_json(const ch_verify_report *r);
/* The report's "timing" object (caller deletes): kernel_ms, kernel_resident (+ kernel_note when
 * the kernel time includes copies), dram_floor_ms, kernel_fraction_of_dram_floor,
 * fp32_peak_gflops, compute_floor; launcher_ms, pcie_floor_ms, call_fraction_of_pcie_floor,
 * host_ms, small_size_launcher_ms; floor_ms and fraction_of_floor (what evolution reads).
 * Unknown values are null. */
cJSON *ch_verify_timing_json(const ch_verify_report *r);
/* The feedback text for the kernel author: the failing stage's diagnostics only (correctness
 * before speed), or timings and resources once correct. Never contains test data paths, the
 * seed or reference code. Caller frees. */
char *ch_verify_feedback(const ch_verify_report *r);

/* What ptxas reported of the candidate's kernels (stage 1): the most registers and the most
 * static shared memory of one kernel, -1 when not reported, and the spill stores of all of them
 * together (0: none). */
void ch_verify_resources(const ch_verify_report *r, int *registers, int *smem_bytes,
                         int *spill_bytes);

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
/* ch_verifier_test may run for several candidates at once from different threads: the
 * functional stages share the GPU, stage 5 waits for it alone (ch_gpu_lock). */

/* ---- the plan: what runs, chosen from the entry ------------------------------------------ */

#define CH_PLAN_MAX_BYTES      (512.0 * 1024 * 1024) /* correctness sizes above: skipped ... */
#define CH_PLAN_TWO_SETS_BYTES (64.0 * 1024 * 1024)  /* ... above: one input set per run */
#define CH_PLAN_SANITIZE_BYTES (1024.0 * 1024)       /* the sanitizer's largest size */

/* Bytes of one input set of c at size sz (every buffer at its extent); -1 when an extent does
 * not evaluate. */
double ch_verify_set_bytes(const ch_checklist *c, const ch_ck_size *sz);

/* ---- testing at the constants: sizes a trigger on one value would hide from --------------- */

#define CH_MAGIC_MAX_CONSTS 16 /* constants kept from the sources (the first ones) */
#define CH_MAGIC_MAX_SIZES  6  /* extra correctness sizes a candidate gets at most */
/* A size at a constant may be larger than any the checklist runs (a trigger above the tune
 * size, attacks6/22), up to these bytes; its reference gets CH_MAGIC_REF_SECONDS, and a size
 * the reference cannot compute in that time is left out, with a note in the report. */
#define CH_MAGIC_MAX_BYTES   (1024.0 * 1024 * 1024)
#define CH_MAGIC_REF_SECONDS 60

/* Integer constants that a candidate or a reference compares a value with (`n > 100000`,
 * `i == 123457`, `case 7:`) and residue tests (`n % 7 == 3`, M not a power of two), read from
 * the source's tokens: what the magic-constant rule of the host subset lets through (ordering
 * against any threshold) is still tested on each side of it. */
typedef struct ch_magic_residue {
    long long m, r;
} ch_magic_residue;
typedef struct ch_magic_consts {
    long long thr[CH_MAGIC_MAX_CONSTS];
    size_t n_thr;
    ch_magic_residue res[CH_MAGIC_MAX_CONSTS];
    size_t n_res;
} ch_magic_consts;

/* Adds src's constants to k (comments and literals skipped; duplicates kept once). */
void ch_magic_harvest(const char *src, ch_magic_consts *k);
/* Adds 2^K for src's shifts `X >> K` and `1 << K` (2 <= K <= 40) as thresholds: a reference's
 * test of a size against a power of two without a comparison. */
void ch_magic_harvest_shifts(const char *src, ch_magic_consts *k);
/* The literals (integer or floating, but 0 and 1) src compares with, up to max, in out;
 * returns how many: the values a reference's inputs are also drawn at. */
size_t ch_magic_values(const char *src, double *out, size_t max);
/* Up to max extra correctness sizes of c (written to out, caller frees each with
 * ch_ck_size_free) that put one size parameter at the constants of k, on the first correctness
 * size for the others: a residue's value next to each threshold first, then c - 1, c and c + 1
 * of each threshold, largest first. Only sizes new to the checklist whose input set stays
 * within max_bytes (the memory the plan reserves a test) are kept. Returns how many. */
size_t ch_magic_sizes(const ch_checklist *c, const ch_magic_consts *k, double max_bytes,
                      ch_ck_size *out, size_t max);

typedef struct ch_verify_plan {
    size_t n_correct;      /* the checklist's correctness sizes */
    int *correct_sets;     /* per size: input sets per run: 2 (a second call in the same buffers
                            * catches outputs cached across calls), 1 above
                            * CH_PLAN_TWO_SETS_BYTES, 0 skipped (above CH_PLAN_MAX_BYTES while a
                            * smaller size runs); the smallest size always gets 2 */
    double *correct_bytes; /* per size: bytes of one input set, -1 unknown */
    int sanitize;          /* the correctness size of the sanitizer: the largest within
                            * CH_PLAN_SANITIZE_BYTES, else the smallest; -1: the last smoke size,
                            * -2: none */
    double device_bytes;   /* device memory one test (stages 2-4) may use: twice its largest set */
} ch_verify_plan;

/* Fills p from c (owned arrays: ch_verify_plan_free). Returns 0. */
int ch_verify_plan_make(const ch_checklist *c, ch_verify_plan *p);
void ch_verify_plan_free(ch_verify_plan *p);
/* Repeat counts of a timing run from one input set's bytes and the DRAM bandwidth (GB/s; <= 0:
 * unknown): short calls get more samples, long ones fewer (the scaffold stops earlier once the
 * median is stable, ch_scaffold_stable_code). */
void ch_verify_perf_counts(double set_bytes, double dram_gbs, int *warmup, int *min_repeats,
                           int *max_repeats);

/* How many times the host path's time, or the fastest earlier candidate's whole call, a whole
 * call may take before it "cannot win": a GPU path that slow is never dispatched, and a candidate
 * that slow loses to the earlier one (its kernels too: they take less than its call). */
#define CH_VERIFY_HOPELESS_FACTOR 4.0
/* The "cannot win" bound of a candidate's whole call at the tune size, in ms (time mode's
 * BOUND_MS): CH_VERIFY_HOPELESS_FACTOR times the smaller of host_ms (the host path's call) and
 * best_call_ms (the fastest whole call of an earlier candidate of this entry); a value <= 0 is
 * unknown and left out; 0 when both are (no bound). *against_host (may be NULL): 1 when host_ms
 * sets the bound, 0 when best_call_ms does. */
double ch_verify_hopeless_bound(double host_ms, double best_call_ms, int *against_host);

/* Bytes of one input set (count[i] elements of parameter i) by what moves them. */
typedef struct ch_verify_bytes {
    double in;       /* a host-pointer call copies in: every buffer but out ones */
    double out;      /* copied back: every buffer but in ones (inout counts in both) */
    double kernel;   /* the kernels' least DRAM traffic, the DRAM floor's bytes: each buffer
                      * read once unless out or written only (an inout buffer whose body never
                      * reads an element it did not write first), written once unless in */
    double out_only; /* out buffers, which correctness proved are written whole */
    double set;      /* one copy of every buffer */
} ch_verify_bytes;
void ch_verify_tune_bytes(const ch_checklist *c, const size_t *count, ch_verify_bytes *b);

/* ---- the GPU lock --------------------------------------------------------------------------
 * Which race each part handles:
 * - a timing run (stage 5, the calibration) measured while another program uses the same GPU
 *   reports wrong times: timing takes the lock exclusively;
 * - functional runs (smoke, correctness, sanitizer) only need the device: any number share it,
 *   but never while a timing run holds it; they take it shared;
 * - make -j runs many ch-cc processes: the lock is a file (path, under the cache's locks/)
 *   locked through ch/lock.h (flock(2), which holds across processes and dies with its holder,
 *   and survives the lock file being replaced);
 * - flock has no queue, so a stream of shared takers could starve a timing run: a turnstile
 *   file (path.turn) is held by every taker while it waits for the lock, so once a timing run
 *   waits, later functional runs queue behind it;
 * - threads of one process: flock locks belong to open file descriptions, so threads exclude
 *   each other like processes; a process-wide writer-preferring rwlock, taken first, gives the
 *   same order without a path (no cache). */
typedef struct ch_gpu_lock {
    ch_lock file;  /* the lock file (ch/lock.h); fd -1 without a path */
    int exclusive; /* 1: timing */
    int held;      /* the process-wide part is held (release it) */
} ch_gpu_lock;

/* Blocks until the lock is held. -1 with err when the file cannot be opened or locked: the
 * process-wide part is held all the same (release it), the caller goes on and says so. */
int ch_gpu_lock_acquire(const char *path, int exclusive, ch_gpu_lock *l, ch_error *err);
void ch_gpu_lock_release(ch_gpu_lock *l);

#endif
