/* SPDX-License-Identifier: MIT */
/* The one way a file is opened to be measured: whatever a name is swapped
 * for, nothing but the regular file (or block device) expected is opened. */
#include <config.h>

#include "kernel/safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "kernel/caps.h"

/* Those linux/magic.h lacks */
#define CONFIGFS_MAGIC_ 0x62656570u
#define FUSECTL_MAGIC_ 0x65735543u
#define MQUEUE_MAGIC_ 0x19800202u
#define RPC_PIPEFS_MAGIC_ 0x67596969u
#define NFSD_MAGIC_ 0x6e667364u

/* The file systems whose regular files are the kernel's interfaces, not
 * data: opening one runs the kernel's code for it (tracefs's trace_pipe
 * becomes a reader of the trace, its trace pauses tracing with
 * pause-on-trace), and none holds page cache worth measuring. */
static bool pseudo_fs(uint32_t type)
{
	switch (type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CONFIGFS_MAGIC_:
	case BPF_FS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case RDTGROUP_SUPER_MAGIC:
	case PSTOREFS_MAGIC:
	case EFIVARFS_MAGIC:
	case SELINUX_MAGIC:
	case SMACK_MAGIC:
	case BINFMTFS_MAGIC:
	case NSFS_MAGIC:
	case FUSECTL_MAGIC_:
	case MQUEUE_MAGIC_:
	case RPC_PIPEFS_MAGIC_:
	case NFSD_MAGIC_:
		return true;
	default:
		return false;
	}
}

/* n's decimal name, written out by hand into buf (16 bytes): this is
 * once per file. */
static const char *fd_name(char buf[static 16], int n)
{
	char *p = &buf[15];
	*p = '\0';
	for (unsigned u = (unsigned)n;; u /= 10) {
		*--p = (char)('0' + u % 10);
		if (u < 10)
			break;
	}
	return p;
}

/* Do a and b hold the same inode, of the same type? */
static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       (a->st_mode & S_IFMT) == (b->st_mode & S_IFMT);
}

/* /proc/thread-self/fd, checked to be this thread's own descriptors in
 * procfs, whatever /proc is: a directory of procfs (whose entries no
 * user makes) where a pipe made now is found under its number (no other
 * task holds it); -1 with *err set. */
static int open_fd_dir(int *err)
{
	int dir = open("/proc/thread-self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		/* no /proc: no other way to open this very inode */
		*err = errno == ENOENT ? FAIL_NOPROC : errno;
		return -1;
	}
	struct statfs fs;
	int p[2];
	if (fstatfs(dir, &fs) != 0 || pipe2(p, O_CLOEXEC) != 0) {
		*err = errno;
		close(dir);
		return -1;
	}
	char name[16];
	struct stat mine, there;
	bool ours = fs.f_type == PROC_SUPER_MAGIC && fstat(p[0], &mine) == 0 &&
		    fstatat(dir, fd_name(name, p[0]), &there, 0) == 0 && same_inode(&mine, &there);
	close(p[0]);
	close(p[1]);
	if (!ours) {
		*err = FAIL_BADPROC;
		close(dir);
		return -1;
	}
	return dir;
}

/* The inode that pfd (an O_PATH descriptor, st its fstat) holds, opened
 * for reading, and checked to be it; -1 with *err set. */
static int reopen(struct opener *o, int pfd, const struct stat *st, int *err)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	char name[16];

	if (o->fd_dir < 0 && (o->fd_dir = open_fd_dir(err)) < 0)
		return -1;
	int fd = openat(o->fd_dir, fd_name(name, pfd), flags);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	struct stat now;
	if (fstat(fd, &now) != 0 || !same_inode(st, &now)) {
		*err = FAIL_BADPROC;
		close(fd);
		return -1;
	}
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

/* 0 when pfd (st its fstat) may be opened; else why not.  With the
 * capabilities of a setcap install, a regular file of a pseudo file
 * system is never opened (one fstatfs per file, then). */
static int may_open(int pfd, const struct stat *st)
{
	struct statfs fs;

	if (!S_ISREG(st->st_mode) || !caps_borrowed())
		return 0;
	if (fstatfs(pfd, &fs) != 0)
		return errno;
	return pseudo_fs((uint32_t)fs.f_type) ? FAIL_PSEUDO : 0;
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
	if (!wanted(&ref->id, st))
		*err = FAIL_CHANGED;
	else if ((*err = may_open(pfd, st)) == 0)
		fd = reopen(o, pfd, st, err);
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
