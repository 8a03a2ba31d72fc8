/* File locks (ch/lock.h): the cache's per-key and stats locks under <cache_dir>/locks/ and the
 * verifier's GPU lock. flock(2) is released by the kernel when its holder dies, so a crashed
 * build never leaves a lock held; the holder's pid is written into the file only to name it in
 * timeout messages.
 *
 * The race handled here: lock files may be unlinked by an exclusive holder (eviction, clean). A
 * waiter could then hold a lock on an inode no longer reachable by its path while a newcomer
 * locks a fresh file, so after every acquisition the descriptor's inode is compared with the
 * path's and the acquisition retried when they differ.
 *
 * And one of fork: a flock belongs to the open descriptor and lasts as long as any copy of it,
 * so a process forked by another thread while the lock is held keeps it held until that
 * process execs or exits (a sandbox's helpers never exec). Release unlocks before it closes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/lock.h"
#include "ch/strbuf.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int ch_lock_acquire(const char *path, int exclusive, double timeout, ch_lock *out, ch_error *err)
{
    out->fd = -1;
    double deadline = now_s() + timeout, delay = 0.0005;
    for (;;) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0 && errno == ENOENT) {
            char *slash = strrchr(path, '/');
            if (slash) {
                char *dir = ch_xstrndup(path, (size_t)(slash - path));
                ch_error e2;
                int rc = ch_mkdir_p(dir, &e2);
                free(dir);
                if (rc == 0)
                    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
            }
        }
        if (fd < 0)
            return ch_error_set(err, "cannot open lock file '%s': %s", path, strerror(errno));
        int got, mode = exclusive ? LOCK_EX : LOCK_SH;
        for (;;) {
            /* without a timeout the kernel queues the wait: no polling delay */
            got = flock(fd, timeout < 0 ? mode : mode | LOCK_NB) == 0;
            if (!got && timeout < 0 && errno == EINTR)
                continue;
            if (got || (errno != EWOULDBLOCK && errno != EINTR))
                break;
            double left = deadline - now_s();
            if (left <= 0)
                break;
            sleep_s(delay < left ? delay : left);
            if (delay < 0.02)
                delay *= 2;
        }
        if (!got) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK || e == EINTR)
                return 1;
            return ch_error_set(err, "cannot lock '%s': %s", path, strerror(e));
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev) {
            if (exclusive) {
                char pid[32];
                int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
                if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) < 0) {
                    /* the pid is only informative */
                }
            }
            out->fd = fd;
            return 0;
        }
        close(fd); /* the file was unlinked (or replaced) while we waited: retry */
    }
}

/* Unlocked before the close: a process forked meanwhile that has not exec'd (or never will: a
 * sandbox's helpers) holds a copy of the descriptor, and a flock lasts as long as any copy of
 * it is open. LOCK_UN ends it for every copy at once. */
void ch_lock_release(ch_lock *l)
{
    if (l->fd >= 0) {
        flock(l->fd, LOCK_UN);
        close(l->fd);
    }
    l->fd = -1;
}

void ch_lock_release_unlink(ch_lock *l, const char *path)
{
    if (l->fd >= 0)
        unlink(path);
    ch_lock_release(l);
}

long ch_lock_holder(const char *path)
{
    char *text;
    ch_error err;
    if (ch_read_regular_file_max(path, 64, &text, NULL, &err) != 0)
        return 0;
    long pid = strtol(text, NULL, 10);
    free(text);
    return pid;
}
