/* SPDX-License-Identifier: MIT */
/* The one way a file is opened to be measured: whatever a name is swapped
 * for, nothing but the regular file (or block device) expected is opened. */
#ifndef PAGESTAT_SAFEOPEN_H
#define PAGESTAT_SAFEOPEN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fail.h"

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

/* Which file a path names.  Given known, the walk's stat of it: the
 * open must find that file.  Given not known (the walk made no stat: a
 * regular file by its directory entry's type), probe_path_at fills it in
 * from what the name led to, so that the walk can tell a file it met
 * before by another name; that must then be a regular file (else
 * FAIL_CHANGED), or from a stat of the name when not even that could be
 * had (out of descriptors).  Still not known after a failure: the name
 * could not be stat()ed, and the error is the stat's. */
struct file_ident {
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	bool known;
	bool blockdev; /* known: it is a block device (named as FILE) */
};

static inline struct file_ident file_ident_of(const struct stat *st)
{
	return (struct file_ident){ st->st_dev, st->st_ino, st->st_nlink, true,
				     S_ISBLK(st->st_mode) };
}

struct safe_want {
	/* the name's last component may be a symbolic link, followed */
	bool follow;
	/* with id->known, the file must be this one (device and inode): a
	 * regular file, or a block device where id->blockdev says so;
	 * without, it must be a regular file, and *id is filled in from what
	 * the name led to */
	struct file_ident *id;
};

/* Opens name (relative to dirfd, or AT_FDCWD) for reading, O_NONBLOCK and
 * O_NOCTTY.  Returns the descriptor, *st its fstat; or -1 with *err an
 * errno value, or FAIL_CHANGED when the name led to anything but what
 * was wanted (nothing was then opened for reading).  *st is filled in
 * whenever the name led somewhere; when it could not be looked up at
 * all, want->id stays as it was (an unknown one stays unknown).  userfile.c's
 * user_safe_open is the same with the user's own rights. */
int safe_open(int dirfd, const char *name, const struct safe_want *want, struct stat *st,
	      int *err);

/* A thread that opened files closes what it kept for the next one. */
void safe_thread_end(void);

#endif
