/* SPDX-License-Identifier: MIT */
/* --sort and --top: a sink in front of the output that orders the rows. */
#ifndef PAGESTAT_RANK_H
#define PAGESTAT_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "output/columns.h"
#include "output/sink.h"

struct rank_config {
	enum column_id key; /* numbers largest first, text A-Z */
	bool reverse;
	uint64_t top;          /* keep only this many rows; 0: all of them */
	bool files_only;       /* --top with -a: directory rows are not ranked */
	/* --system: file systems' and block devices' rows (--cgroup: the
	 * cgroups') are not ranked but follow the files, in the order they
	 * came */
	bool others_after;
};

/* A sink that keeps rows and hands them to `out`, ordered, at the end;
 * freeing it frees `out` too.  With top, only that many rows are kept
 * (a bounded heap) and failed rows are left out (stderr told of them);
 * otherwise failed rows follow the ordered ones, in walk order. */
struct sink *sink_rank_new(struct sink *out, const struct rank_config *cfg);

#endif
