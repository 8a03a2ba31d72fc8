/* The catalog reading: named operations from a data file built into the binary
 * (catalog/operations.txt; its head comment is the format), bound to the declaration by the
 * parameters' kinds (integer sizes, floating scalars, const arrays read, arrays written), their
 * element types, their names and their order. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/embed.h"
#include "ch/types.h"
#include "spec.h"

extern const struct ch_embedded_file ch_spec_catalog_files[];

enum { G_SIZES, G_SCALARS, G_INS, G_OUTS, N_GROUPS };
static const char *const group_keys[N_GROUPS] = {"sizes:", "scalars:", "ins:", "outs:"};

typedef struct cat_op {
    char *name;
    ch_strvec phrases;
    ch_strvec roles[N_GROUPS]; /* "x" or "x:int" */
    char *body;
} cat_op;

typedef struct cat_list {
    cat_op *ops;
    size_t n;
} cat_list;

static void split_words(const char *s, ch_strvec *out)
{
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        size_t len = strcspn(s, " \t");
        if (len)
            ch_strvec_push_owned(out, ch_xstrndup(s, len));
        s += len;
    }
}

static void split_phrases(const char *s, ch_strvec *out)
{
    while (*s) {
        size_t len = strcspn(s, "|");
        char *phrase = ch_xstrndup(s, len);
        char *words = spec_words(phrase); /* " words " */
        size_t wl = strlen(words);
        if (wl > 2)
            ch_strvec_push_owned(out, ch_xstrndup(words + 1, wl - 2));
        free(words);
        free(phrase);
        s += len;
        if (*s == '|')
            s++;
    }
}

static void cat_free(cat_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->ops[i].name);
        ch_strvec_free(&l->ops[i].phrases);
        for (int g = 0; g < N_GROUPS; g++)
            ch_strvec_free(&l->ops[i].roles[g]);
        free(l->ops[i].body);
    }
    free(l->ops);
}

/* Parses the catalog's text; the format is checked by the unit test over every entry. */
static void cat_parse(const char *text, cat_list *out)
{
    memset(out, 0, sizeof *out);
    cat_op *op = NULL;
    ch_strbuf body;
    ch_strbuf_init(&body);
    int in_body = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char *l = ch_xstrndup(line, len);
        line += len + (line[len] == '\n');
        if (in_body) {
            if (strcmp(l, "end") == 0) {
                op->body = ch_strbuf_detach(&body);
                ch_strbuf_init(&body);
                in_body = 0;
            } else {
                ch_strbuf_addf(&body, "    %s\n", l);
            }
        } else if (strncmp(l, "op ", 3) == 0) {
            out->ops = ch_xrealloc(out->ops, (out->n + 1) * sizeof *out->ops);
            op = &out->ops[out->n++];
            memset(op, 0, sizeof *op);
            op->name = ch_xstrdup(l + 3);
        } else if (op && strncmp(l, "names:", 6) == 0) {
            split_phrases(l + 6, &op->phrases);
        } else if (op && strcmp(l, "body:") == 0) {
            in_body = 1;
        } else if (op) {
            for (int g = 0; g < N_GROUPS; g++)
                if (strncmp(l, group_keys[g], strlen(group_keys[g])) == 0)
                    split_words(l + strlen(group_keys[g]), &op->roles[g]);
        }
        free(l);
    }
    ch_strbuf_free(&body);
}

static int group_of(const ch_param *p)
{
    if (p->role == CH_ROLE_SCALAR)
        return ch_scalar_is_integer(p->elem) ? G_SIZES : G_SCALARS;
    return p->is_const ? G_INS : G_OUTS;
}

/* A role's type constraint: 0 none, 1 integer array, 2 floating array. */
static int role_kind(const char *role)
{
    const char *colon = strchr(role, ':');
    if (!colon)
        return 0;
    return strcmp(colon + 1, "int") == 0 ? 1 : strcmp(colon + 1, "float") == 0 ? 2 : 0;
}

static int param_fits_kind(const ch_param *p, int kind)
{
    return kind == 0 || (kind == 1 && ch_scalar_is_integer(p->elem)) ||
           (kind == 2 && ch_scalar_is_float(p->elem));
}

static char *role_name(const char *role)
{
    return ch_xstrndup(role, strcspn(role, ":"));
}

/* Binds one group's roles to the declaration's parameters of that group (idx, in written
 * order): typed roles to the parameters of their type, then the others by name when the names
 * are the roles', else in order. bound[r] = parameter index. Returns 0, or -1 when they do not
 * fit. by_order is set when names did not decide. */
static int bind_group(const ch_entry *e, const ch_strvec *roles, const size_t *idx, size_t n,
                      size_t *bound, int *by_order)
{
    if (roles->len != n)
        return -1;
    int used[16] = {0};
    if (n > 16)
        return -1;
    for (size_t r = 0; r < n; r++) {
        int kind = role_kind(roles->items[r]);
        bound[r] = (size_t)-1;
        if (!kind)
            continue;
        for (size_t k = 0; k < n; k++)
            if (!used[k] && param_fits_kind(&e->params[idx[k]], kind)) {
                bound[r] = idx[k];
                used[k] = 1;
                break;
            }
        if (bound[r] == (size_t)-1)
            return -1;
    }
    int all_named = 1;
    for (size_t r = 0; r < n && all_named; r++) {
        if (bound[r] != (size_t)-1)
            continue;
        char *want = role_name(roles->items[r]);
        int hit = 0;
        for (size_t k = 0; k < n; k++)
            hit |= !used[k] && strcmp(e->params[idx[k]].name, want) == 0;
        all_named &= hit;
        free(want);
    }
    for (size_t r = 0; r < n; r++) {
        if (bound[r] != (size_t)-1)
            continue;
        char *want = role_name(roles->items[r]);
        for (size_t k = 0; k < n; k++)
            if (!used[k] && (!all_named || strcmp(e->params[idx[k]].name, want) == 0)) {
                bound[r] = idx[k];
                used[k] = 1;
                break;
            }
        free(want);
        if (!all_named)
            *by_order = 1;
        if (bound[r] == (size_t)-1)
            return -1;
    }
    return 0;
}

/* Binds every role of op to e's parameters. Returns 0 and fills vars ({role, param} pairs) and
 * the binding's description, or -1 when the declaration does not fit op. */
static int bind_op(const ch_entry *e, const cat_op *op, ch_strvec *vars, ch_strbuf *desc)
{
    size_t idx[N_GROUPS][16], n[N_GROUPS] = {0};
    for (size_t i = 0; i < e->n_params; i++) {
        int g = group_of(&e->params[i]);
        if (n[g] == 16)
            return -1;
        idx[g][n[g]++] = i;
    }
    int by_order = 0;
    for (int g = 0; g < N_GROUPS; g++) {
        size_t bound[16];
        if (bind_group(e, &op->roles[g], idx[g], n[g], bound, &by_order) != 0)
            return -1;
        for (size_t r = 0; r < n[g]; r++) {
            char *role = role_name(op->roles[g].items[r]);
            const char *param = e->params[bound[r]].name;
            ch_strbuf_addf(desc, "%s%s=%s", desc->len ? ", " : "", role, param);
            ch_strvec_push_owned(vars, role);
            ch_strvec_push(vars, param);
        }
    }
    if (by_order)
        ch_strbuf_adds(desc, "; bound in declaration order");
    return 0;
}

/* Whether the template names a local (or a function) spelled like one of e's parameters
 * outside its {{placeholders}}: filled in, it would hide the parameter. */
static const char *template_hides(const cat_op *op, const ch_entry *e)
{
    for (const char *p = op->body; *p;) {
        if (p[0] == '{' && p[1] == '{') {
            const char *close = strstr(p, "}}");
            p = close ? close + 2 : p + 2;
            continue;
        }
        size_t len = 0;
        while (isalnum((unsigned char)p[len]) || p[len] == '_')
            len++;
        if (len && (p == op->body || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            for (size_t i = 0; i < e->n_params; i++)
                if (strlen(e->params[i].name) == len && strncmp(e->params[i].name, p, len) == 0)
                    return e->params[i].name;
        }
        p += len ? len : 1;
    }
    return NULL;
}

/* Other words allowed between a phrase's words ("multiply each element of x by"). */
enum { PHRASE_GAP = 4 };

/* Twice the length of op's longest phrase the words contain, or the length of its longest
 * phrase they hold with words between (a weaker reading), 0 for none. */
static size_t op_score(const cat_op *op, const char *words, const char **which)
{
    size_t best = 0;
    for (size_t i = 0; i < op->phrases.len; i++) {
        const char *phrase = op->phrases.items[i];
        size_t score = spec_has_phrase(words, phrase) ? 2 * strlen(phrase)
                       : strchr(phrase, ' ') && spec_has_phrase_near(words, phrase, PHRASE_GAP)
                           ? strlen(phrase)
                           : 0;
        if (score > best) {
            best = score;
            *which = phrase;
        }
    }
    return best;
}

static char *fill_body(const ch_entry *e, const cat_op *op, ch_strvec *vars)
{
    ch_scalar t = spec_elem_type(e);
    ch_strvec_push(vars, "T");
    ch_strvec_push(vars, ch_scalar_name(t));
    ch_strvec_push(vars, "f");
    ch_strvec_push(vars, t == CH_T_FLOAT ? "f" : "");
    ch_strvec_push(vars, "A");
    ch_strvec_push(vars, ch_scalar_is_float(t) ? "double" : "long long");
    char *inner = ch_template_fill(op->body, (const char *const *)vars->items);
    char *body = ch_xasprintf("{\n%s}\n", inner);
    free(inner);
    return body;
}

/* One line naming the groups op wants, for refusals. */
static void describe_wants(const cat_op *op, ch_strbuf *sb)
{
    ch_strbuf_addf(sb, "%s wants", op->name);
    for (int g = 0; g < N_GROUPS; g++) {
        ch_strbuf_addf(sb, " %zu %s", op->roles[g].len,
                       g == G_SIZES     ? "integer size(s)"
                       : g == G_SCALARS ? "floating scalar(s)"
                       : g == G_INS     ? "const input array(s)"
                                        : "output array(s)");
        ch_strbuf_adds(sb, g + 1 < N_GROUPS ? "," : "");
    }
}

int spec_read_catalog(const ch_entry *e, char **body, char **how, ch_error *err)
{
    cat_list cat;
    cat_parse(ch_embedded_text(ch_spec_catalog_files, "operations.txt"), &cat);
    char *words = spec_words(e->spec);
    size_t best = 0, ties = 0, best_op = 0, n_fitting = 0;
    size_t *fitting = ch_xcalloc(cat.n + 1, sizeof *fitting);
    const char **fit_phrase = ch_xcalloc(cat.n + 1, sizeof *fit_phrase);
    const char *best_phrase = NULL;
    ch_strbuf named, tied;
    ch_strbuf_init(&named);
    ch_strbuf_init(&tied);
    for (size_t i = 0; i < cat.n; i++) {
        const char *phrase = NULL;
        size_t score = op_score(&cat.ops[i], words, &phrase);
        if (!score)
            continue;
        ch_strvec vars;
        ch_strvec_init(&vars);
        ch_strbuf desc;
        ch_strbuf_init(&desc);
        int fits = bind_op(e, &cat.ops[i], &vars, &desc) == 0;
        const char *hidden = fits ? template_hides(&cat.ops[i], e) : NULL;
        ch_strvec_free(&vars);
        ch_strbuf_free(&desc);
        if (!fits || hidden) {
            ch_strbuf_addf(&named, "%s'%s' names ", named.len ? "; " : "", phrase);
            if (hidden)
                ch_strbuf_addf(&named,
                               "%s, whose reference has a local called %s as a "
                               "parameter is",
                               cat.ops[i].name, hidden);
            else
                describe_wants(&cat.ops[i], &named);
            continue;
        }
        fitting[n_fitting] = i;
        fit_phrase[n_fitting++] = phrase;
        if (score > best)
            best = score, best_op = i, best_phrase = phrase;
    }
    /* Another operation the words name is a second reading unless its phrase is part of the
     * chosen one's ("softmax" inside "log softmax"). */
    for (size_t f = 0; f < n_fitting && best; f++) {
        if (fitting[f] == best_op) {
            ch_strbuf_reset(&tied);
            ch_strbuf_adds(&tied, cat.ops[best_op].name);
            break;
        }
    }
    for (size_t f = 0; f < n_fitting && best; f++) {
        char *padded = ch_xasprintf(" %s ", best_phrase);
        if (fitting[f] != best_op && !spec_has_phrase(padded, fit_phrase[f])) {
            ties++;
            ch_strbuf_addf(&tied, " ('%s') and %s ('%s')", best_phrase, cat.ops[fitting[f]].name,
                           fit_phrase[f]);
        }
        free(padded);
    }
    int rc = 0;
    if (best == 0 || ties > 0) {
        const char *why = best == 0 ? "no operation the builtin knows fits it"
                                    : "two operations fit its words and declaration equally";
        rc = ch_error_at(err, e->file, e->line, e->col,
                         "%s: the spec \"%s\" cannot be read without a model: %s (%s%s%s); add a "
                         "formula to the words (for example `y[i] = a*x[i] + y[i] for every i "
                         "below n`) or configure an LLM provider (CH_CC_PROVIDER, CH_CC_MODEL)",
                         e->name, e->spec ? e->spec : "", why, best ? "read as " : "understood: ",
                         best ? tied.data
                              : (named.len ? named.data : "no assignment and no operation name"),
                         "");
    } else {
        ch_strvec vars;
        ch_strvec_init(&vars);
        ch_strbuf desc;
        ch_strbuf_init(&desc);
        bind_op(e, &cat.ops[best_op], &vars, &desc);
        *body = fill_body(e, &cat.ops[best_op], &vars);
        *how = ch_xasprintf("catalog operation %s (named by '%s'; %s)", cat.ops[best_op].name,
                            best_phrase, desc.data ? desc.data : "");
        ch_strvec_free(&vars);
        ch_strbuf_free(&desc);
    }
    ch_strbuf_free(&named);
    ch_strbuf_free(&tied);
    free(fitting);
    free(fit_phrase);
    free(words);
    cat_free(&cat);
    return rc;
}
