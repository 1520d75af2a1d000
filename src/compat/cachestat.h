/* SPDX-License-Identifier: MIT */
/* cachestat(2) definitions for C libraries and kernel headers that lack them. */
#ifndef PAGESTAT_COMPAT_CACHESTAT_H
#define PAGESTAT_COMPAT_CACHESTAT_H

#include <stdint.h>
#include <sys/syscall.h>
#include <linux/mman.h>

/* The syscall number is the same on every architecture that has it
 * (it was added to the generic table in Linux 6.5). */
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* HAVE_STRUCT_* come from config.h, which every source file includes first. */
#ifndef HAVE_STRUCT_CACHESTAT_RANGE
struct cachestat_range {
	uint64_t off;
	uint64_t len; /* 0: to the end of the file */
};
#endif

#ifndef HAVE_STRUCT_CACHESTAT
struct cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};
#endif

#endif
