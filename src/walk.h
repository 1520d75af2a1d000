/* The walk: tree.c over the operands, one switch on what it finds, rows out. */
#ifndef PAGESTAT_WALK_H
#define PAGESTAT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "aggregate.h"
#include "columns.h"
#include "probe.h"
#include "sink.h"

enum follow_mode {
	FOLLOW_NONE, /* -P */
	FOLLOW_ARGS, /* -H, the default */
	FOLLOW_ALL,  /* -L */
};

struct walk_config {
	enum follow_mode follow;
	bool one_file_system; /* -x */
	bool count_links;     /* -l */
	bool all;             /* -a */
	bool quiet;           /* -q */
	long max_depth;       /* -d; -1 when not given */
	const struct probe_request *probe; /* what is measured in each file */
	const char *const *excludes; /* --exclude globs */
	size_t nexcludes;
	unsigned jobs;             /* -j: threads that probe; 1: none; 0: auto */
	/* a setcap pagestat showing inode, file_size or mtime: each only
	 * where the user could stat the file themselves (report.c) */
	bool limit_identity;
	/* --system: directories not entered (the mount points of other
	 * walks), sorted by strcmp */
	const char *const *prune;
	size_t nprune;
};

struct walk_result {
	struct agg_sum total;
	uint64_t errors;     /* files and directories that could not be inspected */
	uint64_t refused;    /* of which refused by the kernel's owner rule (EPERM) */
	bool output_failed;  /* the sink could not write: the walk stopped */
};

void walk_run(const struct walk_config *cfg, char *const *operands,
	      struct sink *sink, struct walk_result *result);

enum walk_event_kind {
	EV_FILE,    /* probe accpath, then a count and maybe a row */
	EV_ENTER,   /* a directory's subtotal opens */
	EV_LEAVE,   /* a directory's subtotal closes, maybe a row */
	EV_FAIL,    /* something could not be inspected */
	EV_SYMLINK, /* -P: an operand that is a symbolic link, not followed */
};

/* One thing the walk met, in walk order: what the rows, totals and
 * messages need, without the tree's entry (which it reuses).  With -j
 * the workers (jobs.c) probe its file. */
struct walk_event {
	enum walk_event_kind kind;
	enum row_type type;
	long level;
	bool row;       /* EV_FILE, EV_LEAVE: it gets a row */
	bool abandon;   /* EV_FAIL: close the directory's subtotal first */
	bool unchecked; /* EV_FILE: not yet told from a file met before */
	const char *path;
	size_t path_len;
	const char *what; /* EV_FAIL: "cannot access", ... */
	int err;          /* EV_FAIL; EV_FILE once probed */
	/* EV_FILE: what to open and check, and what was measured */
	int dirfd;              /* accpath is relative to it (the walk's: only while submitted) */
	const char *accpath;
	/* the file the walk stat()ed, or (not known) filled in by the probe:
	 * the walk then tells a file met before when the event is applied */
	struct file_ident id;
	bool follow;
	struct probe_detail *details; /* segments and extents too, or NULL */
	struct pagecache_stat stat;
};

#endif
