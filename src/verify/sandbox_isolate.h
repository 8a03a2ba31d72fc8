/* The child side of the sandbox (private to sandbox.c): what the parent prepares before fork
 * (the paths, the compiled seccomp filter) and the setup the child runs just before exec. */
#ifndef CH_SANDBOX_ISOLATE_H
#define CH_SANDBOX_ISOLATE_H

#include <linux/filter.h>
#include <sys/types.h>

#include "ch/error.h"
#include "ch/sandbox.h"

#define ISO_MAX_PATHS (2 * CH_SANDBOX_MAX_PATHS + 4)

typedef struct iso_plan {
    const char *dir;                 /* the run directory: visible, writable */
    const char *hide[ISO_MAX_PATHS]; /* covered by empty tmpfs (after /tmp) */
    size_t n_hide;
    const char *expose[ISO_MAX_PATHS]; /* bound back after hiding: dir, the program, ... */
    size_t n_expose;
    int new_net;              /* ask for a network namespace */
    int restrict_all;         /* the filter forbids fork and every exec but exec_path */
    struct sock_fprog filter; /* owned: iso_plan_free; len 0 when it could not be built */
    uid_t uid;
    gid_t gid;
} iso_plan;

/* Compiles the seccomp filter for a run whose only exec is exec_path (that very pointer: the
 * child calls execve with it). Returns 0, or -1 with err (the run then reports seccomp). */
int iso_plan_filter(iso_plan *p, const char *exec_path, ch_error *err);
void iso_plan_free(iso_plan *p);

/* ch_proc_opts.child_setup for an iso_plan: the mask of CH_ISO_* steps that failed. */
int iso_child_setup(const void *plan);

#endif
