/* Compiler, launcher and link modes. The fast path (no input mentions `harness`) execs the
 * real compiler with the arguments exactly as given, so exit status, stdout and stderr are the
 * real compiler's byte for byte; only commands that compile annotated files take the harness
 * path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "driver.h"
#include "ch/emit.h"
#include "link.h"

/* nvcc for CUDA inputs and nvcc-only options; the host compilers for plain C/C++ commands
 * and links. When nothing says otherwise (configure's `-v`, `-dumpmachine`, `-dM -E -` on
 * stdin), the invocation name decides: ch-nvcc answers as nvcc, ch-cc as the host C compiler. */
static ch_real_kind personality_of(const ch_args *a, int nvcc_name)
{
    int c = 0, cxx = 0, cu = a->has_x_cu, objects = 0;
    for (size_t i = 0; i < a->n_inputs; i++) {
        switch (a->inputs[i].lang) {
        case CH_LANG_CU:
            cu = 1;
            break;
        case CH_LANG_C:
        case CH_LANG_ASM:
            c = 1;
            break;
        case CH_LANG_CXX:
            cxx = 1;
            break;
        case CH_LANG_OBJECT:
            objects = 1;
            break;
        default:
            break;
        }
    }
    if (cu || a->nvcc_only)
        return CH_REAL_NVCC;
    if (cxx)
        return CH_REAL_CXX;
    if (c || objects)
        return CH_REAL_CC;
    return nvcc_name ? CH_REAL_NVCC : CH_REAL_CC;
}

static int is_scannable(ch_lang lang)
{
    return lang == CH_LANG_C || lang == CH_LANG_CXX || lang == CH_LANG_CU;
}

/* Only commands that compile take the harness path; -E, -M, --dryrun and friends must behave
 * exactly as the real compiler's. */
static int compiles(const ch_args *a)
{
    return !a->preprocess_only && !a->dep_only && !a->dryrun && !a->version;
}

int ch_driver_spawn(char *const *argv)
{
    ch_error err;
    ch_proc_result res;
    ch_proc_result_init(&res);
    int rc = ch_proc_run(argv, NULL, &res, &err);
    int status = rc == 0 ? res.exit_code : 1;
    if (rc != 0)
        ch_driver_report(&err);
    ch_proc_result_free(&res);
    return status;
}

void ch_driver_version_line(const ch_driver *d, FILE *to)
{
    ch_error err;
    char *paths[3];
    for (int k = 0; k < 3; k++) {
        paths[k] = ch_real_compiler(d, (ch_real_kind)k, &err);
    }
    fprintf(to, "ch-cc %s (nvcc: %s, cc: %s, c++: %s)\n", CH_CC_VERSION,
            paths[0] ? paths[0] : "not found", paths[1] ? paths[1] : "not found",
            paths[2] ? paths[2] : "not found");
    fflush(to);
    for (int k = 0; k < 3; k++)
        free(paths[k]);
}

static int has_arg(const ch_driver *d, const char *word)
{
    for (int i = 0; i < d->argc; i++)
        if (strcmp(d->argv[i], word) == 0)
            return 1;
    return 0;
}

/* `--version` and `--help` without inputs: ch-cc's part first, then the real compiler's.
 * --version's own line goes to stderr so that stdout, which autoconf, libtool, Meson and CMake
 * parse (`gcc (Debian 12.2.0-14) 12.2.0`, `Cuda compilation tools, release ...`), is the real
 * compiler's byte for byte; --help is read by people, so its part goes to stdout. */
static void print_own_part(const ch_driver *d, const char *compiler)
{
    if (d->launcher || d->args.n_inputs > 0)
        return;
    if (has_arg(d, "--version")) /* not -V: gcc refuses it, and must be seen to */
        ch_driver_version_line(d, stderr);
    if (has_arg(d, "--help")) {
        printf("ch-cc %s: nvcc for CUDA inputs (and as ch-nvcc), the host C compiler for the "
               "rest;\nfunctions marked `#pragma harness` become verified CUDA kernels.\n"
               "ch-cc's own options: ch-cc --harness-help; the manual: man ch-cc.\n"
               "The real compiler's help (%s) follows.\n\n",
               CH_CC_VERSION, compiler);
        fflush(stdout);
    }
}

void ch_driver_choose_personality(ch_driver *d)
{
    d->personality = personality_of(&d->args, d->nvcc_name);
}

int ch_compile_run(ch_driver *d)
{
    ch_args *a = &d->args;
    ch_driver_choose_personality(d);
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return 1;
    }
    print_own_part(d, compiler);

    int *annotated = ch_xcalloc(a->n_inputs + 1, sizeof *annotated);
    int any = 0;
    if (compiles(a))
        for (size_t i = 0; i < a->n_inputs; i++)
            if (is_scannable(a->inputs[i].lang) && strcmp(a->inputs[i].path, "-") != 0 &&
                ch_file_contains(a->inputs[i].path, "harness", 7))
                any = annotated[i] = 1;
    if (any) {
        free(compiler);
        int status = ch_harness_compile(d, annotated);
        free(annotated);
        return status;
    }
    free(annotated);

    /* Fast path: the arguments as given (only --harness-* settings removed). When such
     * settings came from a response file, the expanded list is what the compiler must see. */
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push_owned(&argv, compiler);
    int harness_in_orig = 0;
    for (int i = 0; i < d->argc; i++)
        harness_in_orig |= strncmp(d->argv[i], "--harness-", 10) == 0;
    int from_response = a->harness.len > 0 && !harness_in_orig;
    ch_strvec_pushv(&argv, from_response ? &a->expanded : &a->orig);
    if (d->personality != CH_REAL_NVCC && !d->launcher && ch_link_needs_cuda_runtime(a)) {
        char *nvcc = ch_real_compiler(d, CH_REAL_NVCC, &err);
        ch_link_cuda_runtime_flags(nvcc, &argv);
        free(nvcc);
    }
    /* nvcc links the CUDA runtime itself, but not the trusted runtime harness units call */
    if (d->personality == CH_REAL_NVCC && !d->launcher && ch_link_needs_ch_runtime(a))
        ch_emit_runtime_nvcc_link_args(&argv);
    if (ch_proc_exec(argv.items, &err) != 0)
        ch_driver_report(&err);
    ch_strvec_free(&argv);
    return 1;
}
