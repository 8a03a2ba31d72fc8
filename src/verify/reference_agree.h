/* A test author's reference against ch-cc's own reading of the spec (reference_agree.c).
 * Internal to src/verify. */
#ifndef CH_VERIFY_REFERENCE_AGREE_H
#define CH_VERIFY_REFERENCE_AGREE_H

#include "ch/checklist.h"
#include "ch/error.h"

/* Runs the reference program exe (built from reference_c) and the reading's program
 * reading_exe (both built by ch_reference_build, the same main) on every smoke size, the
 * smallest correctness size and the sizes beside the constants reference_c compares with,
 * each on random inputs and on the structured ones (ch_data_shape), with buffers carved from
 * one allocation and with subnormals flushed to zero, in directories under dir, and compares
 * their buffers with the checklist's tolerances; then times both at the tune size. 0 when they
 * agree everywhere and the reference is not far slower; -1 with err naming the inputs and the
 * first difference when they do not, the times when it is, or when a run fails. `how` says
 * what the reading is. */
int ch_reference_agree(const ch_checklist *c, const char *exe, const char *reference_c,
                       const char *reading_exe, const char *how, const char *dir, ch_error *err);

/* The stack small-stack mode (reference.c's gen_main) gives the call, in KiB: a thread's in many
 * programs and pools (macOS's default, for one). */
#define CH_REF_SMALL_STACK_KIB 512

/* The buffers alias mode (reference.c's gen_main) passes as one: with[q], for each output or
 * in-out buffer q, the input it is paired with (the first of its element type not paired
 * before), -1 for none and for every other parameter; none where either is declared restrict,
 * which promises the caller keeps them apart. Returns how many pairs. */
size_t ch_reference_alias_pairs(const ch_checklist *c, int *with);

#endif
