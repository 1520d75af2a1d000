/* SPDX-License-Identifier: MIT */
/* --lock: the files locked in memory (each range mapped from the user's
 * own open file, mlock2'd on fault, its pages faulted in once), held
 * until the run ends. */
#ifndef PAGESTAT_LOCK_H
#define PAGESTAT_LOCK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "lib/devino.h"
#include "act/pace.h"
#include "kernel/probe.h"

/* One file's locked range: its mapping (the descriptor is closed), or
 * none (addr NULL) once it is unlocked, when followed. */
struct locked_file {
	void *addr;
	size_t length;  /* bytes, whole pages */
	char *path;     /* when followed: where it was found (absolute) */
	uint64_t seen;  /* the pass that last met it */
	size_t was;     /* when followed: the length before this pass */
	bool fresh;     /* when followed: locked by this pass */
	bool yielded;   /* unlocked for --reserve, to be locked again */
	bool again;     /* locked again by this pass, after yielding */
	/* when followed: the length a pass's guard refused (0: none), which
	 * is told once, and again only when the file changes */
	uint64_t refused;
	bool tell_refused;
	bool over_max;  /* refused by --lock-max (else by the memory available) */
	bool checked;   /* grown or shrunk: passed the guard, to be locked again */
	dev_t dev;      /* its identity, for the index when entries are dropped */
	ino_t ino;
};

/* Following: at most this many files (locked, yielded or refused) are
 * kept, and this many directories watched; past either, told once. */
#define LOCK_FOLLOW_MAX_FILES 131072
#define LOCK_FOLLOW_MAX_WATCHES 4096

/* Following: at most this many change lines a second on stderr; past
 * it, one line says how many more were not told. */
#define LOCK_NOTICES_PER_SECOND 10

/* What --lock takes of the options. */
struct lock_config {
	uint64_t max;           /* --lock-max, or 0: none */
	const char *max_arg;    /* --lock-max as given, for messages */
	uint64_t reserve;       /* --reserve SIZE, or 0 */
	double reserve_percent; /* --reserve PERCENT%, or 0 */
	const char *pidfile;    /* --pidfile, or NULL */
	char *const *operands;  /* the FILE operands: their directories watched too */
	FILE *changes;          /* --format=ndjson: where each change is a line too, or NULL */
	bool names;             /* each file's name kept: SIGHUP's walk and following tell them */
	bool no_follow;         /* --no-follow */
	bool pids;              /* --pid: no directory to follow */
	bool snapshot;          /* --warm-from: no walk to follow or go again */
	bool daemon;            /* --daemon */
	bool quiet;             /* -q: no change told on stderr */
};

/* Following: the caller's walk again, saying nothing, each file handed
 * to lock_file with the run's request (lock.c begins and ends the pass
 * around it, and tells the changes). */
struct lock_walk {
	void (*fn)(void *ctx);
	void *ctx;
};

/* The run's locked files, shared by the threads of -j (the mutex); what
 * could not be locked, for the message at the end. */
struct lock_set {
	pthread_mutex_t mutex;
	struct lock_config cfg;
	struct lock_walk again; /* following: the walk of each pass */
	uint64_t page_size;
	struct locked_file *files;
	size_t nfiles, cap;
	size_t nlive; /* of them, locked now */
	struct devino_map index; /* (device, inode) -> index in files */
	uint64_t locked_bytes;
	/* what --lock-max left out: every file from the first that did not fit */
	uint64_t left_files, left_bytes;
	/* refused by RLIMIT_MEMLOCK: files, and the bytes they asked */
	uint64_t memlock_files, memlock_bytes;
	/* refused for vm.max_map_count: files, and the figures when first met */
	uint64_t mapcount_files, map_count, max_map_count;
	/* following the files: the pass (each walk again) */
	uint64_t pass;
	/* a pass's budget: bytes it may lock anew (the memory available less
	 * --reserve), or UINT64_MAX (the first pass: lock_plan checked it) */
	uint64_t budget;
	/* following: the directories watched */
	struct devino_map watched;
	size_t nwatches;
	/* the rate of the lines told: the second counted, the lines told in
	 * it, and those past the rate */
	int64_t window;
	uint64_t untold;
	/* the pass's counts, for SIGHUP's summary */
	uint64_t nchanges, nrefusals;
	int inotify; /* following: inotify's fd */
	int ready;   /* --daemon: the descriptor to tell the parent on, or -1 */
	unsigned told;
	/* (the flags last: no padding between the fields above) */
	bool following;
	bool watches_told, files_told; /* what was said once */
	bool rewatch;                  /* a watch gone: every one counted again */
};

void lock_set_init(struct lock_set *set, uint64_t page_size, const struct lock_config *cfg);

/* Unlocks and unmaps every file, and frees the set. */
void lock_set_free(struct lock_set *set);

/* Lock range of the file open as fd (the user's own open, st its fstat):
 * mapped, locked on fault (mlock2 MLOCK_ONFAULT), the missing extents
 * given faulted in a chunk at a time (each read once, pace asked before
 * each: --rate; a pace that stops it fails the file with ECANCELED),
 * then the rest of the range mapped (cached already: nothing read).  A
 * file already in the set (by device and inode) is not locked again; one
 * past --lock-max is left out (0 pages, no error).
 * *pages: the pages locked, *read: the missing ones faulted in.  0, an errno value, FAIL_MEMLOCK or
 * FAIL_MAPCOUNT: nothing of the file is then locked. */
int lock_file(struct lock_set *set, int fd, const struct stat *st,
	      const struct probe_range *range, const struct extent *missing, size_t nmissing,
	      const struct pace *pace, uint64_t *pages, uint64_t *read);

/* Before anything is read or locked: pinned bytes (the ranges, cached
 * or not, to_read of them missing) must fit in the memory available less
 * --reserve; else told, and STATUS_FATAL (nothing to do).  STATUS_OK. */
int lock_plan(const struct lock_set *set, uint64_t pinned, uint64_t to_read);

/* --daemon: the run goes on in a child, in a session of its own; the
 * parent waits until the child holds its locks (or has ended) and gets
 * the status to exit with (>= 0); the child gets -1 (lock_run tells the
 * parent). */
int lock_daemon_start(struct lock_set *set);

/* -i: each sample after the first is a pass that follows the files
 * (unless --no-follow), within the memory available less --reserve:
 * begun before the sample's inspection, ended after it.  After the
 * first, what is locked is told; false when nothing is held (the samples
 * end then).  fatal: the sample failed, nothing is told. */
void lock_sample_begin(struct lock_set *set, bool first);
bool lock_sample_end(struct lock_set *set, bool first, bool fatal);

/* --lock without -i, once the first pass (the inspection, its status)
 * is out: what was not locked and why, then the line that says it holds;
 * --daemon's parent told, --pidfile written; then held until SIGINT or
 * SIGTERM, following the files (again: their walk), SIGHUP walking them
 * again, --reserve kept.  The status to exit with. */
int lock_run(struct lock_set *set, int status, struct lock_walk again);

#endif
