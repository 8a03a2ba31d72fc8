/* File locks shared by processes: flock(2) on small files, shared or exclusive, with a timeout
 * (cache/lock.c). The cache's per-key and stats locks and the verifier's GPU lock use them.
 *
 * The race they handle: a lock file may be unlinked by an exclusive holder (cache eviction and
 * clean remove an entry's lock file with it). A waiter that opened the file before the unlink
 * would then hold a lock on an inode no longer reachable by its path, while a newcomer creates
 * and locks a fresh file: two holders. So after every acquisition the descriptor's inode is
 * compared with the path's and the acquisition retried when they differ. flock is released by
 * the kernel when its holder dies, so a crashed process never leaves a lock held. */
#ifndef CH_LOCK_H
#define CH_LOCK_H

#include "ch/error.h"

typedef struct ch_lock {
    int fd; /* -1: not held */
} ch_lock;

/* Takes path's lock, shared or exclusive, creating the file (and its directory) when missing.
 * timeout: seconds to wait (0: try once; < 0: wait as long as it takes). 0 held, 1 busy (timed
 * out / try failed), -1 error with err. An exclusive holder writes its pid into the file, for
 * messages naming it (ch_lock_holder). */
int ch_lock_acquire(const char *path, int exclusive, double timeout, ch_lock *out, ch_error *err);
void ch_lock_release(ch_lock *l);
/* Exclusive holder only: unlinks the lock file, then releases it. */
void ch_lock_release_unlink(ch_lock *l, const char *path);
/* The pid recorded by the last exclusive holder of path, or 0. */
long ch_lock_holder(const char *path);

#endif
