/* Child processes for every stage (compilers, verification programs, the sandbox).
 *
 * The child is forked, optionally put in its own process group (so a timeout can kill
 * everything it started), given resource limits and, when asked and allowed, a fresh network
 * namespace; the parent drains captured pipes with poll() so neither side blocks on a full pipe. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/proc.h"

extern char **environ;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ch_proc_result_init(ch_proc_result *r)
{
    memset(r, 0, sizeof *r);
    ch_strbuf_init(&r->out);
    ch_strbuf_init(&r->err);
}

void ch_proc_result_free(ch_proc_result *r)
{
    ch_strbuf_free(&r->out);
    ch_strbuf_free(&r->err);
}

static void set_limit(int resource, long value)
{
    if (value <= 0)
        return;
    struct rlimit rl = {(rlim_t)value, (rlim_t)value};
    setrlimit(resource, &rl);
}

/* Runs in the child after fork: never returns. Reports exec failure through errpipe. */
static void child_exec(char *const *argv, const ch_proc_opts *o, int in_r, int out_w, int err_w,
                       int errpipe_w, pid_t parent)
{
    /* Nothing a build starts outlives it: a ch-cc killed with SIGKILL cannot run its cleanup,
     * and a child left running (a program past its time limit, which only the parent enforces)
     * would hold its output pipes and directories for as long as it runs. The thread that
     * forked waits for this child in ch_proc_run, so the signal comes only when ch-cc is gone.
     * A parent that died before the prctl is caught by the getppid test. */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    /* the interrupts ch-cc's threads block (ch/cleanup.h) are the program's to take, and the
     * sandbox's processes that never exec (src/verify/sandbox_isolate.c) die of them too */
    ch_cleanup_unblock();
    if (getppid() != parent)
        _exit(127);
    if (o->new_process_group || o->wall_seconds > 0)
        setpgid(0, 0);
    if (o->new_network_ns && unshare(CLONE_NEWNET) == 0) {
        /* Tell the parent through the exit path would be racy; the marker byte is enough. */
        char yes = 'N';
        if (write(errpipe_w, &yes, 1) < 0) {
        }
    }
    if (in_r >= 0) {
        dup2(in_r, 0);
    } else if (o->stdin_path) {
        int fd = open(o->stdin_path, O_RDONLY);
        if (fd >= 0) {
            dup2(fd, 0);
            close(fd);
        }
    }
    if (o->stdout_path) {
        int fd = open(o->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            close(fd);
        }
    } else if (out_w >= 0) {
        dup2(out_w, 1);
    }
    if (err_w >= 0)
        dup2(err_w, 2);
    else if (o->merge_stderr && out_w >= 0)
        dup2(out_w, 2);
    if (o->cwd && chdir(o->cwd) != 0) {
        int e = errno;
        char tag = 'E';
        if (write(errpipe_w, &tag, 1) < 0 || write(errpipe_w, &e, sizeof e) < 0) {
        }
        _exit(127);
    }
    set_limit(RLIMIT_CPU, o->cpu_seconds);
    set_limit(RLIMIT_FSIZE, o->file_size_bytes);
    set_limit(RLIMIT_NOFILE, o->open_files);
    set_limit(RLIMIT_AS, o->address_space_bytes);
    set_limit(RLIMIT_NPROC, o->process_count);
    signal(SIGPIPE, SIG_DFL);
    if (o->child_setup) {
        int failed = o->child_setup(o->child_ctx);
        char tag = failed < 0 ? 'E' : 'I';
        int value = failed < 0 ? EPERM : failed;
        if (write(errpipe_w, &tag, 1) < 0 || write(errpipe_w, &value, sizeof value) < 0) {
        }
        if (failed < 0)
            _exit(127);
    }
    if (o->envp)
        execvpe(argv[0], argv, o->envp);
    else
        execvp(argv[0], argv);
    int e = errno;
    char tag = 'E';
    if (write(errpipe_w, &tag, 1) < 0 || write(errpipe_w, &e, sizeof e) < 0) {
    }
    _exit(127);
}

static void drain(int *fd, ch_strbuf *sb, size_t limit)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0) {
        size_t room = sb->len < limit ? limit - sb->len : 0;
        ch_strbuf_add(sb, buf, (size_t)n < room ? (size_t)n : room);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(*fd);
        *fd = -1;
    }
}

/* Sends what is left of data to the child's stdin without blocking; closes it once all is sent
 * or the child stopped reading (MSG_NOSIGNAL: a child gone early is no SIGPIPE here). */
static void feed(int *fd, const char *data, size_t len, size_t *sent)
{
    if (*sent < len) {
        ssize_t n = send(*fd, data + *sent, len - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0)
            *sent += (size_t)n;
        else if (n < 0 && errno != EINTR && errno != EAGAIN)
            *sent = len;
    }
    if (*sent >= len) {
        close(*fd);
        *fd = -1;
    }
}

/* Whether out holds line at the start of one of its lines. */
static int has_line(const ch_strbuf *out, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = out->data; p && (size_t)(p - out->data) + n <= out->len;) {
        if (strncmp(p, line, n) == 0)
            return 1;
        p = memchr(p, '\n', out->len - (size_t)(p - out->data));
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* Opens o's gate once stdout shows its line: the caller's gate (its wait is returned, to be
 * left out of the time limit), then the byte the child waits for and the gate's reply. A child
 * that has already gone makes send fail, which is fine: MSG_NOSIGNAL keeps SIGPIPE off. */
static double open_gate(const ch_proc_opts *o, int *in_w, ch_proc_result *res)
{
    if (*in_w < 0 || !has_line(&res->out, o->gate_line))
        return 0;
    double t0 = now_seconds();
    o->gate(o->gate_ctx);
    res->gate_opened = 1;
    double waited = now_seconds() - t0;
    char go = 'g';
    if (send(*in_w, &go, 1, MSG_NOSIGNAL) < 0) {
    }
    /* a few bytes: a socket buffer takes them whole */
    if (o->gate_reply && *o->gate_reply &&
        send(*in_w, o->gate_reply, strlen(o->gate_reply), MSG_NOSIGNAL) < 0) {
    }
    close(*in_w);
    *in_w = -1;
    return waited;
}

/* Calls o's release once stdout shows its line after the gate opened. */
static void release_gate(const ch_proc_opts *o, ch_proc_result *res)
{
    if (!res->gate_opened || res->released || !o->release || !o->release_line ||
        !has_line(&res->out, o->release_line))
        return;
    o->release(o->gate_ctx);
    res->released = 1;
}

static void kill_group(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

int ch_proc_run(char *const *argv, const ch_proc_opts *opts, ch_proc_result *res, ch_error *err)
{
    static const ch_proc_opts defaults;
    const ch_proc_opts *o = opts ? opts : &defaults;
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, inp[2] = {-1, -1}, ep[2];
    int gated = o->gate && o->gate_line && o->capture_stdout && !o->stdout_path;
    int fed = o->stdin_data && !gated;
    size_t sent = 0;
    if (pipe2(ep, O_CLOEXEC) != 0)
        return ch_error_set(err, "cannot create a pipe: %s", strerror(errno));
    if ((gated || fed) && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, inp) != 0)
        return ch_error_set(err, "cannot create a socket pair: %s", strerror(errno));
    if ((o->capture_stdout && !o->stdout_path && pipe2(outp, O_CLOEXEC) != 0) ||
        (o->capture_stderr && !o->merge_stderr && pipe2(errp, O_CLOEXEC) != 0))
        return ch_error_set(err, "cannot create a pipe: %s", strerror(errno));
    double start = now_seconds();
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return ch_error_set(err, "cannot start '%s': %s", argv[0], strerror(errno));
    if (pid == 0)
        child_exec(argv, o, inp[0], outp[1], errp[1], ep[1], parent);
    if (o->new_process_group || o->wall_seconds > 0)
        setpgid(pid, pid);
    /* a child in its own group misses the terminal's ^C: the signal handler kills it */
    ch_cleanup_child_started(pid, o->new_process_group || o->wall_seconds > 0);
    close(ep[1]);
    if (outp[1] >= 0)
        close(outp[1]);
    if (errp[1] >= 0)
        close(errp[1]);
    if (inp[0] >= 0)
        close(inp[0]);
    size_t limit = o->capture_limit ? o->capture_limit : (size_t)16 << 20;
    int timed_out = 0;
    int status = 0;
    int exec_errno = 0;
    int fds_open = 1;
    while (fds_open) {
        struct pollfd pf[5];
        int n = 0;
        int ids[5];
        if (o->cancel_fd > 0 && !res->cancelled) {
            pf[n] = (struct pollfd){o->cancel_fd, POLLIN, 0};
            ids[n++] = 4;
        }
        if (fed && inp[1] >= 0) {
            pf[n] = (struct pollfd){inp[1], POLLOUT, 0};
            ids[n++] = 3;
        }
        if (ep[0] >= 0) {
            pf[n] = (struct pollfd){ep[0], POLLIN, 0};
            ids[n++] = 0;
        }
        if (outp[0] >= 0) {
            pf[n] = (struct pollfd){outp[0], POLLIN, 0};
            ids[n++] = 1;
        }
        if (errp[0] >= 0) {
            pf[n] = (struct pollfd){errp[0], POLLIN, 0};
            ids[n++] = 2;
        }
        if (n == (o->cancel_fd > 0 && !res->cancelled))
            break; /* nothing but the cancel descriptor left to watch */
        int wait_ms = -1;
        if (o->wall_seconds > 0) {
            double left = o->wall_seconds - (now_seconds() - start);
            if (left <= 0) {
                timed_out = 1;
                kill_group(pid);
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        int r = poll(pf, (nfds_t)n, wait_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        for (int i = 0; i < n; i++) {
            if (!(pf[i].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
                continue;
            if (ids[i] == 0) {
                char tag;
                ssize_t got = read(ep[0], &tag, 1);
                if (got == 1 && tag == 'N') {
                    res->net_isolated = 1;
                } else if (got == 1 && tag == 'I') {
                    int mask = 0;
                    if (read(ep[0], &mask, sizeof mask) == sizeof mask)
                        res->isolation_failed |= (unsigned)mask;
                } else if (got == 1 && tag == 'E') {
                    if (read(ep[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno)
                        exec_errno = ENOEXEC;
                } else {
                    close(ep[0]);
                    ep[0] = -1;
                }
            } else if (ids[i] == 4) {
                /* the pipes close as the group dies; the loop drains them as usual */
                res->cancelled = 1;
                kill_group(pid);
            } else if (ids[i] == 3) {
                feed(&inp[1], o->stdin_data, o->stdin_len, &sent);
            } else if (ids[i] == 1) {
                drain(&outp[0], &res->out, limit);
                start += open_gate(o, &inp[1], res);
                release_gate(o, res);
            } else {
                drain(&errp[0], &res->err, limit);
            }
        }
    }
    /* With a time limit, keep waiting only as long as the limit allows (the child may have
     * closed its pipes and kept running). */
    for (;;) {
        pid_t w = waitpid(pid, &status, (o->wall_seconds > 0 && !timed_out) ? WNOHANG : 0);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        if (w == 0) {
            if (now_seconds() - start > o->wall_seconds) {
                timed_out = 1;
                kill_group(pid);
                continue;
            }
            usleep(2000);
        }
    }
    if (inp[1] >= 0)
        close(inp[1]); /* the gate never opened: the child sees the end of its stdin */
    ch_cleanup_child_ended(pid);
    if (o->wall_seconds > 0)
        kill(-pid, SIGKILL); /* leftovers of the group: detached grandchildren */
    for (int i = 0; i < 2; i++) {
        int *fd = i ? &errp[0] : &outp[0];
        if (*fd >= 0)
            close(*fd);
    }
    if (ep[0] >= 0)
        close(ep[0]);
    res->wall_used = now_seconds() - start;
    res->timed_out = timed_out;
    if (exec_errno)
        return ch_error_set(err, "cannot run '%s': %s", argv[0], strerror(exec_errno));
    if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->exit_code = 128 + WTERMSIG(status);
    } else {
        res->exit_code = WEXITSTATUS(status);
    }
    return 0;
}

int ch_proc_exec(char *const *argv, ch_error *err)
{
    fflush(NULL);
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, NULL, &mask);
    ch_cleanup_unblock(); /* the compiler that replaces ch-cc takes ^C itself */
    execvp(argv[0], argv);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &mask, NULL); /* still ch-cc: its signal thread takes them */
    return ch_error_set(err, "cannot run '%s': %s", argv[0], strerror(e));
}

int ch_proc_capture(char *const *argv, ch_strbuf *out, ch_error *err)
{
    ch_proc_opts o = {.capture_stdout = 1, .merge_stderr = 1, .stdin_path = "/dev/null"};
    ch_proc_result r;
    ch_proc_result_init(&r);
    int rc = ch_proc_run(argv, &o, &r, err);
    if (rc == 0) {
        ch_strbuf_add(out, r.out.data, r.out.len);
        rc = r.exit_code;
    }
    ch_proc_result_free(&r);
    return rc;
}
