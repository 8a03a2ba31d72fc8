/* Running child processes: the real compilers, nvcc for kernels, verification programs.
 *
 * One entry point, ch_proc_run, covers every use: inherit the caller's stdio (compilers whose
 * output must reach the user byte for byte) or capture it (diagnostics that become feedback),
 * optional working directory, a replacement environment, resource limits, and a wall-time limit
 * after which the child's whole process group is killed. */
#ifndef CH_PROC_H
#define CH_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "ch/error.h"
#include "ch/strbuf.h"

typedef struct ch_proc_opts {
    const char *cwd;        /* NULL: inherit */
    char *const *envp;      /* NULL: inherit environ */
    int capture_stdout;     /* nonzero: collect into result.out */
    int capture_stderr;     /* nonzero: collect into result.err (2>&1 when merge_stderr) */
    int merge_stderr;       /* with capture_stdout: stderr goes into out too */
    const char *stdin_path; /* NULL: inherit; "/dev/null" to close it off */
    /* NULL, or the bytes the child reads as its whole stdin (a socket, so that a child gone
     * before reading them all costs no SIGPIPE); stdin_path is then ignored. Not with gate. */
    const char *stdin_data;
    size_t stdin_len;
    const char *stdout_path;  /* NULL: inherit or capture; else redirect to this file */
    double wall_seconds;      /* 0: no limit; else kill the process group after this long */
    long cpu_seconds;         /* 0: no limit (RLIMIT_CPU) */
    long file_size_bytes;     /* 0: no limit (RLIMIT_FSIZE) */
    long open_files;          /* 0: no limit (RLIMIT_NOFILE) */
    long address_space_bytes; /* 0: no limit (RLIMIT_AS) */
    int new_process_group;    /* nonzero: setpgid(0,0) in the child; implied by wall_seconds */
    int new_network_ns;       /* nonzero: try unshare(CLONE_NEWNET); ignored when not allowed */
    size_t capture_limit;     /* 0: 16 MiB; captured output beyond this is dropped */
    long process_count;       /* 0: no limit (RLIMIT_NPROC) */
    /* 0: none; else a descriptor that turns readable once the run is no longer wanted (another
     * check already refused what it compiles): the child's group is killed then
     * (result.cancelled). The descriptor is only polled, never read. */
    int cancel_fd;
    /* Runs in the child after the limits, just before exec (the sandbox's namespaces, mounts
     * and filter). Returns a mask of the isolation steps that failed (result.isolation_failed),
     * or -1 to refuse to run. Must not allocate: the parent may be multithreaded. */
    int (*child_setup)(const void *ctx);
    const void *child_ctx;
    /* A gate in the child's run, for a caller that needs a resource only for part of it (the
     * GPU alone for a timing, not for the program's start and its reading of hundreds of MiB of
     * inputs). With gate set the child's stdin is a socket (stdin_path is ignored); once the
     * captured stdout holds gate_line at the start of a line, gate(gate_ctx) is called, which
     * may block (its time does not count against wall_seconds), and then one byte is written
     * to the child's stdin, which it waits for. Needs capture_stdout. */
    const char *gate_line;
    void (*gate)(void *ctx);
    void *gate_ctx;
    /* NULL, or a string sent after that byte, read once gate(gate_ctx) has returned (so the gate
     * may fill it in: what it learnt while it waited), then the child's stdin ends */
    const char *gate_reply;
    /* NULL, or the line after which the child no longer needs what the gate gave it (its timed
     * calls are over; what is left is freeing memory and exiting, which can take seconds): once
     * the captured stdout holds it at the start of a line after the gate opened,
     * release(gate_ctx) is called, once (result.released) */
    const char *release_line;
    void (*release)(void *ctx);
} ch_proc_opts;

typedef struct ch_proc_result {
    int exit_code;             /* exit status, or 128+signal when killed by a signal */
    int signaled;              /* nonzero: terminated by a signal */
    int timed_out;             /* nonzero: killed because wall_seconds passed */
    int net_isolated;          /* nonzero: ran in a fresh network namespace */
    unsigned isolation_failed; /* child_setup's mask of failed isolation steps */
    double wall_used;          /* seconds (the gate's wait left out) */
    int gate_opened;           /* nonzero: the gate was called (ch_proc_opts.gate) */
    int released;              /* nonzero: release was called (ch_proc_opts.release_line) */
    int cancelled;             /* nonzero: killed because cancel_fd turned readable */
    ch_strbuf out;             /* captured stdout (owned; ch_proc_result_free) */
    ch_strbuf err;             /* captured stderr */
} ch_proc_result;

void ch_proc_result_init(ch_proc_result *r);
void ch_proc_result_free(ch_proc_result *r);

/* Runs argv[0] (searched on PATH when it has no '/'). Returns 0 when the child was started and
 * waited for (whatever its exit status), -1 with err set when it could not be started. */
int ch_proc_run(char *const *argv, const ch_proc_opts *opts, ch_proc_result *res, ch_error *err);

/* Replaces the current process with argv (PATH search); returns only on failure, with err set. */
int ch_proc_exec(char *const *argv, ch_error *err);

/* Convenience: runs argv capturing stdout+stderr merged, returns exit code or -1. */
int ch_proc_capture(char *const *argv, ch_strbuf *out, ch_error *err);

#endif
