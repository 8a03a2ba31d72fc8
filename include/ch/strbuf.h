/* Growable byte strings, always NUL-terminated.
 *
 * A ch_strbuf owns its data; ch_strbuf_free releases it, ch_strbuf_detach hands it to the caller
 * (who frees it with free()). Allocation failure aborts: out of memory is not a condition a
 * compiler driver can recover from meaningfully. */
#ifndef CH_STRBUF_H
#define CH_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ch_strbuf {
    char *data; /* NUL-terminated; NULL only after ch_strbuf_detach */
    size_t len;
    size_t cap;
} ch_strbuf;

void ch_strbuf_init(ch_strbuf *sb);
void ch_strbuf_free(ch_strbuf *sb);
void ch_strbuf_reset(ch_strbuf *sb);
void ch_strbuf_add(ch_strbuf *sb, const void *bytes, size_t n);
void ch_strbuf_adds(ch_strbuf *sb, const char *s);
void ch_strbuf_addc(ch_strbuf *sb, char c);
void ch_strbuf_addf(ch_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends `#line 1 "PATH"` and a newline, quotes and backslashes in path escaped: a copy of a
 * source file compiled elsewhere keeps the user's name in messages, __FILE__ and line markers. */
void ch_strbuf_add_line_directive(ch_strbuf *sb, const char *path);
/* Appends s with what a terminal would act on written as `\xNN`: C0 controls but newline and
 * tab, DEL, C1 controls (U+0080-U+009F) and bytes that are not UTF-8. Text a model wrote (a
 * design line, a message, a reference) goes through it before it is printed (attacks9 #30: an
 * OSC 52 sequence in a design line writes the user's clipboard). */
void ch_strbuf_add_printable(ch_strbuf *sb, const char *s);
/* In C or CUDA text: past the comment, string or character literal that starts at p (to the
 * end of the text when it is not closed; a line comment up to its newline), or p itself when
 * none starts there. */
const char *ch_c_skip_noncode(const char *p);
void ch_strbuf_vaddf(ch_strbuf *sb, const char *fmt, va_list ap);
/* Returns the buffer's string (caller frees; "" when empty, never NULL) and leaves sb empty:
 * further adds allocate anew, ch_strbuf_free is a no-op, and sb->data is NULL until then. */
char *ch_strbuf_detach(ch_strbuf *sb);

/* Allocating helpers that abort on out of memory. */
void *ch_xmalloc(size_t n);
void *ch_xcalloc(size_t n, size_t size);
void *ch_xrealloc(void *p, size_t n);
char *ch_xstrdup(const char *s);
char *ch_xstrndup(const char *s, size_t n);
char *ch_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NULL-terminated vector of owned strings (argument lists, include paths). */
typedef struct ch_strvec {
    char **items; /* items[len] == NULL */
    size_t len;
    size_t cap;
} ch_strvec;

void ch_strvec_init(ch_strvec *v);
void ch_strvec_free(ch_strvec *v);
void ch_strvec_push(ch_strvec *v, const char *s);
void ch_strvec_push_owned(ch_strvec *v, char *s);
void ch_strvec_pushv(ch_strvec *v, const ch_strvec *other);
void ch_strvec_copy(ch_strvec *dst, const ch_strvec *src);

#endif
