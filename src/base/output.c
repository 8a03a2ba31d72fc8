/* User outputs (-o) written like gcc's tools write them: symlinks followed, devices written into,
 * regular files replaced atomically through a temp file unique to this process. Invariant: a
 * regular destination holds either its old bytes or the complete new ones. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/output.h"
#include "ch/strbuf.h"

/* The kernel's own limit on symlinks in one path (ELOOP beyond it). */
#define MAX_LINKS 40

/* out with every symlink followed (a dangling link gives its target, which the write creates,
 * as open(O_CREAT) through the link would). Caller frees; NULL with err on a loop. */
static char *follow_links(const char *out, ch_error *err)
{
    char *path = ch_xstrdup(out);
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
            return path;
        char target[PATH_MAX];
        ssize_t n = hops < MAX_LINKS ? readlink(path, target, sizeof target - 1) : -1;
        if (n < 0) {
            ch_error_set(err, "cannot write '%s': %s", out,
                         hops < MAX_LINKS ? strerror(errno) : strerror(ELOOP));
            free(path);
            return NULL;
        }
        target[n] = '\0';
        char *next;
        if (target[0] == '/') {
            next = ch_xstrdup(target);
        } else {
            char *dir = ch_path_dir(path);
            next = ch_path_join(dir, target);
            free(dir);
        }
        free(path);
        path = next;
    }
}

static void output_free(ch_output *o)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
}

int ch_output_begin(ch_output *o, const char *out, ch_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = follow_links(out, err);
    if (!o->path)
        return -1;
    struct stat st;
    if (stat(o->path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            output_free(o);
            return ch_error_set(err, "cannot write '%s': it is a directory", out);
        }
        o->special = !S_ISREG(st.st_mode);
    }
    if (o->special) {
        /* never a temp file in /dev: the bytes wait under $TMPDIR, then go into the device */
        o->tmp = ch_xasprintf("%s/ch-cc-out-%ld-XXXXXX", ch_temp_dir(), (long)getpid());
    } else {
        o->tmp = ch_xasprintf("%s.ch-cc-%ld-XXXXXX", o->path, (long)getpid());
    }
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0) {
        ch_error_set(err, "cannot write '%s': %s", out, strerror(errno));
        output_free(o);
        return -1;
    }
    close(fd);
    /* a signal before the rename must not leave the temp beside the user's output */
    ch_cleanup_register_file(o->tmp);
    return 0;
}

/* Copies the temp file's bytes into an existing device or FIFO (opened, never replaced). */
static int write_into(const char *tmp, const char *path, ch_error *err)
{
    int in = open(tmp, O_RDONLY | O_CLOEXEC);
    int out = in < 0 ? -1 : open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    int rc = in < 0 || out < 0 ? -1 : 0;
    char buf[65536];
    while (rc == 0) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        for (ssize_t done = 0; rc == 0 && done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno != EINTR)
                rc = -1;
            done += w > 0 ? w : 0;
        }
    }
    int e = errno;
    if (out >= 0 && close(out) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (in >= 0)
        close(in);
    if (rc != 0)
        ch_error_set(err, "cannot write '%s': %s", path, strerror(e));
    return rc;
}

int ch_output_commit(ch_output *o, ch_error *err)
{
    assert(o->path && o->tmp);
    int rc = 0;
    if (o->special) {
        rc = write_into(o->tmp, o->path, err);
    } else {
        /* the temp file was made 0600; an output follows the umask like any compiler's */
        mode_t mask = umask(0);
        umask(mask);
        if (chmod(o->tmp, 0666 & ~mask) != 0 || rename(o->tmp, o->path) != 0)
            rc = ch_error_set(err, "cannot write '%s': %s", o->path, strerror(errno));
    }
    if (rc != 0 || o->special)
        unlink(o->tmp);
    output_free(o);
    return rc;
}

void ch_output_abort(ch_output *o)
{
    if (o->tmp)
        unlink(o->tmp);
    output_free(o);
}

int ch_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}
