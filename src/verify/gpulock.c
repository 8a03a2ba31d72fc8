/* The GPU lock of verification: shared for the functional stages (smoke, correctness,
 * sanitizer), exclusive for timing (performance stage, calibration). The races it handles are
 * listed where it is declared (ch/verify.h); this file keeps the lock order: the process-wide
 * rwlock, then the turnstile file, then the lock file; release in reverse. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ch/fsutil.h"
#include "ch/verify.h"

/* Threads of this process: writer-preferring, so that a waiting timing run is not overtaken by
 * a stream of functional runs of other candidates (glibc's default prefers readers). */
static pthread_rwlock_t process_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/* flock that retries when a signal interrupts the wait. */
static int flock_retry(int fd, int op)
{
    int rc;
    do
        rc = flock(fd, op);
    while (rc != 0 && errno == EINTR);
    return rc;
}

static int open_lock_file(const char *path, ch_error *err)
{
    char *dir = ch_path_dir(path);
    int rc = ch_mkdir_p(dir, err);
    free(dir);
    if (rc != 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        ch_error_set(err, "cannot open the GPU lock %s: %s", path, strerror(errno));
    return fd;
}

int ch_gpu_lock_acquire(const char *path, int exclusive, ch_gpu_lock *l, ch_error *err)
{
    memset(l, 0, sizeof *l);
    l->fd = -1;
    l->exclusive = exclusive;
    if (exclusive)
        pthread_rwlock_wrlock(&process_lock);
    else
        pthread_rwlock_rdlock(&process_lock);
    l->held = 1;
    if (!path || !*path)
        return 0;
    char *turn_path = ch_xasprintf("%s.turn", path);
    int turn = open_lock_file(turn_path, err);
    free(turn_path);
    int fd = turn >= 0 ? open_lock_file(path, err) : -1;
    int rc = -1;
    /* the turnstile is held while waiting for the lock: a waiting exclusive holder keeps new
     * shared takers out until it got the lock */
    if (fd >= 0 && flock_retry(turn, LOCK_EX) == 0) {
        rc = flock_retry(fd, exclusive ? LOCK_EX : LOCK_SH);
        flock_retry(turn, LOCK_UN);
        if (rc != 0)
            ch_error_set(err, "cannot lock the GPU lock %s: %s", path, strerror(errno));
    } else if (fd >= 0) {
        ch_error_set(err, "cannot lock the GPU turnstile of %s: %s", path, strerror(errno));
    }
    if (turn >= 0)
        close(turn);
    if (rc != 0) {
        if (fd >= 0)
            close(fd);
        return -1; /* the process-wide lock is still held: release it as usual */
    }
    l->fd = fd;
    return 0;
}

void ch_gpu_lock_release(ch_gpu_lock *l)
{
    if (!l->held)
        return;
    if (l->fd >= 0)
        close(l->fd); /* releases the flock */
    l->fd = -1;
    l->held = 0;
    pthread_rwlock_unlock(&process_lock);
}
