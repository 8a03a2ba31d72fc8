/* file:// backend of the storage front: a directory shared by a team (NFS, a mounted volume),
 * <dir>/<first 2 chars>/<rest of the name>.char per item (backend.h: an entry <2 hex>/<30 hex>
 * .char, its objects and object record beside it). An item to keep is not written again when
 * it is there (stat first). A write goes to a temp file in the item's own directory
 * and is renamed (or hard-linked, when an existing item must be kept) into place, so a reader on
 * any machine sees a whole item or none, never a partial one; a writer that dies leaves only a
 * ".tmp." file that no reader opens.
 *
 * Another local user who can write the share could swap one of its directories for a link
 * between a check and a use, and make us write (as ourselves) wherever it points. So every
 * request opens the share's directory with O_NOFOLLOW (its path is resolved once, when the
 * remote is opened: links the user's own configuration goes through are theirs), then the item's
 * directory under it with openat(O_NOFOLLOW), and does everything else relative to that
 * descriptor: a swap after the open cannot redirect a byte. A swap noticed after a write makes
 * the write a failure (one warning, the local entry kept), and its item is taken back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

typedef struct file_store {
    char *dir; /* owned; no trailing '/' */
    unsigned long long max_get;
    void (*step)(void *arg); /* tests only: see ch_storage_file_set_step */
    void *step_arg;
} file_store;

void ch_storage_file_set_step(void *state, void (*step)(void *arg), void *arg)
{
    file_store *f = state;
    f->step = step;
    f->step_arg = arg;
}

static int file_open(void **state, const char *url, const ch_storage_params *p, ch_error *err)
{
    *state = NULL;
    const char *path = url + strlen("file://");
    if (path[0] != '/')
        return ch_error_set(err,
                            "remote store '%s' is not a file:///absolute/path URL (a host part "
                            "is not supported; mount the share and name its directory)",
                            url);
    file_store *f = ch_xcalloc(1, sizeof *f);
    /* an unmounted share keeps its name: each request says it is missing */
    f->dir = realpath(path, NULL);
    if (!f->dir)
        f->dir = ch_xstrdup(path);
    size_t n = strlen(f->dir);
    while (n > 1 && f->dir[n - 1] == '/')
        f->dir[--n] = '\0';
    f->max_get = p->max_get;
    *state = f;
    return 0;
}

static void file_close(void *state)
{
    file_store *f = state;
    if (!f)
        return;
    free(f->dir);
    free(f);
}

/* Where one item lives: names relative to the share's and the item directory's descriptors,
 * paths for messages only (never opened). */
typedef struct item_loc {
    char sub[3];
    char *leaf;     /* "<rest>.char" */
    char *dir_path; /* <share>/<sub> */
    char *path;     /* <share>/<sub>/<leaf> */
    int share;      /* the share's directory, open */
    int dir;        /* the item's directory under it, open */
} item_loc;

static void item_loc_init(item_loc *it, const file_store *f, const char *name)
{
    snprintf(it->sub, sizeof it->sub, "%.2s", name);
    it->leaf = ch_xasprintf("%s.char", name + 2);
    it->dir_path = ch_xasprintf("%s/%s", f->dir, it->sub);
    it->path = ch_xasprintf("%s/%s", it->dir_path, it->leaf);
}

static void item_loc_free(item_loc *it)
{
    free(it->leaf);
    free(it->dir_path);
    free(it->path);
}

/* The share's own directory, never a link put at its name since the remote was opened; -1 with
 * fault and err when it is missing (an unmounted volume: UNREACHABLE, not a miss) or a link. */
static int open_share(const file_store *f, ch_storage_fault *fault, ch_error *err)
{
    int fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    /* O_NOFOLLOW with O_DIRECTORY says ELOOP or ENOTDIR for a link: ask what is there */
    struct stat sb;
    if ((errno == ELOOP || errno == ENOTDIR) && lstat(f->dir, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        *fault = CH_STORAGE_FAILED;
        ch_error_set(err, "shared cache directory '%s' is now a link (not the directory it was)",
                     f->dir);
    } else {
        *fault = CH_STORAGE_UNREACHABLE;
        ch_error_set(err, "shared cache directory '%s' is missing", f->dir);
    }
    return -1;
}

/* The item's directory under the share, never through a link (a link planted there would move
 * the item outside the share: attacks5 rc06); made first when create. -1 with errno: ENOENT
 * absent, ELOOP or ENOTDIR a link or another file. */
static int open_item_dir(int share, const item_loc *it, int create)
{
    int fd = openat(share, it->sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdirat(share, it->sub, 0777) != 0 && errno != EEXIST)
            return -1;
        fd = openat(share, it->sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    return fd;
}

static int item_dir_error(const item_loc *it, ch_storage_fault *fault, ch_error *err)
{
    if (errno == ELOOP || errno == ENOTDIR) {
        *fault = CH_STORAGE_FAILED;
        return ch_error_set(err, "'%s' is not a directory of the share (a link or another file)",
                            it->dir_path);
    }
    *fault = errno == EACCES ? CH_STORAGE_FAILED : CH_STORAGE_UNREACHABLE;
    return ch_error_set(err, "cannot open directory '%s': %s", it->dir_path, strerror(errno));
}

static void item_close(item_loc *it)
{
    close(it->dir);
    close(it->share);
    item_loc_free(it);
}

/* Fills it for item name and opens the share, then the item's directory under it (made first
 * when create): 0 open (item_close it), -1 the directory is not there (a miss), -2 an error
 * with fault and err; after -1 or -2 nothing is left to close or free. */
static int item_open(item_loc *it, const file_store *f, const char *name, int create,
                     ch_storage_fault *fault, ch_error *err)
{
    item_loc_init(it, f, name);
    it->share = open_share(f, fault, err);
    it->dir = it->share < 0 ? -1 : open_item_dir(it->share, it, create);
    if (it->dir >= 0)
        return 0;
    int rc = -2;
    if (it->share >= 0) {
        if (errno == ENOENT && !create)
            rc = -1;
        else if (errno == ENOENT) {
            *fault = CH_STORAGE_FAILED;
            ch_error_set(err, "cannot create directory '%s': %s", it->dir_path, strerror(errno));
        } else
            item_dir_error(it, fault, err);
        close(it->share);
    }
    item_loc_free(it);
    return rc;
}

static int file_get(void *state, const char *name, int fd, ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    item_loc it;
    int o = item_open(&it, f, name, 0, fault, err);
    if (o < 0)
        return o == -1 ? 0 : -1;
    int rc;
    /* an item is a regular file the writer put there: a link (to /etc/shadow, a device) or a
     * FIFO in a shared directory is another user's trap, not an item */
    int in = ch_open_regular_at(it.dir, it.leaf, O_NOFOLLOW);
    if (in < 0 && errno == ENOENT) {
        rc = 0;
    } else if (in < 0) {
        *fault = errno == EACCES || errno == ELOOP || errno == EINVAL ? CH_STORAGE_FAILED
                                                                      : CH_STORAGE_UNREACHABLE;
        rc = errno == ELOOP || errno == EINVAL
                 ? ch_error_set(err, "'%s' is not a regular file (a link, device or FIFO)", it.path)
                 : ch_error_set(err, "cannot open '%s': %s", it.path, strerror(errno));
    } else {
        rc = ch_storage_copy_limited(in, fd, f->max_get, it.path, fault, err) == 0 ? 1 : -1;
        close(in);
    }
    item_close(&it);
    return rc;
}

/* A new file in dir whose name no one else holds (O_EXCL, never through a link), mode 0644
 * whatever the umask (the team reads it); *tmp its name, caller frees. -1 with errno. */
static int create_temp(int dir, const char *name, char **tmp)
{
    for (unsigned tries = 0; tries < 100; tries++) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        *tmp = ch_xasprintf(".%s.tmp.%ld.%06lx", name + 2, (long)getpid(),
                            ((unsigned long)ts.tv_nsec + tries * 7919UL) & 0xffffffUL);
        int fd = openat(dir, *tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            fchmod(fd, 0644);
            return fd;
        }
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        errno = e;
        if (e != EEXIST)
            return -1;
    }
    return -1;
}

/* Writes the item through a temp file in dir and moves it into place: 0 stored, 1 an item there
 * was kept (overwrite 0), -1 error. */
static int write_item(const item_loc *it, const char *name, const void *data, size_t len,
                      int overwrite, ch_error *err)
{
    char *tmp;
    int fd = create_temp(it->dir, name, &tmp);
    if (fd < 0)
        return ch_error_set(err, "cannot create a temporary file in '%s': %s", it->dir_path,
                            strerror(errno));
    int rc = ch_storage_write_all(fd, data, len, err);
    if (rc == 0 && fsync(fd) != 0)
        rc = ch_error_set(err, "cannot write '%s/%s': %s", it->dir_path, tmp, strerror(errno));
    close(fd);
    if (rc == 0) {
        /* linkat() fails on an existing item and keeps it; renameat() replaces it atomically */
        int moved = overwrite ? renameat(it->dir, tmp, it->dir, it->leaf)
                              : linkat(it->dir, tmp, it->dir, it->leaf, 0);
        if (moved != 0 && errno == EEXIST && !overwrite)
            rc = 1;
        else if (moved != 0)
            rc = ch_error_set(err, "cannot store '%s': %s", it->path, strerror(errno));
    }
    /* after linkat() the item keeps its own name; after renameat() tmp is gone */
    unlinkat(it->dir, tmp, 0);
    free(tmp);
    return rc;
}

/* Nonzero when fd is still the directory named name under at (no link, no other directory
 * swapped in since it was opened). */
static int still_named(int fd, int at, const char *name)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstatat(at, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int file_put(void *state, const char *name, const void *data, size_t len, int overwrite,
                    ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    item_loc it;
    if (item_open(&it, f, name, 1, fault, err) < 0)
        return -1;
    *fault = CH_STORAGE_FAILED;
    struct stat sb;
    int rc = 0;
    if (!overwrite && fstatat(it.dir, it.leaf, &sb, AT_SYMLINK_NOFOLLOW) == 0)
        goto out; /* kept, and its bytes are not written to the share again */
    if (f->step)
        f->step(f->step_arg);
    rc = write_item(&it, name, data, len, overwrite, err);
    if (rc >= 0 &&
        !(still_named(it.dir, it.share, it.sub) && still_named(it.share, AT_FDCWD, f->dir))) {
        /* written where no reader of the share looks (a directory moved away, its name now a
         * link): take our item back and say so */
        if (rc == 0)
            unlinkat(it.dir, it.leaf, 0);
        rc = ch_error_set(err,
                          "the share's directory '%s' was replaced while writing (a link or "
                          "another directory); the item is not stored",
                          it.dir_path);
    }
    rc = rc < 0 ? -1 : 0;
out:
    item_close(&it);
    return rc;
}

static int file_remove(void *state, const char *name, ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    item_loc it;
    int o = item_open(&it, f, name, 0, fault, err);
    if (o < 0)
        return o == -1 ? 0 : -1; /* no directory: the item is absent */
    int rc = 0;
    if (unlinkat(it.dir, it.leaf, 0) != 0 && errno != ENOENT) {
        *fault = CH_STORAGE_FAILED;
        rc = ch_error_set(err, "cannot remove '%s': %s", it.path, strerror(errno));
    }
    item_close(&it);
    return rc;
}

const ch_storage_ops ch_storage_file = {
    .name = "file",
    .open = file_open,
    .close = file_close,
    .get = file_get,
    .put = file_put,
    .remove = file_remove,
};
