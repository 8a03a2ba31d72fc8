/* HTTP(S) backend of the storage front: <base>/<first 2 chars>/<rest of the name>.char per item
 * (backend.h: an entry <2 hex>/<30 hex>.char, its objects and object record beside it), GET to read
 * (streamed to a file, the size limit enforced while streaming), PUT to write, HEAD to test
 * before a PUT that must not overwrite, DELETE to remove (WebDAV or S3-style servers). One curl
 * easy handle per backend (connection reuse across the requests of one build). The bearer token
 * is only ever put in a request header; messages name the URL without any user:password part
 * and never the token. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ch/strbuf.h"

typedef struct http_store {
    CURL *curl;
    char *base;  /* ends with '/' (owned) */
    char *shown; /* base without credentials, for messages (owned) */
    char *auth;  /* "Authorization: Bearer ..." or NULL (owned) */
    long timeout_ms;
    unsigned long long max_get;
} http_store;

static int http_open(void **state, const char *url, const ch_storage_params *p, ch_error *err)
{
    *state = NULL;
    CURL *curl = curl_easy_init();
    if (!curl)
        return ch_error_set(err, "cannot initialise libcurl");
    http_store *r = ch_xcalloc(1, sizeof *r);
    r->curl = curl;
    size_t n = strlen(url);
    r->base = n && url[n - 1] == '/' ? ch_xstrdup(url) : ch_xasprintf("%s/", url);
    const char *scheme_end = strstr(r->base, "://") + 3;
    const char *at = strchr(scheme_end, '@'), *slash = strchr(scheme_end, '/');
    if (at && (!slash || at < slash))
        r->shown = ch_xasprintf("%.*s%s", (int)(scheme_end - r->base), r->base, at + 1);
    else
        r->shown = ch_xstrdup(r->base);
    if (p->token && *p->token)
        r->auth = ch_xasprintf("Authorization: Bearer %s", p->token);
    r->timeout_ms = (long)(p->timeout_s * 1000);
    r->max_get = p->max_get;
    *state = r;
    return 0;
}

static void http_close(void *state)
{
    http_store *r = state;
    if (!r)
        return;
    curl_easy_cleanup(r->curl);
    free(r->base);
    free(r->shown);
    if (r->auth) {
        memset(r->auth, 0, strlen(r->auth));
        free(r->auth);
    }
    free(r);
}

/* Where a GET body goes: the file, counted against the limit as it arrives. */
typedef struct sink {
    int fd; /* -1: discard (HEAD, PUT replies) */
    unsigned long long limit, written;
    int overflow, io_failed;
} sink;

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    if (s->fd < 0)
        return n;
    if (s->written + n > s->limit) {
        s->overflow = 1;
        return 0;
    }
    ch_error e;
    if (ch_storage_write_all(s->fd, p, n, &e) != 0) {
        s->io_failed = 1;
        return 0;
    }
    s->written += n;
    return n;
}

typedef struct source {
    const char *data;
    size_t len, pos;
} source;

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud)
{
    source *s = ud;
    size_t n = size * nmemb, left = s->len - s->pos;
    if (n > left)
        n = left;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return n;
}

static ch_storage_fault fault_of(CURLcode cc)
{
    switch (cc) {
    case CURLE_OPERATION_TIMEDOUT:
        return CH_STORAGE_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
        return CH_STORAGE_UNREACHABLE;
    case CURLE_FILESIZE_EXCEEDED:
        return CH_STORAGE_TOO_LARGE;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
        return CH_STORAGE_BAD_REPLY;
    default:
        return CH_STORAGE_FAILED;
    }
}

/* One request. Returns the HTTP status, or -1 with *fault and err on a transport failure. */
static long request(http_store *r, const char *method, const char *name, int fd, const void *put,
                    size_t put_len, ch_storage_fault *fault, ch_error *err)
{
    CURL *h = r->curl;
    curl_easy_reset(h);
    char *url = ch_xasprintf("%s%.2s/%s.char", r->base, name, name + 2);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, r->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, r->timeout_ms);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "ch-cc/" CH_CC_VERSION);
    struct curl_slist *hdrs = NULL;
    if (r->auth)
        hdrs = curl_slist_append(hdrs, r->auth);
    hdrs = curl_slist_append(hdrs, "Expect:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    sink s = {fd, r->max_get, 0, 0, 0};
    /* a server announcing a larger body is refused before any byte is kept */
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_get);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    source src = {put, put_len, 0};
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "PUT") == 0) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, &src);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)put_len);
    } else if (strcmp(method, "DELETE") == 0) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
    }
    CURLcode cc = curl_easy_perform(h);
    long status = -1;
    if (cc != CURLE_OK && (s.overflow || cc == CURLE_FILESIZE_EXCEEDED)) {
        *fault = CH_STORAGE_TOO_LARGE;
        ch_error_set(err, "%s %s%.2s/%s.char: response larger than remote_max_size (%llu bytes)",
                     method, r->shown, name, name + 2, r->max_get);
    } else if (cc != CURLE_OK && s.io_failed) {
        *fault = CH_STORAGE_FAILED;
        ch_error_set(err, "%s %s%.2s/%s.char: cannot write the body to a temporary file", method,
                     r->shown, name, name + 2);
    } else if (cc != CURLE_OK) {
        *fault = fault_of(cc);
        ch_error_set(err, "%s %s%.2s/%s.char: %s", method, r->shown, name, name + 2,
                     curl_easy_strerror(cc));
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    }
    curl_slist_free_all(hdrs);
    free(url);
    return status;
}

static int bad_status(http_store *r, const char *method, const char *name, long st,
                      ch_storage_fault *fault, ch_error *err)
{
    *fault = CH_STORAGE_BAD_REPLY;
    return ch_error_set(err, "%s %s%.2s/%s.char: HTTP status %ld", method, r->shown, name, name + 2,
                        st);
}

static int http_get(void *state, const char *name, int fd, ch_storage_fault *fault, ch_error *err)
{
    http_store *r = state;
    long st = request(r, "GET", name, fd, NULL, 0, fault, err);
    if (st < 0)
        return -1;
    if (st == 404 || st == 410)
        return 0;
    if (st != 200)
        return bad_status(r, "GET", name, st, fault, err);
    return 1;
}

/* 1 present, 0 absent, -1 error. */
static int http_head(http_store *r, const char *name, ch_storage_fault *fault, ch_error *err)
{
    long st = request(r, "HEAD", name, -1, NULL, 0, fault, err);
    if (st < 0)
        return -1;
    if (st == 404 || st == 410)
        return 0;
    if (st != 200)
        return bad_status(r, "HEAD", name, st, fault, err);
    return 1;
}

static int http_put(void *state, const char *name, const void *data, size_t len, int overwrite,
                    ch_storage_fault *fault, ch_error *err)
{
    http_store *r = state;
    /* a server holding the item already is not sent it again (a PUT is the costly request) */
    int there = overwrite ? 0 : http_head(r, name, fault, err);
    if (there != 0)
        return there < 0 ? -1 : 0;
    long st = request(r, "PUT", name, -1, data, len, fault, err);
    if (st < 0)
        return -1;
    if (st != 200 && st != 201 && st != 204)
        return bad_status(r, "PUT", name, st, fault, err);
    return 0;
}

static int http_remove(void *state, const char *name, ch_storage_fault *fault, ch_error *err)
{
    http_store *r = state;
    long st = request(r, "DELETE", name, -1, NULL, 0, fault, err);
    if (st < 0)
        return -1;
    if (st != 200 && st != 204 && st != 404 && st != 410)
        return bad_status(r, "DELETE", name, st, fault, err);
    return 0;
}

const ch_storage_ops ch_storage_http = {
    .name = "http",
    .open = http_open,
    .close = http_close,
    .get = http_get,
    .put = http_put,
    .remove = http_remove,
};
