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
/*
 * Device memory from an allocator is the same kind of state: cudaMalloc and the stream-ordered
 * pool hand back blocks an earlier call freed, with what it left in them (attacks8 #18: a fresh
 * cudaMallocAsync scratch every call, counting launches in the pool's reused block). So every
 * allocation function the candidate's code names (cudaMalloc, cudaMallocAsync, cudaMallocManaged,
 * cudaMallocPitch, cudaMalloc3D, cudaMallocHost, cudaHostAlloc) is renamed, where its name is
 * written, to a wrapper that zeroes the block before the candidate sees it
 * (src/verify/templates/zeroed_alloc.cu, inserted on one line before the first code). A name the
 * text does not spell where it is used (a macro's body, token pasting) is refused; so is a name
 * left in the text that the parse did not see. Allocations inside the toolkit's headers (Thrust's
 * vectors, CUB's caching allocator) are the libraries' own and are not renamed: initcheck, on a
 * GPU, reads what they hand out. */
#ifndef CH_HARDEN_H
#define CH_HARDEN_H

#include "ch/strbuf.h"

/* The candidate's source src (CUDA C++) with `{}` after every local variable declared without
 * an initialiser and every allocation renamed to its zeroing wrapper. Returns 0 and *out (owned by
 * the caller) when done; 1 when the source declares a local the rule cannot make start written
 * (declared by a macro, a declarator it cannot read, a type of the candidate's whose default
 * constructor leaves a member unwritten), with a message in why ("line L:C: ..."); -1 when it
 * cannot be parsed, with why set. */
int ch_harden_locals(const char *src, char **out, ch_strbuf *why);

#endif
