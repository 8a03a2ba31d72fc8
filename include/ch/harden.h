/* Hardening a candidate's source before it is compiled: locals start written.
 *
 * A thread's local variables live in registers or in local memory, which the driver gives a
 * context once and never clears between launches: a local read before it is written holds what
 * the same thread slot of an earlier kernel left there. That is state kept across launches with
 * no variable anyone can see (tests/data/attacks7/21: a volatile local array counting launches,
 * dormant while verified, wrong after 64 calls), and neither initcheck (device allocations only)
 * nor any rule over the text sees it. So, as -ftrivial-auto-var-init=zero does for C (nvcc has
 * no such option), every local variable the candidate declares without an initialiser gets an
 * empty one (`{}`: zero for scalars, pointers, arrays and plain structs), in device and host code
 * alike. The text verified and the text linked into a user's program are the same hardened text
 * (ch_candidate_launcher_form's output, hardened in verify.c and in pipeline/object.c), and every
 * insertion stays on its line, so diagnostics still point at the author's lines. A store the
 * kernel makes before reading stays the only one that matters once the compiler removes the
 * dead zeroing, so a correct kernel keeps its speed. */
#ifndef CH_HARDEN_H
#define CH_HARDEN_H

#include "ch/strbuf.h"

/* The candidate's source src (CUDA C++) with `{}` after every local variable declared without
 * an initialiser. Returns 0 and *out (owned by the caller) when done; 1 when the source declares
 * a local the rule cannot make start written (declared by a macro, a declarator it cannot read,
 * a type of the candidate's whose default constructor leaves a member unwritten), with a
 * message in why ("line L:C: ..."); -1 when it cannot be parsed, with why set. */
int ch_harden_locals(const char *src, char **out, ch_strbuf *why);

#endif
