/* SPDX-License-Identifier: MIT */
/* A memory cgroup's memory.stat, v1 or v2, read through one table of keys;
 * this process's memory cgroup (/proc/self/cgroup); and the machine's
 * /proc/meminfo. */
#ifndef PAGESTAT_MEMSTAT_H
#define PAGESTAT_MEMSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The figures pagestat takes from memory.stat, in this order everywhere
 * (the table, JSON, Prometheus). */
enum memstat_id {
	MEMSTAT_FILE,
	MEMSTAT_DIRTY,
	MEMSTAT_WRITEBACK,
	MEMSTAT_SHMEM,
	MEMSTAT_MAPPED,
	MEMSTAT_ACTIVE_FILE,
	MEMSTAT_INACTIVE_FILE,
	MEMSTAT_REFAULT,
	MEMSTAT_ACTIVATE,
	MEMSTAT_RECLAIMED,
	MEMSTAT_COUNT
};

struct memstat_key {
	const char *name;   /* pagestat's: the JSON key and Prometheus family's middle */
	const char *v2, *v1; /* the kernel's key in memory.stat; NULL: that version has none */
	const char *v2_old;  /* v2 before Linux 5.9 (no _file suffix), or NULL */
	bool bytes;          /* an amount of memory; else a count of events */
	const char *help;
};

extern const struct memstat_key memstat_keys[MEMSTAT_COUNT];

struct memstat {
	int version;      /* 1 or 2 */
	unsigned known;   /* bit i: memstat_keys[i] was in the file */
	uint64_t value[MEMSTAT_COUNT];
};

static inline bool memstat_known(const struct memstat *ms, enum memstat_id id)
{
	return ms->known & (1u << id);
}

/* --cgroup: one cgroup asked for, and what the kernel says of it (the
 * sinks read it from its row). */
struct cgroup_figures {
	char *name;       /* relative to its mount, "/" first: Prometheus's label */
	char *dir;        /* its directory: the row's path */
	struct memstat stat; /* read after its files were inspected */
	bool stat_read;   /* false: the cgroup was removed during the run */
	uint64_t processes; /* in it and below it, when its cgroup.procs were read */
	uint64_t exited;    /* of those, gone before their files were read */
	bool figures_only;  /* --system's row: no process or file was read */
	/* -i: the figures of the sample before, and when each was read
	 * (CLOCK_MONOTONIC seconds), for the rates of the counters */
	struct memstat prev;
	bool prev_read;
	double read_at, prev_at;
};

/* -i: counter id's change per second since the sample before; false on
 * the first sample, or when either sample lacks it (or it went back). */
static inline bool cgroup_rate(const struct cgroup_figures *cg, enum memstat_id id,
			       double *per_second)
{
	if (!cg->stat_read || !cg->prev_read || !memstat_known(&cg->stat, id) ||
	    !memstat_known(&cg->prev, id) || cg->stat.value[id] < cg->prev.value[id] ||
	    cg->read_at <= cg->prev_at)
		return false;
	*per_second = (double)(cg->stat.value[id] - cg->prev.value[id]) / (cg->read_at - cg->prev_at);
	return true;
}

/* Reads memory.stat's "KEY VALUE" lines from in into *ms for version 1
 * (the hierarchical total_* keys: the cgroup and those below it, as v2's
 * are) or 2.  Returns false on a read error or when no key is there. */
bool memstat_parse(FILE *in, int version, struct memstat *ms);

/* The figures of keys (the kernel's names: those no output shows, such
 * as the memory guard's "unevictable", too) in memory.stat's lines from
 * in: values[i] is keys[i]'s, 0 where it is not there (the last line of
 * a key wins).  False on a read error. */
bool memstat_read_keys(FILE *in, const char *const *keys, uint64_t *values, size_t n);

/* This process's memory cgroup, from /proc/self/cgroup read with the
 * user's rights: the path (from its hierarchy's root, as the kernel
 * gives it; malloc'd) of the line of v1's memory controller when
 * *version is 1, of v2's ("0::") when 2, and when 0 of v1's if there is
 * one, else of v2's.  *version: which it is.  NULL when there is none. */
char *memstat_self_cgroup(int *version);

/* The same of another process (pid > 0; 0: this one). */
char *memstat_task_cgroup(pid_t pid, int *version);

/* The number that the file dir/name (or dir alone: name NULL) holds,
 * read with the user's rights (a cgroup's memory.max, a /proc/sys
 * setting); false when there is none ("max"). */
bool memstat_read_number(const char *dir, const char *name, uint64_t *v);

/* KEY's figure in /proc/meminfo ("Cached"), in bytes; false when it
 * cannot be read. */
bool meminfo_bytes(const char *key, uint64_t *bytes);

#endif
