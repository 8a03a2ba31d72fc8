/* ch_error: error values filled by library code and printed only by the driver. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ch/error.h"

int ch_error_set(ch_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->located = 0;
    return -1;
}

int ch_error_at(ch_error *err, const char *file, unsigned line, unsigned col, const char *fmt, ...)
{
    if (!err)
        return -1;
    int n = snprintf(err->msg, sizeof err->msg, "%s:%u:%u: error: ", file, line, col);
    if (n < 0 || (size_t)n >= sizeof err->msg)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    va_end(ap);
    err->located = 1;
    return -1;
}

int ch_error_prefix(ch_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char old[CH_ERROR_MAX];
    memcpy(old, err->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n + 3 < sizeof err->msg) {
        size_t room = sizeof err->msg - (size_t)n;
        snprintf(err->msg + n, room, ": %.*s", (int)(room - 3), old);
    }
    return -1;
}

void ch_error_clear(ch_error *err)
{
    if (err) {
        err->msg[0] = '\0';
        err->located = 0;
    }
}
