/* SPDX-License-Identifier: MIT */
/* The one way a file is opened to be measured: whatever a name is swapped
 * for, nothing but the regular file (or block device) expected is opened. */
#ifndef PAGESTAT_SAFEOPEN_H
#define PAGESTAT_SAFEOPEN_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/fail.h"

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

/* Which file a name leads to.  Known (the walk stat()ed the name): the
 * open must find that very file.  Not known (the walk made no stat: a
 * regular file by its directory entry's type): filled in from what the
 * name led to, so that the walk can tell a file it met before by another
 * name; that must then be a regular file.  Still not known after a
 * failure: the name could not be looked up. */
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

/* A file to open: a name, and what is known of it. */
struct file_ref {
	int dirfd;        /* name is relative to it, or AT_FDCWD */
	const char *name;
	bool follow;      /* the name's last component may be a symbolic link */
	struct file_ident id;
};

/* What a thread keeps to open files: its /proc/thread-self/fd, so that a
 * reopen is the lookup of one name, not of four.  One per thread, as a
 * worker of -j has a descriptor table of its own (src/walk/jobs.c). */
struct opener {
	int fd_dir; /* -1 until the first open */
};

#define OPENER_INIT ((struct opener){ .fd_dir = -1 })

/* Opens ref's name for reading, O_NONBLOCK and O_NOCTTY: only a regular
 * file, or the block device ref->id names, and only the file ref->id
 * names when it is known.  Returns the descriptor, *st its fstat; or -1
 * with *err an errno value, or FAIL_CHANGED when the name led to anything
 * but what was wanted (nothing was then opened for reading).  *st and an
 * unknown ref->id are filled in whenever the name led somewhere; when it
 * could not be looked up at all, ref->id stays as it was.  userfile.c's
 * user_safe_open is the same with the user's own rights. */
int safe_open(struct opener *o, struct file_ref *ref, struct stat *st, int *err);

/* Closes what the opener kept. */
void opener_close(struct opener *o);

#endif
