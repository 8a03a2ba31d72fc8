/* The spec reader's view of the words: normalised text for phrase lookup, and the declaration's
 * parameters by name and element type. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

char *spec_words(const char *spec)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_addc(&sb, ' ');
    int gap = 1;
    for (const char *p = spec ? spec : ""; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c)) {
            ch_strbuf_addc(&sb, (char)tolower(c));
            gap = 0;
        } else if (!gap) {
            ch_strbuf_addc(&sb, ' ');
            gap = 1;
        }
    }
    if (!gap)
        ch_strbuf_addc(&sb, ' ');
    return ch_strbuf_detach(&sb);
}

int spec_has_phrase(const char *words, const char *phrase)
{
    char *padded = ch_xasprintf(" %s ", phrase);
    int found = strstr(words, padded) != NULL;
    free(padded);
    return found;
}

const ch_param *spec_param(const ch_entry *e, const char *name)
{
    for (size_t i = 0; i < e->n_params; i++)
        if (strcmp(e->params[i].name, name) == 0)
            return &e->params[i];
    return NULL;
}

ch_scalar spec_elem_type(const ch_entry *e)
{
    ch_scalar first = CH_T_UNKNOWN;
    for (size_t i = 0; i < e->n_params; i++) {
        const ch_param *p = &e->params[i];
        if (p->role == CH_ROLE_SCALAR)
            continue;
        if (ch_scalar_is_float(p->elem))
            return p->elem;
        if (first == CH_T_UNKNOWN)
            first = p->elem;
    }
    return first == CH_T_UNKNOWN ? CH_T_FLOAT : first;
}

/* The phrase's words in order with at most max_gap other words before each next one
 * ("multiply every element of x by" holds "multiply by"). */
int spec_has_phrase_near(const char *words, const char *phrase, int max_gap)
{
    char *want = spec_words(phrase); /* " w1 w2 ... " */
    int found = 0;
    for (const char *start = words; !found && (start = strstr(start, " ")) != NULL; start++) {
        const char *w = want + 1, *at = start;
        int ok = 1, first = 1;
        while (ok && *w) {
            size_t wl = strcspn(w, " ");
            int gap = 0;
            for (;;) {
                if (strncmp(at + 1, w, wl) == 0 && at[1 + wl] == ' ')
                    break;
                const char *next = strchr(at + 1, ' ');
                if (first || !next || !next[1] || ++gap > max_gap) {
                    ok = 0;
                    break;
                }
                at = next;
            }
            if (ok) {
                at += 1 + wl;
                w += wl + 1;
                first = 0;
            }
        }
        found = ok;
    }
    free(want);
    return found;
}
