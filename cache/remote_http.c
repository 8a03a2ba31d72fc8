/* HTTP(S) backend of the remote store: <base>/<2 hex>/<30 hex>.char per entry, GET to read, PUT
 * to write, HEAD to test. One curl easy handle per ch_remote (connection reuse across requests
 * of one build). The bearer token is only ever put in a request header; error messages name the
 * URL without any user:password part and never the token. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "ch/remote.h"
#include "ch/strbuf.h"

struct ch_remote {
    CURL *curl;
    char *base;  /* ends with '/' (owned) */
    char *shown; /* base without credentials, for messages (owned) */
    char *auth;  /* "Authorization: Bearer ..." or NULL (owned) */
    long timeout_ms;
    unsigned long long max_body;
};

/* Default limit on what a GET may return: an entry archive is never near this. */
#define CH_REMOTE_MAX_BODY (256ULL * 1024 * 1024)

int ch_remote_open(ch_remote **out, const char *url, const char *token, double timeout_s,
                   unsigned long long max_body, ch_error *err)
{
    *out = NULL;
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return ch_error_set(err,
                            "remote store '%s' is not an http:// or https:// URL "
                            "(check the remote setting)",
                            url);
    CURL *curl = curl_easy_init();
    if (!curl)
        return ch_error_set(err, "cannot initialise libcurl");
    ch_remote *r = ch_xcalloc(1, sizeof *r);
    r->curl = curl;
    size_t n = strlen(url);
    r->base = n && url[n - 1] == '/' ? ch_xstrdup(url) : ch_xasprintf("%s/", url);
    const char *scheme_end = strstr(r->base, "://") + 3;
    const char *at = strchr(scheme_end, '@'), *slash = strchr(scheme_end, '/');
    if (at && (!slash || at < slash))
        r->shown = ch_xasprintf("%.*s%s", (int)(scheme_end - r->base), r->base, at + 1);
    else
        r->shown = ch_xstrdup(r->base);
    if (token && *token)
        r->auth = ch_xasprintf("Authorization: Bearer %s", token);
    r->timeout_ms = timeout_s > 0 ? (long)(timeout_s * 1000) : 10000;
    r->max_body = max_body ? max_body : CH_REMOTE_MAX_BODY;
    *out = r;
    return 0;
}

void ch_remote_close(ch_remote *r)
{
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

typedef struct sink {
    ch_strbuf *body;
    unsigned long long limit;
    int overflow;
} sink;

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
    sink *s = ud;
    size_t n = size * nmemb;
    if (!s->body)
        return n;
    if (s->body->len + n > s->limit) {
        s->overflow = 1;
        return 0;
    }
    ch_strbuf_add(s->body, p, n);
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

/* One request. Returns the HTTP status, or -1 with err on a transport failure. */
static long request(ch_remote *r, const char *method, const char *key, ch_strbuf *body,
                    const void *put, size_t put_len, ch_error *err)
{
    CURL *h = r->curl;
    curl_easy_reset(h);
    char *url = ch_xasprintf("%s%.2s/%s.char", r->base, key, key + 2);
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
    sink s = {body, r->max_body, 0};
    /* a server announcing a larger body is refused before any byte is kept */
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body);
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
    }
    CURLcode cc = curl_easy_perform(h);
    long status = -1;
    if (cc != CURLE_OK && (s.overflow || cc == CURLE_FILESIZE_EXCEEDED))
        ch_error_set(err, "%s %s%.2s/%s.char: response larger than remote_max_size (%llu bytes)",
                     method, r->shown, key, key + 2, r->max_body);
    else if (cc != CURLE_OK)
        ch_error_set(err, "%s %s%.2s/%s.char: %s", method, r->shown, key, key + 2,
                     curl_easy_strerror(cc));
    else
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(hdrs);
    free(url);
    return status;
}

static int bad_status(ch_remote *r, const char *method, const char *key, long st, ch_error *err)
{
    return ch_error_set(err, "%s %s%.2s/%s.char: HTTP status %ld", method, r->shown, key, key + 2,
                        st);
}

int ch_remote_get(ch_remote *r, const char *key, ch_strbuf *body, ch_error *err)
{
    ch_strbuf_reset(body);
    long st = request(r, "GET", key, body, NULL, 0, err);
    if (st < 0)
        return -1;
    if (st == 404 || st == 410)
        return 0;
    if (st != 200)
        return bad_status(r, "GET", key, st, err);
    return 1;
}

int ch_remote_head(ch_remote *r, const char *key, ch_error *err)
{
    long st = request(r, "HEAD", key, NULL, NULL, 0, err);
    if (st < 0)
        return -1;
    if (st == 404 || st == 410)
        return 0;
    if (st != 200)
        return bad_status(r, "HEAD", key, st, err);
    return 1;
}

int ch_remote_put(ch_remote *r, const char *key, const void *data, size_t len, ch_error *err)
{
    long st = request(r, "PUT", key, NULL, data, len, err);
    if (st < 0)
        return -1;
    if (st != 200 && st != 201 && st != 204)
        return bad_status(r, "PUT", key, st, err);
    return 0;
}
