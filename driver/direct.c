/* Direct mode in the driver (ccache's idea, for ch-cc): a warm rebuild of an annotated file is
 * served by the thin binary from a manifest, without libclang, nvcc or the real compiler. This
 * file decides which commands qualify and describes them from the argument model (the full
 * binary, the resolved compilers, the expanded arguments, the real compiler's `-M` command);
 * the key, serving and recording are library code (ch/direct_mode.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/direct_mode.h"
#include "ch/fsutil.h"
#include "direct.h"

char *ch_direct_depfile(const ch_args *a, const char *user_obj)
{
    return a->dep_mf ? ch_xstrdup(a->dep_mf) : ch_path_with_suffix(user_obj, ".d");
}

char *ch_direct_object(const ch_args *a, const ch_input *in)
{
    return a->output ? ch_xstrdup(a->output) : ch_path_with_suffix(ch_path_base(in->path), ".o");
}

long ch_direct_input(const ch_driver *d, const int *annotated)
{
    const ch_args *a = &d->args;
    if (!a->compile_only || a->syntax_only || a->assemble_only || a->n_inputs != 1 ||
        !annotated[0] || d->launcher || d->personality == CH_REAL_NVCC ||
        strcmp(a->inputs[0].path, "-") == 0 || !*ch_config_get(&d->cfg, "cache_dir"))
        return -1;
    return 0;
}

/* ch-cc-full: this process when it is the full binary, else the one next to the thin one. */
static char *full_binary_path(void)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        if (strcmp(ch_path_base(self), "ch-cc-full") == 0)
            return ch_xstrdup(self);
    }
    /* the thin binary's "bin/../libexec/..." and the full one's own path must key alike */
    char *full = ch_driver_full_binary();
    char *real = full ? realpath(full, NULL) : NULL;
    free(full);
    return real;
}

/* The key of the command's input in (ch_direct_mode_key over what the driver resolved). */
static int command_key(const ch_driver *d, const ch_input *in, char key[33])
{
    ch_error err;
    char *full = full_binary_path();
    char *compiler = ch_driver_compiler(d, &err);
    char *nvcc = ch_real_compiler(d, CH_REAL_NVCC, &err);
    ch_direct_command c = {.cfg = &d->cfg,
                           .self = full,
                           .source = in->path,
                           .compiler = compiler,
                           .nvcc = nvcc,
                           .args = d->args.expanded.items,
                           .n_args = d->args.expanded.len};
    int rc = ch_direct_mode_key(&c, key);
    free(full);
    free(compiler);
    free(nvcc);
    return rc;
}

int ch_direct_serve(ch_driver *d, size_t input, int *status)
{
    const ch_args *a = &d->args;
    const ch_input *in = &a->inputs[input];
    char key[33];
    if (command_key(d, in, key) != 0)
        return 0;
    char *obj = ch_direct_object(a, in);
    char *dep = a->dep_md ? ch_direct_depfile(a, obj) : NULL;
    ch_direct_outputs out = {obj, dep, ch_config_get(&d->cfg, "report_dir")};
    ch_strvec warnings;
    ch_strvec_init(&warnings);
    int served = ch_direct_mode_serve(ch_config_get(&d->cfg, "cache_dir"), key, &out, &warnings);
    ch_driver_print_warnings(&warnings);
    free(dep);
    free(obj);
    if (served)
        *status = 0;
    return served;
}

/* The real compiler's arguments for listing the files it reads: the user's, without outputs,
 * inputs and dependency options, plus -M, and -v for its include search list (which paths a
 * new header could shadow one read from). */
static void deps_argv(const ch_driver *d, const ch_input *in, char *compiler, ch_strvec *argv)
{
    const ch_args *a = &d->args;
    static const char *const alone[] = {"-c", "-MD", "-MMD", "-MP", "-M", "-MM", "-MG", NULL};
    static const char *const with_value[] = {"-MF", "-MT", "-MQ", NULL};
    ch_strvec_push_owned(argv, compiler);
    for (size_t i = 0; i < a->expanded.len; i++) {
        const char *s = a->expanded.items[i];
        int skip = a->output_nargs && i >= a->output_argi && i < a->output_argi + a->output_nargs;
        for (size_t k = 0; k < a->n_inputs; k++)
            skip |= a->inputs[k].argi == i;
        for (size_t k = 0; alone[k]; k++)
            skip |= strcmp(s, alone[k]) == 0;
        for (size_t k = 0; with_value[k]; k++) {
            if (strcmp(s, with_value[k]) == 0) {
                i++;
                skip = 1;
            } else if (strncmp(s, with_value[k], 3) == 0) {
                skip = 1;
            }
        }
        skip |= strncmp(s, "-Wp,-M", 6) == 0;
        if (!skip)
            ch_strvec_push(argv, s);
    }
    ch_strvec_push(argv, "-M");
    ch_strvec_push(argv, "-v");
    ch_strvec_push(argv, "-MT");
    ch_strvec_push(argv, "x");
    ch_strvec_push(argv, in->path);
}

void ch_direct_record(ch_driver *d, size_t input, const char *user_obj, long long started,
                      const char *page, const char *page_name)
{
    const ch_args *a = &d->args;
    const ch_input *in = &a->inputs[input];
    char key[33];
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler || command_key(d, in, key) != 0) {
        free(compiler);
        return;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    deps_argv(d, in, compiler, &argv);
    char *dep = a->dep_md ? ch_direct_depfile(a, user_obj) : NULL;
    /* best effort: a command not recorded is built again next time */
    ch_direct_mode_record(ch_config_get(&d->cfg, "cache_dir"), key, argv.items, user_obj, dep, page,
                          page_name, started, &err);
    free(dep);
    ch_strvec_free(&argv);
}
