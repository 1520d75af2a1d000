/* SPDX-License-Identifier: MIT */
/* --cgroup: a memory cgroup's own figures (memory.stat), the files its
 * processes map or hold open, and how much of its file pages they hold. */
#ifndef PAGESTAT_CGROUP_H
#define PAGESTAT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/memstat.h"
#include "output/sink.h"
#include "walk/source.h"

struct cgroup_set {
	struct cgroup_figures *cgroups;
	size_t n;
};

/* Finds each name (an absolute path under a cgroup mount; a path relative
 * to the memory controller's v1 mount, else to the v2 mount; "self") and
 * checks it is a memory cgroup.  False, having said why naming it, when
 * one is not: nothing is inspected then (status 2). */
bool cgroup_resolve(const char *const *names, size_t n, struct cgroup_set *set);

/* Each cgroup's processes' files, a row each as --pid gives them, then
 * the cgroup's row (type cgroup) summing them and pointing to its
 * figures; the total sums the cgroups' rows.  The rows point into set
 * until cgroup_set_free. */
void cgroup_run(const struct walk_config *cfg, struct cgroup_set *set, struct sink *sink,
		struct walk_result *result);

/* --system: a row (type cgroup, figures only: cached, dirty and writeback
 * are memory.stat's file, dirty and writeback) for each memory cgroup
 * holding file pages, down to depth below the root (0: the root alone),
 * the top of them by file pages (top 0: all), most first.  The rows
 * point into *set until cgroup_set_free.  False when the output failed. */
bool cgroup_system_rows(const struct walk_config *cfg, long depth, struct sink *sink,
			struct cgroup_set *set);

void cgroup_set_free(struct cgroup_set *set);

#endif
