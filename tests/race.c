/* SPDX-License-Identifier: MIT */
/* inspect_at() against a file changed between the walk's stat and the
 * open: replaced by a symbolic link, a FIFO, another file or a directory;
 * truncated or grown; and truncated and grown while it is measured.
 * Prints one "ok"/"not ok" line per check; exit 0, 1, or 77 (skip) where
 * neither cachestat nor mincore works. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "walk/inspect.h"

static long page;
static unsigned checks, failures;
static const char *probing; /* what the watchdog names when it fires */
static const struct file_request whole_file; /* the whole range, no -S, no -e */
static struct probe_setup setup;
static struct inspector ins;

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "race: %s: %s\n", what, strerror(errno));
	exit(99); /* a hard error of the test itself, not of pagestat */
}

static void check(bool ok, const char *what)
{
	printf("%sok %u - %s\n", ok ? "" : "not ", ++checks, what);
	failures += !ok;
}

/* A probe that blocks (a FIFO opened without O_NONBLOCK) must fail the
 * test, not hang it. */
static void watchdog(int sig)
{
	static const char msg[] = "not ok - inspect_at blocked for 5 s: ";
	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0 ||
	    write(STDOUT_FILENO, probing, strlen(probing)) < 0 ||
	    write(STDOUT_FILENO, "\n", 1) < 0)
		_exit(1);
	_exit(1);
}

static int probe(const char *what, const char *path, const struct stat *seen, bool follow,
		 struct pagecache_stat *out)
{
	probing = what;
	alarm(5);
	struct file_ident id = file_ident_of(seen);
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = path, .follow = follow, .id = id };
	struct probe_out measured = { 0 };
	int err = inspect_at(&ins, &ref, &whole_file, &measured);
	*out = measured.stat;
	probe_out_free(&measured);
	alarm(0);
	return err;
}

/* The same for a file the walk made no stat of (its entry's type said
 * regular file): *id comes back filled in where the file could be found. */
static int probe_unstated(const char *what, const char *path, bool follow,
			  struct file_ident *id, struct pagecache_stat *out)
{
	probing = what;
	*id = (struct file_ident){ 0 };
	alarm(5);
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = path, .follow = follow };
	struct probe_out measured = { 0 };
	int err = inspect_at(&ins, &ref, &whole_file, &measured);
	*id = ref.id;
	*out = measured.stat;
	probe_out_free(&measured);
	alarm(0);
	return err;
}

/* PATH of BYTES bytes, written and fsync()ed: every page cached, clean. */
static void make_file(const char *path, off_t bytes)
{
	char buf[4096];
	memset(buf, 'x', sizeof buf);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(path);
	for (off_t left = bytes; left > 0; left -= (off_t)sizeof buf)
		if (write(fd, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf) < 0)
			die(path);
	if (fsync(fd) != 0)
		die(path);
	close(fd);
}

/* Drop PATH from the cache, then read pages FIRST..FIRST+COUNT-1 only
 * (POSIX_FADV_RANDOM: no readahead). */
static void arrange(const char *path, long first, long count)
{
	char byte;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0 ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) != 0)
		die(path);
	for (long p = first; p < first + count; p++)
		if (pread(fd, &byte, 1, (off_t)(p * page)) != 1)
			die(path);
	close(fd);
}

/* Resident pages of PATH by our own mincore: the truth to compare with. */
static long resident(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0)
		die(path);
	long pages = (long)((st.st_size + page - 1) / page), count = 0;
	if (pages > 0) {
		unsigned char *vec = malloc((size_t)pages);
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (!vec || map == MAP_FAILED || mincore(map, (size_t)st.st_size, vec) != 0)
			die(path);
		for (long i = 0; i < pages; i++)
			count += vec[i] & 1;
		munmap(map, (size_t)st.st_size);
		free(vec);
	}
	close(fd);
	return count;
}

/* A 2-page regular file "victim" and its lstat, as the walk saw it.  A
 * hard link keeps its inode alive, so that the replacement cannot be
 * given the same inode number (which no dev/inode check could see). */
static struct stat victim(void)
{
	struct stat st;
	/* whatever the last case left there (a FIFO would block the write) */
	unlink("kept");
	unlink("victim");
	make_file("victim", 2 * page);
	if (link("victim", "kept") != 0 || lstat("victim", &st) != 0)
		die("victim");
	return st;
}

static void replace_victim(const char *by)
{
	if (rename(by, "victim") != 0)
		die(by);
}

static void expect_changed(const char *what, const struct stat *seen, bool follow)
{
	struct pagecache_stat out;
	check(probe(what, "victim", seen, follow, &out) == FAIL_CHANGED, what);
}

/* Whether an IN_OPEN event waits on the inotify descriptor. */
static bool opened(int inotify)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool open_seen = false;
	ssize_t n;
	while ((n = read(inotify, buf, sizeof buf)) > 0)
		for (char *p = buf; p < buf + n;
		     p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			open_seen |= (((struct inotify_event *)p)->mask & IN_OPEN) != 0;
	return open_seen;
}

/* A FIFO takes the file's place (renamed over it, or, with follow, the
 * target of a link renamed over it): the probe must not block, must
 * report the change and, as the walk does with FIFOs, never open it
 * (an open can release a writer waiting for a reader).  inotify sees
 * every open as it happens, so no sleeping is needed to tell. */
static void fifo_case(bool follow)
{
	struct stat seen = victim();
	int inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (unlink("fifo") && errno != ENOENT)
		die("fifo");
	if (inotify < 0 || mkfifo("fifo", 0600) != 0 ||
	    inotify_add_watch(inotify, "fifo", IN_OPEN) < 0)
		die("fifo");
	if (follow) {
		if (symlink("fifo", "link") != 0)
			die("link");
		replace_victim("link");
	} else {
		replace_victim("fifo");
	}
	expect_changed(follow ? "a link to a FIFO, followed: changed, no block"
			      : "a FIFO renamed over the file: changed, no block", &seen, follow);
	bool probe_opened = opened(inotify);

	/* prove the watch sees an open: open it ourselves */
	int fd = open("victim", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		die("victim");
	close(fd);
	if (!opened(inotify))
		printf("ok %u - # SKIP inotify does not report opens of a FIFO here\n", ++checks);
	else
		check(!probe_opened, follow ? "the FIFO behind the link was never opened"
					    : "the FIFO was never opened");
	close(inotify);
}

/* The untouched file: exact counts, compared with mincore right before
 * and after the probe (a busy machine may evict between them: retry). */
static void untouched(bool can_drop)
{
	long first = can_drop ? 2 : 0, count = can_drop ? 3 : 8;
	struct pagecache_stat out;
	struct stat seen;
	int err = 0;
	long before = -1, after = -2;

	make_file("plain", 8 * page);
	if (lstat("plain", &seen) != 0)
		die("plain");
	for (int try = 0; try < 3 && !(before == count && after == count); try++) {
		arrange("plain", first, count);
		before = resident("plain");
		err = probe("the untouched file", "plain", &seen, false, &out);
		after = resident("plain");
	}
	if (before != count || after != count) {
		printf("not ok %u - could not hold %ld cached pages (%ld, %ld)\n", ++checks,
		       count, before, after);
		failures++;
		return;
	}
	check(err == 0 && out.size == (uint64_t)(8 * page) && out.pages == 8 &&
	      out.cached == (uint64_t)count &&
	      (!(out.known & PCS_DIRTY) || out.dirty == 0),
	      "the untouched file: size, pages, cached exact");
}

/* The size comes from the fstat of the opened file, not from the walk's
 * stat; the cached count is for that size. */
static void resized(const char *what, off_t old_size, off_t new_size, bool write_it)
{
	struct pagecache_stat out;
	struct stat seen;

	make_file("resized", old_size);
	if (lstat("resized", &seen) != 0)
		die("resized");
	if (truncate("resized", new_size) != 0)
		die("resized");
	if (write_it) {
		/* the grown part written (whole pages), so its pages are cached too */
		int fd = open("resized", O_WRONLY);
		char *buf = calloc(1, (size_t)page);
		if (fd < 0 || !buf)
			die("resized");
		for (off_t at = old_size; at < new_size; at += page)
			if (pwrite(fd, buf, (size_t)page, at) != page)
				die("resized");
		free(buf);
		if (fsync(fd) != 0)
			die("resized");
		close(fd);
	}
	int err = probe(what, "resized", &seen, false, &out);
	uint64_t pages = (uint64_t)((new_size + page - 1) / page);
	check(err == 0 && out.size == (uint64_t)new_size && out.pages == pages &&
	      out.cached == (uint64_t)resident("resized"), what);
}

/* A child truncates and regrows the file without pause while the probe
 * measures it many times: every answer must hold together. */
static void churned(const char *method)
{
	struct stat seen;
	make_file("churn", 64 * page);
	if (lstat("churn", &seen) != 0)
		die("churn");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		int fd = open("churn", O_WRONLY);
		char buf[4096] = { 0 };
		for (unsigned i = 0;; i++) {
			if (ftruncate(fd, (off_t)(i % 7) * page / 3) != 0 ||
			    pwrite(fd, buf, sizeof buf, (off_t)(i % 64) * page) < 0)
				_exit(1);
		}
	}
	bool consistent = true;
	for (int i = 0; i < 20000 && consistent; i++) {
		struct pagecache_stat out;
		int err = probe("a file truncated and grown during the probe", "churn", &seen,
				false, &out);
		uint64_t pages = (out.size + (uint64_t)page - 1) / (uint64_t)page;
		consistent = err == 0 && out.pages == pages && out.cached <= out.pages &&
			     out.dirty <= out.cached;
		if (!consistent)
			printf("# %s: err %d size %llu pages %llu cached %llu dirty %llu\n", method,
			       err, (unsigned long long)out.size, (unsigned long long)out.pages,
			       (unsigned long long)out.cached, (unsigned long long)out.dirty);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	char what[100];
	snprintf(what, sizeof what, "%s: 20000 probes while the file changes size, each consistent",
		 method);
	check(consistent, what);
}

int main(void)
{
	const char *why;
	struct pagecache_stat out;
	struct stat seen;
	struct statfs sfs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	if (probe_init(PROBE_AUTO, &setup, &why) != 0) {
		printf("1..0 # SKIP %s\n", why);
		return 77;
	}
	signal(SIGALRM, watchdog);

	const char *tmp = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/pagestat-race.XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
	char *made = mkdtemp(tmpl);
	if (!made) {
		static char dir[] = "/var/tmp/pagestat-race.XXXXXX";
		made = mkdtemp(dir);
	}
	if (!made || chdir(made) != 0 || statfs(".", &sfs) != 0)
		die("mkdtemp");
	inspector_init(&ins, &setup, NULL);
	printf("# in %s, method %s\n", made, probe_method_name(setup.method));

	untouched(sfs.f_type != TMPFS_MAGIC);

	seen = victim();
	make_file("other", 2 * page);
	replace_victim("other");
	expect_changed("another regular file renamed over it: changed", &seen, false);

	seen = victim();
	unlink("victim");
	if (mkdir("victim", 0700) != 0)
		die("victim");
	expect_changed("a directory in its place: changed", &seen, false);
	rmdir("victim");

	/* a link to the very file the walk saw: with -P it must still not be
	 * followed; with -L it leads to the same inode, which is measured */
	seen = victim();
	if (symlink("kept", "link") != 0)
		die("link");
	replace_victim("link");
	expect_changed("a link to the same file, not followed: changed", &seen, false);
	check(probe("a link to the same file, followed", "victim", &seen, true, &out) == 0 &&
	      out.pages == 2, "a link to the same file, followed: that file measured");

	seen = victim();
	make_file("other", page);
	if (symlink("other", "link") != 0)
		die("link");
	replace_victim("link");
	expect_changed("a link to another file, not followed: changed", &seen, false);
	expect_changed("a link to another file, followed: changed", &seen, true);

	fifo_case(false);
	fifo_case(true);

	/* no stat by the walk: the open tells which file it is */
	struct file_ident id;
	seen = victim();
	check(probe_unstated("no stat: a regular file", "victim", false, &id, &out) == 0 &&
	      id.known && id.dev == seen.st_dev && id.ino == seen.st_ino &&
	      id.nlink == seen.st_nlink && out.pages == 2,
	      "no stat: a regular file measured, its device, inode and links filled in");
	if (symlink("kept", "link") != 0)
		die("link");
	replace_victim("link");
	check(probe_unstated("no stat: a link in its place", "victim", false, &id, &out) ==
		      FAIL_CHANGED && id.known && id.ino != seen.st_ino,
	      "no stat: a link in its place, not followed: changed, the link's inode filled in");
	unlink("victim");
	if (mkfifo("victim", 0600) != 0)
		die("victim");
	int err = probe_unstated("no stat: a FIFO in its place", "victim", false, &id, &out);
	check(err == FAIL_CHANGED && id.known,
	      "no stat: a FIFO in its place: changed, no block, its inode filled in");
	unlink("victim");
	check(probe_unstated("no stat: gone", "victim", false, &id, &out) == ENOENT && !id.known,
	      "no stat: a file gone: ENOENT, no identity");

	resized("truncated from 8 pages to 2.5: the new size, its cached pages", 8 * page,
		2 * page + page / 2, false);
	resized("truncated to 0: no pages", 8 * page, 0, false);
	resized("grown from 2 pages to 7 (written): the new size, all cached", 2 * page,
		7 * page, true);
	resized("grown from 2 pages to 9 (a hole): the new size, 2 cached", 2 * page,
		9 * page, false);

	churned(probe_method_name(setup.method));
	bool again = setup.method == PROBE_CACHESTAT;
	if (again)
		probe_setup_free(&setup);
	if (again && probe_init(PROBE_MINCORE, &setup, &why) == 0)
		churned("mincore");

	const char *names[] = { "plain", "victim", "kept", "other", "link", "fifo", "resized",
				"churn" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		unlink(names[i]);
	if (chdir("/") != 0 || rmdir(made) != 0)
		fprintf(stderr, "race: cannot remove %s: %s\n", made, strerror(errno));
	printf("1..%u\n", checks);
	return failures ? 1 : 0;
}
