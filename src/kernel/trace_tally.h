/* SPDX-License-Identifier: MIT */
/* --trace's figures: the events of the trace instance summed per file
 * (pages added, reclaimed, dropped, refaulted) and per process (who added
 * and who removed them), in bounded memory. */
#ifndef PAGESTAT_TRACE_TALLY_H
#define PAGESTAT_TRACE_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/tracefs.h"

/* Limits, each with what it costs (HACKING.md, the man page). */
#define TALLY_WHO 4                  /* readers and evictors kept per file */
#define TALLY_CHUNKS_MAX (1u << 17)  /* removed pages kept: 520 bytes a 4096 pages, 65 MiB */
#define TALLY_FILES_MAX (1u << 20)   /* files: about 200 bytes each */
#define TALLY_TASKS_MAX (1u << 16)   /* processes and threads */
#define TALLY_MOVED_MAX (1u << 20)   /* (process, file) pairs: 48 bytes each, 48 MiB */

enum tally_side { TALLY_READERS, TALLY_EVICTORS };

/* One process, as first seen (a short-lived one keeps its name). */
struct tally_counts {
	uint64_t added, reclaimed, dropped, refaulted;
};

/* A file a process moved pages of: its index in the tally + 1 (0: an
 * empty slot), what it did to them, and the pages moved (added and
 * removed) in a group's top. */
struct tally_moved {
	uint32_t file;
	struct tally_counts n;
	uint64_t pages;
};

/* One process, as first seen (a short-lived one keeps its name). */
struct tally_proc {
	pid_t pid;      /* its thread group's id, or the thread's when gone */
	char comm[16];  /* its command ("?" when it was gone before it was seen) */
	char *cgroup;   /* its memory cgroup's path, or NULL */
	struct tally_counts n; /* the pages it added, reclaimed, dropped, refaulted */
	struct tally_moved *moved; /* the files it moved: open addressing, moved_cap slots */
	size_t moved_cap, nmoved;
};

/* --by=process or --by=cgroup: a row's figures, one process's or one
 * cgroup's processes' together. */
struct tally_group {
	char *name;     /* "COMMAND[PID]", or the cgroup's path ("(unknown)") */
	struct tally_counts n;
	uint64_t files; /* the files it moved pages of */
	struct tally_moved top[TALLY_WHO]; /* the most pages first */
	size_t ntop;
	uint64_t others, others_pages; /* the files past top */
};

struct tally_file;
struct tally;

struct tally *tally_new(void);
void tally_free(struct tally *t);

/* One event of the trace (trace_read's callback; ctx: the tally). */
void tally_event(void *ctx, const struct trace_event *ev);

/* The file's figures, or NULL when the trace saw nothing of it; marks it
 * seen (any thread may ask). */
const struct tally_file *tally_find(const struct tally *t, dev_t dev, uint64_t ino);
/* Its counts since the trace began, or with tally_per_sample since the
 * previous tally_next_sample (the readers and evictors: since it began). */
struct tally_counts tally_file_counts(const struct tally *t, const struct tally_file *f);
void tally_per_sample(struct tally *t);
void tally_next_sample(struct tally *t);

/* The same without marking it; and whether tally_find found it. */
const struct tally_file *tally_peek(const struct tally *t, dev_t dev, uint64_t ino);
bool tally_seen(const struct tally_file *f);

/* The readers and evictors of every file ranked, exactly, from what each
 * process did (before the files are looked up, after the last events). */
void tally_settle(struct tally *t);

/* The n-th process (0 the most pages) that added (TALLY_READERS) or
 * removed pages of the file, and how many; NULL past the last.  *others:
 * how many processes were not kept (more than TALLY_WHO; one more for
 * the pages of processes past TALLY_TASKS_MAX or TALLY_MOVED_MAX) and
 * their pages. */
const struct tally_proc *tally_who(const struct tally *t, const struct tally_file *f,
				   enum tally_side side, size_t n, uint64_t *pages);
void tally_who_others(const struct tally_file *f, enum tally_side side, uint64_t *procs,
		      uint64_t *pages);

/* The figures of the files tally_find never found (outside the walk). */
struct tally_counts tally_unseen(const struct tally *t, uint64_t *files);

/* What the tally could not keep: pages of files past TALLY_FILES_MAX,
 * removed pages past TALLY_CHUNKS_MAX (their refaults not counted),
 * pages moved by (process, file) pairs past TALLY_MOVED_MAX (among
 * readers' and evictors' others, not in --by's rows). */
void tally_limits_hit(const struct tally *t, uint64_t *untallied_pages, uint64_t *untracked_pages,
		      uint64_t *unattributed_pages);

/* --by: a group per process (by_cgroup: per memory cgroup) that moved
 * pages of files (with named_only, of the files tally_name named: the
 * scope), most pages moved first, in *groups (malloc'd;
 * tally_groups_free); their count. */
size_t tally_groups(const struct tally *t, bool by_cgroup, bool named_only,
		    struct tally_group **groups);
void tally_groups_free(struct tally_group *groups, size_t n);

/* The files whose pages moved (named_only: of those tally_name named). */
uint64_t tally_files_moved(const struct tally *t, bool named_only);

/* A file's name, for --by's rows: given by the walk (tally_name), or its
 * device and inode; file is a tally_moved's. */
void tally_name(struct tally *t, dev_t dev, uint64_t ino, const char *path, size_t len);
const char *tally_file_name(const struct tally *t, uint32_t file, char *buf, size_t size);

/* Events seen in all. */
uint64_t tally_events(const struct tally *t);

#endif
