/* HTTP for model providers: one JSON POST through libcurl with connect and total timeouts, and
 * the retry policy (connection errors, truncated bodies, 429 with Retry-After, 5xx; never other
 * 4xx). Every failure ends in one line the user can act on, with the key kept out of it. */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ch/llm.h"

void ch_http_reply_init(ch_http_reply *r)
{
    memset(r, 0, sizeof *r);
    ch_strbuf_init(&r->body);
}

void ch_http_reply_free(ch_http_reply *r)
{
    ch_strbuf_free(&r->body);
}

char *ch_redact(const char *s, const char *secret)
{
    if (!s)
        return NULL;
    if (!secret || strlen(secret) < 4)
        return ch_xstrdup(s);
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    size_t n = strlen(secret);
    for (const char *p = s, *hit; *p; p = hit + n) {
        hit = strstr(p, secret);
        if (!hit) {
            ch_strbuf_adds(&sb, p);
            break;
        }
        ch_strbuf_add(&sb, p, (size_t)(hit - p));
        ch_strbuf_adds(&sb, "[REDACTED]");
    }
    char *res = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return res;
}

/* The most of one reply kept in memory. A reply of max_tokens tokens is tens of KiB; a server
 * sending more (or a small gzip body that inflates to gigabytes: curl decodes what it accepts)
 * is cut off here instead of filling the build's memory. */
#define MAX_REPLY_BYTES (64u << 20)

/* Per-attempt state filled by curl's callbacks. */
typedef struct attempt {
    ch_strbuf *body;
    long retry_after_s; /* -1: none */
    int too_large;      /* the body passed MAX_REPLY_BYTES: the transfer was stopped */
} attempt;

static size_t on_body(char *data, size_t size, size_t n, void *user)
{
    attempt *a = user;
    if (size * n > MAX_REPLY_BYTES - a->body->len) {
        a->too_large = 1;
        return 0; /* curl stops the transfer: CURLE_WRITE_ERROR */
    }
    ch_strbuf_add(a->body, data, size * n);
    return size * n;
}

static size_t on_header(char *data, size_t size, size_t n, void *user)
{
    attempt *a = user;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    if (len > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
        char value[128];
        size_t vlen = len - (sizeof name - 1);
        if (vlen >= sizeof value)
            vlen = sizeof value - 1;
        memcpy(value, data + sizeof name - 1, vlen);
        value[vlen] = '\0';
        char *end;
        long secs = strtol(value, &end, 10);
        if (end != value && secs >= 0) {
            a->retry_after_s = secs;
        } else {
            /* An HTTP date. */
            time_t when = curl_getdate(value, NULL);
            if (when > 0) {
                long d = (long)(when - time(NULL));
                a->retry_after_s = d > 0 ? d : 0;
            }
        }
    }
    return len;
}

static void sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The server's own explanation, from {"error": {"message": ...}} or {"error": "..."} or a short
 * plain body; "" when there is none. Returned text is redacted and on one line. */
static char *server_message(const ch_strbuf *body, const char *secret)
{
    char *msg = NULL;
    cJSON *j = cJSON_ParseWithLength(body->data, body->len);
    if (j) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        const cJSON *m = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "message") : e;
        if (!cJSON_IsString(m))
            m = cJSON_GetObjectItemCaseSensitive(j, "message");
        if (cJSON_IsString(m))
            msg = ch_xstrdup(m->valuestring);
        cJSON_Delete(j);
    }
    if (!msg)
        msg = ch_xstrndup(body->data, body->len < 200 ? body->len : 200);
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    if (strlen(msg) > 300)
        msg[300] = '\0';
    char *red = ch_redact(msg, secret);
    free(msg);
    return red;
}

static int retryable_curl(CURLcode c)
{
    switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
        return 1;
    default:
        return 0;
    }
}

/* Sets err for a transport failure of the last attempt. */
static int curl_failure(ch_error *err, CURLcode c, const char *url, const char *detail,
                        double timeout_s, int attempts, int connected)
{
    const char *after = attempts > 1 ? " after " : "";
    char tries[32] = "";
    if (attempts > 1)
        snprintf(tries, sizeof tries, "%d attempts", attempts);
    switch (c) {
    case CURLE_OPERATION_TIMEDOUT:
        if (!connected)
            return ch_error_set(err, "model server %s did not accept a connection in time%s%s", url,
                                after, tries);
        return ch_error_set(err, "model request to %s timed out after %.0f s (request_timeout)%s%s",
                            url, timeout_s, after, tries);
    case CURLE_COULDNT_RESOLVE_HOST:
        return ch_error_set(err, "cannot resolve the model server's host in %s%s%s", url, after,
                            tries);
    case CURLE_COULDNT_CONNECT:
        return ch_error_set(err, "cannot connect to the model server at %s (is it running?)%s%s",
                            url, after, tries);
    case CURLE_PARTIAL_FILE:
        return ch_error_set(err, "truncated reply from %s: connection closed mid-body%s%s", url,
                            after, tries);
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
        return ch_error_set(err, "connection to %s broken (%s)%s%s", url, detail, after, tries);
    default:
        return ch_error_set(err, "model request to %s failed: %s", url, detail);
    }
}

static int status_failure(ch_error *err, const ch_http_opts *o, long status, const char *url,
                          const char *msg, int attempts)
{
    const char *sep = *msg ? ": " : "";
    if (status == 401 || status == 403)
        return ch_error_set(err, "model server rejected the API key (HTTP %ld) at %s; check %s%s%s",
                            status, url, o->key_hint ? o->key_hint : "CH_CC_API_KEY", sep, msg);
    if (status == 404)
        return ch_error_set(err, "HTTP 404 from %s: unknown model '%s' or wrong CH_CC_API_BASE%s%s",
                            url, o->model ? o->model : "", sep, msg);
    if (status == 429)
        return ch_error_set(err,
                            "rate limit or quota exceeded (HTTP 429) at %s after %d attempt%s%s%s",
                            url, attempts, attempts == 1 ? "" : "s", sep, msg);
    if (status >= 500)
        return ch_error_set(err, "model server error (HTTP %ld) at %s after %d attempt%s%s%s",
                            status, url, attempts, attempts == 1 ? "" : "s", sep, msg);
    return ch_error_set(err, "model server refused the request (HTTP %ld) at %s%s%s", status, url,
                        sep, msg);
}

int ch_http_post_json(const ch_http_opts *o, const char *url, const char *const *headers,
                      const char *body, ch_http_reply *r, ch_error *err)
{
    CURL *curl = curl_easy_init();
    if (!curl)
        return ch_error_set(err, "cannot initialise libcurl");
    struct curl_slist *hl = curl_slist_append(NULL, "Content-Type: application/json");
    hl = curl_slist_append(hl, "Expect:");
    for (size_t i = 0; headers && headers[i]; i++)
        hl = curl_slist_append(hl, headers[i]);

    char curl_msg[CURL_ERROR_SIZE];
    attempt a = {&r->body, -1, 0};
    long connect_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 10000;
    long max_after = o->max_retry_after_s > 0 ? o->max_retry_after_s : 300;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &a);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_msg);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    if (o->timeout_ms > 0)
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, o->timeout_ms);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "ch-cc/" CH_CC_VERSION);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");

    int rc = -1;
    long delay = o->backoff_ms > 0 ? o->backoff_ms : 0;
    for (int i = 0;; i++) {
        ch_strbuf_reset(&r->body);
        a.retry_after_s = -1;
        a.too_large = 0;
        curl_msg[0] = '\0';
        r->status = 0;
        r->attempts = i + 1;
        CURLcode c = curl_easy_perform(curl);
        int last = i >= o->retries;
        long wait_ms = delay;
        if (c == CURLE_OK) {
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
            if (r->status >= 200 && r->status < 300 && r->body.len > 0) {
                rc = 0;
                break;
            }
            if (r->status >= 200 && r->status < 300) {
                /* A success status with nothing after it: a connection that died early. */
                if (last) {
                    ch_error_set(err, "empty reply from %s (HTTP %ld)%s", url, r->status,
                                 r->attempts > 1 ? " on every attempt" : "");
                    break;
                }
                goto backoff;
            }
            int again = r->status == 429 || r->status >= 500;
            if (again && a.retry_after_s > max_after) {
                char *msg = server_message(&r->body, o->secret);
                ch_error_set(err,
                             "rate limit or quota exceeded (HTTP %ld) at %s: the server asks to "
                             "wait %ld s%s%s",
                             r->status, url, a.retry_after_s, *msg ? ": " : "", msg);
                free(msg);
                break;
            }
            if (!again || last) {
                char *msg = server_message(&r->body, o->secret);
                status_failure(err, o, r->status, url, msg, r->attempts);
                free(msg);
                break;
            }
            if (a.retry_after_s >= 0 && a.retry_after_s * 1000 > wait_ms)
                wait_ms = a.retry_after_s * 1000;
        } else if (a.too_large) {
            ch_error_set(err,
                         "the reply from %s is larger than %u MiB (a model's reply is a few "
                         "hundred KiB at most): not read",
                         url, MAX_REPLY_BYTES >> 20);
            break;
        } else {
            long connected = 0;
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->status);
            double connect_time = 0;
            curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME, &connect_time);
            connected = connect_time > 0 || r->status != 0;
            int again = retryable_curl(c) || (c == CURLE_OPERATION_TIMEDOUT && !connected);
            if (!again || last) {
                char *detail = ch_redact(curl_msg[0] ? curl_msg : curl_easy_strerror(c), o->secret);
                curl_failure(err, c, url, detail, (double)o->timeout_ms / 1000.0, r->attempts,
                             (int)connected);
                free(detail);
                break;
            }
        }
    backoff:
        /* Backoff with jitter: the delay doubles each retry and gets up to half of it again,
         * so that parallel builds hitting one server do not retry in lockstep. */
        if (o->rng && delay > 0)
            wait_ms += (long)((double)rand_r(o->rng) / RAND_MAX * (double)delay / 2);
        sleep_ms(wait_ms);
        r->waited_s += (double)wait_ms / 1000.0;
        delay *= 2;
    }
    curl_slist_free_all(hl);
    curl_easy_cleanup(curl);
    return rc;
}
