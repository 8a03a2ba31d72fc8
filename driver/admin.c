/* Admin mode: every --harness-<command> option. Settings (--harness-KEY=VALUE) are applied in
 * main.c; this file dispatches the commands to the module that owns each one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/cleanup.h"
#include "driver.h"

const char *ch_admin_option(const ch_driver *d, const char *name, int *present)
{
    size_t n = strlen(name);
    *present = 0;
    const char *value = NULL;
    for (size_t i = 0; i < d->args.harness.len; i++) {
        const char *opt = d->args.harness.items[i] + 10;
        if (strncmp(opt, name, n) != 0 || (opt[n] != '\0' && opt[n] != '='))
            continue;
        *present = 1;
        value = opt[n] == '=' ? opt + n + 1 : NULL;
    }
    return value;
}

static void print_help(void)
{
    printf(
        "usage: ch-cc [nvcc or cc options] files...     compile (annotated functions become "
        "verified CUDA kernels)\n"
        "       ch-nvcc [nvcc options] files...         the same, answering as nvcc when no "
        "input says\n"
        "                                               (use as CUDACXX / NVCC)\n"
        "       ch-cc COMPILER [options] files...       launcher mode (like ccache)\n"
        "CUDA inputs go to nvcc; C, C++, assembler and object inputs to the host compilers; a\n"
        "command with none of them (-v, --version, -dumpmachine, -E -) answers as cc under the\n"
        "name ch-cc and as nvcc under the name ch-nvcc.\n"
        "admin commands:\n"
        "  --harness-version                    ch-cc's version and the real compilers it uses\n"
        "  --harness-help                       this text (the manual: man ch-cc)\n"
        "  --harness-list [options] FILE        entries of FILE as JSON\n"
        "  --harness-checklist [options] FILE   checklist entries of FILE as JSON\n"
        "  --harness-plan [--harness-entry=NAME] [options] FILE\n"
        "                                       what the builtin translator makes of each body:\n"
        "                                       dependences, parallel loops, kernels\n"
        "  --harness-verify=CAND.cu [--harness-entry=NAME] [options] FILE\n"
        "                                       verify a hand-written candidate\n"
        "  --harness-propose=DIR [--harness-entry=NAME] [options] FILE\n"
        "                                       write the agent's candidates, unverified\n"
        "  --harness-link-flags                 what linking harness objects with another driver\n"
        "                                       needs (the static CUDA runtime)\n"
        "  --harness-stats[=json]               cache counters\n"
        "  --harness-clean                      remove every cache entry\n"
        "  --harness-evict                      apply the cache size limit now\n"
        "  --harness-explain NAME|KEY|PREFIX [FILE]\n"
        "                                       what an entry became and why: by function name\n"
        "                                       (in FILE, or the newest cached), key or prefix\n"
        "  --harness-report[=DIR] [options] FILE...\n"
        "                                       an HTML page of FILE's entries (plots, kernel,\n"
        "                                       reasons) in DIR (ch-cc-report); after every\n"
        "                                       build with --harness-report_dir=DIR\n"
        "  --harness-keygen=DIR                 a key pair signing remote cache entries\n"
        "  --harness-config                     every setting and where it came from\n"
        "  --harness-args [options] files       the argument model of a command, as JSON\n"
        "settings: --harness-KEY=VALUE for any key of --harness-config (e.g. "
        "--harness-budget=4)\n"
        "  --harness-quiet (or CH_CC_QUIET=1, or -w)  no progress lines and no host-path "
        "notes\n");
}

int ch_admin_run(ch_driver *d, int *exit_code)
{
    int present;
    const char *value;
    /* every command of the full binary may make temporary directories (the thin one makes
     * none): removed on a signal, and those of killed runs swept now */
    ch_cleanup_install();
    if (ch_admin_option(d, "help", &present), present) {
        print_help();
        *exit_code = 0;
        return 1;
    }
    if (ch_admin_option(d, "version", &present), present) {
        printf("ch-cc %s (revision %s)\n", CH_CC_VERSION, CH_CC_REVISION);
        ch_driver_version_line(d, stdout);
        *exit_code = 0;
        return 1;
    }
    if (ch_admin_option(d, "config", &present), present) {
        ch_strbuf out;
        ch_strbuf_init(&out);
        ch_config_print(&d->cfg, &out);
        fputs(out.data, stdout);
        ch_strbuf_free(&out);
        *exit_code = 0;
        return 1;
    }
    if (ch_admin_option(d, "args", &present), present) {
        ch_driver_choose_personality(d);
        *exit_code = ch_admin_args(d);
        return 1;
    }
    if (ch_admin_option(d, "list", &present), present) {
        *exit_code = ch_admin_list(d, 0);
        return 1;
    }
    if (ch_admin_option(d, "plan", &present), present) {
        *exit_code = ch_admin_plan(d);
        return 1;
    }
    if (ch_admin_option(d, "checklist", &present), present) {
        *exit_code = ch_admin_list(d, 1);
        return 1;
    }
    value = ch_admin_option(d, "verify", &present);
    if (present) {
        *exit_code = ch_admin_verify(d, value, NULL);
        return 1;
    }
    if (ch_admin_option(d, "link-flags", &present), present) {
        *exit_code = ch_admin_link_flags(d);
        return 1;
    }
    value = ch_admin_option(d, "propose", &present);
    if (present) {
        *exit_code = ch_admin_propose(d, value);
        return 1;
    }
    value = ch_admin_option(d, "keygen", &present);
    if (present) {
        *exit_code = ch_admin_keygen(value);
        return 1;
    }
    value = ch_admin_option(d, "explain", &present);
    if (present) {
        /* --harness-explain NAME [FILE]: the name may also be the next plain argument */
        if (!value && d->args.n_inputs > 0)
            value = d->args.inputs[0].path;
        *exit_code = ch_admin_explain(d, value);
        return 1;
    }
    value = ch_admin_option(d, "report", &present);
    if (present) { /* after verify, whose --harness-report=json is its output form */
        *exit_code = ch_admin_report(d, value);
        return 1;
    }
    static const char *const cache_commands[] = {"stats", "clean", "evict", NULL};
    for (size_t i = 0; cache_commands[i]; i++) {
        value = ch_admin_option(d, cache_commands[i], &present);
        if (!present)
            continue;
        *exit_code = ch_admin_cache(d, cache_commands[i], value);
        return 1;
    }
    return 0;
}
