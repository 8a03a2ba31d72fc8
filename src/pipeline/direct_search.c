/* Direct mode's view of the include search (attacks7 #13): which paths, if a file appeared or
 * disappeared there, would make the preprocessor find another file than the one it read. A
 * manifest records whether each is a file now, and a lookup requires the same, so a header
 * that shadows a recorded one (a new inc1/val.h before inc2/val.h, a generated header) is a
 * miss, not a stale hit.
 *
 * Why this is enough, without knowing which directive found which file: an include of NAME
 * resolves, given the command (keyed), to the first D/NAME that is a file, D running over the
 * includer's directory (GCC) or every includer's directory (clang), then -iquote, -I, -isystem,
 * the system directories, -idirafter; #include_next resumes the same list. Every such D is
 * in DIRS below (the compiler's own search list from -v, the directories it ignored as
 * missing or duplicate, the directory of every file read, the working directory), and for a
 * file F found as D/NAME, NAME is among the tails F has after some directory of DIRS. So
 * probing D'/T for every D' in DIRS and every tail T of every file read covers every path any
 * search consulted; order does not matter, since all of them are checked. The probes are a
 * superset (most tails are not names any directive used): a superset only costs a miss when
 * an unrelated path changes. __has_include(NAME) consults the same paths without reading a
 * file, so its literal NAMEs join the tails; a computed one cannot be known and the command
 * is not recorded, as nor is one whose compiler does not say its search list (not GCC or
 * clang) or uses frameworks or header maps. */
#include <stdlib.h>
#include <string.h>

#include "ch/direct_mode.h"
#include "ch/fsutil.h"

/* More probes than this and checking them would cost what the preprocessor costs. */
#define MAX_PROBES 200000

/* path without "." components, repeated or trailing slashes ("." and "./" are ""): the
 * compiler prints "./x/y.h" as "x/y.h" and "-I./inc/" as "./inc/", so names are compared in
 * this form. ".." is kept: only the file system knows what it means. Caller frees. */
static char *norm_path(const char *path)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    if (*path == '/')
        ch_strbuf_addc(&sb, '/');
    const char *p = path;
    while (*p) {
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && *p == '.')) {
            p += n;
            continue;
        }
        if (sb.len && sb.data[sb.len - 1] != '/')
            ch_strbuf_addc(&sb, '/');
        ch_strbuf_add(&sb, p, n);
        p += n;
    }
    return ch_strbuf_detach(&sb);
}

static int has_item(const ch_strvec *v, const char *s)
{
    for (size_t i = 0; i < v->len; i++)
        if (strcmp(v->items[i], s) == 0)
            return 1;
    return 0;
}

static void add_unique_owned(ch_strvec *v, char *s)
{
    if (has_item(v, s))
        free(s);
    else
        ch_strvec_push_owned(v, s);
}

/* The directory a quoted line of `-v` names: `ignoring nonexistent directory "X"`. */
static void add_ignored(const char *line, size_t len, ch_strvec *dirs)
{
    const char *q = memchr(line, '"', len);
    const char *end = line + len;
    while (end > line && end[-1] != '"')
        end--;
    if (q && end - 1 > q) {
        char *dir = ch_xstrndup(q + 1, (size_t)(end - 1 - q - 1));
        add_unique_owned(dirs, norm_path(dir));
        free(dir);
    }
}

/* The compiler's include search list from its `-v` report (GCC and clang write the same):
 * the "search starts here" lists and the directories it says it ignored. -1 with err when
 * the report is not there or names a framework or header map (searched another way). */
static int search_dirs(const char *report, ch_strvec *dirs, ch_error *err)
{
    int in_list = 0, complete = 0;
    for (const char *p = report; *p && !complete;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "ignoring ", 9) == 0) {
            add_ignored(p, len, dirs);
        } else if (strncmp(p, "#include ", 9) == 0 && len > 28 &&
                   strncmp(p + len - 19, "search starts here:", 19) == 0) {
            in_list = 1;
        } else if (strncmp(p, "End of search list.", 19) == 0) {
            complete = in_list;
        } else if (in_list && *p == ' ') {
            if (memchr(p, '(', len)) /* " (framework directory)", " (headermap)" */
                return ch_error_set(err, "include directory '%.*s' is not a plain one",
                                    (int)len - 1, p + 1);
            char *dir = ch_xstrndup(p + 1, len - 1);
            add_unique_owned(dirs, norm_path(dir));
            free(dir);
        }
        p += len + (p[len] == '\n');
    }
    if (!complete)
        return ch_error_set(err, "the compiler did not list its include search path (-v)");
    return 0;
}

/* The literal NAME of every __has_include(<NAME>) / ("NAME") (and _next) in text; -1 with err
 * for one whose argument is not a literal (a macro: what it names cannot be known here). */
static int has_include_names(const char *path, const char *text, ch_strvec *names, ch_error *err)
{
    for (const char *p = strstr(text, "__has_include"); p; p = strstr(p + 1, "__has_include")) {
        const char *q = p + strlen("__has_include");
        if (strncmp(q, "_next", 5) == 0)
            q += 5;
        q += strspn(q, " \t");
        if (*q != '(') /* "#ifdef __has_include", a comment */
            continue;
        q += 1 + strspn(q + 1, " \t");
        char close = *q == '<' ? '>' : *q == '"' ? '"' : 0;
        const char *end = close ? strchr(q + 1, close) : NULL;
        if (!end || memchr(q + 1, '\n', (size_t)(end - q - 1)))
            return ch_error_set(err, "%s uses __has_include with a computed argument", path);
        char *name = ch_xstrndup(q + 1, (size_t)(end - q - 1));
        ch_strvec_push_owned(names, norm_path(name));
        free(name);
    }
    return 0;
}

/* dir/rel, as the compiler builds it; "" is the working directory. Caller frees. */
static char *join(const char *dir, const char *rel)
{
    if (!*dir)
        return ch_xstrdup(rel);
    return ch_xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel);
}

/* The tail of file after dir ("a/b.h" after "a"), or NULL when dir does not hold it. */
static const char *tail_after(const char *dir, const char *file)
{
    size_t n = strlen(dir);
    if (n == 0)
        return *file == '/' ? NULL : file;
    if (strncmp(file, dir, n) != 0)
        return NULL;
    if (dir[n - 1] == '/')
        return file[n] ? file + n : NULL;
    return file[n] == '/' && file[n + 1] ? file + n + 1 : NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts v and drops repeats and the items of skip (sorted). */
static void sort_unique(ch_strvec *v, const ch_strvec *skip)
{
    if (v->len)
        qsort(v->items, v->len, sizeof *v->items, cmp_str);
    size_t kept = 0;
    for (size_t i = 0; i < v->len; i++) {
        int dup = kept && strcmp(v->items[kept - 1], v->items[i]) == 0;
        dup |= skip->len &&
               bsearch(&v->items[i], skip->items, skip->len, sizeof *skip->items, cmp_str) != NULL;
        if (dup)
            free(v->items[i]);
        else
            v->items[kept++] = v->items[i];
    }
    v->len = kept;
    if (v->items)
        v->items[kept] = NULL;
}

/* Every dir/tail of dirs and tails into probes, unless more than MAX_PROBES. */
static int cross(const ch_strvec *dirs, const ch_strvec *tails, ch_strvec *probes, ch_error *err)
{
    if (dirs->len && tails->len > MAX_PROBES / dirs->len)
        return ch_error_set(err, "%zu include names in %zu directories are too many to check",
                            tails->len, dirs->len);
    for (size_t t = 0; t < tails->len; t++)
        for (size_t d = 0; d < dirs->len; d++)
            ch_strvec_push_owned(probes, join(dirs->items[d], tails->items[t]));
    return 0;
}

int ch_direct_search_probes(const char *report, const ch_strvec *files, ch_strvec *probes,
                            ch_error *err)
{
    ch_strvec dirs, read, tails;
    ch_strvec_init(&dirs);
    ch_strvec_init(&read);
    ch_strvec_init(&tails);
    ch_strvec_push(&dirs, ""); /* -include and a quoted include of a file named bare */
    int rc = search_dirs(report, &dirs, err);
    for (size_t i = 0; i < files->len && rc == 0; i++) {
        char *f = norm_path(files->items[i]);
        char *dir = ch_path_dir(f);
        add_unique_owned(&dirs, norm_path(strcmp(dir, ".") == 0 ? "" : dir));
        free(dir);
        char *text = NULL;
        ch_error ignored;
        if (ch_read_file(files->items[i], &text, NULL, &ignored) == 0)
            rc = has_include_names(files->items[i], text, &tails, err);
        free(text);
        ch_strvec_push_owned(&read, f);
    }
    for (size_t i = 0; i < read.len && rc == 0; i++)
        for (size_t d = 0; d < dirs.len; d++) {
            const char *t = tail_after(dirs.items[d], read.items[i]);
            if (t)
                ch_strvec_push(&tails, t);
        }
    ch_strvec none = {0};
    sort_unique(&tails, &none);
    if (rc == 0)
        rc = cross(&dirs, &tails, probes, err);
    if (rc == 0) {
        sort_unique(&read, &none);
        sort_unique(probes, &read); /* a file read is checked by its hash already */
    }
    ch_strvec_free(&dirs);
    ch_strvec_free(&read);
    ch_strvec_free(&tails);
    return rc;
}
