/* A test author's reference under MemorySanitizer (reference_msan.c). Internal to src/verify. */
#ifndef CH_VERIFY_REFERENCE_MSAN_H
#define CH_VERIFY_REFERENCE_MSAN_H

#include "ch/checklist.h"
#include "ch/error.h"
#include "ch/strbuf.h"

/* Builds the reference program again from main_c and impl_c (in box, sandboxed) with clang's
 * MemorySanitizer and runs it once on the first smoke size. 0 when it ran clean, or when this
 * machine cannot build such a program (a line in log says so); -1 with err when the reference
 * read memory that nothing wrote, naming where. */
int ch_reference_msan_check(const ch_checklist *c, const char *main_c, const char *impl_c,
                            const char *box, ch_strbuf *log, ch_error *err);

#endif
