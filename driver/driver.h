/* Driver internals shared by the files of driver/: the invocation being served and the
 * functions that serve each mode. Only driver/ prints to the user and chooses exit codes. */
#ifndef CH_DRIVER_H
#define CH_DRIVER_H

#include <stdio.h>

#include "ch/args.h"
#include "ch/config.h"
#include "ch/entry.h"
#include "ch/error.h"

typedef enum ch_real_kind { CH_REAL_NVCC = 0, CH_REAL_CC, CH_REAL_CXX } ch_real_kind;

typedef struct ch_driver {
    ch_config cfg;
    ch_args args;
    int argc;                 /* the arguments after the program name (and after a launcher's */
    char **argv;              /* compiler), borrowed from main */
    char **argv_full;         /* main's argv, program name included (for delegation) */
    char *launcher;           /* launcher mode: the compiler named first (owned), else NULL */
    ch_real_kind personality; /* which real compiler this command goes to */
    int nvcc_name;            /* invoked as ch-nvcc (a name containing "nvcc"): a command
                                 without a language-bearing input answers as nvcc, not cc */
} ch_driver;

/* Prints "ch-cc: error: MSG" (or a located message as is) to stderr. */
void ch_driver_report(const ch_error *err);
/* fprintf(to, fmt, ...) with control characters escaped (ch_strbuf_add_printable): every line
 * that can quote a model's text (designs, messages, references, warnings) is printed by it. */
void ch_driver_print(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "ch-cc: warning: MSG" to stderr. */
void ch_driver_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints each of w as a warning and frees w (what the library handed back). */
void ch_driver_print_warnings(ch_strvec *w);

/* Resolves the real compiler of a kind (config, PATH, never ch-cc itself); caller frees. */
char *ch_real_compiler(const ch_driver *d, ch_real_kind kind, ch_error *err);
/* The real compiler this invocation goes to: the launcher's, or the personality's. */
char *ch_driver_compiler(const ch_driver *d, ch_error *err);
const char *ch_real_kind_name(ch_real_kind kind);

/* Admin mode: handles --harness-<command> options. Returns 1 and sets *exit_code when the
 * command line was an admin command, 0 otherwise. */
int ch_admin_run(ch_driver *d, int *exit_code);
/* Nonzero when --harness-NAME (name of length len) is an admin command or a modifier of one
 * rather than a setting. */
int ch_admin_is_command(const char *name, size_t len);
/* The value of --harness-NAME=VALUE (NULL for a bare --harness-NAME); *present says whether the
 * option was given. The last one wins. */
const char *ch_admin_option(const ch_driver *d, const char *name, int *present);
/* Nonzero when the command line holds an admin command (not only settings). */
int ch_driver_has_admin_command(const ch_driver *d);

/* The full ch-cc (libexec/ch-cc/ch-cc-full next to this binary); caller frees. The thin
 * front binary links neither libclang nor libcurl, whose loading alone costs more than the
 * pass-through budget; it hands every command that needs them to the full binary. */
char *ch_driver_full_binary(void);
/* Replaces the process with the full binary, same arguments. Returns only on failure. */
int ch_driver_delegate(char **argv);

/* Compiler, launcher and link modes; returns the exit status (or does not return: exec). */
int ch_compile_run(ch_driver *d);
/* "ch-cc VERSION (nvcc: PATH, cc: PATH, c++: PATH)" and a newline, to `to`. */
void ch_driver_version_line(const ch_driver *d, FILE *to);
/* Chooses d->personality from the inputs and options (nvcc, cc or c++). */
void ch_driver_choose_personality(ch_driver *d);

/* The pipeline session of this command (ch/pipeline.h) from its arguments and settings: every
 * harness command opens it so one file gives one key. Close prints what the session kept to
 * say; ch_driver_session_warnings prints what it has so far. */
typedef struct ch_session ch_session;
void ch_driver_session_open(ch_driver *d, ch_session *s);
void ch_driver_session_warnings(ch_session *s);
void ch_driver_session_close(ch_session *s);

/* Harness path: the command compiles files that contain annotations. Returns the exit status. */
int ch_harness_compile(ch_driver *d, const int *annotated);
/* Whether s asks the compiler for position-independent code (-fPIC, -fpic, -fPIE, -fpie). */
int ch_driver_is_pic_flag(const char *s);
/* The compiler of the trace unit of an annotated file (harness_trace.c): the real C compiler
 * (c_linkage) or C++ compiler, -O2 and the command's ABI flags, pushed onto argv. 0, or -1
 * with err. */
int ch_harness_unit_compiler(const ch_driver *d, int c_linkage, ch_strvec *argv, ch_error *err);

/* Runs argv with inherited stdio and returns its exit status (or 1 with a message). */
int ch_driver_spawn(char *const *argv);

/* Admin commands of the modules (one file each under driver/). */
int ch_admin_list(ch_driver *d, int checklist_form);
/* --harness-plan: the builtin translator's analysis and plans (admin_plan.c). */
int ch_admin_plan(ch_driver *d);
int ch_admin_args(ch_driver *d);
int ch_admin_cache(ch_driver *d, const char *command, const char *value);
/* --harness-keygen=DIR: a signing key pair for the remote store. */
int ch_admin_keygen(const char *dir);
int ch_admin_verify(ch_driver *d, const char *candidate, const char *form);
int ch_admin_propose(ch_driver *d, const char *dir);
int ch_admin_link_flags(ch_driver *d);
/* admin_report.c: --harness-explain NAME|KEY|PREFIX [FILE], --harness-report[=DIR] FILE... */
int ch_admin_explain(ch_driver *d, const char *what);
int ch_admin_report(ch_driver *d, const char *dir);
/* The source file an admin command works on (the last C, C++ or CUDA input), or NULL. */
const ch_input *ch_admin_source(const ch_driver *d);

#endif
