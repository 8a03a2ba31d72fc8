/* File-system helpers shared by every stage: whole-file reads, atomic writes, directories.
 *
 * Atomic writes go to a temporary file in the destination's directory and are renamed over the
 * destination, so a reader sees either the old file or the complete new one, never a partial
 * one; this is what keeps a user's build from leaving half-written outputs behind. */
#ifndef CH_FSUTIL_H
#define CH_FSUTIL_H

#include <stddef.h>

#include "ch/error.h"

/* Reads a whole file; *out is NUL-terminated and owned by the caller (free()). */
int ch_read_file(const char *path, char **out, size_t *len, ch_error *err);

/* ch_read_file of at most max bytes: a larger file returns 1 (err set) before its bytes are
 * read (a regular file's size is checked first; anything else stops at max); -1: another
 * failure. */
int ch_read_file_max(const char *path, size_t max, char **out, size_t *len, ch_error *err);

/* Opens path (relative to dir, or AT_FDCWD) for reading without waiting, and only when it is
 * a regular file: a FIFO or device someone put where the program keeps its own files would
 * hang or feed it forever. flags: more open flags (O_NOFOLLOW). -1 with errno (EINVAL: not a
 * regular file). */
int ch_open_regular_at(int dir, const char *path, int flags);

/* ch_read_file_max of a file the program wrote itself (a cache entry, its statistics): a
 * link, FIFO or device there is refused (-1, err says so) instead of followed or waited on. */
int ch_read_regular_file_max(const char *path, size_t max, char **out, size_t *len, ch_error *err);

/* Writes bytes to path through a temp file + rename. fsync_data: fsync before the rename. */
int ch_write_file_atomic(const char *path, const void *data, size_t len, int fsync_data,
                         ch_error *err);

/* mkdir -p with mode 0777 & ~umask. */
int ch_mkdir_p(const char *path, ch_error *err);

/* rm -rf; missing paths are not an error. */
int ch_remove_tree(const char *path, ch_error *err);

/* Where temporary files go, chosen as gcc does: the first of $TMPDIR, $TMP, $TEMP, P_tmpdir,
 * /var/tmp, /usr/tmp, /tmp that is a writable directory, else "." (points into the environment
 * or a literal). */
const char *ch_temp_dir(void);

/* Creates a fresh private directory under ch_temp_dir() named "ch-cc-PREFIX-PID-XXXXXX", with the
 * marker that lets a later run's sweep remove it (ch_cleanup_mark_made);
 * returns a malloc'd path or NULL with err set. */
char *ch_make_temp_dir(const char *prefix, ch_error *err);

int ch_file_exists(const char *path);
/* Nonzero when the regular file's bytes contain needle (mmap + memmem); 0 when they do not or
 * the file cannot be read. */
int ch_file_contains(const char *path, const void *needle, size_t len);
int ch_is_dir(const char *path);

/* Joins two path parts with one '/'; caller frees. */
char *ch_path_join(const char *a, const char *b);
/* The last path component (points into path). */
const char *ch_path_base(const char *path);
/* path with the extension of its last component replaced by suffix (added when it has none;
 * malloc'd). */
char *ch_path_with_suffix(const char *path, const char *suffix);
/* Everything before the last '/', or "." ; caller frees. */
char *ch_path_dir(const char *path);
/* The extension after the last '.' of the base name, without the dot, or "" (points into path). */
const char *ch_path_ext(const char *path);

/* Searches PATH for an executable named name (a name containing '/' is taken as is).
 * skip_self: skip candidates that are this very program (same inode as /proc/self/exe).
 * Returns a malloc'd absolute-or-given path, or NULL. */
char *ch_find_executable(const char *name, int skip_self);

/* Nonzero when path is this very program (same device and inode as /proc/self/exe). */
int ch_is_self(const char *path);

#endif
