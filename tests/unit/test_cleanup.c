/* The cleanup module at an exit: a normal exit keeps what is still registered (marked, so that no
 * sweep takes it), an exit from inside a foreign library's signal handler (NVRTC's front end
 * exits with status 4 on SIGINT) removes it as a signal would. A signal while such a library's
 * handler is in place ends the process by that signal, not by the library's exit, and the
 * programs ch-cc starts get the signal mask it was given, not the one its threads keep. Each
 * case runs in a child process, since the module's handlers and registrations are the
 * process's. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/strbuf.h"

/* Forks with a pipe from the child to the parent in fds: fds[1] the child's end, fds[0] the
 * parent's (each has closed the other's). Returns what fork returned. */
static pid_t fork_piped(int fds[2])
{
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    close(fds[pid == 0 ? 0 : 1]);
    return pid;
}

/* Forks a child with TMPDIR = base that installs the handlers (SIGINT and SIGTERM not ignored,
 * as in a build started from a terminal) and makes (and so registers) a temp directory: the
 * child gets 0 and the directory in *dir, the parent the child's pid. fds becomes a pipe from
 * the child to the parent (each has closed the other's end). */
static pid_t fork_installed(const char *base, int fds[2], char **dir)
{
    pid_t pid = fork_piped(fds);
    if (pid > 0)
        return pid;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setenv("TMPDIR", base, 1);
    ch_cleanup_install();
    ch_error err;
    *dir = ch_make_temp_dir("t", &err);
    if (!*dir)
        _exit(90);
    return 0;
}

/* Writes "dir\n" to fd (in the child). */
static void send_dir(int fd, const char *dir)
{
    char *line = ch_xasprintf("%s\n", dir);
    if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
        _exit(91);
    free(line);
}

/* Reads the line send_dir wrote (the parent closes fd); NULL when the child wrote none. */
static char *receive_dir(int fd)
{
    char buf[1024] = {0};
    size_t n = 0;
    while (n < sizeof buf - 1 && (n == 0 || buf[n - 1] != '\n') && read(fd, buf + n, 1) == 1)
        n++;
    close(fd);
    if (n == 0 || buf[n - 1] != '\n')
        return NULL;
    buf[n - 1] = '\0';
    return ch_xstrdup(buf);
}

/* A child that makes a temp directory, tells its path and exits with 4, inside a foreign call
 * or not. Returns the directory's path (caller frees) and the child's exit status in *status. */
static char *child_dir(const char *base, int in_foreign, int *status)
{
    int fds[2];
    char *dir;
    pid_t pid = fork_installed(base, fds, &dir);
    if (pid == 0) {
        send_dir(fds[1], dir);
        close(fds[1]);
        free(dir);
        if (in_foreign)
            ch_cleanup_foreign_begin();
        exit(4); /* as NVRTC's handler does; atexit handlers run */
    }
    char *got = receive_dir(fds[0]);
    cr_assert(waitpid(pid, status, 0) == pid);
    cr_assert_not_null(got, "the child made no directory (status %d)", *status);
    return got;
}

Test(cleanup, an_exit_inside_a_foreign_call_removes_what_is_registered)
{
    ch_error err;
    char *base = ch_make_temp_dir("cleanup-test", &err);
    cr_assert_not_null(base, "%s", err.msg);
    int status = 0;

    /* ch-cc's own exit: the directory stays, marked as kept on purpose */
    char *kept = child_dir(base, 0, &status);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    char *mark = ch_path_join(kept, ".ch-cc-kept");
    cr_expect(ch_file_exists(mark), "a normal exit marks %s as kept", kept);

    /* an exit from inside NVRTC's handler: removed, as on a signal */
    char *gone = child_dir(base, 1, &status);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 4);
    cr_expect_not(ch_is_dir(gone), "%s outlived an exit inside a foreign call", gone);

    ch_remove_tree(base, &err);
    free(mark);
    free(kept);
    free(gone);
    free(base);
}

/* What NVRTC's front end does with a SIGINT that reaches its handler. */
static void foreign_handler(int sig)
{
    (void)sig;
    exit(4);
}

/* The foreign call: puts its handlers in place, tells the parent (through the fd in arg) the
 * temp directory's path, and runs for up to 10 s, as a long compile would. */
static char *foreign_dir;
static void *foreign_call(void *arg)
{
    ch_cleanup_foreign_begin();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = foreign_handler;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    send_dir(*(int *)arg, foreign_dir);
    for (int i = 0; i < 1000; i++)
        usleep(10000);
    ch_cleanup_foreign_end();
    return NULL;
}

/* A child that makes a temp directory and the foreign call in a thread while the main thread
 * waits beside it (as it waits for nvcc); sig is sent once the call is under way. Returns the
 * directory's path (caller frees) and the child's wait status in *status. */
static char *child_in_foreign_call(const char *base, int sig, int *status)
{
    int fds[2];
    pid_t pid = fork_installed(base, fds, &foreign_dir);
    if (pid == 0) {
        pthread_t tid;
        if (pthread_create(&tid, NULL, foreign_call, &fds[1]) != 0)
            _exit(92);
        for (int i = 0; i < 1000; i++)
            usleep(10000);
        _exit(93); /* the signal did not end it */
    }
    char *got = receive_dir(fds[0]);
    if (got)
        kill(pid, sig);
    cr_assert(waitpid(pid, status, 0) == pid);
    cr_assert_not_null(got, "the child never got into the foreign call (status %d)", *status);
    return got;
}

Test(cleanup, a_signal_inside_a_foreign_call_ends_the_process_by_that_signal)
{
    /* not made by ch_make_temp_dir: the children would inherit it registered and remove it */
    const char *tmp = getenv("TMPDIR");
    char *base = ch_xasprintf("%s/cleanup-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(base));
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        int status = 0;
        char *dir = child_in_foreign_call(base, sigs[i], &status);
        cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
                  "signal %d: the child must die of it, not exit (%s %d)", sigs[i],
                  WIFSIGNALED(status) ? "signal" : "exit status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        cr_expect_not(ch_is_dir(dir), "signal %d: %s outlived it", sigs[i], dir);
        free(dir);
    }
    ch_error err;
    ch_remove_tree(base, &err);
    free(base);
}

/* The blocked signals of this thread, in hex, as /proc/self/status's SigBlk shows them. */
static void blocked_mask(char out[64])
{
    strcpy(out, "?");
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "SigBlk: %63s", out) == 1)
            break;
    fclose(f);
}

static char *const show_mask[] = {"sh", "-c", "grep SigBlk /proc/self/status | cut -f2", NULL};

/* In a child: the mask before ch_cleanup_install, whether install blocked SIGINT in this
 * thread, and what a program started by ch_proc_capture and one exec'd in place by
 * ch_proc_exec (in a grandchild) were given, each on a line. */
static void masks_around_install(char *out, size_t size)
{
    int fds[2];
    pid_t pid = fork_piped(fds);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        char before[64];
        blocked_mask(before);
        ch_cleanup_install();
        sigset_t now;
        pthread_sigmask(SIG_SETMASK, NULL, &now);
        ch_strbuf spawned;
        ch_strbuf_init(&spawned);
        ch_error err;
        if (ch_proc_capture(show_mask, &spawned, &err) != 0)
            _exit(90);
        char *text = ch_xasprintf("%s\n%d\n%s", before, sigismember(&now, SIGINT), spawned.data);
        if (write(fds[1], text, strlen(text)) != (ssize_t)strlen(text))
            _exit(91);
        fflush(NULL);
        pid_t exec_child = fork();
        if (exec_child == 0) {
            dup2(fds[1], 1);
            ch_proc_exec(show_mask, &err);
            _exit(92);
        }
        int st;
        waitpid(exec_child, &st, 0);
        _exit(0);
    }
    size_t n = 0;
    ssize_t got;
    while (n < size - 1 && (got = read(fds[0], out + n, size - 1 - n)) > 0)
        n += (size_t)got;
    out[n] = '\0';
    close(fds[0]);
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (%d)", status);
}

Test(cleanup, a_program_started_after_install_gets_the_mask_ch_cc_was_given)
{
    char out[1024];
    masks_around_install(out, sizeof out);
    char before[64], spawned[64], in_place[64];
    int blocked = -1;
    cr_assert_eq(sscanf(out, "%63s %d %63s %63s", before, &blocked, spawned, in_place), 4,
                 "unexpected output: %s", out);
    cr_expect_eq(blocked, 1, "install blocks SIGINT in the installing thread");
    cr_expect_str_eq(spawned, before, "ch_proc_run's child gets the mask back");
    cr_expect_str_eq(in_place, before, "ch_proc_exec's program gets the mask back");
}

/* attacks6 #24: a TMPDIR that is missing, a file or not writable is passed over as gcc does
 * (TMP, TEMP, P_tmpdir, /var/tmp, /usr/tmp, /tmp), never a failed build. */
Test(cleanup, an_unusable_tmpdir_is_passed_over_as_gcc_does)
{
    ch_error err;
    char *base = ch_make_temp_dir("tmpdir-test", &err);
    cr_assert(base, "%s", err.msg);
    char *file = ch_path_join(base, "a-file");
    cr_assert_eq(ch_write_file_atomic(file, "x", 1, 0, &err), 0, "%s", err.msg);
    char *missing = ch_path_join(base, "missing");
    unsetenv("TMP");
    unsetenv("TEMP");
    const char *const bad[] = {missing, file, ""};
    for (size_t i = 0; i < 3; i++) {
        setenv("TMPDIR", bad[i], 1);
        const char *t = ch_temp_dir();
        cr_assert_str_neq(t, bad[i]);
        cr_assert(ch_is_dir(t), "'%s' chosen for TMPDIR '%s'", t, bad[i]);
    }
    setenv("TMP", base, 1);
    cr_assert_str_eq(ch_temp_dir(), base, "TMP is next");
    setenv("TMPDIR", base, 1);
    unsetenv("TMP");
    cr_assert_str_eq(ch_temp_dir(), base, "a usable TMPDIR is taken");
    /* a child that installs the handlers with TMPDIR missing still makes its directories */
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        setenv("TMPDIR", missing, 1);
        ch_cleanup_install();
        char *d = ch_make_temp_dir("child", &err);
        _exit(d && ch_is_dir(d) && strncmp(d, missing, strlen(missing)) != 0 ? 0 : 1);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child could not make a temp dir");
    cr_assert_eq(ch_remove_tree(base, &err), 0);
    free(missing);
    free(file);
    free(base);
}

/* A directory that a run which then died (SIGKILL: no cleanup, no kept mark) made in base with
 * ch_make_temp_dir(kind): its path (caller frees). The child's pid is gone once this returns. */
static char *dead_run_dir(const char *base, const char *kind)
{
    int fds[2];
    pid_t pid = fork_piped(fds);
    if (pid == 0) {
        setenv("TMPDIR", base, 1);
        ch_error err;
        char *dir = ch_make_temp_dir(kind, &err);
        if (!dir)
            _exit(90);
        send_dir(fds[1], dir);
        _exit(0);
    }
    char *got = receive_dir(fds[0]);
    int status;
    cr_assert(waitpid(pid, &status, 0) == pid);
    cr_assert_not_null(got, "the child made no directory (status %d)", status);
    return got;
}

static void make_entry(const char *base, const char *name, const char *file, const char *text)
{
    char *path = ch_path_join(base, name);
    ch_error err;
    if (file) {
        cr_assert_eq(ch_mkdir_p(path, &err), 0, "%s", err.msg);
        char *f = ch_path_join(path, file);
        cr_assert_eq(ch_write_file_atomic(f, text, strlen(text), 0, &err), 0, "%s", err.msg);
        free(f);
    } else {
        cr_assert_eq(ch_write_file_atomic(path, text, strlen(text), 0, &err), 0, "%s", err.msg);
    }
    free(path);
}

static int entry_exists(const char *base, const char *name)
{
    char *path = ch_path_join(base, name);
    int there = ch_file_exists(path);
    free(path);
    return there;
}

/* attacks9 #34: the sweep removed a user's $TMPDIR/ch-cc-bench-20261207-run1/ and
 * ch-cc-notes-4000000-draft (read as pids of dead processes). It removes only a directory of
 * ch_make_temp_dir's exact name shape and kind that holds the marker written for it. */
Test(cleanup, the_sweep_removes_only_what_ch_cc_made)
{
    const char *tmp = getenv("TMPDIR");
    char *base = ch_xasprintf("%s/sweep-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(base));
    char *leftover = dead_run_dir(base, "cand");
    char *kept = dead_run_dir(base, "obj");
    char *kept_mark = ch_path_join(kept, ".ch-cc-kept");
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(kept_mark, "", 0, 0, &err), 0, "%s", err.msg);
    /* a pid that is gone: the child above */
    const char *name = ch_path_base(leftover);
    long dead = strtol(name + strlen("ch-cc-cand-"), NULL, 10);
    cr_assert_gt(dead, 0, "%s", name);
    char *no_mark = ch_xasprintf("ch-cc-cand-%ld-AbC123", dead);
    char *wrong_mark = ch_xasprintf("ch-cc-ref-%ld-Zz9Zz9", dead);
    char *user_kind = ch_xasprintf("ch-cc-bench-%ld-AbC123", dead);
    char *short_suffix = ch_xasprintf("ch-cc-cand-%ld-gone1", dead);
    make_entry(base, "ch-cc-bench-20261207-run1", "results.csv", "precious\n");
    make_entry(base, "ch-cc-notes-4000000-draft", NULL, "notes\n");
    make_entry(base, no_mark, "data", "x\n");
    make_entry(base, wrong_mark, ".ch-cc-made", "ch-cc-ref-1-aaaaaa\n");
    make_entry(base, short_suffix, ".ch-cc-made", "ch-cc-cand-1-aaaaaa\n");
    char *user_mark = ch_xasprintf("%s\n", user_kind);
    make_entry(base, user_kind, ".ch-cc-made", user_mark);

    cr_expect_eq(ch_cleanup_sweep(base), 1, "one directory is a dead run's leftover");
    cr_expect_not(ch_is_dir(leftover), "the dead run's %s is swept", leftover);
    cr_expect(ch_is_dir(kept), "a directory kept on purpose stays");
    cr_expect(entry_exists(base, "ch-cc-bench-20261207-run1/results.csv"), "the user's directory");
    cr_expect(entry_exists(base, "ch-cc-notes-4000000-draft"), "the user's file");
    cr_expect(entry_exists(base, no_mark), "a directory without the marker: %s", no_mark);
    cr_expect(entry_exists(base, wrong_mark), "a marker written for another directory");
    cr_expect(entry_exists(base, short_suffix), "a suffix mkdtemp does not make");
    cr_expect(entry_exists(base, user_kind), "a kind ch-cc does not make");

    cr_assert_eq(ch_remove_tree(base, &err), 0);
    free(user_mark);
    free(short_suffix);
    free(user_kind);
    free(wrong_mark);
    free(no_mark);
    free(kept_mark);
    free(kept);
    free(leftover);
    free(base);
}
