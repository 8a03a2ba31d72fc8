/* The contract between the storage front (front.c) and one remote backend (http.c, redis.c,
 * file.c), as ccache's storage/: a backend moves opaque items by name and knows nothing of
 * signatures, archives, object records or counters; the front verifies, unpacks, signs and
 * counts. Each backend is a ch_storage_ops table, chosen by the URL's scheme.
 *
 * Names are what the front asks for (layout in front.c): a 32-hex entry key, alone for an
 * entry's archive or followed by a suffix of lowercase letters, digits and dots for the items
 * beside it ("<key>.o.<32 hex>" an object, "<key>.objects.<32 hex>" an object record). Every
 * backend maps a name the same way: http(s) and file:// to <base>/<first 2 chars>/<the rest>
 * .char, redis to the key "ch-cc:<name>"; so a format 1 entry (<key> alone) is where it always
 * was, and the items of one key sit beside it. A backend never trusts what it reads: the front
 * checks every byte. Not installed; only cache/ includes it. */
#ifndef CH_CACHE_STORAGE_BACKEND_H
#define CH_CACHE_STORAGE_BACKEND_H

#include <stddef.h>

#include "ch/error.h"

/* What went wrong with a remote request: the front counts each kind (remote_timeouts, ...). */
typedef enum ch_storage_fault {
    CH_STORAGE_FAILED,      /* anything else: a refused write, a local I/O error */
    CH_STORAGE_TIMEOUT,     /* no answer within remote_timeout */
    CH_STORAGE_UNREACHABLE, /* no connection (refused, no route, unknown host) */
    CH_STORAGE_BAD_REPLY,   /* an answer that is not one (HTTP 5xx, protocol error, bad archive) */
    CH_STORAGE_TOO_LARGE,   /* the item is over remote_max_size */
} ch_storage_fault;

/* Settings every backend gets; borrowed for open only. */
typedef struct ch_storage_params {
    const char *token;          /* bearer token / password, or NULL; never put in messages */
    double timeout_s;           /* per request; > 0 */
    unsigned long long max_get; /* bytes one get may write; > 0 */
} ch_storage_params;

typedef struct ch_storage_ops {
    const char *name; /* for messages: "http", "redis", "file" */
    /* Parses url and prepares (a connection may be made lazily). *state owned by the backend
     * until close. -1 with err for a URL the backend cannot use. */
    int (*open)(void **state, const char *url, const ch_storage_params *p, ch_error *err);
    void (*close)(void *state);
    /* Streams item name into fd (positioned at 0, empty), never more than max_get bytes: a
     * larger item is aborted with CH_STORAGE_TOO_LARGE while streaming. 1 found, 0 absent,
     * -1 error with *fault and err. */
    int (*get)(void *state, const char *name, int fd, ch_storage_fault *fault, ch_error *err);
    /* Stores len bytes as item name; readers never see part of it. With overwrite 0 an item
     * already there is kept (entries of one key are equivalent; an object item is named by its
     * content) and its bytes are not sent again: the backend asks whether it exists (HEAD,
     * EXISTS, stat) before sending anything. 0 stored or kept, -1 error. */
    int (*put)(void *state, const char *name, const void *data, size_t len, int overwrite,
               ch_storage_fault *fault, ch_error *err);
    /* 0 removed or absent, -1 error. */
    int (*remove)(void *state, const char *name, ch_storage_fault *fault, ch_error *err);
} ch_storage_ops;

extern const ch_storage_ops ch_storage_http;
extern const ch_storage_ops ch_storage_redis;
extern const ch_storage_ops ch_storage_file;

/* Copies from_fd into fd, at most limit bytes: 0 done, -1 over the limit (TOO_LARGE) or an I/O
 * error (FAILED), with err naming what. For backends that read a stream (file.c). */
int ch_storage_copy_limited(int from_fd, int fd, unsigned long long limit, const char *what,
                            ch_storage_fault *fault, ch_error *err);
/* Writes len bytes to fd (all of them, retrying short writes). */
int ch_storage_write_all(int fd, const void *data, size_t len, ch_error *err);

/* Tests only: step(arg) runs inside a file:// put between opening the item's directory and
 * creating its temp file, where another user could swap that directory for a link. */
void ch_storage_file_set_step(void *state, void (*step)(void *arg), void *arg);

#endif
