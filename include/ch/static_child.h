/* The host subset check (ch/host_subset.h) under bounds: a model-written source is parsed by
 * libclang in a child process with an address-space, CPU and wall-time limit, never in ch-cc's
 * own. A 2 KB source can ask the preprocessor for 2^28 tokens (28 doubling #defines; attacks7
 * row 29): parsed in ch-cc itself that cost a minute and 5.6 GB of ch-cc's memory. Clang has no
 * preprocessing limit that stops such a parse (-fmax-tokens only warns once all is lexed), so
 * the bound is the process's. A source past a limit, or one that crashes the parser, is refused
 * at its 1:1 like any other refusal of the check: the next candidate or the host path follows,
 * never a failed build.
 *
 * The child is this same program run again (/proc/self/exe, with CH_STATIC_CHILD_ARG as its
 * first argument; a constructor in static_child.c answers that before main), so that it has
 * the very libclang and rules of the parent and starts with no thread and no lock of the
 * parent's: libclang cannot run in a child that was only forked from a multithreaded ch-cc. */
#ifndef CH_STATIC_CHILD_H
#define CH_STATIC_CHILD_H

#include "ch/host_subset.h"
#include "ch/strbuf.h"

/* The first argument that makes a program containing this module the check's child. */
#define CH_STATIC_CHILD_ARG "--ch-cc-internal-static-child"

/* The bounds of one parse. CH_CC_PARSE_LIMIT_MB and CH_CC_PARSE_LIMIT_SECONDS (positive
 * integers) replace them: for tests, and for a site whose honest kernels need more. The time is
 * generous: an honest candidate using Thrust took over 30 s to parse under ASan on a loaded
 * 2-core machine, beside a second parse (the hardening's), while the text guard
 * (source_guard.c) stops the cheap bombs before any parse. */
#define CH_STATIC_CHILD_MEMORY_MB 2048
#define CH_STATIC_CHILD_SECONDS   90

/* ch_host_subset_check (same arguments, same verdicts) in a bounded child. Also 1, with rule
 * "parse-limit" at line 1, column 1, when the child went past a limit, crashed or could not be
 * started: what could not be checked is not trusted. */
int ch_host_subset_check_bounded(const char *src, ch_subset_kind kind, const char *entry,
                                 int device_entry, const char *file, ch_strbuf *msg,
                                 ch_subset_finding *f);

/* ch_harden_locals (ch/harden.h) in a bounded child: the same results, and 1 with a reason
 * when the child went past a limit, crashed or could not be started. */
int ch_harden_locals_bounded(const char *src, char **out, ch_strbuf *why);

#endif
