/* Errors returned as values.
 *
 * Library code (src/, cache/) never prints and never exits: it fills a ch_error and returns
 * nonzero. The driver decides how to print it ("ch-cc: error: ..." or, when the error is about a
 * place in a source file, "file:line:col: error: ...") and which exit status follows. */
#ifndef CH_ERROR_H
#define CH_ERROR_H

#include <stddef.h>

#define CH_ERROR_MAX 2048

typedef struct ch_error {
    /* Nonzero when the message is already located ("file:line:col: error: ..."). */
    int located;
    char msg[CH_ERROR_MAX];
} ch_error;

/* Sets a plain message (no location); returns -1 so callers can `return ch_error_set(...)`. */
int ch_error_set(ch_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets a located compiler-style message: "FILE:LINE:COL: error: MESSAGE". Returns -1. */
int ch_error_at(ch_error *err, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Prefixes context to an existing plain message ("context: old message"). Returns -1. */
int ch_error_prefix(ch_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void ch_error_clear(ch_error *err);

#endif
