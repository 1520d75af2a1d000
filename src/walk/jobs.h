/* SPDX-License-Identifier: MIT */
/* Workers (-j): threads probe the files the walk finds, results in walk order. */
#ifndef PAGESTAT_JOBS_H
#define PAGESTAT_JOBS_H

#include "walk/inspect.h"
#include "walk/event.h"
#include "walk/source.h"

/* The most threads -j accepts: more never helps (the walk is one thread). */
#define JOBS_MAX 256

/* -j auto (the default): the walk starts alone and starts workers once
 * it has met this many files, so that a small walk pays for no thread:
 * one thread per processor it may run on, the walk's included (which
 * probes too when the workers fall behind, and writes the rows), up to
 * JOBS_AUTO_MAX workers (one walking thread feeds no more; measured on 2
 * processors only, where 1 worker beat 2: 170 against 176 ms on 100,000
 * files, 205 against 233 ms with a row each). */
#define JOBS_AUTO_AFTER 2048
#define JOBS_AUTO_MAX 4

/* The workers -j auto starts for a walk that proves big: 0 on one
 * processor, and for --warm (reading waits on storage, where more
 * readers at once help one device and hurt another: -j decides). */
unsigned jobs_auto_workers(const struct file_request *req);

/* What the workers measure, and who takes the events back, in order. */
struct jobs_config {
	unsigned workers;
	const struct file_request *req;
	/* the walking thread's: each worker makes one like it */
	struct inspector *ins;
	/* Called on the walk's thread, in walk order, for every event;
	 * an EV_FILE comes with err and out filled. */
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

/* Applies every event handed over, stops the threads and frees. */
void jobs_stop(struct jobs *jobs);

#endif
