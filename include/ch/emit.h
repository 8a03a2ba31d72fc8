/* Emit: turning verified kernels into code the user's build links (DESIGN §2, §3 emit).
 *
 * For every entry that has a verified kernel, one CUDA translation unit is generated: the
 * candidate exactly as verified, then the C-callable function with the user's name and
 * signature, which dispatches once per process between the GPU path (the candidate's
 * NAME_launcher) and the host path (the user's body, compiled in the user's own object under
 * NAME__host, or for spec-decl entries the verified reference placed in this unit). The
 * driver compiles it with nvcc, keeps only NAME global, and merges it with `ld -r`.
 *
 * Ownership: the strings in ch_emit_kernel are borrowed; outputs are the caller's. */
#ifndef CH_EMIT_H
#define CH_EMIT_H

#include <stddef.h>

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/strbuf.h"

typedef struct ch_emit_kernel {
    const ch_entry *entry;
    const char *kernel_src; /* the verified candidate, defining NAME_launcher */
    const char *host_src;   /* spec-decl: C source defining NAME_reference (the host path);
                             * NULL when the user's body (NAME__host) is the host path */
    const char *design;     /* for the header comment, may be NULL */
    const char *cache_key;  /* for the header comment, may be NULL */
    const char *size_expr;  /* C expression of the parameters measuring the work (may be NULL) */
    long long gpu_min_size; /* below this value of size_expr the host path runs (0: never) */
} ch_emit_kernel;

/* The symbol the user's body is renamed to: "saxpy" -> "saxpy__host" (malloc'd). */
char *ch_emit_host_name(const char *name);

/* Writes the translation unit of one entry into out. c_linkage: the user's file is C, so the
 * function is extern "C"; else it has C++ linkage like the user's declaration. */
int ch_emit_entry_cu(const ch_emit_kernel *k, int c_linkage, ch_strbuf *out, ch_error *err);

/* A copy of text in which the definition names of the given entries (at name_offset) are
 * renamed to their host names; other bytes unchanged. */
char *ch_emit_rename_definitions(const char *text, size_t len, const ch_entry *const *entries,
                                 size_t n, size_t *out_len);

#endif
