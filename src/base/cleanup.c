/* Removing temporary files and directories when a build is interrupted (ch/cleanup.h).
 *
 * Interrupts are taken by one thread, synchronously, and never by a signal handler of whoever
 * set one last. ch_cleanup_install blocks SIGINT, SIGTERM and SIGHUP in the calling thread
 * before ch-cc starts any other (threads inherit the mask), and starts a thread that waits for
 * them with sigwait(), cleans up and makes the process die of the same signal. A signal that
 * every thread blocks is never delivered to a handler, so a library's handlers cannot decide
 * how a build ends: NVRTC's front end puts its own in place while it compiles (they exit(4)),
 * and with a process-wide handler of ours a SIGINT in that window ended the build with status
 * 4 instead of dying of the signal (issue 15). The other ways fail: blocking the signals only
 * around the foreign call covers the calling thread alone (another thread's mask cannot be
 * changed from outside, and the kernel gives a process's signal to any thread that does not
 * block it); and the exit from inside the foreign handler cannot tell which signal caused it.
 * NVRTC offers no option or environment variable that leaves the handlers alone (none in
 * libnvrtc 13.0). Children get the mask back before their exec (ch_cleanup_unblock), so that a
 * compiler ch-cc runs can be interrupted.
 *
 * on_signal stays installed as the handler, for a thread that has the signals unblocked all the
 * same (one a library starts with a mask of its own) and for a forked child between unblocking
 * them and its exec. So the cleanup still uses system calls only (kill, openat, getdents64,
 * unlinkat), which are async-signal-safe: an interrupted thread may hold malloc's lock or be
 * inside stdio. The registry is fixed-size static memory written before it is published (the
 * count is the last thing stored), so the cleanup reads it without locks or allocation, while
 * the other threads go on registering. */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

#define MAX_PATHS    512
#define MAX_PATH_LEN 1024
#define MAX_CHILDREN 256
#define KEPT_MARK    ".ch-cc-kept"
/* written by ch_cleanup_mark_made into each directory ch-cc makes: what the sweep requires */
#define MADE_MARK ".ch-cc-made"

/* A slot is free when path[0] is NUL; is_dir says how to remove it. */
static struct {
    char path[MAX_PATH_LEN];
    int is_dir;
} paths[MAX_PATHS];
static atomic_int n_paths;
static struct {
    atomic_int pid; /* 0: free */
    int group;
} children[MAX_CHILDREN];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int installed;
static pid_t owner; /* the process that installed the handlers (a forked child is not it) */
/* calls into libraries whose own signal handlers are in place (ch_cleanup_foreign_begin) */
static atomic_int foreign;
/* the signals the cleanup thread waits for, and those of them that install blocked (the
 * caller had them unblocked): what a child unblocks before its exec */
static sigset_t interrupts, blocked_by_us;
/* the signal the process is dying of, once the cleanup for it has begun; 0 before */
static atomic_int dying;
/* TMPDIR as it was (where ch-cc's own directories go), and the private directory that TMPDIR
 * names for the children from then on: nvcc's tmpxft_* files die with it */
static char *temp_base, *child_tmp;

static void register_path(const char *path, int is_dir)
{
    if (strlen(path) >= MAX_PATH_LEN)
        return; /* not removable on a signal; the sweep of the next run still is */
    pthread_mutex_lock(&reg_lock);
    int n = atomic_load(&n_paths), slot = -1;
    for (int i = 0; i < n && slot < 0; i++)
        if (access(paths[i].path, F_OK) != 0)
            slot = i; /* removed since: reuse the slot */
    if (slot < 0 && n < MAX_PATHS)
        slot = n;
    if (slot >= 0) {
        /* a slot the handler may be reading: blank it first so it never sees half a path */
        paths[slot].path[0] = '\0';
        paths[slot].is_dir = is_dir;
        memcpy(paths[slot].path + 1, path + 1, strlen(path));
        atomic_thread_fence(memory_order_release);
        paths[slot].path[0] = path[0];
        if (slot == n)
            atomic_store(&n_paths, n + 1);
    }
    pthread_mutex_unlock(&reg_lock);
}

void ch_cleanup_register_dir(const char *path)
{
    register_path(path, 1);
}

void ch_cleanup_register_file(const char *path)
{
    register_path(path, 0);
}

void ch_cleanup_child_started(pid_t pid, int group)
{
    for (int i = 0; i < MAX_CHILDREN; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&children[i].pid, &free_slot, -1)) {
            children[i].group = group;
            atomic_store(&children[i].pid, (int)pid);
            return;
        }
    }
}

void ch_cleanup_child_ended(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++) {
        int p = (int)pid;
        if (atomic_compare_exchange_strong(&children[i].pid, &p, 0))
            return;
    }
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* rm -rf of name under the directory fd at, with system calls only (async-signal-safe). */
static void remove_at(int at, const char *name, int depth)
{
    if (unlinkat(at, name, 0) == 0 || errno == ENOENT || depth > 64)
        return;
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    long n;
    /* entries are removed while reading: read from the start again until the directory is empty */
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        int removed = 0;
        for (long off = 0; off < n;) {
            struct linux_dirent64 *de = (struct linux_dirent64 *)(buf + off);
            off += de->d_reclen;
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            remove_at(fd, de->d_name, depth + 1);
            removed = 1;
        }
        if (!removed)
            break;
        lseek(fd, 0, SEEK_SET);
    }
    close(fd);
    unlinkat(at, name, AT_REMOVEDIR);
}

static void kill_children(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++) {
        int pid = atomic_load(&children[i].pid);
        if (pid > 0)
            kill(children[i].group ? -pid : pid, SIGKILL);
    }
}

static void remove_registered(void)
{
    int n = atomic_load(&n_paths);
    for (int i = 0; i < n; i++)
        if (paths[i].path[0])
            remove_at(AT_FDCWD, paths[i].path, 0);
}

/* Kills the children and removes what is registered (async-signal-safe). */
static void clean_up(void)
{
    kill_children();
    /* a compiler killed mid-write may still be flushing: remove twice, a moment apart */
    remove_registered();
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    remove_registered();
}

/* Ends the process by sig itself, so that make and shells see an interrupted compiler
 * (async-signal-safe). A foreign library may put its handler back between the sigaction and
 * the raise; if that handler exits, at_exit still ends the process by sig. */
static void die_of(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    for (int tries = 0; tries < 3; tries++) {
        sigaction(sig, &dfl, NULL);
        pthread_sigmask(SIG_UNBLOCK, &one, NULL);
        raise(sig);
    }
    _exit(128 + sig); /* a handler that returned took it three times: the shell's status */
}

/* Cleans up for sig, once (a second signal during the cleanup ends the process at once), and
 * dies of it: in the signal thread, or as the handler. Between fork and exec a child runs this
 * too: the parent's files are not its own. */
static void on_signal(int sig)
{
    int none = 0;
    if (getpid() == owner && atomic_compare_exchange_strong(&dying, &none, sig))
        clean_up();
    die_of(sig);
}

static void *signal_thread(void *arg)
{
    for (;;) {
        int sig;
        if (sigwait(&interrupts, &sig) == 0)
            on_signal(sig);
    }
    return arg;
}

/* Blocks the interrupts in this thread, and so in every thread started from here on, and
 * starts the thread that takes them; without that thread they stay unblocked (on_signal). */
static void start_signal_thread(void)
{
    if (sigisemptyset(&interrupts))
        return;
    sigset_t before;
    pthread_sigmask(SIG_BLOCK, &interrupts, &before);
    for (int sig = 1; sig < NSIG; sig++)
        if (sigismember(&interrupts, sig) == 1 && sigismember(&before, sig) == 0)
            sigaddset(&blocked_by_us, sig);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t tid;
    if (pthread_create(&tid, &attr, signal_thread, NULL) != 0) {
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        sigemptyset(&blocked_by_us);
    }
    pthread_attr_destroy(&attr);
}

void ch_cleanup_unblock(void)
{
    pthread_sigmask(SIG_UNBLOCK, &blocked_by_us, NULL);
}

/* At a normal exit, what is still registered and present was kept on purpose (--harness-keep
 * prints the directory for the user to read): marked, so that no sweep takes it. An exit from
 * inside a foreign library's signal handler is no normal exit: that is cleaned as a signal
 * would be. Nor is an exit while the process is dying of a signal (a foreign handler that took
 * die_of's raise, or another thread that finished meanwhile): it still dies of the signal. */
static void at_exit(void)
{
    if (child_tmp && getpid() == owner)
        remove_at(AT_FDCWD, child_tmp, 0);
    if (getpid() == owner) {
        int sig = atomic_load(&dying);
        if (sig) {
            clean_up();
            die_of(sig);
        }
        if (atomic_load(&foreign) > 0) {
            clean_up();
            return;
        }
    }
    int n = atomic_load(&n_paths);
    for (int i = 0; i < n; i++) {
        if (!paths[i].path[0] || !paths[i].is_dir || !ch_is_dir(paths[i].path))
            continue;
        char *mark = ch_path_join(paths[i].path, KEPT_MARK);
        int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0)
            close(fd);
        free(mark);
    }
}

/* The kinds of directory ch-cc makes in TMPDIR (the prefixes its ch_make_temp_dir callers
 * pass): the sweep takes no other name, so a user's own ch-cc-NAME-NUMBER-WORD is never a
 * leftover (attacks9 #34). A kind missing here only leaves its directories to a SIGKILLed run. */
static const char *const own_kinds[] = {"cand",   "expand", "link",    "obj", "ref",
                                        "sample", "scan",   "specref", "tmp"};
/* the kernel's largest pid (PID_MAX_LIMIT on 64-bit) */
#define PID_LIMIT 4194304L

/* The pid in a name of ch_make_temp_dir's exact shape, "ch-cc-KIND-PID-XXXXXX" with KIND one of
 * own_kinds and XXXXXX mkdtemp's six letters and digits, or 0. */
static pid_t pid_of_name(const char *name)
{
    if (strncmp(name, "ch-cc-", 6) != 0)
        return 0;
    const char *kind = name + 6, *dash = strchr(kind, '-');
    int known = 0;
    for (size_t i = 0; dash && i < sizeof own_kinds / sizeof own_kinds[0]; i++)
        known |= strlen(own_kinds[i]) == (size_t)(dash - kind) &&
                 strncmp(own_kinds[i], kind, (size_t)(dash - kind)) == 0;
    if (!known || dash[1] < '1' || dash[1] > '9')
        return 0;
    char *end;
    long pid = strtol(dash + 1, &end, 10);
    if (pid > PID_LIMIT || *end != '-' || strlen(end + 1) != 6)
        return 0;
    for (const char *c = end + 1; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
            return 0;
    return (pid_t)pid;
}

int ch_cleanup_mark_made(const char *dir)
{
    char *mark = ch_path_join(dir, MADE_MARK);
    char *text = ch_xasprintf("%s\n", ch_path_base(dir));
    int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    ssize_t len = (ssize_t)strlen(text);
    int rc = fd >= 0 && write(fd, text, (size_t)len) == len ? 0 : -1;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = -1, saved = errno;
    free(text);
    free(mark);
    errno = saved;
    return rc;
}

/* Whether the directory name under at holds the marker ch_cleanup_mark_made wrote for it: a
 * regular file (no link; a FIFO a candidate made there must not hang the sweep) whose text is
 * the directory's own name. */
static int made_by_ch_cc(int at, const char *name)
{
    int dfd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dfd < 0 ? -1 : openat(dfd, MADE_MARK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char buf[MAX_PATH_LEN];
    ssize_t n =
        fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (dfd >= 0)
        close(dfd);
    size_t len = strlen(name);
    return n == (ssize_t)len + 1 && memcmp(buf, name, len) == 0 && buf[len] == '\n';
}

/* Whether this process may sweep what st describes: its own, or, as root, what the sandbox gave
 * to nobody (a candidate's run directory, chowned to uid 65534 so that the program runs
 * unprivileged: src/verify/sandbox.c); a killed root build left those behind for good. */
static int sweepable_owner(const struct stat *st)
{
    return st->st_uid == getuid() || (getuid() == 0 && st->st_uid == 65534);
}

int ch_cleanup_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        pid_t pid = pid_of_name(de->d_name);
        struct stat st;
        if (pid <= 0 || pid == getpid() ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !sweepable_owner(&st) ||
            (kill(pid, 0) != 0 ? errno != ESRCH : 1))
            continue;
        char *path = ch_path_join(dir, de->d_name);
        char *mark = ch_path_join(path, KEPT_MARK);
        /* only a directory that proves ch-cc made it: never a file or a user's directory */
        if (S_ISDIR(st.st_mode) && made_by_ch_cc(dirfd(d), de->d_name) && !ch_file_exists(mark)) {
            remove_at(dirfd(d), de->d_name, 0);
            removed++;
        }
        free(mark);
        free(path);
    }
    closedir(d);
    return removed;
}

void ch_cleanup_foreign_begin(void)
{
    atomic_fetch_add(&foreign, 1);
}

void ch_cleanup_foreign_end(void)
{
    int was = atomic_fetch_sub(&foreign, 1);
    assert(was > 0); /* every end has its begin */
    (void)was;
}

void ch_cleanup_install(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1))
        return;
    owner = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigemptyset(&interrupts);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal the caller ignores (nohup, a background job's SIGINT) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
        sigaddset(&interrupts, sigs[i]);
    }
    start_signal_thread();
    /* absolute: "." (no usable temp directory) must not move with a chdir */
    const char *tmp = ch_temp_dir();
    temp_base = tmp[0] == '/' ? NULL : realpath(tmp, NULL);
    if (!temp_base)
        temp_base = ch_xstrdup(tmp);
    ch_cleanup_sweep(temp_base);
    ch_error err;
    child_tmp = ch_make_temp_dir("tmp", &err);
    if (child_tmp)
        setenv("TMPDIR", child_tmp, 1);
    atexit(at_exit);
}

const char *ch_cleanup_temp_base(void)
{
    return temp_base;
}
