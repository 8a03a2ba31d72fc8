/* The builtin spec reader (issue 19), table-driven from tests/unit/data/spec_cases.txt: each
 * case's spec and declaration are scanned as a user's file, read into a reference, and the
 * reference is compiled with cc and run on the case's inputs; its outputs must equal the values
 * the table gives (worked out by hand, not by ch-cc). Refusal cases must fail with a located
 * message naming what is wrong. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/entry.h"
#include "ch/fsutil.h"
#include "ch/scan.h"
#include "ch/spec_reader.h"
#include "ch/strbuf.h"

#ifndef SPEC_CASES
#define SPEC_CASES "tests/unit/data/spec_cases.txt"
#endif

typedef struct spec_case {
    int refuse;
    char *name, *decl, *spec, *clauses, *args, *want, *message;
    unsigned line;
} spec_case;

typedef struct case_list {
    spec_case *items;
    size_t n;
} case_list;

static char **field_of(spec_case *c, const char *key)
{
    static const char *const keys[] = {"decl", "spec", "clauses", "args", "want", "message"};
    char **fields[] = {&c->decl, &c->spec, &c->clauses, &c->args, &c->want, &c->message};
    for (size_t i = 0; i < 6; i++)
        if (strcmp(key, keys[i]) == 0)
            return fields[i];
    return NULL;
}

static void load_cases(case_list *l)
{
    char *text;
    size_t len;
    ch_error err;
    cr_assert_eq(ch_read_file(SPEC_CASES, &text, &len, &err), 0, "%s", err.msg);
    memset(l, 0, sizeof *l);
    unsigned line_no = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        line_no++;
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char key[16];
        int used = 0;
        if (sscanf(line, "%15s %n", key, &used) != 1)
            continue;
        const char *value = line + used;
        if (strcmp(key, "case") == 0 || strcmp(key, "refuse") == 0) {
            l->items = ch_xrealloc(l->items, (l->n + 1) * sizeof *l->items);
            spec_case *c = &l->items[l->n++];
            memset(c, 0, sizeof *c);
            c->refuse = key[0] == 'r';
            c->name = ch_xstrdup(value);
            c->line = line_no;
            continue;
        }
        cr_assert(l->n > 0, "%s: a field before the first case", SPEC_CASES);
        char **f = field_of(&l->items[l->n - 1], key);
        cr_assert_not_null(f, "%s: unknown field '%s'", SPEC_CASES, key);
        *f = ch_xstrdup(value);
    }
    free(text);
}

static void free_cases(case_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        spec_case *c = &l->items[i];
        free(c->name), free(c->decl), free(c->spec), free(c->clauses), free(c->args);
        free(c->want), free(c->message);
    }
    free(l->items);
}

/* The value list of name in "a=1 x=1,2,3 ..." or NULL. Caller frees. */
static char *value_of(const char *list, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = list; p && *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=')
            return ch_xstrndup(p + nl + 1, len - nl - 1);
        p += len;
    }
    return NULL;
}

/* main(): the inputs as the case gives them, the call, the wanted arrays printed. */
static char *test_main(const ch_entry *e, const spec_case *c)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_adds(&sb, "\n#include <stdio.h>\nint main(void)\n{\n");
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        char *v = value_of(c->args, p->name);
        cr_assert_not_null(v, "case %s (line %u): no value for %s", c->name, c->line, p->name);
        if (p->role == CH_ROLE_SCALAR)
            ch_strbuf_addf(&sb, "    %s %s = %s;\n", ch_scalar_name(p->elem), p->name, v);
        else
            ch_strbuf_addf(&sb, "    static %s %s[] = {%s};\n", ch_scalar_name(p->elem), p->name,
                           v);
        free(v);
    }
    ch_strbuf_addf(&sb, "    %s_reference(", e->name);
    for (size_t i = 0; i < e->n_params; i++)
        ch_strbuf_addf(&sb, "%s%s", i ? ", " : "", e->params[i].name);
    ch_strbuf_adds(&sb, ");\n");
    for (size_t i = 0; i < e->n_params; i++) {
        char *w = value_of(c->want, e->params[i].name);
        if (!w)
            continue;
        size_t count = 1;
        for (const char *q = w; *q; q++)
            count += *q == ',';
        ch_strbuf_addf(&sb,
                       "    for (int k = 0; k < %zu; k++) printf(\"%%.9g\\n\", (double)%s[k]);\n",
                       count, e->params[i].name);
        free(w);
    }
    ch_strbuf_adds(&sb, "    return 0;\n}\n");
    return ch_strbuf_detach(&sb);
}

/* The wanted numbers, in the order main prints them. */
static size_t wanted(const ch_entry *e, const spec_case *c, double *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < e->n_params; i++) {
        char *w = value_of(c->want, e->params[i].name);
        for (char *q = w; q && *q && n < cap;) {
            out[n++] = strtod(q, &q);
            if (*q == ',')
                q++;
        }
        free(w);
    }
    return n;
}

static int scan_case(const char *dir, const spec_case *c, ch_entry_list *l, ch_error *err)
{
    char *tu = ch_path_join(dir, "user.c");
    char *src = ch_xasprintf("#pragma harness \"%s\" %s\n%s\n", c->spec,
                             c->clauses ? c->clauses : "", c->decl);
    int rc = ch_write_file_atomic(tu, src, strlen(src), 0, err);
    ch_entry_list_init(l);
    if (rc == 0)
        rc = ch_scan_file(tu, CH_LANG_C, NULL, l, err);
    free(src);
    free(tu);
    return rc;
}

/* With SPEC_READER_DUMP=DIR set, each reading is also written to DIR/NAME.c as an annotated
 * definition, for `ch-cc --harness-propose` to show which references the translator maps. */
static void dump_for_translator(const ch_entry *e, const spec_case *c, const ch_spec_reading *r)
{
    const char *dir = getenv("SPEC_READER_DUMP");
    if (!dir)
        return;
    char *path = ch_xasprintf("%s/%s.c", dir, c->name);
    char *src = ch_xasprintf("#include <math.h>\n#pragma harness \"%s\" %s\n%s\n%s", c->spec,
                             c->clauses ? c->clauses : "", e->signature, r->body);
    ch_error err;
    ch_write_file_atomic(path, src, strlen(src), 0, &err);
    free(src);
    free(path);
}

/* Runs one case; returns NULL when it passes, else what went wrong (caller frees). */
static char *run_case(const spec_case *c, const char *dir)
{
    ch_error err;
    ch_error_clear(&err);
    ch_entry_list l;
    if (scan_case(dir, c, &l, &err) != 0 || l.len != 1) {
        ch_entry_list_free(&l);
        return ch_xasprintf("scan: %s", err.msg);
    }
    const ch_entry *e = &l.items[0];
    ch_spec_reading r;
    int rc = ch_spec_read(e, &r, &err);
    char *why = NULL;
    if (c->refuse) {
        if (rc == 0)
            why = ch_xasprintf("read as %s, but must be refused", r.how);
        else if (!strstr(err.msg, "user.c:1:1: error:") || !strstr(err.msg, c->message))
            why = ch_xasprintf("refused, but not with a located message holding '%s': %s",
                               c->message, err.msg);
        if (rc == 0)
            ch_spec_reading_free(&r);
        ch_entry_list_free(&l);
        return why;
    }
    if (rc != 0) {
        ch_entry_list_free(&l);
        return ch_xasprintf("refused: %s", err.msg);
    }
    dump_for_translator(e, c, &r);
    char *main_src = test_main(e, c);
    char *prog = ch_xasprintf("%s%s", r.reference, main_src);
    char *src_path = ch_path_join(dir, "ref.c");
    char *bin = ch_path_join(dir, "ref");
    ch_write_file_atomic(src_path, prog, strlen(prog), 0, &err);
    char *cmd = ch_xasprintf("cc -std=c11 -Wall -Werror -Wno-unused-variable -o %s %s -lm 2>&1",
                             bin, src_path);
    FILE *cc = popen(cmd, "r");
    char out[4096] = "";
    size_t got = fread(out, 1, sizeof out - 1, cc);
    out[got] = '\0';
    if (pclose(cc) != 0)
        why = ch_xasprintf("the reference does not compile (%s):\n%s%s", r.how, out, prog);
    double want[256], have[256];
    size_t n_want = wanted(e, c, want, 256), n_have = 0;
    if (!why) {
        FILE *run = popen(bin, "r");
        while (n_have < 256 && fscanf(run, "%lf", &have[n_have]) == 1)
            n_have++;
        pclose(run);
        if (n_have != n_want)
            why = ch_xasprintf("%zu outputs, %zu wanted", n_have, n_want);
        for (size_t k = 0; !why && k < n_want; k++)
            if (fabs(have[k] - want[k]) > 1e-4 * (1 + fabs(want[k])))
                why = ch_xasprintf("output %zu is %.9g, wanted %.9g (%s)\n%s", k, have[k], want[k],
                                   r.how, r.reference);
    }
    free(cmd), free(bin), free(src_path), free(prog), free(main_src);
    ch_spec_reading_free(&r);
    ch_entry_list_free(&l);
    return why;
}

Test(spec_reader, every_case_of_the_table)
{
    case_list l;
    load_cases(&l);
    ch_error err;
    char *dir = ch_make_temp_dir("specread", &err);
    cr_assert_not_null(dir, "%s", err.msg);
    size_t read = 0, refused = 0, failed = 0;
    for (size_t i = 0; i < l.n; i++) {
        char *why = run_case(&l.items[i], dir);
        if (why) {
            cr_log_error("case %s (line %u): %s", l.items[i].name, l.items[i].line, why);
            failed++;
        } else {
            *(l.items[i].refuse ? &refused : &read) += 1;
        }
        free(why);
    }
    cr_log_info("spec reader: %zu read correctly, %zu refused as they must be, %zu failed", read,
                refused, failed);
    cr_expect(read >= 60, "only %zu readable cases", read);
    cr_expect_eq(failed, 0);
    ch_remove_tree(dir, &err);
    free(dir);
    free_cases(&l);
}
