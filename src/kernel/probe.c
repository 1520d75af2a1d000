/* SPDX-License-Identifier: MIT */
/* One open file -> struct pagecache_stat: cachestat or mincore, ranges,
 * segments, extents, overlayfs's backing files. */
#include <config.h>

#include "kernel/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kernel/caps.h"
#include "kernel/charge.h"
#include "compat/cachestat.h"
#include "kernel/overlay.h"
#include "kernel/safeopen.h"
#include "lib/strbuf.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* mincore maps this many bytes at a time, so memory stays bounded on huge
 * files: the residency vector is one byte per page of one window. */
#define MINCORE_WINDOW ((uint64_t)256 << 20)

/* Overlays whose lower layer is on overlayfs are followed this deep. */
#define OVERLAY_DEPTH 4

/* The backing file was not found: the overlay file is measured itself. */
#define NO_BACKING (-100)

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
	if (fd < 0)
		fd = user_tmpfile("/tmp");
	if (fd >= 0) {
		char page[64] = "pagestat";
		if (write(fd, page, sizeof page) != (ssize_t)sizeof page) {
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

/* Is cachestat there, and let through?  Asked of no descriptor (-1):
 * the kernel's cachestat answers EBADF before anything else, while a
 * kernel without it (ENOSYS) or a seccomp filter (ENOSYS, EPERM) answers
 * before it; no file is made to ask. */
static int try_cachestat(void)
{
	struct cachestat cs;

	if (sys_cachestat(-1, 0, 0, &cs) == 0)
		return 0; /* no kernel does, but then it is there */
	return errno == EBADF ? 0 : errno;
}

static int try_mincore(int fd, uint64_t page_size)
{
	void *map = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return errno;
	unsigned char vec;
	int err = mincore(map, page_size, &vec) == 0 ? 0 : errno;
	munmap(map, page_size);
	return err;
}

int probe_init(enum probe_method want, struct probe_setup *setup, const char **why)
{
	*setup = (struct probe_setup){
		.method = PROBE_CACHESTAT,
		.page_size = (uint64_t)sysconf(_SC_PAGESIZE),
		.fowner = caps_have_fowner(),
		.overlays = overlays_new(),
	};
	*why = NULL;

	if (want != PROBE_MINCORE) {
		int err = try_cachestat();
		if (err == 0)
			return 0;
		if (want == PROBE_CACHESTAT) {
			*why = "cachestat(2) is not usable here (it needs Linux 6.5 or later)";
			return err;
		}
		setup->fallback_errno = err;
	}
	/* mincore is tried on a file of its own */
	int fd = scratch_file();
	if (fd < 0) {
		*why = "cannot create a scratch file to test the kernel";
		return errno;
	}
	int err = try_mincore(fd, setup->page_size);
	if (err == 0)
		setup->method = PROBE_MINCORE;
	else
		*why = setup->fallback_errno ? "neither cachestat(2) nor mincore(2) is usable here"
					     : "mincore(2) is not usable here";
	close(fd);
	return err;
}

void probe_setup_free(struct probe_setup *setup)
{
	overlays_free(setup->overlays);
	setup->overlays = NULL;
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

unsigned probe_known(const struct probe_setup *setup)
{
	return setup->method == PROBE_CACHESTAT ? PCS_ALL : PCS_CACHED;
}

void prober_init(struct prober *p, const struct probe_setup *setup)
{
	*p = (struct prober){
		.setup = setup,
		.opener = OPENER_INIT,
		.fs_seen = { { 0, -1 }, { 0, -1 } },
	};
}

void prober_free(struct prober *p)
{
	opener_close(&p->opener);
	free(p->mincore_vec);
	p->mincore_vec = NULL;
}

void probe_out_free(struct probe_out *out)
{
	sb_free(&out->backing);
}

/* Since 2019 (Linux 5.2 and the stable kernels then) mincore() does not
 * fail for a file the caller neither owns nor may write: it reports every
 * page resident.  Refuse it here as
 * cachestat does, so that a made-up figure is never shown. */
static bool mincore_allowed(const struct prober *p, int fd, const struct stat *st)
{
	return st->st_uid == geteuid() || p->setup->fowner ||
	       faccessat(fd, "", W_OK, AT_EMPTY_PATH | AT_EACCESS) == 0;
}

/* The file being measured, as the measuring functions share it. */
struct measure {
	struct prober *p;
	uint64_t page; /* the page size */
	int fd;
	/* the chosen method, or mincore for an overlay file whose backing
	 * file was not found */
	enum probe_method method;
	uint64_t start, end;           /* the range clipped to the file, in bytes */
	uint64_t first_page, end_page; /* the pages it touches */
};

/* Appends the pages [first, end) to the runs in detail, merging it with
 * the last run when they touch.  Runs are in pages until finish_extents. */
static void add_run(struct probe_detail *detail, uint64_t first, uint64_t end)
{
	if (detail->nextents > 0) {
		struct extent *last = &detail->extent[detail->nextents - 1];
		if (last->offset + last->length == first) {
			last->length += end - first;
			return;
		}
	}
	/* one spare: finish_extents may need it */
	XGROW(detail->extent, detail->extents_cap, detail->nextents + 2);
	detail->extent[detail->nextents++] = (struct extent){ first, end - first };
}

/* Cached pages in [first_page, end_page) by mincore, a window at a time;
 * with runs, the cached runs are appended to it too. */
static int measure_mincore(const struct measure *m, uint64_t first_page, uint64_t end_page,
			   uint64_t *cached, struct probe_detail *runs)
{
	*cached = 0;
	if (!m->p->mincore_vec)
		m->p->mincore_vec = xrealloc(NULL, MINCORE_WINDOW / m->page);
	for (uint64_t page = first_page; page < end_page;) {
		uint64_t count = end_page - page;
		if (count > MINCORE_WINDOW / m->page)
			count = MINCORE_WINDOW / m->page;
		size_t len = (size_t)(count * m->page);
		void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, m->fd,
				 (off_t)(page * m->page));
		if (map == MAP_FAILED)
			return errno;
		int err = mincore(map, len, m->p->mincore_vec) == 0 ? 0 : errno;
		munmap(map, len);
		if (err)
			return err;
		for (uint64_t i = 0; i < count; i++) {
			if (!(m->p->mincore_vec[i] & 1))
				continue;
			*cached += 1;
			if (runs)
				add_run(runs, page + i, page + i + 1);
		}
		page += count;
	}
	return 0;
}

/* Cached pages in [first_page, end_page), by the file's method. */
static int count_cached(const struct measure *m, uint64_t first_page, uint64_t end_page,
			uint64_t *cached)
{
	if (m->method == PROBE_MINCORE)
		return measure_mincore(m, first_page, end_page, cached, NULL);

	struct cachestat cs;
	if (sys_cachestat(m->fd, first_page * m->page, (end_page - first_page) * m->page,
			  &cs) != 0)
		return errno == EPERM ? FAIL_REFUSED : errno;
	*cached = cs.nr_cache;
	return 0;
}

/* The cached runs of [first, end), of which `cached` pages are cached:
 * halve the range until each part is wholly cached or wholly not, so the
 * calls grow with the number of runs, not with the size of the range.
 * The right half's count is what the left half leaves. */
static int bisect_cached(const struct measure *m, uint64_t first, uint64_t end,
			 uint64_t cached, struct probe_detail *detail)
{
	if (cached == 0)
		return 0;
	if (cached >= end - first) {
		add_run(detail, first, end);
		return 0;
	}
	uint64_t mid = first + (end - first) / 2, left = 0;
	int err = count_cached(m, first, mid, &left);
	if (err)
		return err;
	if (left > mid - first)
		left = mid - first;
	err = bisect_cached(m, first, mid, left, detail);
	if (err)
		return err;
	return bisect_cached(m, mid, end, cached > left ? cached - left : 0, detail);
}

/* The runs in detail, in pages of the file's range, become byte extents
 * of it: the runs themselves, or the gaps between them with -e missing. */
static void finish_extents(const struct measure *m, enum extent_mode mode,
			   struct probe_detail *detail)
{
	size_t n = detail->nextents;
	struct extent *v = detail->extent;

	if (mode == EXTENTS_MISSING) {
		/* gap k ends where run k starts: written at k, after run k is read */
		uint64_t from = m->first_page;
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			struct extent run = v[i];
			if (run.offset > from)
				v[k++] = (struct extent){ from, run.offset - from };
			from = run.offset + run.length;
		}
		if (from < m->end_page) {
			v = XGROW(detail->extent, detail->extents_cap, k + 1);
			v[k++] = (struct extent){ from, m->end_page - from };
		}
		n = detail->nextents = k;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = v[i].offset * m->page, hi = (v[i].offset + v[i].length) * m->page;
		if (lo < m->start)
			lo = m->start;
		if (hi > m->end)
			hi = m->end;
		v[i] = (struct extent){ lo, hi - lo };
	}
}

/* -S: nsegments parts of the file's pages, as equal as whole pages allow. */
static int measure_segments(const struct measure *m, struct probe_detail *detail)
{
	uint64_t pages = m->end_page - m->first_page, n = detail->nsegments;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = m->first_page + (uint64_t)((unsigned __int128)pages * i / n);
		uint64_t b = m->first_page + (uint64_t)((unsigned __int128)pages * (i + 1) / n);
		uint64_t lo = a * m->page < m->start ? m->start : a * m->page;
		uint64_t hi = b * m->page > m->end ? m->end : b * m->page;
		struct segment *seg = &detail->segments[i];
		*seg = (struct segment){ .offset = lo, .length = hi > lo ? hi - lo : 0,
					 .pages = b - a };
		if (a < b) {
			int err = count_cached(m, a, b, &seg->cached);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Segments and extents of a range that is not empty, `cached` pages of
 * it cached. */
static int measure_detail(const struct measure *m, enum extent_mode extents, uint64_t cached,
			  struct probe_detail *detail)
{
	int err = 0;

	if (detail->nsegments)
		err = measure_segments(m, detail);
	if (err || extents == EXTENTS_NONE)
		return err;
	if (m->method == PROBE_MINCORE)
		err = measure_mincore(m, m->first_page, m->end_page, &cached, detail);
	else
		err = bisect_cached(m, m->first_page, m->end_page, cached, detail);
	if (err == 0)
		finish_extents(m, extents, detail);
	return err;
}

/* The file system type of a file: one fstatfs for each device met, but
 * for the last two (an overlay and the file system of its layers). */
static long fs_type(struct prober *p, int fd, const struct stat *st)
{
	for (int i = 0; i < 2; i++)
		if (p->fs_seen[i].type != -1 && p->fs_seen[i].dev == st->st_dev)
			return p->fs_seen[i].type;
	struct statfs sfs;
	if (fstatfs(fd, &sfs) != 0)
		return 0;
	p->fs_seen[1] = p->fs_seen[0];
	p->fs_seen[0].dev = st->st_dev;
	p->fs_seen[0].type = (long)sfs.f_type;
	return p->fs_seen[0].type;
}

static int file_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISBLK(st->st_mode))
		return ioctl(fd, BLKGETSIZE64, size) == 0 ? 0 : errno;
	*size = (uint64_t)st->st_size;
	return 0;
}

/* The counters of the file's range, which is not empty. */
static int measure_counters(const struct measure *m, const struct stat *st,
			    struct pagecache_stat *out)
{
	if (m->method == PROBE_MINCORE) {
		if (!mincore_allowed(m->p, m->fd, st))
			return FAIL_REFUSED;
		return measure_mincore(m, m->first_page, m->end_page, &out->cached, NULL);
	}
	struct cachestat cs;
	/* The exact length, not 0 ("to the end"): pages appended since the
	 * fstat would otherwise be counted against the smaller size. */
	if (sys_cachestat(m->fd, m->start, m->end - m->start, &cs) != 0)
		return errno == EPERM ? FAIL_REFUSED
		       : errno == EOPNOTSUPP ? FAIL_HUGETLB : errno;
	out->cached = cs.nr_cache;
	out->dirty = cs.nr_dirty;
	out->writeback = cs.nr_writeback;
	out->evicted = cs.nr_evicted;
	out->recently_evicted = cs.nr_recently_evicted;
	return 0;
}

/* The request's range of the file fd (st: its fstat, size: its size) by
 * method: the counters into out->stat, segments and extents into
 * out->detail. */
static int measure_range(struct prober *p, int fd, const struct stat *st, uint64_t size,
			 enum probe_method method, const struct probe_request *req,
			 struct probe_out *out)
{
	struct measure m = { .p = p, .page = p->setup->page_size, .fd = fd, .method = method };
	struct probe_detail *detail = out->detail;
	struct pagecache_stat *stat = &out->stat;

	/* Clip the range to the file: an offset past the end is empty. */
	m.start = req->range.offset < size ? req->range.offset : size;
	m.end = size;
	if (req->range.length && req->range.length < m.end - m.start)
		m.end = m.start + req->range.length;

	stat->known = method == PROBE_CACHESTAT ? PCS_ALL : PCS_CACHED;
	stat->size = m.end - m.start;
	if (detail) {
		detail->nextents = 0;
		detail->nsegments = req->segments;
		if (req->segments && !detail->segments)
			detail->segments = xcalloc(req->segments, sizeof *detail->segments);
	}
	if (m.start == m.end) {
		for (unsigned i = 0; detail && i < detail->nsegments; i++)
			detail->segments[i] = (struct segment){ .offset = m.start };
		return 0;
	}
	m.first_page = m.start / m.page;
	m.end_page = (m.end - 1) / m.page + 1;
	stat->pages = m.end_page - m.first_page;

	int err = measure_counters(&m, st, stat);
	if (err == 0 && detail)
		err = measure_detail(&m, req->extents, stat->cached, detail);
	if (err == 0 && p->setup->charge && S_ISREG(st->st_mode))
		err = charge_count(p->setup->charge, fd, m.start, m.end, &stat->charged);
	return err;
}

static int measure_fd(struct prober *p, int fd, const struct stat *st,
		      const struct probe_request *req, struct probe_out *out, int depth);

/* The backing file of an overlay file, opened as any file is (safe_open,
 * which must find the file found), and measured in its place; depth:
 * overlays below this one. */
static int probe_backing(struct prober *p, int fd, const struct stat *st,
			 const struct probe_request *req, struct probe_out *out, int depth,
			 const char **why)
{
	char path[PATH_MAX];
	struct stat found, bst;

	if (depth >= OVERLAY_DEPTH) {
		*why = "overlays are nested too deep";
		return NO_BACKING;
	}
	if (overlay_backing(p->setup->overlays, fd, st, path, &found, why) != 0)
		return NO_BACKING;
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = path, .id = file_ident_of(&found) };
	int err;
	int bfd = safe_open(&p->opener, &ref, &bst, &err);
	if (bfd < 0) {
		*why = err == EACCES ? "its backing file cannot be opened (Permission denied)"
		       : err == FAIL_CHANGED ? "its backing file changed while it was looked up"
					     : "its backing file cannot be opened";
		return NO_BACKING;
	}
	err = measure_fd(p, bfd, &bst, req, out, depth + 1);
	/* nested: the innermost file */
	if (err == 0 && !out->stat.backing) {
		out->backing.len = 0;
		sb_puts(&out->backing, path);
		sb_putc(&out->backing, '\0');
		out->stat.backing = out->backing.data;
	}
	close(bfd);
	return err;
}

static int measure_fd(struct prober *p, int fd, const struct stat *st,
		      const struct probe_request *req, struct probe_out *out, int depth)
{
	uint64_t size;
	int err = file_size(fd, st, &size);
	if (err)
		return err;

	enum probe_method method = p->setup->method;
	long type = S_ISREG(st->st_mode) ? fs_type(p, fd, st) : 0;
	if (type == HUGETLBFS_MAGIC)
		return FAIL_HUGETLB; /* mincore would call its pages absent */
	/* cachestat sees an overlayfs file's own empty mapping, zeros: ask
	 * about its backing file instead, or else use mincore, as an mmap
	 * maps the backing file */
	bool overlay = type == OVERLAYFS_SUPER_MAGIC && method == PROBE_CACHESTAT;
	const char *why = NULL;
	if (overlay) {
		err = probe_backing(p, fd, st, req, out, depth, &why);
		if (err != NO_BACKING)
			return err;
	}
	out->stat = (struct pagecache_stat){ .overlay = overlay, .overlay_why = why };
	return measure_range(p, fd, st, size, overlay ? PROBE_MINCORE : method, req, out);
}

/* --trace: the file's figures of the trace (not of the range: the
 * events name pages, which the tally does not keep one by one). */
static void probe_traced(const struct tally *t, const struct stat *st,
			 struct pagecache_stat *stat)
{
	const struct tally_file *f = tally_find(t, st->st_dev, (uint64_t)st->st_ino);
	stat->tally = t;
	stat->traced = f;
	if (!f)
		return;
	struct tally_counts n = tally_file_counts(t, f);
	stat->added = n.added;
	stat->reclaimed = n.reclaimed;
	stat->dropped = n.dropped;
	stat->removed = n.reclaimed + n.dropped;
	stat->refaulted = n.refaulted;
}

int probe_measure(struct prober *p, int fd, const struct stat *st,
		  const struct probe_request *req, struct probe_out *out)
{
	int err = measure_fd(p, fd, st, req, out, 0);
	struct pagecache_stat *stat = &out->stat;
	if (err == 0 && S_ISREG(st->st_mode)) {
		stat->known |= PCS_IDENTITY;
		stat->inode = (uint64_t)st->st_ino;
		stat->dev = (uint64_t)st->st_dev;
		stat->file_size = (uint64_t)st->st_size;
		stat->mtime = (uint64_t)st->st_mtim.tv_sec;
		stat->mtime_nsec = (uint64_t)st->st_mtim.tv_nsec;
		if (req->trace)
			probe_traced(req->trace, st, stat);
	}
	return err;
}

void probe_detail_free(struct probe_detail *detail)
{
	free(detail->segments);
	free(detail->extent);
	*detail = (struct probe_detail){ 0 };
}
