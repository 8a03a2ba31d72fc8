/* Temporary files and directories that must not outlive an interrupted build.
 *
 * Every temporary directory ch-cc makes (ch_make_temp_dir) and every temp file it writes beside
 * a destination is registered here, and so is every child process. On SIGINT, SIGTERM or SIGHUP
 * a thread that waits for them (every other thread blocks them) kills the children (a child in
 * its own process group does not get the terminal's signal), removes what is registered, and
 * dies of the same signal, so make still sees an interrupted compiler. A run killed with SIGKILL
 * cannot clean up: its directories carry its pid (ch-cc-PREFIX-PID-XXXXXX) and a marker file
 * written when they were made (ch_cleanup_mark_made), and the next run removes those whose
 * process is gone. Nothing else in TMPDIR is ever removed: a user's own ch-cc-bench-2026-run1
 * has no marker. */
#ifndef CH_CLEANUP_H
#define CH_CLEANUP_H

#include <sys/types.h>

/* Installs the handlers (once; later calls do nothing), blocks the signals in the calling
 * thread and starts the thread that takes them, and sweeps the directories of dead runs from
 * $TMPDIR (or /tmp). Called by the commands that make temporary directories, before they start
 * any thread: a thread started earlier keeps the signals unblocked. */
void ch_cleanup_install(void);
/* In a forked child before its exec, and before an exec in place: unblocks the signals that
 * ch_cleanup_install blocked, so that the program gets the mask ch-cc was given (a compiler
 * that inherited them blocked could not be interrupted). Async-signal-safe. */
void ch_cleanup_unblock(void);
/* Where ch-cc's own temporary directories go: $TMPDIR as it was before ch_cleanup_install
 * pointed TMPDIR at a private directory for the children (removed on exit and on a signal,
 * so that a killed nvcc leaves no tmpxft_* files); NULL before. */
const char *ch_cleanup_temp_base(void);

/* Registers a directory (removed whole) or a file (unlinked) to remove on a signal. The path is
 * copied; registering is cheap and thread-safe. A path that is removed normally may stay
 * registered: removing a missing path on a signal does nothing. */
void ch_cleanup_register_dir(const char *path);
void ch_cleanup_register_file(const char *path);

/* A child process to kill on a signal (group: it leads its own process group, kill the group),
 * and its end (reaped by its owner). */
void ch_cleanup_child_started(pid_t pid, int group);
void ch_cleanup_child_ended(pid_t pid);

/* Around a call into a library that puts its own signal handlers in place while it runs
 * (NVRTC's front end: its SIGINT handler exits with status 4). Those handlers do not run for
 * the signals blocked in every thread; should one run all the same (a thread the library
 * started with the signals unblocked), an exit() between begin and end is not ch-cc's own
 * ending, so what is registered is removed, as on a signal, instead of being marked as kept on
 * purpose. Calls nest; thread-safe. */
void ch_cleanup_foreign_begin(void);
void ch_cleanup_foreign_end(void);

/* Writes the marker that proves ch-cc made dir (a fresh directory of ch_make_temp_dir's): the
 * sweep removes no directory without it. 0, or -1 with errno set. */
int ch_cleanup_mark_made(const char *dir);

/* Removes the temp directories in dir whose process no longer exists and that were not kept on
 * purpose (--harness-keep): only directories named exactly as ch_make_temp_dir names them
 * (ch-cc-KIND-PID-XXXXXX, KIND one of ch-cc's own), owned by this user and holding the marker
 * ch_cleanup_mark_made wrote for them. Returns how many. */
int ch_cleanup_sweep(const char *dir);

#endif
