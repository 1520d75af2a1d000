/* SPDX-License-Identifier: MIT */
/* --lock: the files locked in memory (each range mapped from the user's
 * own open file, mlock2'd on fault, its pages faulted in once), held
 * until the run ends: followed, within the memory available, detached. */
#include <config.h>

#include "lock.h"
#include "lock_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "escape.h"
#include "fail.h"
#include "format.h"
#include "memstat.h"
#include "msg.h"
#include "progress.h"
#include "signals.h"
#include "status.h"
#include "userfile.h"
#include "xalloc.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif

/* Bytes faulted in at a time: the pace of --rate and the meter. */
#define LOCK_CHUNK ((uint64_t)1 << 20)

/* The first number in a /proc file read with the user's rights, or 0. */
static uint64_t proc_number(const char *path)
{
	uint64_t v = 0;

	return lock_read_number(path, NULL, &v) ? v : 0;
}

/* The mappings the process has now: the lines of /proc/self/maps. */
static uint64_t map_count(void)
{
	FILE *in = user_fopen_read("/proc/self/maps");
	uint64_t n = 0;
	int c;

	if (!in)
		return 0;
	while ((c = getc(in)) != EOF)
		n += c == '\n';
	fclose(in);
	return n;
}

/* ENOMEM from mmap: the process's mappings at vm.max_map_count, or the
 * kernel short of memory. */
static int map_failed(struct lock_set *set, int err)
{
	if (err != ENOMEM)
		return err;
	/* met already: the files past it are not counted again, as reading
	 * /proc/self/maps (one line a mapping) per file made a tree beyond
	 * the limit quadratic */
	pthread_mutex_lock(&set->mutex);
	bool met = set->mapcount_files > 0;
	if (met)
		set->mapcount_files++;
	pthread_mutex_unlock(&set->mutex);
	if (met)
		return FAIL_MAPCOUNT;
	uint64_t most = proc_number("/proc/sys/vm/max_map_count");
	uint64_t now = map_count();
	/* a few below: the libraries' mappings come and go */
	if (!most || now + 8 < most)
		return err;
	pthread_mutex_lock(&set->mutex);
	if (!set->mapcount_files++) {
		set->map_count = now;
		set->max_map_count = most;
	}
	pthread_mutex_unlock(&set->mutex);
	return FAIL_MAPCOUNT;
}

/* How the missing pages are read: where the range is not the whole file,
 * exactly (the fault's read-around is off, MADV_RANDOM, and each chunk is
 * read ahead with WILLNEED on the file: nothing outside the range is
 * read); else through the faults' read-around, in large reads. */
struct reading {
	int fd;         /* exact: the file */
	uint64_t start; /* exact: the file offset of the mapping */
	bool exact;
	bool paced;     /* the missing pages: pace and count them */
	lock_pace_fn *pace;
	void *ctx;
};

/* Fault in [from, to) of the mapping (offsets in it), each page mapped
 * and so locked; a page not cached is read, once. */
static int populate(char *addr, uint64_t from, uint64_t to, const struct reading *r)
{
	bool paced = r->paced;

	while (from < to) {
		uint64_t n = to - from < LOCK_CHUNK ? to - from : LOCK_CHUNK;
		if (paced && r->pace)
			r->pace(r->ctx, n);
		if (paced && r->exact)
			(void)posix_fadvise(r->fd, (off_t)(r->start + from), (off_t)n,
					    POSIX_FADV_WILLNEED);
		if (madvise(addr + from, n, MADV_POPULATE_READ) != 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (paced)
			progress_read(n);
		from += n;
	}
	return 0;
}

/* The index of (dev, ino) in the set, or SIZE_MAX; under the mutex. */
static size_t find(struct lock_set *set, const struct stat *st)
{
	if (!st->st_ino || !devino_has(&set->index, st->st_dev, st->st_ino))
		return SIZE_MAX;
	return devino_put(&set->index, st->st_dev, st->st_ino, 0);
}

void lock_release(struct lock_set *set, struct locked_file *f)
{
	(void)munlock(f->addr, f->length);
	(void)munmap(f->addr, f->length);
	set->locked_bytes -= f->length;
	set->nlive--;
	f->addr = NULL;
	f->length = 0;
}

/* Under the mutex, following: may length more bytes be locked, the
 * locked ones counted without give (a file's length before it grew)?
 * Taken from the pass's budget when they may; *over_max says why not. */
static bool fits(struct lock_set *set, uint64_t more, uint64_t give, bool *over_max)
{
	*over_max = set->cfg.max && set->locked_bytes - give + more > set->cfg.max;
	if (*over_max || (set->budget != UINT64_MAX && more > set->budget))
		return false;
	if (set->budget != UINT64_MAX)
		set->budget -= more;
	return true;
}

/* Under the mutex: f refused at length; told once, until it changes. */
static void refuse(struct locked_file *f, uint64_t length, bool over_max, uint64_t pass)
{
	if (f->refused != length)
		f->tell_refused = true;
	f->refused = length;
	f->over_max = over_max;
	f->seen = pass;
}

/* Is (dev, ino) locked already with this range (length bytes): its pages
 * in *pages.  When followed, a file met with another range (grown,
 * shrunk) is released, to be locked again. */
static bool still_locked(struct lock_set *set, const struct stat *st, size_t length,
			 uint64_t *pages)
{
	bool same = false;

	pthread_mutex_lock(&set->mutex);
	size_t at = find(set, st);
	if (at != SIZE_MAX) {
		struct locked_file *f = &set->files[at];
		/* a file unlocked before (deleted) met again is new: record's */
		bool over_max = false;
		if (f->addr && (f->length == length || !set->following)) {
			*pages = f->length / set->page_size;
			same = true;
			f->seen = set->pass;
			f->refused = 0;
		} else if (f->addr && length > f->length &&
			   !fits(set, length - f->length, f->length, &over_max)) {
			/* grown past the guard: locked as it was, the rest told */
			*pages = f->length / set->page_size;
			same = true;
			refuse(f, length, over_max, set->pass);
		} else if (f->addr) {
			lock_release(set, f); /* grown or shrunk: locked again */
			f->seen = set->pass;
			f->refused = 0;
			f->checked = true;
		} else if (f->refused == length && !f->yielded) {
			same = true; /* refused as it is: not again, not told */
			f->seen = set->pass;
		} else if (f->yielded) {
			f->seen = set->pass; /* there still, to be locked again */
		}
	}
	pthread_mutex_unlock(&set->mutex);
	return same;
}

/* Record a locked mapping; false when another thread locked the file
 * meanwhile.  path (when followed, or NULL) is the set's from here. */
static bool record(struct lock_set *set, const struct stat *st, void *addr, size_t length,
		   char *path)
{
	bool added = false;

	pthread_mutex_lock(&set->mutex);
	size_t at = find(set, st);
	if (at == SIZE_MAX || !set->files[at].addr) {
		if (at == SIZE_MAX) {
			XGROW(set->files, set->cap, set->nfiles + 1);
			at = set->nfiles++;
			set->files[at] = (struct locked_file){ .fresh = set->following,
							       .dev = st->st_dev, .ino = st->st_ino };
			if (st->st_ino)
				(void)devino_put(&set->index, st->st_dev, st->st_ino, at);
		} else if (set->files[at].yielded) {
			set->files[at].yielded = false;
			set->files[at].again = true;
		} else if (set->files[at].seen != set->pass) {
			/* a new file where an unlocked one's inode was */
			set->files[at].fresh = set->following;
			set->files[at].was = 0;
		}
		struct locked_file *f = &set->files[at];
		f->addr = addr;
		f->length = length;
		f->refused = 0;
		f->tell_refused = false;
		f->checked = false;
		f->seen = set->pass;
		if (path) {
			free(f->path);
			f->path = path;
			path = NULL;
		}
		set->locked_bytes += length;
		set->nlive++;
		added = true;
	}
	pthread_mutex_unlock(&set->mutex);
	free(path);
	return added;
}

/* The name of the open file fd, absolute (its /proc link), or NULL. */
static char *name_of(int fd)
{
	char link[64], name[PATH_MAX];

	snprintf(link, sizeof link, "/proc/thread-self/fd/%d", fd);
	ssize_t n = readlink(link, name, sizeof name - 1);
	if (n <= 0 || name[0] != '/')
		return NULL;
	name[n] = '\0';
	return xstrdup(name);
}

/* --lock-max: in the first pass, from the first file that does not fit,
 * every one is left out (the walk's order: run.c walks with one thread).
 * Following, each file locked anew (new, grown, replaced, or yielded to
 * --reserve) passes the guard of the first: --lock-max, and the pass's
 * budget (the memory available less --reserve); one that does not is
 * left out, kept as refused (told once) within LOCK_FOLLOW_MAX_FILES. */
static bool left_out(struct lock_set *set, const struct stat *st, uint64_t length, int fd)
{
	bool out;

	if (!set->following) {
		pthread_mutex_lock(&set->mutex);
		out = set->cfg.max && (set->left_files || set->locked_bytes + length > set->cfg.max);
		if (out) {
			set->left_files++;
			set->left_bytes += length;
		}
		pthread_mutex_unlock(&set->mutex);
		return out;
	}
	char *path = set->cfg.names ? name_of(fd) : NULL;
	pthread_mutex_lock(&set->mutex);
	size_t at = find(set, st);
	struct locked_file *f = at == SIZE_MAX ? NULL : &set->files[at];
	bool over_max = false;
	if (f && f->checked) {
		f->checked = false;
		out = false;
	} else {
		out = !fits(set, length, 0, &over_max);
		if (!out && !f && set->nfiles >= LOCK_FOLLOW_MAX_FILES) {
			if (set->budget != UINT64_MAX)
				set->budget += length;
			out = true;
		}
		if (out && !f && set->nfiles >= LOCK_FOLLOW_MAX_FILES) {
			if (!set->files_told && !set->cfg.quiet)
				msg("--lock: following at most %d files: the files found past it are "
				    "neither locked nor followed\n", LOCK_FOLLOW_MAX_FILES);
			set->files_told = true;
		} else if (out && !f) {
			XGROW(set->files, set->cap, set->nfiles + 1);
			at = set->nfiles++;
			f = &set->files[at];
			*f = (struct locked_file){ .dev = st->st_dev, .ino = st->st_ino, .path = path };
			path = NULL;
			if (st->st_ino)
				(void)devino_put(&set->index, st->st_dev, st->st_ino, at);
			refuse(f, length, over_max, set->pass);
		} else if (out && !f->yielded) {
			refuse(f, length, over_max, set->pass);
			if (path) {
				free(f->path);
				f->path = path;
				path = NULL;
			}
		}
	}
	pthread_mutex_unlock(&set->mutex);
	free(path);
	return out;
}

int lock_file(struct lock_set *set, int fd, const struct stat *st,
	      const struct probe_range *range, const struct extent *missing, size_t nmissing,
	      lock_pace_fn *pace, void *ctx, uint64_t *pages, uint64_t *read)
{
	uint64_t page = set->page_size, size = (uint64_t)st->st_size, end = size;

	*pages = *read = 0;
	uint64_t start = range->offset / page * page;
	if (range->length && range->offset + range->length > range->offset &&
	    range->offset + range->length < end)
		end = range->offset + range->length;
	if (start >= end || start > (uint64_t)INT64_MAX) {
		(void)still_locked(set, st, 0, pages); /* followed: shrunk to nothing */
		return 0; /* nothing of the file in the range */
	}
	end = (end + page - 1) / page * page;
	size_t length = (size_t)(end - start);
	if (still_locked(set, st, length, pages) || left_out(set, st, length, fd))
		return 0;

	char *addr = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (addr == MAP_FAILED)
		return map_failed(set, errno);
	/* locked before anything is read: each page is locked as it comes */
	if (mlock2(addr, length, MLOCK_ONFAULT) != 0) {
		int err = errno;
		munmap(addr, length);
		if (err != ENOMEM && err != EPERM)
			return err;
		pthread_mutex_lock(&set->mutex);
		set->memlock_files++;
		set->memlock_bytes += length;
		pthread_mutex_unlock(&set->mutex);
		return FAIL_MEMLOCK;
	}
	struct reading r = { .fd = fd, .start = start, .pace = pace, .ctx = ctx, .paced = true,
			     .exact = start > 0 || end < size };
	if (r.exact)
		(void)madvise(addr, length, MADV_RANDOM);
	int err = 0;
	/* the missing pages first, paced: they are what is read */
	for (size_t i = 0; i < nmissing && !err; i++) {
		uint64_t from = missing[i].offset / page * page;
		uint64_t to = missing[i].offset + missing[i].length;
		if (to < from || to > end)
			to = end;
		to = (to + page - 1) / page * page;
		if (from < start)
			from = start;
		if (from < to) {
			err = populate(addr, from - start, to - start, &r);
			*read += (to - from) / page;
		}
	}
	/* then the rest, cached already: mapped, so locked, nothing read */
	r.paced = false;
	if (!err)
		err = populate(addr, 0, length, &r);
	if (err) {
		munmap(addr, length);
		*read = 0;
		return err;
	}
	*pages = length / page;
	if (!record(set, st, addr, length, set->cfg.names ? name_of(fd) : NULL))
		munmap(addr, length); /* another thread locked it meanwhile */
	return 0;
}

void lock_notice(struct lock_set *set, const char *path, const char *fmt, ...)
{
	struct timespec now;
	char text[512];
	va_list ap;

	set->nchanges++;
	if (set->cfg.quiet)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec != set->window) {
		lock_notices_flush(set);
		set->window = now.tv_sec;
		set->told = 0;
	}
	if (set->told >= LOCK_NOTICES_PER_SECOND) {
		set->untold++;
		return;
	}
	set->told++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	msg("--lock: ");
	if (path)
		msg_name_str(path);
	else
		msg_more("a file");
	msg_more(": %s\n", text);
}

void lock_notices_flush(struct lock_set *set)
{
	if (!set->untold)
		return;
	msg("--lock: %" PRIu64 " more change%s not told (at most %d lines a second)\n", set->untold,
	    set->untold == 1 ? "" : "s", LOCK_NOTICES_PER_SECOND);
	set->untold = 0;
}

bool lock_notices_due(const struct lock_set *set)
{
	return set->untold > 0;
}

/* The events a directory is watched for: a file in it written, truncated,
 * created, deleted, renamed in or out. */
#define WATCHED (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
		 IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

struct watch_call {
	int inotify;
	const char *dir;
};

static int add_watch(void *arg)
{
	const struct watch_call *w = arg;
	return inotify_add_watch(w->inotify, w->dir, WATCHED | IN_ONLYDIR);
}

/* Watch the directory of path (a file's), or path itself (a directory),
 * with the user's rights (a setcap pagestat's capabilities would let it
 * watch a directory its user may not read). */
static void watch_dir_of(struct lock_set *set, const char *path, bool is_dir)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (is_dir || !slash) {
		snprintf(dir, sizeof dir, "%s", is_dir ? path : ".");
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= sizeof dir)
			return;
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	/* the same directory twice is one watch; at most
	 * LOCK_FOLLOW_MAX_WATCHES of them */
	struct stat st;
	if (user_fstatat(AT_FDCWD, dir, &st, 0) != 0 || !S_ISDIR(st.st_mode) ||
	    devino_has(&set->watched, st.st_dev, st.st_ino))
		return;
	if (set->nwatches >= LOCK_FOLLOW_MAX_WATCHES) {
		if (!set->watches_told && !set->cfg.quiet)
			msg("--lock: watching at most %d directories: changes in the others are "
			    "seen at the next pass (a change watched, or SIGHUP)\n",
			    LOCK_FOLLOW_MAX_WATCHES);
		set->watches_told = true;
		return;
	}
	struct watch_call w = { set->inotify, dir };
	if (user_call(add_watch, &w) >= 0) {
		(void)devino_add(&set->watched, st.st_dev, st.st_ino);
		set->nwatches++;
	}
}

/* The directories of the operands and of each locked file watched. */
static void watch_all(struct lock_set *set)
{
	for (size_t i = 0; set->cfg.operands && set->cfg.operands[i]; i++) {
		struct stat st;
		if (user_fstatat(AT_FDCWD, set->cfg.operands[i], &st, 0) == 0)
			watch_dir_of(set, set->cfg.operands[i], S_ISDIR(st.st_mode));
	}
	for (size_t i = 0; i < set->nfiles; i++)
		if (set->files[i].addr && set->files[i].path)
			watch_dir_of(set, set->files[i].path, false);
}

int lock_follow_start(struct lock_set *set)
{
	set->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (set->inotify < 0) {
		msg("--lock: cannot follow the files (inotify): %s; they stay locked as they are\n",
		    strerror(errno));
		return -1;
	}
	set->following = true;
	watch_all(set);
	return set->inotify;
}

/* Read every event waiting: which file changed does not matter, the pass
 * walks them all; a watch the kernel removed (its directory gone) is
 * counted off, and the directories watched are asked again. */
static void drain(struct lock_set *set)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	bool gone = false;

	while ((n = read(set->inotify, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
			if ((ev->mask & IN_IGNORED) && set->nwatches > 0) {
				set->nwatches--;
				gone = true;
			}
			p += sizeof *ev + ev->len;
		}
	}
	if (gone) {
		/* the directories left are watched already: the kernel gives
		 * their watch again, not a new one */
		devino_clear(&set->watched);
		set->nwatches = 0;
		set->rewatch = true;
	}
}

void lock_follow_begin(struct lock_set *set)
{
	/* the events of one change come together: a rename, a write */
	if (set->inotify >= 0) {
		struct timespec settle = { 0, 50 * 1000000L };
		nanosleep(&settle, NULL);
		drain(set);
	}
	set->pass++;
	set->nchanges = set->nrefusals = 0;
	for (size_t i = 0; i < set->nfiles; i++) {
		set->files[i].was = set->files[i].length;
		set->files[i].fresh = false;
	}
}

void lock_tell_change(const struct lock_set *set, const char *path, const char *change,
		      uint64_t length)
{
	FILE *out = set->cfg.changes;
	struct timespec now;
	struct tm tm;
	char when[32];

	if (!out)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	if (strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return;
	fprintf(out, "{\"time\":\"%s.%03ldZ\",\"change\":\"%s\",\"path\":", when,
		now.tv_nsec / 1000000, change);
	const char *name = path ? path : "";
	if (!esc_json_string(out, name, strlen(name))) {
		fputs(",\"path_base64\":\"", out);
		esc_base64(out, name, strlen(name));
		fputc('"', out);
	}
	fprintf(out, ",\"locked\":%" PRIu64 ",\"locked_bytes\":%" PRIu64 "}\n",
		length / set->page_size, length);
	(void)fflush(out);
}

/* A fresh file found where a removed one was (the same name): replaced. */
static struct locked_file *fresh_named(struct lock_set *set, const char *path)
{
	for (size_t i = 0; path && i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (f->fresh && f->addr && f->path && strcmp(f->path, path) == 0)
			return f;
	}
	return NULL;
}

/* The entries of files gone (not met by the pass, nothing locked or to
 * lock again) dropped, their memory given back, the index made again. */
static void drop_gone(struct lock_set *set)
{
	size_t kept = 0;

	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (!f->addr && !f->yielded && f->seen != set->pass) {
			free(f->path);
			continue;
		}
		set->files[kept++] = *f;
	}
	if (kept == set->nfiles)
		return;
	set->nfiles = kept;
	devino_free(&set->index);
	set->index = (struct devino_map){ 0 };
	for (size_t i = 0; i < kept; i++)
		if (set->files[i].ino)
			(void)devino_put(&set->index, set->files[i].dev, set->files[i].ino, i);
	if (set->cap > 64 && kept < set->cap / 4) {
		set->cap = kept < 32 ? 64 : kept * 2;
		set->files = xrealloc(set->files, set->cap * sizeof *set->files);
	}
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
}

void lock_follow_end(struct lock_set *set)
{
	char bytes[FMT_BUFSIZE], max[FMT_BUFSIZE];

	fmt_human(max, set->cfg.max);
	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		f->checked = false;
		if (f->yielded && f->seen != set->pass)
			f->yielded = false; /* gone meanwhile */
		if (f->again) {
			f->again = false;
			f->was = f->length;
			fmt_human(bytes, f->length);
			lock_notice(set, f->path, "locked again (%s): memory is available again", bytes);
			lock_tell_change(set, f->path, "locked again", f->length);
		}
		if (f->seen == set->pass || !f->addr)
			continue;
		/* not met: deleted, renamed away or replaced */
		size_t length = f->length;
		lock_release(set, f);
		struct locked_file *now = fresh_named(set, f->path);
		if (now) {
			now->fresh = false;
			now->was = now->length; /* told here, not as grown */
			fmt_human(bytes, now->length);
			lock_notice(set, now->path, "replaced; the new file locked (%s)", bytes);
			lock_tell_change(set, now->path, "replaced", now->length);
			continue;
		}
		fmt_human(bytes, length);
		lock_notice(set, f->path, "deleted or renamed away; unlocked (%s given back)", bytes);
		lock_tell_change(set, f->path, "deleted", 0);
	}
	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (f->seen != set->pass)
			continue;
		if (f->tell_refused) {
			f->tell_refused = false;
			set->nrefusals++;
			fmt_human(bytes, f->refused);
			const char *why = f->over_max ? "it would pass --lock-max=" :
				"more than the memory available less --reserve";
			if (f->addr)
				lock_notice(set, f->path, "grew to %s; not locked past its old end: %s%s "
				       "(told once, until it changes)", bytes, why, f->over_max ? max : "");
			else
				lock_notice(set, f->path, "%s not locked: %s%s (told once, until it changes)",
				       bytes, why, f->over_max ? max : "");
		}
		if (!f->path)
			continue;
		if (f->fresh && f->addr) {
			fmt_human(bytes, f->length);
			lock_notice(set, f->path, "new; locked (%s)", bytes);
			lock_tell_change(set, f->path, "new", f->length);
			watch_dir_of(set, f->path, false);
		} else if (!f->fresh && f->addr && f->length != f->was) {
			fmt_human(bytes, f->length);
			lock_notice(set, f->path, "%s to %s; %s", f->length > f->was ? "grew" : "shrank",
			       bytes, f->length > f->was ? "locked to its new end" : "unlocked past its end");
			lock_tell_change(set, f->path, f->length > f->was ? "grew" : "shrank", f->length);
		} else if (!f->fresh && !f->addr && f->was && !f->refused && !f->yielded) {
			lock_notice(set, f->path, "shrank to nothing; unlocked");
			lock_tell_change(set, f->path, "shrank", 0);
		}
		f->fresh = false;
	}
	drop_gone(set);
	if (set->rewatch && set->inotify >= 0) {
		set->rewatch = false;
		watch_all(set);
	}
}

void lock_say_pass(struct lock_set *set, const char *why)
{
	char bytes[FMT_BUFSIZE];

	lock_notices_flush(set);
	if (set->cfg.quiet)
		return;
	fmt_human(bytes, set->locked_bytes);
	msg("--lock: %s: %zu file%s, %s locked; %" PRIu64 " change%s, %" PRIu64 " not locked "
	    "for --lock-max or the memory available\n", why, set->nlive, set->nlive == 1 ? "" : "s",
	    bytes, set->nchanges, set->nchanges == 1 ? "" : "s", set->nrefusals);
}

void lock_pass(struct lock_set *set, uint64_t budget)
{
	set->following = true;
	set->budget = budget;
	lock_follow_begin(set);
	set->again.fn(set->again.ctx);
	lock_follow_end(set);
	set->budget = UINT64_MAX;
}

bool lock_read_number(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX], text[64];

	snprintf(path, sizeof path, name ? "%s/%s" : "%s", dir, name);
	FILE *in = user_fopen_read(path);
	bool ok = in && fgets(text, sizeof text, in);
	if (in)
		fclose(in);
	if (!ok || text[0] < '0' || text[0] > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (errno || (*end && *end != '\n'))
		return false;
	*v = n;
	return true;
}

/* The figures of keys in the memory.stat of dir (0 where one is not
 * there, or the file cannot be read), read with the user's rights. */
static void stat_values(const char *dir, const char *const *keys, uint64_t *values, size_t n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/memory.stat", dir);
	FILE *in = user_fopen_read(path);
	for (size_t i = 0; i < n; i++)
		values[i] = 0;
	if (!in)
		return;
	(void)memstat_read_keys(in, keys, values, n);
	fclose(in);
}

/* The directory of this process's memory cgroup (v1's memory hierarchy,
 * else v2's), under /sys/fs/cgroup; false when there is none. */
static bool memory_cgroup(char *dir, size_t size, bool *v2)
{
	int version = 0;
	char *path = memstat_self_cgroup(&version);

	if (!path)
		return false;
	snprintf(dir, size, version == 1 ? "/sys/fs/cgroup/memory%s" : "/sys/fs/cgroup%s", path);
	*v2 = version == 2;
	free(path);
	return true;
}

bool lock_available(uint64_t *available, uint64_t *limit)
{
	uint64_t total;
	char dir[PATH_MAX];
	bool v2 = false;

	if (!meminfo_bytes("MemAvailable", available) || !meminfo_bytes("MemTotal", &total))
		return false;
	*limit = total;
	if (!memory_cgroup(dir, sizeof dir, &v2))
		return true;
	uint64_t cg_limit, usage, file;
	if (v2) {
		if (!lock_read_number(dir, "memory.max", &cg_limit) ||
		    !lock_read_number(dir, "memory.current", &usage))
			return true; /* "max": no limit */
		static const char *const keys[] = { "file", "unevictable" };
		uint64_t v[2];
		stat_values(dir, keys, v, 2);
		file = v[0] - v[1];
	} else {
		if (!lock_read_number(dir, "memory.limit_in_bytes", &cg_limit) ||
		    !lock_read_number(dir, "memory.usage_in_bytes", &usage))
			return true;
		static const char *const keys[] = { "total_active_file", "total_inactive_file" };
		uint64_t v[2];
		stat_values(dir, keys, v, 2);
		file = v[0] + v[1];
	}
	if (cg_limit >= total)
		return true; /* no limit of its own */
	*limit = cg_limit;
	/* its file pages are available as the kernel's MemAvailable counts them */
	uint64_t cg_available = cg_limit > usage ? cg_limit - usage : 0;
	cg_available += file;
	if (cg_available > cg_limit)
		cg_available = cg_limit;
	if (cg_available < *available)
		*available = cg_available;
	return true;
}

int lock_pressure_trigger(void)
{
	char dir[PATH_MAX];
	bool v2 = false;
	/* 100 ms of stall in 2 s: a window a user may set too */
	const char *trigger = "some 100000 2000000";

	if (memory_cgroup(dir, sizeof dir, &v2) && v2) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/memory.pressure", dir);
		int fd = user_psi_trigger(path, trigger);
		if (fd >= 0)
			return fd;
	}
	return user_psi_trigger("/proc/pressure/memory", trigger);
}

/* --reserve: available is below reserve: files unlocked, the last locked
 * first, until what they give back covers the difference; each told. */
static void yield(struct lock_set *set, uint64_t available, uint64_t reserve)
{
	char have[FMT_BUFSIZE], keep[FMT_BUFSIZE], bytes[FMT_BUFSIZE];
	uint64_t given = 0;

	fmt_human(have, available);
	fmt_human(keep, reserve);
	pthread_mutex_lock(&set->mutex);
	for (size_t i = set->nfiles; i-- > 0 && available + given < reserve;) {
		struct locked_file *f = &set->files[i];
		if (!f->addr)
			continue;
		size_t length = f->length;
		lock_release(set, f);
		f->yielded = true;
		given += length;
		fmt_human(bytes, length);
		lock_notice(set, f->path, "unlocked (%s): %s available, below --reserve=%s", bytes, have,
		       keep);
		lock_tell_change(set, f->path, "unlocked for --reserve", 0);
	}
	pthread_mutex_unlock(&set->mutex);
}

/* Files unlocked for --reserve wait to be locked again. */
static bool yielded(const struct lock_set *set)
{
	for (size_t i = 0; i < set->nfiles; i++)
		if (set->files[i].yielded)
			return true;
	return false;
}

/* --reserve in bytes: SIZE, or PERCENT% of limit (the memory cgroup's
 * limit, or MemTotal). */
static uint64_t reserve_bytes(const struct lock_config *cfg, uint64_t limit)
{
	if (cfg->reserve_percent > 0)
		return (uint64_t)((double)limit * cfg->reserve_percent / 100.0);
	return cfg->reserve;
}

uint64_t lock_budget(const struct lock_set *set)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return UINT64_MAX;
	uint64_t reserve = reserve_bytes(&set->cfg, limit);
	return available > reserve ? available - reserve : 0;
}

void lock_keep_reserve(struct lock_set *set)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return;
	uint64_t reserve = reserve_bytes(&set->cfg, limit);
	uint64_t margin = reserve + reserve / 4;
	if (available < reserve) {
		yield(set, available, reserve);
	} else if (available > margin && yielded(set)) {
		lock_pass(set, available - margin);
	}
}

int lock_plan(const struct lock_set *set, uint64_t pinned, uint64_t to_read)
{
	uint64_t available, limit, reserve = 0;

	if (set->cfg.max && pinned > set->cfg.max)
		pinned = set->cfg.max;
	if (!lock_available(&available, &limit))
		return STATUS_OK;
	reserve = reserve_bytes(&set->cfg, limit);
	if (pinned <= available && available - pinned >= reserve)
		return STATUS_OK;
	char need[FMT_BUFSIZE], read[FMT_BUFSIZE], have[FMT_BUFSIZE], keep[FMT_BUFSIZE];
	fmt_human(need, pinned);
	fmt_human(read, to_read);
	fmt_human(have, available);
	fmt_human(keep, reserve);
	msg("--lock: %s to lock (%s of it to read), more than the %s of memory available "
	    "(MemAvailable, or the memory cgroup's)%s%s%s: nothing read or locked; %s\n",
	    need, read, have, reserve ? " less --reserve's " : "", reserve ? keep : "",
	    reserve ? " kept" : "",
	    set->cfg.snapshot
		    ? "lock from a smaller snapshot (fewer file rows, filtered with jq, say), "
		      "or up to a size with --lock-max"
		    : "lock fewer files, a part with --offset and --length, or up to a size with "
		      "--lock-max");
	return STATUS_FATAL;
}

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

void lock_set_init(struct lock_set *set, uint64_t page_size, const struct lock_config *cfg)
{
	*set = (struct lock_set){ .page_size = page_size, .cfg = *cfg, .inotify = -1, .ready = -1,
				  .budget = UINT64_MAX };
	pthread_mutex_init(&set->mutex, NULL);
}

void lock_set_free(struct lock_set *set)
{
	/* munmap unlocks too; munlock first says so where it is read */
	for (size_t i = 0; i < set->nfiles; i++) {
		if (set->files[i].addr) {
			(void)munlock(set->files[i].addr, set->files[i].length);
			(void)munmap(set->files[i].addr, set->files[i].length);
		}
		free(set->files[i].path);
	}
	free(set->files);
	devino_free(&set->watched);
	if (set->inotify >= 0)
		close(set->inotify);
	devino_free(&set->index);
	pthread_mutex_destroy(&set->mutex);
	*set = (struct lock_set){ 0 };
}

/* What stopped files from being locked, with the figures and remedies,
 * on stderr (nothing when all were). */
static void say_refused(const struct lock_set *set)
{
	if (set->memlock_files) {
		char have[FMT_BUFSIZE], left[FMT_BUFSIZE], asked[FMT_BUFSIZE], limit[FMT_BUFSIZE];
		struct rlimit rl = { 0 };
		(void)getrlimit(RLIMIT_MEMLOCK, &rl);
		fmt_human(have, set->locked_bytes);
		fmt_human(left, set->memlock_bytes);
		fmt_human(asked, set->locked_bytes + set->memlock_bytes);
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(limit, sizeof limit, "unlimited");
		else
			fmt_human(limit, (uint64_t)rl.rlim_cur);
		msg("--lock: %" PRIu64 " file%s (%s) not locked: the locked-memory limit "
		    "(RLIMIT_MEMLOCK) is %s and %s was asked (%s is locked and held); to lock "
		    "it all, raise the limit with 'ulimit -l' (KiB, or unlimited), with "
		    "LimitMEMLOCK= in a systemd unit, or run pagestat with CAP_IPC_LOCK (as root, "
		    "or AmbientCapabilities=CAP_IPC_LOCK in a unit)\n",
		    set->memlock_files, set->memlock_files > 1 ? "s" : "", left, limit, asked, have);
	}
	if (set->mapcount_files) {
		msg("--lock: %" PRIu64 " file%s not locked: the process has %" PRIu64 " mappings, "
		    "and the sysctl vm.max_map_count allows %" PRIu64 " (each file locked is one); "
		    "raise it (sysctl -w vm.max_map_count=N) or lock fewer files\n",
		    set->mapcount_files, set->mapcount_files > 1 ? "s" : "", set->map_count,
		    set->max_map_count);
	}
}

/* What --lock-max left out, on stderr, if anything. */
static void say_left_out(const struct lock_set *set)
{
	char bytes[FMT_BUFSIZE], have[FMT_BUFSIZE];

	if (!set->left_files)
		return;
	fmt_human(bytes, set->left_bytes);
	fmt_human(have, set->locked_bytes);
	msg("--lock-max=%s: %" PRIu64 " file%s (%s) left out, the last in walk order (their rows "
	    "show 0 locked); %s is locked\n",
	    set->cfg.max_arg, set->left_files, set->left_files > 1 ? "s" : "", bytes, have);
}

/* The line that says the run now holds: files, bytes, pid (unless -q);
 * and to systemd, READY=1 and the same as STATUS=. */
static void say_holding(const struct lock_set *set)
{
	char bytes[FMT_BUFSIZE], state[128];

	fmt_human(bytes, set->locked_bytes);
	snprintf(state, sizeof state, "READY=1\nSTATUS=%zu file%s, %s locked: holding", set->nlive,
		 set->nlive == 1 ? "" : "s", bytes);
	lock_notify(state);
	if (set->cfg.quiet)
		return;
	msg("--lock: %zu file%s, %" PRIu64 " bytes (%s) locked by pid %ld: holding until SIGINT "
	    "or SIGTERM\n",
	    set->nlive, set->nlive == 1 ? "" : "s", set->locked_bytes, bytes, (long)getpid());
}

/* What the first pass left is out: what was not locked and why, then the
 * line that says it holds.  False when nothing is held. */
static bool say_locked(struct lock_set *set)
{
	say_refused(set);
	if (!set->cfg.quiet)
		say_left_out(set);
	if (set->nlive == 0) {
		if (!set->cfg.quiet)
			msg("--lock: nothing locked, nothing to hold\n");
		return false;
	}
	/* the rows reach their reader before the hold */
	(void)fflush(stdout);
	say_holding(set);
	return true;
}

/* Held: hold until SIGINT or SIGTERM (signals.c: the first ends the run,
 * the locks released as it ends), following the files unless
 * --no-follow. */
static void hold(struct lock_set *set)
{
	sigset_t stop, was;
	int changes = -1;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &was);
	signals_hup_rewalks();
	if (!set->cfg.no_follow && !set->cfg.pids && !set->cfg.snapshot)
		changes = lock_follow_start(set);
	/* --warm-from: no walk to follow or go again (its "-" is read) */
	if (set->cfg.snapshot && !set->cfg.quiet)
		msg("--lock: --warm-from: the snapshot's files are not followed (as with "
		    "--no-follow); SIGHUP does nothing\n");
	bool hup_told = false;
	/* --reserve: the memory looked at each second, and at once when the
	 * kernel says tasks stall on memory (its pressure trigger) */
	bool reserving = set->cfg.reserve || set->cfg.reserve_percent > 0;
	struct timespec tick = { 1, 0 };
	struct pollfd pfd[2] = {
		{ .fd = changes, .events = POLLIN },
		{ .fd = reserving ? lock_pressure_trigger() : -1, .events = POLLPRI },
	};
	while (!signals_stop_requested()) {
		/* a negative fd is left out by poll */
		/* a second at most while changes wait to be counted */
		bool due = lock_notices_due(set);
		int ready = ppoll(pfd, 2, reserving || due ? &tick : NULL, &was);
		if (signals_stop_requested())
			break;
		bool hup = signals_take_hup();
		if (hup && set->cfg.snapshot) {
			if (!set->cfg.quiet && !hup_told)
				msg("--lock: SIGHUP: --warm-from has no walk to go again; the locks "
				    "are held as they are\n");
			hup_told = true;
		} else if (hup) {
			if (!set->cfg.quiet)
				msg("--lock: SIGHUP: walking the files again\n");
			lock_pass(set, lock_budget(set));
			lock_say_pass(set, "SIGHUP");
		} else if (ready > 0 && (pfd[0].revents & POLLIN)) {
			lock_pass(set, lock_budget(set));
		} else if (ready == 0) {
			lock_notices_flush(set); /* their second is over */
		}
		if (reserving)
			lock_keep_reserve(set);
	}
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void lock_sample_begin(struct lock_set *set, bool first)
{
	if (first || set->cfg.no_follow)
		return;
	set->following = true;
	set->budget = lock_budget(set);
	lock_follow_begin(set);
}

bool lock_sample_end(struct lock_set *set, bool first, bool fatal)
{
	if (!first && !set->cfg.no_follow) {
		lock_follow_end(set);
		lock_notices_flush(set);
		set->budget = UINT64_MAX;
	}
	return fatal || !first || say_locked(set);
}

int lock_run(struct lock_set *set, int status, struct lock_walk again)
{
	if (status == STATUS_FATAL || !say_locked(set))
		return status;
	struct user_pidfile pidfile = { .dirfd = -1 };
	set->again = again;
	if (!set->cfg.daemon || lock_daemon_ready(set, &pidfile, status)) {
		hold(set);
		lock_notify("STOPPING=1\nSTATUS=unlocking");
	} else {
		status = STATUS_FATAL;
	}
	/* through the directory it was written in, if still the file */
	user_pidfile_remove(&pidfile);
	return status;
}
