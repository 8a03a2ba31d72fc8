/* A cache handle's warnings: what went wrong that the build survives (a damaged entry, a
 * remote that is off, a stats file rebuilt). The store and the stats file both record them; the
 * driver takes them once per compile and prints them. Kept apart from store.c so that the thin
 * binary, which links only the stats and manifest code, does not pull the store (and its
 * remote and signing dependencies) in through a warning. */
#include <stdarg.h>

#include "internal.h"

void ch_cache_warn(ch_cache *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    ch_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    ch_strvec_push_owned(&c->warnings, ch_strbuf_detach(&sb));
}

void ch_cache_take_warnings(ch_cache *c, ch_strvec *out)
{
    for (size_t i = 0; i < c->warnings.len; i++)
        ch_strvec_push(out, c->warnings.items[i]);
    ch_strvec_free(&c->warnings);
    ch_strvec_init(&c->warnings);
}
