/* Emit: turning verified kernels into code the user's build links (DESIGN §2, §3 emit).
 *
 * For every entry that has a verified kernel, one CUDA translation unit is generated: the
 * candidate exactly as verified, then the C-callable function with the user's name and
 * signature, which dispatches once per process between the GPU path (for host pointers the
 * trusted runtime running the candidate's NAME_device_launcher on its device copies; for a
 * `device` entry the candidate's NAME_launcher on the caller's device pointers) and the host path
 * (the user's body, compiled in the user's own object under NAME__host, or for spec-decl entries
 * the verified reference placed in this unit). The runtime is ch/runtime.h, libch_runtime.a, linked
 * by the driver's link step. A host-pointer candidate without NAME_device_launcher is not linked:
 * the unit then holds only the host path (ch_emit_gpu_refusal says why). The pipeline's object step
 * (ch/assemble.h) compiles the unit with nvcc, keeps only NAME global, and merges it with
 * `ld -r`.
 *
 * Ownership: the strings in ch_emit_kernel are borrowed; outputs are the caller's. */
#ifndef CH_EMIT_H
#define CH_EMIT_H

#include <stddef.h>

#include "ch/checklist.h"
#include "ch/entry.h"
#include "ch/error.h"
#include "ch/scan.h"
#include "ch/strbuf.h"

/* What a call pays the first time in a process besides its warm cost (issue 14), from
 * verification's cold measurements: the device's set-up (driver, context, staging) and the
 * first use of the entry's device buffers. All 0: unknown (cache entries from before these were
 * measured); the dispatcher then decides from the warm threshold alone. */
typedef struct ch_emit_cold {
    long long buffers_min_size; /* the threshold while the entry's device buffers are still to
                                 * be allocated or grown (never below gpu_min_size) */
    long long device_min_size;  /* while the device is not set up in this process either */
    double setup_ms;            /* the device's set-up, ms */
    double first_use_ms_per;    /* the buffers' first use, ms per unit of the size measure */
} ch_emit_cold;

typedef struct ch_emit_kernel {
    const ch_entry *entry;
    const char *kernel_src; /* the verified candidate, defining NAME_launcher */
    const char *host_src;   /* spec-decl: C source defining NAME_reference (the host path);
                             * NULL when the user's body (NAME__host) is the host path */
    const char *design;     /* for the header comment, may be NULL */
    const char *cache_key;  /* for the header comment, may be NULL */
    const char *size_expr;  /* C expression of the parameters measuring the work (may be NULL) */
    long long gpu_min_size; /* below this value of size_expr the host path runs (0: never;
                             * LLONG_MAX: always, the host measured faster) */
    ch_emit_cold cold;      /* thresholds for the first calls (zero: unknown) */
} ch_emit_kernel;

/* The symbol the user's body is renamed to: "saxpy" -> "saxpy__host" (malloc'd). */
char *ch_emit_host_name(const char *name);
/* The function the generated unit defines as the dispatcher: the user's name, or for a static
 * function (which the unit cannot replace) NAME__ch_dispatch, called by the static wrapper the
 * host copy puts in NAME's place (malloc'd). */
char *ch_emit_dispatch_name(const ch_entry *e);
/* The C unit of k's test author's reference (k->host_src), for the host C compiler: the
 * reference read as CH_REFERENCE_FILE from its line 1, as verification compiled it (as C,
 * alone). A kernel's unit declares NAME_reference and its object is merged with this one's. */
void ch_emit_reference_unit(const ch_emit_kernel *k, ch_strbuf *out);
/* After text pasted under another name (#line): `#line N "file"` with N the line after it, so
 * that what follows in out is named by its own line in file. */
void ch_emit_resume_lines(ch_strbuf *out, const char *file);
/* Compiles a reference's C unit at src_path with the host C compiler cc as the verifier
 * compiled it (-O2 -std=gnu11); 0, or -1 with err saying the reference of e does not compile. */
int ch_emit_compile_reference(const char *cc, const ch_entry *e, const char *src_path,
                              const char *obj_path, ch_error *err);
/* The canonical signature (as the user's file declares it) with the function's name replaced
 * by name, without `;` (malloc'd). */
char *ch_emit_signature_as(const ch_entry *e, const char *name);
/* The external function the dispatcher calls for the host path: NAME__host, or for a static
 * function the bridge NAME__ch_host that the host copy defines beside it (malloc'd). */
char *ch_emit_host_bridge_name(const ch_entry *e);

/* The dispatcher's measure of a call's size: the elements of every buffer (sum of the
 * extents), times each integer parameter no extent mentions (a time-step count multiplies the
 * work, not the data). *plain shows it, *c_expr computes it in the dispatcher (double
 * arithmetic: with constant extents, as PolyBench's, every size parameter multiplies, and five
 * of them overflow 64 bits). -1 (both NULL) when an extent is unknown or not plain
 * arithmetic. */
int ch_emit_size_expr(const ch_entry *e, char **plain, char **c_expr);

/* The same measure at the sizes `at`, each term evaluated alone and combined in double, as the
 * dispatcher does. 0, or -1 when it cannot be measured there. */
int ch_emit_size_eval(const ch_entry *e, const ch_ck_size *at, double *size);

/* The dispatch threshold from verification's measurements, for a cost model linear in the size:
 * the host path costs host_ms at tune_size, the launcher small_ms (its fixed cost, copies and
 * launches) plus a per-element part that makes launcher_ms at tune_size. Returns the smallest
 * size at which the launcher wins; 0 (always the GPU) when a measurement is missing; LLONG_MAX
 * when the host won at the tune size (nothing beyond it was measured); the tune size when no
 * fixed cost is known (small_ms missing, or not below launcher_ms). */
long long ch_emit_gpu_min_size(double tune_size, double host_ms, double launcher_ms,
                               double small_ms);

/* One point of the dispatch curve: at size (the size measure), the host path took host_ms and
 * the whole GPU call (copies included, as the dispatcher makes it) gpu_ms. */
typedef struct ch_dispatch_point {
    double size, host_ms, gpu_ms;
} ch_dispatch_point;

/* The dispatch threshold from a measured curve (any order; points with a negative time are
 * ignored; points of one size averaged). Conservative where nothing was measured (issue 14: no
 * call slower than the host path): returns the smallest size from which the GPU won at every
 * larger measured size, never at or below a measured point where the host was as fast or
 * faster, never below the smallest measured size, and LLONG_MAX (never the GPU) when the host
 * won at the largest. Between the last point the host won and the first of the GPU's, the later
 * of two crossings: the advantage host_ms - gpu_ms linear in the size, and both times power
 * laws of it. 0 (always the GPU) with no point. A GPU advantage that shrinks toward the largest
 * size is kept past it: the threshold is one size, not a set of ranges. */
long long ch_emit_dispatch_threshold(const ch_dispatch_point *points, size_t n);

/* The threshold for a call that pays fixed_ms + per_ms * size on top of the warm curve (the
 * device's set-up, the first use of device buffers): ch_emit_dispatch_threshold of the points
 * with each gpu_ms raised by that cost, never below the warm threshold of the same points. */
long long ch_emit_cold_threshold(const ch_dispatch_point *points, size_t n, double fixed_ms,
                                 double per_ms);

/* Whether the dispatcher of k decides a call with its cold costs: a size measure, a GPU path
 * that can win, and a cold threshold above the warm one. */
int ch_emit_cold_known(const ch_emit_kernel *k);

/* The symbols that join the user's object and an entry's unit and are made local after the
 * merge: the host name, and the unit's launcher, reference and device launcher under their
 * private names. */
void ch_emit_private_symbols(const ch_entry *e, ch_strvec *out);

/* ---- the GPU path through the trusted runtime (src/emit/runtime_path.c, ch/runtime.h) ---- */

/* Whether the candidate source defines NAME_device_launcher (a definition with a body, outside
 * comments and strings): its dispatcher then moves the data through the runtime. */
int ch_emit_has_device_launcher(const char *kernel_src, const char *name);
/* Whether e's calls can go through the runtime: host pointers (no `device` clause) and an
 * extent for every buffer. */
int ch_emit_runtime_eligible(const ch_entry *e);
/* Why a user's program cannot run kernel_src on the GPU for e, or NULL when it can (malloc'd).
 * A host-pointer entry's GPU path is only the trusted runtime feeding NAME_device_launcher its
 * device copies: candidate code never receives the caller's host pointers (issue 15), so a
 * candidate without a device launcher, or an entry with an unknown extent, takes the host path.
 * A `device` entry's caller hands device pointers, which NAME_launcher gets as they are. */
char *ch_emit_gpu_refusal(const ch_entry *e, const char *kernel_src);
/* Appends the runtime's interface, declared weak (an object linked without the library takes
 * the host path at every call). */
void ch_emit_runtime_interface(ch_strbuf *out);
/* The identity of the runtime interface emitted units paste (16 hex digits of a hash of
 * ch/runtime.h as built in): part of every object key, so that an object built against another
 * runtime interface is not reused. */
void ch_emit_runtime_ident(char out[17]);
/* Appends the unit's GPU path through the runtime: the site, a thunk calling
 * NAME_device_launcher on device pointers, `static int ch_NAME_rt_call(<params>)` (0 when the
 * outputs are written, else a status with the caller's memory as it was; byte counts from the
 * extents, directions from the checklist, const buffers never written back),
 * ch_NAME_rt_status(status) and ch_NAME_rt_usable(); without the runtime linked in, rt_call
 * returns CH_RT_E_OFF and rt_usable 0 (the host path). With scrub, the thunk first calls
 * ch_NAME_scrub (src/emit/scrub.c) and fails the call when it fails. */
void ch_emit_runtime_path(const ch_entry *e, int scrub, ch_strbuf *out);
/* Appends `static int ch_NAME_rt_cold(<params>)`: ch_rt_cold_v1 for the call's buffers
 * (CH_RT_WARM, CH_RT_COLD_BUFFERS, CH_RT_COLD_DEVICE), or -1 when the runtime is not linked or
 * too old to tell. Never loads the driver. */
void ch_emit_runtime_cold(const ch_entry *e, ch_strbuf *out);

/* The runtime library programs with kernels link: $CH_CC_RUNTIME_LIB, else libch_runtime.a in
 * the lib/ directory beside ch-cc's bin/ (or above its libexec/ch-cc/); NULL when not found
 * (malloc'd). */
char *ch_emit_runtime_library(void);
/* Appends the link arguments that pull the runtime in (before the CUDA runtime's): the library
 * and an undefined reference to it, since the units' references are weak and a weak reference
 * alone takes nothing from an archive. Nothing when the library is not found: the program then
 * links and uses the candidates' own launchers. */
void ch_emit_runtime_link_args(ch_strvec *out);
/* The same for a link driven by nvcc (the nvcc personality): -Xlinker instead of -Wl,. nvcc adds
 * the CUDA runtime itself. */
void ch_emit_runtime_nvcc_link_args(ch_strvec *out);

/* Writes the translation unit of one entry into out. c_linkage: the user's file is C, so the
 * function is extern "C"; else it has C++ linkage like the user's declaration. */
int ch_emit_entry_cu(const ch_emit_kernel *k, int c_linkage, ch_strbuf *out, ch_error *err);

/* ---- entries without a kernel: the trace unit (src/emit/trace.c) ---- */

/* An entry that links no kernel but is still called through a function of ours, so that
 * CH_CC_TRACE=1 reports its calls too. Strings borrowed. */
typedef struct ch_emit_traced {
    const ch_entry *entry;
    const char *fallback; /* the host path's class, as the counters name it ("pending") */
    const char *reason;   /* why no kernel (the build's warning); its first line is traced */
    int reference;        /* spec-decl: the host path is the test author's reference, compiled
                           * as C beside the unit (else the user's body) */
} ch_emit_traced;

/* The symbol t's function calls for the host path: ch_emit_host_bridge_name, defined by the
 * user's renamed body or, for a reference, by the reference's object (malloc'd). */
char *ch_emit_traced_host_name(const ch_emit_traced *t);

/* Writes the trace unit of one file's kernel-less entries into out: C (c_linkage) or C++ of
 * the file's language, for the host compiler. For each entry it defines the function the
 * program calls (ch_emit_dispatch_name, or NAME for a reference), which prints
 * "ch-cc: NAME: host (size S, no kernel linked, CLASS: REASON)" on stderr when CH_CC_TRACE is
 * set (read once per process; S the dispatcher's size measure, or "unknown") and calls the host
 * path. file names the source in the header. */
void ch_emit_trace_unit(const char *file, const ch_emit_traced *t, size_t n, int c_linkage,
                        ch_strbuf *out);

/* A copy of text in which the definition names of the given entries (at name_offset) are
 * renamed to their host names; other bytes unchanged. */
char *ch_emit_rename_definitions(const char *text, size_t len, const ch_entry *const *entries,
                                 size_t n, size_t *out_len);

/* The host copy of the user's file for an object that links kernels: the pragma lines blanked
 * (ch_scan_blank), each entry's definition renamed to its host name with a prototype of the
 * host name on the pragma's line (for -Wmissing-prototypes builds) and a declaration of the
 * user's name after the body (later calls in the file reach the dispatcher). A static entry
 * gets, after its body, the bridges of ch_emit_dispatch_name/ch_emit_host_bridge_name instead:
 * an external function calling the host path, and NAME as a static wrapper calling the
 * dispatcher. c_linkage: the file is C (else the bridges are declared extern "C"). Newlines are
 * kept, so line numbers stay the user's. entries[i] with has_body only; caller frees. */
char *ch_emit_host_source(const char *text, size_t len, const ch_entry *const *entries, size_t n,
                          int c_linkage, size_t *out_len);
/* The same with the pragma lines already located (ch_pragma_find over text): a compile finds
 * them once for the grammar check, the scan and this copy. */
char *ch_emit_host_source_at(const char *text, size_t len, const ch_pragma_loc *pragmas,
                             size_t n_pragmas, const ch_entry *const *entries, size_t n,
                             int c_linkage, size_t *out_len);

/* Compiles a generated unit: compiler_argv (nvcc or the host compiler and its flags,
 * NULL-terminated) + -c src -o obj. The compiler's output goes to log (may be NULL). 0, or -1
 * with err (the output's first line in it). */
int ch_emit_compile(char *const *compiler_argv, const char *src_path, const char *obj_path,
                    ch_strbuf *log, ch_error *err);

/* Makes every global symbol that obj defines local except the function keep (plain or
 * C++-mangled): a generated unit's kernels, stubs and helpers are the unit's own, so two
 * objects holding units of one entry (a static function of the same body in two files, or two
 * entries whose kernels got the same names) still link together. obj is rewritten in place. */
int ch_emit_privatize(const char *obj, const char *keep, ch_error *err);

/* Gives the entry points a unit defines under the names the candidate and the reference were
 * verified with (NAME_launcher, NAME_device_launcher, NAME_reference) their private names in
 * obj (NAME__ch_launcher ...), in place: a user's program may have functions of those names.
 * The rename is made in the object, not by macros in front of the verified text, whose #if
 * could see them. */
int ch_emit_private_names(const char *obj, const ch_entry *e, ch_error *err);

/* `ld -r` of objs into out, then the given symbols made local, with C or C++ linkage (they
 * link the user's object to the kernel units and need not be visible outside the merged
 * object). out is written via
 * a temporary file and renamed, so it is either complete or absent. */
int ch_emit_merge(const char *const *objs, size_t n, char *const *localize, const char *out,
                  ch_error *err);

#endif
