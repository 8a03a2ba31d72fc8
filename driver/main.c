/* ch-cc's entry point: recursion guard, launcher detection, argument model, configuration,
 * and dispatch to admin, compiler/link or launcher mode. Only wiring lives here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "driver.h"

/* Nested ch-cc processes beyond this depth mean a loop (a wrapper calling ch-cc back). */
#define MAX_DEPTH 4

void ch_driver_print(FILE *to, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf text, out;
    ch_strbuf_init(&text);
    ch_strbuf_init(&out);
    ch_strbuf_vaddf(&text, fmt, ap);
    va_end(ap);
    ch_strbuf_add_printable(&out, text.data ? text.data : "");
    fputs(out.data ? out.data : "", to);
    ch_strbuf_free(&text);
    ch_strbuf_free(&out);
}

void ch_driver_report(const ch_error *err)
{
    if (err->located)
        ch_driver_print(stderr, "%s\n", err->msg);
    else
        ch_driver_print(stderr, "ch-cc: error: %s\n", err->msg);
}

void ch_driver_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf msg;
    ch_strbuf_init(&msg);
    ch_strbuf_vaddf(&msg, fmt, ap);
    va_end(ap);
    ch_driver_print(stderr, "ch-cc: warning: %s\n", msg.data ? msg.data : "");
    ch_strbuf_free(&msg);
}

void ch_driver_print_warnings(ch_strvec *w)
{
    for (size_t i = 0; i < w->len; i++)
        ch_driver_warn("%s", w->items[i]);
    ch_strvec_free(w);
}

static int check_depth(ch_error *err)
{
    const char *v = getenv("CH_CC_DEPTH");
    int depth = v ? atoi(v) : 0;
    /* The full binary started by the thin one is the same ch-cc process, logically. */
    if (getenv("CH_CC_DELEGATED")) {
        unsetenv("CH_CC_DELEGATED");
        return 0;
    }
    if (depth >= MAX_DEPTH)
        return ch_error_set(err,
                            "ch-cc is calling itself (%d nested ch-cc processes): the real "
                            "compiler resolves to ch-cc; set CH_CC_NVCC / CH_CC_HOST_CC / "
                            "CH_CC_HOST_CXX to the real compilers",
                            depth);
    char buf[16];
    snprintf(buf, sizeof buf, "%d", depth + 1);
    setenv("CH_CC_DEPTH", buf, 1);
    return 0;
}

/* The personality of commands without a language-bearing input follows the name ch-cc was
 * invoked as: `ch-nvcc` (any name containing "nvcc") answers as nvcc, every other name (ch-cc,
 * a `cc` symlink) as the host C compiler, so that configure's probes see gcc. */
static int is_nvcc_name(const char *argv0)
{
    return strstr(ch_path_base(argv0), "nvcc") != NULL;
}

/* `ch-cc gcc -c x.c`: the first argument names an executable that is not an input file. A
 * first argument that is ch-cc itself (CMake's launcher with CUDACXX=ch-nvcc) is dropped; the
 * name it was called by still picks the personality. */
static void detect_launcher(ch_driver *d)
{
    while (d->argc > 0) {
        const char *first = d->argv[0];
        if (first[0] == '-' || first[0] == '@' || ch_lang_of_path(first) != CH_LANG_OTHER)
            return;
        if (!strchr(first, '/') && ch_file_exists(first))
            return; /* a file in the working directory is an input, not a compiler */
        char *exe = ch_find_executable(first, 0);
        if (!exe)
            return;
        if (ch_is_self(exe)) {
            d->nvcc_name = is_nvcc_name(first);
            free(exe);
            d->argc--;
            d->argv++;
            continue;
        }
        d->launcher = exe;
        d->argc--;
        d->argv++;
        return;
    }
}

char *ch_driver_full_binary(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = '\0';
    char *bin = ch_path_dir(self);
    char *full = ch_xasprintf("%s/../libexec/ch-cc/ch-cc-full", bin);
    free(bin);
    return full;
}

int ch_driver_delegate(char **argv)
{
    char *full = ch_driver_full_binary();
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        /* so that the full binary never takes this front binary for a real compiler */
        setenv("CH_CC_SELF", self, 1);
    }
    setenv("CH_CC_DELEGATED", "1", 1);
    fflush(NULL);
    if (full)
        execv(full, argv);
    fprintf(stderr, "ch-cc: error: cannot run the full ch-cc '%s': %s (reinstall ch-cc)\n",
            full ? full : "?", strerror(errno));
    free(full);
    return 1;
}

/* Commands and their modifiers; every other --harness-KEY=VALUE is a setting. */
static const char *const admin_words[] = {
    "help",  "config", "args",    "list",    "checklist",  "verify", "entry",   "report", "stats",
    "clean", "evict",  "explain", "propose", "link-flags", "plan",   "version", "keygen", NULL};

int ch_admin_is_command(const char *name, size_t len)
{
    for (size_t k = 0; admin_words[k]; k++)
        if (strlen(admin_words[k]) == len && strncmp(admin_words[k], name, len) == 0)
            return 1;
    return 0;
}

static int has_verify(const ch_driver *d)
{
    for (size_t i = 0; i < d->args.harness.len; i++)
        if (strncmp(d->args.harness.items[i] + 10, "verify", 6) == 0)
            return 1;
    return 0;
}

int ch_driver_has_admin_command(const ch_driver *d)
{
    for (size_t i = 0; i < d->args.harness.len; i++) {
        const char *opt = d->args.harness.items[i] + 10;
        const char *eq = strchr(opt, '=');
        size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
        /* --harness-report is verify's output form with --harness-verify, else a command */
        if (ch_admin_is_command(opt, klen) && strncmp(opt, "entry", klen) != 0 &&
            (strncmp(opt, "report", klen) != 0 || !has_verify(d)))
            return 1;
    }
    return 0;
}

static int apply_harness_settings(ch_driver *d, ch_error *err)
{
    for (size_t i = 0; i < d->args.harness.len; i++) {
        const char *opt = d->args.harness.items[i] + 10; /* after "--harness-" */
        const char *eq = strchr(opt, '=');
        size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
        if (ch_admin_is_command(opt, klen))
            continue;
        char *key = ch_xstrndup(opt, klen);
        int rc = ch_config_set(&d->cfg, key, eq ? eq + 1 : "1", CH_CFG_CMDLINE, err);
        free(key);
        if (rc != 0)
            return ch_error_set(err, "unknown option '%s' (see ch-cc --harness-help)",
                                d->args.harness.items[i]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    ch_driver d;
    memset(&d, 0, sizeof d);
    d.argc = argc - 1;
    d.argv = argv + 1;
    d.argv_full = argv;
    d.nvcc_name = is_nvcc_name(argv[0]);
    ch_error err;
    ch_error_clear(&err);
    int status = 1;
    /* the front binary already printed the configuration's warnings; say them once */
    int delegated = getenv("CH_CC_DELEGATED") != NULL;
    if (check_depth(&err) != 0) {
        ch_driver_report(&err);
        return 1;
    }
    detect_launcher(&d);
    if (ch_config_load(&d.cfg, NULL, &err) != 0) {
        ch_driver_report(&err);
        goto out;
    }
    for (size_t i = 0; !delegated && i < d.cfg.warnings.len; i++)
        ch_driver_warn("%s", d.cfg.warnings.items[i]);
    if (ch_args_parse(&d.args, d.argc, d.argv, getenv("NVCC_PREPEND_FLAGS"),
                      getenv("NVCC_APPEND_FLAGS"), &err) != 0 ||
        apply_harness_settings(&d, &err) != 0) {
        ch_driver_report(&err);
        goto out;
    }
    if (ch_admin_run(&d, &status))
        goto out;
    status = ch_compile_run(&d);
out:
    ch_args_free(&d.args);
    ch_config_free(&d.cfg);
    free(d.launcher);
    return status;
}
