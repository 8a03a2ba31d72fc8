/* Assembling the object of one annotated input (src/pipeline/assemble.c), the step after the
 * entries' outcomes (ch/pipeline.h). DESIGN §3 emit.
 *
 * The user's code is compiled by the user's compiler from a copy of the file with the pragma
 * lines blanked and a #line naming the original (line numbers, __FILE__ and depfiles stay the
 * user's), in which every entry's body is renamed to its host name; each kernel's generated
 * unit (the dispatcher) is compiled by nvcc (or taken from the cache), a spec-only entry without
 * a kernel gets its test author's reference, and the entries without a kernel get one trace unit
 * (src/emit/trace.c) that defines their functions, calls the host paths and says so under
 * CH_CC_TRACE=1; every unit keeps only its public functions global, and `ld -r` merges
 * everything into the object the command promised, which appears complete or not at all.
 *
 * A kernel whose object cannot be made or is refused by the object check (a cached or remote
 * entry, even one signed by a trusted writer, is judged again as compiled) costs the kernel,
 * not the build: the entry falls back to its host path (fallback class "object", counted, the
 * reason recorded in the entry's report.json) and the trace unit defines its function. Only
 * --harness-on-fail=error makes it an error.
 *
 * Library code: nothing here prints. What the driver shows comes through the report callback
 * (the session's warnings, each outcome); the user's compiler writes its own diagnostics.
 * Internal to ch-cc (not installed). Ownership: strings in the options are borrowed; an
 * assembly owns its text, entries and outcomes (ch_assembly_free). */
#ifndef CH_ASSEMBLE_H
#define CH_ASSEMBLE_H

#include <stddef.h>

#include "ch/pipeline.h"

/* How the user's compiler compiles the host copy: what the driver derives from the command. */
typedef struct ch_host_compile {
    char *const *argv;  /* the real compiler and the user's options without the command's inputs,
                           its -o and (compile and link) its link options; NULL-terminated */
    int nvcc;           /* the compiler is nvcc: the user's directory by -I (nvcc has no -iquote) */
    int compile_half;   /* the command also links: the copy is compiled with -c */
    int syntax_only;    /* -fsyntax-only: no object, no -o */
    int dep_md;         /* -MD/-MMD given */
    const char *dep_mf; /* -MF FILE, or NULL */
    int dep_targets;    /* -MT/-MQ given (else the user's object is the target) */
    /* the compiler of our host units (the trace unit): the real C or C++ compiler of the
     * file's language, -O2 and the command's ABI flags; NULL-terminated */
    char *const *unit_argv;
} ch_host_compile;

/* The text of the host copy: `#line 1 "PATH"` (quotes and backslashes escaped) and the host
 * source. Caller frees; *out_len its length. */
char *ch_assemble_copy_text(const char *path, const char *host, size_t len, size_t *out_len);

/* The command that compiles the host copy at copy (of the user's file path) into obj: the
 * user's options, the user's directory for quoted includes, the depfile options naming the
 * user's object, -c for a compile-and-link command, -o obj unless syntax only, the copy.
 * *depfile (caller frees): the depfile the compile writes under -MD/-MMD. */
void ch_assemble_host_argv(const ch_host_compile *h, const char *path, const char *copy,
                           const char *user_obj, const char *obj, ch_strvec *argv, char **depfile);

/* Replaces every occurrence of from by to in the depfile (so it names the user's file). */
int ch_assemble_fix_depfile(const char *depfile, const char *from, const char *to, ch_error *err);

/* What an outcome adds to the object besides the user's code. */
typedef enum ch_unit_kind {
    CH_UNIT_NONE = 0,  /* the user's body is the function */
    CH_UNIT_KERNEL,    /* the kernel's generated unit (the dispatcher) */
    CH_UNIT_REFERENCE, /* a spec-only entry's host path: the test author's reference */
} ch_unit_kind;
ch_unit_kind ch_assemble_unit_kind(const ch_outcome *o);

/* The entries of outs[0..n) whose definition the host copy renames (every one with a body: a
 * dispatcher or the trace unit takes the name), in order, into renamed (room for n). Returns
 * how many. */
size_t ch_assemble_renamed(const ch_outcome *outs, size_t n, const ch_entry **renamed);

/* The symbol a unit keeps global (the dispatcher, or a reference's host bridge, which the
 * trace unit calls); caller frees. */
char *ch_assemble_exported(const ch_outcome *o);

/* Host-path notes come once per entry, not on every warm rebuild: the note of an entry is
 * marked in the cache directory (notes/KEY), and a cache hit whose entry is marked says
 * nothing. An outcome made now (a miss: the function, its flags or the toolchain changed, or
 * the cache was cleaned) is always reported. Returns nonzero when the note is to be printed. */
int ch_session_note_is_new(ch_session *s, const ch_outcome *o);

/* One annotated input. */
typedef struct ch_assemble_opts {
    const char *path;     /* the user's source file */
    ch_lang lang;         /* its language (C, C++ or CUDA) */
    const char *user_obj; /* the object the user's command names (the depfile's target) */
    const char *obj_path; /* where the object goes */
    int object;           /* 0 (-fsyntax-only, -S): no entry is served, the copy alone is
                             compiled, to obj_path */
    int on_fail_error;    /* --harness-on-fail=error: an entry without a kernel is an error */
    const ch_host_compile *host;
    /* Called after each entry's outcome, after each fallback at the object step (o the entry's
     * outcome) and when the session may hold new warnings (o NULL): the driver prints. */
    void (*report)(void *ctx, ch_session *s, const ch_outcome *o);
    void *ctx;
} ch_assemble_opts;

/* What an input became, for the report page after the build. */
typedef struct ch_assembly {
    char *text; /* the file, read once */
    size_t len;
    ch_entry_list entries;
    ch_outcome *outcomes; /* one per entry (empty outcomes when not served) */
} ch_assembly;

/* Reads, checks and scans o->path, serves its entries, compiles the copy and the units and
 * merges them into o->obj_path. Returns 0; -1 with err (a bad annotation, an entry that must
 * fail the compile, a tool or file error); or the user's compiler's exit status when it failed
 * on the copy (its diagnostics are the message). On any failure obj_path is not written. out
 * is filled either way (ch_assembly_free). */
int ch_session_assemble(ch_session *s, const ch_assemble_opts *o, ch_assembly *out, ch_error *err);
void ch_assembly_free(ch_assembly *a);

#endif
