/* SPDX-License-Identifier: MIT */
/* --browse: the full-screen interface over an inspection's rows. */
#ifndef PAGESTAT_BROWSE_H
#define PAGESTAT_BROWSE_H

#include <stdbool.h>
#include <sys/types.h>

#include "walk/source.h"

struct cgroup_set;

/* What is browsed: the FILE operands' trees, the files of --pid's
 * processes, the machine (--system: its file systems, their trees) or
 * --cgroup's cgroups (each with its processes' files). */
struct browse_source {
	char *const *operands;
	const pid_t *pids;
	size_t npids;
	bool system;
	struct cgroup_set *cgroups; /* resolved; NULL without --cgroup */
};

/* Walks what src names as cfg says (every file a row), then lets the user
 * explore, refresh and act on the tree on the terminal; returns an exit
 * status (STATUS_USAGE when standard output is not a terminal, or when
 * pagestat was built without ncursesw). */
int browse_run(const struct walk_config *cfg, const struct browse_source *src);

#endif
