/* SPDX-License-Identifier: MIT */
/* The one table of columns: help, headers, CSV and JSON keys, and -o. */
#include <config.h>

#include "output/columns.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kernel/memstat.h"

#define AT(member) offsetof(struct row, member)

const struct column columns[COL_COUNT] = {
	[COL_PATH] = {
		.name = "path",
		.header = "PATH",
		.kind = KIND_TEXT,
		.table_default = true,
		.help = "path as given, or as found below a directory",
	},
	[COL_TYPE] = {
		.name = "type",
		.header = "TYPE",
		.kind = KIND_TEXT,
		.help = "file, directory, blockdev or total",
	},
	[COL_SIZE] = {
		.name = "size",
		.header = "SIZE",
		.kind = KIND_SIZE,
		.offset = AT(stat.size),
		.table_default = true,
		.help = "bytes of the inspected range of the file(s)",
		.prom_help = "Bytes of the inspected range of the files.",
	},
	[COL_PAGES] = {
		.name = "pages",
		.header = "PAGES",
		.kind = KIND_NUMBER,
		.offset = AT(stat.pages),
		.help = "pages in that range",
	},
	[COL_CACHED] = {
		.name = "cached",
		.header = "CACHED",
		.kind = KIND_PAGES,
		.known_bit = PCS_CACHED,
		.offset = AT(stat.cached),
		.table_default = true,
		.help = "pages in the page cache",
		.prom_help = "Bytes in the page cache.",
	},
	[COL_PERCENT] = {
		.name = "percent",
		.header = "PERCENT",
		.kind = KIND_PERCENT,
		.known_bit = PCS_CACHED,
		.table_default = true,
		.help = "cached pages as a share of pages",
	},
	[COL_DROPPED] = {
		.name = "dropped",
		.header = "DROPPED",
		.kind = KIND_PAGES,
		.offset = AT(stat.dropped),
		.table_default = true,
		.help = "with --evict: pages dropped from the cache; with --trace: pages removed "
			"on request (fadvise, truncate, unlink, an evict)",
		.prom_help = "Bytes dropped from the page cache by --evict, or on request during "
			     "--trace.",
		.need = NEED_EVICT_OR_TRACE,
		.need_text = "--evict or --trace",
	},
	[COL_READ] = {
		.name = "read",
		.header = "READ",
		.kind = KIND_PAGES,
		.offset = AT(stat.read),
		.table_default = true,
		.help = "with --warm, --warm-from or --lock: pages read into the cache",
		.prom_help = "Bytes read into the page cache by --warm, --warm-from or --lock.",
		.need = NEED_WARM,
		.need_text = "--warm, --warm-from or --lock",
	},
	[COL_LOCKED] = {
		.name = "locked",
		.header = "LOCKED",
		.kind = KIND_PAGES,
		.offset = AT(stat.locked),
		.table_default = true,
		.help = "with --lock: pages locked in memory",
		.prom_help = "Bytes locked in memory by --lock.",
		.need = NEED_LOCK,
		.need_text = "--lock",
	},
	[COL_DIRTY] = {
		.name = "dirty",
		.header = "DIRTY",
		.kind = KIND_PAGES,
		.known_bit = PCS_DIRTY,
		.offset = AT(stat.dirty),
		.table_default = true,
		.help = "cached pages modified but not yet written back",
		.prom_help = "Cached bytes modified but not yet written back.",
	},
	[COL_WRITEBACK] = {
		.name = "writeback",
		.header = "WRITEBACK",
		.kind = KIND_PAGES,
		.known_bit = PCS_WRITEBACK,
		.offset = AT(stat.writeback),
		.table_default = true,
		.help = "pages being written back now",
		.prom_help = "Bytes being written back now.",
	},
	[COL_EVICTED] = {
		.name = "evicted",
		.header = "EVICTED",
		.kind = KIND_PAGES,
		.known_bit = PCS_EVICTED,
		.offset = AT(stat.evicted),
		.table_default = true,
		.help = "pages evicted that the kernel still remembers",
		.prom_help = "Bytes evicted from the page cache that the kernel still remembers.",
	},
	[COL_RECENTLY_EVICTED] = {
		.name = "recently_evicted",
		.header = "RECENTLY_EVICTED",
		.kind = KIND_PAGES,
		.known_bit = PCS_RECENTLY_EVICTED,
		.offset = AT(stat.recently_evicted),
		.help = "evicted pages that would still be cached in a larger cache",
		.prom_help = "Evicted bytes that would still be cached in a larger cache.",
	},
	[COL_FILES] = {
		.name = "files",
		.header = "FILES",
		.kind = KIND_NUMBER,
		.offset = AT(files),
		.table_default = true,
		.help = "files counted in the row",
		.prom_help = "Regular files counted in the row.",
	},
	[COL_BACKING] = {
		.name = "backing",
		.header = "BACKING",
		.kind = KIND_TEXT,
		.help = "on overlayfs: the layer's file that was inspected",
	},
	[COL_FSTYPE] = {
		.name = "fstype",
		.header = "FSTYPE",
		.kind = KIND_TEXT,
		.table_default = true,
		.help = "with --system: a file system's type",
		.need = NEED_SYSTEM,
		.need_text = "--system",
	},
	[COL_NOTE] = {
		.name = "note",
		.header = "NOTE",
		.kind = KIND_TEXT,
		.help = "with --system: why a file system was not walked",
		.need = NEED_SYSTEM,
		.need_text = "--system",
	},
	[COL_INODE] = {
		.name = "inode",
		.header = "INODE",
		.kind = KIND_NUMBER,
		.known_bit = PCS_IDENTITY,
		.offset = AT(stat.inode),
		.help = "a file's inode number",
	},
	[COL_FILE_SIZE] = {
		.name = "file_size",
		.header = "FILE_SIZE",
		.kind = KIND_NUMBER,
		.known_bit = PCS_IDENTITY,
		.offset = AT(stat.file_size),
		.help = "a file's size in bytes, whatever the range",
	},
	[COL_MTIME] = {
		.name = "mtime",
		.header = "MTIME",
		.kind = KIND_NUMBER,
		.known_bit = PCS_IDENTITY,
		.offset = AT(stat.mtime),
		.help = "a file's modification time, seconds since 1970",
	},
	[COL_MTIME_NSEC] = {
		.name = "mtime_nsec",
		.header = "MTIME_NSEC",
		.kind = KIND_NUMBER,
		.known_bit = PCS_IDENTITY,
		.offset = AT(stat.mtime_nsec),
		.help = "and its nanoseconds",
	},
	[COL_SEGMENTS] = {
		.name = "segments",
		.header = "SEGMENTS",
		.kind = KIND_SEGMENTS,
		.known_bit = PCS_CACHED,
		.table_default = true,
		.help = "with -S: the cached share of each part of the range",
		.need = NEED_SEGMENTS,
		.need_text = "--segments=N",
		.unsortable = true,
	},
	[COL_EXTENTS] = {
		.name = "extents",
		.header = "EXTENTS",
		.kind = KIND_EXTENTS,
		.known_bit = PCS_CACHED,
		.table_default = true,
		.help = "with -e: cached (or missing) byte extents, START-END",
		.need = NEED_EXTENTS,
		.need_text = "--extents",
		.unsortable = true,
	},
	[COL_DELTA] = {
		.name = "delta",
		.header = "DELTA",
		.kind = KIND_DELTA,
		.known_bit = PCS_CACHED,
		.table_default = true,
		.help = "with -i: change in cached pages since the previous sample",
		.need = NEED_INTERVAL,
		.need_text = "-i/--interval",
		.unsortable = true,
	},
	[COL_CHARGED] = {
		.name = "charged",
		.header = "CHARGED",
		.kind = KIND_PAGES,
		.offset = AT(stat.charged),
		.table_default = true,
		.help = "with --charged: cached pages charged to the cgroup or one below it",
		.prom_help = "Cached bytes charged to the --cgroup or a cgroup below it.",
		.need = NEED_CHARGED,
		.need_text = "--charged",
	},
	[COL_ADDED] = {
		.name = "added",
		.header = "ADDED",
		.kind = KIND_PAGES,
		.offset = AT(stat.added),
		.table_default = true,
		.help = "with --trace: pages added to the cache (read in, read ahead, written)",
		.prom_help = "Bytes added to the page cache during --trace.",
		.prom_counter = true,
		.need = NEED_TRACE,
		.need_text = "--trace",
	},
	[COL_REMOVED] = {
		.name = "removed",
		.header = "REMOVED",
		.kind = KIND_PAGES,
		.offset = AT(stat.removed),
		.help = "with --trace: pages removed from the cache (reclaimed plus dropped)",
		.prom_help = "Bytes removed from the page cache during --trace.",
		.prom_counter = true,
		.need = NEED_TRACE,
		.need_text = "--trace",
	},
	[COL_RECLAIMED] = {
		.name = "reclaimed",
		.header = "RECLAIMED",
		.kind = KIND_PAGES,
		.offset = AT(stat.reclaimed),
		.table_default = true,
		.help = "with --trace: pages the kernel freed for memory (kswapd, direct reclaim)",
		.prom_help = "Bytes reclaimed from the page cache by the kernel during --trace.",
		.prom_counter = true,
		.need = NEED_TRACE,
		.need_text = "--trace",
	},
	[COL_REFAULTED] = {
		.name = "refaulted",
		.header = "REFAULTED",
		.kind = KIND_PAGES,
		.offset = AT(stat.refaulted),
		.table_default = true,
		.help = "with --trace: pages added again after the trace saw them removed",
		.prom_help = "Bytes added again to the page cache after their removal during "
			     "--trace.",
		.prom_counter = true,
		.need = NEED_TRACE,
		.need_text = "--trace",
	},
	[COL_READERS] = {
		.name = "readers",
		.header = "READER",
		.kind = KIND_WHO,
		.table_default = true,
		.help = "with --trace: the processes that added the most pages (the table: the "
			"first, +N others)",
		.need = NEED_TRACE,
		.need_text = "--trace",
		.unsortable = true,
	},
	[COL_TOP_FILES] = {
		.name = "top_files",
		.header = "TOP_FILE",
		.kind = KIND_FILES,
		.table_default = true,
		.help = "with --by: the files whose pages the process or cgroup moved most (the "
			"table: the first, +N others)",
		.need = NEED_BY,
		.need_text = "--by=process or --by=cgroup",
		.unsortable = true,
	},
	[COL_EVICTORS] = {
		.name = "evictors",
		.header = "EVICTOR",
		.kind = KIND_WHO,
		.table_default = true,
		.help = "with --trace: the processes that removed the most pages (the table: the "
			"first, +N others)",
		.need = NEED_TRACE,
		.need_text = "--trace",
		.unsortable = true,
	},
};

const enum column_id columns_traced[] = { COL_ADDED, COL_REMOVED, COL_RECLAIMED, COL_DROPPED,
					  COL_REFAULTED, COL_READERS, COL_EVICTORS };
const size_t columns_ntraced = sizeof columns_traced / sizeof columns_traced[0];

const char *column_text(enum column_id id, const struct row *row, size_t *len)
{
	const char *text;

	switch (id) {
	case COL_PATH:
		if (row->path) {
			*len = row->path_len;
			return row->path;
		}
		text = "total";
		break;
	case COL_TYPE:
		text = row_type_name(row->type);
		break;
	case COL_BACKING:
		text = row->stat.backing;
		break;
	case COL_FSTYPE:
		text = row->fstype;
		break;
	case COL_NOTE:
		text = row->note;
		break;
	default:
		text = NULL;
		break;
	}
	*len = text ? strlen(text) : 0;
	return text;
}

bool column_known(enum column_id id, const struct row *row)
{
	const struct column *col = &columns[id];
	size_t len;

	if (col->known_bit && !(row->stat.known & col->known_bit))
		return false;
	/* a tree of which nothing could be inspected: not a cold one */
	if (row->failed && !row->files && col->kind != KIND_TEXT && id != COL_FILES)
		return false;
	if (row->cgroup && row->cgroup->figures_only && (id == COL_SIZE || id == COL_PAGES))
		return false;
	/* --trace's rows of motion alone (a process, files not walked, a file
	 * replaced): nothing was measured */
	if (row->stat.tally && row->stat.known == 0 && (id == COL_SIZE || id == COL_PAGES))
		return false;
	switch (col->kind) {
	case KIND_TEXT:
		return column_text(id, row, &len) != NULL;
	case KIND_PERCENT:
		return row->stat.pages != 0;
	case KIND_SEGMENTS:
	case KIND_EXTENTS:
		return row_has_detail(row);
	case KIND_DELTA:
		return row->delta_known;
	case KIND_WHO:
		return row->stat.tally != NULL && row->type == ROW_FILE; /* a traced file */
	case KIND_FILES:
		return row->stat.group != NULL;
	default:
		return true;
	}
}

bool column_value(enum column_id id, const struct row *row, uint64_t *value)
{
	if (!column_known(id, row))
		return false;
	*value = *(const uint64_t *)((const char *)row + columns[id].offset);
	return true;
}

const char *row_type_name(enum row_type type)
{
	static const char *const names[] = {
		[ROW_FILE] = "file",
		[ROW_DIRECTORY] = "directory",
		[ROW_BLOCKDEV] = "blockdev",
		[ROW_FILESYSTEM] = "filesystem",
		[ROW_CGROUP] = "cgroup",
		[ROW_PROCESS] = "process",
		[ROW_OTHERS] = "others",
		[ROW_TOTAL] = "total",
		[ROW_UNKNOWN] = "unknown",
	};
	return names[type];
}

int column_lookup(const char *name, size_t len)
{
	for (int i = 0; i < COL_COUNT; i++)
		if (strlen(columns[i].name) == len && strncasecmp(columns[i].name, name, len) == 0)
			return i;
	return -1;
}

static bool listed(const enum column_id *ids, size_t n, enum column_id id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

int columns_parse(const char *list, enum column_id *ids, size_t *n, bool keep_path_last,
		  const char **bad, size_t *bad_len)
{
	size_t count = 0;
	bool path_last = false;

	if (*list == '+') {
		count = *n;
		list++;
		/* "+pages" in the table adds PAGES before PATH, not after it */
		path_last = keep_path_last && count > 0 && ids[count - 1] == COL_PATH;
		count -= path_last;
	}
	for (const char *p = list;; p++) {
		const char *end = strchrnul(p, ',');
		int id = column_lookup(p, (size_t)(end - p));
		if (id < 0) {
			*bad = p;
			*bad_len = (size_t)(end - p);
			return -1;
		}
		/* a column named twice is shown once, where first named */
		if (!listed(ids, count, (enum column_id)id) &&
		    !(path_last && id == COL_PATH))
			ids[count++] = (enum column_id)id;
		if (*end == '\0')
			break;
		p = end;
	}
	if (path_last)
		ids[count++] = COL_PATH;
	*n = count;
	return 0;
}

size_t columns_default(enum column_id *ids, bool table, bool all, bool segments,
		       bool extents)
{
	size_t n = 0;
	/* PATH goes last in the table, as in du and fincore. */
	for (int i = 0; i < COL_COUNT; i++) {
		bool identity = i == COL_INODE || i == COL_FILE_SIZE || i == COL_MTIME ||
				i == COL_MTIME_NSEC;
		if ((i == COL_SEGMENTS && !segments) || (i == COL_EXTENTS && !extents) ||
		    (identity && !(extents && !table) && !all) || i == COL_DELTA || i == COL_DROPPED ||
		    i == COL_CHARGED || columns[i].need == NEED_TRACE || columns[i].need == NEED_BY ||
		    i == COL_READ || i == COL_LOCKED || i == COL_FSTYPE || i == COL_NOTE)
			continue;
		if (!table || (i != COL_PATH && (all || columns[i].table_default)))
			ids[n++] = (enum column_id)i;
	}
	if (table)
		ids[n++] = COL_PATH;
	return n;
}

size_t columns_add_delta(enum column_id *ids, size_t n)
{
	return columns_add_near_cached(ids, n, COL_DELTA);
}

size_t columns_add_near_cached(enum column_id *ids, size_t n, enum column_id id)
{
	size_t at = n;
	if (listed(ids, n, id))
		return n;
	for (size_t i = 0; i < n; i++)
		if (ids[i] == COL_PERCENT || (ids[i] == COL_CACHED && at == n))
			at = i + 1;
	if (at == n && n > 0 && ids[n - 1] == COL_PATH)
		at = n - 1;
	memmove(ids + at + 1, ids + at, (n - at) * sizeof *ids);
	ids[at] = id;
	return n + 1;
}

const char *columns_names(bool sort_keys)
{
	static char names[2][COL_COUNT * 24];
	char *out = names[sort_keys];

	if (!*out) {
		size_t len = 0;
		for (int i = 0; i < COL_COUNT; i++) {
			if (sort_keys && columns[i].unsortable)
				continue;
			len += (size_t)snprintf(out + len, sizeof names[0] - len, "%s%s",
						len ? ", " : "", columns[i].name);
		}
	}
	return out;
}

/* text, wrapped at spaces to lines of at most 76 characters. */
static void put_wrapped(FILE *out, const char *text)
{
	size_t col = 0;

	while (*text) {
		size_t word = strcspn(text, " ");
		if (col && col + 1 + word > 76) {
			fputc('\n', out);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, word, out);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

void columns_usage(FILE *out)
{
	char text[2048];
	size_t len = (size_t)snprintf(text, sizeof text, "%s",
		"Columns (-o LIST); CSV and JSON show every one by default (segments, delta, "
		"dropped, read and locked with -S, -i, --evict, a warm and --lock only; extents, inode, "
		"file_size, mtime and mtime_nsec with -e; fstype and note with --system), "
		"the table all but");
	int hidden = 0, n = 0;
	for (int i = 0; i < COL_COUNT; i++)
		hidden += !columns[i].table_default;
	for (int i = 0; i < COL_COUNT && len < sizeof text; i++)
		if (!columns[i].table_default)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
						n++ == 0 ? " " : n == hidden ? " and " : ", ",
						columns[i].name);
	if (len < sizeof text)
		snprintf(text + len, sizeof text - len, ":");
	fputc('\n', out);
	put_wrapped(out, text);
	for (int i = 0; i < COL_COUNT; i++)
		fprintf(out, "  %-18s %s\n", columns[i].name, columns[i].help);
}
