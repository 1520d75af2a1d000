/* SPDX-License-Identifier: MIT */
/* --output-file: a temporary file beside FILE, renamed over it when complete. */
#include <config.h>

#include "output/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/msg.h"
#include "lib/signals.h"
#include "lib/status.h"
#include "output/sink.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* Everything here is done with the user's own rights (userfile.h): a
 * setcap pagestat replaces only what its user could replace without it.
 *
 * One output file at a time: its name, its directory, and the temporary
 * file's name while it exists (a fatal signal and atexit remove it). */
static struct {
	const char *target;
	const char *target_name; /* the last component of target */
	int dir_fd;
	bool dir_syncable; /* dir_fd is not O_PATH */
	char temp_name[NAME_MAX + 1]; /* .NAME.XXXXXX */
	volatile sig_atomic_t temp_exists;
} dest = { .dir_fd = -1 };

static void remove_temp(void)
{
	if (dest.temp_exists) {
		dest.temp_exists = 0;
		(void)user_unlinkat(dest.dir_fd, dest.temp_name, 0);
	}
}

static void remove_temp_dying(void)
{
	if (dest.temp_exists)
		user_unlink_dying(dest.dir_fd, dest.temp_name);
}

/* FILE's directory: "." when the name has no slash. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
	char *dir = xrealloc(NULL, len + 1);
	memcpy(dir, slash ? path : ".", len);
	dir[len] = '\0';
	return dir;
}

static const char *why_unreachable(int err)
{
	return err == EACCES ? "a file in a directory you may enter (Permission denied)"
	       : err == ENAMETOOLONG ? "a shorter name (File name too long)"
	       : err == ELOOP ? "a name without a loop of symbolic links"
			      : "a file in an existing directory";
}

bool outfile_check(const char *path, const char **expected)
{
	struct stat st;

	*expected = NULL;
	if (!*path) {
		*expected = "a file name";
	} else if (path[strlen(path) - 1] == '/') {
		*expected = "a file name, not a directory";
	} else if (user_fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			*expected = "a file name, not a directory";
		else if (S_ISLNK(st.st_mode))
			*expected = "a regular file or a new name, not a symbolic link: FILE is "
				    "replaced, never written through";
		else if (!S_ISREG(st.st_mode))
			*expected = "a regular file or a new name: FILE is replaced, not "
				    "written into";
	} else if (errno != ENOENT) {
		*expected = why_unreachable(errno);
	} else {
		char *dir = dir_of(path);
		if (user_fstatat(AT_FDCWD, dir, &st, 0) != 0)
			*expected = why_unreachable(errno);
		else if (!S_ISDIR(st.st_mode))
			*expected = "a file in an existing directory";
		free(dir);
	}
	return !*expected;
}

/* Why the directory dirfd holds no new file, when creating one there
 * said ENOENT (it was opened just before: it exists, or did). */
static const char *why_no_new_file(int dirfd)
{
	struct statfs fs;
	struct stat st;

	if (fstatfs(dirfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)
		return "/proc is not a file system where files can be created";
	if (fstat(dirfd, &st) == 0 && st.st_nlink == 0)
		return "it was removed";
	return strerror(ENOENT);
}

/* dirfd: FILE's directory, where the creation failed, or -1 when it
 * could not be opened. */
static void cannot_create(const char *path, int dirfd, int err)
{
	char *dir = dir_of(path);
	msg("cannot create a temporary file for --output-file ");
	msg_name_str(path);
	msg_more(" in ");
	msg_name_str(dir);
	if (dirfd >= 0 && err == ENOENT)
		msg_more(": not a directory that can hold a new file (%s)\n",
			 why_no_new_file(dirfd));
	else
		msg_more(": %s\n", strerror(err));
	free(dir);
}

/* The directory, to create in and rename in; read access too if it has
 * it, for the fsync that puts the rename on disk. */
static int open_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd = user_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	dest.dir_syncable = fd >= 0;
	if (fd < 0 && errno == EACCES)
		fd = user_openat(AT_FDCWD, dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

/* Is name a temporary file of FILE's, prefix and six characters? */
static bool temp_of_target(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(name, prefix, n) == 0 && strlen(name + n) == 6 &&
	       strcmp(name, dest.temp_name) != 0;
}

/* The temporary files of FILE that a run killed (SIGKILL, a power cut)
 * left behind: each writer holds an flock on its own until it ends, so
 * one that can be locked has no writer left and is removed.  With the
 * user's rights, as everything here; only regular files, never through
 * a link; nothing is said (it is housekeeping). */
static void remove_stale_temps(const char *prefix)
{
	int fd = dest.dir_syncable ? user_openat(dest.dir_fd, ".", O_RDONLY | O_DIRECTORY, 0) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *d;
	// cppcheck-suppress readdirCalled
	while ((d = readdir(dir))) {
		if (!temp_of_target(d->d_name, prefix))
			continue;
		int tfd = user_openat(dest.dir_fd, d->d_name,
				      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
		struct stat st, now;
		if (tfd < 0)
			continue;
		/* still the file locked when it is removed: the same inode */
		if (fstat(tfd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    flock(tfd, LOCK_EX | LOCK_NB) == 0 &&
		    user_fstatat(dest.dir_fd, d->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == st.st_dev && now.st_ino == st.st_ino)
			(void)user_unlinkat(dest.dir_fd, d->d_name, 0);
		close(tfd);
	}
	closedir(dir);
}

FILE *outfile_open(const char *path)
{
	const char *slash = strrchr(path, '/');

	dest.target = path;
	dest.target_name = slash ? slash + 1 : path;
	dest.dir_fd = open_dir(path);
	if (dest.dir_fd < 0) {
		cannot_create(path, -1, errno);
		return NULL;
	}
	/* ".NAME." and six characters, within NAME_MAX: a long NAME is cut */
	char prefix[NAME_MAX + 1];
	snprintf(prefix, sizeof prefix, ".%.*s.", NAME_MAX - 8, dest.target_name);

	/* no signal between the file's creation and temp_exists */
	sigset_t block, old;
	signals_ending(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int fd = user_mkstempat(dest.dir_fd, prefix, dest.temp_name, sizeof dest.temp_name);
	int err = errno;
	dest.temp_exists = fd >= 0;
	signals_on_death(remove_temp_dying);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	static bool at_exit;
	if (!at_exit) /* exit() on running out of memory */
		at_exit = atexit(remove_temp) == 0;

	/* held while this run writes it: a later run removes it only once
	 * this one is gone (remove_stale_temps) */
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
		remove_stale_temps(prefix);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0) {
			err = errno;
			close(fd);
			remove_temp();
		}
		cannot_create(path, dest.dir_fd, err);
		close(dest.dir_fd);
		dest.dir_fd = -1;
	}
	return out;
}

/* Puts the whole temporary file in FILE's place: 0 or an errno value. */
static int replace_target(int fd)
{
	mode_t mask = umask(0);
	struct stat st;

	umask(mask);
	if (fsync(fd) != 0 || user_fchmod(fd, 0644 & ~mask) != 0)
		return errno;
	/* a link put there since the check is not replaced either */
	if (user_fstatat(dest.dir_fd, dest.target_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return ELOOP;
	if (user_renameat(dest.dir_fd, dest.temp_name, dest.dir_fd, dest.target_name) != 0)
		return -errno; /* not a write error: told apart */
	dest.temp_exists = 0;
	if (dest.dir_syncable)
		fsync(dest.dir_fd); /* the rename on disk too; a reader sees no difference */
	return 0;
}

int outfile_close(FILE *out, int status)
{
	/* 1: some files failed, 4: --expect-cached not met; the output is whole */
	bool keep = status_output_whole(status);
	int err = 0;

	errno = 0;
	if (fflush(out) != 0 || ferror(out))
		err = errno ? errno : sink_write_errno() ? sink_write_errno() : EIO; /* ENOSPC, EFBIG... */
	else if (keep)
		err = replace_target(fileno(out));
	if (fclose(out) != 0 && !err)
		err = errno;
	remove_temp();
	signals_on_death(NULL);
	close(dest.dir_fd);
	dest.dir_fd = -1;
	if (!err)
		return status;
	bool replacing = err < 0 || err == ELOOP;
	if (replacing) {
		msg("cannot replace --output-file ");
		msg_name_str(dest.target);
	} else {
		msg("write error: ");
		esc_put_terminal(stderr, dest.target, strlen(dest.target),
				 esc_locale_utf8_for(dest.target, strlen(dest.target)));
	}
	if (err == ELOOP)
		msg_more(": it is now a symbolic link, which is never replaced\n");
	else
		msg_more(": %s\n", strerror(err < 0 ? -err : err));
	return STATUS_FATAL;
}
