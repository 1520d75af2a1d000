/* SPDX-License-Identifier: MIT */
/* Files a user names (lists, --output-file, the files of an action):
 * opened, written and renamed with the user's own rights. */
#ifndef PAGESTAT_USERFILE_H
#define PAGESTAT_USERFILE_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * pagestat's capabilities serve the inspection only: opening a file to
 * measure it, and cachestat or mincore on it.  Everything else done to a
 * path a user gave goes through these, which run the call with the
 * effective capabilities cleared when they came with the program file
 * (setcap): the kernel then checks the user's own rights.  Run by root,
 * or by a user who holds capabilities of their own, they change nothing.
 * Each is the system call of the same name; on failure -1 (NULL) with
 * errno set.  No other file of src/ creates, writes, renames or removes
 * a file (tests/userfile.bats checks it).
 */
int user_openat(int dirfd, const char *path, int flags, mode_t mode);
/* safe_open() with the user's rights: a file to act on (--evict, the
 * warms) is opened for reading only if it is the one wanted and the user
 * could open it without pagestat. */
struct opener;
struct file_ref;
int user_safe_open(struct opener *o, struct file_ref *ref, struct stat *st, int *err);
int user_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int user_fchmod(int fd, mode_t mode);
int user_renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int user_unlinkat(int dirfd, const char *path, int flags);

/* --pidfile: the file written, in the directory it was written in (kept
 * open), so that the removal at exit removes that file and nothing else
 * (a directory of the path swapped for a symbolic link meanwhile). */
struct user_pidfile {
	int dirfd;  /* -1: none written */
	char *name; /* its last component, in dirfd */
	dev_t dev;  /* the file written */
	ino_t ino;
};

/* What user_pidfile_write returns when the name is there and is not a
 * regular file (a FIFO, a socket, a device, a directory): refused, and
 * nothing waited for (a FIFO is never opened to block). */
#define USER_PIDFILE_NOT_REGULAR (-2)

/* --pidfile: path created or replaced in its directory (opened with the
 * user's rights), never through a symbolic link (O_NOFOLLOW), never
 * blocking (O_NONBLOCK), mode 0644, holding "PID\n".  0; -1 with errno;
 * or USER_PIDFILE_NOT_REGULAR. */
int user_pidfile_write(struct user_pidfile *pf, const char *path, pid_t pid);

/* At exit: the name removed, through the directory it was written in,
 * if it still is the file written (device and inode, not followed);
 * the directory closed.  Nothing when none was written. */
void user_pidfile_remove(struct user_pidfile *pf);

/* A pressure stall trigger (PSI): the file path (/proc/pressure/memory,
 * a cgroup's memory.pressure) opened and trigger ("some 100000 2000000")
 * written to it; the descriptor polls POLLPRI when it fires. */
int user_psi_trigger(const char *path, const char *trigger);

/* /dev/null for reading and writing: a daemon's standard descriptors. */
int user_open_devnull(void);

/* A list to read (--files0-from, --exclude-from): "-" is standard input. */
FILE *user_fopen_read(const char *path);

/* call(arg) with the user's rights, for a library that opens files of
 * its own accord (libmount, src/kernel/mountinfo.c): its return, or -1 with
 * errno when the rights could not be changed. */
int user_call(int (*call)(void *arg), void *arg);

/* A new file, opened O_RDWR, created O_EXCL with mode 0600 in dirfd as
 * PREFIX followed by six random characters; the name made is written
 * to name (name_size bytes, at least strlen(prefix) + 7). */
int user_mkstempat(int dirfd, const char *prefix, char *name, size_t name_size);

/* An unlinked file for scratch space in dir (O_TMPFILE, or a name made
 * and removed at once where the file system lacks it). */
int user_tmpfile(const char *dir);

/* Scratch space: user_tmpfile in $TMPDIR, else /tmp, else /var/tmp (a
 * TMPDIR that is unset, gone or full for the user does not stop the
 * run); *dir: where it is, or was last tried.  -1 with the first errno. */
int user_scratch(const char **dir);

/* For a fatal signal's handler, which does not return: give up the
 * capabilities for good, then remove name in dirfd.  Async-signal-safe. */
void user_unlink_dying(int dirfd, const char *name);

/* The same for a directory (--trace's instance), by its path. */
void user_rmdir_dying(const char *path);

#endif
