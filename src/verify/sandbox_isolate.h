/* The child side of the sandbox (private to sandbox.c): what the parent prepares before fork
 * (the paths, the compiled seccomp filter) and the setup the child runs just before exec. */
#ifndef CH_SANDBOX_ISOLATE_H
#define CH_SANDBOX_ISOLATE_H

#include <linux/filter.h>
#include <sys/types.h>

#include "ch/error.h"
#include "ch/sandbox.h"

/* the caller's paths, the places sockets live, a compiler's PATH and toolkit */
#define ISO_MAX_PATHS 48

typedef struct iso_plan {
    const char *dir;                    /* the run directory: visible, writable */
    const char *scratch[ISO_MAX_PATHS]; /* covered by an empty, world-writable tmpfs (/tmp) */
    size_t n_scratch;
    const char *hide[ISO_MAX_PATHS]; /* covered by an empty tmpfs (0755) */
    size_t n_hide;
    /* bound back after hiding: dir first (writable), then the program and what the caller
     * exposes (read only) */
    const char *expose[ISO_MAX_PATHS];
    unsigned char expose_writable[ISO_MAX_PATHS]; /* dir, the MPS pipe directory */
    size_t n_expose;
    /* the first n_required exposed paths (dir, the program, the caller's) must stay reachable
     * by the unprivileged user; the others (a compiler's PATH, the driver's sockets) are
     * offered, and an unreachable one is simply not there for it */
    size_t n_required;
    ch_strvec owned;  /* the strings above that the plan made (realpath, PATH entries) */
    int new_net;      /* ask for a network namespace */
    int new_ipc;      /* ask for an IPC namespace (System V shared memory, semaphores, queues) */
    int restrict_all; /* the filter forbids fork and every exec but exec_path */
    int no_sockets;   /* the filter refuses socket, socketpair and connect: no GPU to talk to */
    struct sock_fprog filter; /* owned: iso_plan_free; len 0 when it could not be built */
    uid_t uid;
    gid_t gid;
} iso_plan;

/* Compiles the seccomp filter for a run whose only exec is exec_path (that very pointer: the
 * child calls execve with it). Returns 0, or -1 with err (the run then reports seccomp). */
int iso_plan_filter(iso_plan *p, const char *exec_path, ch_error *err);
void iso_plan_free(iso_plan *p);

/* Whether the unprivileged user can reach path (every directory on the way searchable by
 * others). Allocates nothing: the child calls it too. */
int iso_others_can_reach(const char *path);

/* ch_proc_opts.child_setup for an iso_plan: the mask of CH_ISO_* steps that failed. */
int iso_child_setup(const void *plan);

#endif
