/* The verification sandbox against a hostile program (tests/unit/data/sandbox_hostile.c): it
 * must not read the reference outputs the parent hides (directly or through /proc/PID/root),
 * see or signal processes outside its PID namespace, write $HOME or the cache, reach 127.0.0.1,
 * fork or exec a shell, or ptrace; it must not see provider keys or CUDA_* settings. Whatever this
 * kernel lets the sandbox set up, an attack that works must come with the failed step in
 * isolation_failed: never silently. The benign control shows the sandbox still runs a real program.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "ch/sandbox.h"
#include "ch/verify.h"

static char *base, *prog, *run_dir, *secret, *home, *cache;

static char *under(const char *name)
{
    char *p = ch_path_join(base, name);
    ch_error err;
    cr_assert_eq(ch_mkdir_p(p, &err), 0, "%s", err.msg);
    return p;
}

static void setup(void)
{
    ch_error err;
    base = ch_make_temp_dir("sandbox-test", &err);
    cr_assert(base, "%s", err.msg);
    char *bin = under("bin");
    prog = ch_path_join(bin, "hostile");
    const char *src_dir = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    char *cmd = ch_xasprintf("cc -O1 -pthread -o '%s' '%s/tests/unit/data/sandbox_hostile.c'", prog,
                             src_dir);
    cr_assert_eq(system(cmd), 0, "cannot compile the hostile program");
    free(cmd);
    free(bin);
    run_dir = under("run");
    char *sdir = under("secret");
    secret = ch_path_join(sdir, "y.out.bin");
    free(sdir);
    cr_assert_eq(ch_write_file_atomic(secret, "expected", 8, 0, &err), 0, "%s", err.msg);
    char *in = ch_path_join(run_dir, "x.in.bin");
    cr_assert_eq(ch_write_file_atomic(in, "input", 5, 0, &err), 0, "%s", err.msg);
    free(in);
    home = under("home");
    cache = under("cache");
    setenv("HOME", home, 1);
}

static void teardown(void)
{
    ch_error err;
    ch_remove_tree(base, &err);
    free(base);
    free(prog);
    free(run_dir);
    free(secret);
    free(home);
    free(cache);
}

TestSuite(sandbox, .init = setup, .fini = teardown, .timeout = 120);

/* Runs the hostile program in the sandbox the way verification does (the reference directory
 * and the cache hidden). */
static void run_mode(const char *mode, const char *arg, ch_proc_result *pr)
{
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = run_dir;
    so.wall_seconds = 30;
    so.cpu_only = 1;
    char *sdir = ch_path_join(base, "secret");
    so.hide[0] = sdir;
    so.hide[1] = cache;
    char *argv[] = {prog, (char *)mode, (char *)arg, NULL};
    ch_error err;
    ch_proc_result_init(pr);
    cr_assert_eq(ch_sandbox_run(&so, argv, pr, &err), 0, "%s", err.msg);
    free(sdir);
}

static int escaped(const ch_proc_result *pr)
{
    return pr->exit_code == 0 && pr->out.data && strstr(pr->out.data, "ESCAPED");
}

/* An attack that worked is acceptable only when a step it depends on is reported failed. */
static void expect_contained(const char *what, const ch_proc_result *pr, unsigned guards)
{
    if (!escaped(pr)) {
        cr_assert_eq(pr->exit_code, 3, "%s: the program did not run (exit %d): %s", what,
                     pr->exit_code, pr->err.data ? pr->err.data : "");
        return;
    }
    cr_assert((pr->isolation_failed & guards) == guards,
              "%s worked and the sandbox reported no failed step for it (isolation_failed %#x)",
              what, pr->isolation_failed);
}

Test(sandbox, benign_program_runs_and_writes_its_output)
{
    ch_proc_result pr;
    run_mode("benign", "x.in.bin", &pr);
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    char *out = ch_path_join(run_dir, "out.bin");
    struct stat st;
    cr_assert_eq(stat(out, &st), 0, "the output is not in the run directory");
    free(out);
    ch_proc_result_free(&pr);
}

/* While a sandboxed program runs, its helpers outside it (the PID namespace's forwarder and
 * init, which never exec) must hold none of the parent's descriptors: a lock the parent's other
 * threads held when the run started would stay held until the program ends. Here the parent
 * holds a flock when the run starts and drops it by closing its descriptor (no LOCK_UN) while
 * the program is still running; the lock must then be free. */
typedef struct held_fd {
    const char *path;
    int fd;      /* the descriptor that held the lock when the run started */
    int free_at; /* 1: free once that descriptor closed, while the program ran */
} held_fd;

static void *probe_lock(void *arg)
{
    held_fd *h = arg;
    usleep(1000 * 1000); /* the run has forked its helpers by now; the program sleeps 3 s */
    close(h->fd);
    int fd = open(h->path, O_RDWR);
    h->free_at = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (fd >= 0)
        close(fd);
    return NULL;
}

Test(sandbox, helpers_of_a_run_hold_none_of_the_parents_descriptors)
{
    char *path = ch_path_join(base, "held.lock");
    held_fd h = {path, open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), 0};
    cr_assert_geq(h.fd, 0);
    cr_assert_eq(flock(h.fd, LOCK_EX), 0);
    pthread_t probe;
    pthread_create(&probe, NULL, probe_lock, &h);
    ch_proc_result pr;
    run_mode("sleep", "3000", &pr);
    pthread_join(probe, NULL);
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    cr_assert(h.free_at, "the run's helpers kept the parent's lock descriptor");
    ch_proc_result_free(&pr);
    free(path);
}

/* The gate of a timing run: gate_calls counts the callback; each call sleeps past the run's
 * whole time limit, which must not count (the GPU lock's wait is not the program's time). */
typedef struct gate_probe {
    int calls;
    size_t seen_out; /* bytes of stdout captured when the gate opened: none after the line */
    const ch_proc_result *pr;
} gate_probe;

static void slow_gate(void *ctx)
{
    gate_probe *g = ctx;
    g->calls++;
    g->seen_out = g->pr->out.len;
    usleep(3500 * 1000);
}

static void run_gated(const char *mode, gate_probe *g, ch_proc_result *pr)
{
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = run_dir;
    so.wall_seconds = 3;
    so.gate_line = "ch-ready";
    so.gate = slow_gate;
    so.gate_ctx = g;
    g->pr = pr;
    char *argv[] = {prog, (char *)mode, "x.in.bin", NULL};
    ch_error err;
    ch_proc_result_init(pr);
    cr_assert_eq(ch_sandbox_run(&so, argv, pr, &err), 0, "%s", err.msg);
}

Test(sandbox, gate_opens_once_after_the_ready_line_and_its_wait_is_not_run_time)
{
    gate_probe g = {0};
    ch_proc_result pr;
    run_gated("gate", &g, &pr);
    cr_assert_eq(g.calls, 1, "the gate was called %d times", g.calls);
    cr_assert(!pr.timed_out, "the gate's 3.5 s wait counted against the 3 s limit");
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    cr_assert(pr.gate_opened);
    cr_assert_eq(g.seen_out, strlen("before\nch-ready\n"), "the gate opened at %zu bytes",
                 g.seen_out);
    cr_assert(pr.out.data && strstr(pr.out.data, "go=g\n"), "the child got no go: %s",
              pr.out.data ? pr.out.data : "");
    ch_proc_result_free(&pr);
}

/* The release of a timing run: called once the child says its timed calls are over, while
 * it still runs (a slow exit must not keep every other build off the GPU). */
typedef struct release_probe {
    int calls;
    size_t seen_out;
    double at; /* seconds, monotonic */
    const ch_proc_result *pr;
} release_probe;

static double mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void open_now(void *ctx)
{
    (void)ctx;
}

static void note_release(void *ctx)
{
    release_probe *r = ctx;
    r->calls++;
    r->seen_out = r->pr->out.len;
    r->at = mono_seconds();
}

Test(sandbox, release_comes_at_the_end_of_the_timed_calls_not_at_the_exit)
{
    release_probe r = {0};
    ch_proc_result pr;
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = run_dir;
    so.wall_seconds = 10;
    so.gate_line = "ch-ready";
    so.gate = open_now;
    so.gate_ctx = &r;
    so.release_line = "ch-time:";
    so.release = note_release;
    r.pr = &pr;
    char *argv[] = {prog, "timed", "x.in.bin", NULL};
    ch_error err;
    ch_proc_result_init(&pr);
    cr_assert_eq(ch_sandbox_run(&so, argv, &pr, &err), 0, "%s", err.msg);
    double ended = mono_seconds();
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    cr_assert_eq(r.calls, 1, "released %d times", r.calls);
    cr_assert(pr.released);
    cr_assert_eq(r.seen_out, strlen("before\nch-ready\ngo=g\nch-time: done\n"),
                 "released at %zu bytes of output", r.seen_out);
    cr_assert_geq(ended - r.at, 1.0, "released only %.2f s before the run ended", ended - r.at);
    ch_proc_result_free(&pr);
}

/* Whether pid has ended (gone, or a zombie its new parent has not reaped yet). */
static int ended(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *name_end = strrchr(buf, ')');
    return name_end && name_end[1] == ' ' && name_end[2] == 'Z';
}

/* Nothing ch_proc_run starts outlives the process that started it: a build killed with SIGKILL
 * runs no cleanup, and a child left running (a program past a time limit only the build
 * enforced) would go on holding its pipes and directories. */
Test(sandbox, a_child_dies_with_the_process_that_started_it)
{
    char *pidfile = ch_path_join(run_dir, "child.pid");
    pid_t starter = fork();
    cr_assert_geq(starter, 0);
    if (starter == 0) {
        char *argv[] = {"sh", "-c", "echo $$ > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"; exec sleep 30",
                        pidfile, NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        ch_error err;
        ch_proc_run(argv, NULL, &pr, &err);
        _exit(0);
    }
    pid_t child = 0;
    for (int i = 0; i < 1000 && child <= 0; i++) {
        FILE *f = fopen(pidfile, "r");
        if (f) {
            int v = 0;
            if (fscanf(f, "%d", &v) == 1)
                child = v;
            fclose(f);
        }
        if (child <= 0)
            usleep(10 * 1000);
    }
    cr_assert_gt(child, 0, "the child never started");
    kill(starter, SIGKILL);
    waitpid(starter, NULL, 0);
    int dead = 0;
    for (int i = 0; i < 500 && !(dead = ended(child)); i++)
        usleep(10 * 1000);
    if (!dead)
        kill(child, SIGKILL);
    cr_assert(dead, "the child still ran 5 s after the process that started it was killed");
    free(pidfile);
}

Test(sandbox, gate_stays_shut_for_a_program_that_never_says_ready)
{
    gate_probe g = {0};
    ch_proc_result pr;
    run_gated("benign", &g, &pr);
    cr_assert_eq(g.calls, 0);
    cr_assert(!pr.gate_opened);
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    ch_proc_result_free(&pr);
}

/* Timing runs of several threads of one process, each taking the GPU lock alone at its gate,
 * beside functional runs taking it shared: all must finish (no deadlock). */
typedef struct contender {
    const char *lock;
    int exclusive;
    int rounds;
    int finished;
} contender;

typedef struct held_gate {
    const char *lock;
    ch_gpu_lock lk;
} held_gate;

static void take_alone(void *ctx)
{
    held_gate *h = ctx;
    ch_error err;
    ch_gpu_lock_acquire(h->lock, 1, &h->lk, &err);
}

static void *contend(void *arg)
{
    contender *c = arg;
    for (int r = 0; r < c->rounds; r++) {
        ch_sandbox_opts so;
        memset(&so, 0, sizeof so);
        so.dir = run_dir;
        so.wall_seconds = 30;
        held_gate h = {.lock = c->lock};
        ch_gpu_lock shared;
        if (c->exclusive) {
            so.gate_line = "ch-ready";
            so.gate = take_alone;
            so.gate_ctx = &h;
        } else {
            ch_error err;
            ch_gpu_lock_acquire(c->lock, 0, &shared, &err);
        }
        char *argv[] = {prog, c->exclusive ? "gate" : "benign", "x.in.bin", NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        ch_error err;
        ch_sandbox_run(&so, argv, &pr, &err);
        if (c->exclusive && pr.gate_opened)
            ch_gpu_lock_release(&h.lk);
        else if (!c->exclusive)
            ch_gpu_lock_release(&shared);
        ch_proc_result_free(&pr);
    }
    c->finished = 1;
    return NULL;
}

Test(sandbox, gated_exclusive_runs_beside_shared_runs_all_finish, .timeout = 90)
{
    char *lock = ch_path_join(base, "gpu.lock");
    contender cs[4] = {{lock, 1, 8, 0}, {lock, 1, 8, 0}, {lock, 0, 8, 0}, {lock, 0, 8, 0}};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, contend, &cs[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 4; i++)
        cr_assert(cs[i].finished);
    free(lock);
}

Test(sandbox, threads_still_start)
{
    ch_proc_result pr;
    run_mode("threads", "", &pr);
    cr_assert_eq(pr.exit_code, 0, "threads refused (exit %d)", pr.exit_code);
    ch_proc_result_free(&pr);
}

Test(sandbox, cannot_read_hidden_reference_outputs)
{
    ch_proc_result pr;
    run_mode("read", secret, &pr);
    expect_contained("reading the expected outputs", &pr, CH_ISO_HIDE | CH_ISO_USER_ID);
    ch_proc_result_free(&pr);
}

/* An attack on this process (ch-cc's side) from the program: arg is printf(arg_format, our pid,
 * the hidden output). As root the run is also nobody, whom the kernel refuses anyway. */
static void attack_parent(const char *mode, const char *arg_format, const char *what,
                          unsigned guards)
{
    char *arg = ch_xasprintf(arg_format, (int)getpid(), secret);
    ch_proc_result pr;
    run_mode(mode, arg, &pr);
    expect_contained(what, &pr, guards);
    free(arg);
    ch_proc_result_free(&pr);
}

#define AS_ROOT_ALSO_NOBODY (geteuid() == 0 ? CH_ISO_USER_ID : 0u)

/* as a user the namespace maps the same uid: only the PID namespace's own /proc closes this */
Test(sandbox, cannot_read_them_through_the_parents_root)
{
    attack_parent("read", "/proc/%d/root%s", "reading the expected outputs through /proc",
                  CH_ISO_PID_NS | AS_ROOT_ALSO_NOBODY);
}

/* The program's own PID namespace: the test process is neither visible nor reachable by a
 * signal, as root and as a user. */
Test(sandbox, cannot_signal_the_parent)
{
    attack_parent("signal", "%d", "kill(parent, 0)", CH_ISO_PID_NS | AS_ROOT_ALSO_NOBODY);
}

Test(sandbox, proc_lists_only_its_own_processes)
{
    attack_parent("proc", "%d", "seeing outside processes in /proc", CH_ISO_PID_NS);
}

/* The program runs under an init of its namespace: its exit code and the signal it died of
 * reach the caller unchanged. */
Test(sandbox, exit_code_and_signal_pass_through)
{
    ch_proc_result pr;
    run_mode("exit", "42", &pr);
    cr_assert_eq(pr.exit_code, 42, "exit 42 came back as %d", pr.exit_code);
    cr_assert_eq(pr.signaled, 0);
    ch_proc_result_free(&pr);
    run_mode("abort", "", &pr);
    cr_assert(pr.signaled, "abort() did not come back as a signal (exit %d)", pr.exit_code);
    cr_assert_eq(pr.exit_code, 128 + SIGABRT, "abort() came back as %d", pr.exit_code);
    ch_proc_result_free(&pr);
}

static void expect_not_written(const char *dir, const char *label)
{
    char *path = ch_path_join(dir, "planted");
    ch_proc_result pr;
    run_mode("write", path, &pr);
    struct stat st;
    int planted = stat(path, &st) == 0;
    if (planted)
        cr_assert((pr.isolation_failed & (CH_ISO_HIDE | CH_ISO_USER_ID)) ==
                      (CH_ISO_HIDE | CH_ISO_USER_ID),
                  "the program wrote %s unreported (isolation_failed %#x)", label,
                  pr.isolation_failed);
    free(path);
    ch_proc_result_free(&pr);
}

Test(sandbox, cannot_write_home)
{
    expect_not_written(home, "$HOME");
}

Test(sandbox, cannot_write_the_cache)
{
    expect_not_written(cache, "the cache directory");
}

Test(sandbox, cannot_connect_to_localhost)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(s >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(listen(s, 4), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    char port[16];
    snprintf(port, sizeof port, "%d", ntohs(a.sin_port));
    ch_proc_result pr;
    run_mode("connect", port, &pr);
    expect_contained("connecting to 127.0.0.1", &pr, CH_ISO_SECCOMP | CH_ISO_NET_NS);
    close(s);
    ch_proc_result_free(&pr);
}

Test(sandbox, cannot_fork_or_exec_a_shell)
{
    ch_proc_result pr;
    run_mode("spawn", "", &pr);
    expect_contained("fork/exec of /bin/sh", &pr, CH_ISO_SECCOMP);
    ch_proc_result_free(&pr);
}

Test(sandbox, cannot_ptrace)
{
    ch_proc_result pr;
    run_mode("ptrace", "", &pr);
    expect_contained("ptrace", &pr, CH_ISO_SECCOMP);
    ch_proc_result_free(&pr);
}

Test(sandbox, environment_is_an_allow_list)
{
    setenv("OPENAI_API_KEY", "sk-test-secret", 1);
    setenv("CUDA_LAUNCH_BLOCKING", "1", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    ch_proc_result pr;
    run_mode("env", "", &pr);
    cr_assert_eq(pr.exit_code, 0);
    const char *out = pr.out.data ? pr.out.data : "";
    cr_assert_null(strstr(out, "sk-test-secret"), "a provider key reached the program");
    cr_assert_null(strstr(out, "CUDA_LAUNCH_BLOCKING"), "CUDA_* other than the device list passed");
    cr_assert(strstr(out, "CUDA_VISIBLE_DEVICES=0"), "the device list was dropped");
    char *want_home = ch_xasprintf("HOME=%s\n", run_dir);
    cr_assert(strstr(out, want_home), "HOME is not the run directory");
    free(want_home);
    if (!(pr.isolation_failed & CH_ISO_NO_NEW_PRIVS))
        cr_assert(strstr(out, "NoNewPrivs:\t1"), "NoNewPrivs is off and not reported");
    if (!(pr.isolation_failed & CH_ISO_SECCOMP))
        cr_assert(strstr(out, "Seccomp:\t2"), "no seccomp filter and none reported");
    unsetenv("OPENAI_API_KEY");
    unsetenv("CUDA_LAUNCH_BLOCKING");
    ch_proc_result_free(&pr);
}

Test(sandbox, isolation_text_names_each_failed_step)
{
    char *full = ch_sandbox_isolation_text(0);
    cr_assert_str_eq(full, "full");
    char *t = ch_sandbox_isolation_text(CH_ISO_MOUNT_NS | CH_ISO_SECCOMP);
    cr_assert_str_eq(t, "partial (mount namespace, seccomp)");
    free(full);
    free(t);
}

Test(sandbox, report_says_the_isolation)
{
    ch_verify_report r;
    ch_verify_report_init(&r);
    r.isolation_failed = CH_ISO_SECCOMP | CH_ISO_NET_NS;
    char *json = ch_verify_report_json(&r);
    cr_assert(strstr(json, "\"isolation\":\t\"partial (network namespace, seccomp)\""), "%s", json);
    free(json);
    ch_verify_report_free(&r);
}

/* An oracle built with the user's -fsanitize=address still runs: no address-space limit under
 * its shadow memory, and no LeakSanitizer (its tracer needs fork and ptrace). */
Test(sandbox, address_sanitized_program_runs)
{
    char *asan = ch_path_join(base, "bin/hostile-asan");
    const char *src_dir = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    char *cmd = ch_xasprintf("cc -O1 -pthread -fsanitize=address -o '%s' "
                             "'%s/tests/unit/data/sandbox_hostile.c' 2>/dev/null",
                             asan, src_dir);
    if (system(cmd) != 0)
        cr_skip_test("cc -fsanitize=address is not available");
    free(cmd);
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = run_dir;
    so.cpu_only = 1;
    so.wall_seconds = 30;
    char *argv[] = {asan, "benign", "x.in.bin", NULL};
    ch_proc_result pr;
    ch_proc_result_init(&pr);
    ch_error err;
    cr_assert_eq(ch_sandbox_run(&so, argv, &pr, &err), 0, "%s", err.msg);
    cr_assert_eq(pr.exit_code, 0, "exit %d: %s", pr.exit_code, pr.err.data ? pr.err.data : "");
    ch_proc_result_free(&pr);
    free(asan);
}

/* ---- sockets of other programs (issue 15, H2) ---- */

/* A listening AF_UNIX socket at path that anyone may connect to (so that only the sandbox can
 * refuse it, not the file's mode), not blocking: accept says whether anyone came. -1 when
 * this place cannot hold one (not writable by this user). */
static int listen_unix(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    cr_assert_lt(strlen(path), sizeof a.sun_path, "%s is too long for a socket", path);
    strcpy(a.sun_path, path);
    unlink(path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    cr_assert(s >= 0);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0) {
        close(s);
        return -1;
    }
    cr_assert_eq(chmod(path, 0777), 0);
    cr_assert_eq(listen(s, 4), 0);
    /* the control: this process, outside the sandbox, reaches it */
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_eq(connect(c, (struct sockaddr *)&a, sizeof a), 0, "cannot reach %s from outside",
                 path);
    close(c);
    int seen = accept(s, NULL, NULL);
    cr_assert(seen >= 0, "the control connection to %s was not seen", path);
    close(seen);
    return s;
}

/* Whether anyone connected to the listener since the control. */
static int someone_connected(int s)
{
    int c = accept(s, NULL, NULL);
    if (c < 0)
        return 0;
    close(c);
    return 1;
}

/* The places a socket of another program lives: a temporary directory of the caller's, /tmp,
 * /dev/shm and /run (as root); with in_run_dir, the run directory too. NULL-ended, owned by the
 * caller. */
static char **socket_places(int in_run_dir)
{
    char **p = ch_xcalloc(6, sizeof *p);
    size_t n = 0;
    if (in_run_dir) /* only the filter refuses this one */
        p[n++] = ch_path_join(run_dir, "own.sock");
    p[n++] = ch_path_join(base, "agent.sock");
    p[n++] = ch_xasprintf("/tmp/ch-cc-test-%d.sock", (int)getpid());
    p[n++] = ch_xasprintf("/dev/shm/ch-cc-test-%d.sock", (int)getpid());
    p[n++] = ch_xasprintf("/run/ch-cc-test-%d.sock", (int)getpid());
    return p;
}

/* The hostile program connects to a listener at each place, with opts changed by tune; it
 * must be refused and the listener must see no one, unless a step in guards is reported. */
static void expect_no_unix_connection(void (*tune)(ch_sandbox_opts *), unsigned guards,
                                      int in_run_dir)
{
    char **places = socket_places(in_run_dir);
    int tried = 0;
    for (char **p = places; *p; p++) {
        int s = listen_unix(*p);
        if (s < 0) { /* /run as a user */
            free(*p);
            continue;
        }
        tried++;
        ch_sandbox_opts so;
        memset(&so, 0, sizeof so);
        so.dir = run_dir;
        so.wall_seconds = 30;
        tune(&so);
        char *argv[] = {prog, "unix", *p, NULL};
        ch_proc_result pr;
        ch_proc_result_init(&pr);
        ch_error err;
        cr_assert_eq(ch_sandbox_run(&so, argv, &pr, &err), 0, "%s", err.msg);
        int came = someone_connected(s);
        cr_assert(came == escaped(&pr), "%s: the program and the listener disagree", *p);
        char *what = ch_xasprintf("connecting to %s", *p);
        expect_contained(what, &pr, guards);
        free(what);
        close(s);
        unlink(*p);
        ch_proc_result_free(&pr);
        free(*p);
    }
    free(places);
    cr_assert_geq(tried, 3, "fewer than three places could hold a socket");
}

static void as_cpu_run(ch_sandbox_opts *so)
{
    so->cpu_only = 1;
}

static void as_gpu_run(ch_sandbox_opts *so)
{
    so->cpu_only = 0;
}

static void as_compiler(ch_sandbox_opts *so)
{
    so->compiler = 1;
}

/* a run without the GPU (the reference program, the smoke stage) gets no socket at all */
Test(sandbox, cpu_run_has_no_sockets)
{
    expect_no_unix_connection(as_cpu_run, CH_ISO_SECCOMP, 1);
}

/* a GPU run keeps AF_UNIX for the CUDA driver, but no other program's socket is on its paths */
Test(sandbox, gpu_run_reaches_no_outside_unix_socket)
{
    expect_no_unix_connection(as_gpu_run, CH_ISO_HIDE, 0);
}

Test(sandbox, compiler_reaches_no_unix_socket)
{
    expect_no_unix_connection(as_compiler, CH_ISO_SECCOMP, 1);
}

/* ---- compilers on untrusted source (issue 15, H3) ---- */

/* Runs argv as a compiler in the run directory (the cache hidden, as verification does). */
static void run_compiler(char *const *argv, ch_proc_result *pr)
{
    ch_sandbox_opts so;
    memset(&so, 0, sizeof so);
    so.dir = run_dir;
    so.compiler = 1;
    so.merge_output = 1;
    so.wall_seconds = 60;
    so.hide[0] = cache;
    ch_error err;
    ch_proc_result_init(pr);
    cr_assert_eq(ch_sandbox_run(&so, argv, pr, &err), 0, "%s", err.msg);
}

static void write_unit(void)
{
    char *src = ch_path_join(run_dir, "unit.c");
    const char *text = "int twice(int x) { return 2 * x; }\n";
    ch_error err;
    cr_assert_eq(ch_write_file_atomic(src, text, strlen(text), 0, &err), 0, "%s", err.msg);
    free(src);
}

Test(sandbox, compiler_builds_in_its_directory)
{
    write_unit();
    char *argv[] = {"cc", "-O2", "-c", "unit.c", "-o", "unit.o", NULL};
    ch_proc_result pr;
    run_compiler(argv, &pr);
    cr_assert_eq(pr.exit_code, 0, "cc failed in the sandbox (exit %d): %s", pr.exit_code,
                 pr.out.data ? pr.out.data : "");
    char *obj = ch_path_join(run_dir, "unit.o");
    struct stat st;
    cr_assert(stat(obj, &st) == 0 && st.st_size > 0, "no object in the run directory");
    free(obj);
    ch_proc_result_free(&pr);
}

/* The compiler's -o, and a shell it runs, aimed at dir: nothing appears there unless a step
 * that would have stopped it is reported. */
static void expect_compiler_cannot_write(const char *dir, unsigned guards)
{
    write_unit();
    char *obj = ch_path_join(dir, "planted.o");
    char *txt = ch_path_join(dir, "planted.txt");
    char *cc[] = {"cc", "-c", "unit.c", "-o", obj, NULL};
    char *sh[] = {"sh", "-c", "echo owned > \"$0\"", txt, NULL};
    char *const *runs[] = {cc, sh};
    for (size_t i = 0; i < 2; i++) {
        ch_proc_result pr;
        run_compiler(runs[i], &pr);
        struct stat st;
        if (stat(i ? txt : obj, &st) == 0)
            cr_assert((pr.isolation_failed & guards) == guards,
                      "%s wrote %s unreported (isolation_failed %#x)", runs[i][0], dir,
                      pr.isolation_failed);
        ch_proc_result_free(&pr);
    }
    free(obj);
    free(txt);
}

Test(sandbox, compiler_cannot_write_home)
{
    expect_compiler_cannot_write(home, CH_ISO_HIDE | CH_ISO_USER_ID);
}

Test(sandbox, compiler_cannot_write_the_cache)
{
    expect_compiler_cannot_write(cache, CH_ISO_HIDE | CH_ISO_USER_ID);
}

/* the source tree (where CH_CC_SRC is): neither hidden nor the run's, so read only */
Test(sandbox, compiler_cannot_write_the_rest_of_the_tree)
{
    const char *src_dir = getenv("CH_CC_SRC") ? getenv("CH_CC_SRC") : ".";
    char *abs = realpath(src_dir, NULL);
    cr_assert(abs);
    char *dir = ch_path_join(abs, "tests/unit/data");
    expect_compiler_cannot_write(dir, CH_ISO_READ_ONLY | CH_ISO_USER_ID);
    free(dir);
    free(abs);
}
