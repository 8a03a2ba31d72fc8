/* A user's output file (`-o foo.o`) written as gcc's tools write it, without ever losing a file.
 *
 * The bytes go first to a temp file unique to this process, then replace the destination in one
 * rename, so a killed build leaves the old output or the new one, never half of one. What the
 * destination is decides how: a symlink is followed and its target replaced (the link stays a
 * link); a device or a FIFO (`-o /dev/null`) is opened and written into, never replaced by a
 * regular file; a regular file or a new name is replaced atomically. */
#ifndef CH_OUTPUT_H
#define CH_OUTPUT_H

#include "ch/error.h"

typedef struct ch_output {
    char *path;  /* where the bytes land: the -o path with every symlink followed; owned */
    char *tmp;   /* the temp file to write first (an empty file reserved for us); owned */
    int special; /* path is an existing non-regular file: written into at commit */
} ch_output;

/* Resolves out and reserves a unique temp file: next to the final path (so the rename stays on
 * one file system), or under $TMPDIR for a device or FIFO. -1 with err when out cannot be
 * written (a directory, a missing directory, a symlink loop). */
int ch_output_begin(ch_output *o, const char *out, ch_error *err);
/* Puts the temp file's bytes at the destination and frees o. -1 with err (the destination
 * unchanged for a regular file); the temp file is removed either way. */
int ch_output_commit(ch_output *o, ch_error *err);
/* Removes the temp file and frees o (a failed build). */
void ch_output_abort(ch_output *o);

/* Nonzero when both paths exist and name the same file (device and inode), as gcc's "input
 * file is the same as output file" check. */
int ch_same_file(const char *a, const char *b);

#endif
