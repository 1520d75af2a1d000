/* SPDX-License-Identifier: MIT */
/* The one way a file is opened to be measured: whatever a name is swapped
 * for, nothing but the regular file (or block device) expected is opened. */
#ifndef PAGESTAT_SAFEOPEN_H
#define PAGESTAT_SAFEOPEN_H

#include <stdbool.h>
#include <sys/stat.h>

#include "probe.h"

/*
 * A check of what a name is, then an open of the name, are two steps that
 * a user can come between (renameat2(RENAME_EXCHANGE) swaps a link
 * millions of times a second).  With the capabilities of a setcap install,
 * an open that lands on another user's FIFO releases its writer, and one
 * that lands on a device can rewind a tape or arm a watchdog.  So the name
 * is opened with O_PATH, which calls no driver and no FIFO's open; that
 * descriptor is fstat()ed and checked; only then is the very inode it
 * holds opened for reading, through /proc/thread-self/fd/N, which cannot
 * lead anywhere else.
 */

struct safe_want {
	/* the name's last component may be a symbolic link, followed */
	bool follow;
	/* with id->known, the file must be this one (device and inode): a
	 * regular file, or a block device where id->blockdev says so;
	 * without, it must be a regular file, and *id is filled in from what
	 * the name led to */
	struct probe_ident *id;
};

/* Opens name (relative to dirfd, or AT_FDCWD) for reading, O_NONBLOCK and
 * O_NOCTTY.  Returns the descriptor, *st its fstat; or -1 with *err an
 * errno value, or PROBE_ECHANGED when the name led to anything but what
 * was wanted (nothing was then opened for reading).  *st is filled in
 * whenever the name led somewhere; when it could not be looked up at
 * all, want->id stays as it was (an unknown one stays unknown).  userfile.c's
 * user_safe_open is the same with the user's own rights. */
int safe_open(int dirfd, const char *name, const struct safe_want *want, struct stat *st,
	      int *err);

/* A thread that opened files closes what it kept for the next one. */
void safe_thread_end(void);

#endif
