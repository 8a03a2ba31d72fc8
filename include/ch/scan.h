/* The scan stage: finds `#pragma harness` annotations (and HARNESS attributes) in a source file
 * through libclang and describes each annotated function as a ch_entry (ch/entry.h).
 *
 * The lower layers are exposed for tests and fuzzing: the pragma grammar (pure, no libclang),
 * the blanking of pragma lines for the host compile, and the inference of directions and
 * extents over the body IR.
 *
 * Ownership: ch_scan_file appends entries that the list owns; ch_pragma_free releases what
 * ch_pragma_parse filled; ch_scan_blank returns a malloc'd copy the caller frees. */
#ifndef CH_SCAN_H
#define CH_SCAN_H

#include <stddef.h>

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/strbuf.h"
#include "ch/types.h"

/* One `#pragma harness` line found in a file's text. */
typedef struct ch_pragma_loc {
    size_t hash_offset; /* byte offset of the '#' */
    size_t body_offset; /* first byte after the `harness` keyword */
    size_t end_offset;  /* end of the logical line (before its final newline) */
    unsigned line, col; /* of the '#' (1-based) */
    unsigned body_line, body_col;
} ch_pragma_loc;

/* Finds every `#pragma harness` line (outside comments and string literals). *locs is
 * malloc'd (caller frees), *n its length. */
void ch_pragma_find(const char *text, size_t len, ch_pragma_loc **locs, size_t *n);

/* Scans path (lang: CH_LANG_C, CH_LANG_CXX or CH_LANG_CU) with clang_args (NULL-terminated
 * -I/-D/-U/-isystem/-include/-std= options, may be NULL) and appends one entry per annotated
 * function, in source order. Returns 0, or -1 with err set (located at the annotation when the
 * annotation is at fault). */
int ch_scan_file(const char *path, ch_lang lang, char *const *clang_args, ch_entry_list *out,
                 ch_error *err);
/* The same over the file's text already read (text[len] is NUL) and its pragma lines already
 * located (ch_pragma_find over text; NULL: located here): a compile reads its file and finds its
 * pragmas once. Nothing reads path again: libclang parses text as path's contents (an unsaved
 * file) and the preprocessed copy is made from text; path need not exist. */
int ch_scan_text(const char *path, const char *text, size_t len, const ch_pragma_loc *pragmas,
                 size_t n_pragmas, ch_lang lang, char *const *clang_args, ch_entry_list *out,
                 ch_error *err);

/* Pushes onto args the libclang arguments that parse a .cu file as its host side (CUDA mode,
 * host only, the toolkit at $CUDA_HOME or /usr/local/cuda). Returns the temporary directory
 * they name (a stand-in for a header clang 14 wants and CUDA 13 dropped), which the caller
 * removes (ch_remove_tree) and frees; NULL with err set when it could not be made (the
 * arguments are pushed all the same). */
char *ch_scan_cuda_host_args(ch_strvec *args, ch_error *err);

/* A same-length copy of text where every `#pragma harness` line and its backslash
 * continuations are spaces (newlines kept), so the host compile keeps line numbers. */
char *ch_scan_blank(const char *text, size_t len);
/* The same with the pragma lines already located (ch_pragma_find over text). */
char *ch_scan_blank_at(const char *text, size_t len, const ch_pragma_loc *pragmas, size_t n);

/* A parameter name written in a clause, with its place (for "names no parameter"). */
typedef struct ch_pragma_name {
    char *name;
    const char *clause; /* static clause name */
    unsigned line, col;
} ch_pragma_name;

/* What one annotation says. Owns every string; ch_pragma_free releases them. */
typedef struct ch_pragma {
    char *spec;         /* decoded, adjacent literals concatenated; NULL when bare or "" */
    char *clauses_text; /* normalised: `name(args)` joined by one space; "" when none */
    ch_clauses clauses;
    ch_pragma_name *names;
    size_t n_names;
} ch_pragma;

/* Parses what follows `harness` in a pragma: [string literals] {clause}. text need not be
 * NUL-terminated; backslash-newline continues the line. (line, col) is the place of text[0],
 * used for errors in `file`. Returns 0 or -1 with a located error. */
int ch_pragma_parse(const char *text, size_t len, const char *file, unsigned line, unsigned col,
                    ch_pragma *out, ch_error *err);
/* Parses only the clause part (the attribute form carries the spec separately). */
int ch_pragma_parse_clauses(const char *text, size_t len, const char *file, unsigned line,
                            unsigned col, ch_pragma *out, ch_error *err);
void ch_pragma_free(ch_pragma *p);
/* Moves p's clauses into c (p keeps spec and names). */
void ch_pragma_take_clauses(ch_pragma *p, ch_clauses *c);

/* Fills dir, extent and what valid input values are (is_index, index_lo, index_hi, offsets_hi,
 * the range of floating arrays) of e's params from its clauses and body: an integer array whose
 * values subscript another buffer (directly, `x[col[k]]`, or through a local, `int c = col[k];
 * x[c]`) is an index array into that buffer's extent; one whose values start or bound a loop
 * whose counter subscripts a buffer is an offsets array ending at its extent; range() and
 * offsets() clauses override both. Returns 0, or -1 with a located error (at e's pragma) when
 * a pointer's extent is neither given nor inferable from a body, or at a bad range()/offsets()
 * item. */
int ch_infer_entry(ch_entry *e, ch_error *err);

/* The polynomial simplifier behind extents: parses a C integer expression over names and
 * prints it expanded and simplified ("(m-1)*n+(n-1)+1" -> "m*n"); NULL when the expression is
 * not a polynomial with integer coefficients. Caller frees. */
char *ch_poly_simplify(const char *expr);

#endif
