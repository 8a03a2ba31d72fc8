/* The child side of the sandbox. Everything here after fork must not allocate (the parent may
 * be multithreaded: another thread may hold malloc's lock), so paths are built on the stack and
 * the seccomp filter is compiled by the parent. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox_isolate.h"

#define NOBODY_ID 65534

/* Calls no program needs and a hostile one would use to leave the sandbox, look at other
 * processes or the kernel, or undo the mounts. */
static const char *const forbidden_calls[] = {"ptrace",
                                              "process_vm_readv",
                                              "process_vm_writev",
                                              "mount",
                                              "umount2",
                                              "pivot_root",
                                              "chroot",
                                              "unshare",
                                              "setns",
                                              "kexec_load",
                                              "kexec_file_load",
                                              "bpf",
                                              "perf_event_open",
                                              "init_module",
                                              "finit_module",
                                              "delete_module",
                                              "keyctl",
                                              "add_key",
                                              "request_key",
                                              "userfaultfd",
                                              "fsopen",
                                              "fsmount",
                                              "fsconfig",
                                              "move_mount",
                                              "open_tree",
                                              "fspick",
                                              "mount_setattr",
                                              "open_by_handle_at",
                                              "name_to_handle_at",
                                              "reboot",
                                              "swapon",
                                              "swapoff",
                                              "acct",
                                              "iopl",
                                              "ioperm",
                                              "syslog",
                                              "io_uring_setup",
                                              "io_uring_enter",
                                              "io_uring_register",
                                              "pidfd_getfd",
                                              "kcmp",
                                              "quotactl",
                                              "settimeofday",
                                              "clock_settime",
                                              "execveat",
                                              NULL};

/* fork, vfork and clone without CLONE_THREAD: CUDA's and OpenMP's threads stay allowed */
static int add_spawn_rules(scmp_filter_ctx ctx, const char *exec_path)
{
    int rc = 0;
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(fork), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(vfork), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                           SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    /* clone3 passes its flags in memory a filter cannot read; glibc falls back to clone */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* The one exec allowed is ours: the path pointer the child passes. After that exec the
     * address space is the program's, and a program that fork cannot copy has nothing to run
     * a second program in but itself; it would have to rebuild that exact pointer value. */
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execve), 1,
                           SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)(uintptr_t)exec_path));
    return rc;
}

/* A run with no GPU has no one to talk to: no socket of any family, nor a connect on a
 * descriptor it did not make. A GPU run keeps AF_UNIX (the CUDA driver talks to
 * nvidia-persistenced and MPS through them; the mounts hide every other socket's path, the
 * network namespace the abstract ones); no network, no netlink, no raw packets. */
static int add_socket_rules(scmp_filter_ctx ctx, int no_sockets)
{
    if (!no_sockets)
        return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                SCMP_A0(SCMP_CMP_NE, AF_UNIX));
    int rc = 0;
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socketpair), 0);
    rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(connect), 0);
    return rc;
}

static int add_rules(scmp_filter_ctx ctx, const iso_plan *p, const char *exec_path)
{
    int restrict_all = p->restrict_all;
    int rc = 0;
    for (size_t i = 0; forbidden_calls[i]; i++) {
        int nr = seccomp_syscall_resolve_name(forbidden_calls[i]);
        if (nr == __NR_SCMP_ERROR)
            continue; /* not on this kernel's table */
        if (!restrict_all && strcmp(forbidden_calls[i], "execveat") == 0)
            continue;
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
    }
    rc |= add_socket_rules(ctx, p->no_sockets);
    if (restrict_all)
        rc |= add_spawn_rules(ctx, exec_path);
    return rc;
}

int iso_plan_filter(iso_plan *p, const char *exec_path, ch_error *err)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return ch_error_set(err, "cannot build the seccomp filter");
    int rc = add_rules(ctx, p, exec_path);
    int fd = rc == 0 ? memfd_create("ch-cc-seccomp", MFD_CLOEXEC) : -1;
    if (fd >= 0 && seccomp_export_bpf(ctx, fd) == 0) {
        off_t size = lseek(fd, 0, SEEK_END);
        if (size > 0 && size % (off_t)sizeof(struct sock_filter) == 0 &&
            lseek(fd, 0, SEEK_SET) == 0) {
            struct sock_filter *code = malloc((size_t)size);
            if (code && read(fd, code, (size_t)size) == (ssize_t)size) {
                p->filter.filter = code;
                p->filter.len = (unsigned short)((size_t)size / sizeof *code);
            } else {
                free(code);
            }
        }
    }
    if (fd >= 0)
        close(fd);
    seccomp_release(ctx);
    if (p->filter.len == 0)
        return ch_error_set(err, "cannot build the seccomp filter");
    return 0;
}

void iso_plan_free(iso_plan *p)
{
    free(p->filter.filter);
    ch_strvec_free(&p->owned);
    p->filter.filter = NULL;
    p->filter.len = 0;
}

/* --- after fork: no allocation below --- */

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    close(fd);
    return w == (ssize_t)n ? 0 : -1;
}

/* "ID ID 1\n": the one id mapped to itself */
static void id_map_line(char *buf, size_t cap, unsigned id)
{
    char digits[16];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + id % 10);
        id /= 10;
    } while (id && n < sizeof digits);
    size_t k = 0;
    for (int twice = 0; twice < 2; twice++) {
        for (size_t i = n; i > 0 && k + 1 < cap; i--)
            buf[k++] = digits[i - 1];
        if (k + 1 < cap)
            buf[k++] = ' ';
    }
    const char *tail = "1\n";
    for (size_t i = 0; tail[i] && k + 1 < cap; i++)
        buf[k++] = tail[i];
    buf[k] = '\0';
}

static int enter_user_ns(uid_t uid, gid_t gid)
{
    if (unshare(CLONE_NEWUSER) != 0)
        return -1;
    char line[48];
    if (write_text("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
        return -1;
    id_map_line(line, sizeof line, (unsigned)uid);
    if (write_text("/proc/self/uid_map", line) != 0)
        return -1;
    id_map_line(line, sizeof line, (unsigned)gid);
    return write_text("/proc/self/gid_map", line);
}

/* mkdir -p for a mount point (the last component a file when as_file) */
static int make_mount_point(const char *path, int as_file)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, path, n + 1);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *s = '/';
    }
    if (!as_file)
        return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
    int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static void fd_path(char *buf, size_t cap, int fd)
{
    const char *head = "/proc/self/fd/";
    size_t k = 0;
    while (head[k] && k + 1 < cap) {
        buf[k] = head[k];
        k++;
    }
    char digits[12];
    size_t n = 0;
    unsigned v = (unsigned)fd;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof digits);
    while (n > 0 && k + 1 < cap)
        buf[k++] = digits[--n];
    buf[k] = '\0';
}

static int hide_path(const char *path, const char *mode)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* nothing there to hide */
    if (!S_ISDIR(st.st_mode))
        return -1;
    return mount("none", path, "tmpfs", MS_NOSUID | MS_NODEV, mode);
}

/* A bind mount made read only; a bind remount keeps the flags the kernel locked (nosuid,
 * nodev) */
static int remount_read_only(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) != 0)
        return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    if (sv.f_flag & ST_NOSUID)
        flags |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV)
        flags |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC)
        flags |= MS_NOEXEC;
    return mount(NULL, path, NULL, flags, NULL);
}

/* Binds every exposed path (opened before the hiding) back where it was when the hiding
 * covered it: the run directory (and the MPS pipe directory) writable, the rest read only. The
 * writable ones are bound even where nothing covered them, so that the read-only root below
 * leaves them writable. Returns the
 * CH_ISO_* steps that failed. */
static unsigned expose_again(const iso_plan *p, const int *fds)
{
    /* shorter paths first: a directory bound after one below it would cover that one */
    size_t order[ISO_MAX_PATHS];
    for (size_t k = 0; k < p->n_expose; k++) {
        size_t j = k;
        for (; j > 0 && strlen(p->expose[order[j - 1]]) > strlen(p->expose[k]); j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    unsigned failed = 0;
    for (size_t k = 0; k < p->n_expose; k++) {
        size_t i = order[k];
        struct stat before, now;
        if (fds[i] < 0 || fstat(fds[i], &before) != 0)
            continue;
        /* removed since it was opened (an orphan of a killed build, whose directory the next
         * build swept): made again here, where hiding failed, it would lack the marker that
         * lets a sweep remove it (ch_cleanup_mark_made) and stay for good */
        if (before.st_nlink == 0) {
            failed |= CH_ISO_HIDE;
            continue;
        }
        int covered = stat(p->expose[i], &now) != 0 || now.st_dev != before.st_dev ||
                      now.st_ino != before.st_ino;
        if (!covered && !p->expose_writable[i])
            continue;
        char src[64];
        fd_path(src, sizeof src, fds[i]);
        if (make_mount_point(p->expose[i], !S_ISDIR(before.st_mode)) != 0 ||
            mount(src, p->expose[i], NULL, MS_BIND | MS_REC, NULL) != 0)
            failed |= CH_ISO_HIDE;
        else if (!p->expose_writable[i] && remount_read_only(p->expose[i]) != 0)
            failed |= CH_ISO_READ_ONLY;
    }
    return failed;
}

static int root_read_only(void)
{
    return remount_read_only("/");
}

/* A /proc of the run's PID namespace over the host's: the program lists only its own processes
 * and cannot open another's /proc/PID/root. Mounted from inside that namespace (procfs shows
 * the namespace of the process that mounts it). */
static int own_proc(void)
{
    return mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static unsigned set_up_mounts(const iso_plan *p, int in_pid_ns)
{
    unsigned failed = 0;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return CH_ISO_HIDE | CH_ISO_READ_ONLY | CH_ISO_PID_NS; /* nor a /proc of its own */
    int fds[ISO_MAX_PATHS];
    for (size_t i = 0; i < p->n_expose; i++)
        fds[i] = open(p->expose[i], O_PATH | O_CLOEXEC);
    for (size_t i = 0; i < p->n_scratch; i++)
        if (hide_path(p->scratch[i], "mode=1777,size=64m") != 0)
            failed |= CH_ISO_HIDE;
    for (size_t i = 0; i < p->n_hide; i++)
        if (hide_path(p->hide[i], "mode=0755,size=1m") != 0)
            failed |= CH_ISO_HIDE;
    failed |= expose_again(p, fds);
    for (size_t i = 0; i < p->n_expose; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (in_pid_ns && own_proc() != 0)
        failed |= CH_ISO_PID_NS;
    if (root_read_only() != 0)
        failed |= CH_ISO_READ_ONLY;
    return failed;
}

/* Ends this process the way a child's wait status says the child ended: the same exit code, or
 * death by the same signal (without a core file). */
static void exit_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/* PID 1 of the run's namespace: reaps whatever ends in it until the program does, then hands
 * the program's wait status to the forwarder through fd. Its exit ends the namespace (the
 * kernel kills what is left). It dies with the forwarder. */
static void be_init(pid_t program, int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    int status = 0;
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w == program) {
            status = st;
            break;
        }
        if (w < 0 && errno != EINTR) {
            status = 127 << 8;
            break;
        }
    }
    if (write(fd, &status, sizeof status) != sizeof status)
        _exit(127);
    _exit(0);
}

/* The process ch_proc_run started, outside the namespace: waits for its init and ends as the
 * program did, so the caller sees the program's exit code or signal. */
static void forward(pid_t init, int fd)
{
    int status = 0, init_status = 0;
    ssize_t n;
    do
        n = read(fd, &status, sizeof status);
    while (n < 0 && errno == EINTR);
    while (waitpid(init, &init_status, 0) < 0 && errno == EINTR)
        ;
    /* no word from init: it was killed (the time limit's SIGKILL to the group); end as it did */
    exit_like(n == (ssize_t)sizeof status ? status : init_status);
}

/* The forwarder and the init run no program: without an exec, O_CLOEXEC closes nothing, and
 * they would hold, for as long as the program runs, every descriptor the parent had open when
 * ch_proc_run forked, those of its other threads included: a GPU or cache lock another thread
 * held then (flock lives as long as any copy of its descriptor), another run's output pipe (its
 * end of file never comes) or its gate. Each keeps only stdio and fd, moved to 3; returns 3.
 * Async-signal-safe: the parent may be multithreaded. */
static int keep_only(int fd)
{
    if (fd != 3) {
        if (dup2(fd, 3) < 0)
            return fd;
        close(fd);
    }
    if (close_range(4, ~0U, 0) != 0)
        for (int i = 4; i < 65536; i++)
            close(i);
    return 3;
}

/* Unshares a PID namespace and forks twice: this process stays outside as the forwarder, its
 * child is PID 1 (an init that reaps), and the grandchild returns 0 to run the program as PID 2
 * (a PID 1 would ignore the signals it sends itself, abort's SIGABRT among them). -1 when there
 * is no namespace; the program then runs here. */
static int enter_pid_ns(void)
{
    if (unshare(CLONE_NEWPID) != 0)
        return -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t init = fork();
    if (init < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (init > 0) {
        close(fds[1]);
        forward(init, keep_only(fds[0]));
    }
    close(fds[0]);
    pid_t program = fork();
    if (program < 0)
        _exit(127);
    if (program > 0)
        be_init(program, keep_only(fds[1]));
    close(fds[1]);
    return 0;
}

/* Whether the unprivileged user can reach path: every directory on the way searchable by
 * others (a 0700 directory the mounts did not replace would make the run fail); the path itself
 * is the run directory (given to that user), a program others may execute or a file (a library
 * a compiler links) others may read. */
int iso_others_can_reach(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf || path[0] != '/')
        return 0;
    memcpy(buf, path, n + 1);
    struct stat st;
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (stat(buf, &st) != 0 || !(st.st_mode & S_IXOTH))
            return 0;
        *s = '/';
    }
    return stat(buf, &st) == 0 && (S_ISDIR(st.st_mode) || (st.st_mode & (S_IXOTH | S_IROTH)));
}

static int drop_capabilities(void)
{
    for (int cap = 0; cap <= 63; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            return -1;
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    return (int)syscall(SYS_capset, &head, data);
}

/* Whether the unprivileged user can open the GPU: the driver's nodes are usually 0666, but a
 * host that limits them to a group would make every GPU run fail as nobody. */
static int others_can_use_gpu(void)
{
    static const char *const nodes[] = {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm", NULL};
    for (size_t i = 0; nodes[i]; i++) {
        struct stat st;
        if (stat(nodes[i], &st) == 0 && (st.st_mode & (S_IROTH | S_IWOTH)) != (S_IROTH | S_IWOTH))
            return 0;
    }
    return 1;
}

/* As root: become nobody when the run directory, every exposed path and the GPU stay
 * reachable. */
static unsigned leave_root(const iso_plan *p)
{
    if (!others_can_use_gpu())
        return CH_ISO_USER_ID;
    for (size_t i = 0; i < p->n_required; i++)
        if (!iso_others_can_reach(p->expose[i]))
            return CH_ISO_USER_ID;
    struct stat st;
    if (stat(p->dir, &st) != 0 || st.st_uid != NOBODY_ID)
        return CH_ISO_USER_ID;
    if (setgroups(0, NULL) != 0 || setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID) != 0 ||
        setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID) != 0)
        return CH_ISO_USER_ID;
    return 0;
}

int iso_child_setup(const void *plan)
{
    const iso_plan *p = plan;
    unsigned failed = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        failed |= CH_ISO_NO_NEW_PRIVS;
    int as_root = geteuid() == 0;
    if (!as_root && enter_user_ns(geteuid(), getegid()) != 0)
        failed |= CH_ISO_USER_NS;
    if (p->new_net && unshare(CLONE_NEWNET) != 0)
        failed |= CH_ISO_NET_NS;
    if (p->new_ipc && unshare(CLONE_NEWIPC) != 0)
        failed |= CH_ISO_IPC_NS;
    int mount_ns = unshare(CLONE_NEWNS) == 0;
    int in_pid_ns = enter_pid_ns() == 0;
    if (!in_pid_ns)
        failed |= CH_ISO_PID_NS;
    if (!mount_ns)
        failed |= CH_ISO_MOUNT_NS | CH_ISO_HIDE | CH_ISO_READ_ONLY | CH_ISO_PID_NS;
    else
        failed |= set_up_mounts(p, in_pid_ns);
    if (as_root)
        failed |= leave_root(p);
    if (chdir(p->dir) != 0)
        return -1;
    /* a user namespace's capabilities die with exec anyway; root's would come back */
    if (drop_capabilities() != 0 && as_root && (failed & CH_ISO_USER_ID))
        failed |= CH_ISO_CAPS;
    if (p->filter.len == 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->filter, 0, 0) != 0)
        failed |= CH_ISO_SECCOMP;
    return (int)failed;
}
