/* The host subset's state-flow rule (candidates only): what a candidate keeps across calls may
 * decide how it manages its resources and whether it fails, never what a user's program computes.
 *
 * host_static.c lets a candidate keep buffers, handles and a buffer's size across calls and lets
 * code compare them: a launcher grows a kept buffer when a call needs more and creates a cuBLAS
 * handle once. A comparison is a branch, and a branch carries a count from one call to the next
 * without any arithmetic on the kept value: `for (k = 64; k >= 0; k--) if (c == k) { c = k + 1;
 * late = 0; }` counts the calls in c, and late then says whether this is call 65
 * (attacks4/cand_implicit_counter_trojan.cu). A kept pointer's null-ness counts as well (free and
 * allocate), a kept size tells a call smaller than an earlier one, and a variable that only
 * NAME_launcher sets tells verification (which runs it) from a user's program (which never does).
 *
 * So the rule follows the information that leaves kept state through the code a user's program
 * runs: NAME_device_launcher (and NAME_launcher for a `device` entry, whose dispatcher calls it),
 * and the file's functions they call. A value depends on kept state when it reads a kept number,
 * tests a kept pointer (its null-ness, a comparison, a conversion to a number), reads memory a
 * kept pointer holds, or comes from a local, a parameter or a helper's result that does, or from
 * a query of the device's state (free memory, a pointer's attributes), or compares the pitch an
 * allocation picked (the device's row alignment: it may size and address rows, nothing more). A
 * query's answer is followed only through locals: one written through any other pointer is
 * refused. A kept pointer handed on as a buffer or a handle tells nothing. A region of code depends
 * on kept state when a condition that does decides whether it runs (if, loops, switch, ?:, && and
 * ||).
 *  - In such a region, code may only manage resources (allocate, free, create and destroy
 *    streams, events and handles, set kept variables and locals) and leave with an error: an
 *    entry returns a nonzero constant there, a status that sends the call to the host path.
 *  - Anywhere, a value that depends on kept state may not reach a kernel launch, a copy, a
 *    library call or memory other than kept variables and locals.
 *  - A helper that leaves early on such a path (a grow helper's `if (bytes <= *have) return 0;`)
 *    is judged as one state-dependent region, its result depending on kept state; so is an entry
 *    that breaks or continues out of such a path.
 * The analysis is per function and structural, not per path: locals, parameters and results
 * gather what they may depend on until nothing changes, then a last walk refuses.
 *
 * What it does not see: state the device keeps (the contents of a kept device buffer that a
 * kernel reads before it writes them), and the process's CUDA error and memory state, which an
 * allocation on a state-dependent path can change (tests/data/attacks4/pending/README). */
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "host_subset_internal.h"

/* What a value may carry, as bits. */
enum {
    KS_KEPT = 1u,   /* a kept pointer, handle or struct of them (or a pointer into one) */
    KS_STATE = 2u,  /* depends on kept state */
    KS_TO_BUF = 4u, /* the address of a kept pointer: a grow helper's out-parameter */
    KS_TO_NUM = 8u, /* the address of a kept number */
    /* a machine's answer that may size and address memory: the pitch an allocation picks
     * (attacks9 #15). Carried like data; a condition or comparison on it is kept state */
    KS_MACHINE = 16u,
};

/* Calls that manage resources: allowed where kept state decides (a cache being filled). */
static const char *const resource_calls[] = {"cudaMalloc",
                                             "cudaMallocHost",
                                             "cudaHostAlloc",
                                             "cudaMallocPitch",
                                             "cudaFree",
                                             "cudaFreeHost",
                                             "cudaStreamCreate",
                                             "cudaStreamCreateWithFlags",
                                             "cudaStreamDestroy",
                                             "cudaEventCreate",
                                             "cudaEventCreateWithFlags",
                                             "cudaEventDestroy",
                                             "cudaGetLastError",
                                             "cudaPeekAtLastError",
                                             "cublasCreate",
                                             "cublasCreate_v2",
                                             "cublasDestroy",
                                             "cublasDestroy_v2",
                                             NULL};

/* Queries whose answers are state the process keeps (what kept buffers took, how a kept pointer
 * was allocated): their results, and what they write, depend on kept state. So do the queries
 * of the machine: the driver's version, how many devices the process sees and what they are.
 * Their answers differ between verification and the user's program (the next driver update, a
 * card of the same architecture with fewer SMs, a cache entry verified on another machine, the
 * sandbox showing one device), so a result that depends on them is a trigger no test sees. */
static const char *const state_queries[] = {
    "cudaMemGetInfo", "cudaPointerGetAttributes", "cudaHostGetFlags", "cudaHostGetDevicePointer",
    "cudaDriverGetVersion", "cudaRuntimeGetVersion", "cudaGetDeviceCount", "cudaGetDevice",
    "cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaDeviceGetAttribute",
    "cudaDeviceGetLimit", "cudaGetDeviceFlags", "cudaChooseDevice", "cudaDeviceCanAccessPeer",
    /* attacks9 #14: a stream's device, id, flags, priority (the device's range clamps it) */
    "cudaStreamGetDevice", "cudaStreamGetId", "cudaStreamGetFlags", "cudaStreamGetPriority",
    "cudaStreamGetAttribute", "cudaStreamIsCapturing", "cudaStreamGetCaptureInfo",
    /* where the card sits, what it can do atomically */
    "cudaDeviceGetPCIBusId", "cudaDeviceGetByPCIBusId", "cudaDeviceGetTexture1DLinearMaxWidth",
    "cudaDeviceGetHostAtomicCapabilities", "cudaDeviceGetP2PAtomicCapabilities",
    "cudaArrayGetMemoryRequirements", "cudaMipmappedArrayGetMemoryRequirements", NULL};

/* Queries whose answers are the time or progress of the device (an event's elapsed time, whether
 * a stream or event is done: a loaded machine answers otherwise than verification's idle GPU) or
 * what the machine makes of the compiled code (a function's attributes say whether the driver
 * JIT-compiled it, occupancy differs between cards and drivers): by prefix, so that their
 * variants and the C++ templates over them count too (attacks7 #02, #03, #05, #06). */
static const char *const timing_and_machine_query_prefixes[] = {"cudaEventElapsedTime",
                                                                "cudaEventQuery",
                                                                "cudaStreamQuery",
                                                                "cudaFuncGetAttributes",
                                                                "cudaOccupancy",
                                                                "cudaDeviceGetStreamPriorityRange",
                                                                "cudaDeviceGetCacheConfig",
                                                                "cudaDeviceGetSharedMemConfig",
                                                                "cudaDeviceGetP2PAttribute",
                                                                "cudaGetDeviceFlags",
                                                                NULL};

typedef struct ks_var {
    CXCursor decl; /* canonical */
    unsigned flags;
} ks_var;

typedef struct ks_fn {
    CXCursor def;
    int entry;        /* a user's program calls it: its early exits must fail */
    int whole;        /* its whole body is one state-dependent region */
    unsigned *params; /* what each parameter may carry, over every call */
    unsigned n_params;
    unsigned result;
} ks_fn;

typedef struct ks_ctx {
    subset_ctx *x;
    ks_var *vars; /* the locals of every function walked */
    size_t n_vars, cap_vars;
    ks_fn *fns; /* the functions reached, entries first */
    size_t n_fns, cap_fns;
    int changed;        /* a fact grew in this round */
    int report;         /* the last round: refuse what breaks the rule */
    size_t cur;         /* the function walked (an index: fns grows while walking) */
    int region;         /* > 0: the code walked runs only when kept state says so */
    char *source;       /* the first kept variable read as state, for messages */
    CXCursor last_kept; /* the kept buffer read last: the source when its value turns to state */
    /* locals the conditions around the code walked say are nonzero (`if (err != cudaSuccess)`):
     * returning one there is failing with that status; a null cursor once assigned there */
    CXCursor nonzero[16];
    int n_nonzero;
    /* > 0: a dry walk (skip_path_fails), which counts what it would refuse in `refusals` and
     * changes no fact */
    int dry;
    int refusals;
    const char *machine; /* the allocation whose pitch is KS_MACHINE, for messages */
} ks_ctx;

static const char on_path[] = "only on a path that what it keeps across calls decides";
static const char with_value[] = "with a value that depends on what it keeps across calls";
static const char state_why[] =
    "what a candidate keeps across calls (buffers, handles, a buffer's size) may decide only "
    "whether it allocates, frees or fails with an error; anything else it decides lets a "
    "candidate behave one way while verified and another later";
/* the same when what decides is a query's answer (the source then names the query) */
static const char query_why[] =
    "what a query of the device's state, its timing or the machine answers may decide only "
    "whether a candidate allocates, frees or fails with an error: the answers differ between "
    "verification and a user's program (a loaded GPU, another card or driver)";

/* the same when what decides is an allocation's status (a resource call's: no variable or query
 * is then noted as the source, since every launcher allocates and the first would be named) */
static const char alloc_why[] =
    "whether an allocation succeeds depends on what else holds the memory (the user's program, "
    "another process), not on the inputs: its status may decide only that the call fails with "
    "an error, which sends it to the host path";

static unsigned ev(ks_ctx *c, CXCursor e);
static void ws(ks_ctx *c, CXCursor s);
static int allocates(const char *name);

static int same_decl(CXCursor a, CXCursor b)
{
    return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b));
}

static void grow(ks_ctx *c, unsigned *at, unsigned flags)
{
    if (!c->dry && (*at | flags) != *at) {
        *at |= flags;
        c->changed = 1;
    }
}

static ks_var *var_slot(ks_ctx *c, CXCursor decl)
{
    for (size_t i = 0; i < c->n_vars; i++)
        if (same_decl(c->vars[i].decl, decl))
            return &c->vars[i];
    if (c->n_vars == c->cap_vars) {
        c->cap_vars = c->cap_vars ? 2 * c->cap_vars : 32;
        c->vars = ch_xrealloc(c->vars, c->cap_vars * sizeof *c->vars);
    }
    c->vars[c->n_vars] = (ks_var){clang_getCanonicalCursor(decl), 0};
    return &c->vars[c->n_vars++];
}

static ks_fn *cur_fn(ks_ctx *c)
{
    return &c->fns[c->cur];
}

static size_t fn_slot(ks_ctx *c, CXCursor def, int entry)
{
    for (size_t i = 0; i < c->n_fns; i++)
        if (same_decl(c->fns[i].def, def))
            return i;
    if (c->n_fns == c->cap_fns) {
        c->cap_fns = c->cap_fns ? 2 * c->cap_fns : 8;
        c->fns = ch_xrealloc(c->fns, c->cap_fns * sizeof *c->fns);
    }
    int n = clang_Cursor_getNumArguments(def);
    ks_fn *f = &c->fns[c->n_fns];
    *f = (ks_fn){def, entry, 0, NULL, n > 0 ? (unsigned)n : 0, 0};
    if (f->n_params)
        f->params = ch_xcalloc(f->n_params, sizeof *f->params);
    c->changed = 1;
    return c->n_fns++;
}

/* The index of decl among the walked function's parameters, or -1. */
static int param_index(ks_ctx *c, CXCursor decl)
{
    const ks_fn *f = cur_fn(c);
    for (unsigned i = 0; i < f->n_params; i++)
        if (same_decl(clang_Cursor_getArgument(f->def, i), decl))
            return (int)i;
    return -1;
}

static void note_source_name(ks_ctx *c, const char *name)
{
    if (!c->source && !c->dry)
        c->source = ch_xstrdup(name);
}

static void note_source(ks_ctx *c, CXCursor decl)
{
    char *name = hs_str_of(clang_getCursorSpelling(decl));
    note_source_name(c, name);
    free(name);
}

/* Refuses with "host code VERB ['NAME'] TAIL": what depends on kept state, and what it may do. */
static void refuse(ks_ctx *c, CXCursor at, const char *verb, const char *name, const char *tail)
{
    c->refusals += c->dry > 0;
    if (!c->report || c->dry)
        return;
    /* every query's name starts with "cuda" (state_queries and the prefixes above); no kept
     * variable of a candidate's may (the host subset reserves the prefix) */
    int by_query = c->source && strncmp(c->source, "cuda", 4) == 0;
    hs_refuse(c->x, at, "state-flow", "host code %s%s%s%s %s (kept state: '%s'): %s", verb,
              name ? " '" : "", name ? name : "", name ? "'" : "", tail,
              c->source ? c->source : "an allocation's status",
              !c->source ? alloc_why
              : by_query ? query_why
                         : state_why);
}

/* ---- values ---------------------------------------------------------------------------------- */

/* A type whose values are buffers or handles (pointers, arrays and records of them): a kept
 * value of another type (a truth value, a number) is what the pointer told. */
static int buffer_type(CXType t)
{
    t = hs_canon(t);
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray)
        t = hs_canon(clang_getArrayElementType(t));
    if (t.kind == CXType_LValueReference || t.kind == CXType_RValueReference)
        return buffer_type(clang_getPointeeType(t));
    return (hs_pointer_type(t) && !hs_function_like(t)) || t.kind == CXType_Record;
}

static unsigned flags_of_decl(ks_ctx *c, CXCursor d)
{
    int kept = hs_kept_kind(d);
    if (kept == HS_KEPT_BUFFER) {
        c->last_kept = d;
        return KS_KEPT;
    }
    if (kept == HS_KEPT_NUMBER) {
        note_source(c, d);
        return KS_STATE;
    }
    int p = param_index(c, d);
    if (p >= 0)
        return cur_fn(c)->params[p];
    return var_slot(c, d)->flags;
}

/* What reading memory through a pointer carrying `base` gives. */
static unsigned through(unsigned base)
{
    unsigned f = base & (KS_STATE | KS_MACHINE);
    if (base & (KS_TO_BUF | KS_KEPT))
        f |= KS_KEPT; /* a kept buffer's element: a pointer, or (converted below) its contents */
    if (base & KS_TO_NUM)
        f |= KS_STATE;
    return f;
}

/* What a value carries once it decides something (a condition, a comparison, a truth value):
 * the pitch an allocation picked then tells one card from another, as a query's answer does. */
static unsigned as_decision(ks_ctx *c, unsigned f)
{
    if (!(f & KS_MACHINE))
        return f;
    note_source_name(c, c->machine ? c->machine : "cudaMallocPitch");
    return f | KS_STATE;
}

static unsigned ev_children(ks_ctx *c, CXCursor e)
{
    kids ks = hs_children(e);
    unsigned f = 0;
    for (size_t i = 0; i < ks.n; i++)
        f |= ev(c, ks.v[i]);
    free(ks.v);
    return f;
}

/* Where an assignment stores: a local (its declaration in *root), kept state, or other memory. */
typedef enum { PLACE_LOCAL, PLACE_KEPT, PLACE_MEMORY } place_kind;

static place_kind place_of(ks_ctx *c, CXCursor lhs, CXCursor *root)
{
    int deref = 0;
    CXCursor p = hs_peel(lhs, 1);
    for (;;) {
        enum CXCursorKind k = clang_getCursorKind(p);
        if (k == CXCursor_ArraySubscriptExpr) {
            CXCursor base = hs_first_child(p);
            deref |= hs_pointer_type(clang_getCursorType(hs_peel(base, 0)));
            p = hs_peel(base, 1);
        } else if (k == CXCursor_UnaryOperator && hs_operator_is(c->x, p, "*")) {
            deref = 1;
            p = hs_peel(hs_first_child(p), 1);
        } else if (k == CXCursor_MemberRefExpr && !clang_Cursor_isNull(hs_first_child(p))) {
            CXCursor base = hs_first_child(p);
            deref |= hs_pointer_type(clang_getCursorType(hs_peel(base, 0)));
            p = hs_peel(base, 1);
        } else {
            break;
        }
    }
    if (clang_getCursorKind(p) != CXCursor_DeclRefExpr)
        return PLACE_MEMORY;
    CXCursor d = clang_getCursorReferenced(p);
    *root = d;
    if (hs_kept_kind(d) != HS_KEPT_NONE)
        return PLACE_KEPT;
    if (!deref)
        return PLACE_LOCAL;
    unsigned f = flags_of_decl(c, d); /* a pointer into kept state, or to memory */
    return f & (KS_KEPT | KS_TO_BUF | KS_TO_NUM) ? PLACE_KEPT : PLACE_MEMORY;
}

static unsigned assign(ks_ctx *c, CXCursor at, CXCursor lhs, unsigned value)
{
    CXCursor root = clang_getNullCursor();
    place_kind k = place_of(c, lhs, &root);
    unsigned region = c->region > 0 ? KS_STATE : 0;
    if (k == PLACE_MEMORY)
        value |= ev(c, lhs) & KS_STATE; /* where it writes: an index that depends on kept state */
    if (k == PLACE_LOCAL) {
        for (int i = 0; i < c->n_nonzero; i++)
            if (same_decl(c->nonzero[i], root))
                c->nonzero[i] = clang_getNullCursor(); /* no longer known nonzero */
        int p = param_index(c, root);
        grow(c, p >= 0 ? &cur_fn(c)->params[p] : &var_slot(c, root)->flags, value | region);
    } else if (k == PLACE_MEMORY && (region || (value & KS_STATE))) {
        refuse(c, at, "writes", NULL,
               region ? "memory on a path that what it keeps across calls decides"
                      : "a value that depends on what it keeps across calls into memory");
    }
    return value;
}

/* `&place`: the address of kept state is an out-parameter of a grow helper. */
static unsigned address_of(ks_ctx *c, CXCursor operand)
{
    CXCursor root = clang_getNullCursor();
    unsigned f = ev(c, operand);
    if (place_of(c, operand, &root) == PLACE_KEPT && !clang_Cursor_isNull(root)) {
        int kind = hs_kept_kind(root);
        if (kind == HS_KEPT_NUMBER || (kind == HS_KEPT_NONE && (f & KS_STATE)))
            return KS_TO_NUM;
        return KS_TO_BUF;
    }
    return f & (KS_STATE | KS_MACHINE);
}

static unsigned ev_unary(ks_ctx *c, CXCursor e)
{
    CXCursor operand = hs_first_child(e);
    if (hs_operator_is(c->x, e, "*"))
        return through(ev(c, operand));
    if (hs_operator_is(c->x, e, "&"))
        return address_of(c, operand);
    unsigned f = ev(c, operand);
    if (hs_operator_is(c->x, e, "!"))
        f = as_decision(c, f);
    if (hs_operator_is(c->x, e, "++") || hs_operator_is(c->x, e, "--"))
        assign(c, e, operand, f);
    return f;
}

static int comparison(ks_ctx *c, CXCursor e)
{
    static const char *const ops[] = {"<", ">", "<=", ">=", "==", "!=", NULL};
    for (size_t i = 0; ops[i]; i++)
        if (hs_operator_is(c->x, e, ops[i]))
            return 1;
    return 0;
}

static unsigned ev_binary(ks_ctx *c, CXCursor e, int compound)
{
    kids ks = hs_children(e);
    unsigned f = 0;
    if (ks.n != 2) {
        free(ks.v);
        return ev_children(c, e);
    }
    if (!compound && hs_operator_is(c->x, e, "=")) {
        f = assign(c, e, ks.v[0], ev(c, ks.v[1]));
    } else if (compound) {
        f = ev(c, ks.v[0]) | ev(c, ks.v[1]);
        assign(c, e, ks.v[0], f);
    } else if (hs_operator_is(c->x, e, "&&") || hs_operator_is(c->x, e, "||")) {
        /* the right operand runs only when the left one says so */
        f = as_decision(c, ev(c, ks.v[0]));
        int decides = (f & KS_STATE) != 0;
        c->region += decides;
        f |= ev(c, ks.v[1]);
        c->region -= decides;
    } else if (hs_operator_is(c->x, e, ",")) {
        ev(c, ks.v[0]);
        f = ev(c, ks.v[1]);
    } else {
        f = ev(c, ks.v[0]) | ev(c, ks.v[1]);
        if (comparison(c, e))
            f = as_decision(c, f);
    }
    free(ks.v);
    return f;
}

static unsigned ev_conditional(ks_ctx *c, CXCursor e)
{
    kids ks = hs_children(e);
    if (ks.n != 3) {
        free(ks.v);
        return ev_children(c, e);
    }
    unsigned cond = as_decision(c, ev(c, ks.v[0]));
    int decides = (cond & KS_STATE) != 0;
    c->region += decides;
    unsigned f = (cond & KS_STATE) | ev(c, ks.v[1]) | ev(c, ks.v[2]);
    c->region -= decides;
    free(ks.v);
    return f;
}

/* ---- calls ----------------------------------------------------------------------------------- */

/* A library function that computes its result from its arguments alone: declared outside the
 * candidate, returning a value (or constructing one: dim3), taking only numbers (by value or by
 * const reference). */
static int pure_function(CXCursor fn)
{
    if (clang_Cursor_isNull(fn) || hs_from_main_file(fn))
        return 0;
    CXType t = clang_getCursorType(fn);
    if (clang_getResultType(t).kind == CXType_Void &&
        clang_getCursorKind(fn) != CXCursor_Constructor)
        return 0;
    int n = clang_getNumArgTypes(t);
    for (int i = 0; i < n; i++) {
        CXType a = hs_canon(clang_getArgType(t, (unsigned)i));
        if (a.kind == CXType_LValueReference && clang_isConstQualifiedType(clang_getPointeeType(a)))
            a = hs_canon(clang_getPointeeType(a));
        if (hs_pointer_type(a) || a.kind == CXType_Record || a.kind == CXType_LValueReference ||
            a.kind == CXType_RValueReference)
            return 0;
    }
    return n >= 0;
}

static int is_query_name(const char *name)
{
    return hs_in_list(state_queries, name) ||
           hs_has_prefix_in(timing_and_machine_query_prefixes, name);
}

/* A search of a library function's body (defined in a header) for a call of a query. */
typedef struct hidden_search {
    int depth;  /* how many calls deep the search is */
    int budget; /* cursors it may still visit */
    int found;
    char query[64]; /* the query's name, when found */
} hidden_search;

static int hides_query_at(CXCursor fn, hidden_search *h);

static enum CXChildVisitResult hidden_visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    hidden_search *h = data;
    if (h->found || --h->budget <= 0)
        return CXChildVisit_Break;
    if (clang_getCursorKind(c) == CXCursor_CallExpr) {
        CXCursor callee = clang_getCursorReferenced(c);
        CXString sp = clang_getCursorSpelling(callee);
        int query = is_query_name(clang_getCString(sp));
        if (query)
            snprintf(h->query, sizeof h->query, "%s", clang_getCString(sp));
        clang_disposeString(sp);
        if (query || (!clang_Cursor_isNull(callee) && hides_query_at(callee, h))) {
            h->found = 1;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

static int hides_query_at(CXCursor fn, hidden_search *h)
{
    CXCursor def = clang_getCursorDefinition(fn);
    if (clang_Cursor_isNull(def) || h->depth >= 4)
        return 0;
    h->depth++;
    clang_visitChildren(def, hidden_visit, h);
    h->depth--;
    return h->found;
}

/* attacks8 #39: a library function pure by its signature (cub::CurrentDevice(): no arguments,
 * an int back) whose body, in the header, calls a query (cudaGetDevice) answers what the query
 * does. Followed four calls deep and a few thousand cursors far, which the headers' small
 * inline helpers fit in. */
static int hides_query(ks_ctx *c, CXCursor fn)
{
    hidden_search h = {0, 4000, 0, ""};
    if (!hides_query_at(fn, &h))
        return 0;
    note_source_name(c, h.query); /* the message names the query, not its wrapper */
    return 1;
}

static int own_host_function(CXCursor fn)
{
    CXCursor def = clang_getCursorDefinition(fn);
    return !clang_Cursor_isNull(def) && hs_from_main_file(def) && !hs_device_only(def) &&
           (clang_getCursorKind(def) == CXCursor_FunctionDecl ||
            clang_getCursorKind(def) == CXCursor_CXXMethod);
}

/* A local whose address the call is given to write (`&v`, or an array decaying, not as a pointer
 * to const), or null. */
static CXCursor local_written(ks_ctx *c, CXCursor arg)
{
    CXType t = hs_canon(clang_getCursorType(arg));
    if (t.kind == CXType_Pointer && clang_isConstQualifiedType(clang_getPointeeType(t)))
        return clang_getNullCursor();
    CXCursor p = hs_peel(arg, 1);
    if (clang_getCursorKind(p) == CXCursor_UnaryOperator && hs_operator_is(c->x, p, "&"))
        p = hs_peel(hs_first_child(p), 1);
    else if (!hs_array_type(clang_getCursorType(p)))
        return clang_getNullCursor();
    CXCursor root = clang_getNullCursor();
    if (clang_getCursorKind(p) == CXCursor_DeclRefExpr && place_of(c, p, &root) == PLACE_LOCAL)
        return root;
    return clang_getNullCursor();
}

static int is_entry_name(const ks_ctx *c, const char *name)
{
    const char *e = c->x->entry;
    size_t n = strlen(e);
    return strncmp(name, e, n) == 0 &&
           (strcmp(name + n, "_device_launcher") == 0 || strcmp(name + n, "_launcher") == 0);
}

static unsigned ev_launch(ks_ctx *c, CXCursor call, const char *name, const unsigned *args, int n,
                          unsigned config)
{
    if (c->region > 0)
        refuse(c, call, "launches", name, on_path);
    unsigned all = config;
    for (int i = 0; i < n; i++)
        all |= args[i];
    if (all & KS_STATE)
        refuse(c, call, "launches", name, with_value);
    return 0;
}

static unsigned ev_helper(ks_ctx *c, CXCursor fn, const unsigned *args, int n)
{
    size_t k = fn_slot(c, clang_getCursorDefinition(fn), 0);
    ks_fn *callee = &c->fns[k];
    /* a dry walk does not follow a helper into its body: it may do anything there */
    c->refusals += c->dry > 0;
    if (c->dry)
        return callee->result;
    for (int i = 0; i < n && (unsigned)i < callee->n_params; i++)
        grow(c, &callee->params[i], args[i]);
    if (c->region > 0 && !callee->whole) {
        callee->whole = 1;
        c->changed = 1;
    }
    return callee->result;
}

/* attacks8 #17: whether an allocation succeeds depends on what else holds the memory (a user's
 * program, another process), never on the inputs: its status may decide only failure, like
 * kept state's. What it writes (the pointer) is not state. */
static int allocates(const char *name)
{
    return strncmp(name, "cudaMalloc", 10) == 0 || strcmp(name, "cudaHostAlloc") == 0;
}

/* attacks9 #15: the argument an allocation writes its pitch through (the row alignment of the
 * device, which differs between cards), or -1. */
static int pitch_argument(const char *name)
{
    if (strcmp(name, "cudaMallocPitch") == 0)
        return 1;
    return strcmp(name, "cudaMalloc3D") == 0 ? 0 : -1;
}

/* A pointer the call may write an answer through: to writable, complete data (not a handle of
 * an incomplete type, not void, not a function). */
static int answer_pointer(CXCursor arg)
{
    CXType t = hs_canon(clang_getCursorType(arg));
    if (t.kind != CXType_Pointer)
        return 0;
    CXType to = hs_canon(clang_getPointeeType(t));
    return !clang_isConstQualifiedType(to) && !hs_function_like(to) && clang_Type_getSizeOf(to) > 0;
}

/* attacks9 #14: an answer written where the rule cannot follow it (a calloc'd int, a helper's
 * parameter) is refused; one written into a local's member or element marks the local, as
 * `&local` does (local_written). */
static void answer_into(ks_ctx *c, CXCursor call, const char *name, CXCursor arg, unsigned flags)
{
    if (!answer_pointer(arg))
        return;
    CXCursor p = hs_peel(arg, 1), root = clang_getNullCursor();
    int address = clang_getCursorKind(p) == CXCursor_UnaryOperator && hs_operator_is(c->x, p, "&");
    place_kind k = address ? place_of(c, hs_first_child(p), &root) : PLACE_MEMORY;
    int param = k == PLACE_LOCAL ? param_index(c, root) : -1;
    if (k == PLACE_LOCAL)
        grow(c, param >= 0 ? &cur_fn(c)->params[param] : &var_slot(c, root)->flags, flags);
    else if (k != PLACE_KEPT)
        refuse(c, call, "gives", name,
               "a place to write its answer that is not a local variable's (a local, its member "
               "or element, taken with &)");
}

static unsigned ev_library(ks_ctx *c, CXCursor call, CXCursor fn, const char *name,
                           const unsigned *args, int n)
{
    int resource = hs_in_list(resource_calls, name);
    int query = is_query_name(name);
    /* a launch's <<<configuration>>>: judged with the launch (ev_launch) */
    int pure = pure_function(fn) || strcmp(name, "__cudaPushCallConfiguration") == 0 ||
               strcmp(name, "cudaConfigureCall") == 0;
    if (pure && !query && hides_query(c, fn)) {
        query = 1;
        pure = 0;
    }
    /* what the call writes: a copy only its destination, an allocation or a query its
     * out-parameters; a local's address given to be written is not a value it reads */
    int copier = strncmp(name, "cudaMemcpy", 10) == 0 || strcmp(name, "memcpy") == 0 ||
                 strcmp(name, "memmove") == 0;
    unsigned all = 0, read = 0;
    CXCursor *written = ch_xcalloc((size_t)n + 1, sizeof *written);
    for (int i = 0; i < n; i++) {
        written[i] = local_written(c, clang_Cursor_getArgument(call, (unsigned)i));
        if (copier && i > 0)
            written[i] = clang_getNullCursor();
        all |= args[i];
        if (clang_Cursor_isNull(written[i]) || !(resource || query || copier))
            read |= args[i];
    }
    if (query)
        note_source_name(c, name);
    /* a copy or fill into kept memory (clearing a buffer just allocated) sets kept state */
    int setter = strcmp(name, "memset") == 0 || strncmp(name, "cudaMemset", 10) == 0;
    int to_kept = (copier || setter) && n > 0 && (args[0] & (KS_KEPT | KS_TO_BUF));
    if (c->region > 0 && !resource && !query && !pure && !to_kept)
        refuse(c, call, "calls", name, on_path);
    else if ((read & KS_STATE) && !pure && !query)
        refuse(c, call, "calls", name, with_value);
    unsigned writes = (all & (KS_STATE | KS_KEPT)) || query ? KS_STATE : 0;
    if (resource && c->region > 0)
        writes |= KS_STATE;
    for (int i = 0; i < n && writes; i++)
        if (!clang_Cursor_isNull(written[i]))
            grow(c, &var_slot(c, written[i])->flags, writes);
    int pitch = pitch_argument(name);
    if (pitch >= 0 && pitch < n) {
        c->machine = pitch ? "cudaMallocPitch" : "cudaMalloc3D";
        if (!clang_Cursor_isNull(written[pitch]))
            grow(c, &var_slot(c, written[pitch])->flags, KS_MACHINE);
    }
    for (int i = 0; i < n && (query || i == pitch); i++)
        if (clang_Cursor_isNull(written[i]))
            answer_into(c, call, name, clang_Cursor_getArgument(call, (unsigned)i),
                        query ? KS_STATE : KS_MACHINE);
    free(written);
    if (query || (resource && c->region > 0) || allocates(name))
        return KS_STATE;
    return pure ? (all & (KS_STATE | KS_MACHINE)) : 0;
}

static unsigned ev_call(ks_ctx *c, CXCursor call)
{
    CXCursor fn = clang_getCursorReferenced(call);
    int n = clang_Cursor_getNumArguments(call);
    if (n < 0)
        n = 0;
    /* the callee expression, a member call's object and a launch's <<<configuration>>> */
    kids ks = hs_children(call);
    unsigned config = 0;
    for (size_t i = 0; i + (size_t)n < ks.n; i++)
        config |= ev(c, ks.v[i]);
    free(ks.v);
    unsigned *args = ch_xcalloc((size_t)n + 1, sizeof *args);
    for (int i = 0; i < n; i++)
        args[i] = ev(c, clang_Cursor_getArgument(call, (unsigned)i));
    char *name = clang_Cursor_isNull(fn) ? ch_xstrdup("") : hs_str_of(clang_getCursorSpelling(fn));
    unsigned f;
    if (!clang_Cursor_isNull(fn) && hs_is_kernel(fn))
        f = ev_launch(c, call, name, args, n, config & KS_STATE);
    else if (!clang_Cursor_isNull(fn) && own_host_function(fn) && !is_entry_name(c, name))
        f = ev_helper(c, fn, args, n);
    else
        f = ev_library(c, call, fn, name, args, n) | (config & KS_STATE);
    free(name);
    free(args);
    return f;
}

static unsigned ev_raw(ks_ctx *c, CXCursor e)
{
    enum CXCursorKind k = clang_getCursorKind(e);
    switch (k) {
    case CXCursor_DeclRefExpr: {
        CXCursor d = clang_getCursorReferenced(e);
        enum CXCursorKind dk = clang_getCursorKind(d);
        if (dk != CXCursor_VarDecl && dk != CXCursor_ParmDecl)
            return 0;
        return flags_of_decl(c, d);
    }
    case CXCursor_MemberRefExpr: {
        CXCursor base = hs_first_child(e);
        if (clang_Cursor_isNull(base))
            return 0;
        unsigned b = ev(c, base);
        return hs_pointer_type(clang_getCursorType(hs_peel(base, 0))) ? through(b) : b;
    }
    case CXCursor_ArraySubscriptExpr: {
        kids ks = hs_children(e);
        unsigned f = 0;
        if (ks.n == 2)
            f = through(ev(c, ks.v[0])) | (ev(c, ks.v[1]) & (KS_STATE | KS_MACHINE));
        free(ks.v);
        return f;
    }
    case CXCursor_UnaryOperator:
        return ev_unary(c, e);
    case CXCursor_BinaryOperator:
        return ev_binary(c, e, 0);
    case CXCursor_CompoundAssignOperator:
        return ev_binary(c, e, 1);
    case CXCursor_ConditionalOperator:
        return ev_conditional(c, e);
    case CXCursor_CallExpr:
        return ev_call(c, e);
    case CXCursor_UnaryExpr: /* sizeof, alignof: known when compiled */
        return 0;
    default:
        return ev_children(c, e);
    }
}

/* What e may carry; a kept pointer turned into anything but a buffer (a truth value, a
 * comparison, a number) tells what it holds. */
static unsigned ev(ks_ctx *c, CXCursor e)
{
    if (clang_Cursor_isNull(e))
        return 0;
    unsigned f = ev_raw(c, e);
    if ((f & (KS_KEPT | KS_TO_BUF | KS_TO_NUM)) && clang_isExpression(clang_getCursorKind(e)) &&
        !buffer_type(clang_getCursorType(e))) {
        f = (f & ~(KS_KEPT | KS_TO_BUF | KS_TO_NUM)) | KS_STATE;
        if (!clang_Cursor_isNull(c->last_kept))
            note_source(c, c->last_kept);
    }
    return f;
}

/* ---- statements ------------------------------------------------------------------------------ */

/* Walks body as a region that runs only when `decides` (a condition's flags) says so. */
static void ws_under(ks_ctx *c, unsigned decides, CXCursor body)
{
    int d = (decides & KS_STATE) != 0;
    c->region += d;
    ws(c, body);
    c->region -= d;
}

static void ws_var(ks_ctx *c, CXCursor v)
{
    if (hs_kept_kind(v) != HS_KEPT_NONE || clang_Cursor_getStorageClass(v) == CX_SC_Static)
        return; /* a kept variable: its initializer runs once */
    unsigned f = ev_children(c, v) | (c->region > 0 ? KS_STATE : 0);
    grow(c, &var_slot(c, v)->flags, f);
}

/* A condition: an expression, or a declaration whose variable is the condition. */
static unsigned ws_cond(ks_ctx *c, CXCursor cond)
{
    if (clang_getCursorKind(cond) == CXCursor_VarDecl) {
        ws_var(c, cond);
        unsigned f = var_slot(c, cond)->flags;
        return f & (KS_KEPT | KS_TO_BUF | KS_TO_NUM) ? KS_STATE : as_decision(c, f);
    }
    return as_decision(c, ev(c, cond));
}

/* The local a condition says is nonzero in its then-branch (then set) or its else-branch:
 * `V`, `V != Z` and `Z != V` (then), `!V` and `V == Z` (else), Z evaluating to 0 (cudaSuccess);
 * a null cursor when none. */
static CXCursor nonzero_local(ks_ctx *c, CXCursor cond, int then)
{
    CXCursor e = hs_peel(cond, 1);
    enum CXCursorKind k = clang_getCursorKind(e);
    if (k == CXCursor_DeclRefExpr)
        return then ? clang_getCursorReferenced(e) : clang_getNullCursor();
    kids ks = hs_children(e);
    CXCursor v = clang_getNullCursor();
    if (k == CXCursor_UnaryOperator && ks.n == 1 && hs_operator_is(c->x, e, "!") && !then) {
        CXCursor r = hs_peel(ks.v[0], 1);
        if (clang_getCursorKind(r) == CXCursor_DeclRefExpr)
            v = clang_getCursorReferenced(r);
    } else if (k == CXCursor_BinaryOperator && ks.n == 2 &&
               (then ? hs_operator_is(c->x, e, "!=") : hs_operator_is(c->x, e, "=="))) {
        for (int side = 0; side < 2 && clang_Cursor_isNull(v); side++) {
            CXCursor r = hs_peel(ks.v[side], 1);
            CXEvalResult z = clang_Cursor_Evaluate(ks.v[1 - side]);
            int zero = z && clang_EvalResult_getKind(z) == CXEval_Int &&
                       clang_EvalResult_getAsLongLong(z) == 0;
            if (z)
                clang_EvalResult_dispose(z);
            if (zero && clang_getCursorKind(r) == CXCursor_DeclRefExpr)
                v = clang_getCursorReferenced(r);
        }
    }
    free(ks.v);
    /* a local variable: a kept one may change between the test and the return */
    if (!clang_Cursor_isNull(v) &&
        (clang_getCursorKind(v) != CXCursor_VarDecl || hs_kept_kind(v) != HS_KEPT_NONE ||
         clang_Cursor_getStorageClass(v) == CX_SC_Static))
        v = clang_getNullCursor();
    return v;
}

/* ws_under, with the local cond says is nonzero there known so. */
static void ws_branch(ks_ctx *c, unsigned decides, CXCursor cond, int then, CXCursor body)
{
    CXCursor v = nonzero_local(c, cond, then);
    int pushed = !clang_Cursor_isNull(v) && c->n_nonzero < 16;
    if (pushed)
        c->nonzero[c->n_nonzero++] = v;
    ws_under(c, decides, body);
    if (pushed)
        c->n_nonzero--;
}

/* Whether s ends the function: a return, or a block whose last statement does. */
static int ends_in_return(CXCursor s)
{
    enum CXCursorKind k = clang_getCursorKind(s);
    if (k == CXCursor_ReturnStmt)
        return 1;
    if (k != CXCursor_CompoundStmt)
        return 0;
    kids ks = hs_children(s);
    int ends = ks.n && ends_in_return(ks.v[ks.n - 1]);
    free(ks.v);
    return ends;
}

/* Walks path[0..n) dry, as a state-dependent region where v is known nonzero: whether it only
 * manages resources and ends the call with a failing status, refusing nothing. */
static int skip_path_fails(ks_ctx *c, CXCursor v, const CXCursor *path, size_t n)
{
    if (n == 0 || !ends_in_return(path[n - 1]) || c->n_nonzero >= 16)
        return 0;
    CXCursor saved[16];
    memcpy(saved, c->nonzero, sizeof saved); /* the walk may forget some (an assignment) */
    int saved_n = c->n_nonzero, saved_refusals = c->refusals;
    CXCursor saved_kept = c->last_kept;
    c->nonzero[c->n_nonzero++] = v;
    c->dry++;
    c->region++;
    for (size_t i = 0; i < n; i++)
        ws(c, path[i]);
    c->region--;
    c->dry--;
    int clean = c->refusals == saved_refusals;
    c->refusals = saved_refusals;
    memcpy(c->nonzero, saved, sizeof saved);
    c->n_nonzero = saved_n;
    c->last_kept = saved_kept;
    return clean;
}

/* A status guarding the work: `if (err == cudaSuccess) { launch ... } cudaFree(t); return err;`
 * (or `if (!err) { ... } else { return err; }`). Where the status is nonzero the call skips the
 * work and ends with it, a failure that sends it to the host path, as the early return
 * `if (err != cudaSuccess) return err;` does; so the guarded branch runs where the status says
 * only "no failure", and is no region that state decides. The path that skips it, the else
 * branch or the rest of the block (rest[0..n_rest)) to its return, must fail so: walked dry. */
static int success_guard(ks_ctx *c, CXCursor cond, const CXCursor *else_body, const CXCursor *rest,
                         size_t n_rest)
{
    CXCursor v = nonzero_local(c, cond, 0);
    if (clang_Cursor_isNull(v))
        return 0;
    return else_body ? skip_path_fails(c, v, else_body, 1) : skip_path_fails(c, v, rest, n_rest);
}

/* An if statement; rest[0..n_rest) the statements after it in its block. */
static void ws_if(ks_ctx *c, CXCursor s, const CXCursor *rest, size_t n_rest)
{
    kids ks = hs_children(s);
    size_t i = 0;
    /* C++17's init-statement: four children, or three of which the first is no expression */
    enum CXCursorKind k0 = ks.n ? clang_getCursorKind(ks.v[0]) : CXCursor_NullStmt;
    if (ks.n == 4 || (ks.n == 3 && clang_isStatement(k0)))
        ws(c, ks.v[i++]);
    if (i + 1 < ks.n) {
        unsigned cond = ws_cond(c, ks.v[i]);
        const CXCursor *else_body = i + 2 < ks.n ? &ks.v[i + 2] : NULL;
        int guard = (cond & KS_STATE) && clang_getCursorKind(ks.v[i]) != CXCursor_VarDecl &&
                    success_guard(c, ks.v[i], else_body, rest, n_rest);
        ws_branch(c, guard ? 0 : cond, ks.v[i], 1, ks.v[i + 1]);
        if (else_body)
            ws_branch(c, cond, ks.v[i], 0, *else_body);
    }
    free(ks.v);
}

static void ws_for(ks_ctx *c, CXCursor s)
{
    hs_for_parts p = hs_split_for(c->x, s);
    ws(c, p.init);
    unsigned decides = clang_Cursor_isNull(p.cond) ? 0 : ws_cond(c, p.cond);
    ws_under(c, decides, p.body);
    int d = (decides & KS_STATE) != 0;
    c->region += d;
    ev(c, p.inc);
    c->region -= d;
}

/* An exit on a state-dependent path: an entry's must fail (a nonzero constant, the status that
 * sends the call to the host path); a helper's makes all of it state-dependent. */
static void ws_exit(ks_ctx *c, CXCursor s, CXCursor value, int is_return)
{
    ks_fn *f = cur_fn(c);
    if (c->region == 0)
        return;
    if (f->entry && is_return) {
        int fails = 0;
        if (!clang_Cursor_isNull(value)) {
            CXEvalResult r = clang_Cursor_Evaluate(value);
            fails = r && clang_EvalResult_getKind(r) == CXEval_Int &&
                    clang_EvalResult_getAsLongLong(r) != 0;
            if (r)
                clang_EvalResult_dispose(r);
            /* the status the condition says is nonzero here: `if (err) return err;` */
            CXCursor v = hs_peel(value, 1);
            for (int i = 0; !fails && i < c->n_nonzero; i++)
                fails = clang_getCursorKind(v) == CXCursor_DeclRefExpr &&
                        !clang_Cursor_isNull(c->nonzero[i]) &&
                        same_decl(clang_getCursorReferenced(v), c->nonzero[i]);
        }
        if (!fails)
            refuse(c, s, "returns without an error", NULL,
                   "on a path that what it keeps across calls decides (only a nonzero "
                   "constant status, or the status the condition found nonzero, may end the "
                   "call there)");
        return;
    }
    if (!f->whole && !c->dry) {
        f->whole = 1;
        c->changed = 1;
    }
}

static void ws(ks_ctx *c, CXCursor s)
{
    if (clang_Cursor_isNull(s))
        return;
    enum CXCursorKind k = clang_getCursorKind(s);
    switch (k) {
    case CXCursor_DeclStmt: {
        kids ks = hs_children(s);
        for (size_t i = 0; i < ks.n; i++)
            if (clang_getCursorKind(ks.v[i]) == CXCursor_VarDecl)
                ws_var(c, ks.v[i]);
        free(ks.v);
        return;
    }
    case CXCursor_IfStmt:
        ws_if(c, s, NULL, 0);
        return;
    case CXCursor_CompoundStmt: {
        /* an if sees the statements after it: the path that skips its branch goes on there */
        kids ks = hs_children(s);
        for (size_t i = 0; i < ks.n; i++) {
            if (clang_getCursorKind(ks.v[i]) == CXCursor_IfStmt)
                ws_if(c, ks.v[i], ks.v + i + 1, ks.n - i - 1);
            else
                ws(c, ks.v[i]);
        }
        free(ks.v);
        return;
    }
    case CXCursor_ForStmt:
        ws_for(c, s);
        return;
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_SwitchStmt:
    case CXCursor_CXXForRangeStmt: {
        /* the condition (or range), then the body; a do's body comes first but runs again only
         * when its condition says so */
        kids ks = hs_children(s);
        if (ks.n) {
            size_t body = k == CXCursor_DoStmt ? 0 : ks.n - 1;
            unsigned decides = 0;
            for (size_t i = 0; i < ks.n; i++)
                if (i != body)
                    decides |= ws_cond(c, ks.v[i]);
            ws_under(c, decides, ks.v[body]);
        }
        free(ks.v);
        return;
    }
    case CXCursor_ReturnStmt: {
        CXCursor value = hs_first_child(s);
        unsigned f = ev(c, value);
        ks_fn *fn = cur_fn(c);
        if (!fn->entry)
            grow(c, &fn->result, f | (c->region > 0 ? KS_STATE : 0));
        ws_exit(c, s, value, 1);
        return;
    }
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
        ws_exit(c, s, clang_getNullCursor(), 0);
        return;
    default:
        if (clang_isExpression(k)) {
            ev(c, s);
        } else {
            kids ks = hs_children(s);
            for (size_t i = 0; i < ks.n; i++)
                ws(c, ks.v[i]);
            free(ks.v);
        }
        return;
    }
}

static void walk_fn(ks_ctx *c, size_t k)
{
    c->cur = k;
    kids ks = hs_children(c->fns[k].def);
    for (size_t i = 0; i < ks.n; i++)
        if (clang_getCursorKind(ks.v[i]) == CXCursor_CompoundStmt) {
            c->region = c->fns[k].whole;
            ws(c, ks.v[i]);
        }
    free(ks.v);
    c->region = 0;
}

/* ---- the rule -------------------------------------------------------------------------------- */

typedef struct entry_find {
    ks_ctx *c;
    char *names[2];
} entry_find;

static enum CXChildVisitResult find_entries(CXCursor d, CXCursor parent, CXClientData data)
{
    (void)parent;
    entry_find *ef = data;
    enum CXCursorKind k = clang_getCursorKind(d);
    /* extern "C" blocks (an UnexposedDecl in older libclang) and namespaces */
    if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace || k == CXCursor_UnexposedDecl)
        return CXChildVisit_Recurse;
    if (k != CXCursor_FunctionDecl || !clang_isCursorDefinition(d) || !hs_from_main_file(d))
        return CXChildVisit_Continue;
    char *name = hs_str_of(clang_getCursorSpelling(d));
    for (size_t i = 0; i < 2; i++)
        if (ef->names[i] && strcmp(name, ef->names[i]) == 0)
            fn_slot(ef->c, d, 1);
    free(name);
    return CXChildVisit_Continue;
}

void hs_judge_state_flow(subset_ctx *x)
{
    if (x->kind != CH_SUBSET_CANDIDATE || x->refused || !x->entry || !x->tu)
        return;
    ks_ctx c = {0};
    c.x = x;
    /* what a user's program calls: the device launcher through the runtime; a `device` entry's
     * dispatcher calls NAME_launcher itself */
    entry_find ef = {&c,
                     {ch_xasprintf("%s_device_launcher", x->entry),
                      x->device_entry ? ch_xasprintf("%s_launcher", x->entry) : NULL}};
    clang_visitChildren(clang_getTranslationUnitCursor(x->tu), find_entries, &ef);
    free(ef.names[0]);
    free(ef.names[1]);
    /* the facts only grow, and each round either grows one or ends: a bound for safety */
    for (int round = 0; round < 64 && c.n_fns; round++) {
        c.changed = 0;
        for (size_t k = 0; k < c.n_fns; k++)
            walk_fn(&c, k);
        if (!c.changed)
            break;
    }
    c.report = 1;
    for (size_t k = 0; k < c.n_fns && !x->refused; k++)
        walk_fn(&c, k);
    for (size_t k = 0; k < c.n_fns; k++)
        free(c.fns[k].params);
    free(c.fns);
    free(c.vars);
    free(c.source);
}
