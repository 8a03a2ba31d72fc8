/* The self-contained CUDA scaffold (paper Fig. 4): one program per candidate that reads the
 * inputs of a checklist entry from typed binary files, calls the candidate's launcher, and writes
 * every buffer back; in timing mode it times the launcher with CUDA events.
 *
 * Program interface (what src/verify relies on):
 * - `prog run DIR NSETS [DIR NSETS ...]`: for each case in turn (one process, one CUDA context
 *   for all: the verifier runs all sizes of a stage at once), print CH_SCAFFOLD_CASE DIR, then
 *   for s in 0..NSETS-1, in the SAME buffers: read DIR/s/P.bin for every scalar and in/inout
 *   buffer P, poison out buffers, call the launcher, snapshot every buffer right after it
 *   returns, then check CUDA errors, write DIR/s/P.out.bin. The first failing case ends the
 *   run with its status.
 * - `prog grun DIR NSETS ...`: run mode behind a gate: the CUDA context is made first, then
 *   CH_SCAFFOLD_READY is printed and one byte awaited on stdin before the first case (the
 *   verifier holds the GPU, shared, only from then on).
 * - `prog time DIR NSETS WARMUP REPEATS [MIN_REPEATS]`: read DIR/0, replicate into NSETS buffer
 *   sets (rotated so the L2 does not stay warm), time the device launcher on device-resident
 *   sets when the candidate has one, then the whole call; print "ch-kernel: ..." and
 *   "ch-time: ..." lines (ch_scaffold_generate).
 * - Exit codes: 0 ok, 2 bad arguments or input files, 3 CUDA error (also a non-zero return of
 *   the device launcher), 4 output write failure.
 *
 * Buffer files (also written and read by src/verify and the reference program): a 32-byte
 * header { char magic[8] = "CHBUF01\0"; char tag[8] ("f32", "i32", ...); uint64 count;
 * uint64 checksum (FNV-1a 64 of the payload) } followed by count elements, little endian.
 *
 * Ownership: generators append to a caller-owned ch_strbuf. */
#ifndef CH_SCAFFOLD_H
#define CH_SCAFFOLD_H

#include <stdint.h>

#include "ch/checklist.h"
#include "ch/error.h"
#include "ch/strbuf.h"

#define CH_BUF_MAGIC "CHBUF01"

/* The line time mode prints once its inputs are read and copied, before anything touches the
 * GPU; it then waits for one byte on stdin (the verifier's gate: ch_proc_opts.gate), and reads
 * what follows up to a newline or the end as a bound in ms (BOUND_MS, known later: the smaller
 * of the two holds; ch_proc_opts.gate_reply). */
#define CH_SCAFFOLD_READY "ch-ready"
/* Run mode prints this, a space and the case's DIR before each case starts (stdout, flushed):
 * the last one printed names the case a crash or a timeout happened in. */
#define CH_SCAFFOLD_CASE "ch-case:"
/* Time mode prints this line (flushed) once its timed calls are over: what follows (freeing
 * its sets, comparing the two paths' outputs, the process's exit) needs no GPU alone. */
#define CH_SCAFFOLD_TIMED "ch-time:"
#define CH_BUF_HEADER     32

/* Generates the scaffold for checklist c. With candidate_path the candidate is #included from
 * it (absolute, or relative to where nvcc runs; one translation unit). With NULL the scaffold
 * only declares the entry points and is compiled once per entry, then linked with each
 * candidate's object (compiled with ch_scaffold_signatures forced in front): the verifier's
 * way, which compiles a candidate once.
 *
 * Host-pointer entries: NAME_device_launcher (the device launcher contract) is declared weak;
 * when the linked candidate defines it, time mode first times it on device-resident sets and
 * prints "ch-kernel: kernel_ms=M min_kernel_ms=M repeats=N stop=WHY" before the whole call's
 * "ch-time: event_ms=M wall_ms=M min_event_ms=M sets=N repeats=N stop=WHY" (WHY: stable, max,
 * budget; see ch_scaffold_stable_code; or hopeless). With time mode's BOUND_MS argument (> 0),
 * the first timed sample of either loop over it ends the timing there: "ch-hopeless:
 * loop=kernel|call sample_ms=M bound_ms=B", stop=hopeless, no more warmup or timed calls (after
 * the kernels' loop, the process's first call stands for the whole call, repeats=0). */
int ch_scaffold_generate(const ch_checklist *c, const char *candidate_path, ch_strbuf *out,
                         ch_error *err);

/* The header forced in front of a separately compiled candidate (nvcc -include): the
 * candidate's headers (ch_scaffold_candidate_includes), then extern "C" prototypes of
 * NAME_launcher and, for host-pointer entries, NAME_device_launcher, so a definition with
 * another signature fails to compile. */
void ch_scaffold_signatures(const ch_checklist *c, ch_strbuf *out);

/* The system headers in front of a candidate, where it is verified and in the unit that links
 * it (ch_emit_entry_cu): one list, so that the candidate's preprocessor sees the same macros
 * in both compiles. */
void ch_scaffold_candidate_includes(ch_strbuf *out);

/* The time mode's stopping rule as C code valid in C and C++: `static int ch_stable(const
 * double *ms, int n, int min_n, int max_n, double spent_ms)` returns 0 (go on), 1 (the last
 * CH_STABLE_K = 5 samples lie within CH_STABLE_TOL = 2% of their median), 2 (max_n samples) or 3
 * (CH_TIME_BUDGET_MS of timed calls spent, once min_n are taken); plus ch_stop_name(why) (4:
 * "hopeless") and `int ch_hopeless(double ms, int n, double bound_ms)`, 1 when the first sample
 * (n == 1) is over bound_ms > 0. */
void ch_scaffold_stable_code(ch_strbuf *out);

/* Appends to an nvcc link command what a scaffold's program must be linked with: its allocation
 * functions wrapped (`-Xlinker --wrap=NAME`), whose __wrap_NAME count the device memory the
 * program holds, for the time mode's leak check. */
void ch_scaffold_link_args(ch_strvec *argv);

/* Appends the buffer-file reader/writer as C code valid in C11 and C++ (shared by the scaffold
 * and the reference program). */
void ch_scaffold_bufio_code(ch_strbuf *out);

/* Emits statements reading every scalar of the set directory named by the C expression dirvar
 * into locals named like the parameters, then `const size_t ch_count_P` for every buffer P
 * (needs the bufio code). cxx: C++ spellings (bool for _Bool). */
void ch_scaffold_emit_inputs(ch_strbuf *out, const ch_checklist *c, const char *dirvar,
                             const char *indent, int cxx);

/* The launcher prototype the candidate must define, without `extern "C"` and without ';':
 * "void saxpy_launcher(int n, float a, const float *x, float *y)". Array parameters become
 * pointers to their element type (C++ has no variably modified parameters). Caller frees. */
char *ch_scaffold_launcher_proto(const ch_checklist *c);
/* "int saxpy_device_launcher(int n, float a, const float *x, float *y)" (same parameters; the
 * buffers are device pointers). Caller frees. */
char *ch_scaffold_device_proto(const ch_checklist *c);

/* The C type of one parameter as the launcher takes it ("const float *", "int"); caller frees. */
char *ch_scaffold_param_type(const ch_ck_param *p);

/* FNV-1a 64 over bytes (the buffer-file checksum). */
uint64_t ch_buf_checksum(const void *data, size_t n);

/* Writes / reads one buffer file. ch_buf_read validates magic, tag, count (when expect_count is
 * not (size_t)-1) and checksum; *data is malloc'd (caller frees). */
int ch_buf_write(const char *path, ch_scalar t, const void *data, size_t count, ch_error *err);
int ch_buf_read(const char *path, ch_scalar t, size_t expect_count, void **data, size_t *count,
                ch_error *err);

#endif
