/* SPDX-License-Identifier: MIT */
/* Acting on the cache (--evict, --warm, --warm-from): each file opened
 * again with the user's own rights, acted on, then measured. */
#ifndef PAGESTAT_ACTION_H
#define PAGESTAT_ACTION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "act/pace.h"
#include "kernel/probe.h"

/* Done to each file before it is measured. */
enum action {
	ACTION_NONE,
	ACTION_EVICT,  /* --evict: drop the range's clean pages */
	ACTION_WARM,   /* --warm: read the range's missing pages */
	ACTION_LISTED, /* --warm-from: read the extents listed */
	ACTION_LOCK,   /* --lock: read the missing pages and lock the range (lock.c) */
};

struct lock_set;

/* What is done to each file: an action first (or none), then the
 * measure of its range (for a file that gets a row, -S and -e too). */
struct file_request {
	struct probe_request measure;
	enum action action;
	const struct extent *listed; /* ACTION_LISTED: nlisted extents */
	size_t nlisted;
	struct lock_set *locks; /* ACTION_LOCK: the run's locked files */
	/* --browse's w: asked before each chunk a warm reads, on the thread
	 * that reads; a stop ends that file's warm there (its error
	 * ECANCELED).  None (the rest of pagestat): never asked. */
	struct pace pace;
};

/* --rate: the bytes a warm may read per second, all threads together;
 * one for the run, shared by every thread's actor. */
struct rate_limit {
	uint64_t rate; /* bytes per second; 0: as fast as the disk goes */
	pthread_mutex_t lock;
	struct timespec next; /* when the next chunk may be read */
};

void rate_limit_init(struct rate_limit *limit, uint64_t bytes_per_second);
void rate_limit_free(struct rate_limit *limit);

/* One thread's acting: what it keeps from file to file.  Made and freed
 * by the thread's owner, beside its prober. */
struct actor {
	struct rate_limit *limit;   /* the run's, or NULL: no --rate */
	struct probe_detail missing; /* the missing extents of the file warmed */
	struct extent *wanted;      /* --warm-from: the listed ones missing now */
	size_t wanted_cap;
	char *buffer;               /* what the reads go into */
	struct strbuf backing;      /* the measure before the action's */
};

void actor_init(struct actor *a, struct rate_limit *limit);
void actor_free(struct actor *a);

/* req's action on the open file fd (st: its fstat, as the inspection
 * opened it), then its measure into out (with out->stat.dropped or
 * .read).  The file is opened again with the user's own rights, so that a
 * setcap pagestat acts only on what its user could open without it.
 * where: the name fd was opened by (a walk's directory and entry), or
 * NULL; with a setcap install it reaches a file whose path is longer
 * than PATH_MAX.  Returns 0, an errno value or a FAIL_* code: on a
 * failure, nothing was done. */
struct file_ref;
int action_fd(struct actor *a, struct prober *p, int fd, const struct stat *st,
	      const struct file_ref *where, const struct file_request *req,
	      struct probe_out *out);

#endif
