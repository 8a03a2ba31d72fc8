/* Private to src/scan: small libclang helpers shared by scan.c (entries) and ast_ir.c (bodies).
 * Every location is an expansion location in the main file, so positions near macros point at
 * what the user wrote. Strings returned as char * are malloc'd and owned by the caller. */
#ifndef CH_SCAN_CLX_H
#define CH_SCAN_CLX_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "ch/entry.h"
#include "ch/error.h"
#include "ch/ir.h"
#include "ch/types.h"

typedef struct clx_loc {
    unsigned line, col;
    size_t offset;
} clx_loc;

clx_loc clx_loc_of(CXSourceLocation l);
clx_loc clx_cursor_loc(CXCursor c);
/* The cursor's extent with both ends at their expansion locations in one file. libclang keeps
 * the start of an expression that begins inside a macro at its spelling location (the macro's
 * #define, possibly in a header), and clang_tokenize of such a range across two files returns
 * no tokens. */
CXSourceRange clx_file_extent(CXTranslationUnit tu, CXCursor c);
clx_loc clx_extent_begin(CXCursor c);
clx_loc clx_extent_end(CXCursor c);
/* A CXString as an owned C string. */
char *clx_str(CXString s);
/* The scalar a (canonical) type names, or CH_T_UNKNOWN. */
ch_scalar clx_scalar(CXType t);
/* The cursor's tokens joined with single spaces only between words ("a[i] + 1" -> "a[i]+1"
 * stays readable as "a[i]+1"); caller frees. */
char *clx_text(CXTranslationUnit tu, CXCursor c);

/* Builds the IR of a function body (a CompoundStmt cursor); fn is the function, whose
 * parameters give VAR nodes their param_index. */
ch_ir *clx_build_body(CXTranslationUnit tu, CXCursor fn, CXCursor body);

/* Fills e->helpers: the functions body calls (transitively) whose definitions the TU shows
 * outside system headers, except fn itself; callees first. */
void clx_collect_helpers(CXTranslationUnit tu, CXCursor fn, CXCursor body, ch_entry *e);

/* A function definition as clang prints it from the AST (macros expanded); caller frees. */
char *clx_pretty(CXCursor def);

/* Writes the file path, whose contents the caller read as text (len bytes), preprocessed
 * (`-E`, lang "c" or "c++", the scan's -I/-D/-U/-include/-std options) to out_path; the input
 * is written into dir (a temporary directory of the caller's) first; see expand.c. */
int clx_expand_text(const char *path, const char *text, size_t len, const char *lang,
                    char *const *clang_args, const char *dir, const char *out_path, ch_error *err);
/* For preprocessed text with line markers: map[k] is the line of user_path that line k of text
 * comes from, 0 for lines from elsewhere and for markers; *n_lines entries. Caller frees. */
unsigned *clx_expanded_lines(const char *text, size_t len, const char *user_path, size_t *n_lines);

#endif
