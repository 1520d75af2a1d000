/* SPDX-License-Identifier: MIT */
/* --lock, one file: its range mapped from the user's own open, mlock2'd
 * on fault, its missing pages faulted in once (paced for --rate), the
 * rest mapped; recorded in the set by (device, inode), or left out for
 * --lock-max or a pass's budget, or refused (RLIMIT_MEMLOCK,
 * vm.max_map_count). */
#include <config.h>

#include "act/lock.h"
#include "act/lock_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/memstat.h"
#include "lib/fail.h"
#include "lib/msg.h"
#include "lib/progress.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

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

	return memstat_read_number(path, NULL, &v) ? v : 0;
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
	struct pace pace;
};

/* Fault in [from, to) of the mapping (offsets in it), each page mapped
 * and so locked; a page not cached is read, once. */
static int populate(char *addr, uint64_t from, uint64_t to, const struct reading *r)
{
	bool paced = r->paced;

	while (from < to) {
		uint64_t n = to - from < LOCK_CHUNK ? to - from : LOCK_CHUNK;
		if (paced && pace_stops(&r->pace, n))
			return ECANCELED;
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

/* [start, start + length) of fd mapped into *addr and locked on fault:
 * 0, or why not (RLIMIT_MEMLOCK's and vm.max_map_count's refusals
 * counted for the message at the end). */
static int map_locked(struct lock_set *set, int fd, uint64_t start, size_t length, char **addr)
{
	*addr = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (*addr == MAP_FAILED)
		return map_failed(set, errno);
	/* locked before anything is read: each page is locked as it comes */
	if (mlock2(*addr, length, MLOCK_ONFAULT) != 0) {
		int err = errno;
		munmap(*addr, length);
		if (err != ENOMEM && err != EPERM)
			return err;
		pthread_mutex_lock(&set->mutex);
		set->memlock_files++;
		set->memlock_bytes += length;
		pthread_mutex_unlock(&set->mutex);
		return FAIL_MEMLOCK;
	}
	return 0;
}

/* The mapping at addr (length bytes of the file from r->start, to end,
 * in pages of page bytes) faulted in: the missing extents first, paced
 * (*read: their pages), then the rest.  0, or an errno value. */
static int fault_in(char *addr, size_t length, uint64_t end, uint64_t page,
		    const struct extent *missing, size_t nmissing, struct reading *r, uint64_t *read)
{
	uint64_t start = r->start;
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
			err = populate(addr, from - start, to - start, r);
			*read += (to - from) / page;
		}
	}
	/* then the rest, cached already: mapped, so locked, nothing read */
	r->paced = false;
	if (!err)
		err = populate(addr, 0, length, r);
	return err;
}

int lock_file(struct lock_set *set, int fd, const struct stat *st,
	      const struct probe_range *range, const struct extent *missing, size_t nmissing,
	      const struct pace *pace, uint64_t *pages, uint64_t *read)
{
	uint64_t page = set->page_size, size = (uint64_t)st->st_size, end = size;
	char *addr;

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
	int err = map_locked(set, fd, start, length, &addr);
	if (err)
		return err;
	struct reading r = { .fd = fd,
			     .start = start,
			     .pace = pace ? *pace : (struct pace){ 0 },
			     .paced = true,
			     .exact = start > 0 || end < size };
	if (r.exact)
		(void)madvise(addr, length, MADV_RANDOM);
	err = fault_in(addr, length, end, page, missing, nmissing, &r, read);
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
