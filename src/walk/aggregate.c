/* SPDX-License-Identifier: MIT */
/* Totals: per-directory subtotals in post-order, and the grand total. */
#include <config.h>

#include "walk/aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

static void sum_clear(struct agg_sum *sum, unsigned known)
{
	memset(sum, 0, sizeof *sum);
	sum->stat.known = known;
}

void agg_init(struct agg *agg, unsigned known)
{
	agg->cap = 64;
	agg->sums = xrealloc(NULL, agg->cap * sizeof *agg->sums);
	agg->depth = 1;
	agg->known = known;
	sum_clear(&agg->sums[0], known);
}

void agg_free(struct agg *agg)
{
	free(agg->sums);
	agg->sums = NULL;
}

void agg_stat_add(struct pagecache_stat *into, const struct pagecache_stat *from)
{
	into->size += from->size;
	into->pages += from->pages;
	into->cached += from->cached;
	into->dirty += from->dirty;
	into->writeback += from->writeback;
	into->evicted += from->evicted;
	into->recently_evicted += from->recently_evicted;
	into->dropped += from->dropped;
	into->read += from->read;
	into->locked += from->locked;
	into->charged += from->charged;
	into->added += from->added;
	into->removed += from->removed;
	into->reclaimed += from->reclaimed;
	into->refaulted += from->refaulted;
	into->known &= from->known;
}

void agg_add(struct agg *agg, long level, const struct pagecache_stat *stat)
{
	struct agg_sum *sum = &agg->sums[level];
	agg_stat_add(&sum->stat, stat);
	sum->files++;
}

void agg_fail(struct agg *agg, long level)
{
	size_t slot = (size_t)level < agg->depth ? (size_t)level : agg->depth - 1;
	agg->sums[slot].failed++;
}

void agg_enter(struct agg *agg, long level)
{
	size_t slot = (size_t)level + 1;
	XGROW(agg->sums, agg->cap, slot + 1);
	sum_clear(&agg->sums[slot], agg->known);
	agg->depth = slot + 1;
}

int agg_is_open(const struct agg *agg, long level)
{
	return (size_t)level + 1 < agg->depth;
}

const struct agg_sum *agg_leave(struct agg *agg, long level)
{
	const struct agg_sum *sum = &agg->sums[level + 1];
	struct agg_sum *parent = &agg->sums[level];

	agg_stat_add(&parent->stat, &sum->stat);
	parent->files += sum->files;
	parent->failed += sum->failed;
	agg->depth = (size_t)level + 1;
	return sum;
}

const struct agg_sum *agg_total(const struct agg *agg)
{
	return &agg->sums[0];
}
