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
#include <unistd.h>

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
        "capabilities",      "seccomp",        "runner prefix",   "pid namespace"};
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
    (void)st;
    (void)type;
    (void)f;
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

/* The paths the child keeps and loses; CH_ISO_HIDE when one cannot be hidden. */
static unsigned plan_paths(const ch_sandbox_opts *o, const char *exe, iso_plan *p)
{
    p->dir = o->dir;
    add_path(p->expose, &p->n_expose, o->dir);
    add_path(p->expose, &p->n_expose, exe);
    for (size_t i = 0; i < CH_SANDBOX_MAX_PATHS && o->expose[i]; i++)
        add_path(p->expose, &p->n_expose, o->expose[i]);
    unsigned failed = add_hidden(p, getenv("HOME"));
    for (size_t i = 0; i < CH_SANDBOX_MAX_PATHS && o->hide[i]; i++)
        failed |= add_hidden(p, o->hide[i]);
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
    if (!o->cpu_only || sanitized)
        return 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    return pages > LONG_MAX / page - 1 ? 0 : pages * page + (1L << 30);
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
    int sanitized = uses_sanitizer_runtime(exe);
    /* LeakSanitizer stops the world with ptrace from a forked tracer, which the filter refuses;
     * an oracle's leaks do not matter to verification */
    if (sanitized)
        ch_strvec_push(&env, "ASAN_OPTIONS=detect_leaks=0");
    iso_plan plan;
    memset(&plan, 0, sizeof plan);
    unsigned known = plan_paths(o, exe, &plan);
    /* a runner (srun, ssh) and compute-sanitizer start programs and may talk to the network */
    plan.restrict_all = !has_runner && !o->allow_spawn;
    plan.new_net = !o->allow_network && !has_runner;
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
    po.capture_stderr = 1;
    po.stdin_path = "/dev/null";
    po.wall_seconds = o->wall_seconds > 0 ? o->wall_seconds : 60;
    po.cpu_seconds = o->cpu_seconds > 0 ? o->cpu_seconds : 120;
    po.file_size_bytes = o->file_size_bytes > 0 ? o->file_size_bytes : 4L << 30;
    po.open_files = o->open_files > 0 ? o->open_files : 256;
    po.address_space_bytes = address_space_limit(o, sanitized);
    /* threads count too (CUDA starts a few); fork is refused by the filter anyway */
    po.process_count = 4096;
    po.new_process_group = 1;
    po.capture_limit = 1 << 20;
    po.child_setup = iso_child_setup;
    po.child_ctx = &plan;
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
