/* The local store, the storage front's first tier (storage/front.h: the front owns it and asks it
 * before the remotes, and writes remotes back after it publishes): lookup, the generation
 * protocol and its transactions, damage handling. Invariant: an entry directory <dir>/<2 hex>/<30
 * hex>/ is only ever created by renaming a complete temp directory (files + index) into place, so a
 * reader sees a whole entry or none; whatever a crashed writer leaves lives under <dir>/tmp/.
 *
 * Locking protocol. Every key has a lock file <dir>/locks/<key>, locked with flock(2):
 *   - readers (lookup) hold it SHARED while they read and verify the files and record the use
 *     time, so no one can remove or replace the entry under them;
 *   - a generator (begin .. commit/abort) holds it EXCLUSIVE from before it checks that the
 *     entry is missing until after the rename that publishes it. Of N builds missing the same
 *     key, the first gets the lock and generates; the others wait (up to lock_timeout), then find
 *     the entry present and read it: the kernel is generated exactly once;
 *   - eviction, clean and damage removal take it EXCLUSIVE without waiting (skipping entries in
 *     use) or, for damage, with waiting and a re-check, so only one process reports the damage;
 *   - a holder that dies loses its flock in the kernel: no stale lock outlives a crash. The next
 *     generator of that key removes the dead holder's temp directories (<dir>/tmp/<key>.*),
 *     which is safe because it holds the exclusive lock and only holders create them.
 * The stats file has its own lock (stats.c); no code holds two key locks at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include <sodium.h>

#include "internal.h"

struct ch_cache_txn {
    ch_cache *c;
    char key[33];
    ch_lock lock;         /* exclusive, on the key */
    char *tmp;            /* the private temp directory the files go to (owned) */
    ch_cache_file *files; /* copies of what was put (owned), for the index and write-back */
    size_t n, cap;
    ch_strvec meta;
    int from_remote; /* read-through: no generation counted, no write-back */
    int update;      /* begin_update: no generation counted, the remote copy is replaced */
    /* begin_update of a valid entry: files holds the entry's files, read under the lock, and
     * commit moves only the files put since (written) into the entry directory, then replaces
     * its index; nothing else is copied again */
    int in_place;
    ch_strvec written; /* names put into tmp by this transaction */
    int meta_changed;  /* a meta record was added or changed */
    long long created;
};

/* ---- paths and small helpers ---- */

char *ch_cache_entry_path(const ch_cache *c, const char *key)
{
    return ch_xasprintf("%s/%.2s/%s", c->storage.local.dir, key, key + 2);
}

char *ch_cache_lock_path(const ch_cache *c, const char *key)
{
    return ch_xasprintf("%s/locks/%s", c->storage.local.dir, key);
}

int ch_cache_remove_dir(ch_cache *c, const char *dir, ch_error *err)
{
    char *tmpl = ch_xasprintf("%s/tmp/trash.%ld.XXXXXX", c->storage.local.dir, (long)getpid());
    char *tmpd = mkdtemp(tmpl);
    int rc = 0;
    if (tmpd) {
        char *dst = ch_path_join(tmpd, "x");
        if (rename(dir, dst) != 0 && errno != ENOENT)
            rc = ch_error_set(err, "cannot remove '%s': %s", dir, strerror(errno));
        free(dst);
        ch_error e2;
        ch_remove_tree(tmpd, &e2);
    } else {
        rc = ch_remove_tree(dir, err);
    }
    free(tmpl);
    return rc;
}

unsigned long long ch_cache_dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned long long total = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = ch_path_join(dir, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0)
            total += S_ISDIR(sb.st_mode) ? ch_cache_dir_bytes(p) : (unsigned long long)sb.st_size;
        free(p);
    }
    closedir(d);
    return total;
}

static int valid_name(const char *name)
{
    return name && *name && name[0] != '/' && !strstr(name, "..") && !strchr(name, '\n') &&
           strcmp(name, "index") != 0 && name[strlen(name) - 1] != '/';
}

static int check_key(const char *key, ch_error *err)
{
    if (!ch_cache_key_valid(key))
        return ch_error_set(err, "'%s' is not a cache key (32 lowercase hex digits)",
                            key ? key : "(null)");
    return 0;
}

static long long now_unix(void)
{
    return (long long)time(NULL);
}

/* ---- open / close ---- */

int ch_cache_open_opts(ch_cache **out, const ch_cache_opts *o, ch_error *err)
{
    *out = NULL;
    ch_cache *c = ch_xcalloc(1, sizeof *c);
    ch_strvec_init(&c->warnings);
    /* the front owns the tiers: this directory first, the remotes behind it */
    if (ch_storage_open(c, o, err) != 0) {
        ch_cache_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

int ch_cache_open(ch_cache **out, const ch_config *cfg, ch_error *err)
{
    ch_cache_opts o = {0};
    o.dir = ch_config_get(cfg, "cache_dir");
    o.remote = ch_config_get(cfg, "remote");
    o.remote_token = ch_config_get(cfg, "remote_token");
    if (!*o.remote_token)
        o.remote_token = NULL;
    o.sign_key = ch_config_get(cfg, "sign_key");
    o.trusted_keys = ch_config_get(cfg, "trusted_keys");
    if (ch_config_size(cfg, "max_size", &o.max_size, err) != 0 ||
        ch_config_double(cfg, "lock_timeout", &o.lock_timeout, err) != 0 ||
        ch_config_bool(cfg, "remote_only_read", &o.remote_only_read, err) != 0 ||
        ch_config_double(cfg, "remote_timeout", &o.remote_timeout, err) != 0 ||
        ch_config_size(cfg, "remote_max_size", &o.remote_max_size, err) != 0)
        return -1;
    return ch_cache_open_opts(out, &o, err);
}

void ch_cache_close(ch_cache *c)
{
    if (!c)
        return;
    ch_storage_close(&c->storage);
    ch_trust_free(&c->trust);
    free(c->trust_fault);
    sodium_memzero(&c->signer, sizeof c->signer);
    ch_strvec_free(&c->warnings);
    free(c);
}

const char *ch_cache_dir(const ch_cache *c)
{
    return c->storage.local.dir;
}

unsigned long long ch_cache_max_size(const ch_cache *c)
{
    return c->storage.local.max_size;
}

/* ---- hits ---- */

void ch_cache_hit_init(ch_cache_hit *h)
{
    memset(h, 0, sizeof *h); /* a zeroed ch_strvec is a valid empty one: nothing allocated */
}

void ch_cache_hit_free(ch_cache_hit *h)
{
    for (size_t i = 0; i < h->n_files; i++) {
        free(h->files[i].name);
        free(h->files[i].data);
    }
    free(h->files);
    ch_strvec_free(&h->meta);
    ch_cache_hit_init(h);
}

const ch_cache_file *ch_cache_hit_file(const ch_cache_hit *h, const char *name)
{
    for (size_t i = 0; i < h->n_files; i++)
        if (strcmp(h->files[i].name, name) == 0)
            return &h->files[i];
    return NULL;
}

/* The value of record name in "name=value" records, or NULL. */
static const char *meta_value(const ch_strvec *meta, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < meta->len; i++)
        if (strncmp(meta->items[i], name, n) == 0 && meta->items[i][n] == '=')
            return meta->items[i] + n + 1;
    return NULL;
}

const char *ch_cache_hit_meta(const ch_cache_hit *h, const char *name)
{
    return meta_value(&h->meta, name);
}

/* An entry's index lists its files and a few lines of meta: a few KiB. One far larger is
 * damage, refused before it is read. */
#define CH_INDEX_MAX_BYTES ((size_t)16 << 20)

/* Reads and verifies the entry in directory path. 1: valid (hit filled), 0: absent, -1: damaged
 * (why in err). Caller holds the key's lock. */
static int read_entry(const char *path, const char *key, ch_cache_hit *hit, ch_error *err)
{
    ch_cache_hit_init(hit);
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return 0;
    if (!S_ISDIR(sb.st_mode))
        return ch_error_set(err, "its path is not a directory");
    char *ipath = ch_path_join(path, "index");
    char *text;
    size_t len;
    /* the entry's files are ours: a FIFO or link there is damage, never waited on or followed */
    int rc = ch_read_regular_file_max(ipath, CH_INDEX_MAX_BYTES, &text, &len, err);
    free(ipath);
    if (rc != 0)
        return ch_error_set(err, "its index is missing or unreadable");
    ch_index idx;
    rc = ch_index_parse(key, text, len, &idx, err);
    if (rc == 0 && idx.text_len != len)
        rc = ch_error_set(err, "index record has trailing bytes");
    free(text);
    if (rc != 0) {
        if (idx.files)
            ch_index_free(&idx);
        return -1;
    }
    memcpy(hit->key, key, 33);
    hit->files = ch_xcalloc(idx.n ? idx.n : 1, sizeof *hit->files);
    for (size_t i = 0; i < idx.n && rc == 0; i++) {
        char *fp = ch_path_join(path, idx.files[i].name);
        char *data = NULL;
        size_t dlen;
        /* the index says how large the file is: a larger one is damage, and is never read */
        int got = idx.files[i].size > SIZE_MAX
                      ? 1
                      : ch_read_regular_file_max(fp, (size_t)idx.files[i].size, &data, &dlen, err);
        if (got == 1)
            rc = ch_error_set(err, "file '%s' is larger than its index says (%llu bytes)",
                              idx.files[i].name, idx.files[i].size);
        else if (got != 0)
            rc = ch_error_set(err, "file '%s' is missing", idx.files[i].name);
        else if (dlen != idx.files[i].size)
            rc = ch_error_set(err, "file '%s' has %zu bytes instead of %llu", idx.files[i].name,
                              dlen, idx.files[i].size);
        else if (XXH3_64bits(data, dlen) != idx.files[i].sum)
            rc = ch_error_set(err, "file '%s' fails its checksum", idx.files[i].name);
        free(fp);
        if (rc != 0) {
            free(data);
            break;
        }
        ch_cache_file *f = &hit->files[hit->n_files++];
        f->name = ch_xstrdup(idx.files[i].name);
        f->data = (unsigned char *)data;
        f->len = dlen;
    }
    if (rc == 0) {
        ch_strvec_pushv(&hit->meta, &idx.meta);
        hit->created = idx.created;
    }
    ch_index_free(&idx);
    if (rc != 0) {
        ch_cache_hit_free(hit);
        return -1;
    }
    return 1;
}

/* A damaged entry seen under a shared lock: re-check under the exclusive lock, remove it and
 * warn, so that exactly one process reports and counts it. */
static void handle_damage(ch_cache *c, const char *key, ch_cache_stats *delta)
{
    char *lpath = ch_cache_lock_path(c, key), *epath = ch_cache_entry_path(c, key);
    ch_lock lock;
    ch_error err;
    if (ch_lock_acquire(lpath, 1, c->storage.local.lock_timeout, &lock, &err) == 0) {
        ch_cache_hit h;
        ch_error why;
        if (read_entry(epath, key, &h, &why) < 0) {
            if (ch_cache_remove_dir(c, epath, &err) == 0) {
                ch_cache_warn(c, "cache entry %s was damaged (%s); removed, it will be rebuilt",
                              key, why.msg);
                delta->damaged++;
            }
        } else {
            ch_cache_hit_free(&h);
        }
        ch_lock_release(&lock);
    }
    free(lpath);
    free(epath);
}

/* Removes key's local copy when it is still one whose signer is not trusted (re-checked under
 * the exclusive lock: another build may have replaced it): a refused copy left in place would
 * be taken by ch_cache_begin as "generated by someone else". */
static void drop_revoked(ch_cache *c, const char *key)
{
    char *lpath = ch_cache_lock_path(c, key), *epath = ch_cache_entry_path(c, key);
    ch_lock lock;
    ch_error err;
    if (ch_lock_acquire(lpath, 1, c->storage.local.lock_timeout, &lock, &err) == 0) {
        ch_cache_hit h;
        if (read_entry(epath, key, &h, &err) > 0 &&
            ch_sign_signer_trusted(&c->trust, &h.meta, &err) != 0)
            ch_cache_remove_dir(c, epath, &err);
        ch_cache_hit_free(&h);
        ch_lock_release(&lock);
    }
    free(lpath);
    free(epath);
}

/* A hit read from the local store is used only while whoever signed it (a copy of a remote
 * entry) is still trusted (attacks7 #26): 1 usable, 2 refused (one warning, counted in
 * remote_rejected, hit freed; removed when locks work). */
static int still_trusted(ch_cache *c, const char *key, ch_cache_hit *hit, int can_remove,
                         ch_cache_stats *delta)
{
    ch_error why;
    if (ch_sign_signer_trusted(&c->trust, &hit->meta, &why) == 0)
        return 1;
    ch_cache_hit_free(hit);
    delta->remote_rejected++;
    if (c->trust_fault) /* say why nothing is trusted, not only that this key is not */
        ch_cache_warn(c,
                      "cache entry %s refused: %s (it could not be read: %s); building it locally",
                      key, why.msg, c->trust_fault);
    else
        ch_cache_warn(c, "cache entry %s refused: %s; building it locally", key, why.msg);
    if (can_remove)
        drop_revoked(c, key);
    return 2;
}

int ch_local_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_cache_stats *delta,
                    ch_error *err)
{
    char *epath = ch_cache_entry_path(c, key);
    struct stat sb;
    if (lstat(epath, &sb) != 0) {
        free(epath);
        return 0;
    }
    char *lpath = ch_cache_lock_path(c, key);
    ch_lock lock;
    ch_error lerr;
    int rc = ch_lock_acquire(lpath, 0, c->storage.local.lock_timeout, &lock, &lerr);
    free(lpath);
    if (rc < 0) {
        /* no lock can be taken (a read-only cache, locks/ not a directory): entries are
         * published by rename and checked file by file, so an unlocked read is still exact;
         * damage found this way is only a miss (nothing can be removed) */
        if (!c->lock_fault_said)
            ch_cache_warn(c,
                          "cache locks unusable (%s); reading entries without them, counters "
                          "not updated",
                          lerr.msg);
        c->lock_fault_said = 1;
        c->stats_fault_said = 1; /* the stats lock fails the same way: said here */
        ch_error why;
        rc = read_entry(epath, key, hit, &why);
        free(epath);
        return rc > 0 ? still_trusted(c, key, hit, 0, delta) : 0;
    }
    if (rc > 0) {
        free(epath);
        return ch_error_set(err, "timed out waiting for the lock on cache entry %s", key);
    }
    ch_error why;
    rc = read_entry(epath, key, hit, &why);
    if (rc > 0)
        utimensat(AT_FDCWD, epath, NULL, 0); /* last use, for LRU eviction */
    ch_lock_release(&lock);
    free(epath);
    if (rc < 0) {
        handle_damage(c, key, delta);
        rc = 0;
    }
    return rc > 0 ? still_trusted(c, key, hit, 1, delta) : rc;
}

int ch_cache_peek(ch_cache *c, const char *key, ch_cache_hit *hit, ch_error *err)
{
    ch_cache_hit_init(hit);
    if (check_key(key, err) != 0)
        return -1;
    char *epath = ch_cache_entry_path(c, key), *lpath = ch_cache_lock_path(c, key);
    ch_lock lock;
    int rc =
        ch_is_dir(epath) ? ch_lock_acquire(lpath, 0, c->storage.local.lock_timeout, &lock, err) : 2;
    if (rc == 0) {
        rc = read_entry(epath, key, hit, err);
        if (rc < 0)
            ch_error_prefix(err, "cache entry %s is damaged", key);
        ch_lock_release(&lock);
    } else if (rc == 1) {
        rc = ch_error_set(err, "timed out waiting for the lock on cache entry %s", key);
    } else if (rc == 2) {
        rc = 0;
    }
    free(epath);
    free(lpath);
    return rc;
}

static int txn_start(ch_cache *c, const char *key, ch_cache_txn **out, ch_error *err);
static int txn_publish(ch_cache_txn *t, ch_error *err);
static void txn_free(ch_cache_txn *t);

/* Counters are not worth a build: a stats file that cannot be written (read-only cache, full
 * disk) is one warning per handle. */
static void count_or_warn(ch_cache *c, const ch_cache_stats *delta)
{
    ch_error e;
    if (ch_stats_add(c, delta, &e) != 0 && !c->stats_fault_said) {
        ch_cache_warn(c, "cache statistics not updated: %s", e.msg);
        c->stats_fault_said = 1;
    }
}

void ch_local_keep(ch_cache *c, const char *key, const ch_cache_hit *hit)
{
    ch_cache_txn *t;
    ch_error le;
    if (txn_start(c, key, &t, &le) != 0)
        return;
    t->from_remote = 1;
    int ok = 1;
    for (size_t i = 0; i < hit->n_files && ok; i++)
        ok = ch_cache_put(t, hit->files[i].name, hit->files[i].data, hit->files[i].len, &le) == 0;
    for (size_t i = 0; i < hit->meta.len; i++)
        ch_strvec_push(&t->meta, hit->meta.items[i]);
    if (ok)
        txn_publish(t, &le);
    txn_free(t);
}

int ch_cache_lookup(ch_cache *c, const char *key, ch_cache_hit *hit, ch_error *err)
{
    ch_cache_hit_init(hit);
    if (check_key(key, err) != 0)
        return -1;
    ch_cache_stats delta = {0};
    int rc = ch_storage_lookup(c, key, hit, &delta, err);
    if (rc >= 0) {
        delta.lookups++;
        if (rc > 0)
            delta.hits++;
        else
            delta.misses++;
    }
    count_or_warn(c, &delta);
    return rc;
}

/* ---- transactions ---- */

/* Removes temp directories of key left by holders that died (caller holds the key lock), and
 * trash of removers that died. */
static void remove_stale_temps(ch_cache *c, const char *key)
{
    char *tdir = ch_path_join(c->storage.local.dir, "tmp");
    DIR *d = opendir(tdir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if ((strncmp(de->d_name, key, 32) == 0 && de->d_name[32] == '.') ||
                (strncmp(de->d_name, "trash.", 6) == 0 &&
                 kill((pid_t)strtol(de->d_name + 6, NULL, 10), 0) != 0 && errno == ESRCH)) {
                char *p = ch_path_join(tdir, de->d_name);
                ch_error e;
                ch_remove_tree(p, &e);
                free(p);
            }
        closedir(d);
    }
    free(tdir);
}

/* Takes the exclusive lock and makes the temp directory; no check for an existing entry. */
static int txn_start(ch_cache *c, const char *key, ch_cache_txn **out, ch_error *err)
{
    *out = NULL;
    char *lpath = ch_cache_lock_path(c, key);
    ch_lock lock;
    int rc = ch_lock_acquire(lpath, 1, c->storage.local.lock_timeout, &lock, err);
    if (rc != 0) {
        if (rc > 0) {
            long pid = ch_lock_holder(lpath);
            ch_error_set(err,
                         "timed out after %gs waiting for another build (pid %ld) generating "
                         "cache entry %s (lock_timeout)",
                         c->storage.local.lock_timeout, pid, key);
        }
        free(lpath);
        return -1;
    }
    free(lpath);
    remove_stale_temps(c, key);
    char *tmpl = ch_xasprintf("%s/tmp/%s.%ld.XXXXXX", c->storage.local.dir, key, (long)getpid());
    if (!mkdtemp(tmpl)) {
        ch_error_set(err, "cannot create a temporary directory in '%s/tmp': %s",
                     c->storage.local.dir, strerror(errno));
        free(tmpl);
        ch_lock_release(&lock);
        return -1;
    }
    ch_cache_txn *t = ch_xcalloc(1, sizeof *t);
    t->c = c;
    memcpy(t->key, key, 33);
    t->lock = lock;
    t->tmp = tmpl;
    ch_strvec_init(&t->meta);
    ch_strvec_init(&t->written);
    *out = t;
    return 0;
}

static void txn_free(ch_cache_txn *t)
{
    if (!t)
        return;
    if (t->tmp) {
        ch_error e;
        ch_remove_tree(t->tmp, &e);
        free(t->tmp);
    }
    for (size_t i = 0; i < t->n; i++) {
        free(t->files[i].name);
        free(t->files[i].data);
    }
    free(t->files);
    ch_strvec_free(&t->meta);
    ch_strvec_free(&t->written);
    ch_lock_release(&t->lock);
    free(t);
}

int ch_cache_begin(ch_cache *c, const char *key, ch_cache_txn **txn, ch_cache_hit *hit,
                   ch_error *err)
{
    *txn = NULL;
    ch_cache_hit_init(hit);
    if (check_key(key, err) != 0)
        return -1;
    ch_cache_txn *t;
    if (txn_start(c, key, &t, err) != 0)
        return -1;
    char *epath = ch_cache_entry_path(c, key);
    ch_error why;
    int rc = read_entry(epath, key, hit, &why);
    free(epath);
    if (rc > 0) { /* generated by someone else while we waited */
        txn_free(t);
        return 1;
    }
    /* absent, or damaged: the commit replaces a damaged directory */
    *txn = t;
    return 0;
}

/* Takes the files of hit into t without writing them anywhere (an in-place update keeps them
 * where they are). hit is left empty. */
static void txn_adopt(ch_cache_txn *t, ch_cache_hit *hit)
{
    t->files = hit->files;
    t->n = t->cap = hit->n_files;
    hit->files = NULL;
    hit->n_files = 0;
    ch_strvec_pushv(&t->meta, &hit->meta);
}

int ch_cache_begin_update(ch_cache *c, const char *key, ch_cache_txn **txn, ch_error *err)
{
    *txn = NULL;
    if (check_key(key, err) != 0)
        return -1;
    ch_cache_txn *t;
    if (txn_start(c, key, &t, err) != 0)
        return -1;
    char *epath = ch_cache_entry_path(c, key);
    ch_cache_hit old;
    ch_error why;
    if (read_entry(epath, key, &old, &why) > 0) {
        txn_adopt(t, &old);
        t->in_place = 1;
    }
    ch_cache_hit_free(&old);
    free(epath);
    t->update = 1;
    *txn = t;
    return 0;
}

int ch_cache_put(ch_cache_txn *t, const char *name, const void *data, size_t len, ch_error *err)
{
    if (!valid_name(name))
        return ch_error_set(err, "invalid cache file name '%s'", name ? name : "(null)");
    const ch_cache_file *same = ch_cache_txn_file(t, name);
    if (t->in_place && same && same->len == len && (len == 0 || memcmp(same->data, data, len) == 0))
        return 0; /* the entry has these bytes already: nothing to write */
    char *path = ch_path_join(t->tmp, name);
    char *dir = ch_path_dir(path);
    int rc = ch_mkdir_p(dir, err);
    free(dir);
    if (rc == 0)
        rc = ch_write_file_atomic(path, data, len, !t->c->storage.local.no_fsync, err);
    free(path);
    if (rc != 0)
        return -1;
    int known = 0;
    for (size_t i = 0; i < t->written.len && !known; i++)
        known = strcmp(t->written.items[i], name) == 0;
    if (!known)
        ch_strvec_push(&t->written, name);
    ch_cache_file *f = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->files[i].name, name) == 0) {
            f = &t->files[i];
            free(f->data);
        }
    if (!f) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 8;
            t->files = ch_xrealloc(t->files, t->cap * sizeof *t->files);
        }
        f = &t->files[t->n++];
        f->name = ch_xstrdup(name);
    }
    f->data = ch_xmalloc(len + 1);
    if (len)
        memcpy(f->data, data, len);
    f->data[len] = '\0';
    f->len = len;
    return 0;
}

const ch_cache_file *ch_cache_txn_file(const ch_cache_txn *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->files[i].name, name) == 0)
            return &t->files[i];
    return NULL;
}

const char *ch_cache_txn_get_meta(const ch_cache_txn *t, const char *name)
{
    return meta_value(&t->meta, name);
}

void ch_cache_txn_meta(ch_cache_txn *t, const char *name, const char *value)
{
    size_t n = strlen(name);
    char *rec = ch_xasprintf("%s=%s", name, value ? value : "");
    for (char *p = rec; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    for (size_t i = 0; i < t->meta.len; i++)
        if (strcmp(t->meta.items[i], rec) == 0) {
            free(rec); /* already so: the index need not change */
            return;
        }
    t->meta_changed = 1;
    for (size_t i = 0; i < t->meta.len; i++)
        if (strncmp(t->meta.items[i], name, n) == 0 && t->meta.items[i][n] == '=') {
            free(t->meta.items[i]);
            t->meta.items[i] = t->meta.items[--t->meta.len];
            t->meta.items[t->meta.len] = NULL;
            i--;
        }
    ch_strvec_push_owned(&t->meta, rec);
}

static void fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* An update of a valid entry that only adds files: moves them into the entry directory one by
 * one (rename within the cache's file system), then replaces the index by rename, so the files
 * not put are never copied. Lock still held, which keeps locked readers out until the index is
 * in place; a crash between the two renames leaves an extra file the old index does not name,
 * which is harmless. (An update that replaces a file is published whole: txn_fill_whole.) */
static int txn_publish_in_place(ch_cache_txn *t, ch_error *err)
{
    ch_cache *c = t->c;
    char *epath = ch_cache_entry_path(c, t->key);
    int rc = 0;
    for (size_t i = 0; i < t->written.len && rc == 0; i++) {
        char *src = ch_path_join(t->tmp, t->written.items[i]);
        char *dst = ch_path_join(epath, t->written.items[i]);
        char *dir = ch_path_dir(dst);
        rc = ch_mkdir_p(dir, err);
        if (rc == 0 && rename(src, dst) != 0)
            rc = ch_error_set(err, "cannot add '%s' to cache entry '%s': %s", t->written.items[i],
                              epath, strerror(errno));
        if (rc == 0 && !c->storage.local.no_fsync)
            fsync_path(dir);
        free(dir);
        free(dst);
        free(src);
    }
    if (rc == 0) {
        ch_strbuf idx;
        ch_strbuf_init(&idx);
        t->created = now_unix();
        ch_index_format(t->key, t->files, t->n, &t->meta, t->created, &idx);
        char *ipath = ch_path_join(epath, "index");
        rc = ch_write_file_atomic(ipath, idx.data, idx.len, !c->storage.local.no_fsync, err);
        free(ipath);
        ch_strbuf_free(&idx);
    }
    if (rc == 0)
        utimensat(AT_FDCWD, epath, NULL, 0);
    free(epath);
    return rc;
}

/* Writes the index and renames the temp directory into place; lock still held. */
static int txn_publish(ch_cache_txn *t, ch_error *err)
{
    ch_cache *c = t->c;
    ch_strbuf idx;
    ch_strbuf_init(&idx);
    t->created = now_unix();
    ch_index_format(t->key, t->files, t->n, &t->meta, t->created, &idx);
    char *ipath = ch_path_join(t->tmp, "index");
    int rc = ch_write_file_atomic(ipath, idx.data, idx.len, !c->storage.local.no_fsync, err);
    free(ipath);
    ch_strbuf_free(&idx);
    if (rc != 0)
        return -1;
    if (!c->storage.local.no_fsync)
        fsync_path(t->tmp);
    char *epath = ch_cache_entry_path(c, t->key);
    char *parent = ch_path_dir(epath);
    rc = ch_mkdir_p(parent, err);
    if (rc == 0 && ch_is_dir(epath)) {
        /* replacing: swap atomically so the key never looks absent, then drop the old one */
        if (renameat2(AT_FDCWD, t->tmp, AT_FDCWD, epath, RENAME_EXCHANGE) == 0) {
            rc = ch_cache_remove_dir(c, t->tmp, err);
            free(t->tmp);
            t->tmp = NULL;
            goto published;
        }
        rc = ch_cache_remove_dir(c, epath, err);
    }
    if (rc == 0 && rename(t->tmp, epath) != 0)
        rc = ch_error_set(err, "cannot publish cache entry '%s': %s", epath, strerror(errno));
published:
    if (rc == 0) {
        free(t->tmp);
        t->tmp = NULL;
        utimensat(AT_FDCWD, epath, NULL, 0);
        if (!c->storage.local.no_fsync)
            fsync_path(parent);
    }
    free(parent);
    free(epath);
    return rc;
}

/* What the commit of t changes, for the remotes: an in-place update names the files it wrote;
 * anything else is a whole entry. */
static ch_storage_change txn_change(const ch_cache_txn *t)
{
    ch_storage_change what = {t->update, 1, 1};
    if (!t->in_place)
        return what;
    what.entry_changed = t->meta_changed;
    what.objects_changed = 0;
    for (size_t i = 0; i < t->written.len; i++) {
        if (ch_sign_is_object(t->written.items[i]))
            what.objects_changed = 1;
        else
            what.entry_changed = 1;
    }
    return what;
}

/* Whether the in-place update t would replace a file the entry has: its rename and the index's
 * are two steps, and a writer killed between them would leave the entry damaged. */
static int replaces_a_file(const ch_cache_txn *t)
{
    char *epath = ch_cache_entry_path(t->c, t->key);
    int replaces = 0;
    for (size_t i = 0; i < t->written.len && !replaces; i++) {
        char *dst = ch_path_join(epath, t->written.items[i]);
        struct stat st;
        replaces = lstat(dst, &st) == 0;
        free(dst);
    }
    free(epath);
    return replaces;
}

/* Turns the in-place update t into a whole new entry in its temp directory: the entry's files
 * not put are linked in beside the ones put (written from the copies read under the lock where
 * a link cannot be made), so the commit replaces the entry by one rename. */
static int txn_fill_whole(ch_cache_txn *t, ch_error *err)
{
    char *epath = ch_cache_entry_path(t->c, t->key);
    int rc = 0;
    for (size_t i = 0; i < t->n && rc == 0; i++) {
        int put = 0;
        for (size_t w = 0; w < t->written.len && !put; w++)
            put = strcmp(t->written.items[w], t->files[i].name) == 0;
        if (put)
            continue;
        char *src = ch_path_join(epath, t->files[i].name);
        char *dst = ch_path_join(t->tmp, t->files[i].name);
        char *dir = ch_path_dir(dst);
        rc = ch_mkdir_p(dir, err);
        if (rc == 0 && link(src, dst) != 0)
            rc = ch_write_file_atomic(dst, t->files[i].data, t->files[i].len,
                                      !t->c->storage.local.no_fsync, err);
        free(dir);
        free(dst);
        free(src);
    }
    free(epath);
    t->in_place = 0;
    return rc;
}

int ch_cache_commit(ch_cache_txn *t, ch_error *err)
{
    ch_cache *c = t->c;
    if (t->in_place && t->written.len == 0 && !t->meta_changed) {
        txn_free(t); /* nothing new: neither the entry nor the remote copies change */
        return 0;
    }
    /* in place only where that adds files: a replaced file goes in with the whole entry */
    if (t->in_place && replaces_a_file(t) && txn_fill_whole(t, err) != 0) {
        txn_free(t);
        return -1;
    }
    if ((t->in_place ? txn_publish_in_place(t, err) : txn_publish(t, err)) != 0) {
        txn_free(t);
        return -1;
    }
    ch_cache_stats delta = {0};
    delta.generations = !t->update;
    ch_lock_release(&t->lock);
    ch_storage_change what = txn_change(t);
    ch_storage_published(c, t->key, t->files, t->n, &t->meta, t->created, &what, &delta);
    txn_free(t);
    count_or_warn(c, &delta);
    return c->storage.local.max_size ? ch_cache_evict(c, NULL, err) : 0;
}

void ch_cache_abort(ch_cache_txn *t)
{
    txn_free(t);
}
