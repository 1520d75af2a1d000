/* SPDX-License-Identifier: MIT */
/* One open file -> struct pagecache_stat: cachestat or mincore, ranges,
 * segments, extents, overlayfs's backing files. */
#ifndef PAGESTAT_PROBE_H
#define PAGESTAT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/fail.h"
#include "kernel/safeopen.h"
#include "lib/strbuf.h"
#include "kernel/trace_tally.h"

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
	/* on overlayfs: the backing file measured in its place (in the
	 * probe_out's buffer, as long as it is not reused), or NULL */
	const char *backing;
	/* on overlayfs, backing file not found: measured with mincore */
	bool overlay;
	const char *overlay_why; /* then: why not found (a constant string) */
	/* what an action did: pages of the range dropped (--evict) or read
	 * (--warm, --warm-from) */
	uint64_t dropped, read;
	/* --lock: pages of the range locked in memory (src/act/lock.c) */
	uint64_t locked;
	/* --charged: cached pages of the range charged to the cgroup */
	uint64_t charged;
	/* --trace, the whole file's (whatever the range): pages added during
	 * the trace, removed (reclaimed, or dropped on request: in dropped
	 * above), and added again after the trace saw them removed; and
	 * where its readers and evictors are (else NULL) */
	uint64_t added, removed, reclaimed, refaulted;
	const struct tally *tally;
	const struct tally_file *traced;
	const struct tally_group *group; /* --by: a process's or cgroup's row */
	/* with PCS_IDENTITY: what tells that the file changed since (a
	 * snapshot's rows carry it for --warm-from) */
	uint64_t inode, file_size, mtime, mtime_nsec;
	uint64_t dev; /* with PCS_IDENTITY: its file system's (stat's st_dev), for --trace */
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

/* What is measured in each file: its range, and for a file that gets a
 * row, -S and -e. */
struct probe_request {
	struct probe_range range;
	unsigned segments;        /* -S N, or 0 */
	enum extent_mode extents; /* -e */
	const struct tally *trace; /* --trace: the figures of the trace, or NULL */
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


/* Where one file's measure goes: the caller's, kept from file to file,
 * so that what a row points at lives as long as the row. */
struct probe_out {
	struct pagecache_stat stat;  /* stat.backing points into backing */
	struct probe_detail *detail; /* -S and -e for this file, or NULL */
	struct strbuf backing;       /* on overlayfs: the backing file's path */
};

void probe_out_free(struct probe_out *out);

struct overlays;
struct charge;

/* What the measure of every file in a run shares, chosen once at
 * start-up: the same for every thread. */
struct probe_setup {
	enum probe_method method;  /* cachestat or mincore */
	int fallback_errno;        /* auto fell back to mincore: why cachestat failed */
	uint64_t page_size;
	bool fowner;               /* CAP_FOWNER effective: the owner rule is passed */
	struct overlays *overlays; /* overlayfs's mounts, looked up by every thread */
	const struct charge *charge; /* --charged, or NULL */
};

/* Choose the method (auto tries cachestat on a file of its own) into
 * setup.  Returns 0, or an errno value when the wanted method cannot work
 * here; *why then says what failed. */
int probe_init(enum probe_method want, struct probe_setup *setup, const char **why);
void probe_setup_free(struct probe_setup *setup);

const char *probe_method_name(enum probe_method method);
/* The counters the method knows (PCS_*). */
unsigned probe_known(const struct probe_setup *setup);

/* One thread's measuring: its buffers and what it keeps from file to
 * file.  Made and freed by the thread's owner (a worker of -j has one). */
struct prober {
	const struct probe_setup *setup;
	struct opener opener;       /* safe_open's */
	unsigned char *mincore_vec; /* mincore's residency vector, a window's */
	/* the file systems of the last two devices met (an overlay and the
	 * file system of its layers), for one fstatfs per device */
	struct {
		dev_t dev;
		long type;
	} fs_seen[2];
};

void prober_init(struct prober *p, const struct probe_setup *setup);
void prober_free(struct prober *p);

/* Measure the request's range of the open regular file or block device
 * fd (st: its fstat) into out: the counters, and out->detail's segments
 * and extents when it is not NULL.  Returns 0, an errno value or a
 * FAIL_* code. */
int probe_measure(struct prober *p, int fd, const struct stat *st,
		  const struct probe_request *req, struct probe_out *out);

/* Frees a detail's buffers. */
void probe_detail_free(struct probe_detail *detail);

#endif
