/* The storage front (see front.h): remote backends chosen by URL scheme behind ch_storage_ops,
 * with everything that must hold whatever the backend is kept here, once: bodies streamed into
 * an unlinked temp file with remote_max_size enforced while they arrive, the archive checked
 * file by file, the writer's signature checked against trusted_keys (entries are refused, and
 * counted in remote_rejected, before anything reaches the local store), entries signed before
 * they leave, one warning per failing remote and a counter for each kind of failure.
 *
 * Remote layout (format 2; docs/cache-format.md). Three kinds of items, by name (backend.h maps
 * a name to a URL path, a Redis key or a file):
 *   <key>                       the entry: an archive (archive.c) of every file except objects/,
 *                               its meta and a sig= line over them signed "objects 0"
 *   <key>.o.<32 hex>            one compiled object's bytes, named by its BLAKE2b-256 (so an
 *                               item never changes once written: writes keep an existing one)
 *   <key>.objects.<32 hex>      the signed object record (objects.h) of that version of the
 *                               entry (named by the hash of the entry's signed message): every
 *                               object's name, size and hash, signed over key and entry hash
 * A commit that adds an object sends that object and a new record (a few hundred bytes); the
 * entry's archive and the objects already there are not sent again (put without overwrite is a
 * HEAD, an EXISTS or a stat). A reader gets the entry, checks its signature, then the record of
 * exactly that entry and every object it lists, each checked against the record's size and
 * hash; a record or object that fails is refused (remote_rejected, one warning) and those
 * objects are compiled locally, the entry itself still served.
 *
 * Compatibility with format 1 (the whole entry, objects included, in one <key> archive signed
 * "objects 1"): readers of format 2 take such an archive as before (its objects are vouched for
 * by its signature) and also ask for a record, so objects added later by format 2 writers are
 * found. Readers of format 1 take a format 2 entry (its signature holds, no object is in it) and
 * compile its objects locally; when such a reader adds an object it uploads a format 1 archive
 * over the entry, which format 2 readers take as above. Nothing stored needs rewriting. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../internal.h"
#include "objects.h"

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

/* The local store's settings and directories (locks/, tmp/). */
static int open_local(ch_storage_local *l, const ch_cache_opts *o, ch_error *err)
{
    if (!o->dir || !*o->dir)
        return ch_error_set(err, "no cache directory configured (cache_dir)");
    l->dir = ch_xstrdup(o->dir);
    l->max_size = o->max_size;
    l->lock_timeout = o->lock_timeout;
    l->no_fsync = o->no_fsync;
    char *locks = ch_path_join(l->dir, "locks"), *tmp = ch_path_join(l->dir, "tmp");
    int rc = ch_mkdir_p(locks, err) != 0 || ch_mkdir_p(tmp, err) != 0 ? -1 : 0;
    free(locks);
    free(tmp);
    return rc != 0 ? ch_error_prefix(err, "cache") : 0;
}

/* The remotes of the remote setting, the trust list and the signing key. */
static void open_remotes(ch_cache *c, const ch_cache_opts *o)
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
    if (c->trust_fault) {
        ch_cache_warn(c, "remote cache reads off: %s", c->trust_fault);
        c->unsigned_read_said = 1;
    }
    ch_error e;
    if (o->sign_key && *o->sign_key) {
        if (ch_sign_load_secret(o->sign_key, &c->signer, &e) == 0)
            c->have_signer = 1;
        else {
            ch_cache_warn(c, "remote cache writes off: %s", e.msg);
            c->unsigned_write_said = 1;
        }
    }
}

int ch_storage_open(ch_cache *c, const ch_cache_opts *o, ch_error *err)
{
    if (open_local(&c->storage.local, o, err) != 0)
        return -1;
    c->storage.remote_only_read = o->remote_only_read;
    /* parsed with or without a remote: local copies of remote entries are checked against it
     * on every use (ch_local_lookup) */
    ch_error e;
    if (o->trusted_keys && *o->trusted_keys && ch_trust_parse(o->trusted_keys, &c->trust, &e) != 0)
        c->trust_fault = ch_xstrdup(e.msg);
    if (o->remote && *o->remote)
        open_remotes(c, o);
    return 0;
}

void ch_storage_close(ch_storage *s)
{
    free(s->local.dir);
    s->local.dir = NULL;
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
    const char *dirs[] = {NULL, ch_temp_dir()};
    char *local = ch_path_join(c->storage.local.dir, "tmp");
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

/* The whole of fd (a body streamed by a backend, at most remote_max_size bytes) in memory:
 * *data (owned, NUL-terminated) and *len. -1 with err. */
static int read_back(int fd, char **data, size_t *len, ch_error *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return ch_error_set(err, "cannot read a remote item back: %s", strerror(errno));
    char *buf = ch_xmalloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t r = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return ch_error_set(err, "cannot read a remote item back: %s",
                                r < 0 ? strerror(errno) : "short file");
        }
        got += (size_t)r;
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return 0;
}

/* Streams item name of r into a fresh temp file *fd (the caller closes it when >= 0): 1 found,
 * 0 absent, -1 failed (said, counted). */
static int fetch(ch_cache *c, ch_storage_remote *r, const char *name, int *fd,
                 ch_cache_stats *delta)
{
    ch_error e;
    *fd = body_file(c, &e);
    if (*fd < 0) {
        remote_failed(c, r, "read", CH_STORAGE_FAILED, &e, delta);
        return -1;
    }
    ch_storage_fault fault = CH_STORAGE_FAILED;
    int rc = r->ops->get(r->state, name, *fd, &fault, &e);
    if (rc < 0)
        remote_failed(c, r, "read", fault, &e, delta);
    return rc;
}

/* Item name of r into memory: 1 found (*data owned), 0 absent, -1 failed (said, counted). */
static int get_item(ch_cache *c, ch_storage_remote *r, const char *name, char **data, size_t *len,
                    ch_cache_stats *delta)
{
    int fd;
    int rc = fetch(c, r, name, &fd, delta);
    ch_error e;
    if (rc > 0 && read_back(fd, data, len, &e) != 0) {
        remote_failed(c, r, "read", CH_STORAGE_FAILED, &e, delta);
        rc = -1;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Objects of an entry that are refused: one warning for the entry, counted; the entry is still
 * served and those objects are compiled from its source. */
static void objects_refused(ch_cache *c, const char *key, const char *why, ch_cache_stats *delta)
{
    delta->remote_rejected++;
    ch_cache_warn(c, "remote cache objects of entry %s refused: %s; compiling them locally", key,
                  why);
}

/* Adds object o (its bytes in data, taken) to hit when they are what the record says:
 * 0 added, -1 refused (why in err). */
static int take_object(const ch_object_ref *o, char *data, size_t len, ch_cache_hit *hit,
                       ch_error *err)
{
    char h[CH_SIGN_HASH_HEX + 1];
    ch_sign_hash_hex(data, len, h);
    if (len != o->size || strcmp(h, o->hash) != 0) {
        free(data);
        return ch_error_set(err,
                            "object '%s' (%zu bytes) is not the one its signed record names "
                            "(%llu bytes, BLAKE2b %.16s...)",
                            o->name, len, o->size, o->hash);
    }
    hit->files = ch_xrealloc(hit->files, (hit->n_files + 1) * sizeof *hit->files);
    hit->files[hit->n_files++] = (ch_cache_file){ch_xstrdup(o->name), (unsigned char *)data, len};
    return 0;
}

/* Reads the object record of the entry in hit (as received, signature checked) from r and every
 * object it lists that hit lacks. Nothing here fails the entry: an object that is absent,
 * unreadable or refused is compiled locally. */
static void read_objects(ch_cache *c, ch_storage_remote *r, const char *key, ch_cache_hit *hit,
                         ch_cache_stats *delta)
{
    char eh[CH_SIGN_HASH_HEX + 1];
    ch_objects_entry_hash(key, hit->files, hit->n_files, &hit->meta, eh);
    char *name = ch_objects_record_item(key, eh);
    char *data = NULL;
    size_t len = 0;
    int rc = get_item(c, r, name, &data, &len, delta);
    free(name);
    if (rc <= 0)
        return;
    ch_object_record rec;
    ch_error e;
    rc = ch_objects_record_check(&c->trust, key, eh, data, len, &rec, &e);
    free(data);
    if (rc != 0) {
        objects_refused(c, key, e.msg, delta);
        return;
    }
    int refused = 0;
    for (size_t i = 0; i < rec.n && !r->failed; i++) {
        const ch_object_ref *o = &rec.objects[i];
        if (ch_cache_hit_file(hit, o->name))
            continue; /* in a format 1 archive whose signature vouches for it */
        char *item = ch_objects_object_item(key, o->hash);
        rc = get_item(c, r, item, &data, &len, delta);
        free(item);
        ch_error why;
        if (rc > 0 && take_object(o, data, len, hit, &why) != 0 && !refused++)
            objects_refused(c, key, why.msg, delta);
    }
    ch_object_record_free(&rec);
}

/* Asks one remote. 1 hit, 0 absent, -1 failed or refused (said, counted). */
static int read_one(ch_cache *c, ch_storage_remote *r, const char *key, ch_cache_hit *hit,
                    ch_cache_stats *delta)
{
    int fd;
    int rc = fetch(c, r, key, &fd, delta);
    ch_error e;
    if (rc == 0) {
        delta->remote_misses++;
    } else if (rc > 0 && unpack_file(fd, key, hit, &e) != 0) {
        remote_failed(c, r, "read", CH_STORAGE_BAD_REPLY, &e, delta);
        rc = -1;
    } else if (rc > 0 && trust_entry(c, key, hit, delta) != 0) {
        rc = -1;
    } else if (rc > 0) {
        read_objects(c, r, key, hit, delta);
        delta->remote_hits++;
        hit->from_remote = 1;
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Reads key's entry through the remotes: 1 found, verified and signed by a trusted writer (hit
 * filled, hit->from_remote set), 0 not found or refused (a warning said why). */
static int read_remotes(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta)
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

/* What one commit sends to every remote, built once: the entry's archive (or none), its
 * objects and their record (or none). */
typedef struct outgoing {
    ch_strbuf archive; /* len 0: the entry is not sent */
    ch_strbuf record;  /* len 0: no object is sent */
    char *record_item; /* owned, or NULL */
} outgoing;

/* The signed archive of the entry without its objects (format 2). */
static void pack_entry(const ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                       const ch_strvec *meta, long long created, ch_strbuf *out)
{
    ch_cache_file *kept = ch_xcalloc(n ? n : 1, sizeof *kept);
    size_t n_kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!ch_sign_is_object(files[i].name))
            kept[n_kept++] = files[i]; /* borrowed */
    ch_strvec signed_meta;
    ch_strvec_init(&signed_meta);
    for (size_t i = 0; i < meta->len; i++)
        if (strncmp(meta->items[i], CH_SIGN_META, strlen(CH_SIGN_META)) != 0)
            ch_strvec_push(&signed_meta, meta->items[i]);
    ch_strvec_push_owned(&signed_meta,
                         ch_sign_entry(&c->signer, key, kept, n_kept, &signed_meta, 0));
    ch_archive_pack(key, kept, n_kept, &signed_meta, created, out);
    ch_strvec_free(&signed_meta);
    free(kept);
}

/* Sends one remote what o holds: objects before the record that names them, so a reader never
 * finds a record whose objects are not there yet. */
static void send_to(ch_cache *c, ch_storage_remote *r, const char *key, const ch_cache_file *files,
                    size_t n, const outgoing *o, int replace, ch_cache_stats *delta)
{
    ch_storage_fault fault = CH_STORAGE_FAILED;
    ch_error e;
    if (o->archive.len &&
        r->ops->put(r->state, key, o->archive.data, o->archive.len, replace, &fault, &e) != 0) {
        remote_failed(c, r, "write", fault, &e, delta);
        return;
    }
    if (!o->record.len)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!ch_sign_is_object(files[i].name))
            continue;
        char h[CH_SIGN_HASH_HEX + 1];
        ch_sign_hash_hex(files[i].data, files[i].len, h);
        char *item = ch_objects_object_item(key, h);
        /* named by its content: one already there is the same bytes and is not sent again */
        int rc = r->ops->put(r->state, item, files[i].data, files[i].len, 0, &fault, &e);
        free(item);
        if (rc != 0) {
            remote_failed(c, r, "write", fault, &e, delta);
            return;
        }
    }
    if (r->ops->put(r->state, o->record_item, o->record.data, o->record.len, replace, &fault, &e) !=
        0)
        remote_failed(c, r, "write", fault, &e, delta);
}

/* Signs and writes what changed of key's entry to every usable remote. */
static void write_remotes(ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                          const ch_strvec *meta, long long created, const ch_storage_change *what,
                          ch_cache_stats *delta)
{
    if (!c->have_signer) {
        if (!c->unsigned_write_said)
            ch_cache_warn(c, "remote cache writes off: no sign_key configured (make a key pair "
                             "with ch-cc --harness-keygen=DIR and set sign_key to its .key file)");
        c->unsigned_write_said = 1;
        return;
    }
    outgoing o = {0};
    ch_strbuf_init(&o.archive);
    ch_strbuf_init(&o.record);
    if (what->entry_changed)
        pack_entry(c, key, files, n, meta, created, &o.archive);
    int has_objects = 0;
    for (size_t i = 0; i < n && !has_objects; i++)
        has_objects = ch_sign_is_object(files[i].name);
    if (has_objects && (what->entry_changed || what->objects_changed)) {
        char eh[CH_SIGN_HASH_HEX + 1];
        ch_objects_entry_hash(key, files, n, meta, eh);
        ch_objects_record_format(&c->signer, key, eh, files, n, &o.record);
        o.record_item = ch_objects_record_item(key, eh);
    }
    for (size_t i = 0; i < c->storage.n; i++)
        if (!c->storage.remotes[i].failed)
            send_to(c, &c->storage.remotes[i], key, files, n, &o, what->replace, delta);
    ch_strbuf_free(&o.archive);
    ch_strbuf_free(&o.record);
    free(o.record_item);
}

/* ---- the tiers ---- */

int ch_storage_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta,
                      ch_error *err)
{
    int rc = ch_local_lookup(c, key, hit, delta, err);
    if (rc == 2)
        return 0;
    if (rc != 0 || !ch_storage_usable(c))
        return rc;
    if (read_remotes(c, key, hit, delta) <= 0)
        return 0;
    /* the next lookup is local; a failure here only costs the local copy */
    ch_local_keep(c, key, hit);
    return 1;
}

void ch_storage_published(ch_cache *c, const char *key, const ch_cache_file *files, size_t n,
                          const ch_strvec *meta, long long created, const ch_storage_change *what,
                          ch_cache_stats *delta)
{
    if (!c->storage.remote_only_read && ch_storage_usable(c))
        write_remotes(c, key, files, n, meta, created, what, delta);
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
