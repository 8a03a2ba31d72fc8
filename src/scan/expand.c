/* Macro-expanded text of a source file (clx_expand_text), for bodies whose operators sit inside
 * macro definitions (`#define max_score(a, b) ((a >= b) ? a : b)`). libclang 14 does not expose
 * an operator's kind, so the IR reads operators from tokens; inside a macro's definition there
 * are no tokens at the use, and such a construct is opaque to the translator. The preprocessed
 * file has every operator in its text: the scanner parses it once more and builds the body's IR
 * from there. Line markers (`# 12 "file.c"`) map its lines back to the user's, so places in
 * messages keep the user's line numbers (columns are those of the expanded line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/proc.h"
#include "clx.h"

/* The preprocessor: the clang found (it agrees with libclang on every predefined macro and
 * builtin), else the system's cc from PATH. Static storage: the path is one of the literals. */
static const char *preprocessor(void)
{
    static const char *const clangs[] = {"/usr/bin/clang", "/usr/local/bin/clang",
                                         "/usr/lib/llvm-14/bin/clang", NULL};
    for (size_t i = 0; clangs[i]; i++)
        if (access(clangs[i], X_OK) == 0)
            return clangs[i];
    return "cc";
}

int clx_expand_text(const char *path, const char *text, size_t len, const char *lang,
                    char *const *clang_args, const char *dir, const char *out_path, ch_error *err)
{
    /* the text as the caller read it, under a #line naming the user's file (the expanded
     * text's line markers then name it too), its quoted includes searched where it is */
    ch_strbuf in;
    ch_strbuf_init(&in);
    ch_strbuf_add_line_directive(&in, path);
    ch_strbuf_add(&in, text, len);
    char *in_path = ch_path_join(dir, strcmp(lang, "c") == 0 ? "input.c" : "input.cpp");
    int rc = ch_write_file_atomic(in_path, in.data, in.len, 0, err);
    ch_strbuf_free(&in);
    ch_strvec argv;
    ch_strvec_init(&argv);
    ch_strvec_push(&argv, preprocessor());
    ch_strvec_push(&argv, "-E");
    ch_strvec_push(&argv, "-x");
    ch_strvec_push(&argv, lang);
    ch_strvec_push(&argv, "-D__CH_CC_SCAN__=1");
    char *user_dir = ch_path_dir(path);
    ch_strvec_push_owned(&argv, ch_xasprintf("-iquote%s", user_dir));
    free(user_dir);
    for (size_t i = 0; clang_args && clang_args[i]; i++)
        ch_strvec_push(&argv, clang_args[i]);
    ch_strvec_push(&argv, in_path);
    ch_proc_opts po;
    memset(&po, 0, sizeof po);
    po.stdout_path = out_path;
    po.capture_stderr = 1;
    po.stdin_path = "/dev/null";
    po.wall_seconds = 60;
    ch_proc_result r;
    ch_proc_result_init(&r);
    if (rc == 0)
        rc = ch_proc_run(argv.items, &po, &r, err);
    if (rc == 0 && r.exit_code != 0)
        rc = ch_error_set(err, "%s -E %s failed (exit %d)", argv.items[0], path, r.exit_code);
    ch_proc_result_free(&r);
    ch_strvec_free(&argv);
    free(in_path);
    return rc;
}

/* The file name of a line marker `# N "name" flags`, compared with want. */
static int marker_names(const char *q, size_t n, const char *want)
{
    size_t wl = strlen(want);
    return n == wl && memcmp(q, want, wl) == 0;
}

unsigned *clx_expanded_lines(const char *text, size_t len, const char *user_path, size_t *n_lines)
{
    size_t cap = 64, n = 1; /* index 0 unused: lines are 1-based */
    unsigned *map = ch_xcalloc(cap, sizeof *map);
    unsigned user_line = 0; /* 0: the current line is not the user's file */
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        if (n == cap) {
            cap *= 2;
            map = ch_xrealloc(map, cap * sizeof *map);
        }
        unsigned marker;
        int used = 0;
        if (ll > 2 && line[0] == '#' && sscanf(line, "# %u \"%n", &marker, &used) == 1 && used) {
            const char *q = line + used, *end = memchr(q, '"', ll - (size_t)used);
            user_line = end && marker_names(q, (size_t)(end - q), user_path) ? marker : 0;
            map[n++] = 0;
        } else {
            map[n++] = user_line;
            user_line += user_line ? 1 : 0;
        }
        pos += ll + (nl ? 1 : 0);
    }
    *n_lines = n;
    return map;
}
