/* SPDX-License-Identifier: MIT */
/* The one table of columns: help, headers, CSV and JSON keys, and -o. */
#ifndef PAGESTAT_COLUMNS_H
#define PAGESTAT_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output/row.h"

enum column_id {
	COL_PATH,
	COL_TYPE,
	COL_SIZE,
	COL_PAGES,
	COL_CACHED,
	COL_PERCENT,
	COL_DROPPED,
	COL_READ,
	COL_LOCKED,
	COL_DIRTY,
	COL_WRITEBACK,
	COL_EVICTED,
	COL_RECENTLY_EVICTED,
	COL_FILES,
	COL_BACKING,
	COL_FSTYPE,
	COL_NOTE,
	COL_INODE,
	COL_FILE_SIZE,
	COL_MTIME,
	COL_MTIME_NSEC,
	COL_SEGMENTS,
	COL_EXTENTS,
	COL_DELTA,
	COL_CHARGED,
	COL_ADDED,
	COL_REMOVED,
	COL_RECLAIMED,
	COL_REFAULTED,
	COL_READERS,
	COL_EVICTORS,
	COL_TOP_FILES,
	COL_COUNT
};

enum column_kind {
	KIND_TEXT,    /* path, type, backing */
	KIND_SIZE,    /* bytes of the range */
	KIND_NUMBER,  /* a plain count: pages, files */
	KIND_PAGES,   /* a page counter, with a NAME_bytes twin */
	KIND_PERCENT, /* cached share of pages */
	KIND_SEGMENTS, /* -S: the cached share of each part of a file */
	KIND_EXTENTS,  /* -e: the cached (or missing) byte extents of a file */
	KIND_DELTA,    /* -i: signed change in cached pages, with a _bytes twin */
	KIND_WHO,      /* --trace: the processes that added or removed a file's pages */
	KIND_FILES,    /* --trace --by: the files a process or cgroup moved most */
};

/* What a column needs to have a value: an option, or a mode of the run. */
enum column_need {
	NEED_NOTHING,
	NEED_SEGMENTS, /* -S */
	NEED_EXTENTS,  /* -e */
	NEED_INTERVAL, /* -i */
	NEED_EVICT,    /* --evict */
	NEED_WARM,     /* --warm or --warm-from */
	NEED_SYSTEM,   /* --system */
	NEED_LOCK,     /* --lock */
	NEED_CHARGED,  /* --charged */
	NEED_TRACE,    /* --trace */
	NEED_EVICT_OR_TRACE, /* --evict or --trace (dropped) */
	NEED_BY,       /* --trace --by=process or --by=cgroup */
};

/* The fields in the order a row of the table reads, whatever the padding
 * (one table of COL_COUNT). */
/* NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding) */
struct column {
	const char *name;   /* -o name, CSV header and JSON key */
	const char *header; /* table header */
	enum column_kind kind;
	unsigned known_bit; /* the PCS_* bit without which the row has no value */
	size_t offset;      /* numeric kinds: offset of the uint64_t in struct row */
	bool table_default;
	const char *help;
	/* the HELP of its Prometheus family "pagestat_NAME" (a size or page
	 * counter: "pagestat_NAME_bytes"); NULL: it has none */
	const char *prom_help;
	bool prom_counter; /* a counter ("_total"), not a gauge: it only grows */
	/* what it needs (-o of it without is a usage error), said as */
	enum column_need need;
	const char *need_text;
	bool unsortable; /* --sort does not take it: lists, or a change */
};

extern const struct column columns[COL_COUNT];

/* Does the row have a value in this column: false for a counter the
 * method does not know, a percentage of no pages, segments and extents
 * of a directory or the total, the change on a first sample, no text. */
bool column_known(enum column_id id, const struct row *row);

/* The value of a numeric column (size, number, page counter); false when
 * it is not known. */
bool column_value(enum column_id id, const struct row *row, uint64_t *value);

/* The text of a KIND_TEXT column and its length: the path ("total" for
 * the total), the type, the backing file; NULL when there is none. */
const char *column_text(enum column_id id, const struct row *row, size_t *len);

const char *row_type_name(enum row_type type);

/* The trace columns that a traced run adds to the defaults, in order. */
extern const enum column_id columns_traced[];
extern const size_t columns_ntraced;

/* Parse "-o LIST": comma-separated names, any case, each kept once.  A
 * leading '+' appends to the *n entries already in ids (before a final
 * PATH when keep_path_last).  Returns 0, or -1 with *bad pointing at the
 * unknown name (not NUL-terminated: *bad_len bytes).  ids holds COL_COUNT. */
int columns_parse(const char *list, enum column_id *ids, size_t *n, bool keep_path_last,
		  const char **bad, size_t *bad_len);

/* The default columns of the table (PATH last) or of the machine formats
 * (every column); with all, every column in either order.  SEGMENTS and
 * EXTENTS are among them only when segments (-S) and extents (-e) ask;
 * a file's inode, file_size, mtime and mtime_nsec with extents or all;
 * never DELTA, DROPPED or READ (columns_add_near_cached). */
size_t columns_default(enum column_id *ids, bool table, bool all, bool segments,
		       bool extents);

/* -i: add DELTA to the n columns in ids (after PERCENT, else after
 * CACHED, else before a final PATH, else last) unless it is there. */
size_t columns_add_delta(enum column_id *ids, size_t n);

/* The same for any column: an action's DROPPED or READ. */
size_t columns_add_near_cached(enum column_id *ids, size_t n, enum column_id id);

/* Look a column up by name, any case; -1 when there is none. */
int column_lookup(const char *name, size_t len);

/* The names of the columns, ", " between them; with sort_keys, only
 * those --sort takes (not the unsortable ones).  A static string. */
const char *columns_names(bool sort_keys);

/* The "Columns:" part of --help. */
void columns_usage(FILE *out);

#endif
