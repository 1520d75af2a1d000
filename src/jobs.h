/* Workers (-j): threads probe the files the walk finds, results in walk order. */
#ifndef PAGESTAT_JOBS_H
#define PAGESTAT_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "columns.h"
#include "probe.h"

/* The most threads -j accepts: more never helps (the walk is one thread). */
#define JOBS_MAX 256

enum walk_event_kind {
	EV_FILE,    /* probe accpath, then a count and maybe a row */
	EV_ENTER,   /* a directory's subtotal opens */
	EV_LEAVE,   /* a directory's subtotal closes, maybe a row */
	EV_FAIL,    /* something could not be inspected */
	EV_SYMLINK, /* -P: an operand that is a symbolic link, not followed */
};

/* One thing the walk met, in walk order: what the rows, totals and
 * messages need, without the tree's entry (which it reuses). */
struct walk_event {
	enum walk_event_kind kind;
	enum row_type type;
	long level;
	bool row;       /* EV_FILE, EV_LEAVE: it gets a row */
	bool abandon;   /* EV_FAIL: close the directory's subtotal first */
	const char *path;
	size_t path_len;
	const char *what; /* EV_FAIL: "cannot access", ... */
	int err;          /* EV_FAIL; EV_FILE once probed */
	/* EV_FILE: what to open and check, and what was measured */
	int dirfd;              /* accpath is relative to it (the walk's: only while submitted) */
	const char *accpath;
	const struct stat *seen;
	bool follow;
	bool detail;    /* segments and extents too */
	struct probe_detail *details;
	struct pagecache_stat stat;
};

/* What the workers measure, and who takes the events back, in order. */
struct jobs_config {
	unsigned workers;
	struct probe_range range;
	unsigned segments;
	enum extent_mode extents;
	/* Called on the walk's thread, in walk order, for every event;
	 * an EV_FILE comes with err and stat (and details) filled. */
	void (*apply)(void *ctx, struct walk_event *ev);
	void *ctx;
};

struct jobs;

/* NULL when the threads cannot be started (the walk then probes itself). */
struct jobs *jobs_start(const struct jobs_config *cfg);

/* Hands over one event (copied).  Runs on the walk's thread, between
 * tree_read calls, while an EV_FILE's dirfd is open.  Any other event
 * may change the directory the next file is in. */
void jobs_submit(struct jobs *jobs, const struct walk_event *ev);

/* Waits for every event handed over and applies it. */
void jobs_drain(struct jobs *jobs);

/* Drains, stops the threads and frees. */
void jobs_stop(struct jobs *jobs);

#endif
