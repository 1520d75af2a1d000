/* SPDX-License-Identifier: MIT */
/* Acting on the cache (--evict, --warm, --warm-from): each file opened
 * again with the user's own rights, acted on, then measured. */
#include <config.h>

#include "act/action.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kernel/caps.h"
#include "act/lock.h"
#include "lib/progress.h"
#include "kernel/safeopen.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* Bytes read at a time.  Where readahead may run (a range to the end of
 * the file), reads of 256 KiB let it build the large folios that cat
 * gets (bench/README.md: 1 MiB reads with readahead off and WILLNEED
 * ahead cached the file in 4 KiB folios, 1.4 x cat's time).  Where
 * nothing past the extents may be read, readahead is off and the chunks
 * are 1 MiB, the next asked for (WILLNEED) while one is read. */
#define CHUNK ((uint64_t)1 << 20)
#define CHUNK_READAHEAD ((uint64_t)256 << 10)

void rate_limit_init(struct rate_limit *limit, uint64_t bytes_per_second)
{
	*limit = (struct rate_limit){ .rate = bytes_per_second };
	pthread_mutex_init(&limit->lock, NULL);
}

void rate_limit_free(struct rate_limit *limit)
{
	pthread_mutex_destroy(&limit->lock);
}

void actor_init(struct actor *a, struct rate_limit *limit)
{
	*a = (struct actor){ .limit = limit && limit->rate ? limit : NULL };
}

void actor_free(struct actor *a)
{
	probe_detail_free(&a->missing);
	free(a->buffer);
	free(a->wanted);
	sb_free(&a->backing);
	*a = (struct actor){ 0 };
}

static void add_ns(struct timespec *t, uint64_t ns)
{
	ns += (uint64_t)t->tv_nsec;
	t->tv_sec += (time_t)(ns / 1000000000u);
	t->tv_nsec = (long)(ns % 1000000000u);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* --rate: wait until bytes more may be read.  The chunks of every thread
 * are given turns spaced by their size over the rate, the first at once. */
static void rate_take(struct rate_limit *limit, uint64_t bytes)
{
	if (!limit)
		return;
	struct timespec now, start;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&limit->lock);
	if (before(&limit->next, &now))
		limit->next = now;
	start = limit->next;
	add_ns(&limit->next, (uint64_t)((double)bytes * 1e9 / (double)limit->rate));
	pthread_mutex_unlock(&limit->lock);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &start, NULL) == EINTR)
		;
}

/* The chunk size: with --rate, about a quarter of a second's worth (whole
 * pages), so that the pace is even; at most CHUNK. */
static uint64_t chunk_size(const struct actor *a, uint64_t page)
{
	uint64_t chunk = a->limit ? a->limit->rate / 4 / page * page : CHUNK;
	if (chunk < page)
		chunk = page;
	return chunk < CHUNK ? chunk : CHUNK;
}

/* Can the user search every directory from dir (a descriptor, or
 * AT_FDCWD) up to the root?  The lookup of ".." in a directory needs its
 * search permission, so that climbing with the user's rights checks the
 * very directories a lookup of the file's path from / would, whatever
 * the length of that path.  0, or an errno value. */
static int user_searches_up(int dir)
{
	struct stat below, above;
	int fd = dir, err = 0;

	if (fstatat(dir, "", &below, AT_EMPTY_PATH) != 0)
		return errno;
	for (;;) {
		int up = user_openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (up < 0) {
			err = errno;
			break;
		}
		if (fd != dir)
			close(fd);
		fd = up;
		if (fstat(up, &above) != 0) {
			err = errno;
			break;
		}
		if (above.st_dev == below.st_dev && above.st_ino == below.st_ino)
			break; /* the root: its ".." is itself */
		below = above;
	}
	if (fd != dir)
		close(fd);
	return err;
}

/* The file again, with the user's own rights: the same file (the same
 * open file's inode), or FAIL_CHANGED; -1 with *err set on failure.
 * where: how the inspection reached it (a walk's directory and name), or
 * NULL. */
static int reopen_as_user(struct prober *p, int fd, const struct stat *st,
			  const struct file_ref *where, int *err)
{
	char path[64], name[PATH_MAX];
	struct stat ust;
	/* the /proc link leads to the open file itself */
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = path, .follow = true,
				.id = file_ident_of(st) };

	snprintf(path, sizeof path, "/proc/thread-self/fd/%d", fd);
	if (caps_borrowed()) {
		/* Opening /proc/thread-self/fd/N checks the file's own mode
		 * only, not the directories above it, which the inspection
		 * passed with the file's capabilities: a 0644 file in a 0700
		 * directory of another user would be acted on.  The file is
		 * opened by its name instead, every directory of it searched
		 * with the user's rights (and the same file or nothing, as
		 * safe_open checks). */
		ssize_t n = readlink(path, name, sizeof name);
		bool too_long = n < 0 ? errno == ENAMETOOLONG : (size_t)n >= sizeof name;
		if (too_long && where) {
			/* A path longer than PATH_MAX, which no lookup takes:
			 * the walk's directory and name instead, once every
			 * directory above is known to be searchable by the
			 * user; the lookup of the name checks the rest. */
			int e = where->name[0] == '/' ? 0 : user_searches_up(where->dirfd);
			if (e) {
				*err = e;
				return -1;
			}
			ref.dirfd = where->dirfd;
			ref.name = where->name;
			ref.follow = where->follow;
			return user_safe_open(&p->opener, &ref, &ust, err);
		}
		if (n < 0 || too_long || name[0] != '/') {
			*err = n < 0 ? errno : too_long ? ENAMETOOLONG : FAIL_CHANGED;
			return -1;
		}
		name[n] = '\0';
		ref.name = name;
		ref.follow = false;
	}
	return user_safe_open(&p->opener, &ref, &ust, err);
}

/* Pages of the extent [offset, offset + length). */
static uint64_t extent_pages(uint64_t offset, uint64_t length, uint64_t page)
{
	return length ? (offset + length - 1) / page - offset / page + 1 : 0;
}

/* Read [offset, offset + length) of fd, a chunk at a time, pace asked
 * before each; exact: the next asked for ahead (readahead is off).
 * Stops early at the end of the file.  0 or an errno value. */
static int read_extent(struct actor *a, const struct pace *pace, uint64_t page, int fd,
		       uint64_t offset, uint64_t length, bool exact)
{
	uint64_t chunk = exact ? chunk_size(a, page) : CHUNK_READAHEAD;

	/* page-aligned: the kernel's copy into a buffer 16 bytes past a page
	 * boundary (what malloc gives) made a warm 1.6 to 2.6 times cat */
	if (!a->buffer)
		a->buffer = xaligned((size_t)page, CHUNK);
	while (length) {
		uint64_t n = length < chunk ? length : chunk;
		if (pace_stops(pace, n))
			return ECANCELED;
		uint64_t rest = length - n;
		rate_take(a->limit, n);
		if (rest && exact)
			(void)posix_fadvise(fd, (off_t)(offset + n), (off_t)(rest < chunk ? rest : chunk),
					    POSIX_FADV_WILLNEED);
		ssize_t got = pread(fd, a->buffer, n, (off_t)offset);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (got == 0)
			break; /* the file shrank */
		progress_read((uint64_t)got);
		offset += (uint64_t)got;
		length -= (uint64_t)got;
	}
	return 0;
}

/* Read the extents given, which are within the file's first 2^63 bytes;
 * *pages: the pages they touch.  exact: no page outside them may be
 * read, so readahead is off (POSIX_FADV_RANDOM, on this open file only);
 * else they are the missing pages up to the end of the file, where
 * whatever readahead brings is among them. */
static int read_extents(struct actor *a, const struct pace *pace, uint64_t page, int fd,
			const struct extent *ext, size_t n, bool exact, uint64_t *pages)
{
	int err = 0;

	if (exact)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	*pages = 0;
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t length = ext[i].length;
		if (ext[i].offset > INT64_MAX)
			continue;
		if (length > INT64_MAX - ext[i].offset)
			length = INT64_MAX - ext[i].offset;
		err = read_extent(a, pace, page, fd, ext[i].offset, length, exact);
		*pages += extent_pages(ext[i].offset, length, page);
	}
	return err;
}

/* The parts of the listed extents (sorted, apart) that are in the
 * missing ones (sorted, apart), into a->wanted; their number. */
static size_t intersect(struct actor *a, const struct extent *listed, size_t nlisted,
			const struct extent *miss, size_t nmiss)
{
	size_t n = 0, i = 0, j = 0;

	while (i < nlisted && j < nmiss) {
		uint64_t a_end = listed[i].offset + listed[i].length;
		uint64_t b_end = miss[j].offset + miss[j].length;
		uint64_t start = listed[i].offset > miss[j].offset ? listed[i].offset : miss[j].offset;
		uint64_t end = a_end < b_end ? a_end : b_end;
		if (start < end) {
			XGROW(a->wanted, a->wanted_cap, n + 1);
			a->wanted[n++] = (struct extent){ start, end - start };
		}
		if (a_end < b_end)
			i++;
		else
			j++;
	}
	return n;
}

/* --evict: POSIX_FADV_DONTNEED over the pages the range touches (the
 * kernel drops only the pages wholly inside what it is given). */
static int evict(int fd, const struct probe_range *range, uint64_t page)
{
	uint64_t start = range->offset / page * page, end = 0;

	if (start > INT64_MAX)
		return 0; /* no file reaches there */
	if (range->length && !__builtin_add_overflow(range->offset, range->length, &end)) {
		end = (end + page - 1) / page * page;
		if (end < range->offset || end > INT64_MAX)
			end = 0; /* to the end */
	}
	return posix_fadvise(fd, (off_t)start, end ? (off_t)(end - start) : 0,
			     POSIX_FADV_DONTNEED);
}

/* May readahead run, in a --warm of this range?  When the range goes to
 * the end of the file, and no --rate paces the reads (readahead would
 * read megabytes ahead of the pace). */
static bool warm_to_end(const struct actor *a, const struct stat *st,
			const struct probe_range *range)
{
	uint64_t end;

	if (a->limit || !S_ISREG(st->st_mode))
		return false;
	return !range->length ||
	       __builtin_add_overflow(range->offset, range->length, &end) ||
	       end >= (uint64_t)st->st_size;
}

/* --lock's pace: --rate's turn for each chunk faulted in. */
static bool lock_pace(void *ctx, uint64_t bytes)
{
	struct actor *a = ctx;
	rate_take(a->limit, bytes);
	return false;
}

/* The action on ufd (the user's open file); fd and st: the inspection's. */
static int act(struct actor *a, struct prober *p, int fd, int ufd, const struct stat *st,
	       const struct file_request *req, uint64_t *did, uint64_t *locked)
{
	const struct probe_range *range = &req->measure.range;
	struct probe_request plain = { .range = *range };
	struct probe_out was = { .backing = a->backing };
	uint64_t page = p->setup->page_size;
	int err;

	switch (req->action) {
	case ACTION_EVICT:
		err = probe_measure(p, fd, st, &plain, &was);
		if (err == 0)
			err = evict(ufd, range, page);
		*did = was.stat.cached; /* less the pages still cached: by the caller */
		break;
	case ACTION_WARM:
	case ACTION_LISTED:
		/* what is cached is never read again */
		plain.extents = EXTENTS_MISSING;
		was.detail = &a->missing;
		err = probe_measure(p, fd, st, &plain, &was);
		if (err)
			break;
		if (req->action == ACTION_WARM) {
			err = read_extents(a, &req->pace, page, ufd, a->missing.extent,
					   a->missing.nextents, !warm_to_end(a, st, range), did);
			break;
		}
		size_t n = intersect(a, req->listed, req->nlisted, a->missing.extent,
				     a->missing.nextents);
		err = read_extents(a, &req->pace, page, ufd, a->wanted, n, true, did);
		break;
	case ACTION_LOCK:
		/* --warm-from: the span of the extents listed, from the first's
		 * start to the last's end */
		if (req->nlisted) {
			const struct extent *last = &req->listed[req->nlisted - 1];
			plain.range.offset = req->listed[0].offset;
			plain.range.length = last->offset + last->length - plain.range.offset;
		}
		/* the missing pages are faulted in first, read once each */
		plain.extents = EXTENTS_MISSING;
		was.detail = &a->missing;
		err = probe_measure(p, fd, st, &plain, &was);
		if (err == 0)
			err = lock_file(req->locks, ufd, st, &plain.range, a->missing.extent,
					a->missing.nextents, &(struct pace){ .fn = lock_pace, .ctx = a },
					locked, did);
		break;
	default:
		err = 0;
		break;
	}
	a->backing = was.backing; /* its buffer, kept for the next file */
	return err;
}

int action_fd(struct actor *a, struct prober *p, int fd, const struct stat *st,
	      const struct file_ref *where, const struct file_request *req, struct probe_out *out)
{
	int err;
	int ufd = reopen_as_user(p, fd, st, where, &err);
	if (ufd < 0)
		return err;

	uint64_t did = 0, locked = 0;
	err = act(a, p, fd, ufd, st, req, &did, &locked);
	close(ufd); /* a lock's mapping holds the file */
	if (err == 0)
		err = probe_measure(p, fd, st, &req->measure, out);
	if (err)
		return err;
	if (req->action == ACTION_EVICT)
		out->stat.dropped = did > out->stat.cached ? did - out->stat.cached : 0;
	else
		out->stat.read = did;
	out->stat.locked = locked;
	return 0;
}
