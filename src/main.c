/* SPDX-License-Identifier: MIT */
/* pagestat: parse the command line, run the inspection, exit with its status. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel/caps.h"
#include "lib/msg.h"
#include "options.h"
#include "run.h"
#include "output/sink.h"
#include "lib/status.h"
#include "kernel/userfile.h"
#include "walk/walk.h"

static volatile sig_atomic_t reader_quit;

static void on_sigpipe(int sig)
{
	(void)sig;
	reader_quit = 1;
}

/* With stdin, stdout or stderr closed, the next open() would take its
 * number, and output could land in a file being inspected. */
static bool guard_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    user_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0) != fd) /* writes to it fail: EBADF */
			return false;
	return true;
}

/* Before the command line is read (a bad value is told as it is met, in
 * the locale, which may open files), the capabilities are down to what
 * any run may need; then the process is made ready. */
static bool start(void)
{
	const char *what;
	int err = caps_start(&what);
	if (err) {
		msg("%s: %s\n", what, strerror(err));
		return false;
	}
	if (!guard_std_fds()) {
		msg("cannot open /dev/null in place of a closed standard descriptor\n");
		return false;
	}
	signal(SIGPIPE, on_sigpipe);
	/* Into a pipe or a file, write in large blocks (stdio would use the
	 * 4 KiB st_blksize of a pipe); a terminal keeps its line buffering. */
	if (!isatty(STDOUT_FILENO)) {
		static char out_buffer[1 << 16];
		setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
	}
	return true;
}

/* Once the options are read: the capabilities down to what this run
 * needs (CAP_SYS_PTRACE for --pid, --system, --cgroup and operands
 * under /proc only). */
static bool narrow(bool processes, bool lock)
{
	const char *what;
	int err = caps_drop(&what, processes, lock);
	if (err)
		msg("%s: %s\n", what, strerror(err));
	return err == 0;
}

/* Output that could not be written is a failure (exit 3), told on stderr
 * unless the reader simply quit (EPIPE), which is silent. */
static int close_stdout(int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return status;
	if (!err)
		err = sink_write_errno();
	if (!reader_quit && err != EPIPE) {
		if (err)
			msg("write error: %s\n", strerror(err));
		else
			msg("write error\n");
	}
	return STATUS_FATAL;
}

int main(int argc, char **argv)
{
	struct options opts = { 0 };
	int status = STATUS_FATAL;

	if (start()) {
		status = options_parse(argc, argv, &opts);
		if (status == OPTIONS_RUN && opts.charged)
			caps_keep_sys_admin();
		if (status == OPTIONS_RUN)
			status = narrow(opts.npids > 0 || opts.system || opts.ncgroups > 0 ||
						walk_reads_processes(opts.operands),
					opts.lock)
					 ? options_finish(&opts)
					 : STATUS_FATAL;
		if (status == OPTIONS_RUN)
			status = run_inspection(&opts);
		status = close_stdout(status);
	}
	options_free(&opts);
	return status;
}
