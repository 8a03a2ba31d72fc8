/* The source guard: what a model-written source (a candidate kernel, a test author's reference)
 * may make the compiler read or the host assembler run, judged on the text as the preprocessor
 * sees it after translation phases 1 and 2 (trigraphs, digraphs and line splices undone), before
 * anything compiles it. The compile runs in the sandbox, but the root stays readable there and its
 * diagnostics go to reports and back to the model, so a file the compiler reads is a file the
 * model can read. */
#ifndef CH_SOURCE_GUARD_H
#define CH_SOURCE_GUARD_H

#include "ch/strbuf.h"

/* src as the preprocessor tokenises it: trigraphs (`??=`) and digraphs (`%:`, `<%`, `%>`, `<:`,
 * `:>`) become the characters they stand for and backslash-newline splices are joined. Each
 * joined line keeps its first physical line number: the newlines a join removed follow the
 * logical line. Caller frees. */
char *ch_source_phase2(const char *src);

/* What the source is: which headers it may include. */
typedef enum { CH_GUARD_CANDIDATE, CH_GUARD_REFERENCE } ch_guard_kind;

/* Which check refused a source, and the line it found. */
typedef struct ch_guard_finding {
    const char *check; /* "include", "macro", "macro-size", "asm", "conditional", "clock",
                          "build-time" or "device-effect" */
    unsigned line, col;
} ch_guard_finding;

/* The directives and file-reading constructs of src (raw text): #include only of allowed system
 * headers <...> (kind decides which), no #include_next, #import or #embed, no __has_include of
 * another header, no `#pragma GCC dependency`; no inline assembly or asm label outside device
 * functions (the host assembler's .include and .incbin read files); no conditional (#if, #ifdef,
 * #elif) on a macro the compiler and the checks may define differently (compiler identity,
 * version, optimisation and target flags, __has_*); in a candidate, no clock read (clock(),
 * clock64(), %globaltimer, %clock); no macro whose expansion reaches a million tokens (a
 * compile bomb, refused here in microseconds rather than at the bounded parse's limits,
 * ch/static_child.h). Returns 0 when src passes;
 * 1 with a one-line message (ending in "(line N, column C)") in msg and what was found in *f. */
int ch_source_guard(const char *src, ch_guard_kind kind, ch_strbuf *msg, ch_guard_finding *f);

#endif
