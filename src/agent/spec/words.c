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
