/* File-system helpers: whole-file reads, temp-file-and-rename writes, directory trees, PATH
 * lookup. Invariant: ch_write_file_atomic never leaves a partial destination file. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ch/cleanup.h"
#include "ch/fsutil.h"
#include "ch/strbuf.h"

int ch_read_file(const char *path, char **out, size_t *len, ch_error *err)
{
    return ch_read_file_max(path, SIZE_MAX, out, len, err);
}

/* O_NONBLOCK: opening a FIFO for reading waits for a writer, which may never come; for a
 * regular file the flag changes nothing, so the caller's reads are not affected. */
int ch_open_regular_at(int dir, const char *path, int flags)
{
    int fd = openat(dir, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* Reads fd (closed here) whole. The size is judged twice: from fstat before anything is read
 * (a huge regular file costs nothing), and while reading (a pipe, or a file that grows)
 * without holding more than max. */
static int read_fd_max(int fd, const char *path, size_t max, char **out, size_t *len, ch_error *err)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max) {
        close(fd);
        ch_error_set(err, "'%s' has %lld bytes, more than the %zu this read allows", path,
                     (long long)st.st_size, max);
        return 1;
    }
    ch_strbuf sb;
    ch_strbuf_init(&sb);
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            ch_strbuf_free(&sb);
            return ch_error_set(err, "cannot read '%s': %s", path, strerror(e));
        }
        if (n == 0)
            break;
        if ((size_t)n > max - sb.len) {
            close(fd);
            ch_strbuf_free(&sb);
            ch_error_set(err, "'%s' has more than the %zu bytes this read allows", path, max);
            return 1;
        }
        ch_strbuf_add(&sb, chunk, (size_t)n);
    }
    close(fd);
    if (len)
        *len = sb.len;
    *out = ch_strbuf_detach(&sb);
    ch_strbuf_free(&sb);
    return 0;
}

int ch_read_regular_file_max(const char *path, size_t max, char **out, size_t *len, ch_error *err)
{
    int fd = ch_open_regular_at(AT_FDCWD, path, O_NOFOLLOW);
    if (fd < 0 && (errno == EINVAL || errno == ELOOP))
        return ch_error_set(err, "'%s' is not a regular file (a link, device or FIFO)", path);
    if (fd < 0)
        return ch_error_set(err, "cannot open '%s': %s", path, strerror(errno));
    return read_fd_max(fd, path, max, out, len, err);
}

int ch_read_file_max(const char *path, size_t max, char **out, size_t *len, ch_error *err)
{
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ch_error_set(err, "cannot open '%s': %s", path, strerror(errno));
    return read_fd_max(fd, path, max, out, len, err);
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int ch_write_file_atomic(const char *path, const void *data, size_t len, int fsync_data,
                         ch_error *err)
{
    char *tmp = ch_xasprintf("%s.tmp.%ld.XXXXXX", path, (long)getpid());
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        ch_error_set(err, "cannot create a temporary file for '%s': %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkostemp makes 0600 files; outputs of a compiler are expected to follow the umask. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    int failed = write_all(fd, data, len) != 0 || (fsync_data && fsync(fd) != 0);
    int e = errno;
    if (close(fd) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed && rename(tmp, path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        unlink(tmp);
        ch_error_set(err, "cannot write '%s': %s", path, strerror(e));
    }
    free(tmp);
    return failed ? -1 : 0;
}

int ch_mkdir_p(const char *path, ch_error *err)
{
    char *p = ch_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            ch_error_set(err, "cannot create directory '%s': %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST)
        rc = ch_error_set(err, "cannot create directory '%s': %s", p, strerror(errno));
    free(p);
    return rc;
}

int ch_remove_tree(const char *path, ch_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0
                               : ch_error_set(err, "cannot stat '%s': %s", path, strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return ch_error_set(err, "cannot remove '%s': %s", path, strerror(errno));
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return ch_error_set(err, "cannot open directory '%s': %s", path, strerror(errno));
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *child = ch_path_join(path, de->d_name);
        if (ch_remove_tree(child, err) != 0)
            rc = -1;
        free(child);
    }
    closedir(d);
    if (rmdir(path) != 0 && errno != ENOENT)
        rc = ch_error_set(err, "cannot remove '%s': %s", path, strerror(errno));
    return rc;
}

static int usable_temp_dir(const char *dir)
{
    struct stat st;
    return dir && *dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
           access(dir, R_OK | W_OK | X_OK) == 0;
}

/* libiberty's choose_tmpdir, which gcc and its driver use: a TMPDIR that is missing, a file or
 * read-only is passed over without a word, so a build that gcc finishes does not fail here. */
const char *ch_temp_dir(void)
{
    const char *const candidates[] = {getenv("TMPDIR"), getenv("TMP"), getenv("TEMP"),
#ifdef P_tmpdir
                                      P_tmpdir,
#endif
                                      "/var/tmp",       "/usr/tmp",    "/tmp"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (usable_temp_dir(candidates[i]))
            return candidates[i];
    return ".";
}

char *ch_make_temp_dir(const char *prefix, ch_error *err)
{
    const char *base = ch_cleanup_temp_base();
    if (!base)
        base = ch_temp_dir();
    /* the pid in the name lets the next run remove it if this one is SIGKILLed (cleanup.h) */
    char *tmpl = ch_xasprintf("%s/ch-cc-%s-%ld-XXXXXX", base, prefix, (long)getpid());
    if (!mkdtemp(tmpl)) {
        ch_error_set(err, "cannot create a temporary directory in '%s': %s", base, strerror(errno));
        free(tmpl);
        return NULL;
    }
    ch_cleanup_register_dir(tmpl);
    /* without its marker no later run would ever remove it */
    if (ch_cleanup_mark_made(tmpl) != 0) {
        ch_error_set(err, "cannot write in the temporary directory '%s': %s", tmpl,
                     strerror(errno));
        ch_error ignored;
        ch_remove_tree(tmpl, &ignored);
        free(tmpl);
        return NULL;
    }
    return tmpl;
}

int ch_file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int ch_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *ch_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    if (la > 0 && a[la - 1] == '/')
        return ch_xasprintf("%s%s", a, b);
    return ch_xasprintf("%s/%s", a, b);
}

const char *ch_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *ch_path_with_suffix(const char *path, const char *suffix)
{
    const char *dot = strrchr(ch_path_base(path), '.');
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    return ch_xasprintf("%.*s%s", (int)stem, path, suffix);
}

char *ch_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ch_xstrdup(".");
    if (slash == path)
        return ch_xstrdup("/");
    return ch_xstrndup(path, (size_t)(slash - path));
}

const char *ch_path_ext(const char *path)
{
    const char *base = ch_path_base(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot + 1 : "";
}

static int same_file(const char *a, const struct stat *other)
{
    struct stat st;
    return a && stat(a, &st) == 0 && st.st_dev == other->st_dev && st.st_ino == other->st_ino;
}

int ch_is_self(const char *path)
{
    struct stat other;
    if (stat(path, &other) != 0)
        return 0;
    /* CH_CC_SELF: the thin front binary, when this process is the full one it started. */
    return same_file("/proc/self/exe", &other) || same_file(getenv("CH_CC_SELF"), &other);
}

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *ch_find_executable(const char *name, int skip_self)
{
    if (strchr(name, '/')) {
        if (!is_executable_file(name) || (skip_self && ch_is_self(name)))
            return NULL;
        return ch_xstrdup(name);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    const char *p = path;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char *dir = n ? ch_xstrndup(p, n) : ch_xstrdup(".");
        char *cand = ch_path_join(dir, name);
        free(dir);
        if (is_executable_file(cand) && !(skip_self && ch_is_self(cand)))
            return cand;
        free(cand);
        p += n;
        if (*p == ':')
            p++;
    }
    return NULL;
}

int ch_file_contains(const char *path, const void *needle, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    int found = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            found = memmem(p, (size_t)st.st_size, needle, len) != NULL;
            munmap(p, (size_t)st.st_size);
        }
    }
    close(fd);
    return found;
}
