/* The argument model: a compiler command line as nvcc and cc understand it.
 *
 * ch-cc never rewrites a command it does not need to: `orig` keeps the arguments exactly as
 * given (response files unexpanded) for the pass-through path, while the parsed fields describe
 * what the command does (inputs and their languages, output, mode, preprocessor options,
 * dependency-file options, GPU architectures) so that the harness path can rebuild commands.
 *
 * Ownership: every string and vector belongs to the ch_args; ch_args_free releases them. */
#ifndef CH_ARGS_H
#define CH_ARGS_H

#include "ch/error.h"
#include "ch/strbuf.h"
#include "ch/types.h"

typedef struct ch_input {
    char *path;   /* "-" for stdin */
    ch_lang lang; /* after -x */
    size_t argi;  /* index in `expanded` */
} ch_input;

typedef struct ch_args {
    ch_strvec orig;     /* as given, minus the program name, minus --harness-* options */
    ch_strvec expanded; /* response files (@file, --options-file) expanded in place */
    ch_strvec harness;  /* the --harness-* options, in order */
    ch_input *inputs;
    size_t n_inputs;
    char *output;                     /* -o, or NULL */
    size_t output_argi, output_nargs; /* where -o sits in `expanded` (nargs 0: no -o) */
    int compile_only, preprocess_only, assemble_only, syntax_only;
    int dep_only;          /* -M / -MM: print dependencies, no compile */
    int dep_md;            /* -MD / -MMD */
    int dep_mmd;           /* -MM / -MMD: no system headers */
    char *dep_mf;          /* -MF */
    ch_strvec dep_targets; /* -MT / -MQ values, in order */
    int dep_mp;
    int verbose, dryrun, version;
    ch_strvec includes;     /* -I */
    ch_strvec isystem;      /* -isystem */
    ch_strvec defines;      /* -D values ("N=1") */
    ch_strvec undefs;       /* -U */
    ch_strvec pre_includes; /* -include */
    ch_strvec scan_args;    /* the above as clang arguments, in command-line order, plus -std */
    char *std;              /* -std value */
    char *opt;              /* -O level ("2", "s", "") */
    int debug;
    /* the GPU architecture options as given, one entry each: "-arch=V", "-code=V" or
     * "-gencode=V" (long spellings folded to these), in parse order. Kept whole because
     * their meaning depends on each other (-code makes -arch's value the virtual
     * architecture only); driver/targets.h turns them into target architectures. */
    ch_strvec arch_opts;
    ch_strvec codegen; /* options that change generated code (for object keys) */
    int rdc;
    ch_strvec xcompiler; /* -Xcompiler values, split at commas */
    ch_strvec xlinker;
    char *ccbin;
    int nvcc_only; /* an option only nvcc understands was given */
    int has_x_cu;  /* -x cu */
} ch_args;

/* Parses argv[0..argc) (no program name). env_prepend/env_append: the NVCC_PREPEND_FLAGS /
 * NVCC_APPEND_FLAGS strings (NULL when unset); they are parsed as nvcc would see them but are
 * not added to `orig` (nvcc reads them itself). */
int ch_args_parse(ch_args *a, int argc, char *const *argv, const char *env_prepend,
                  const char *env_append, ch_error *err);
void ch_args_free(ch_args *a);

/* Splits a response file's or NVCC_*_FLAGS' text into arguments (shell-like quoting). */
void ch_args_split(const char *text, ch_strvec *out);

/* The language a path's suffix implies (CH_LANG_OTHER for unknown). */
ch_lang ch_lang_of_path(const char *path);
ch_lang ch_lang_of_x(const char *x);

#endif
