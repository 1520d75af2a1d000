/* SPDX-License-Identifier: MIT */
/* Unit tests of columns.c: -o lists, name lookup, the default columns and
 * where -i puts DELTA. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/columns.h"
#include "unit.h"

/* ids[0..n) as "-o" names, for messages. */
static const char *names(const enum column_id *ids, size_t n)
{
	static char text[512];
	size_t len = 0;

	text[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof text; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i ? "," : "",
					(unsigned)ids[i] < COL_COUNT ? columns[ids[i]].name : "?");
	return text;
}

static void expect_ids(const char *what, const enum column_id *got, size_t n, const char *want)
{
	unit_expect_str(what, names(got, n), want);
}

static void test_lookup(void)
{
	static const struct {
		const char *name;
		size_t len;
		int want;
	} cases[] = {
		{ "path", 4, COL_PATH },
		{ "PATH", 4, COL_PATH },
		{ "Recently_Evicted", 16, COL_RECENTLY_EVICTED },
		{ "delta", 5, COL_DELTA },
		{ "cached,size", 6, COL_CACHED }, /* only len bytes are the name */
		{ "cach", 4, -1 },                /* no prefixes */
		{ "cachedx", 7, -1 },
		{ "", 0, -1 },
		{ "size ", 5, -1 },
		{ "recently-evicted", 16, -1 },
		{ "pages_bytes", 11, -1 },        /* a JSON twin, not a column */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got = column_lookup(cases[i].name, cases[i].len);
		unit_check(got == cases[i].want, "column_lookup(\"%.*s\"): %d, want %d",
			   (int)cases[i].len, cases[i].name, got, cases[i].want);
	}
	/* every column is found by its own name, in capitals too */
	for (int id = 0; id < COL_COUNT; id++) {
		char upper[32];
		size_t len = strlen(columns[id].name);
		for (size_t i = 0; i <= len && i < sizeof upper; i++)
			upper[i] = (char)(columns[id].name[i] >= 'a' && columns[id].name[i] <= 'z'
						  ? columns[id].name[i] - 'a' + 'A' : columns[id].name[i]);
		unit_check(len < sizeof upper && column_lookup(upper, len) == id &&
				   column_lookup(columns[id].name, len) == id,
			   "column_lookup does not find %s", columns[id].name);
	}
}

/* columns_parse(list) from the columns start (a "-o" list, or "" for
 * none): 0 and want, or -1 with bad naming the unknown name. */
static void expect_parse(const char *start, const char *list, bool keep_path_last,
			 const char *want, const char *bad_want)
{
	enum column_id ids[COL_COUNT];
	size_t n = 0;
	const char *bad = NULL;
	size_t bad_len = 0;
	char what[128];

	if (*start && columns_parse(start, ids, &n, false, &bad, &bad_len) != 0) {
		unit_check(false, "columns_parse(\"%s\") refused", start);
		return;
	}
	snprintf(what, sizeof what, "columns_parse(\"%s\" after \"%s\"%s)", list, start,
		 keep_path_last ? ", path last" : "");
	size_t before = n;
	int rc = columns_parse(list, ids, &n, keep_path_last, &bad, &bad_len);
	if (!bad_want) {
		if (unit_check(rc == 0, "%s refused \"%.*s\"", what, (int)bad_len, bad ? bad : ""))
			expect_ids(what, ids, n, want);
		return;
	}
	unit_check(rc == -1 && n == before, "%s: %d (%zu columns), want -1 and %zu columns", what,
		   rc, n, before);
	/* bad points into list itself, so that the message can quote it */
	unit_check(bad >= list && bad <= list + strlen(list) && bad_len == strlen(bad_want) &&
			   strncmp(bad, bad_want, bad_len) == 0,
		   "%s: bad \"%.*s\", want \"%s\"", what, (int)bad_len, bad ? bad : "", bad_want);
}

static void test_parse(void)
{
	expect_parse("", "size,cached", false, "size,cached", NULL);
	expect_parse("", "Size,CACHED,path", false, "size,cached,path", NULL);
	expect_parse("", "path,size", true, "path,size", NULL); /* only "+" moves PATH */
	/* a column named twice is shown once, where first named */
	expect_parse("", "size,cached,size,SIZE,path,cached", false, "size,cached,path", NULL);
	expect_parse("", "recently_evicted", false, "recently_evicted", NULL);
	expect_parse("", "size,bogus,cached", false, NULL, "bogus");
	expect_parse("", "", false, NULL, "");
	expect_parse("", "size,", false, NULL, "");
	expect_parse("", ",size", false, NULL, "");
	expect_parse("", "size,,cached", false, NULL, "");
	expect_parse("", "size ,cached", false, NULL, "size ");
	expect_parse("", "+", false, NULL, "");
	expect_parse("", "++size", false, NULL, "+size");
	expect_parse("", "size,+cached", false, NULL, "+cached");

	/* "+LIST" appends to what is there, before a final PATH in the table */
	expect_parse("size,cached,path", "+pages", true, "size,cached,pages,path", NULL);
	expect_parse("size,cached,path", "+pages", false, "size,cached,path,pages", NULL);
	expect_parse("size,cached,path", "+pages,type,dirty", true,
		     "size,cached,pages,type,dirty,path", NULL);
	expect_parse("size,cached,path", "+path", true, "size,cached,path", NULL);
	expect_parse("size,cached,path", "+pages,path", true, "size,cached,pages,path", NULL);
	expect_parse("size,cached,path", "+cached,size", true, "size,cached,path", NULL);
	expect_parse("path,size", "+pages", true, "path,size,pages", NULL);
	expect_parse("", "+pages", true, "pages", NULL);
	expect_parse("size,cached,path", "+pages,nope", true, NULL, "nope");

	/* every column, in the table's order, then each in capitals once more */
	char all[512] = "", twice[1024] = "";
	for (int id = 0; id < COL_COUNT; id++)
		snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", id ? "," : "",
			 columns[id].name);
	snprintf(twice, sizeof twice, "%s,%s", all, all);
	for (char *p = twice + strlen(all); *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	expect_parse("", twice, false, all, NULL);
}

static void test_default(void)
{
	enum column_id ids[COL_COUNT];
	static const struct {
		bool table, all, segments, extents;
		const char *want;
	} cases[] = {
		{ true, false, false, false,
		  "size,cached,percent,dirty,writeback,evicted,files,path" },
		{ true, false, true, true,
		  "size,cached,percent,dirty,writeback,evicted,files,segments,extents,path" },
		{ true, true, false, false,
		  "type,size,pages,cached,percent,dirty,writeback,evicted,recently_evicted,files,"
		  "backing,inode,file_size,mtime,mtime_nsec,path" },
		{ true, true, false, true,
		  "type,size,pages,cached,percent,dirty,writeback,evicted,recently_evicted,files,"
		  "backing,inode,file_size,mtime,mtime_nsec,extents,path" },
		/* the table shows no identity with -e alone */
		{ true, false, false, true,
		  "size,cached,percent,dirty,writeback,evicted,files,extents,path" },
		{ false, false, false, false,
		  "path,type,size,pages,cached,percent,dirty,writeback,evicted,recently_evicted,"
		  "files,backing" },
		{ false, true, true, false,
		  "path,type,size,pages,cached,percent,dirty,writeback,evicted,recently_evicted,"
		  "files,backing,inode,file_size,mtime,mtime_nsec,segments" },
		/* a snapshot (-e) carries what tells a changed file */
		{ false, false, true, true,
		  "path,type,size,pages,cached,percent,dirty,writeback,evicted,recently_evicted,"
		  "files,backing,inode,file_size,mtime,mtime_nsec,segments,extents" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char what[96];
		snprintf(what, sizeof what, "columns_default(table %d, all %d, -S %d, -e %d)",
			 cases[i].table, cases[i].all, cases[i].segments, cases[i].extents);
		size_t n = columns_default(ids, cases[i].table, cases[i].all, cases[i].segments,
					   cases[i].extents);
		expect_ids(what, ids, n, cases[i].want);
	}
}

/* columns_add_delta on the columns of a "-o" list. */
static void expect_delta(const char *list, const char *want)
{
	enum column_id ids[COL_COUNT];
	size_t n = 0;
	const char *bad;
	size_t bad_len;
	char what[96];

	if (*list && columns_parse(list, ids, &n, false, &bad, &bad_len) != 0) {
		unit_check(false, "columns_parse(\"%s\") refused", list);
		return;
	}
	snprintf(what, sizeof what, "columns_add_delta(%s)", list);
	n = columns_add_delta(ids, n);
	expect_ids(what, ids, n, want);
}

/* An action's column goes where -i's delta would. */
static void test_action_columns(void)
{
	enum column_id ids[COL_COUNT];
	size_t n = columns_default(ids, true, false, false, false);
	n = columns_add_near_cached(ids, n, COL_READ);
	expect_ids("columns_add_near_cached(READ) on the table's defaults", ids, n,
		   "size,cached,percent,read,dirty,writeback,evicted,files,path");
	n = columns_add_near_cached(ids, n, COL_READ);
	unit_check(n == 9, "READ added twice: %zu columns, want 9", n);
	n = columns_default(ids, false, false, false, false);
	n = columns_add_near_cached(ids, n, COL_DROPPED);
	expect_ids("columns_add_near_cached(DROPPED) on JSON's defaults", ids, n,
		   "path,type,size,pages,cached,percent,dropped,dirty,writeback,evicted,"
		   "recently_evicted,files,backing");
}

static void test_delta(void)
{
	expect_delta("size,cached,percent,dirty,path", "size,cached,percent,delta,dirty,path");
	expect_delta("percent,size,cached,path", "percent,delta,size,cached,path");
	expect_delta("size,cached,dirty,path", "size,cached,delta,dirty,path");
	expect_delta("size,cached", "size,cached,delta");
	expect_delta("path,cached", "path,cached,delta");
	expect_delta("size,dirty,path", "size,dirty,delta,path");
	expect_delta("path", "delta,path");
	expect_delta("path,size", "path,size,delta");
	expect_delta("size", "size,delta");
	expect_delta("", "delta");
	expect_delta("delta,size,cached,path", "delta,size,cached,path");
	expect_delta("size,cached,delta", "size,cached,delta");
}

/* column_text of a row as a NUL-terminated string (NULL when none). */
static const char *text_of(enum column_id id, const struct row *row)
{
	static char buf[256];
	size_t len = 0;
	const char *text = column_text(id, row, &len);

	if (!text)
		return NULL;
	snprintf(buf, sizeof buf, "%.*s", (int)len, text);
	return buf;
}

static void test_row_text(void)
{
	struct row row = { .type = ROW_DIRECTORY };

	unit_expect_str("type of a directory row", text_of(COL_TYPE, &row), "directory");
	unit_check(text_of(COL_BACKING, &row) == NULL, "a row without backing has no text");
	row.stat.backing = "/lower/f";
	unit_expect_str("backing", text_of(COL_BACKING, &row), "/lower/f");
	unit_expect_str("row_type_name(ROW_TOTAL)", row_type_name(ROW_TOTAL), "total");
	unit_expect_str("row_type_name(ROW_BLOCKDEV)", row_type_name(ROW_BLOCKDEV), "blockdev");

	uint64_t value = 12345;
	row.stat.cached = 7;
	row.stat.known = PCS_CACHED;
	row.stat.dirty = 3;
	row.files = 9;
	unit_check(column_value(COL_CACHED, &row, &value) && value == 7,
		   "column_value(cached) of a known 7: %llu", (unsigned long long)value);
	unit_check(column_value(COL_FILES, &row, &value) && value == 9,
		   "column_value(files): %llu", (unsigned long long)value);
	/* mincore knows only cached: dirty is unknown, not 0 nor 3 */
	value = 12345;
	unit_check(!column_value(COL_DIRTY, &row, &value) && value == 12345,
		   "column_value(dirty) without PCS_DIRTY must be unknown, the value untouched");
}

/* What column_known and column_text say of a row. */
static void expect_column(const char *what, enum column_id id, const struct row *row,
			  bool known, const char *text)
{
	const char *got = text_of(id, row);

	unit_check(column_known(id, row) == known, "%s: known is %d, want %d", what, !known,
		   known);
	if (columns[id].kind != KIND_TEXT)
		return;
	unit_check((got == NULL) == (text == NULL) && (!got || strcmp(got, text) == 0),
		   "%s: text \"%s\", want \"%s\"", what, got ? got : "(null)",
		   text ? text : "(null)");
}

/* The path is path_len bytes; the total's path and type are "total";
 * what a method or a row lacks is unknown, never 0. */
static void test_known(void)
{
	/* mincore knows only cached: no pages cached is still 0%, known */
	struct row file = { .path = "dir/f.txt", .path_len = 5, .type = ROW_FILE,
			    .stat = { .pages = 4, .known = PCS_CACHED } };
	struct row total = { .type = ROW_TOTAL, .stat = { .known = PCS_ALL } };

	expect_column("path: path_len bytes", COL_PATH, &file, true, "dir/f");
	expect_column("type", COL_TYPE, &file, true, "file");
	expect_column("no backing file", COL_BACKING, &file, false, NULL);
	expect_column("cached by mincore", COL_CACHED, &file, true, NULL);
	expect_column("dirty unknown to mincore", COL_DIRTY, &file, false, NULL);
	expect_column("percent of 4 pages", COL_PERCENT, &file, true, NULL);
	expect_column("segments of a file", COL_SEGMENTS, &file, true, NULL);
	expect_column("delta on a first sample", COL_DELTA, &file, false, NULL);
	expect_column("the total's path", COL_PATH, &total, true, "total");
	expect_column("the total's type", COL_TYPE, &total, true, "total");
	expect_column("percent of no pages", COL_PERCENT, &total, false, NULL);
	expect_column("extents of the total", COL_EXTENTS, &total, false, NULL);
	expect_column("size", COL_SIZE, &total, true, NULL);
	file.delta_known = true;
	expect_column("delta on a later sample", COL_DELTA, &file, true, NULL);
}

void unit_columns(void)
{
	test_lookup();
	test_parse();
	test_default();
	test_delta();
	test_action_columns();
	test_row_text();
	test_known();
}
