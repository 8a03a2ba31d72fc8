/* The host subset check in a bounded child (ch/static_child.h): the parent's side (the limits,
 * the run, the verdict read back) and the child's (a constructor that answers
 * CH_STATIC_CHILD_ARG before main: every program that can ask for the check, ch-cc and the
 * unit tests, holds this file and so can answer it).
 *
 * The verdict travels on the child's stdout, the source on its stdin, the rest as arguments:
 *   argv: PROGRAM CH_STATIC_CHILD_ARG KIND ENTRY DEVICE FILE  (KIND "candidate" or "reference",
 *         DEVICE "0" or "1", ENTRY and FILE "" for none)
 *   stdout: "ch-cc-static-child 1\n", then "pass\n", or "refuse RULE LINE COL\n" and the
 *         message up to the end.
 * Anything else (a crash, a kill at a limit, a truncated reply) is no verdict, and refuses. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/harden.h"
#include "ch/proc.h"
#include "ch/static_child.h"

#define VERDICT_HEAD "ch-cc-static-child 1\n"

extern char **environ;

/* The rules a verdict may name, so that a finding's rule stays a static string. */
static const char *const rules[] = {
    "parse",        "indirect-call", "function-pointer", "lambda",        "virtual",
    "cast",         "union",         "builtin",          "asm",           "goto",
    "call",         "device-deref",  "host-store",       "pointer-value", "provenance",
    "static-state", "state-flow",    "magic-constant",   "compile-cost",  NULL};

typedef struct parse_limits {
    long memory_mb;
    long seconds;
} parse_limits;

static long positive_env(const char *name, long fallback)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return n > 0 && end && !*end ? n : fallback;
}

static parse_limits limits_now(void)
{
    parse_limits l = {positive_env("CH_CC_PARSE_LIMIT_MB", CH_STATIC_CHILD_MEMORY_MB),
                      positive_env("CH_CC_PARSE_LIMIT_SECONDS", CH_STATIC_CHILD_SECONDS)};
    return l;
}

/* ---- the child ------------------------------------------------------------------------------ */

static void write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* The hardening (ch/harden.h) in the child: "hardened\n" and the text, or "refuse\n" and why
 * (also when it could not be parsed: what cannot be hardened cannot run). */
static int child_harden(const char *text, ch_strbuf *src)
{
    char *hardened = NULL;
    ch_strbuf why, out;
    ch_strbuf_init(&why);
    ch_strbuf_init(&out);
    int rc = ch_harden_locals(text, &hardened, &why);
    ch_strbuf_adds(&out, VERDICT_HEAD);
    if (rc == 0)
        ch_strbuf_addf(&out, "hardened\n%s", hardened);
    else
        ch_strbuf_addf(&out, "refuse\n%s", why.data ? why.data : "");
    write_all(1, out.data, out.len);
    free(hardened);
    ch_strbuf_free(&why);
    ch_strbuf_free(&out);
    ch_strbuf_free(src);
    return 0;
}

/* Reads the source, judges it, writes the verdict: the child's whole life. */
static int child_main(char **argv)
{
    ch_strbuf src;
    ch_strbuf_init(&src);
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 3;
        ch_strbuf_add(&src, buf, (size_t)n);
    }
    if (strcmp(argv[2], "harden") == 0)
        return child_harden(src.data ? src.data : "", &src);
    ch_subset_kind kind = strcmp(argv[2], "reference") ? CH_SUBSET_CANDIDATE : CH_SUBSET_REFERENCE;
    ch_strbuf msg, out;
    ch_strbuf_init(&msg);
    ch_strbuf_init(&out);
    ch_subset_finding f = {0};
    int refused = ch_host_subset_check(src.data ? src.data : "", kind, *argv[3] ? argv[3] : NULL,
                                       argv[4][0] == '1', *argv[5] ? argv[5] : NULL, &msg, &f);
    ch_strbuf_adds(&out, VERDICT_HEAD);
    if (refused)
        ch_strbuf_addf(&out, "refuse %s %u %u\n%s", f.rule ? f.rule : "parse", f.line, f.col,
                       msg.data ? msg.data : "");
    else
        ch_strbuf_adds(&out, "pass\n");
    write_all(1, out.data, out.len);
    ch_strbuf_free(&out);
    ch_strbuf_free(&msg);
    ch_strbuf_free(&src);
    return 0;
}

/* glibc hands constructors main's arguments. The child ends here, before the program's main
 * (ch-cc's driver, Criterion's): without exit handlers, the parse's memory is the kernel's to
 * take back. */
__attribute__((constructor)) static void static_child_dispatch(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc != 6 || strcmp(argv[1], CH_STATIC_CHILD_ARG) != 0)
        return;
    int rc = child_main(argv);
    _exit(rc);
}

/* ---- the parent ----------------------------------------------------------------------------- */

/* The child's environment: ch-cc's, and what makes a limit or a crash end the child rather
 * than be caught inside it (libclang turns a crash into "error 2", which would read as an
 * unparsable source). A sanitized build cannot run under RLIMIT_AS (its shadow memory is
 * terabytes of address space): its runtime watches the resident size instead. */
static void child_env(const parse_limits *l, ch_strvec *env)
{
    ch_strvec_init(env);
    const char *asan = NULL;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "ASAN_OPTIONS=", 13) == 0)
            asan = *e + 13;
        else if (strncmp(*e, "LIBCLANG_DISABLE_CRASH_RECOVERY=", 32) != 0)
            ch_strvec_push(env, *e);
    }
    ch_strvec_push(env, "LIBCLANG_DISABLE_CRASH_RECOVERY=1");
#if defined(__SANITIZE_ADDRESS__)
    ch_strvec_push_owned(env,
                         ch_xasprintf("ASAN_OPTIONS=%s%shard_rss_limit_mb=%ld:detect_leaks=0",
                                      asan ? asan : "", asan && *asan ? ":" : "", l->memory_mb));
#else
    (void)l;
    if (asan)
        ch_strvec_push_owned(env, ch_xasprintf("ASAN_OPTIONS=%s", asan));
#endif
}

static int refuse(const char *file, ch_strbuf *msg, ch_subset_finding *f, const char *what)
{
    f->rule = "parse-limit";
    f->line = 1;
    f->col = 1;
    ch_strbuf_reset(msg);
    if (file)
        ch_strbuf_addf(msg, "%s:1:1: %s", file, what);
    else
        ch_strbuf_addf(msg, "%s (line 1, column 1)", what);
    return 1;
}

/* The refusal of a child that gave no verdict: past the time limit, or (out of memory, or a
 * parser crash: a child killed at RLIMIT_AS dies of its failed allocation) past the memory. */
static int refuse_unchecked(ch_subset_kind kind, const char *file, const parse_limits *l,
                            const ch_proc_result *r, ch_strbuf *msg, ch_subset_finding *f)
{
    const char *who = kind == CH_SUBSET_REFERENCE ? "reference" : "candidate";
    int slow = r->timed_out || (r->signaled && r->exit_code == 128 + SIGXCPU);
    char *why =
        slow ? ch_xasprintf("the %s's source needs more than %ld s to parse: refused (keep macro "
                            "and template expansion small)",
                            who, l->seconds)
             : ch_xasprintf("the %s's source needs more than %ld MiB to parse, or crashes the "
                            "parser (its parse ended with %s %d): refused (keep macro and "
                            "template expansion small)",
                            who, l->memory_mb, r->signaled ? "signal" : "status",
                            r->signaled ? r->exit_code - 128 : r->exit_code);
    refuse(file, msg, f, why);
    free(why);
    return 1;
}

static const char *known_rule(const char *name, size_t len)
{
    for (size_t i = 0; rules[i]; i++)
        if (strlen(rules[i]) == len && strncmp(rules[i], name, len) == 0)
            return rules[i];
    return NULL;
}

/* The verdict in out: 0 pass, 1 refused (msg and f set), -1 no verdict. */
static int read_verdict(const ch_strbuf *out, ch_strbuf *msg, ch_subset_finding *f)
{
    size_t hl = strlen(VERDICT_HEAD);
    if (!out->data || out->len < hl || strncmp(out->data, VERDICT_HEAD, hl) != 0)
        return -1;
    const char *p = out->data + hl;
    if (strcmp(p, "pass\n") == 0) {
        ch_strbuf_reset(msg);
        return 0;
    }
    if (strncmp(p, "refuse ", 7) != 0)
        return -1;
    p += 7;
    size_t rl = strcspn(p, " \n");
    const char *rule = known_rule(p, rl);
    unsigned line = 0, col = 0;
    const char *nl = strchr(p, '\n');
    if (!rule) /* a rule newer than this list: still the check's refusal */
        rule = "host-subset";
    if (!nl || sscanf(p + rl, " %u %u", &line, &col) != 2)
        return -1;
    f->rule = rule;
    f->line = line;
    f->col = col;
    ch_strbuf_reset(msg);
    ch_strbuf_adds(msg, nl + 1);
    return 1;
}

/* Runs the child on src within l; ch_proc_run's status, r filled. */
static int run_child(char *const *argv, const char *src, const parse_limits *l, ch_proc_result *r,
                     ch_error *err)
{
    ch_strvec env;
    child_env(l, &env);
    ch_proc_opts o = {0};
    o.envp = env.items;
    o.stdin_data = src;
    o.stdin_len = strlen(src);
    o.capture_stdout = 1;
    o.capture_stderr = 1; /* a crash's report: not ch-cc's output */
    /* a verdict, or the hardened text: the source and its insertions */
    o.capture_limit = ((size_t)1 << 20) + 4 * strlen(src);
    o.wall_seconds = (double)l->seconds;
    o.cpu_seconds = l->seconds;
#if !defined(__SANITIZE_ADDRESS__)
    o.address_space_bytes = l->memory_mb << 20;
#endif
    ch_proc_result_init(r);
    int rc = ch_proc_run(argv, &o, r, err);
    ch_strvec_free(&env);
    return rc;
}

int ch_harden_locals_bounded(const char *src, char **out, ch_strbuf *why)
{
    *out = NULL;
    parse_limits l = limits_now();
    char *const argv[] = {"/proc/self/exe", CH_STATIC_CHILD_ARG, "harden", "", "0", "", NULL};
    ch_proc_result r;
    ch_error err = {0};
    int rc = run_child(argv, src, &l, &r, &err);
    size_t hl = strlen(VERDICT_HEAD);
    const char *p = r.out.data && r.out.len >= hl && !strncmp(r.out.data, VERDICT_HEAD, hl)
                        ? r.out.data + hl
                        : NULL;
    int result = 1;
    ch_strbuf_reset(why);
    if (rc != 0) {
        ch_strbuf_addf(why, "the candidate's source could not be hardened: %s", err.msg);
    } else if (!r.timed_out && !r.signaled && r.exit_code == 0 && p &&
               strncmp(p, "hardened\n", 9) == 0) {
        /* the text as the child wrote it: capture_limit bounds it, and a text that long was
         * cut; its length must be the source's plus the insertions */
        if (r.out.len - hl - 9 >= strlen(src)) {
            *out = ch_xstrdup(p + 9);
            result = 0;
        } else {
            ch_strbuf_adds(why, "the candidate's hardened source was cut short: refused");
        }
    } else if (!r.timed_out && !r.signaled && r.exit_code == 0 && p &&
               strncmp(p, "refuse\n", 7) == 0) {
        ch_strbuf_adds(why, p + 7);
    } else {
        ch_strbuf msg;
        ch_strbuf_init(&msg);
        ch_subset_finding f = {0};
        refuse_unchecked(CH_SUBSET_CANDIDATE, NULL, &l, &r, &msg, &f);
        ch_strbuf_adds(why, msg.data ? msg.data : "");
        ch_strbuf_free(&msg);
    }
    ch_proc_result_free(&r);
    return result;
}

int ch_host_subset_check_bounded(const char *src, ch_subset_kind kind, const char *entry,
                                 int device_entry, const char *file, ch_strbuf *msg,
                                 ch_subset_finding *f)
{
    parse_limits l = limits_now();
    char *const argv[] = {"/proc/self/exe",
                          CH_STATIC_CHILD_ARG,
                          kind == CH_SUBSET_REFERENCE ? "reference" : "candidate",
                          (char *)(entry ? entry : ""),
                          device_entry ? "1" : "0",
                          (char *)(file ? file : ""),
                          NULL};
    ch_proc_result r;
    ch_error err = {0};
    int rc = run_child(argv, src, &l, &r, &err);
    int verdict = rc == 0 && !r.timed_out && !r.signaled && r.exit_code == 0
                      ? read_verdict(&r.out, msg, f)
                      : -1;
    if (rc != 0) {
        char *why = ch_xasprintf("the %s's source could not be checked: %s",
                                 kind == CH_SUBSET_REFERENCE ? "reference" : "candidate", err.msg);
        verdict = refuse(file, msg, f, why);
        free(why);
    } else if (verdict < 0) {
        verdict = refuse_unchecked(kind, file, &l, &r, msg, f);
    }
    ch_proc_result_free(&r);
    return verdict;
}
