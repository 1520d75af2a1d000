/* SPDX-License-Identifier: MIT */
/* What every source of files (the walk, --pid, --warm-from, --system)
 * takes from the run, and gives back. */
#ifndef PAGESTAT_SOURCE_H
#define PAGESTAT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walk/aggregate.h"
#include "walk/inspect.h"

/* --system: the directories a walk does not enter (the mount points of
 * other walks), sorted by strcmp. */
struct walk_prune {
	const char *const *points;
	size_t n;
};

/* --system's own part of a walk_config. */
struct system_walk {
	uint64_t top; /* how many cgroup rows (--top; 0: all) */
	/* --browse --system: a row for every directory of the file systems
	 * (-d is the cgroups' depth there) */
	bool every_dir;
};

enum follow_mode {
	FOLLOW_NONE, /* -P */
	FOLLOW_ARGS, /* -H, the default */
	FOLLOW_ALL,  /* -L */
};

struct walk_config {
	enum follow_mode follow;
	bool one_file_system; /* -x */
	bool count_links;     /* -l */
	bool all;             /* -a */
	bool quiet;           /* -q */
	long max_depth;       /* -d; -1 when not given */
	const struct file_request *req; /* what is done to each file */
	/* the walking thread's (jobs.c makes one for each worker like it) */
	struct inspector *ins;
	const char *const *excludes; /* --exclude globs */
	size_t nexcludes;
	unsigned jobs;             /* -j: threads that probe; 1: none; 0: auto */
	/* a setcap pagestat showing inode, file_size or mtime: each only
	 * where the user could stat the file themselves (report.c) */
	bool limit_identity;
	/* a setcap pagestat: the capabilities are not the user's own, so
	 * what tells files apart (hard links counted once, --warm-from's
	 * identity check) is used only where the user could stat the name */
	bool borrowed;
	/* --system's walk of a file system: what it does not enter, or NULL */
	const struct walk_prune *prune;
	/* --system's own, or NULL */
	const struct system_walk *system;
};

struct walk_result {
	struct agg_sum total;
	uint64_t errors;     /* files and directories that could not be inspected */
	uint64_t refused;    /* of which refused by the kernel's owner rule (EPERM) */
	bool output_failed;  /* the sink could not write: the walk stopped */
};

#endif
