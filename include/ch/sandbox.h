/* The verification sandbox: how candidate and reference programs are run (DESIGN §3 isolation).
 *
 * A sandboxed run gets a fresh working directory holding only its inputs; an environment
 * allow-list (PATH, LD_LIBRARY_PATH, LANG, LC_ALL=C, CUDA_VISIBLE_DEVICES, HOME and TMPDIR set to
 * the directory: never a provider key); limits on CPU time, file size, open files, processes,
 * wall time (the whole process group is killed) and, for CPU-only runs, address space. Where the
 * kernel allows: new user (when not root), mount, network and PID namespaces; a private /tmp;
 * the caller's hidden paths, $HOME and the cache covered by empty tmpfs (so a candidate never
 * opens the reference outputs the parent compares against); the rest of / read only; as root, the
 * run switches to the unprivileged user "nobody" (65534), so even a path the mounts miss
 * (/proc/PID/root of another process) cannot open the parent's 0700 directories; capabilities
 * dropped; NoNewPrivs; and a seccomp filter (no fork, no exec but the program itself, no
 * ptrace, mount, bpf, ...; no socket at all for a run that does not use the GPU, only AF_UNIX for
 * one that does). Every place another program's socket may live is covered for every run: /tmp,
 * /var/tmp and /dev/shm by a private tmpfs (not /dev/shm where MPS is in use: it shares memory
 * there), /run, $XDG_RUNTIME_DIR and ch-cc's TMPDIR by an empty one; a GPU run gets back only the
 * nvidia-persistenced socket and the MPS pipe directory. A compiler run (compiler) gets the same
 * isolation with fork and exec allowed. A step that cannot be set up
 * is recorded in the result's isolation_failed (ch_sandbox_isolation_text) and said once on
 * stderr. An optional runner prefix (config "runner": "srun --gres=gpu:1") turns the exec and
 * network rules off: the runner needs them (recorded as partial).
 *
 * Ownership: ch_sandbox_opts borrows every string; results are ch_proc_result (caller frees). */
#ifndef CH_SANDBOX_H
#define CH_SANDBOX_H

#include "ch/error.h"
#include "ch/proc.h"

#define CH_SANDBOX_MAX_PATHS 4
/* The CPU-time limit of a run that sets none (ch_sandbox_opts.cpu_seconds 0). */
#define CH_SANDBOX_CPU_SECONDS 120

typedef struct ch_sandbox_opts {
    const char *dir;      /* working directory (must exist); becomes HOME and TMPDIR */
    const char *runner;   /* command prefix split like a shell would, NULL/"" for none */
    double wall_seconds;  /* 0: default 60 */
    long cpu_seconds;     /* 0: default CH_SANDBOX_CPU_SECONDS */
    long file_size_bytes; /* 0: default 4 GiB */
    long open_files;      /* 0: default 256 */
    int allow_network;    /* nonzero: do not ask for a new network namespace */
    int cpu_only;         /* nonzero: no GPU use, so an address-space limit applies */
    int allow_spawn;      /* nonzero: a trusted launcher (compute-sanitizer) forks and execs */
    /* nonzero: a compiler (nvcc, cc) on untrusted source: it forks and execs its passes (cicc,
     * ptxas, gcc, ld) and reads its toolkit and PATH, read only; no sockets, no GPU */
    int compiler;
    int merge_output;       /* nonzero: stderr goes into the captured stdout, in order */
    char *const *extra_env; /* NAME=VALUE strings added to the scrubbed environment, or NULL */
    /* paths the child must not see (the reference outputs, the cache), NULL-ended */
    const char *hide[CH_SANDBOX_MAX_PATHS + 1];
    /* files or directories outside dir that stay visible (the program a launcher runs) */
    const char *expose[CH_SANDBOX_MAX_PATHS + 1];
    /* a gate in the run (ch_proc_opts.gate: the child prints gate_line, gate(gate_ctx) runs,
     * then the child goes on); NULL gate: none */
    const char *gate_line;
    void (*gate)(void *ctx);
    void *gate_ctx;
    const char *gate_reply;   /* ch_proc_opts.gate_reply */
    const char *release_line; /* ch_proc_opts.release_line and release */
    void (*release)(void *ctx);
    int cancel_fd; /* ch_proc_opts.cancel_fd: 0 none */
} ch_sandbox_opts;

/* The isolation steps, as bits of ch_proc_result.isolation_failed. */
enum {
    CH_ISO_NO_NEW_PRIVS = 1 << 0,
    CH_ISO_USER_NS = 1 << 1,
    CH_ISO_MOUNT_NS = 1 << 2,
    CH_ISO_NET_NS = 1 << 3,
    CH_ISO_USER_ID = 1 << 4, /* as root: the run did not switch to the unprivileged user */
    CH_ISO_HIDE = 1 << 5,
    CH_ISO_READ_ONLY = 1 << 6,
    CH_ISO_CHOWN = 1 << 7, /* as root: the run directory could not be given to that user */
    CH_ISO_CAPS = 1 << 8,
    CH_ISO_SECCOMP = 1 << 9,
    CH_ISO_RUNNER = 1 << 10,
    CH_ISO_PID_NS = 1 << 11, /* no PID namespace, or no /proc of its own in it */
    CH_ISO_IPC_NS = 1 << 12, /* CPU-only runs: no IPC namespace of their own */
};

/* Builds the scrubbed environment for dir (NULL-terminated, owned: ch_strvec_free). */
void ch_sandbox_env(const char *dir, char *const *extra_env, ch_strvec *out);

/* The runner prefix ("srun --gres=gpu:1") split at blanks onto args. */
void ch_sandbox_runner_args(const char *runner, ch_strvec *args);

/* Options for the common runs, the rest zero: a CPU-only program in dir (a reference, a check
 * of one), and a compiler in dir with its diagnostics in one stream; each with `seconds` of
 * wall and CPU time. */
void ch_sandbox_opts_cpu(ch_sandbox_opts *so, const char *dir, double seconds);
void ch_sandbox_opts_compiler(ch_sandbox_opts *so, const char *dir, double seconds);

/* Runs argv (prefixed by the runner) in the sandbox, capturing stdout and stderr. Returns 0
 * when the program was started and waited for, -1 with err when it could not be started. */
int ch_sandbox_run(const ch_sandbox_opts *o, char *const *argv, ch_proc_result *res, ch_error *err);

/* "partial (mount namespace, seccomp)" for a nonzero mask, "full" for 0 (caller frees). */
char *ch_sandbox_isolation_text(unsigned failed);

#endif
