/* One file -> struct pagecache_stat: open, check, cachestat or mincore. */
#include <config.h>

#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "compat/cachestat.h"

/* mincore maps this many bytes at a time, so memory stays bounded on huge
 * files: the residency vector is one byte per page of one window. */
#define MINCORE_WINDOW ((uint64_t)256 << 20)

static enum probe_method chosen = PROBE_CACHESTAT;
static int fallback_errno;
static uint64_t page_size;
static unsigned char *mincore_vec;

static int sys_cachestat(int fd, uint64_t off, uint64_t len, struct cachestat *cs)
{
	struct cachestat_range range = { .off = off, .len = len };

	return (int)syscall(__NR_cachestat, (unsigned)fd, &range, cs, 0u);
}

/* A small file of our own: a memfd, or an unlinked temporary file where
 * memfd_create is missing or filtered. */
static int scratch_file(void)
{
	int fd = -1;
#ifdef HAVE_MEMFD_CREATE
	fd = memfd_create("pagestat-probe", MFD_CLOEXEC);
#endif
	if (fd < 0) {
		FILE *f = tmpfile();
		if (f) {
			fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 0);
			fclose(f);
		}
	}
	if (fd >= 0) {
		char page[64] = "pagestat";
		if (write(fd, page, sizeof page) != (ssize_t)sizeof page) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

static int try_cachestat(int fd)
{
	struct cachestat cs;

	return sys_cachestat(fd, 0, 0, &cs) == 0 ? 0 : errno;
}

static int try_mincore(int fd)
{
	void *map = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return errno;
	unsigned char vec;
	int err = mincore(map, page_size, &vec) == 0 ? 0 : errno;
	munmap(map, page_size);
	return err;
}

int probe_init(enum probe_method want, const char **why)
{
	page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	*why = NULL;

	int fd = scratch_file();
	if (fd < 0) {
		*why = "cannot create a scratch file to test the kernel";
		return errno;
	}

	int err = 0;
	if (want != PROBE_MINCORE) {
		err = try_cachestat(fd);
		if (err == 0) {
			chosen = PROBE_CACHESTAT;
		} else if (want == PROBE_CACHESTAT) {
			*why = "cachestat(2) is not usable here (it needs Linux 6.5 or later)";
		} else {
			fallback_errno = err;
			want = PROBE_MINCORE;
		}
	}
	if (want == PROBE_MINCORE) {
		err = try_mincore(fd);
		if (err == 0) {
			chosen = PROBE_MINCORE;
			mincore_vec = malloc(MINCORE_WINDOW / page_size);
			if (!mincore_vec)
				err = ENOMEM;
		}
		if (err)
			*why = fallback_errno ? "neither cachestat(2) nor mincore(2) is usable here"
					      : "mincore(2) is not usable here";
	}
	close(fd);
	return err;
}

enum probe_method probe_method(void)
{
	return chosen;
}

const char *probe_method_name(enum probe_method method)
{
	switch (method) {
	case PROBE_AUTO:
		return "auto";
	case PROBE_CACHESTAT:
		return "cachestat";
	case PROBE_MINCORE:
		return "mincore";
	}
	return "?";
}

int probe_fallback_errno(void)
{
	return fallback_errno;
}

unsigned probe_known(void)
{
	return chosen == PROBE_CACHESTAT ? PCS_ALL : PCS_CACHED;
}

uint64_t probe_page_size(void)
{
	return page_size;
}

/* Since Linux 5.0 mincore() does not fail for a file the caller neither
 * owns nor may write: it reports every page resident.  Refuse it here as
 * cachestat does, so that a made-up figure is never shown. */
static bool mincore_allowed(int fd, const struct stat *st)
{
	return st->st_uid == geteuid() || caps_have_fowner() ||
	       faccessat(fd, "", W_OK, AT_EMPTY_PATH | AT_EACCESS) == 0;
}

static int measure_mincore(int fd, uint64_t first_page, uint64_t end_page,
			   uint64_t *cached)
{
	*cached = 0;
	for (uint64_t page = first_page; page < end_page;) {
		uint64_t count = end_page - page;
		if (count > MINCORE_WINDOW / page_size)
			count = MINCORE_WINDOW / page_size;
		size_t len = (size_t)(count * page_size);
		void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
				 (off_t)(page * page_size));
		if (map == MAP_FAILED)
			return errno;
		int err = mincore(map, len, mincore_vec) == 0 ? 0 : errno;
		munmap(map, len);
		if (err)
			return err;
		for (uint64_t i = 0; i < count; i++)
			*cached += mincore_vec[i] & 1;
		page += count;
	}
	return 0;
}

static int file_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISBLK(st->st_mode))
		return ioctl(fd, BLKGETSIZE64, size) == 0 ? 0 : errno;
	*size = (uint64_t)st->st_size;
	return 0;
}

int probe_fd(int fd, const struct stat *st, const struct probe_range *range,
	     struct pagecache_stat *out)
{
	uint64_t size;
	int err = file_size(fd, st, &size);
	if (err)
		return err;

	/* Clip the range to the file: an offset past the end is empty. */
	uint64_t start = range->offset < size ? range->offset : size;
	uint64_t end = size;
	if (range->length && range->length < end - start)
		end = start + range->length;

	memset(out, 0, sizeof *out);
	out->known = probe_known();
	out->size = end - start;
	if (start == end)
		return 0;

	uint64_t first_page = start / page_size;
	uint64_t end_page = (end - 1) / page_size + 1;
	out->pages = end_page - first_page;

	if (chosen == PROBE_MINCORE) {
		if (!mincore_allowed(fd, st))
			return PROBE_EREFUSED;
		return measure_mincore(fd, first_page, end_page, &out->cached);
	}

	struct cachestat cs;
	/* The exact length, not 0 ("to the end"): pages appended since the
	 * fstat would otherwise be counted against the smaller size. */
	if (sys_cachestat(fd, start, end - start, &cs) != 0)
		return errno == EPERM ? PROBE_EREFUSED : errno;
	out->cached = cs.nr_cache;
	out->dirty = cs.nr_dirty;
	out->writeback = cs.nr_writeback;
	out->evicted = cs.nr_evicted;
	out->recently_evicted = cs.nr_recently_evicted;
	return 0;
}

int probe_path(const char *path, const struct stat *seen, bool follow,
	       const struct probe_range *range, struct pagecache_stat *out)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	if (!follow)
		flags |= O_NOFOLLOW;

	int fd = open(path, flags);
	if (fd < 0)
		return errno == ELOOP && !follow ? PROBE_ECHANGED : errno;

	struct stat st;
	int err = 0;
	if (fstat(fd, &st) != 0)
		err = errno;
	else if (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)
		err = PROBE_ECHANGED;
	else
		err = probe_fd(fd, &st, range, out);
	close(fd);
	return err;
}

const char *probe_strerror(int err)
{
	switch (err) {
	case PROBE_ECHANGED:
		return "changed during walk";
	case PROBE_ENOTREG:
		return "not a regular file";
	case PROBE_ECYCLE:
		return "directory cycle: not followed";
	case PROBE_EREFUSED:
		return strerror(EPERM);
	default:
		return strerror(err);
	}
}

const char *probe_errname(int err)
{
	if (err == PROBE_EREFUSED)
		err = EPERM;
	if (err <= 0)
		return NULL;
#ifdef HAVE_STRERRORNAME_NP
	const char *name = strerrorname_np(err);
	if (name)
		return name;
#endif
	static char buf[16];
	snprintf(buf, sizeof buf, "E%d", err);
	return buf;
}
