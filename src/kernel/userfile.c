/* SPDX-License-Identifier: MIT */
/* Files a user names (lists, --output-file, the files of an action):
 * opened, written and renamed with the user's own rights. */
#include <config.h>

#include "kernel/userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "kernel/caps.h"
#include "kernel/safeopen.h"

/* Each call between caps_user_begin and caps_user_end, errno kept. */
#define AS_USER(type, failed, call)                  \
	do {                                         \
		if (!caps_user_begin())              \
			return failed;               \
		type result_ = (call);               \
		int errno_ = errno;                  \
		caps_user_end();                     \
		errno = errno_;                      \
		return result_;                      \
	} while (0)

int user_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	AS_USER(int, -1, openat(dirfd, path, flags | O_CLOEXEC, mode));
}

int user_safe_open(struct opener *o, struct file_ref *ref, struct stat *st, int *err)
{
	if (!caps_user_begin()) {
		*err = errno;
		return -1;
	}
	int fd = safe_open(o, ref, st, err);
	caps_user_end();
	return fd;
}

/* The file dirfd/name opened for writing and checked: a regular file. */
static int open_pidfile(int dirfd, const char *name)
{
	struct stat st;

	/* refused before any open: a FIFO's would block, a device's act */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			return -1;
		}
		return USER_PIDFILE_NOT_REGULAR;
	}
	/* swapped since: O_NONBLOCK, so a FIFO does not block (ENXIO with
	 * no reader) and the fstat refuses it */
	int fd = openat(dirfd, name,
			O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == ENXIO ? USER_PIDFILE_NOT_REGULAR : -1;
	int ret = fd;
	if (fstat(fd, &st) != 0)
		ret = -1;
	else if (!S_ISREG(st.st_mode))
		ret = USER_PIDFILE_NOT_REGULAR;
	if (ret < 0) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return ret;
}

static int write_pidfile(struct user_pidfile *pf, const char *path, pid_t pid)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");

	if (!dir)
		return -1;
	if (!*name) {
		free(dir);
		errno = EISDIR;
		return -1;
	}
	int dirfd = openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dirfd < 0)
		return -1;
	int fd = open_pidfile(dirfd, name);
	if (fd < 0) {
		int err = errno;
		close(dirfd);
		errno = err;
		return fd;
	}
	char text[32];
	int len = snprintf(text, sizeof text, "%ld\n", (long)pid);
	struct stat st;
	errno = 0;
	bool written = ftruncate(fd, 0) == 0 && write(fd, text, (size_t)len) == len &&
		       fstat(fd, &st) == 0;
	int err = errno ? errno : EIO;
	/* closed once, whatever happened: a failed close is a failed write */
	if (close(fd) != 0 && written) {
		written = false;
		err = errno;
	}
	if (!written) {
		close(dirfd);
		errno = err;
		return -1;
	}
	pf->dirfd = dirfd;
	pf->name = strdup(name);
	pf->dev = st.st_dev;
	pf->ino = st.st_ino;
	return 0;
}

int user_pidfile_write(struct user_pidfile *pf, const char *path, pid_t pid)
{
	*pf = (struct user_pidfile){ .dirfd = -1 };
	AS_USER(int, -1, write_pidfile(pf, path, pid));
}

static int remove_pidfile(struct user_pidfile *pf)
{
	struct stat st;

	/* the name is the file written, in the directory it was written in */
	if (pf->name && fstatat(pf->dirfd, pf->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_dev == pf->dev && st.st_ino == pf->ino)
		return unlinkat(pf->dirfd, pf->name, 0);
	return 0;
}

void user_pidfile_remove(struct user_pidfile *pf)
{
	if (pf->dirfd < 0)
		return;
	if (caps_user_begin()) {
		(void)remove_pidfile(pf);
		caps_user_end();
	}
	close(pf->dirfd);
	free(pf->name);
	*pf = (struct user_pidfile){ .dirfd = -1 };
}

int user_psi_trigger(const char *path, const char *trigger)
{
	int fd = user_openat(AT_FDCWD, path, O_RDWR | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0)
		return -1;
	size_t len = strlen(trigger) + 1; /* the kernel takes the NUL too */
	if (write(fd, trigger, len) != (ssize_t)len) {
		int err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int user_open_devnull(void)
{
	return user_openat(AT_FDCWD, "/dev/null", O_RDWR | O_NOCTTY, 0);
}

int user_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	AS_USER(int, -1, fstatat(dirfd, path, st, flags));
}

int user_fchmod(int fd, mode_t mode)
{
	AS_USER(int, -1, fchmod(fd, mode));
}

int user_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	AS_USER(int, -1, renameat(olddirfd, oldpath, newdirfd, newpath));
}

int user_unlinkat(int dirfd, const char *path, int flags)
{
	AS_USER(int, -1, unlinkat(dirfd, path, flags));
}

FILE *user_fopen_read(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdin;
	/* O_NONBLOCK would make a FIFO's reads fail: a list may be one */
	int fd = user_openat(AT_FDCWD, path, O_RDONLY | O_NOCTTY, 0);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

int user_call(int (*call)(void *arg), void *arg)
{
	AS_USER(int, -1, call(arg));
}

/* Six characters of a portable file name, hard to guess. */
static void random_suffix(char out[7])
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	uint64_t bits;

	if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != (ssize_t)sizeof bits) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		bits = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() << 32 ^
		       (uint64_t)now.tv_sec;
	}
	for (int i = 0; i < 6; i++, bits /= sizeof chars - 1)
		out[i] = chars[bits % (sizeof chars - 1)];
	out[6] = '\0';
}

int user_mkstempat(int dirfd, const char *prefix, char *name, size_t name_size)
{
	size_t len = strlen(prefix);

	if (len + 7 > name_size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, prefix, len + 1); /* the suffix goes over the NUL */
	for (int attempt = 0; attempt < 100; attempt++) {
		random_suffix(name + len);
		int fd = user_openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1; /* EEXIST */
}

int user_tmpfile(const char *dir)
{
	int fd = user_openat(AT_FDCWD, dir, O_TMPFILE | O_RDWR, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	/* a file system without O_TMPFILE: a name, removed at once */
	int dirfd = user_openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY, 0);
	if (dirfd < 0)
		return -1;
	char name[sizeof "pagestat." + 6];
	fd = user_mkstempat(dirfd, "pagestat.", name, sizeof name);
	if (fd >= 0)
		(void)user_unlinkat(dirfd, name, 0);
	int err = errno;
	close(dirfd);
	errno = err;
	return fd;
}

int user_scratch(const char **dir)
{
	const char *dirs[] = { getenv("TMPDIR"), "/tmp", "/var/tmp" };
	int fd = -1, err = 0;

	for (size_t i = 0; fd < 0 && i < sizeof dirs / sizeof dirs[0]; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		fd = user_tmpfile(dirs[i]);
		if (fd < 0 && !err)
			err = errno;
		*dir = dirs[i];
	}
	if (fd < 0)
		errno = err;
	return fd;
}

void user_unlink_dying(int dirfd, const char *name)
{
	caps_user_for_good();
	unlinkat(dirfd, name, 0);
}

void user_rmdir_dying(const char *path)
{
	caps_user_for_good();
	rmdir(path);
}
