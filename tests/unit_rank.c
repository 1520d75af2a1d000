/* SPDX-License-Identifier: MIT */
/* Unit tests of rank.c (--sort, --top) through a sink that records what
 * reaches it: the order, ties in walk order, --reverse, failed rows and
 * directory rows, and the bounded heap against a plain reference. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/columns.h"
#include "output/rank.h"
#include "output/sink.h"
#include "unit.h"

enum { MAX_ROWS = 2100 };

/* What the recording sink was handed, copied out of each row. */
struct seen {
	char path[24];
	enum row_type type;
	uint64_t cached;
	int error;
	size_t nsegments;
	uint64_t segment_cached[2];
	size_t nextents;
	uint64_t extent_offset;
	char backing[16];
};

struct record {
	struct seen rows[MAX_ROWS];
	size_t nrows;
	unsigned begun, ended;
	bool ended_with_total;
	uint64_t end_errors;
	size_t rows_at_begin;
};

static struct record record;

static void record_begin(struct sink *sink)
{
	record.begun++;
	record.rows_at_begin = record.nrows;
}

static void record_row(struct sink *sink, const struct row *row)
{
	if (record.nrows == MAX_ROWS)
		return;
	struct seen *s = &record.rows[record.nrows++];
	snprintf(s->path, sizeof s->path, "%.*s", (int)row->path_len, row->path ? row->path : "");
	s->type = row->type;
	s->cached = row->stat.cached;
	s->error = row->error;
	s->nsegments = row->nsegments;
	for (size_t i = 0; i < row->nsegments && i < 2; i++)
		s->segment_cached[i] = row->segments[i].cached;
	s->nextents = row->nextents;
	s->extent_offset = row->nextents ? row->extents[0].offset : 0;
	snprintf(s->backing, sizeof s->backing, "%s", row->stat.backing ? row->stat.backing : "");
}

static void record_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	record.ended++;
	record.ended_with_total = total && total->type == ROW_TOTAL;
	record.end_errors = errors;
}

static const struct sink_ops record_ops = {
	.begin = record_begin,
	.row = record_row,
	.end = record_end,
};

static FILE *devnull;

/* A --sort/--top sink in front of the recording one, record emptied. */
static struct sink *rank_new(enum column_id key, bool reverse, uint64_t top, bool files_only)
{
	struct sink *out = calloc(1, sizeof *out);
	const struct rank_config cfg = {
		.key = key, .reverse = reverse, .top = top, .files_only = files_only,
	};

	if (!out)
		abort();
	out->ops = &record_ops;
	out->cfg.out = devnull;
	memset(&record, 0, sizeof record);
	return sink_rank_new(out, &cfg);
}

/* One row as the walk hands it: path and segments in buffers that the
 * next row reuses, so the rank sink must keep copies. */
struct input {
	const char *path;
	enum row_type type;
	uint64_t pages, cached, dirty;
	unsigned known;
	int error;
};

static void feed(struct sink *sink, const struct input *in, size_t n)
{
	static char path[64];
	static struct segment segments[2];
	static struct extent extents[1];
	static char backing[16];

	for (size_t i = 0; i < n; i++) {
		struct row row = {
			.type = in[i].type,
			.error = in[i].error,
			.stat = { .pages = in[i].pages, .cached = in[i].cached,
				  .dirty = in[i].dirty, .known = in[i].known ? in[i].known : PCS_ALL },
		};
		row.path_len = (size_t)snprintf(path, sizeof path, "%s", in[i].path);
		row.path = path;
		if (in[i].type == ROW_FILE && !in[i].error) {
			segments[0].cached = in[i].cached;
			segments[1].cached = in[i].cached + 1;
			extents[0].offset = in[i].cached * 10;
			snprintf(backing, sizeof backing, "b-%s", in[i].path);
			row.segments = segments;
			row.nsegments = 2;
			row.extents = extents;
			row.nextents = 1;
			row.stat.backing = backing;
		}
		sink_row(sink, &row);
	}
	memset(path, 'X', sizeof path - 1);
	memset(segments, 0xff, sizeof segments);
	memset(backing, 'X', sizeof backing - 1);
}

/* The paths recorded, comma-separated. */
static const char *order(void)
{
	static char text[16384];
	size_t len = 0;

	text[0] = '\0';
	for (size_t i = 0; i < record.nrows && len < sizeof text; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i ? "," : "",
					record.rows[i].path);
	return text;
}

/* Rank in with these settings and expect the rows in the order want. */
static void expect_order(const char *what, const struct input *in, size_t n,
			 enum column_id key, bool reverse, uint64_t top, bool files_only,
			 const char *want)
{
	struct sink *sink = rank_new(key, reverse, top, files_only);
	const struct row total = { .type = ROW_TOTAL };

	sink_begin(sink);
	feed(sink, in, n);
	unit_check(record.begun == 1 && record.nrows == 0,
		   "%s: %zu rows passed on before the end (begun %u)", what, record.nrows,
		   record.begun);
	sink_end(sink, &total, 3);
	unit_check(record.ended == 1 && record.ended_with_total && record.end_errors == 3,
		   "%s: the end (%u times) must pass the total and the error count on", what,
		   record.ended);
	unit_expect_str(what, order(), want);
	sink_free(sink);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* cached 5 9 1 9 3 7 9: three ties at 9 */
static const struct input seven[] = {
	{ "p0", ROW_FILE, 10, 5, 0, 0, 0 }, { "p1", ROW_FILE, 10, 9, 0, 0, 0 },
	{ "p2", ROW_FILE, 10, 1, 0, 0, 0 }, { "p3", ROW_FILE, 10, 9, 0, 0, 0 },
	{ "p4", ROW_FILE, 10, 3, 0, 0, 0 }, { "p5", ROW_FILE, 10, 7, 0, 0, 0 },
	{ "p6", ROW_FILE, 10, 9, 0, 0, 0 },
};

static void test_top(void)
{
	const struct input *in = seven;
	size_t n = N(seven);

	expect_order("sort by cached", in, n, COL_CACHED, false, 0, false,
		     "p1,p3,p6,p5,p0,p4,p2");
	expect_order("--top 1", in, n, COL_CACHED, false, 1, false, "p1");
	expect_order("--top 2: the first two of three ties", in, n, COL_CACHED, false, 2, false,
		     "p1,p3");
	expect_order("--top 3", in, n, COL_CACHED, false, 3, false, "p1,p3,p6");
	expect_order("--top 4", in, n, COL_CACHED, false, 4, false, "p1,p3,p6,p5");
	expect_order("--top 6", in, n, COL_CACHED, false, 6, false, "p1,p3,p6,p5,p0,p4");
	expect_order("--top 7", in, n, COL_CACHED, false, 7, false, "p1,p3,p6,p5,p0,p4,p2");
	expect_order("--top 100", in, n, COL_CACHED, false, 100, false, "p1,p3,p6,p5,p0,p4,p2");
	expect_order("--reverse", in, n, COL_CACHED, true, 0, false, "p2,p4,p0,p5,p1,p3,p6");
	expect_order("--reverse --top 2", in, n, COL_CACHED, true, 2, false, "p2,p4");
	expect_order("--reverse --top 5: ties still in walk order", in, n, COL_CACHED, true, 5,
		     false, "p2,p4,p0,p5,p1");
	expect_order("--top 3 of nothing", in, 0, COL_CACHED, false, 3, false, "");
	expect_order("sort by pages: all tie, walk order", in, n, COL_PAGES, false, 0, false,
		     "p0,p1,p2,p3,p4,p5,p6");
	expect_order("--reverse, all tie: walk order", in, n, COL_PAGES, true, 2, false,
		     "p0,p1");
}

static void test_failed_and_directories(void)
{
	static const struct input in[] = {
		{ "f0", ROW_FILE, 10, 2, 0, 0, 0 },
		{ "bad1", ROW_FILE, 0, 0, 0, 0, 13 },
		{ "d", ROW_DIRECTORY, 30, 8, 0, 0, 0 },
		{ "f1", ROW_FILE, 10, 6, 0, 0, 0 },
		{ "bad2", ROW_DIRECTORY, 0, 0, 0, 0, 2 },
		{ "f2", ROW_FILE, 10, 4, 0, 0, 0 },
		{ "top", ROW_DIRECTORY, 40, 12, 0, 0, 0 },
	};

	/* failed rows follow the ordered ones, in walk order */
	expect_order("failed rows last", in, N(in), COL_CACHED, false, 0, false,
		     "top,d,f1,f2,f0,bad1,bad2");
	expect_order("failed rows last, --reverse", in, N(in), COL_CACHED, true, 0, false,
		     "f0,f2,f1,d,top,bad1,bad2");
	/* with --top they are left out (stderr told of them) */
	expect_order("--top 10 leaves failed rows out", in, N(in), COL_CACHED, false, 10, false,
		     "top,d,f1,f2,f0");
	expect_order("--top 2 with directories", in, N(in), COL_CACHED, false, 2, false, "top,d");
	expect_order("--top 2, files only", in, N(in), COL_CACHED, false, 2, true, "f1,f2");
	expect_order("--top 5, files only, --reverse", in, N(in), COL_CACHED, true, 5, true,
		     "f0,f2,f1");
}

static void test_keys(void)
{
	static const struct input paths[] = {
		{ "ab", ROW_FILE, 1, 0, 0, 0, 0 }, { "a/b", ROW_FILE, 1, 0, 0, 0, 0 },
		{ "B", ROW_FILE, 1, 0, 0, 0, 0 },  { "a", ROW_DIRECTORY, 2, 0, 0, 0, 0 },
		{ "\xc3\xa9", ROW_FILE, 1, 0, 0, 0, 0 }, { "a b", ROW_FILE, 1, 0, 0, 0, 0 },
	};
	/* bytes, not the locale: 'B' < 'a', and a prefix first */
	expect_order("by path", paths, N(paths), COL_PATH, false, 0, false,
		     "B,a,a b,a/b,ab,\xc3\xa9");
	expect_order("by path, --reverse --top 3", paths, N(paths), COL_PATH, true, 3, false,
		     "\xc3\xa9,ab,a/b");
	expect_order("by type", paths, N(paths), COL_TYPE, false, 0, false, "a,ab,a/b,B,\xc3\xa9,a b");

	/* percent without dividing: 2/3 > 1/2 > 1/3 = 2/6; no pages: unknown, last */
	static const struct input shares[] = {
		{ "third", ROW_FILE, 3, 1, 0, 0, 0 }, { "empty", ROW_FILE, 0, 0, 0, 0, 0 },
		{ "half", ROW_FILE, 2, 1, 0, 0, 0 },  { "sixth2", ROW_FILE, 6, 2, 0, 0, 0 },
		{ "two3", ROW_FILE, 3, 2, 0, 0, 0 },
		{ "huge", ROW_FILE, UINT64_C(1) << 62, (UINT64_C(1) << 62) - 1, 0, 0, 0 },
	};
	expect_order("by percent", shares, N(shares), COL_PERCENT, false, 0, false,
		     "huge,two3,half,third,sixth2,empty");
	expect_order("by percent, --reverse: unknown still last", shares, N(shares), COL_PERCENT,
		     true, 0, false, "third,sixth2,half,two3,huge,empty");

	/* counters the method did not know go last, in walk order */
	static const struct input dirty[] = {
		{ "m1", ROW_FILE, 4, 4, 0, PCS_CACHED, 0 }, { "d1", ROW_FILE, 4, 4, 1, 0, 0 },
		{ "m2", ROW_FILE, 4, 4, 0, PCS_CACHED, 0 }, { "d3", ROW_FILE, 4, 4, 3, 0, 0 },
		{ "d0", ROW_FILE, 4, 4, 0, 0, 0 },
	};
	expect_order("by dirty, unknown last", dirty, N(dirty), COL_DIRTY, false, 0, false,
		     "d3,d1,d0,m1,m2");
	expect_order("by dirty, --reverse, unknown last", dirty, N(dirty), COL_DIRTY, true, 0,
		     false, "d0,d1,d3,m1,m2");
	expect_order("by dirty, --top 4", dirty, N(dirty), COL_DIRTY, false, 4, false,
		     "d3,d1,d0,m1");
	expect_order("by dirty, --reverse --top 3", dirty, N(dirty), COL_DIRTY, true, 3, false,
		     "d0,d1,d3");
}

/* What the rank sink keeps outlives the walk's buffers: path, segments,
 * extents and the backing file's name are its own copies. */
static void test_copies(void)
{
	struct sink *sink = rank_new(COL_CACHED, false, 2, false);
	const struct row total = { .type = ROW_TOTAL };

	feed(sink, seven, N(seven));
	sink_end(sink, &total, 0);
	if (unit_check(record.nrows == 2, "--top 2 passed %zu rows on", record.nrows)) {
		const struct seen *s = &record.rows[1];
		unit_check(strcmp(s->path, "p3") == 0 && s->nsegments == 2 &&
				   s->segment_cached[0] == 9 && s->segment_cached[1] == 10 &&
				   s->nextents == 1 && s->extent_offset == 90 &&
				   strcmp(s->backing, "b-p3") == 0,
			   "kept row: path %s, %zu segments (%llu %llu), %zu extents (%llu), "
			   "backing %s",
			   s->path, s->nsegments, (unsigned long long)s->segment_cached[0],
			   (unsigned long long)s->segment_cached[1], s->nextents,
			   (unsigned long long)s->extent_offset, s->backing);
	}
	sink_free(sink);
}

/* The heap against a reference: rows in walk order, taken by value from
 * the largest (smallest with reverse), ties in walk order; failed rows
 * after them without top, never with it. */
enum { RANDOM_ROWS = 2000, MAX_CACHED = 20 };

static struct input random_rows[RANDOM_ROWS];
static char random_paths[RANDOM_ROWS][8];

static void make_random_rows(void)
{
	uint32_t x = 12345;
	for (size_t i = 0; i < RANDOM_ROWS; i++) {
		x = x * 1103515245 + 12345; /* any fixed sequence will do */
		uint32_t r = x >> 16;
		snprintf(random_paths[i], sizeof random_paths[i], "r%zu", i);
		random_rows[i] = (struct input){
			.path = random_paths[i],
			.type = r % 7 == 0 ? ROW_DIRECTORY : ROW_FILE,
			.pages = MAX_CACHED,
			.cached = (r >> 3) % (MAX_CACHED + 1),
			.error = r % 31 == 0 ? 5 : 0,
		};
	}
}

static const char *reference(bool reverse, uint64_t top, bool files_only)
{
	static char text[RANDOM_ROWS * 8];
	size_t len = 0, taken = 0;

	text[0] = '\0';
	for (int step = 0; step <= MAX_CACHED; step++) {
		uint64_t value = reverse ? (uint64_t)step : (uint64_t)(MAX_CACHED - step);
		for (size_t i = 0; i < RANDOM_ROWS && (!top || taken < top); i++) {
			const struct input *in = &random_rows[i];
			if (in->error || in->cached != value ||
			    (files_only && in->type == ROW_DIRECTORY))
				continue;
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
						taken++ ? "," : "", in->path);
		}
	}
	for (size_t i = 0; !top && i < RANDOM_ROWS; i++)
		if (random_rows[i].error)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
						taken++ ? "," : "", random_rows[i].path);
	return text;
}

static void test_against_reference(void)
{
	static const uint64_t tops[] = { 0, 1, 2, 3, 10, 64, 255, 256, 257, 1000, 1999,
					 2000, 5000 };
	make_random_rows();
	for (size_t t = 0; t < N(tops); t++)
		for (int flags = 0; flags < 4; flags++) {
			bool reverse = flags & 1, files_only = flags & 2;
			char what[96];
			snprintf(what, sizeof what, "%d random rows, --top %llu%s%s", RANDOM_ROWS,
				 (unsigned long long)tops[t], reverse ? " --reverse" : "",
				 files_only ? ", files only" : "");
			/* expect_order's message would be long: compare here */
			struct sink *sink = rank_new(COL_CACHED, reverse, tops[t], files_only);
			const struct row total = { .type = ROW_TOTAL };
			feed(sink, random_rows, RANDOM_ROWS);
			sink_end(sink, &total, 0);
			const char *got = order(), *want = reference(reverse, tops[t], files_only);
			size_t at = 0;
			while (got[at] && got[at] == want[at])
				at++;
			unit_check(got[at] == want[at], "%s: from byte %zu got \"%.60s\", want \"%.60s\"",
				   what, at, got + at, want + at);
			sink_free(sink);
		}
}

void unit_rank(void)
{
	devnull = fopen("/dev/null", "w");
	if (!unit_check(devnull != NULL, "cannot open /dev/null"))
		return;
	test_top();
	test_failed_and_directories();
	test_keys();
	test_copies();
	test_against_reference();
	fclose(devnull);
}
