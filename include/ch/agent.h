/* Agents: who proposes checklists, references and kernels (DESIGN §4).
 *
 * One interface, three jobs, several implementations ("builtin", "openai", "anthropic"). The
 * three jobs are separate conversations, so that isolation holds by construction: the kernel
 * author is given the checklist, the scaffold contract and feedback, never the reference code,
 * test data or seeds; the test author is never given candidates.
 *
 * The scaffold contract every kernel author writes to: the candidate is one CUDA source file
 * defining `extern "C" void NAME_launcher(<the entry's parameters>)` (see ch_agent_launcher_name;
 * parameters spelled as ch_entry_cxx_params gives them: C99 array parameters such as
 * `double A[n][m]` become `double *A`, row-major, `restrict` becomes `__restrict__`)
 * plus its __global__ kernels; the launcher only allocates, copies, configures and launches, and
 * returns after the outputs are back in the caller's buffers (host-pointer convention) or
 * written on the device (`device` entries). No main, no I/O, no host-side computation of outputs.
 *
 * Ownership: a ch_agent is created by ch_agent_open and freed by ch_agent_close; every string an
 * agent returns is malloc'd and owned by the caller. */
#ifndef CH_AGENT_H
#define CH_AGENT_H

#include <stddef.h>

#include "ch/checklist.h"
#include "ch/config.h"
#include "ch/entry.h"
#include "ch/error.h"

/* What the kernel author is told about the GPU (read from the device when one is present, else
 * from CH_CC_ARCH). */
typedef struct ch_agent_hw {
    char arch[16];       /* "sm_90" */
    char name[64];       /* "NVIDIA H200", or "" when not read from a device */
    int sm_count;        /* 0: unknown */
    long l2_bytes;       /* 0: unknown */
    long smem_per_block; /* bytes, 0: unknown */
    int max_threads_per_block;
} ch_agent_hw;

/* Usage accounting, per agent (the driver adds them up per build). */
typedef struct ch_agent_usage {
    long requests;
    long retries;
    long prompt_tokens;
    long completion_tokens;
} ch_agent_usage;

/* The parent's measured figures, for agents that read numbers rather than the feedback's words
 * (the builtin agent's walk along a design's shape, ch/agent_walk.h). */
typedef struct ch_kernel_perf {
    double ms;       /* the time evolution ranks it by: its kernels alone on device-resident data
                      * where it has a device launcher, else the whole call */
    double fraction; /* of the memory floor (ch_verify_report.fraction), -1 unknown */
    int registers;   /* the most registers a kernel of it uses, -1 unknown */
    int spill_bytes; /* spill stores of its kernels together (0: none) */
    int smem_bytes;  /* the most static shared memory a kernel of it uses, -1 unknown */
} ch_kernel_perf;

/* A kernel-author request: everything the author may see. */
typedef struct ch_kernel_request {
    const ch_checklist *checklist;
    const ch_entry *entry;      /* the scanned entry (builtin translates its body); may be NULL */
    const char *feedback;       /* NULL on the first request; else the verification feedback of
                                 * the parent candidate (correctness or performance) */
    const char *parent_source;  /* the parent candidate's source, NULL for a fresh design */
    int round;                  /* 0-based evolution round */
    int fresh_design;           /* nonzero: ignore the parent, propose a different design */
    const ch_kernel_perf *perf; /* with performance feedback: the parent's figures; else NULL */
} ch_kernel_request;

typedef struct ch_agent ch_agent;

/* What a test author's error says when the reference it was given is refused by the checks
 * (the source guard, the host subset): the pipeline counts it as a reference refusal
 * (refused_reference), not as an agent that could not be reached. */
#define CH_AGENT_REFERENCE_REFUSED "the reference is refused"

typedef struct ch_agent_ops {
    const char *name;
    /* spec + signature (+ clauses) -> checklist (validated by the caller too). */
    int (*checklist)(ch_agent *ag, const ch_entry *e, ch_checklist *out, ch_error *err);
    /* checklist -> a C reference: a function with the entry's exact signature named
     * NAME_reference, plus the file's includes; returned as a whole C source file. A reference
     * that the checks refuse fails with CH_AGENT_REFERENCE_REFUSED in err's message. */
    int (*test_author)(ch_agent *ag, const ch_checklist *c, char **reference_c, ch_error *err);
    /* -> one candidate CUDA source file; *design receives a short name of the design
     * ("1d grid-stride, 256 threads") for reports, malloc'd, may be NULL. Returns 1 (not an
     * error) when the agent has nothing new to propose; err may then say why (the builtin agent's
     * walk reached a plateau or the floor), else its message stays empty. */
    int (*kernel)(ch_agent *ag, const ch_kernel_request *req, char **cuda_src, char **design,
                  ch_error *err);
    void (*close)(ch_agent *ag);
} ch_agent_ops;

struct ch_agent {
    const ch_agent_ops *ops;
    const ch_config *cfg; /* borrowed */
    ch_agent_hw hw;
    ch_agent_usage usage;
    void *impl; /* owned by the implementation; freed by ops->close */
};

/* Opens the provider named by the configuration ("provider"), or `provider` when non-NULL. */
int ch_agent_open(const ch_config *cfg, const char *provider, const ch_agent_hw *hw, ch_agent **out,
                  ch_error *err);
void ch_agent_close(ch_agent *ag);

/* "saxpy" -> "saxpy_launcher" (malloc'd). */
char *ch_agent_launcher_name(const char *entry_name);

/* Implementations' constructors (each in its own file under src/agent/). */
int ch_agent_builtin_open(ch_agent *ag, ch_error *err);
int ch_agent_openai_open(ch_agent *ag, ch_error *err);
int ch_agent_anthropic_open(ch_agent *ag, ch_error *err);

#endif
