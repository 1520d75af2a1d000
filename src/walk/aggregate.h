/* SPDX-License-Identifier: MIT */
/* Totals: per-directory subtotals in post-order, and the grand total. */
#ifndef PAGESTAT_AGGREGATE_H
#define PAGESTAT_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/probe.h"

struct agg_sum {
	struct pagecache_stat stat;
	uint64_t files;
	uint64_t failed; /* files and directories below that could not be inspected */
};

/* sums[0] is the grand total; sums[L + 1] the directory open at walk
 * level L.  A file at level L adds to sums[L], its directory's sum. */
struct agg {
	struct agg_sum *sums;
	size_t depth; /* sums in use: 1 + directories open */
	size_t cap;
	unsigned known; /* counters the method knows, for empty sums */
};

void agg_init(struct agg *agg, unsigned known);
void agg_free(struct agg *agg);

/* Add one file found at walk level `level` (0 for an operand). */
void agg_add(struct agg *agg, long level, const struct pagecache_stat *stat);

/* Something at walk level `level` could not be inspected. */
void agg_fail(struct agg *agg, long level);

/* A directory at walk level `level` opens. */
void agg_enter(struct agg *agg, long level);

/* True when the directory at `level` is open (entered, not yet left). */
int agg_is_open(const struct agg *agg, long level);

/* The directory at `level` is done: its subtotal is added to its parent
 * and returned (valid until the next agg_enter). */
const struct agg_sum *agg_leave(struct agg *agg, long level);

const struct agg_sum *agg_total(const struct agg *agg);

/* into += from; a counter stays known only where both know it. */
void agg_stat_add(struct pagecache_stat *into, const struct pagecache_stat *from);

#endif
