/* One file -> struct pagecache_stat: open, check, cachestat or mincore. */
#ifndef PAGESTAT_PROBE_H
#define PAGESTAT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fail.h"
#include "safeopen.h"

enum probe_method { PROBE_AUTO, PROBE_CACHESTAT, PROBE_MINCORE };

/* Which counters of a pagecache_stat are known: mincore knows only cached. */
enum {
	PCS_CACHED = 1u << 0,
	PCS_DIRTY = 1u << 1,
	PCS_WRITEBACK = 1u << 2,
	PCS_EVICTED = 1u << 3,
	PCS_RECENTLY_EVICTED = 1u << 4,
	PCS_ALL = (1u << 5) - 1,
	/* not a counter: the row is one file's, with its inode, size and
	 * mtime (a directory's sum never has it) */
	PCS_IDENTITY = 1u << 5,
};

struct pagecache_stat {
	uint64_t size;  /* bytes of the inspected range */
	uint64_t pages; /* pages the range touches */
	uint64_t cached, dirty, writeback, evicted, recently_evicted;
	unsigned known; /* PCS_* bits */
	/* on overlayfs: the backing file measured in its place (valid until
	 * the next probe), or NULL */
	const char *backing;
	/* on overlayfs, backing file not found: measured with mincore */
	bool overlay;
	const char *overlay_why; /* then: why not found (a constant string) */
	/* what an action did: pages of the range dropped (--evict) or read
	 * (--warm, --warm-from) */
	uint64_t dropped, read;
	/* with PCS_IDENTITY: what tells that the file changed since (a
	 * snapshot's rows carry it for --warm-from) */
	uint64_t inode, file_size, mtime, mtime_nsec;
};

/* The byte range inspected in every file; length 0 means to the end. */
struct probe_range {
	uint64_t offset;
	uint64_t length;
};

/* With -S: one of N equal parts of a file's range. */
struct segment {
	uint64_t offset, length; /* bytes, within the range */
	uint64_t pages, cached;  /* pages the part touches, and of those cached */
};

/* With -e: a run of cached (or missing) bytes. */
struct extent {
	uint64_t offset, length;
};

enum extent_mode { EXTENTS_NONE, EXTENTS_CACHED, EXTENTS_MISSING };

/* Done to each file before it is measured (action.c). */
enum probe_action {
	ACTION_NONE,
	ACTION_EVICT, /* --evict: drop the range's clean pages */
	ACTION_WARM,  /* --warm: read the range's missing pages */
	ACTION_LISTED, /* --warm-from: read the extents listed */
};

/* What is measured in each file: its range, and for a file that gets a
 * row, -S and -e; and the action done first. */
struct probe_request {
	struct probe_range range;
	unsigned segments;        /* -S N, or 0 */
	enum extent_mode extents; /* -e */
	enum probe_action action;
	const struct extent *listed; /* ACTION_LISTED: nlisted extents */
	size_t nlisted;
};

static inline bool probe_wants_detail(const struct probe_request *req)
{
	return req->segments || req->extents != EXTENTS_NONE;
}

/* What the probe measures beyond the counters (segments, extents) for
 * one request; its buffers are kept from file to file. */
struct probe_detail {
	struct segment *segments;  /* nsegments entries: the request's -S N */
	unsigned nsegments;
	struct extent *extent;     /* nextents entries */
	size_t nextents, extents_cap;
};


/* Choose the method (auto tries cachestat on a file of its own).  Returns
 * 0, or an errno value when the wanted method cannot work here; *why then
 * says what failed. */
int probe_init(enum probe_method want, const char **why);

enum probe_method probe_method(void);
const char *probe_method_name(enum probe_method method);
/* When auto fell back to mincore: the errno cachestat failed with, else 0. */
int probe_fallback_errno(void);
unsigned probe_known(void);
uint64_t probe_page_size(void);


/* Open path (relative to the directory dirfd, or AT_FDCWD) by
 * safe_open(), which opens nothing but the file the walk saw (*id, when
 * known) or a regular file, and measure the request's range; with
 * detail (else NULL), its segments and extents too.  follow: the walk
 * stat()ed through a symbolic link, so open through it.  Returns 0, an
 * errno value or a FAIL_* code. */
int probe_path_at(int dirfd, const char *path, struct file_ident *id, bool follow,
		  const struct probe_request *req, struct probe_detail *detail,
		  struct pagecache_stat *out);

/* The same for an open regular file or block device (st: its fstat). */
int probe_fd(int fd, const struct stat *st, const struct probe_request *req,
	     struct probe_detail *detail, struct pagecache_stat *out);

/* How a failure of this request is told: "cannot inspect", or the
 * action's "cannot evict", "cannot warm". */
const char *probe_failure_what(const struct probe_request *req);

/* probe_fd without the request's action: what an action measures with. */
int probe_measure(int fd, const struct stat *st, const struct probe_request *req,
		  struct probe_detail *detail, struct pagecache_stat *out);

/* A thread that measured files frees what it kept for the next one. */
void probe_thread_end(void);

/* Frees a detail's buffers. */
void probe_detail_free(struct probe_detail *detail);


/* Free what the probe keeps between files. */
void probe_free(void);

#endif
