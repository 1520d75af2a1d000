/* SPDX-License-Identifier: MIT */
/* What the walk meets, one event at a time, in walk order: the walk makes
 * them, the workers of -j inspect their files, the walk applies them. */
#ifndef PAGESTAT_EVENT_H
#define PAGESTAT_EVENT_H

#include <stdbool.h>
#include <stddef.h>

#include "walk/inspect.h"
#include "output/row.h"

enum walk_event_kind {
	EV_FILE,    /* inspect ref, then a count and maybe a row */
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
	const char *path;
	size_t path_len;
	const char *what; /* EV_FAIL: "cannot access", ... */
	int err;          /* EV_FAIL; EV_FILE once probed */
	/* EV_FILE: what to open (its dirfd the walk's: only while
	 * submitted), with the file the walk stat()ed, or (not known) filled
	 * in by the inspection: the walk then tells a file met before when
	 * the event is applied */
	struct file_ref ref;
	bool want_detail;      /* EV_FILE: segments and extents too */
	struct probe_out *out; /* EV_FILE: what was measured (the walk's, or a slot's) */
};

#endif
