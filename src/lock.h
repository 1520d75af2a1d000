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

#include "devino.h"
#include "probe.h"

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

/* The run's locked files, shared by the threads of -j (the mutex); what
 * could not be locked, for the message at the end. */
struct lock_set {
	pthread_mutex_t mutex;
	uint64_t page_size;
	struct locked_file *files;
	size_t nfiles, cap;
	size_t nlive; /* of them, locked now */
	struct devino_map index; /* (device, inode) -> index in files */
	uint64_t locked_bytes;
	/* --lock-max (0: none), and what it left out: every file from the
	 * first that did not fit */
	uint64_t max;
	uint64_t left_files, left_bytes;
	/* refused by RLIMIT_MEMLOCK: files, and the bytes they asked */
	uint64_t memlock_files, memlock_bytes;
	/* refused for vm.max_map_count: files, and the figures when first met */
	uint64_t mapcount_files, map_count, max_map_count;
	/* following the files: the pass (each walk again) */
	uint64_t pass;
	/* a pass's budget: bytes it may lock anew (the memory available less
	 * --reserve), or UINT64_MAX (the first pass: run.c's plan checked it) */
	uint64_t budget;
	/* following: the directories watched */
	struct devino_map watched;
	size_t nwatches;
	char *const *operands; /* watched too */
	/* the rate of the lines told: the second counted, the lines told in
	 * it, and those past the rate */
	int64_t window;
	uint64_t untold;
	/* the pass's counts, for SIGHUP's summary */
	uint64_t nchanges, nrefusals;
	/* --format=ndjson: where each change is a line too, or NULL */
	FILE *changes;
	int inotify; /* following: inotify's fd */
	unsigned told;
	/* (the flags last: no padding between the fields above) */
	bool follow;    /* to follow once held (not --no-follow): names kept */
	bool following;
	bool watches_told, files_told; /* what was said once */
	bool rewatch;                  /* a watch gone: every one counted again */
	bool quiet;                    /* -q: no change told on stderr */
};

void lock_set_init(struct lock_set *set, uint64_t page_size, uint64_t max);

/* Unlocks and unmaps every file, and frees the set. */
void lock_set_free(struct lock_set *set);

/* Called before each chunk of missing bytes is faulted in (--rate). */
typedef void lock_pace_fn(void *ctx, uint64_t bytes);

/* Lock range of the file open as fd (the user's own open, st its fstat):
 * mapped, locked on fault (mlock2 MLOCK_ONFAULT), the missing extents
 * given faulted in a chunk at a time (each read once, pace before each),
 * then the rest of the range mapped (cached already: nothing read).  A
 * file already in the set (by device and inode) is not locked again; one
 * past --lock-max is left out (0 pages, no error).
 * *pages: the pages locked, *read: the missing ones faulted in.  0, an errno value, FAIL_MEMLOCK or
 * FAIL_MAPCOUNT: nothing of the file is then locked. */
int lock_file(struct lock_set *set, int fd, const struct stat *st,
	      const struct probe_range *range, const struct extent *missing, size_t nmissing,
	      lock_pace_fn *pace, void *ctx, uint64_t *pages, uint64_t *read);

/* Following (not --no-follow), once the first lock is held: inotify on
 * each locked file's directory; the descriptor to wait on, or -1 (told). */
int lock_follow_start(struct lock_set *set, char *const *operands);

/* A change seen: the events read (after a moment for the rest of them to
 * come), then a new pass begins: the caller walks again with the same
 * request (lock_file), then calls lock_follow_end.  A later sample of -i
 * is such a pass (no inotify: the samples' pace). */
void lock_follow_begin(struct lock_set *set);

/* After the pass: each file not met is unlocked, and each change is one
 * line on stderr (new, grown, shrunk, replaced, deleted); new
 * directories watched. */
void lock_follow_end(struct lock_set *set);

/* The changes not told for the rate (LOCK_NOTICES_PER_SECOND): one line
 * that says how many, once their second is over.  lock_notices_due: true
 * when such a line waits (call lock_notices_flush within a second). */
void lock_notices_flush(struct lock_set *set);
bool lock_notices_due(const struct lock_set *set);

/* SIGHUP's pass done: one line with what is locked and what changed. */
void lock_say_pass(struct lock_set *set, const char *why);

/* --reserve: the memory available now, the less of the machine's
 * (MemAvailable) and its memory cgroup's (limit less usage, its file
 * pages counted as available, as MemAvailable counts them); *limit: the
 * cgroup's limit, or MemTotal.  False when it cannot be read. */
bool lock_available(uint64_t *available, uint64_t *limit);

/* --reserve: a descriptor that polls POLLPRI when tasks stall on memory
 * (the kernel's pressure trigger: the memory cgroup's memory.pressure on
 * cgroup v2, else /proc/pressure/memory), or -1 where there is none. */
int lock_pressure_trigger(void);

/* --reserve: available is below reserve: files unlocked, the last locked
 * first, until what they give back covers the difference; each told. */
void lock_yield(struct lock_set *set, uint64_t available, uint64_t reserve);

/* Files unlocked for --reserve wait to be locked again. */
bool lock_yielded(const struct lock_set *set);

/* What stopped files from being locked, with the figures and remedies,
 * on stderr (nothing when all were).  True when something was told. */
bool lock_say_refused(const struct lock_set *set);

/* What --lock-max (as given: max_arg) left out, on stderr, if anything. */
void lock_say_left_out(const struct lock_set *set, const char *max_arg);

/* --daemon: the run goes on in a child, in a session of its own; the
 * parent waits until the child holds its locks (or has ended) and gets
 * the status to exit with (>= 0); the child gets -1 and *ready, the
 * descriptor to tell the parent on. */
int lock_daemon_start(int *ready);

/* In the daemon, once everything is locked and told: the pid file
 * written (--pidfile, or NULL) and kept in *written for its removal
 * (user_pidfile_remove), the parent told status, the standard
 * descriptors moved to /dev/null.  False when the pid file could not be
 * written (told; the parent is told STATUS_FATAL). */
struct user_pidfile;
bool lock_daemon_ready(int ready, const char *pidfile, struct user_pidfile *written, int status);

/* Under systemd (NOTIFY_SOCKET set, built with libsystemd): tell it
 * state ("READY=1\nSTATUS=..."), with sd_notify.  Nothing otherwise. */
void lock_notify(const char *state);

/* The line that says the run now holds: files, bytes, pid (unless
 * quiet); and to systemd, READY=1 and the same as STATUS=. */
void lock_say_holding(const struct lock_set *set, bool quiet);

#endif
