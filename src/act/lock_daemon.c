/* SPDX-License-Identifier: MIT */
/* --lock --daemon: the fork (the parent waits until the child holds, or
 * has ended, and exits with its status), --pidfile written, the standard
 * descriptors let go; and systemd told (sd_notify, libsystemd opened with
 * dlopen). */
#include <config.h>

#include "act/lock.h"
#include "act/lock_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "lib/msg.h"
#include "lib/status.h"
#include "kernel/userfile.h"

int lock_daemon_start(struct lock_set *set)
{
	int pipefd[2];

	(void)fflush(stdout);
	(void)fflush(stderr);
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		msg("--daemon: cannot make a pipe: %s\n", strerror(errno));
		return STATUS_FATAL;
	}
	pid_t child = fork();
	if (child < 0) {
		msg("--daemon: cannot fork: %s\n", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return STATUS_FATAL;
	}
	if (child == 0) {
		close(pipefd[0]);
		(void)setsid();
		set->ready = pipefd[1];
		return -1;
	}
	close(pipefd[1]);
	unsigned char status;
	ssize_t n;
	while ((n = read(pipefd[0], &status, 1)) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (n == 1)
		return status; /* the daemon holds */
	/* it ended before it held: its status */
	int ws;
	while (waitpid(child, &ws, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : STATUS_FATAL;
}

bool lock_daemon_ready(struct lock_set *set, struct user_pidfile *written, int status)
{
	const char *pidfile = set->cfg.pidfile;
	bool ok = true;
	int err;

	if (pidfile && (err = user_pidfile_write(written, pidfile, getpid())) != 0) {
		msg("cannot write --pidfile ");
		msg_name_str(pidfile);
		if (err == USER_PIDFILE_NOT_REGULAR)
			msg_more(": it is not a regular file (a FIFO, a socket, a device or a "
				 "directory): refused\n");
		else
			msg_more(": %s\n", strerror(errno));
		status = STATUS_FATAL;
		ok = false;
	}
	unsigned char byte = (unsigned char)status;
	(void)fflush(stdout);
	(void)fflush(stderr);
	if (write(set->ready, &byte, 1) != 1)
		ok = ok && errno == EPIPE;
	close(set->ready);
	set->ready = -1;
	if (!ok)
		return false;
	int null = user_open_devnull();
	if (null >= 0) {
		for (int fd = 0; fd <= 2; fd++)
			(void)dup2(null, fd);
		if (null > 2)
			close(null);
	}
	return true;
}

#ifdef HAVE_LIBSYSTEMD
#define LIBSYSTEMD_SONAME "libsystemd.so.0"

void lock_notify(const char *state)
{
	static int (*notify)(int unset_environment, const char *state);
	static bool loaded;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (!loaded) {
		loaded = true;
		void *handle = dlopen(LIBSYSTEMD_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (handle)
			notify = (__typeof__(&sd_notify))dlsym(handle, "sd_notify");
		if (!notify) {
			const char *why = dlerror();
			msg("cannot tell systemd (NOTIFY_SOCKET): %s\n", why ? why : LIBSYSTEMD_SONAME);
		}
	}
	if (notify && notify(0, state) < 0)
		msg("cannot tell systemd (NOTIFY_SOCKET) %s\n", state);
}
#else
void lock_notify(const char *state)
{
	(void)state;
}
#endif
