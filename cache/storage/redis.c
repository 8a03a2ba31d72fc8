/* redis:// backend of the storage front (hiredis): one Redis string per item under the key
 * "ch-cc:<name>" (an entry "ch-cc:<key>", its objects "ch-cc:<key>.o.<hash>", their record
 * "ch-cc:<key>.objects.<hash>"; backend.h). A get asks STRLEN first (an item over remote_max_size
 * is refused before any byte moves) and then streams the value with GETRANGE in chunks into the
 * file, counting against the limit, so a large value is never held whole in memory (and no reply
 * over a chunk is buffered: a server answering with more is cut off); a put is one
 * SET, which Redis applies atomically; when an existing item must be kept, EXISTS first (the bytes
 * of an object already there are not sent) and SET NX (a writer racing in between keeps the first).
 * URL: redis://[:password@]host[:port][/db]; remote_token, when set, is the password. The
 * connection is made on first use and reused; the password never appears in messages. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "backend.h"
#include "ch/strbuf.h"

#define REDIS_CHUNK (1024 * 1024)
/* The most a reply may hold in hiredis' buffer: a GETRANGE chunk and its framing. hiredis
 * hands over a reply only once it is buffered whole, so a server that answers with more than
 * asked (a hostile one sending a bulk of gigabytes to GETRANGE or STRLEN) is cut off here,
 * before it is in memory. */
#define REDIS_MAX_REPLY (REDIS_CHUNK + 4096)

typedef struct redis_store {
    redisContext *ctx; /* NULL until connected (owned) */
    char *host;        /* owned */
    int port, db;
    char *password; /* owned, or NULL */
    char *shown;    /* redis://host:port/db, for messages (owned) */
    struct timeval timeout;
    double timeout_s;
    /* When the request in progress must have finished (CLOCK_MONOTONIC seconds): a server
     * trickling a byte within each read's timeout would otherwise hold the build forever. */
    double deadline;
    unsigned long long max_get;
} redis_store;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A get, put or remove is one request: all of it within remote_timeout, as an http one is. */
static void start_request(redis_store *r)
{
    r->deadline = now_s() + r->timeout_s;
}

/* Parses "[:password@]host[:port][/db]" after the scheme. */
static int parse_url(redis_store *r, const char *url, ch_error *err)
{
    const char *p = url + strlen("redis://");
    const char *at = strchr(p, '@');
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon)
            r->password = ch_xstrndup(colon + 1, (size_t)(at - colon - 1));
        p = at + 1;
    }
    size_t hlen = strcspn(p, ":/");
    if (hlen == 0)
        return ch_error_set(err, "remote store '%s' names no host (redis://host:port/db)", url);
    r->host = ch_xstrndup(p, hlen);
    p += hlen;
    r->port = 6379;
    if (*p == ':') {
        char *end;
        long port = strtol(p + 1, &end, 10);
        if (end == p + 1 || port <= 0 || port > 65535 || (*end && *end != '/'))
            return ch_error_set(err, "remote store '%s' has a bad port (redis://host:port/db)",
                                url);
        r->port = (int)port;
        p = end;
    }
    if (*p == '/' && p[1]) {
        char *end;
        long db = strtol(p + 1, &end, 10);
        if (end == p + 1 || db < 0 || (*end && strcmp(end, "/") != 0))
            return ch_error_set(
                err, "remote store '%s' has a bad database number (redis://host:port/db)", url);
        r->db = (int)db;
    }
    r->shown = ch_xasprintf("redis://%s:%d/%d", r->host, r->port, r->db);
    return 0;
}

static void redis_close(void *state)
{
    redis_store *r = state;
    if (!r)
        return;
    if (r->ctx)
        redisFree(r->ctx);
    free(r->host);
    if (r->password) {
        memset(r->password, 0, strlen(r->password));
        free(r->password);
    }
    free(r->shown);
    free(r);
}

static int redis_open(void **state, const char *url, const ch_storage_params *p, ch_error *err)
{
    *state = NULL;
    redis_store *r = ch_xcalloc(1, sizeof *r);
    if (parse_url(r, url, err) != 0) {
        redis_close(r);
        return -1;
    }
    if (p->token && *p->token) {
        free(r->password);
        r->password = ch_xstrdup(p->token);
    }
    r->timeout.tv_sec = (time_t)p->timeout_s;
    r->timeout.tv_usec = (suseconds_t)((p->timeout_s - (double)r->timeout.tv_sec) * 1e6);
    r->timeout_s = p->timeout_s;
    r->max_get = p->max_get;
    *state = r;
    return 0;
}

/* The kind of a context error: hiredis reports timeouts and refused connections as I/O errors
 * with errno set. */
static ch_storage_fault context_fault(const redisContext *ctx)
{
    if (ctx->err == REDIS_ERR_IO && (errno == EAGAIN || errno == ETIMEDOUT || errno == EINPROGRESS))
        return CH_STORAGE_TIMEOUT;
    if (ctx->err == REDIS_ERR_IO || ctx->err == REDIS_ERR_EOF)
        return CH_STORAGE_UNREACHABLE;
    return CH_STORAGE_BAD_REPLY;
}

static int context_error(redis_store *r, ch_storage_fault *fault, ch_error *err)
{
    *fault = context_fault(r->ctx);
    ch_error_set(err, "%s: %s", r->shown,
                 *fault == CH_STORAGE_TIMEOUT ? "no answer within remote_timeout" : r->ctx->errstr);
    /* a broken connection is not reused: the next request connects again */
    redisFree(r->ctx);
    r->ctx = NULL;
    return -1;
}

/* One command; the reply (owned by the caller, freeReplyObject) or NULL with *fault and err. A
 * Redis error reply is a bad reply. */
static redisReply *command(redis_store *r, ch_storage_fault *fault, ch_error *err, const char *fmt,
                           ...);

static int ensure_connected(redis_store *r, ch_storage_fault *fault, ch_error *err)
{
    if (r->ctx)
        return 0;
    r->ctx = redisConnectWithTimeout(r->host, r->port, r->timeout);
    if (!r->ctx) {
        *fault = CH_STORAGE_FAILED;
        return ch_error_set(err, "%s: cannot allocate a connection", r->shown);
    }
    if (r->ctx->err)
        return context_error(r, fault, err);
    redisSetTimeout(r->ctx, r->timeout);
    redisReply *rep = NULL;
    if (r->password && !(rep = command(r, fault, err, "AUTH %s", r->password)))
        return -1;
    freeReplyObject(rep);
    if (r->db && !(rep = command(r, fault, err, "SELECT %d", r->db)))
        return -1;
    freeReplyObject(rep);
    return 0;
}

/* 0 while the request's deadline is ahead (each socket wait shortened to what is left), else a
 * timeout fault with the connection dropped (its stream is mid-reply). */
static int within_deadline(redis_store *r, ch_storage_fault *fault, ch_error *err)
{
    double left = r->deadline - now_s();
    if (left > 0) {
        struct timeval tv = {(time_t)left, (suseconds_t)((left - (double)(time_t)left) * 1e6)};
        redisSetTimeout(r->ctx, tv);
        return 0;
    }
    *fault = CH_STORAGE_TIMEOUT;
    ch_error_set(err, "%s: no answer within remote_timeout (%.0f s for the whole request)",
                 r->shown, r->timeout_s);
    redisFree(r->ctx);
    r->ctx = NULL;
    return -1;
}

/* The reply to the command just appended: hiredis' redisGetReply, except that reading stops
 * once more than REDIS_MAX_REPLY bytes of an unfinished reply are buffered (a too-large fault;
 * the connection is dropped, its stream being mid-reply) or once the request's deadline has
 * passed. NULL with *fault and err on failure. */
static redisReply *bounded_reply(redis_store *r, ch_storage_fault *fault, ch_error *err)
{
    redisContext *c = r->ctx;
    int written = 0;
    while (!written)
        if (within_deadline(r, fault, err) != 0)
            return NULL;
        else if (redisBufferWrite(c, &written) != REDIS_OK) {
            context_error(r, fault, err);
            return NULL;
        }
    for (;;) {
        void *reply = NULL;
        if (redisGetReplyFromReader(c, &reply) != REDIS_OK) {
            context_error(r, fault, err);
            return NULL;
        }
        if (reply)
            return reply;
        if (c->reader->len - c->reader->pos > REDIS_MAX_REPLY) {
            *fault = CH_STORAGE_TOO_LARGE;
            ch_error_set(err, "%s: a reply larger than %d bytes (more than was asked): not read",
                         r->shown, REDIS_MAX_REPLY);
            redisFree(r->ctx);
            r->ctx = NULL;
            return NULL;
        }
        if (within_deadline(r, fault, err) != 0)
            return NULL;
        if (redisBufferRead(c) != REDIS_OK) {
            context_error(r, fault, err);
            return NULL;
        }
    }
}

static redisReply *command(redis_store *r, ch_storage_fault *fault, ch_error *err, const char *fmt,
                           ...)
{
    if (ensure_connected(r, fault, err) != 0)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    int queued = redisvAppendCommand(r->ctx, fmt, ap);
    va_end(ap);
    if (queued != REDIS_OK) {
        context_error(r, fault, err);
        return NULL;
    }
    redisReply *rep = bounded_reply(r, fault, err);
    if (!rep)
        return NULL;
    if (rep->type == REDIS_REPLY_ERROR) {
        *fault = CH_STORAGE_BAD_REPLY;
        ch_error_set(err, "%s: %.*s", r->shown, (int)rep->len, rep->str);
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

static int unexpected(redis_store *r, redisReply *rep, const char *what, ch_storage_fault *fault,
                      ch_error *err)
{
    freeReplyObject(rep);
    *fault = CH_STORAGE_BAD_REPLY;
    return ch_error_set(err, "%s: unexpected reply to %s", r->shown, what);
}

static int redis_get(void *state, const char *name, int fd, ch_storage_fault *fault, ch_error *err)
{
    redis_store *r = state;
    start_request(r);
    redisReply *rep = command(r, fault, err, "STRLEN ch-cc:%s", name);
    if (!rep)
        return -1;
    if (rep->type != REDIS_REPLY_INTEGER)
        return unexpected(r, rep, "STRLEN", fault, err);
    long long size = rep->integer;
    freeReplyObject(rep);
    if (size == 0)
        return 0; /* absent (items are never empty) */
    if ((unsigned long long)size > r->max_get) {
        *fault = CH_STORAGE_TOO_LARGE;
        return ch_error_set(err, "%s ch-cc:%s: item larger than remote_max_size (%llu bytes)",
                            r->shown, name, r->max_get);
    }
    for (long long at = 0; at < size; at += REDIS_CHUNK) {
        rep = command(r, fault, err, "GETRANGE ch-cc:%s %lld %lld", name, at, at + REDIS_CHUNK - 1);
        if (!rep)
            return -1;
        if (rep->type != REDIS_REPLY_STRING)
            return unexpected(r, rep, "GETRANGE", fault, err);
        /* a value replaced while we read shows as a short chunk or a failed checksum later; a
         * server answering with more than the range asked (a bulk of gigabytes) is not one */
        long long asked = size - at < REDIS_CHUNK ? size - at : REDIS_CHUNK;
        if (rep->len > (size_t)asked) {
            freeReplyObject(rep);
            *fault = CH_STORAGE_FAILED;
            return ch_error_set(err,
                                "%s ch-cc:%s: GETRANGE answered more than the %lld bytes asked",
                                r->shown, name, asked);
        }
        int rc = ch_storage_write_all(fd, rep->str, rep->len, err);
        size_t got = rep->len;
        freeReplyObject(rep);
        if (rc != 0) {
            *fault = CH_STORAGE_FAILED;
            return -1;
        }
        if (got == 0)
            break;
    }
    return 1;
}

/* 1 the item exists, 0 not, -1 error. */
static int redis_exists(redis_store *r, const char *name, ch_storage_fault *fault, ch_error *err)
{
    redisReply *rep = command(r, fault, err, "EXISTS ch-cc:%s", name);
    if (!rep)
        return -1;
    if (rep->type != REDIS_REPLY_INTEGER)
        return unexpected(r, rep, "EXISTS", fault, err);
    int there = rep->integer > 0;
    freeReplyObject(rep);
    return there;
}

static int redis_put(void *state, const char *name, const void *data, size_t len, int overwrite,
                     ch_storage_fault *fault, ch_error *err)
{
    redis_store *r = state;
    start_request(r);
    /* an item to keep is not sent again: SET NX would carry its bytes to the server first */
    int there = overwrite ? 0 : redis_exists(r, name, fault, err);
    if (there != 0)
        return there < 0 ? -1 : 0;
    redisReply *rep = overwrite ? command(r, fault, err, "SET ch-cc:%s %b", name, data, len)
                                : command(r, fault, err, "SET ch-cc:%s %b NX", name, data, len);
    if (!rep)
        return -1;
    /* OK, or nil when NX kept an existing item */
    int fine = rep->type == REDIS_REPLY_STATUS || rep->type == REDIS_REPLY_NIL;
    if (!fine)
        return unexpected(r, rep, "SET", fault, err);
    freeReplyObject(rep);
    return 0;
}

static int redis_remove(void *state, const char *name, ch_storage_fault *fault, ch_error *err)
{
    redis_store *r = state;
    start_request(r);
    redisReply *rep = command(r, fault, err, "DEL ch-cc:%s", name);
    if (!rep)
        return -1;
    freeReplyObject(rep);
    return 0;
}

const ch_storage_ops ch_storage_redis = {
    .name = "redis",
    .open = redis_open,
    .close = redis_close,
    .get = redis_get,
    .put = redis_put,
    .remove = redis_remove,
};
