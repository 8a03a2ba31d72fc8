/* Embedded text files and their {{key}} placeholders: see ch/embed.h. */
#include <string.h>

#include "ch/embed.h"
#include "ch/strbuf.h"

const char *ch_embedded_text(const struct ch_embedded_file *files, const char *name)
{
    for (size_t i = 0; files[i].name; i++)
        if (strcmp(files[i].name, name) == 0)
            return files[i].text;
    return NULL;
}

char *ch_template_fill(const char *tmpl, const char *const *vars)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    const char *p = tmpl;
    while (*p) {
        const char *open = strstr(p, "{{");
        const char *close = open ? strstr(open + 2, "}}") : NULL;
        if (!open || !close) {
            ch_strbuf_adds(&sb, p);
            break;
        }
        ch_strbuf_add(&sb, p, (size_t)(open - p));
        size_t klen = (size_t)(close - open - 2);
        const char *value = NULL;
        for (size_t i = 0; vars && vars[i]; i += 2)
            if (strlen(vars[i]) == klen && strncmp(vars[i], open + 2, klen) == 0) {
                value = vars[i + 1] ? vars[i + 1] : "";
                break;
            }
        if (value)
            ch_strbuf_adds(&sb, value);
        else
            ch_strbuf_add(&sb, open, (size_t)(close + 2 - open));
        p = close + 2;
    }
    char *res = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return res;
}
