/* Listing, LRU eviction and clean. Last use is the entry directory's mtime (set at commit and on
 * every hit). Removal takes the key's lock exclusively without waiting: an entry being read
 * (shared lock) or written (exclusive lock) is skipped, never removed under its user. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static int is_hex(const char *s, size_t n)
{
    size_t i = 0;
    for (; s[i]; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return i == n;
}

int ch_cache_list(ch_cache *c, ch_cache_info **out, size_t *n, ch_error *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    DIR *top = opendir(c->storage.local.dir);
    if (!top)
        return ch_error_set(err, "cannot read cache directory '%s'", c->storage.local.dir);
    struct dirent *de;
    while ((de = readdir(top))) {
        if (!is_hex(de->d_name, 2))
            continue;
        char *sub = ch_path_join(c->storage.local.dir, de->d_name);
        DIR *d = opendir(sub);
        struct dirent *e2;
        while (d && (e2 = readdir(d))) {
            if (!is_hex(e2->d_name, 30))
                continue;
            char *p = ch_path_join(sub, e2->d_name);
            struct stat sb;
            /* a non-directory here is a damaged entry: listed so that clean removes it */
            if (lstat(p, &sb) == 0) {
                if (*n == cap) {
                    cap = cap ? 2 * cap : 64;
                    *out = ch_xrealloc(*out, cap * sizeof **out);
                }
                ch_cache_info *info = &(*out)[(*n)++];
                memcpy(info->key, de->d_name, 2);
                memcpy(info->key + 2, e2->d_name, 31);
                info->bytes = ch_cache_dir_bytes(p);
                info->last_use_ns =
                    (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
            }
            free(p);
        }
        if (d)
            closedir(d);
        free(sub);
    }
    closedir(top);
    return 0;
}

static int by_last_use(const void *a, const void *b)
{
    const ch_cache_info *x = a, *y = b;
    if (x->last_use_ns != y->last_use_ns)
        return x->last_use_ns < y->last_use_ns ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* Removes the entry of key unless it is in use. 1 removed, 0 skipped or gone. */
static int remove_if_idle(ch_cache *c, const char *key)
{
    char *lpath = ch_cache_lock_path(c, key), *epath = ch_cache_entry_path(c, key);
    ch_lock lock;
    ch_error e;
    int removed = 0;
    if (ch_lock_acquire(lpath, 1, 0, &lock, &e) == 0) {
        struct stat sb; /* a plain file at an entry's path goes too */
        if (lstat(epath, &sb) == 0 && ch_cache_remove_dir(c, epath, &e) == 0)
            removed = 1;
        ch_lock_release_unlink(&lock, lpath);
    }
    free(lpath);
    free(epath);
    return removed;
}

int ch_cache_evict_to(ch_cache *c, unsigned long long limit, size_t *evicted, ch_error *err)
{
    if (evicted)
        *evicted = 0;
    ch_cache_info *list;
    size_t n;
    if (ch_cache_list(c, &list, &n, err) != 0)
        return -1;
    unsigned long long total = 0;
    for (size_t i = 0; i < n; i++)
        total += list[i].bytes;
    if (n)
        qsort(list, n, sizeof *list, by_last_use);
    ch_cache_stats delta = {0};
    for (size_t i = 0; i < n && total > limit; i++)
        if (remove_if_idle(c, list[i].key)) {
            total -= list[i].bytes;
            delta.evictions++;
        }
    free(list);
    if (evicted)
        *evicted = (size_t)delta.evictions;
    return ch_stats_add(c, &delta, err);
}

int ch_cache_evict(ch_cache *c, size_t *evicted, ch_error *err)
{
    if (!c->storage.local.max_size) {
        if (evicted)
            *evicted = 0;
        return 0;
    }
    return ch_cache_evict_to(c, c->storage.local.max_size, evicted, err);
}

int ch_cache_clean(ch_cache *c, size_t *removed, ch_error *err)
{
    *removed = 0;
    ch_cache_info *list;
    size_t n;
    if (ch_cache_list(c, &list, &n, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        *removed += (size_t)remove_if_idle(c, list[i].key);
    free(list);
    /* temp directories of dead generators and trash of dead removers */
    char *tdir = ch_path_join(c->storage.local.dir, "tmp");
    DIR *d = opendir(tdir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char *p = ch_path_join(tdir, de->d_name);
        ch_error e;
        if (strncmp(de->d_name, "trash.", 6) == 0) {
            long pid = strtol(de->d_name + 6, NULL, 10);
            if (pid > 0 && kill((pid_t)pid, 0) != 0)
                ch_remove_tree(p, &e);
        } else if (strlen(de->d_name) > 33 && de->d_name[32] == '.') {
            char key[33];
            memcpy(key, de->d_name, 32);
            key[32] = '\0';
            char *lpath = ch_cache_lock_path(c, key);
            ch_lock lock;
            if (ch_cache_key_valid(key) && ch_lock_acquire(lpath, 1, 0, &lock, &e) == 0) {
                ch_remove_tree(p, &e);
                ch_lock_release(&lock);
            }
            free(lpath);
        }
        free(p);
    }
    if (d)
        closedir(d);
    free(tdir);
    return 0;
}
