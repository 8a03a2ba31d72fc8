/* The storage front (see front.h): remote backends chosen by URL scheme behind ch_storage_ops,
 * with everything that must hold whatever the backend is kept here, once: bodies streamed into
 * an unlinked temp file with remote_max_size enforced while they arrive, the archive checked
 * file by file, the writer's signature checked against trusted_keys (entries are refused, and
 * counted in remote_rejected, before anything reaches the local store), entries signed before
 * they leave, one warning per failing remote and a counter for each kind of failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../internal.h"

/* Default limit on what one get may bring: an entry archive is never near this. */
#define CH_STORAGE_MAX_GET (256ULL * 1024 * 1024)

static const struct {
    const char *prefix;
    const ch_storage_ops *ops;
} schemes[] = {
    {"http://", &ch_storage_http},
    {"https://", &ch_storage_http},
    {"redis://", &ch_storage_redis},
    {"file://", &ch_storage_file},
};

/* The URL without a user:password part, for messages. Caller frees. */
static char *url_shown(const char *url)
{
    const char *start = strstr(url, "://");
    start = start ? start + 3 : url;
    const char *at = strchr(start, '@'), *slash = strchr(start, '/');
    if (at && (!slash || at < slash))
        return ch_xasprintf("%.*s%s", (int)(start - url), url, at + 1);
    return ch_xstrdup(url);
}

static const ch_storage_ops *ops_for(const char *url)
{
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strncmp(url, schemes[i].prefix, strlen(schemes[i].prefix)) == 0)
            return schemes[i].ops;
    return NULL;
}

static void open_one(ch_cache *c, const char *url, const ch_storage_params *p)
{
    ch_storage *s = &c->storage;
    char *shown = url_shown(url);
    const ch_storage_ops *ops = ops_for(url);
    void *state = NULL;
    ch_error e;
    if (!ops) {
        ch_cache_warn(c,
                      "remote cache not used: remote store '%s' is not an http://, https://, "
                      "redis:// or file:// URL (check the remote setting)",
                      shown);
        free(shown);
        return;
    }
    if (ops->open(&state, url, p, &e) != 0) {
        ch_cache_warn(c, "remote cache not used: %s", e.msg);
        free(shown);
        return;
    }
    s->remotes = ch_xrealloc(s->remotes, (s->n + 1) * sizeof *s->remotes);
    s->remotes[s->n++] = (ch_storage_remote){ops, state, shown, 0};
}

void ch_storage_open(ch_cache *c, const ch_cache_opts *o)
{
    ch_storage_params p = {o->remote_token, o->remote_timeout > 0 ? o->remote_timeout : 10,
                           o->remote_max_size ? o->remote_max_size : CH_STORAGE_MAX_GET};
    const char *sep = " \t\n,";
    for (const char *u = o->remote + strspn(o->remote, sep); *u; u += strspn(u, sep)) {
        size_t len = strcspn(u, sep);
        char *url = ch_xstrndup(u, len);
        open_one(c, url, &p);
        free(url);
        u += len;
    }
    if (c->storage.n == 0)
        return;
    ch_error e;
    if (ch_trust_parse(o->trusted_keys, &c->trust, &e) != 0) {
        ch_cache_warn(c, "remote cache reads off: %s", e.msg);
        c->unsigned_read_said = 1;
    }
    if (o->sign_key && *o->sign_key) {
        if (ch_sign_load_secret(o->sign_key, &c->signer, &e) == 0)
            c->have_signer = 1;
        else {
            ch_cache_warn(c, "remote cache writes off: %s", e.msg);
            c->unsigned_write_said = 1;
        }
    }
}

void ch_storage_close(ch_storage *s)
{
    for (size_t i = 0; i < s->n; i++) {
        s->remotes[i].ops->close(s->remotes[i].state);
        free(s->remotes[i].url);
    }
    free(s->remotes);
    s->remotes = NULL;
    s->n = 0;
}

int ch_storage_usable(const ch_cache *c)
{
    for (size_t i = 0; i < c->storage.n; i++)
        if (!c->storage.remotes[i].failed)
            return 1;
    return 0;
}

/* One warning per remote; after it the remote is left alone for this handle (a dead server
 * costs one timeout per build, not one per entry). Every failure counts in remote_errors and
 * in the counter of its kind. */
static void remote_failed(ch_cache *c, ch_storage_remote *r, const char *what,
                          ch_storage_fault fault, const ch_error *e, ch_cache_stats *d)
{
    d->remote_errors++;
    switch (fault) {
    case CH_STORAGE_TIMEOUT:
        d->remote_timeouts++;
        break;
    case CH_STORAGE_UNREACHABLE:
        d->remote_unreachable++;
        break;
    case CH_STORAGE_BAD_REPLY:
        d->remote_bad_reply++;
        break;
    case CH_STORAGE_TOO_LARGE:
        d->remote_too_large++;
        break;
    case CH_STORAGE_FAILED:
        break;
    }
    if (!r->failed)
        ch_cache_warn(c, "remote cache %s failed (%s); continuing without it for this build", what,
                      e->msg);
    r->failed = 1;
}

/* An unlinked temp file for a body: in the cache's tmp/, else $TMPDIR. -1 with err. */
static int body_file(const ch_cache *c, ch_error *err)
{
    const char *env = getenv("TMPDIR");
    const char *dirs[] = {NULL, env && *env ? env : "/tmp"};
    char *local = ch_path_join(c->dir, "tmp");
    dirs[0] = local;
    int fd = -1;
    for (size_t i = 0; i < 2 && fd < 0; i++) {
        char *tmpl = ch_xasprintf("%s/remote.%ld.XXXXXX", dirs[i], (long)getpid());
        fd = mkstemp(tmpl);
        if (fd >= 0)
            unlink(tmpl); /* gone with the descriptor, even if this process is killed */
        free(tmpl);
    }
    if (fd < 0)
        ch_error_set(err, "cannot create a temporary file for a remote entry: %s", strerror(errno));
    free(local);
    return fd;
}

/* Unpacks the body in fd (mapped, not read into memory) into hit. */
static int unpack_file(int fd, const char *key, ch_cache_hit *hit, ch_error *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return ch_error_set(err, "cannot read the remote entry back: %s", strerror(errno));
    if (sb.st_size == 0)
        return ch_archive_unpack(key, "", 0, hit, err);
    void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return ch_error_set(err, "cannot map the remote entry: %s", strerror(errno));
    int rc = ch_archive_unpack(key, map, (size_t)sb.st_size, hit, err);
    munmap(map, (size_t)sb.st_size);
    return rc;
}

/* Drops the objects/ files of hit: the signer did not vouch for them, so they are compiled
 * again from the entry's source. */
static void drop_objects(ch_cache_hit *hit)
{
    size_t kept = 0;
    for (size_t i = 0; i < hit->n_files; i++) {
        if (ch_sign_is_object(hit->files[i].name)) {
            free(hit->files[i].name);
            free(hit->files[i].data);
        } else {
            hit->files[kept++] = hit->files[i];
        }
    }
    hit->n_files = kept;
}

/* 0: hit came from a writer the user trusts (objects dropped unless vouched for); -1: it is
 * refused with one warning and freed. */
static int trust_entry(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta)
{
    int with_objects;
    ch_error e;
    if (ch_sign_check(&c->trust, key, hit->files, hit->n_files, &hit->meta, &with_objects, &e) !=
        0) {
        delta->remote_rejected++;
        ch_cache_warn(c, "remote cache entry %s refused: %s; building it locally", key, e.msg);
        ch_cache_hit_free(hit);
        ch_cache_hit_init(hit);
        return -1;
    }
    if (!with_objects)
        drop_objects(hit);
    return 0;
}

/* Asks one remote. 1 hit, 0 absent, -1 failed or refused (said, counted). */
static int read_one(ch_cache *c, ch_storage_remote *r, const char *key, ch_cache_hit *hit,
                    ch_cache_stats *delta)
{
    ch_error e;
    int fd = body_file(c, &e);
    if (fd < 0) {
        remote_failed(c, r, "read", CH_STORAGE_FAILED, &e, delta);
        return -1;
    }
    ch_storage_fault fault = CH_STORAGE_FAILED;
    int rc = r->ops->get(r->state, key, fd, &fault, &e);
    if (rc < 0) {
        remote_failed(c, r, "read", fault, &e, delta);
    } else if (rc == 0) {
        delta->remote_misses++;
    } else if (unpack_file(fd, key, hit, &e) != 0) {
        remote_failed(c, r, "read", CH_STORAGE_BAD_REPLY, &e, delta);
        rc = -1;
    } else if (trust_entry(c, key, hit, delta) != 0) {
        rc = -1;
    } else {
        delta->remote_hits++;
        hit->from_remote = 1;
    }
    close(fd);
    return rc;
}

int ch_storage_read(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta)
{
    if (c->trust.n == 0) {
        /* nobody is trusted: an entry could come from anyone who can write to a remote */
        if (!c->unsigned_read_said)
            ch_cache_warn(c, "remote cache reads off: no trusted_keys configured (set trusted_keys "
                             "in ~/.config/ch-cc/config or CH_CC_TRUSTED_KEYS to the writers' "
                             "public keys; see ch-cc --harness-keygen)");
        c->unsigned_read_said = 1;
        return 0;
    }
    for (size_t i = 0; i < c->storage.n; i++) {
        ch_storage_remote *r = &c->storage.remotes[i];
        if (!r->failed && read_one(c, r, key, hit, delta) > 0)
            return 1;
    }
    return 0;
}

void ch_storage_write(ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                      const ch_strvec *meta, long long created, int overwrite,
                      ch_cache_stats *delta)
{
    if (!c->have_signer) {
        if (!c->unsigned_write_said)
            ch_cache_warn(c, "remote cache writes off: no sign_key configured (make a key pair "
                             "with ch-cc --harness-keygen=DIR and set sign_key to its .key file)");
        c->unsigned_write_said = 1;
        return;
    }
    ch_strvec signed_meta;
    ch_strvec_init(&signed_meta);
    for (size_t i = 0; i < meta->len; i++)
        if (strncmp(meta->items[i], CH_SIGN_META, strlen(CH_SIGN_META)) != 0)
            ch_strvec_push(&signed_meta, meta->items[i]);
    ch_strvec_push_owned(&signed_meta, ch_sign_entry(&c->signer, key, files, n, &signed_meta, 1));
    ch_strbuf ar;
    ch_strbuf_init(&ar);
    ch_archive_pack(key, files, n, &signed_meta, created, &ar);
    for (size_t i = 0; i < c->storage.n; i++) {
        ch_storage_remote *r = &c->storage.remotes[i];
        ch_storage_fault fault = CH_STORAGE_FAILED;
        ch_error e;
        if (!r->failed && r->ops->put(r->state, key, ar.data, ar.len, overwrite, &fault, &e) != 0)
            remote_failed(c, r, "write", fault, &e, delta);
    }
    ch_strbuf_free(&ar);
    ch_strvec_free(&signed_meta);
}

/* ---- helpers for backends (backend.h) ---- */

int ch_storage_write_all(int fd, const void *data, size_t len, ch_error *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return ch_error_set(err, "cannot write a temporary file: %s",
                                w < 0 ? strerror(errno) : "no progress");
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int ch_storage_copy_limited(int from_fd, int fd, unsigned long long limit, const char *what,
                            ch_storage_fault *fault, ch_error *err)
{
    char buf[65536];
    unsigned long long total = 0;
    for (;;) {
        ssize_t got = read(from_fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *fault = CH_STORAGE_FAILED;
            return ch_error_set(err, "cannot read '%s': %s", what, strerror(errno));
        }
        if (got == 0)
            return 0;
        total += (unsigned long long)got;
        if (total > limit) {
            *fault = CH_STORAGE_TOO_LARGE;
            return ch_error_set(err, "'%s' is larger than remote_max_size (%llu bytes)", what,
                                limit);
        }
        if (ch_storage_write_all(fd, buf, (size_t)got, err) != 0) {
            *fault = CH_STORAGE_FAILED;
            return -1;
        }
    }
}
