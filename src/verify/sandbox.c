/* The sandbox candidate and reference programs run in (ch/sandbox.h): the parent prepares the
 * environment, the paths, the run directory's owner and the seccomp filter; the child side
 * (sandbox_isolate.c) enters the namespaces and installs them just before exec. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/sandbox.h"
#include "sandbox_isolate.h"

extern char **environ;

#define NOBODY_ID 65534

static int keep_var(const char *kv)
{
    static const char *const kept[] = {
        "PATH=", "LD_LIBRARY_PATH=", "LANG=", "CUDA_VISIBLE_DEVICES=", NULL};
    for (size_t i = 0; kept[i]; i++)
        if (strncmp(kv, kept[i], strlen(kept[i])) == 0)
            return 1;
    return 0;
}

void ch_sandbox_env(const char *dir, char *const *extra_env, ch_strvec *out)
{
    ch_strvec_init(out);
    for (char **e = environ; e && *e; e++)
        if (keep_var(*e))
            ch_strvec_push(out, *e);
    ch_strvec_push_owned(out, ch_xasprintf("HOME=%s", dir));
    ch_strvec_push_owned(out, ch_xasprintf("TMPDIR=%s", dir));
    ch_strvec_push(out, "LC_ALL=C");
    for (char *const *e = extra_env; e && *e; e++)
        ch_strvec_push(out, *e);
}

char *ch_sandbox_isolation_text(unsigned failed)
{
    static const char *const names[] = {
        "no_new_privs",      "user namespace", "mount namespace", "network namespace",
        "unprivileged user", "hidden paths",   "read-only root",  "run directory owner",
        "capabilities",      "seccomp",        "runner prefix",   "pid namespace",
        "ipc namespace"};
    if (!failed)
        return ch_xstrdup("full");
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addf(&sb, "partial (");
    int first = 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!(failed & (1u << i)))
            continue;
        ch_strbuf_addf(&sb, "%s%s", first ? "" : ", ", names[i]);
        first = 0;
    }
    ch_strbuf_addf(&sb, ")");
    char *t = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return t;
}

/* argv[0] as an absolute path: the seccomp filter allows exec of that one pointer */
static char *program_path(const char *name)
{
    if (strchr(name, '/')) {
        char *abs = realpath(name, NULL);
        return abs ? abs : ch_xstrdup(name);
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const char *q = strchr(p, ':');
        size_t n = q ? (size_t)(q - p) : strlen(p);
        char *dir = ch_xstrndup(p, n);
        char *cand = ch_path_join(*dir ? dir : ".", name);
        free(dir);
        if (access(cand, X_OK) == 0) {
            char *abs = realpath(cand, NULL);
            free(cand);
            return abs ? abs : ch_xstrdup(name);
        }
        free(cand);
        p = q ? q + 1 : p + n;
    }
    return ch_xstrdup(name);
}

static int give_to_nobody(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)type;
    (void)f;
    /* a file linked from elsewhere (a shared object, a neighbour's input) is not the run's to
     * own: the program may read it, never write it */
    if (S_ISREG(st->st_mode) && st->st_nlink > 1)
        return 0;
    /* a file that went away while the walk ran (a neighbour's temporary) is no failure; any
     * other stops the walk, and the child then stays root (reported) */
    return lchown(path, NOBODY_ID, NOBODY_ID) == 0 || errno == ENOENT ? 0 : -1;
}

/* As root, the run directory belongs to the unprivileged user the child becomes. */
static unsigned chown_run_dir(const char *dir)
{
    if (geteuid() != 0)
        return 0;
    return nftw(dir, give_to_nobody, 16, FTW_PHYS) == 0 ? 0 : CH_ISO_CHOWN;
}

static void add_path(const char **list, size_t *n, const char *path)
{
    if (path && *path && *n < ISO_MAX_PATHS)
        list[(*n)++] = path;
}

static void add_exposed(iso_plan *p, const char *path, int writable)
{
    if (!path || !*path || p->n_expose >= ISO_MAX_PATHS)
        return;
    /* an offered path the unprivileged user cannot enter would only cover what it can (a
     * 0700 directory above the run directory) */
    struct stat st;
    if (p->n_required && p->n_expose >= p->n_required && geteuid() == 0 &&
        (!iso_others_can_reach(path) || stat(path, &st) != 0 || !(st.st_mode & S_IXOTH)))
        return;
    p->expose_writable[p->n_expose] = (unsigned char)writable;
    p->expose[p->n_expose++] = path;
}

/* Whether path may be covered by an empty tmpfs: never the root or a system directory (HOME=/
 * in some containers), which would take the program's libraries and devices away. */
static int hideable(const char *path)
{
    static const char *const system_dirs[] = {"/",     "/usr", "/etc", "/dev",   "/proc",
                                              "/sys",  "/opt", "/lib", "/lib64", "/bin",
                                              "/sbin", "/var", "/run", NULL};
    char *abs = realpath(path, NULL);
    int ok = 1;
    for (size_t i = 0; abs && system_dirs[i]; i++)
        if (strcmp(abs, system_dirs[i]) == 0)
            ok = 0;
    free(abs);
    return ok;
}

static unsigned add_hidden(iso_plan *p, const char *path)
{
    if (!path || !*path)
        return 0;
    if (!hideable(path))
        return CH_ISO_HIDE;
    add_path(p->hide, &p->n_hide, path);
    return 0;
}

/* A directory hidden where it really is (/var/run is /run), once; nothing when it is not there */
static void add_real(iso_plan *p, const char **list, size_t *n, const char *path)
{
    char *abs = path ? realpath(path, NULL) : NULL;
    int seen = 0;
    for (size_t i = 0; abs && i < p->n_scratch; i++)
        seen |= strcmp(p->scratch[i], abs) == 0;
    for (size_t i = 0; abs && i < p->n_hide; i++)
        seen |= strcmp(p->hide[i], abs) == 0;
    if (!abs || seen || !ch_is_dir(abs)) {
        free(abs);
        return;
    }
    ch_strvec_push_owned(&p->owned, abs);
    add_path(list, n, abs);
}

/* The MPS pipe directory when an MPS server is in use, else NULL: CUDA clients talk to the
 * server through the sockets in it, and share memory with it in /dev/shm. */
static const char *mps_pipe_dir(void)
{
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    if (!dir || !*dir)
        dir = "/tmp/nvidia-mps";
    return ch_is_dir(dir) ? dir : NULL;
}

/* The places another program's filesystem socket may live (the read-only root does not stop a
 * connect: it needs write access to the socket, not to the mount): the temporary directories
 * get a private tmpfs, /run, $XDG_RUNTIME_DIR and ch-cc's own TMPDIR an empty one. A GPU run
 * gets back what the CUDA driver talks to: the nvidia-persistenced socket, the MPS pipe
 * directory (and /dev/shm stays shared with the MPS server). */
static void plan_socket_places(const ch_sandbox_opts *o, iso_plan *p)
{
    const char *mps = o->cpu_only || o->compiler ? NULL : mps_pipe_dir();
    add_real(p, p->scratch, &p->n_scratch, "/tmp");
    add_real(p, p->scratch, &p->n_scratch, "/var/tmp");
    if (!mps)
        add_real(p, p->scratch, &p->n_scratch, "/dev/shm");
    add_real(p, p->hide, &p->n_hide, "/run");
    add_real(p, p->hide, &p->n_hide, "/var/run");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && hideable(xdg))
        add_real(p, p->hide, &p->n_hide, xdg);
    const char *base = ch_cleanup_temp_base() ? ch_cleanup_temp_base() : ch_temp_dir();
    if (base && *base && hideable(base))
        add_real(p, p->hide, &p->n_hide, base);
    if (o->cpu_only || o->compiler)
        return;
    static const char *const persistenced = "/run/nvidia-persistenced/socket";
    if (access(persistenced, F_OK) == 0)
        add_exposed(p, persistenced, 0);
    add_exposed(p, mps, 1);
}

/* Whether path is at or below a directory the plan hides */
static int covered(const iso_plan *p, const char *path)
{
    const char *const *lists[] = {p->scratch, p->hide};
    const size_t counts[] = {p->n_scratch, p->n_hide};
    for (size_t l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            size_t n = strlen(lists[l][i]);
            if (strncmp(path, lists[l][i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
                return 1;
        }
    return 0;
}

/* A compiler reads its toolkit (BIN/.. of the program: nvcc's include, nvvm, lib64) and runs
 * what PATH finds (gcc, ld): the ones the hiding covered are bound back. */
static void plan_compiler_paths(const char *exe, iso_plan *p)
{
    char *bin = ch_path_dir(exe);
    char *toolkit = ch_path_dir(bin);
    free(bin);
    if (covered(p, toolkit) && ch_is_dir(toolkit)) {
        ch_strvec_push_owned(&p->owned, toolkit);
        add_exposed(p, toolkit, 0);
    } else {
        free(toolkit);
    }
    for (const char *v = getenv("PATH"); v && *v;) {
        size_t n = strcspn(v, ":");
        char *dir = ch_xstrndup(v, n);
        if (dir[0] == '/' && covered(p, dir) && ch_is_dir(dir)) {
            ch_strvec_push_owned(&p->owned, dir);
            add_exposed(p, dir, 0);
        } else {
            free(dir);
        }
        v += n + (v[n] == ':');
    }
}

/* The paths the child keeps and loses; CH_ISO_HIDE when one cannot be hidden. */
static unsigned plan_paths(const ch_sandbox_opts *o, const char *exe, iso_plan *p)
{
    p->dir = o->dir;
    add_exposed(p, o->dir, 1);
    add_exposed(p, exe, 0);
    for (size_t i = 0; i < CH_SANDBOX_MAX_PATHS && o->expose[i]; i++)
        add_exposed(p, o->expose[i], 0);
    p->n_required = p->n_expose;
    unsigned failed = add_hidden(p, getenv("HOME"));
    for (size_t i = 0; i < CH_SANDBOX_MAX_PATHS && o->hide[i]; i++)
        failed |= add_hidden(p, o->hide[i]);
    /* a runner (srun) talks to its daemons through /run (munge); reported partial anyway */
    if (!(o->runner && *o->runner))
        plan_socket_places(o, p);
    else
        add_real(p, p->scratch, &p->n_scratch, "/tmp");
    if (o->compiler)
        plan_compiler_paths(exe, p);
    return failed;
}

/* "isolation: partial (...)" once per process on stderr; each report says it per run */
static void say_partial_once(unsigned failed)
{
    static atomic_int said;
    if (!failed || atomic_exchange(&said, 1))
        return;
    char *t = ch_sandbox_isolation_text(failed);
    fprintf(stderr, "ch-cc: warning: verification sandbox isolation: %s\n", t);
    free(t);
}

void ch_sandbox_runner_args(const char *runner, ch_strvec *args)
{
    for (const char *p = runner ? runner : ""; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t')
            q++;
        if (q > p)
            ch_strvec_push_owned(args, ch_xstrndup(p, (size_t)(q - p)));
        p = q;
    }
}

/* Whether exe carries a sanitizer runtime (a user who builds with -fsanitize=address gets an
 * oracle built the same way): those reserve terabytes of shadow address space up front. */
static int uses_sanitizer_runtime(const char *exe)
{
    static const char *const inits[] = {"__asan_init", "__tsan_init", "__msan_init",
                                        "__hwasan_init", NULL};
    char *data = NULL;
    size_t len = 0;
    ch_error err;
    if (ch_read_file(exe, &data, &len, &err) != 0)
        return 0;
    int found = 0;
    for (size_t i = 0; inits[i] && !found; i++)
        found = memmem(data, len, inits[i], strlen(inits[i])) != NULL;
    free(data);
    return found;
}

/* RLIMIT_AS for a CPU-only run: the machine's memory (a run cannot usefully go beyond it).
 * GPU runs get none: the CUDA driver reserves far more virtual address space than it uses;
 * nor do programs with a sanitizer runtime (its shadow memory). */
static long address_space_limit(const ch_sandbox_opts *o, int sanitized)
{
    if (!(o->cpu_only || o->compiler) || sanitized)
        return 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return pages > LONG_MAX / page - 1 ? 0 : pages * page + (1L << 30);
}

void ch_sandbox_opts_cpu(ch_sandbox_opts *so, const char *dir, double seconds)
{
    memset(so, 0, sizeof *so);
    so->dir = dir;
    so->cpu_only = 1;
    so->wall_seconds = seconds;
    so->cpu_seconds = (long)seconds;
}

void ch_sandbox_opts_compiler(ch_sandbox_opts *so, const char *dir, double seconds)
{
    memset(so, 0, sizeof *so);
    so->dir = dir;
    so->compiler = 1;
    so->merge_output = 1;
    so->wall_seconds = seconds;
    so->cpu_seconds = (long)seconds;
}

int ch_sandbox_run(const ch_sandbox_opts *o, char *const *argv, ch_proc_result *res, ch_error *err)
{
    ch_strvec env, args;
    ch_sandbox_env(o->dir, o->extra_env, &env);
    ch_strvec_init(&args);
    int has_runner = o->runner && *o->runner;
    ch_sandbox_runner_args(o->runner, &args);
    for (char *const *a = argv; *a; a++)
        ch_strvec_push(&args, *a);
    char *exe = program_path(args.items[0]);
    free(args.items[0]);
    args.items[0] = exe;
    /* (a compiler is no sanitized oracle, and nvcc is large to read) */
    int sanitized = !o->compiler && uses_sanitizer_runtime(exe);
    /* LeakSanitizer stops the world with ptrace from a forked tracer, which the filter refuses;
     * an oracle's leaks do not matter to verification */
    if (sanitized)
        ch_strvec_push(&env, "ASAN_OPTIONS=detect_leaks=0");
    /* the user's own settings for the nvcc they run (the same flags as their builds) */
    static const char *const compiler_vars[] = {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", NULL};
    for (size_t i = 0; o->compiler && compiler_vars[i]; i++)
        if (getenv(compiler_vars[i]))
            ch_strvec_push_owned(&env,
                                 ch_xasprintf("%s=%s", compiler_vars[i], getenv(compiler_vars[i])));
    /* the GPU run reaches the MPS server the user set up */
    const char *mps = getenv("CUDA_MPS_PIPE_DIRECTORY");
    if (mps && *mps && !o->cpu_only && !o->compiler)
        ch_strvec_push_owned(&env, ch_xasprintf("CUDA_MPS_PIPE_DIRECTORY=%s", mps));
    iso_plan plan;
    memset(&plan, 0, sizeof plan);
    ch_strvec_init(&plan.owned);
    unsigned known = plan_paths(o, exe, &plan);
    /* a runner (srun, ssh), compute-sanitizer and a compiler start programs; a runner may talk
     * to the network */
    plan.restrict_all = !has_runner && !o->allow_spawn && !o->compiler;
    plan.new_net = !o->allow_network && !has_runner;
    /* System V IPC outlives a process: a segment a reference run creates stays on the host
     * (attacks5 sb02). Only runs without the GPU get their own namespace: the CUDA driver's
     * use of System V IPC is not something to break unseen */
    plan.new_ipc = o->cpu_only && !has_runner;
    plan.no_sockets = (o->cpu_only || o->compiler) && !has_runner && !o->allow_network;
    /* a spawning launcher is trusted by the caller's choice: not reported as partial */
    known |= has_runner ? CH_ISO_RUNNER : 0u;
    ch_error ferr;
    if (iso_plan_filter(&plan, exe, &ferr) != 0)
        known |= CH_ISO_SECCOMP;
    known |= chown_run_dir(o->dir);
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.cwd = o->dir;
    po.envp = env.items;
    po.capture_stdout = 1;
    po.capture_stderr = !o->merge_output;
    po.merge_stderr = o->merge_output;
    po.stdin_path = "/dev/null";
    po.wall_seconds = o->wall_seconds > 0 ? o->wall_seconds : 60;
    po.cpu_seconds = o->cpu_seconds > 0 ? o->cpu_seconds : CH_SANDBOX_CPU_SECONDS;
    po.file_size_bytes = o->file_size_bytes > 0 ? o->file_size_bytes : 4L << 30;
    po.open_files = o->open_files > 0 ? o->open_files : 256;
    po.address_space_bytes = address_space_limit(o, sanitized);
    /* threads count too (CUDA starts a few); fork is refused by the filter anyway */
    po.process_count = 4096;
    po.new_process_group = 1;
    po.capture_limit = 1 << 20;
    po.child_setup = iso_child_setup;
    po.child_ctx = &plan;
    po.gate_line = o->gate_line;
    po.gate = o->gate;
    po.gate_ctx = o->gate_ctx;
    po.gate_reply = o->gate_reply;
    po.release_line = o->release_line;
    po.release = o->release;
    po.cancel_fd = o->cancel_fd;
    int rc = ch_proc_run(args.items, &po, res, err);
    res->isolation_failed |= known;
    res->net_isolated = plan.new_net && !(res->isolation_failed & CH_ISO_NET_NS);
    if (rc == 0)
        say_partial_once(res->isolation_failed);
    iso_plan_free(&plan);
    ch_strvec_free(&args);
    ch_strvec_free(&env);
    return rc;
}
