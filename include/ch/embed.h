/* Text files built into the binary (tools/embed.sh: prompt templates, the translator's kernel
 * templates) and the {{key}} placeholders they are written with. */
#ifndef CH_EMBED_H
#define CH_EMBED_H

#include <stddef.h>

/* One embedded file; tools/embed.sh emits NULL-terminated arrays of these. */
struct ch_embedded_file {
    const char *name;
    const char *text;
    size_t len;
};

/* The text of the file called name in files, or NULL. */
const char *ch_embedded_text(const struct ch_embedded_file *files, const char *name);

/* Fills {{key}} placeholders from vars ({"key", "value"} pairs, NULL-terminated); unknown
 * placeholders stay as written. Caller frees. */
char *ch_template_fill(const char *tmpl, const char *const *vars);

#endif
