/* The self-contained CUDA scaffold (paper Fig. 4): one program per candidate that reads the
 * inputs of a checklist entry from typed binary files, calls the candidate's launcher, and writes
 * every buffer back; in timing mode it times the launcher with CUDA events.
 *
 * Program interface (what src/verify relies on):
 *   prog run  DIR NSETS                  for s in 0..NSETS-1, in the SAME buffers: read DIR/s/P.bin
 *                                        for every scalar and in/inout buffer P, poison out
 * buffers, call the launcher, snapshot every buffer right after it returns, then check CUDA errors,
 * write DIR/s/P.out.bin prog time DIR NSETS WARMUP REPEATS   read DIR/0, replicate into NSETS
 * buffer sets (rotated so the L2 does not stay warm), print "ch-time: ..." lines Exit codes: 0 ok,
 * 2 bad arguments or input files, 3 CUDA error, 4 output write failure.
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

#define CH_BUF_MAGIC  "CHBUF01"
#define CH_BUF_HEADER 32

/* Generates the scaffold for checklist c; the candidate is #included from candidate_path
 * (absolute, or relative to where nvcc runs) so its diagnostics keep their own file and lines. */
int ch_scaffold_generate(const ch_checklist *c, const char *candidate_path, ch_strbuf *out,
                         ch_error *err);

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
