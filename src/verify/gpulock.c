/* The GPU lock of verification: shared for the functional stages (smoke, correctness,
 * sanitizer), exclusive for timing (performance stage, calibration). The races it handles are
 * listed where it is declared (ch/verify.h); the file locks themselves are ch/lock.h's (the
 * cache's lock code, waiting without a timeout). This file keeps the lock order: the
 * process-wide rwlock, then the turnstile file, then the lock file; release in reverse. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ch/fsutil.h"
#include "ch/verify.h"

/* Threads of this process: writer-preferring, so that a waiting timing run is not overtaken by
 * a stream of functional runs of other candidates (glibc's default prefers readers). */
static pthread_rwlock_t process_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/* Waits as long as the GPU is busy: a run that gave up would have nothing better to do. */
#define CH_GPU_LOCK_WAIT (-1.0)

int ch_gpu_lock_acquire(const char *path, int exclusive, ch_gpu_lock *l, ch_error *err)
{
    memset(l, 0, sizeof *l);
    l->file.fd = -1;
    l->exclusive = exclusive;
    if (exclusive)
        pthread_rwlock_wrlock(&process_lock);
    else
        pthread_rwlock_rdlock(&process_lock);
    l->held = 1;
    if (!path || !*path)
        return 0;
    char *turn_path = ch_xasprintf("%s.turn", path);
    ch_lock turn;
    /* the turnstile is held (exclusively) while waiting for the lock: a waiting exclusive taker
     * keeps new shared takers out until it got the lock */
    int rc = ch_lock_acquire(turn_path, 1, CH_GPU_LOCK_WAIT, &turn, err);
    if (rc == 0) {
        rc = ch_lock_acquire(path, exclusive, CH_GPU_LOCK_WAIT, &l->file, err);
        ch_lock_release(&turn);
    }
    free(turn_path);
    assert(rc <= 0); /* without a timeout a lock is never "busy" */
    if (rc != 0) {
        l->file.fd = -1;
        return ch_error_prefix(err, "GPU lock"); /* the process-wide lock is still held */
    }
    return 0;
}

void ch_gpu_lock_release(ch_gpu_lock *l)
{
    if (!l->held)
        return;
    ch_lock_release(&l->file);
    l->held = 0;
    pthread_rwlock_unlock(&process_lock);
}
