/* The verification sandbox: how candidate and reference programs are run (DESIGN §3 isolation).
 *
 * A sandboxed run gets a fresh working directory holding only its inputs, a scrubbed environment
 * (PATH, LD_LIBRARY_PATH, CUDA_* and NVIDIA_* variables of the parent, HOME and TMPDIR set to the
 * directory; nothing else, so no API keys), limits on CPU time, file size, open files and wall
 * time (the whole process group is killed), a new network namespace when the OS allows one, and
 * an optional runner prefix (config "runner", CH_CC_RUNNER: "ssh gpuhost", "srun --gres=gpu:1").
 *
 * Ownership: ch_sandbox_opts borrows every string; results are ch_proc_result (caller frees). */
#ifndef CH_SANDBOX_H
#define CH_SANDBOX_H

#include "ch/error.h"
#include "ch/proc.h"

typedef struct ch_sandbox_opts {
    const char *dir;        /* working directory (must exist); becomes HOME and TMPDIR */
    const char *runner;     /* command prefix split like a shell would, NULL/"" for none */
    double wall_seconds;    /* 0: default 60 */
    long cpu_seconds;       /* 0: default 120 */
    long file_size_bytes;   /* 0: default 4 GiB */
    long open_files;        /* 0: default 256 */
    int allow_network;      /* nonzero: do not ask for a new network namespace */
    char *const *extra_env; /* NAME=VALUE strings added to the scrubbed environment, or NULL */
} ch_sandbox_opts;

/* Builds the scrubbed environment for dir (NULL-terminated, owned: ch_strvec_free). */
void ch_sandbox_env(const char *dir, char *const *extra_env, ch_strvec *out);

/* Runs argv (prefixed by the runner) in the sandbox, capturing stdout and stderr. Returns 0
 * when the program was started and waited for, -1 with err when it could not be started. */
int ch_sandbox_run(const ch_sandbox_opts *o, char *const *argv, ch_proc_result *res, ch_error *err);

#endif
