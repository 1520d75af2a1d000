/* SPDX-License-Identifier: MIT */
/* Unit tests of aggregate.c: subtotals in post-order, the grand total, and
 * which counters stay known. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "walk/aggregate.h"
#include "kernel/probe.h"
#include "unit.h"

static struct pagecache_stat file_stat(uint64_t pages, uint64_t cached, uint64_t dirty,
				       uint64_t writeback, uint64_t evicted,
				       uint64_t recently_evicted, unsigned known)
{
	return (struct pagecache_stat){
		.size = pages * 4096 - 100,
		.pages = pages,
		.cached = cached,
		.dirty = dirty,
		.writeback = writeback,
		.evicted = evicted,
		.recently_evicted = recently_evicted,
		.known = known,
	};
}

/* sum holds exactly these counters, files and known bits. */
static void expect_sum(const char *what, const struct agg_sum *sum, uint64_t files,
		       const struct pagecache_stat *want)
{
	const struct pagecache_stat *got = &sum->stat;

	unit_check(sum->files == files && got->size == want->size && got->pages == want->pages &&
			   got->cached == want->cached && got->dirty == want->dirty &&
			   got->writeback == want->writeback && got->evicted == want->evicted &&
			   got->recently_evicted == want->recently_evicted &&
			   got->known == want->known,
		   "%s: files %llu size %llu pages %llu cached %llu dirty %llu writeback %llu "
		   "evicted %llu recently_evicted %llu known %#x; want files %llu size %llu "
		   "pages %llu cached %llu dirty %llu writeback %llu evicted %llu "
		   "recently_evicted %llu known %#x",
		   what, (unsigned long long)sum->files, (unsigned long long)got->size,
		   (unsigned long long)got->pages, (unsigned long long)got->cached,
		   (unsigned long long)got->dirty, (unsigned long long)got->writeback,
		   (unsigned long long)got->evicted, (unsigned long long)got->recently_evicted,
		   got->known, (unsigned long long)files, (unsigned long long)want->size,
		   (unsigned long long)want->pages, (unsigned long long)want->cached,
		   (unsigned long long)want->dirty, (unsigned long long)want->writeback,
		   (unsigned long long)want->evicted, (unsigned long long)want->recently_evicted,
		   want->known);
}

/* Exactly the levels 0..deepest are open (deepest -1: none). */
static void expect_open(const char *what, const struct agg *agg, int deepest)
{
	for (long level = 0; level <= deepest + 1; level++)
		unit_check(!agg_is_open(agg, level) == (level > deepest),
			   "%s: agg_is_open(%ld) is %d", what, level, agg_is_open(agg, level));
}

/* The operands f (a file) and d (a directory: a, e/b, c, g/ empty), the
 * way the walk reports them: a file at level L adds to the directory
 * entered at level L - 1. */
static void test_tree(void)
{
	struct agg agg;
	const struct pagecache_stat f = file_stat(1, 1, 0, 0, 0, 0, PCS_ALL),
				    a = file_stat(3, 2, 1, 1, 4, 2, PCS_ALL),
				    b = file_stat(5, 5, 5, 0, 0, 0, PCS_ALL),
				    c = file_stat(7, 0, 0, 0, 3, 3, PCS_ALL),
				    empty = { .known = PCS_ALL };
	const struct agg_sum *sum;

	agg_init(&agg, PCS_ALL);
	expect_open("nothing entered", &agg, -1);
	expect_sum("total of nothing", agg_total(&agg), 0, &empty);

	agg_add(&agg, 0, &f);
	agg_enter(&agg, 0);
	expect_open("d entered", &agg, 0);
	agg_add(&agg, 1, &a);
	agg_enter(&agg, 1);
	expect_open("d/e entered", &agg, 1);
	agg_add(&agg, 2, &b);
	sum = agg_leave(&agg, 1);
	expect_sum("d/e", sum, 1, &b);
	expect_open("d/e left", &agg, 0);
	agg_add(&agg, 1, &c);
	agg_enter(&agg, 1);
	sum = agg_leave(&agg, 1);
	expect_sum("d/g, empty: zeros, every counter known", sum, 0, &empty);
	/* the file counted at level 0 is not d's */
	expect_sum("total before d is left", agg_total(&agg), 1, &f);
	sum = agg_leave(&agg, 0);
	const struct pagecache_stat d = file_stat(15, 7, 6, 1, 7, 5, PCS_ALL);
	struct pagecache_stat want = d;
	want.size = a.size + b.size + c.size;
	expect_sum("d: a, e/b and c", sum, 3, &want);
	expect_open("d left", &agg, -1);
	want.size += f.size;
	want.pages += 1;
	want.cached += 1;
	expect_sum("total: f and d", agg_total(&agg), 4, &want);

	/* a directory entered again at a level starts from zero */
	agg_enter(&agg, 0);
	agg_add(&agg, 1, &b);
	expect_sum("the next operand directory", agg_leave(&agg, 0), 1, &b);
	want.size += b.size;
	want.pages += b.pages;
	want.cached += b.cached;
	want.dirty += b.dirty;
	expect_sum("total of the three operands", agg_total(&agg), 5, &want);
	agg_free(&agg);
}

/* A file whose method knew only cached (mincore, or an overlayfs file
 * measured through the overlay) makes every sum above it know only cached;
 * its siblings' sums keep what they know. */
static void test_known(void)
{
	struct agg agg;
	const struct pagecache_stat full = file_stat(4, 2, 1, 0, 1, 1, PCS_ALL),
				    mincore = file_stat(2, 1, 0, 0, 0, 0, PCS_CACHED);
	struct pagecache_stat want;

	agg_init(&agg, PCS_ALL);
	agg_enter(&agg, 0);
	agg_enter(&agg, 1);
	agg_add(&agg, 2, &full);
	expect_sum("a directory of known counters", agg_leave(&agg, 1), 1, &full);
	agg_enter(&agg, 1);
	agg_add(&agg, 2, &full);
	agg_add(&agg, 2, &mincore);
	want = file_stat(6, 3, 1, 0, 1, 1, PCS_CACHED);
	want.size = full.size + mincore.size;
	expect_sum("full and mincore: only cached known", agg_leave(&agg, 1), 2, &want);
	want.size += full.size;
	want.pages += full.pages;
	want.cached += full.cached;
	want.dirty += full.dirty;
	want.evicted += full.evicted;
	want.recently_evicted += full.recently_evicted;
	expect_sum("their parent", agg_leave(&agg, 0), 3, &want);
	expect_sum("the total", agg_total(&agg), 3, &want);
	agg_free(&agg);

	/* with mincore as the method, an empty directory knows only cached */
	const struct pagecache_stat nothing = { .known = PCS_CACHED };
	agg_init(&agg, PCS_CACHED);
	agg_enter(&agg, 0);
	expect_sum("an empty directory under mincore", agg_leave(&agg, 0), 0, &nothing);
	expect_sum("total under mincore", agg_total(&agg), 0, &nothing);
	agg_free(&agg);

	struct pagecache_stat into = full;
	agg_stat_add(&into, &mincore);
	unit_check(into.known == PCS_CACHED && into.cached == 3 && into.pages == 6,
		   "agg_stat_add: known %#x cached %llu pages %llu", into.known,
		   (unsigned long long)into.cached, (unsigned long long)into.pages);
}

/* 200 levels, past the first allocation: a file at each level L (cached
 * L pages); the directory at level L holds the files below it. */
static void test_deep(void)
{
	enum { DEPTH = 200 };
	struct agg agg;
	uint64_t below = 0;

	agg_init(&agg, PCS_ALL);
	for (long level = 0; level < DEPTH; level++) {
		agg_enter(&agg, level);
		struct pagecache_stat st = file_stat(DEPTH, (uint64_t)level + 1, 0, 0, 0, 0,
						     PCS_ALL);
		agg_add(&agg, level + 1, &st);
	}
	expect_open("200 deep", &agg, DEPTH - 1);
	for (long level = DEPTH - 1; level >= 0; level--) {
		const struct agg_sum *sum = agg_leave(&agg, level);
		below += (uint64_t)level + 1;
		unit_check(sum->files == (uint64_t)(DEPTH - level) && sum->stat.cached == below &&
				   sum->stat.pages == (uint64_t)(DEPTH - level) * DEPTH,
			   "level %ld: files %llu cached %llu pages %llu", level,
			   (unsigned long long)sum->files, (unsigned long long)sum->stat.cached,
			   (unsigned long long)sum->stat.pages);
	}
	const struct agg_sum *total = agg_total(&agg);
	unit_check(total->files == DEPTH && total->stat.cached == DEPTH * (DEPTH + 1) / 2 &&
			   total->stat.known == PCS_ALL,
		   "200 deep, total: files %llu cached %llu known %#x",
		   (unsigned long long)total->files, (unsigned long long)total->stat.cached,
		   total->stat.known);
	agg_free(&agg);
}

void unit_aggregate(void)
{
	test_tree();
	test_known();
	test_deep();
}
