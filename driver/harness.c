/* The harness path of a compile: a command whose inputs contain annotations.
 *
 * The modes of such a command: `-c` (and -S, -fsyntax-only) of each annotated input to its
 * object, the other inputs by the real compiler; a command that also links compiles each
 * annotated input to a temporary object first and then runs the real link with those objects
 * and, when a kernel was linked, the CUDA runtime. Each annotated input is one call of
 * ch_session_assemble (src/pipeline/assemble.c: scan, entries, host copy, units, merge); this
 * file derives the host compile from the argument model, prints the outcomes and chooses the
 * exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch/assemble.h"
#include "ch/emit.h"
#include "ch/fsutil.h"
#include "ch/output.h"
#include "ch/page.h"
#include "ch/pipeline.h"
#include "direct.h"
#include "link.h"

/* ---- the host compile from the argument model ---- */

static int is_input_index(const ch_args *a, size_t argi)
{
    for (size_t i = 0; i < a->n_inputs; i++)
        if (a->inputs[i].argi == argi)
            return 1;
    return 0;
}

static int is_output_index(const ch_args *a, size_t argi)
{
    return a->output_nargs && argi >= a->output_argi && argi < a->output_argi + a->output_nargs;
}

/* Options that only matter to a link: dropped from the compile half of a compile-and-link
 * command (the compiler would warn that linker input is unused). Returns how many arguments
 * the option at i takes (0: not a link option). */
static int link_option_args(const ch_args *a, size_t i)
{
    const char *s = a->expanded.items[i];
    if (strcmp(s, "-Xlinker") == 0 || strcmp(s, "-L") == 0 || strcmp(s, "-l") == 0)
        return 2;
    if (strncmp(s, "-l", 2) == 0 || strncmp(s, "-L", 2) == 0 || strncmp(s, "-Wl,", 4) == 0)
        return 1;
    static const char *const flags[] = {"-shared",           "-static",   "-pie",
                                        "-no-pie",           "-rdynamic", "-static-libgcc",
                                        "-static-libstdc++", NULL};
    for (size_t k = 0; flags[k]; k++)
        if (strcmp(s, flags[k]) == 0)
            return 1;
    return 0;
}

/* The object a compile of input writes when the user gave no -o. */
static char *default_object(const ch_input *in)
{
    return ch_path_with_suffix(ch_path_base(in->path), ".o");
}

/* How the user's compiler compiles a host copy: the command's options without its inputs, -o
 * and (compile and link) its link options. argv (NULL-terminated) is filled and owned by the
 * caller; h borrows it. Returns -1 when the real compiler cannot be found (reported). */
static int host_compile(ch_driver *d, ch_strvec *argv, ch_host_compile *h)
{
    ch_args *a = &d->args;
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return -1;
    }
    ch_strvec_push_owned(argv, compiler);
    int links = !a->compile_only && !a->syntax_only && !a->assemble_only;
    for (size_t i = 0; i < a->expanded.len; i++) {
        int drop = links ? link_option_args(a, i) : 0;
        if (drop) {
            i += (size_t)drop - 1;
            continue;
        }
        if (!is_input_index(a, i) && !is_output_index(a, i))
            ch_strvec_push(argv, a->expanded.items[i]);
    }
    *h = (ch_host_compile){
        .argv = argv->items,
        .nvcc = d->personality == CH_REAL_NVCC,
        .compile_half = links,
        .syntax_only = a->syntax_only,
        .dep_md = a->dep_md,
        .dep_mf = a->dep_mf,
        .dep_targets = a->dep_targets.len > 0,
    };
    return 0;
}

/* ---- what the user reads ---- */

/* A compile command: the driver's invocation and the pipeline session it opened. */
typedef struct ch_build {
    ch_driver *d;
    ch_session s;
    char *page;      /* the report page the last annotated input wrote (owned), or NULL */
    char *page_name; /* its file name in the report directory (owned), or NULL */
} ch_build;

static void report_outcome(ch_session *s, const ch_outcome *o)
{
    const ch_entry *e = o->entry;
    if (!o->kernel_src) {
        if (s->quiet || !ch_session_note_is_new(s, o))
            return;
        /* a reason located in the user's file (a refusal names the loop) is reported there,
         * as compilers report a note's place, rather than at the pragma */
        const char *reason = o->reason ? o->reason : "no verified kernel";
        unsigned line = e->line, col = e->col;
        size_t fl = strlen(e->file);
        int used = 0;
        if (strncmp(reason, e->file, fl) == 0 &&
            sscanf(reason + fl, ":%u:%u: %n", &line, &col, &used) == 2 && used > 0)
            reason += fl + (size_t)used;
        else
            line = e->line, col = e->col;
        ch_driver_print(stderr, "%s:%u:%u: warning: %s: host path linked: %s [ch-cc]\n", e->file,
                        line, col, e->name, reason);
        return;
    }
    if (o->cached || s->quiet)
        return;
    char measured[96] = "";
    if (o->launcher_ms >= 0)
        snprintf(measured, sizeof measured, "; %.3f ms per call at the tune size", o->launcher_ms);
    if (o->fraction > 0)
        snprintf(measured + strlen(measured), sizeof measured - strlen(measured),
                 ", %.0f%% of the memory floor", 100.0 * o->fraction);
    /* the design line is the model's */
    ch_driver_print(stderr, "ch-cc: %s: verified kernel linked (%s%s; %d candidate%s in %.1f s)\n",
                    e->name, o->design ? o->design : "candidate", measured, o->candidates,
                    o->candidates == 1 ? "" : "s", o->seconds);
}

/* The assembly's report callback: the session's warnings so far, then the outcome's note. */
static void print_assembly(void *ctx, ch_session *s, const ch_outcome *o)
{
    (void)ctx;
    ch_driver_session_warnings(s);
    if (o)
        report_outcome(s, o);
}

/* ---- one annotated input ---- */

/* Builds obj_path for one annotated input (ch_session_assemble). Returns the exit status. */
static int annotated_object(ch_build *b, const ch_input *in, const char *user_obj,
                            const char *obj_path)
{
    ch_driver *d = b->d;
    ch_args *a = &d->args;
    ch_strvec argv, unit_argv;
    ch_strvec_init(&argv);
    ch_strvec_init(&unit_argv);
    ch_host_compile host;
    ch_error err;
    int c_file = in->lang != CH_LANG_CU && in->lang != CH_LANG_CXX;
    if (host_compile(d, &argv, &host) != 0) {
        ch_strvec_free(&argv);
        return 1;
    }
    if (ch_harness_unit_compiler(d, c_file, &unit_argv, &err) != 0) {
        ch_driver_report(&err);
        ch_strvec_free(&argv);
        ch_strvec_free(&unit_argv);
        return 1;
    }
    host.unit_argv = unit_argv.items;
    ch_assemble_opts o = {
        .path = in->path,
        .lang = in->lang == CH_LANG_CU || in->lang == CH_LANG_CXX ? in->lang : CH_LANG_C,
        .user_obj = user_obj,
        .obj_path = obj_path,
        .object = a->compile_only || (!a->syntax_only && !a->assemble_only),
        .on_fail_error = strcmp(ch_config_get(&d->cfg, "on_fail"), "error") == 0,
        .host = &host,
        .report = print_assembly,
    };
    ch_assembly built;
    ch_error_clear(&err);
    int rc = ch_session_assemble(&b->s, &o, &built, &err);
    if (rc < 0)
        ch_driver_report(&err);
    free(b->page);
    free(b->page_name);
    b->page = b->page_name = NULL;
    if (rc == 0) /* the report page after the build, when report_dir asks for it */
        b->page = ch_session_build_page(&b->s, &built.entries, built.text, in->path, &b->page_name);
    ch_assembly_free(&built);
    ch_strvec_free(&argv);
    ch_strvec_free(&unit_argv);
    return rc < 0 ? 1 : rc;
}

/* ---- the command ---- */

/* The real compiler on the command's inputs except the annotated ones (-c with several inputs). */
static int compile_others(ch_driver *d, const int *annotated)
{
    ch_args *a = &d->args;
    int others = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        others += !annotated[i];
    if (!others)
        return 0;
    ch_error err;
    char *compiler = ch_driver_compiler(d, &err);
    if (!compiler) {
        ch_driver_report(&err);
        return 1;
    }
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push_owned(&argv, compiler);
    for (size_t i = 0; i < a->expanded.len; i++) {
        int skip = 0;
        for (size_t k = 0; k < a->n_inputs; k++)
            skip |= annotated[k] && a->inputs[k].argi == i;
        if (!skip)
            ch_strvec_push(&argv, a->expanded.items[i]);
    }
    int status = ch_driver_spawn(argv.items);
    ch_strvec_free(&argv);
    return status;
}

/* Compile and link in one command: annotated inputs become temporary objects, then the real
 * compiler links everything, with the CUDA runtime when a kernel was linked. */
static int compile_and_link(ch_build *b, const int *annotated)
{
    ch_driver *d = b->d;
    ch_args *a = &d->args;
    ch_error err;
    char *tmp = ch_make_temp_dir("link", &err);
    if (!tmp) {
        ch_driver_report(&err);
        return 1;
    }
    char **objs = ch_xcalloc(a->n_inputs + 1, sizeof *objs);
    int status = 0, device = 0;
    for (size_t i = 0; i < a->n_inputs && status == 0; i++) {
        if (!annotated[i])
            continue;
        char *base = default_object(&a->inputs[i]);
        objs[i] = ch_xasprintf("%s/%zu-%s", tmp, i, base);
        status = annotated_object(b, &a->inputs[i], base, objs[i]);
        device |= status == 0 &&
                  ch_file_contains(objs[i], CH_LINK_DEVICE_SECTION, strlen(CH_LINK_DEVICE_SECTION));
        free(base);
    }
    if (status == 0) {
        char *compiler = ch_driver_compiler(d, &err);
        ch_strvec argv;
        ch_strvec_init(&argv);
        ch_strvec_push_owned(&argv, compiler ? compiler : ch_xstrdup("cc"));
        for (size_t i = 0; i < a->expanded.len; i++) {
            const char *arg = a->expanded.items[i];
            for (size_t k = 0; k < a->n_inputs; k++)
                if (objs[k] && a->inputs[k].argi == i)
                    arg = objs[k];
            ch_strvec_push(&argv, arg);
        }
        if (device && d->personality != CH_REAL_NVCC)
            ch_link_cuda_runtime_flags(b->s.nvcc, &argv);
        else if (device) /* nvcc adds the CUDA runtime, not the trusted one */
            ch_emit_runtime_nvcc_link_args(&argv);
        status = ch_driver_spawn(argv.items);
        ch_strvec_free(&argv);
    }
    for (size_t i = 0; i < a->n_inputs; i++)
        free(objs[i]);
    free(objs);
    ch_remove_tree(tmp, &err);
    free(tmp);
    return status;
}

int ch_harness_compile(ch_driver *d, const int *annotated)
{
    /* before anything is read: a file modified after this may not be recorded (direct.c) */
    long long started = (long long)time(NULL);
    long direct = ch_direct_input(d, annotated);
    ch_args *a = &d->args;
    size_t n_annotated = 0;
    for (size_t i = 0; i < a->n_inputs; i++)
        n_annotated += annotated[i] != 0;
    int compiles = a->compile_only || a->syntax_only || a->assemble_only;
    if (compiles && a->output && a->n_inputs > 1) {
        ch_driver_report(&(ch_error){0, "cannot specify -o with -c, -S or -fsyntax-only and "
                                        "several input files"});
        return 1;
    }
    for (size_t i = 0; a->output && i < a->n_inputs; i++)
        if (ch_same_file(a->inputs[i].path, a->output)) {
            /* gcc's refusal: the real compiler sees only copies, so it cannot say it here */
            fprintf(stderr, "ch-cc: error: input file '%s' is the same as output file\n",
                    a->inputs[i].path);
            return 1;
        }
    /* stricter than gcc, which writes a -MF naming the source over it: a source is never an
     * output of its own build */
    for (size_t i = 0; a->dep_mf && i < a->n_inputs; i++)
        if (ch_same_file(a->inputs[i].path, a->dep_mf)) {
            fprintf(stderr,
                    "ch-cc: error: input file '%s' is the same as the dependency file (-MF)\n",
                    a->inputs[i].path);
            return 1;
        }
    ch_build b = {d, {0}, NULL, NULL};
    ch_driver_session_open(d, &b.s);
    int status = 0;
    if (!compiles) {
        status = compile_and_link(&b, annotated);
    } else {
        status = compile_others(d, annotated);
        for (size_t i = 0; i < a->n_inputs && status == 0; i++) {
            if (!annotated[i])
                continue;
            char *obj = a->output ? ch_xstrdup(a->output)
                                  : ch_path_with_suffix(ch_path_base(a->inputs[i].path),
                                                        a->assemble_only ? ".s" : ".o");
            status = annotated_object(&b, &a->inputs[i], obj, obj);
            if (status == 0 && direct == (long)i)
                ch_direct_record(d, i, obj, started, b.page, b.page_name);
            free(obj);
        }
    }
    ch_driver_session_close(&b.s);
    free(b.page);
    free(b.page_name);
    return status;
}
