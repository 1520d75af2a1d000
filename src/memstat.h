/* SPDX-License-Identifier: MIT */
/* A memory cgroup's memory.stat, v1 or v2, read through one table of keys. */
#ifndef PAGESTAT_MEMSTAT_H
#define PAGESTAT_MEMSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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
};

/* Reads memory.stat's "KEY VALUE" lines from in into *ms for version 1
 * (the hierarchical total_* keys: the cgroup and those below it, as v2's
 * are) or 2.  Returns false on a read error or when no key is there. */
bool memstat_parse(FILE *in, int version, struct memstat *ms);

#endif
