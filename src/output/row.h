/* SPDX-License-Identifier: MIT */
/* What every sink receives: one file, one directory's subtree, the grand
 * total, or a failure. */
#ifndef PAGESTAT_ROW_H
#define PAGESTAT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/probe.h"

enum row_type {
	ROW_FILE,
	ROW_DIRECTORY,
	ROW_BLOCKDEV,
	ROW_FILESYSTEM, /* --system: one mounted file system, walked whole */
	ROW_CGROUP,     /* --cgroup: the files of a cgroup's processes, summed */
	ROW_PROCESS,    /* --trace --by=process: what one process moved */
	ROW_OTHERS,     /* --trace --system: the motion of files the walk did not find */
	ROW_TOTAL,
	ROW_UNKNOWN,
};

struct cgroup_figures;

/* A failure has error != 0 and its counters are meaningless. */
struct row {
	const char *path; /* NULL for the total */
	size_t path_len;
	enum row_type type;
	struct pagecache_stat stat;
	uint64_t files;
	int error; /* 0, an errno value or a FAIL_* code */
	/* -S and -e, for a file or block device row (else 0 entries) */
	const struct segment *segments;
	size_t nsegments;
	const struct extent *extents;
	size_t nextents;
	/* -i: the change in cached pages since the previous sample; unknown
	 * on the first sample and for a row the previous sample lacked */
	int64_t delta;
	bool delta_known;
	/* --system, a file system's row: its type (ext4, tmpfs), and why it
	 * was not walked (overlay), or NULL */
	const char *fstype;
	const char *note;
	/* a directory's, file system's or the total's: what below it could
	 * not be inspected.  With no file counted, its figures are unknown,
	 * not those of a cold tree. */
	uint64_t failed;
	/* --cgroup's and --system's cgroup rows: its kernel figures
	 * (memory.stat); with figures_only (--system's), no file is behind
	 * them, so the row's size and pages are unknown (not 0) */
	const struct cgroup_figures *cgroup;
};

/* Does this row carry segments and extents (when -S or -e asked)? */
static inline bool row_has_detail(const struct row *row)
{
	return !row->error && (row->type == ROW_FILE || row->type == ROW_BLOCKDEV);
}

/* -i: the size of the row's change in pages, whatever its sign (row->delta
 * < 0 says the pages were lost). */
static inline uint64_t row_delta_pages(const struct row *row)
{
	return row->delta < 0 ? -(uint64_t)row->delta : (uint64_t)row->delta;
}

#endif
