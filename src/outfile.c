/* --output-file: a temporary file beside FILE, renamed over it when complete. */
#include <config.h>

#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "sink.h"
#include "xalloc.h"

/* One output file per run: its name, its directory (the walk changes
 * the working directory, so names are taken relative to it) and the
 * temporary file's name while it exists (a fatal signal and atexit
 * remove it). */
static const char *target;
static int dir_fd = -1;
static char *temp;      /* DIR/.NAME.XXXXXX */
static char *temp_name; /* .NAME.XXXXXX, in temp */
static volatile sig_atomic_t temp_exists;

static void remove_temp(void)
{
	if (temp_exists) {
		temp_exists = 0;
		unlinkat(dir_fd, temp_name, 0);
	}
}

static void on_fatal_signal(int sig)
{
	remove_temp();
	signal(sig, SIG_DFL);
	(void)raise(sig);
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

bool outfile_check(const char *path, const char **expected)
{
	struct stat st;

	*expected = NULL;
	if (!*path)
		*expected = "a file name";
	else if (path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		*expected = "a file name, not a directory";
	else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		*expected = "a regular file or a new name: FILE is replaced, not written into";
	if (*expected)
		return false;
	char *dir = dir_of(path);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		*expected = "a file in an existing directory";
	free(dir);
	return !*expected;
}

static void cannot_create(const char *path, int err)
{
	char *dir = dir_of(path);
	fputs("pagestat: cannot create a temporary file for --output-file '", stderr);
	esc_put_terminal(stderr, path, strlen(path), esc_locale_is_utf8());
	fputs("' in '", stderr);
	esc_put_terminal(stderr, dir, strlen(dir), esc_locale_is_utf8());
	fprintf(stderr, "': %s\n", strerror(err));
	free(dir);
}

FILE *outfile_open(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = dir_len + strlen(name) + sizeof "..XXXXXX";

	char *dir = dir_of(path);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dir_fd < 0) {
		cannot_create(path, errno);
		return NULL;
	}
	target = path;
	temp = xrealloc(NULL, len);
	snprintf(temp, len, "%.*s.%s.XXXXXX", (int)dir_len, path, name);
	temp_name = temp + dir_len;

	static const int signals[] = { SIGHUP, SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_fatal_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		sigaddset(&sa.sa_mask, signals[i]);
	/* no signal between the file's creation and temp_exists */
	sigset_t old;
	sigprocmask(SIG_BLOCK, &sa.sa_mask, &old);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		struct sigaction was;
		/* a signal ignored from the start (nohup) stays ignored */
		if (sigaction(signals[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
			sigaction(signals[i], &sa, NULL);
	}
	int fd = mkostemp(temp, O_CLOEXEC);
	int err = errno;
	temp_exists = fd >= 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	(void)atexit(remove_temp); /* exit() on running out of memory */

	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0) {
			err = errno;
			close(fd);
			remove_temp();
		}
		cannot_create(path, err);
	}
	return out;
}

int outfile_close(FILE *out, int status)
{
	/* 1: some files failed, 4: --expect-cached not met; the output is whole */
	bool keep = status == EXIT_SUCCESS || status == 1 || status == 4;
	mode_t mask = umask(0);
	int err = 0;

	umask(mask);
	errno = 0;
	if (fflush(out) != 0 || ferror(out))
		err = errno ? errno : sink_write_errno() ? sink_write_errno() : EIO; /* ENOSPC, EFBIG... */
	else if (keep && (fsync(fileno(out)) != 0 || fchmod(fileno(out), 0644 & ~mask) != 0))
		err = errno;
	if (fclose(out) != 0 && !err)
		err = errno;
	if (keep && !err) {
		const char *slash = strrchr(target, '/');
		if (renameat(dir_fd, temp_name, dir_fd, slash ? slash + 1 : target) == 0) {
			temp_exists = 0;
			fsync(dir_fd); /* the rename on disk too; a reader sees no difference */
		} else {
			err = errno;
		}
	}
	remove_temp();
	close(dir_fd);
	dir_fd = -1;
	free(temp);
	temp = NULL;
	if (!err)
		return status;
	fputs("pagestat: write error: ", stderr);
	esc_put_terminal(stderr, target, strlen(target), esc_locale_is_utf8());
	fprintf(stderr, ": %s\n", strerror(err));
	return EXIT_FATAL;
}
