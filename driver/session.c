/* The one session of a command (ch/pipeline.h) opened from the driver's argument model: the
 * build, --harness-list, --harness-verify and --harness-propose all open it here, so the same
 * command line gives the same targets, oracle and keys everywhere. The driver prints what the
 * session collects (warnings, live progress). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/pipeline.h"
#include "driver.h"

/* Live progress on stderr: one line rewritten in place. */
static void print_progress(void *ctx, const char *line)
{
    (void)ctx;
    fputs("\r\033[K", stderr);
    if (line)
        ch_driver_print(stderr, "%s", line);
    fflush(stderr);
}

int ch_driver_is_pic_flag(const char *s)
{
    return strcmp(s, "-fPIC") == 0 || strcmp(s, "-fpic") == 0 || strcmp(s, "-fPIE") == 0 ||
           strcmp(s, "-fpie") == 0;
}

/* The flags of generated units the command implies: position-independent code when the user's
 * compile is, the user's host compiler. */
static void unit_flags(const ch_args *a, ch_strvec *out)
{
    for (size_t i = 0; i < a->expanded.len; i++)
        if (ch_driver_is_pic_flag(a->expanded.items[i]))
            ch_strvec_push_owned(out, ch_xasprintf("-Xcompiler=%s", a->expanded.items[i]));
    for (size_t i = 0; i < a->xcompiler.len; i++)
        if (strncmp(a->xcompiler.items[i], "-fP", 3) == 0 ||
            strncmp(a->xcompiler.items[i], "-fp", 3) == 0)
            ch_strvec_push_owned(out, ch_xasprintf("-Xcompiler=%s", a->xcompiler.items[i]));
    if (a->ccbin) {
        ch_strvec_push(out, "-ccbin");
        ch_strvec_push(out, a->ccbin);
    }
}

/* The quiet setting, or -w (gcc's and nvcc's "no warnings"), which silences ch-cc's notes too. */
static int is_quiet(const ch_driver *d)
{
    int quiet = 0;
    ch_error err;
    ch_config_bool(&d->cfg, "quiet", &quiet, &err);
    for (size_t i = 0; i < d->args.expanded.len; i++)
        if (strcmp(d->args.expanded.items[i], "-w") == 0 ||
            strcmp(d->args.expanded.items[i], "--disable-warnings") == 0)
            quiet = 1;
    return quiet;
}

void ch_driver_session_open(ch_driver *d, ch_session *s)
{
    ch_error err;
    char *nvcc = ch_real_compiler(d, CH_REAL_NVCC, &err);
    ch_strvec flags;
    ch_strvec_init(&flags);
    unit_flags(&d->args, &flags);
    int quiet = is_quiet(d);
    ch_session_opts o = {
        .cfg = &d->cfg,
        .arch_opts = &d->args.arch_opts,
        .scan_args = &d->args.scan_args,
        .opt = d->args.opt,
        .nvcc = nvcc ? nvcc : "nvcc",
        .unit_flags = &flags,
        .quiet = quiet,
        .progress = !quiet && isatty(2) ? print_progress : NULL,
    };
    ch_session_open(s, &o);
    ch_strvec_free(&flags);
    free(nvcc);
    ch_driver_session_warnings(s);
}

void ch_driver_session_warnings(ch_session *s)
{
    ch_strvec warnings;
    ch_strvec_init(&warnings);
    ch_session_take_warnings(s, &warnings);
    ch_driver_print_warnings(&warnings);
}

void ch_driver_session_close(ch_session *s)
{
    ch_strvec warnings;
    ch_strvec_init(&warnings);
    /* with the cache's last warnings (the statistics update at close) */
    ch_session_close(s, &warnings);
    ch_driver_print_warnings(&warnings);
}
