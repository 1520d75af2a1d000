/* SPDX-License-Identifier: MIT */
/* overlayfs: the backing file of an overlay file, found in the mount's layers. */
#ifndef PAGESTAT_OVERLAY_H
#define PAGESTAT_OVERLAY_H

#include <limits.h>
#include <sys/stat.h>

/* What is kept of the overlay mounts for a run: the mount table and the
 * directory last looked up, shared by the threads (locked). */
struct overlays;

struct overlays *overlays_new(void);
void overlays_free(struct overlays *o);

/* The file in the upper or a lower layer that holds the data of the open
 * overlay file fd (st: its fstat, just taken).  /proc/self/mountinfo is
 * read when first needed, and once more for a mount not in it.  Returns
 * 0 with its path in path and *found (its lstat, which matched what st
 * says of the file); or -1 with *why saying why it cannot be found.  Safe
 * to call from several threads. */
int overlay_backing(struct overlays *o, int fd, const struct stat *st, char path[PATH_MAX],
		    struct stat *found, const char **why);

#endif
