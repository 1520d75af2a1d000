/* SPDX-License-Identifier: MIT */
/* Test helper: arranges exact page-cache states on the running kernel and
 * reads them back, so that the tests can compare pagestat with the truth.
 *
 *   pcarrange pagesize
 *   pcarrange write FILE BYTES        create FILE, fsync it: cached, clean
 *   pcarrange dirty FILE BYTES        create FILE, no fsync: cached, dirty
 *   pcarrange drop FILE               fsync, then POSIX_FADV_DONTNEED
 *   pcarrange cache FILE FIRST COUNT  read pages FIRST..FIRST+COUNT-1 only
 *   pcarrange stat FILE               cachestat: cached dirty writeback
 *                                     evicted recently_evicted
 *   pcarrange holds FILE dropped      exit 0 when no page is cached,
 *   pcarrange holds FILE PAGES        when pages 0..PAGES-1 are,
 *   pcarrange holds FILE FIRST COUNT [FIRST COUNT]...
 *                                     when exactly those pages are; else 1
 *   pcarrange tree DIR DIRS FILES BYTES
 *                                     DIRS directories of FILES files each
 *   pcarrange maxrss OUT CMD [ARG]... run CMD, write its peak RSS (KiB)
 *                                     to OUT, exit with its status
 *   pcarrange map FILE [unlink]       map FILE and close it (so that it is
 *                                     in the maps only), unlink it if
 *                                     asked, print "mapped", sleep 120 s
 *   pcarrange hold WATCHPID FILE [FIRST COUNT]...
 *                                     hold the pages of each pair (every
 *                                     page without a pair) cached: a child
 *                                     maps them shared and mlocks them
 *                                     (reading back any page gone), holds
 *                                     FILE open, and keeps them until it
 *                                     is killed or process WATCHPID ends;
 *                                     prints the child's pid once it
 *                                     holds them
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/cachestat.h"

static long page_size;

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "pcarrange: %s %s: %s\n", what, arg, strerror(errno));
	exit(1);
}

static uint64_t number(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "pcarrange: not a number: %s\n", s);
		exit(2);
	}
	return v;
}

static void fill(const char *path, uint64_t bytes, int sync_it)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open", path);
	char buf[65536];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (char)(i * 131 + 7);
	while (bytes) {
		size_t n = bytes < sizeof buf ? (size_t)bytes : sizeof buf;
		if (write(fd, buf, n) != (ssize_t)n)
			die("write", path);
		bytes -= n;
	}
	if (sync_it && fsync(fd) != 0)
		die("fsync", path);
	close(fd);
}

static void drop(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	if (fdatasync(fd) != 0 && errno != EINVAL)
		die("fdatasync", path);
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		die("posix_fadvise", path);
	close(fd);
}

static void cache(const char *path, uint64_t first, uint64_t count)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	/* no readahead: exactly the pages asked for */
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	if (errno)
		die("posix_fadvise", path);
	char *buf = malloc((size_t)page_size);
	for (uint64_t p = first; p < first + count; p++)
		if (pread(fd, buf, 1, (off_t)(p * (uint64_t)page_size)) < 0)
			die("pread", path);
	free(buf);
	close(fd);
}

static void stat_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	struct cachestat_range range = { 0, 0 };
	struct cachestat cs;
	if (syscall(__NR_cachestat, fd, &range, &cs, 0) != 0)
		die("cachestat", path);
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	       (uint64_t)cs.nr_cache, (uint64_t)cs.nr_dirty, (uint64_t)cs.nr_writeback,
	       (uint64_t)cs.nr_evicted, (uint64_t)cs.nr_recently_evicted);
	close(fd);
}

static uint64_t cached_pages(int fd, const char *path, uint64_t first, uint64_t count)
{
	struct cachestat_range range = { first * (uint64_t)page_size, count * (uint64_t)page_size };
	struct cachestat cs;
	if (syscall(__NR_cachestat, fd, &range, &cs, 0) != 0)
		die("cachestat", path);
	return cs.nr_cache;
}

/* Does the arrangement a test made still hold (nothing evicted since)? */
static int holds(const char *path, int nspec, char **spec)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	bool ok;
	if (nspec == 1 && strcmp(spec[0], "dropped") == 0) {
		ok = cached_pages(fd, path, 0, 0) == 0;
	} else if (nspec == 1) {
		uint64_t pages = number(spec[0]);
		ok = cached_pages(fd, path, 0, pages) == pages;
	} else {
		uint64_t sum = 0;
		ok = nspec % 2 == 0;
		for (int i = 0; ok && i < nspec; i += 2) {
			uint64_t count = number(spec[i + 1]);
			ok = cached_pages(fd, path, number(spec[i]), count) == count;
			sum += count;
		}
		/* and nothing else: range length 0 is the whole file */
		ok = ok && cached_pages(fd, path, 0, 0) == sum;
	}
	close(fd);
	return ok ? 0 : 1;
}

static void tree(const char *dir, uint64_t dirs, uint64_t files, uint64_t bytes)
{
	char path[4096];
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("mkdir", dir);
	for (uint64_t d = 0; d < dirs; d++) {
		snprintf(path, sizeof path, "%s/d%" PRIu64, dir, d);
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			die("mkdir", path);
		for (uint64_t f = 0; f < files; f++) {
			snprintf(path, sizeof path, "%s/d%" PRIu64 "/f%" PRIu64, dir, d, f);
			fill(path, bytes, 0);
		}
	}
}

static int maxrss(const char *out, char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		die("fork", argv[0]);
	if (pid == 0) {
		execvp(argv[0], argv);
		die("exec", argv[0]);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4", argv[0]);
	FILE *f = fopen(out, "w");
	if (!f)
		die("fopen", out);
	fprintf(f, "%ld\n", ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A process that maps a file it holds no descriptor of (tests/pid.bats). */
static void map_file(const char *path, bool unlink_it)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	struct stat st;
	if (fstat(fd, &st) != 0)
		die("fstat", path);
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap", path);
	close(fd);
	if (unlink_it && unlink(path) != 0)
		die("unlink", path);
	if (puts("mapped") == EOF || fflush(stdout) != 0)
		die("write", "stdout");
	sleep(120);
	munmap(map, (size_t)st.st_size);
}

/* A page the machine pages out between a test's arrangement and its check
 * would make the check fail for the machine's sake: a child of this
 * program maps the arranged ranges shared and mlocks them.  A locked page
 * is never reclaimed, still counts as cached for cachestat and mincore,
 * and a shared read-only mapping writes nothing (dirty pages stay dirty).
 * mlock is the raw system call: ASan's interceptor makes mlock() a no-op. */
static int lock_range(int fd, uint64_t size, uint64_t first, uint64_t count, const char **what)
{
	uint64_t start = first * (uint64_t)page_size;
	if (start >= size || count == 0)
		return 0;
	uint64_t len = count * (uint64_t)page_size;
	if (len > size - start)
		len = size - start;
	void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (map == MAP_FAILED) {
		*what = "mmap";
		return -1;
	}
	/* a page gone meanwhile is read back alone, without readahead */
	if (madvise(map, (size_t)len, MADV_RANDOM) != 0) {
		*what = "madvise";
		return -1;
	}
	if (syscall(SYS_mlock, map, (size_t)len) != 0) {
		*what = "mlock";
		return -1;
	}
	return 0;
}

/* The child: lock, say so on REPORT (0, or errno and what failed), then
 * wait for WATCHPID's end (or a signal, whose default action ends it). */
static void hold_child(int report, pid_t watch, const char *path, int nspec, char **spec)
{
	const char *what = "open";
	int err = 0;
	int watch_fd = (int)syscall(SYS_pidfd_open, watch, 0);
	int fd = open(path, O_RDONLY);
	if (watch_fd < 0) {
		what = "pidfd_open";
		err = errno;
	} else if (fd < 0) {
		err = errno;
	} else {
		/* st_size is 0 for a block device: its end is its size */
		off_t end = lseek(fd, 0, SEEK_END);
		uint64_t size = end < 0 ? 0 : (uint64_t)end;
		uint64_t all = (size + (uint64_t)page_size - 1) / (uint64_t)page_size;
		if (nspec == 0 && lock_range(fd, size, 0, all, &what) != 0)
			err = errno;
		for (int i = 0; !err && i + 1 < nspec; i += 2)
			if (lock_range(fd, size, number(spec[i]), number(spec[i + 1]), &what) != 0)
				err = errno;
	}
	/* Kept: the file on 3 besides its mappings (a process that maps a
	 * deleted file and holds no descriptor of it is one pagestat reaches
	 * only through /proc/PID/map_files: tests of --system), WATCHPID's
	 * pidfd on 4, REPORT on 5; nothing else of the test's (bats waits for
	 * its descriptors).  Copies above 5 first: any may be on 3 to 5. */
	struct pollfd p = { .fd = 4, .events = POLLIN };
	if (!err) {
		int file_copy = fcntl(fd, F_DUPFD, 10);
		int watch_copy = fcntl(watch_fd, F_DUPFD, 10);
		int report_copy = fcntl(report, F_DUPFD, 10);
		what = "dup";
		if (file_copy < 0 || watch_copy < 0 || report_copy < 0 || dup2(file_copy, 3) != 3 ||
		    dup2(watch_copy, 4) != 4 || dup2(report_copy, 5) != 5)
			err = errno ? errno : EBADF;
		report = 5;
		syscall(SYS_close_range, 6, ~0U, 0);
		/* the pidfd polls as readable only once WATCHPID has ended */
		if (!err && poll(&p, 1, 0) != 0) {
			what = "watch";
			err = ESRCH;
		}
	}
	char msg[128];
	snprintf(msg, sizeof msg, "%d %s", err, what);
	if (write(report, msg, strlen(msg)) < 0 || err)
		_exit(1);
	close(report);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(devnull, 2);
		if (devnull > 2)
			close(devnull);
	}
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int hold(const char *watch, const char *path, int nspec, char **spec)
{
	if (nspec % 2) {
		fputs("pcarrange: hold: FIRST without COUNT\n", stderr);
		return 2;
	}
	pid_t watch_pid = (pid_t)number(watch);
	int pipefd[2];
	if (pipe(pipefd) != 0)
		die("pipe", path);
	if (fflush(stdout) != 0)
		die("fflush", "stdout");
	pid_t child = fork();
	if (child < 0)
		die("fork", path);
	if (child == 0) {
		close(pipefd[0]);
		hold_child(pipefd[1], watch_pid, path, nspec, spec);
	}
	close(pipefd[1]);
	char msg[128];
	ssize_t n = read(pipefd[0], msg, sizeof msg - 1);
	msg[n > 0 ? n : 0] = '\0';
	/* the holder's word: "ERRNO WHAT" */
	char *end = msg;
	errno = 0;
	long word = n > 0 ? strtol(msg, &end, 10) : 0;
	char *what = end + strspn(end, " ");
	what[strcspn(what, " \n")] = '\0';
	if (n <= 0 || end == msg || errno || word < 0 || word > INT_MAX || *end != ' ' || !*what) {
		fprintf(stderr, "pcarrange: hold %s: the holder ended without a word\n", path);
		return 1;
	}
	int err = (int)word;
	if (err) {
		waitpid(child, NULL, 0);
		errno = err;
		fprintf(stderr, "pcarrange: hold: %s %s: %s\n", what, path, strerror(err));
		return err == ENOMEM || err == EPERM || err == EAGAIN ? 3 : 1;
	}
	printf("%d\n", (int)child);
	return 0;
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "pagesize") == 0 && argc == 2)
		printf("%ld\n", page_size);
	else if (strcmp(cmd, "write") == 0 && argc == 4)
		fill(argv[2], number(argv[3]), 1);
	else if (strcmp(cmd, "dirty") == 0 && argc == 4)
		fill(argv[2], number(argv[3]), 0);
	else if (strcmp(cmd, "drop") == 0 && argc == 3)
		drop(argv[2]);
	else if (strcmp(cmd, "cache") == 0 && argc == 5)
		cache(argv[2], number(argv[3]), number(argv[4]));
	else if (strcmp(cmd, "stat") == 0 && argc == 3)
		stat_file(argv[2]);
	else if (strcmp(cmd, "holds") == 0 && argc >= 4)
		return holds(argv[2], argc - 3, argv + 3);
	else if (strcmp(cmd, "tree") == 0 && argc == 6)
		tree(argv[2], number(argv[3]), number(argv[4]), number(argv[5]));
	else if (strcmp(cmd, "maxrss") == 0 && argc >= 4)
		return maxrss(argv[2], argv + 3);
	else if (strcmp(cmd, "map") == 0 && argc == 3)
		map_file(argv[2], false);
	else if (strcmp(cmd, "map") == 0 && argc == 4 && strcmp(argv[3], "unlink") == 0)
		map_file(argv[2], true);
	else if (strcmp(cmd, "hold") == 0 && argc >= 4)
		return hold(argv[2], argv[3], argc - 4, argv + 4);
	else {
		fputs("usage: see the comment at the top of tests/pcarrange.c\n", stderr);
		return 2;
	}
	return 0;
}
