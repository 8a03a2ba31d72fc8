/* The host subset: what the host side of a candidate (every function that is not a kernel or a
 * device-only function, and every file-scope initializer) and the whole of a model-written
 * reference may be, judged on the AST (libclang) before anything compiles. That code is linked
 * into the user's program, so no check of names can be enough: from any address in libc (a
 * return address taken in a callback) a few loops reach its dynamic symbol table and any
 * function in it. The subset makes such walks useless: no computed control flow and no forged
 * pointers.
 *  - no indirect call: every callee is a named function (a kernel launch <<<>>> is one), never
 *    a virtual one;
 *  - no expression of function type or function-pointer type but a call's callee: no function
 *    address taken, no callback passed (atexit, qsort, signal, cudaLaunchHostFunc, ...), no
 *    variable, field or parameter of function-pointer type, no lambda (a kernel's address
 *    passed straight to a cuda* API that takes a kernel is the one exception);
 *  - no integer turned into a pointer (a null constant aside), no cast between unrelated
 *    pointer types (void, character types and void** <-> T** are allowed), no union holding a
 *    pointer;
 *  - in a candidate, no pointer turned into a number either (the pointer-value rule), since
 *    a real pointer plus (target - its value) is any address: no cast of a pointer to an
 *    integer type but bool, no difference of two pointers, no arithmetic on the null pointer,
 *    no pointer's bytes handed to a library call that reads them (memcpy(h, &p, 8)), no call
 *    of the C++ headers that returns a number for a pointer (std::hash<T *>);
 *  - in a candidate, pointer arithmetic, subscripts, dereferences and copies (memcpy,
 *    cudaMemcpy*, memset: destination and source) only through pointers that come from a
 *    parameter, an allocation (malloc, new, cudaMalloc*'s or the file's own function's
 *    out-parameter), the address of a named object or another such pointer, followed through
 *    assignments, conditionals and loops, and non-null (tested) where arithmetic needs it: a
 *    variable holding null plus an offset is any address (the provenance rule); the kernels of
 *    NAME_device_launcher get only device memory (its parameters, what it cudaMalloc'd);
 *  - no return-address or frame builtin, no asm, no computed goto;
 *  - calls only to the object check's allow-list (ch/verify.h: CUDA runtime, cuBLAS when
 *    declared, memory and math functions), the trusted runtime (ch_rt_*), the CUDA headers'
 *    inline helpers, members of classes and namespaces of the C++, CUB, Thrust and libcu++
 *    headers, and the file's own functions and kernels; a reference only memory and math
 *    functions and its own functions;
 *  - NAME_device_launcher (its pointers are device pointers) never dereferences them;
 *  - a candidate's host code writes only inside its own objects (a write past a local array
 *    reaches the saved return address): a store goes to a variable, a field of one, an element
 *    of its array at a constant index or at a for loop's counter bounded by the array's length,
 *    or through an out-parameter (a T* of a static function that every call gives &v of a T);
 *    its variables, parameters, *this and temporaries never become a pointer or a reference
 *    (no &v but to a CUDA out-parameter of v's type or a library's pointer to const, no array
 *    decaying, no method called but on the standard locks); no variable-length array, no
 *    alloca. Memory reached through a pointer (the caller's arrays, pinned and malloc'd
 *    buffers) is still written by the CUDA copies and memcpy, which the launchers need;
 *  - in a candidate (device code included) and a reference, no comparison that singles out
 *    one value (the magic-constant rule, src/verify/host_magic.c): no == or != (nor case)
 *    against a constant but a small one, a power of two or one less, no residue test modulo a
 *    number that is not a power of two, no narrow two-sided window: such a trigger is right on
 *    every size a test draws. Ordering against thresholds stays allowed; verification tests
 *    each side of them (ch_magic_sizes). */
#ifndef CH_HOST_SUBSET_H
#define CH_HOST_SUBSET_H

#include "ch/strbuf.h"

/* What the source is: a candidate (CUDA C++, host side judged) or a reference (C, all of it). */
typedef enum { CH_SUBSET_CANDIDATE, CH_SUBSET_REFERENCE } ch_subset_kind;

/* Which rule refused a source, and where. */
typedef struct ch_subset_finding {
    const char *rule; /* "parse", "indirect-call", "function-pointer", "lambda", "virtual",
                         "cast", "union", "builtin", "asm", "goto", "call", "device-deref",
                         "host-store", "pointer-value", "provenance", "static-state",
                         "state-flow", "magic-constant"; "parse-limit" from the bounded
                         check, ch/static_child.h */
    unsigned line, col;
} ch_subset_finding;

/* Judges src. entry: the entry's name (its NAME_device_launcher may not dereference its
 * pointer parameters), or NULL; device_entry: the entry's pointers are device pointers (the
 * `device` clause), so a user's program calls the candidate's NAME_launcher too. file: the name
 * messages give the source ("ref_impl.c"), whose messages then read "file:line:col: ..."; NULL when
 * no file holds it, and the message ends in
 * "(line N, column C)" as stage 0's other reasons do. Returns 0 when src passes; 1 with a
 * one-line message in msg (reset first) and *f filled. A source clang cannot parse outside its
 * device-only functions is refused: what is not understood is not trusted. */
int ch_host_subset_check(const char *src, ch_subset_kind kind, const char *entry, int device_entry,
                         const char *file, ch_strbuf *msg, ch_subset_finding *f);

/* The text a libclang parse of a candidate or reference reads in place of src: the arguments
 * of `#pragma unroll`, `#pragma GCC unroll` and `#pragma unroll_and_jam` (and their _Pragma
 * forms) blanked, lines and columns kept. libclang 14 does not walk a loop whose hint's
 * argument a macro spells, so a check on the text as written would not see that loop's body
 * (src/verify/unroll_cost.c). Caller frees. */
char *ch_subset_parse_text(const char *src);

#endif
