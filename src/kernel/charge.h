/* SPDX-License-Identifier: MIT */
/* --charged: the cached pages of a file's range charged to a memory
 * cgroup (or one below it), through /proc/self/pagemap and
 * /proc/kpagecgroup (root only: CAP_SYS_ADMIN). */
#ifndef PAGESTAT_CHARGE_H
#define PAGESTAT_CHARGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct charge {
	FILE *pagemap, *kpagecgroup; /* opened once a run; NULL until then */
	int pagemap_fd;     /* /proc/self/pagemap, read with pread by every thread */
	int kpagecgroup_fd; /* /proc/kpagecgroup */
	uint64_t *inodes;   /* the cgroups' directories and those below, sorted */
	size_t ninodes;
	uint64_t page_size;
};

/* Opens the two files (while CAP_SYS_ADMIN is in effect) and collects the
 * inode of each directory (and of every directory below it) in dirs.
 * Returns 0, or an errno value with *why saying what failed. */
int charge_init(struct charge *c, const char *const *dirs, size_t ndirs, uint64_t page_size,
		const char **why);
void charge_free(struct charge *c);

/* The pages of [start, end) of the open file fd that are resident and
 * charged to one of c's cgroups, into *charged.  Only pages mincore says
 * are resident are faulted in (readahead off); a page evicted between the
 * two is read back and counted only if charged.  Every mapping is undone.
 * Returns 0 or an errno value. */
int charge_count(const struct charge *c, int fd, uint64_t start, uint64_t end,
		 uint64_t *charged);

#endif
