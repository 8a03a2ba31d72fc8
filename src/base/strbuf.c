/* Growable strings and string vectors used across the pipeline; see ch/strbuf.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch/strbuf.h"

static void out_of_memory(void)
{
    fputs("ch-cc: error: out of memory\n", stderr);
    abort();
}

void *ch_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *ch_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory();
    return p;
}

void *ch_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory();
    return q;
}

char *ch_xstrdup(const char *s)
{
    return ch_xstrndup(s, strlen(s));
}

char *ch_xstrndup(const char *s, size_t n)
{
    char *p = ch_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ch_xasprintf(const char *fmt, ...)
{
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    char *s = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb); /* detach leaves a fresh empty buffer behind */
    return s;
}

void ch_strbuf_init(ch_strbuf *sb)
{
    sb->cap = 64;
    sb->len = 0;
    sb->data = ch_xmalloc(sb->cap);
    sb->data[0] = '\0';
}

void ch_strbuf_free(ch_strbuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

void ch_strbuf_reset(ch_strbuf *sb)
{
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
}

static void reserve(ch_strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    sb->data = ch_xrealloc(sb->data, cap);
    if (sb->cap == 0)
        sb->data[0] = '\0';
    sb->cap = cap;
}

void ch_strbuf_add(ch_strbuf *sb, const void *bytes, size_t n)
{
    reserve(sb, n);
    memcpy(sb->data + sb->len, bytes, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void ch_strbuf_adds(ch_strbuf *sb, const char *s)
{
    ch_strbuf_add(sb, s, strlen(s));
}

void ch_strbuf_addc(ch_strbuf *sb, char c)
{
    ch_strbuf_add(sb, &c, 1);
}

void ch_strbuf_vaddf(ch_strbuf *sb, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return;
    reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void ch_strbuf_addf(ch_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ch_strbuf_vaddf(sb, fmt, ap);
    va_end(ap);
}

void ch_strbuf_add_line_directive(ch_strbuf *sb, const char *path)
{
    ch_strbuf_adds(sb, "#line 1 \"");
    for (const char *p = path; *p; p++) {
        if (*p == '"' || *p == '\\')
            ch_strbuf_addc(sb, '\\');
        ch_strbuf_addc(sb, *p);
    }
    ch_strbuf_adds(sb, "\"\n");
}

/* The length of the UTF-8 sequence at p when it is valid and no C1 control (U+0080-U+009F,
 * which a terminal may act on as ESC followed by a letter), else 0. A NUL ends a sequence. */
static size_t printable_sequence(const unsigned char *p)
{
    size_t n;
    unsigned cp, min;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, min = 0x80, cp = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, min = 0x800, cp = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, min = 0x10000, cp = p[0] & 0x07u;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
        return 0;
    return n;
}

void ch_strbuf_add_printable(ch_strbuf *sb, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = *p >= 0x80                                              ? printable_sequence(p)
                   : (*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ? 0
                                                                           : 1;
        if (n == 0) {
            ch_strbuf_addf(sb, "\\x%02x", *p);
            n = 1;
        } else {
            ch_strbuf_add(sb, p, n);
        }
        p += n;
    }
}

char *ch_strbuf_detach(ch_strbuf *sb)
{
    /* a buffer detached before and not added to since has no data: its string is "", never
     * NULL (a model reply with an empty code block after a full one gave strstr(NULL, ...)) */
    char *s = sb->data ? sb->data : ch_xstrdup("");
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return s;
}

void ch_strvec_init(ch_strvec *v)
{
    v->cap = 8;
    v->len = 0;
    v->items = ch_xcalloc(v->cap, sizeof *v->items);
}

void ch_strvec_free(ch_strvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}

void ch_strvec_push_owned(ch_strvec *v, char *s)
{
    if (v->len + 2 > v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->items = ch_xrealloc(v->items, v->cap * sizeof *v->items);
    }
    v->items[v->len++] = s;
    v->items[v->len] = NULL;
}

void ch_strvec_push(ch_strvec *v, const char *s)
{
    ch_strvec_push_owned(v, ch_xstrdup(s));
}

void ch_strvec_pushv(ch_strvec *v, const ch_strvec *other)
{
    for (size_t i = 0; i < other->len; i++)
        ch_strvec_push(v, other->items[i]);
}

void ch_strvec_copy(ch_strvec *dst, const ch_strvec *src)
{
    ch_strvec_init(dst);
    ch_strvec_pushv(dst, src);
}

const char *ch_c_skip_noncode(const char *p)
{
    if (p[0] == '/' && p[1] == '/')
        return p + strcspn(p, "\n");
    if (p[0] == '/' && p[1] == '*') {
        const char *end = strstr(p + 2, "*/");
        return end ? end + 2 : p + strlen(p);
    }
    if (*p == '"' || *p == '\'') {
        char quote = *p++;
        while (*p && *p != quote)
            p += p[0] == '\\' && p[1] ? 2 : 1;
        return *p ? p + 1 : p;
    }
    return p;
}
