/* SPDX-License-Identifier: MIT */
/* The one way a file is opened to be measured: whatever a name is swapped
 * for, nothing but the regular file (or block device) expected is opened. */
#include <config.h>

#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* The inode that pfd (an O_PATH descriptor) holds, opened for reading;
 * -1 with *err set. */
static int reopen(struct opener *o, int pfd, int *err)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	char name[16];

	if (o->fd_dir < 0)
		o->fd_dir = open("/proc/thread-self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->fd_dir < 0) {
		/* no /proc: no other way to open this very inode */
		*err = errno == ENOENT ? FAIL_NOPROC : errno;
		return -1;
	}
	/* its decimal name, written out by hand: this is once per file */
	char *p = name + sizeof name;
	*--p = '\0';
	for (unsigned n = (unsigned)pfd;; n /= 10) {
		*--p = (char)('0' + n % 10);
		if (n < 10)
			break;
	}
	int fd = openat(o->fd_dir, p, flags);
	if (fd < 0)
		*err = errno;
	return fd;
}

/* Is st what was wanted? */
static bool wanted(const struct file_ident *id, const struct stat *st)
{
	if (!id->known)
		return S_ISREG(st->st_mode);
	return st->st_dev == id->dev && st->st_ino == id->ino &&
	       (S_ISREG(st->st_mode) || (id->blockdev && S_ISBLK(st->st_mode)));
}

int safe_open(struct opener *o, struct file_ref *ref, struct stat *st, int *err)
{
	int pfd = openat(ref->dirfd, ref->name, O_PATH | O_CLOEXEC | (ref->follow ? 0 : O_NOFOLLOW));
	if (pfd < 0) {
		*err = errno;
		return -1;
	}
	int fd = -1;
	if (fstat(pfd, st) != 0) {
		*err = errno;
		close(pfd);
		return -1;
	}
	if (wanted(&ref->id, st))
		fd = reopen(o, pfd, err);
	else
		*err = FAIL_CHANGED;
	/* what the name led to, for the walk to tell a file met before */
	if (!ref->id.known)
		ref->id = file_ident_of(st);
	close(pfd);
	return fd;
}

void opener_close(struct opener *o)
{
	if (o->fd_dir >= 0)
		close(o->fd_dir);
	o->fd_dir = -1;
}
