/* file:// backend of the storage front: a directory shared by a team (NFS, a mounted volume),
 * <dir>/<first 2 chars>/<rest of the name>.char per item (backend.h: an entry <2 hex>/<30 hex>
 * .char, its objects and object record beside it). An item to keep is not written again when
 * it is there (stat first). A write goes to a temp file in the item's own directory
 * and is renamed (or hard-linked, when an existing item must be kept) into place, so a reader on
 * any machine sees a whole item or none, never a partial one; a writer that dies leaves only a
 * ".tmp." file that no reader opens. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

typedef struct file_store {
    char *dir; /* owned; no trailing '/' */
    unsigned long long max_get;
} file_store;

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

static char *item_path(const file_store *f, const char *name)
{
    return ch_xasprintf("%s/%.2s/%s.char", f->dir, name, name + 2);
}

/* Nonzero when the share's directory is there; else an unmounted volume (UNREACHABLE), which is
 * not a directory to create or a miss to count. */
static int share_present(const file_store *f, ch_storage_fault *fault, ch_error *err)
{
    if (ch_is_dir(f->dir))
        return 1;
    *fault = CH_STORAGE_UNREACHABLE;
    ch_error_set(err, "shared cache directory '%s' is missing", f->dir);
    return 0;
}

static int file_get(void *state, const char *name, int fd, ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    char *path = item_path(f, name);
    /* an item is a regular file the writer put there: a link (to /etc/shadow, a device) or a
     * FIFO in a shared directory is another user's trap, not an item */
    int in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat sb;
    if (in >= 0 && (fstat(in, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        close(in);
        in = -1;
        errno = EINVAL;
    }
    int rc;
    if (in < 0 && errno == ENOENT) {
        rc = share_present(f, fault, err) ? 0 : -1;
    } else if (in < 0) {
        *fault = errno == EACCES || errno == ELOOP || errno == EINVAL ? CH_STORAGE_FAILED
                                                                      : CH_STORAGE_UNREACHABLE;
        rc = errno == ELOOP || errno == EINVAL
                 ? ch_error_set(err, "'%s' is not a regular file (a link, device or FIFO)", path)
                 : ch_error_set(err, "cannot open '%s': %s", path, strerror(errno));
    } else {
        rc = ch_storage_copy_limited(in, fd, f->max_get, path, fault, err) == 0 ? 1 : -1;
        close(in);
    }
    free(path);
    return rc;
}

static int file_put(void *state, const char *name, const void *data, size_t len, int overwrite,
                    ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    char *path = item_path(f, name);
    char *dir = ch_path_dir(path);
    char *tmp = ch_xasprintf("%s/.%s.tmp.%ld.XXXXXX", dir, name + 2, (long)getpid());
    int rc = -1;
    *fault = CH_STORAGE_FAILED;
    if (!share_present(f, fault, err))
        goto out;
    struct stat sb;
    if (!overwrite && stat(path, &sb) == 0) {
        rc = 0; /* kept, and its bytes are not written to the share again */
        goto out;
    }
    if (ch_mkdir_p(dir, err) != 0)
        goto out;
    /* the share's own directory, never a link someone planted there: a writer following it
     * would store the entry outside the share (attacks5 rc06); the reader refuses linked items */
    if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        ch_error_set(err, "'%s' is not a directory of the share (a link or another file)", dir);
        goto out;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        ch_error_set(err, "cannot create a temporary file in '%s': %s", dir, strerror(errno));
        goto out;
    }
    fchmod(fd, 0644);
    rc = ch_storage_write_all(fd, data, len, err);
    if (rc == 0 && fsync(fd) != 0)
        rc = ch_error_set(err, "cannot write '%s': %s", tmp, strerror(errno));
    close(fd);
    if (rc == 0) {
        /* link() fails on an existing item and keeps it; rename() replaces it atomically */
        int moved = overwrite ? rename(tmp, path) : link(tmp, path);
        if (moved != 0 && !(errno == EEXIST && !overwrite))
            rc = ch_error_set(err, "cannot store '%s': %s", path, strerror(errno));
    }
    unlink(tmp); /* after link() the item keeps its own name; after rename() tmp is gone */
out:
    free(tmp);
    free(dir);
    free(path);
    return rc;
}

static int file_remove(void *state, const char *name, ch_storage_fault *fault, ch_error *err)
{
    file_store *f = state;
    char *path = item_path(f, name);
    int rc = 0;
    if (unlink(path) != 0 && errno != ENOENT) {
        *fault = CH_STORAGE_FAILED;
        rc = ch_error_set(err, "cannot remove '%s': %s", path, strerror(errno));
    }
    free(path);
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
