/* SPDX-License-Identifier: MIT */
/* --lock's own: what the lock files share (lock*.c) and nothing outside
 * them calls. */
#ifndef PAGESTAT_LOCK_INT_H
#define PAGESTAT_LOCK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "act/lock.h"

/* Following (not --no-follow), once the first lock is held: inotify on
 * each locked file's directory and the operands'; the descriptor to wait
 * on, or -1 (told). */
int lock_follow_start(struct lock_set *set);

/* A change seen: the events read (after a moment for the rest of them to
 * come), then a new pass begins: the caller walks again with the same
 * request (lock_file), then calls lock_follow_end.  A later sample of -i
 * is such a pass (no inotify: the samples' pace). */
void lock_follow_begin(struct lock_set *set);

/* After the pass: each file not met is unlocked, and each change is one
 * line on stderr (new, grown, shrunk, replaced, deleted); new
 * directories watched. */
void lock_follow_end(struct lock_set *set);

/* A pass within budget (bytes it may lock anew): begun, the walk again
 * (set->again), ended. */
void lock_pass(struct lock_set *set, uint64_t budget);

/* A change told on stderr: "--lock: 'PATH': " (escaped, as every name)
 * and the text; none with -q, at most LOCK_NOTICES_PER_SECOND a second
 * (the rest counted, lock_notices_flush says how many). */
void lock_notice(struct lock_set *set, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --format=ndjson: the change as a line of its own, with its time:
 * {"time":...,"change":"grew","path":...,"locked":P,"locked_bytes":B}. */
void lock_tell_change(const struct lock_set *set, const char *path, const char *change,
		      uint64_t length);

/* The changes not told for the rate (LOCK_NOTICES_PER_SECOND): one line
 * that says how many, once their second is over.  lock_notices_due: true
 * when such a line waits (call lock_notices_flush within a second). */
void lock_notices_flush(struct lock_set *set);
bool lock_notices_due(const struct lock_set *set);

/* SIGHUP's pass done: one line with what is locked and what changed. */
void lock_say_pass(struct lock_set *set, const char *why);

/* Under the mutex: f's mapping released (it is locked no more). */
void lock_release(struct lock_set *set, struct locked_file *f);

/* --reserve: the memory available now, the less of the machine's
 * (MemAvailable) and its memory cgroup's (limit less usage, its file
 * pages counted as available, as MemAvailable counts them); *limit: the
 * cgroup's limit, or MemTotal.  False when it cannot be read. */
bool lock_available(uint64_t *available, uint64_t *limit);

/* The guard of every pass after the first: the memory available (the
 * machine's, or its memory cgroup's) less --reserve, 0 when below it;
 * UINT64_MAX when it cannot be read.  (--lock-max is lock_map.c's,
 * against what is locked.) */
uint64_t lock_budget(const struct lock_set *set);

/* --reserve: a descriptor that polls POLLPRI when tasks stall on memory
 * (the kernel's pressure trigger: the memory cgroup's memory.pressure on
 * cgroup v2, else /proc/pressure/memory), or -1 where there is none. */
int lock_pressure_trigger(void);

/* --reserve: below it, the last files locked are unlocked; once the
 * memory available is a quarter of the reserve above it (so that it does
 * not flap), they are locked again as far as that margin allows. */
void lock_keep_reserve(struct lock_set *set);

/* In the daemon, once everything is locked and told: the pid file
 * written (--pidfile, or none) and kept in *written for its removal
 * (user_pidfile_remove), the parent told status, the standard
 * descriptors moved to /dev/null.  False when the pid file could not be
 * written (told; the parent is told STATUS_FATAL). */
struct user_pidfile;
bool lock_daemon_ready(struct lock_set *set, struct user_pidfile *written, int status);

/* Under systemd (NOTIFY_SOCKET set, built with libsystemd): tell it
 * state ("READY=1\nSTATUS=..."), with sd_notify.  Nothing otherwise. */
void lock_notify(const char *state);

#endif
