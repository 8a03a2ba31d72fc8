/* Internals shared by the host subset check's files (private to src/verify): the walk's state,
 * the libclang helpers every rule uses, and the entry points of the rules in their own files
 * (host_store.c, host_pointer.c, host_provenance.c, unroll_cost.c ...), which the walk in
 * host_subset.c calls. */
#ifndef CH_HOST_SUBSET_INTERNAL_H
#define CH_HOST_SUBSET_INTERNAL_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "ch/host_subset.h"

typedef struct subset_ctx {
    CXTranslationUnit tu;
    ch_subset_kind kind;
    unsigned libs;         /* libraries the source declares (ch_object_libraries_declared) */
    const char *entry;     /* NAME, the entry the candidate serves (NAME_launcher), or NULL */
    int device_entry;      /* the entry's pointers are device pointers: a user's program calls
                            * NAME_launcher itself, not only NAME_device_launcher */
    char *device_launcher; /* NAME_device_launcher, or NULL */
    CXCursor launcher;     /* the device launcher being walked, or null */
    CXCursor loops[32];    /* the for statements around the cursor walked, innermost last */
    size_t n_loops;
    const char *cuda_include; /* the CUDA toolkit's include directory */
    const char *source;       /* the text judged, as written (the parse's has blanks) */
    int refused;
    const char *rule;
    char *what;
    unsigned line, col;
    /* the first host-store, pointer-value, provenance or static-state finding, held until the
     * walk ends: any other rule's reason (a call off the allow-list, a callback, an integer made
     * a pointer) says more about the same code, and wins */
    const char *held_rule;
    char *held_what;
    unsigned held_line, held_col;
} subset_ctx;

/* The children of c, in the order libclang visits them (v is the caller's to free). */
typedef struct kids {
    CXCursor *v;
    size_t n, cap;
} kids;

/* ---- helpers (host_subset.c) ---- */
char *hs_str_of(CXString s);
int hs_in_list(const char *const *list, const char *s);
int hs_has_prefix_in(const char *const *list, const char *s);
int hs_from_main_file(CXCursor c);
kids hs_children(CXCursor c);
/* Whether c has a child of that kind (a function's or a variable's CUDA attributes). */
int hs_has_child_kind(CXCursor c, enum CXCursorKind kind);
/* A kernel, or a __device__ function without __host__: never compiled for the host. */
int hs_device_only(CXCursor fn);
CXType hs_canon(CXType t);
/* A function, or a pointer, reference or member pointer to one. */
int hs_function_like(CXType t);
int hs_pointer_type(CXType t);
int hs_integer_type(CXType t);
int hs_byte_type(CXType t);
/* c with implicit conversions and parentheses (and, with casts, explicit casts) peeled off. */
CXCursor hs_peel(CXCursor c, int casts);
int hs_same_decl(CXCursor a, CXCursor b);
int hs_is_cast(enum CXCursorKind k);
/* Whether e evaluates to the integer 0. */
int hs_null_constant(CXCursor e);
/* The outermost namespace c is declared in ("" at file scope); *in_class set when a class
 * encloses it (caller frees). */
char *hs_outer_namespace(CXCursor c, int *in_class);
/* Whether ns is one of the namespaces of the C++, CUB, Thrust and libcu++ headers. */
int hs_trusted_namespace(const char *ns);
/* Records a finding under rule (the first one wins; a host-store finding is held until the
 * walk ends, so that any other rule's reason wins over it). */
__attribute__((format(printf, 4, 5))) void hs_refuse(subset_ctx *x, CXCursor at, const char *rule,
                                                     const char *fmt, ...);

/* ---- the host-store rule (host_store.c, candidates only) ---- */
int hs_array_type(CXType t);
CXCursor hs_first_child(CXCursor c);
/* Whether a unary or binary operator cursor's operator is spelling (read from its tokens). */
int hs_operator_is(const subset_ctx *x, CXCursor c, const char *spelling);
/* A unary or binary operator cursor's operator, read from its tokens ("" when they do not show
 * it; caller frees). */
char *hs_operator_of(const subset_ctx *x, CXCursor c);
/* The candidate's own storage handed to a call other than as a value. */
void hs_judge_call_storage(subset_ctx *x, CXCursor call, CXCursor fn, const kids *k);
/* Whether a call's argument is `&v` given to an out-parameter (not judged as an address). */
int hs_out_address_argument(subset_ctx *x, CXCursor call, CXCursor fn, CXCursor arg);
/* A store's target: =, op=, ++, -- (called after the store's operands are walked). */
void hs_judge_store(subset_ctx *x, CXCursor c);
/* Declarations, calls, addresses and array decays of the candidate's own storage. */
void hs_judge_host_store(subset_ctx *x, CXCursor c, enum CXCursorKind k);

/* ---- the pointer-value rule (host_pointer.c, candidates only) ---- */
/* Casts, differences, null arithmetic and library calls that make a pointer's value a number. */
void hs_judge_pointer_value(subset_ctx *x, CXCursor c, enum CXCursorKind k);

/* ---- the provenance rule (host_provenance.c, candidates only) ---- */
/* Whether fn is a kernel (__global__): a call of it is a launch. */
int hs_is_kernel(CXCursor fn);
/* Follows the host function fn's body: arithmetic, subscripts, dereferences and copies only
 * through pointers of a known origin, non-null where arithmetic needs it; in the device
 * launcher (device_launcher), kernels given only device memory. */
void hs_judge_provenance(subset_ctx *x, CXCursor fn, int device_launcher);
/* The parts of `for (init; cond; inc) body`, a null cursor for each one left out. */
typedef struct hs_for_parts {
    CXCursor init, cond, inc, body;
} hs_for_parts;
hs_for_parts hs_split_for(const subset_ctx *x, CXCursor loop);
/* The tokens of e, joined (at most about 60 characters; caller frees). */
char *hs_spelling_of(const subset_ctx *x, CXCursor e);

/* ---- the static-state rule (host_static.c, candidates only) ---- */
/* A variable declaration: what a candidate keeps from one call (or launch) to the next; in_device
 * when v is declared inside a device-only function. */
void hs_judge_static_state(subset_ctx *x, CXCursor v, int in_device);
/* What the candidate's variable v keeps across calls, as the rule above allows it: nothing
 * mutable (not of static storage, a constant, a lock), a buffer (pointers and handles, alone or
 * in arrays and structs of nothing else) or a number. */
enum { HS_KEPT_NONE, HS_KEPT_BUFFER, HS_KEPT_NUMBER };
int hs_kept_kind(CXCursor v);

/* ---- the state-flow rule (host_flow.c, candidates only) ---- */
/* Follows what kept state decides in the code a user's program runs (after the walk). */
void hs_judge_state_flow(subset_ctx *x);

/* ---- the magic-constant rule (host_magic.c, candidates and references) ---- */
/* Refuses a comparison that singles out one value (a trigger no test size reaches), in every
 * function of the main file, device code included (after the walk). */
void hs_judge_magic(subset_ctx *x);

/* ---- the compile-cost rule (unroll_cost.c, candidates only) ---- */
/* Refuses #pragma unroll loops that would make nvcc copy loop bodies more than a bounded number
 * of times in one function (after the walk). */
void hs_judge_unroll(subset_ctx *x);

#endif
