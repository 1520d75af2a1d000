/* SPDX-License-Identifier: MIT */
/* The table for people: aligned columns, human sizes, safe names. */
#include <config.h>

#include "output/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/format.h"
#include "output/who.h"
#include "kernel/memstat.h"
#include "lib/progress.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

/* Rows are held back only to learn the widths of the columns that have
 * no fixed width; past this many the widths stay as they are and rows
 * stream, so memory stays bounded on any tree. */
#define TABLE_HOLD_ROWS 1000

struct cgroup_seen {
	const struct cgroup_figures *cg;
	uint64_t found; /* bytes cached in its processes' files */
};

struct table_state {
	size_t width[COL_COUNT];
	bool fixed[COL_COUNT]; /* the width is known before any row */
	struct strbuf cells; /* held rows: ncolumns NUL-terminated cells each */
	size_t held;
	bool streaming;
	bool any_row; /* else the header alone is not worth printing */
	bool note_after_path; /* --system: a row's note in its PATH cell, no NOTE column */
	/* --cgroup: the cgroups' rows met, for their lines under the total */
	struct cgroup_seen *cgroups;
	size_t ncgroups, cgroups_cap;
};

/* A cell of n bytes of s. */
static void add_text(struct table_state *st, const char *s, size_t n)
{
	sb_reserve(&st->cells, n + 1); /* even for n = 0: data is not NULL */
	sb_put(&st->cells, s, n);
	sb_putc(&st->cells, '\0');
}

/* n bytes of s, terminal-safe, into the cell being built (no NUL). */
static void put_safe(struct table_state *st, const char *s, size_t n)
{
	bool utf8 = esc_locale_utf8_for(s, n);
	size_t need = esc_terminal(NULL, 0, s, n, utf8);

	sb_reserve(&st->cells, need + 1);
	esc_terminal(st->cells.data + st->cells.len, need + 1, s, n, utf8);
	st->cells.len += need;
}

/* A text cell; --system's note on a file system that was not walked
 * follows its path, in parentheses as mount(8) puts options. */
static void add_text_cell(struct table_state *st, enum column_id id, const struct row *row)
{
	size_t len;
	const char *text = column_text(id, row, &len);

	put_safe(st, text, len);
	if (id == COL_PATH && row->note && st->note_after_path) {
		sb_puts(&st->cells, " (");
		put_safe(st, row->note, strlen(row->note));
		sb_putc(&st->cells, ')');
	}
	sb_putc(&st->cells, '\0');
}

/* A byte figure in the unit asked for. */
static size_t format_bytes(const struct sink *sink, char buf[FMT_BUFSIZE], uint64_t bytes)
{
	return sink->cfg.unit == UNIT_BYTES ? fmt_u64(buf, bytes) : fmt_human(buf, bytes);
}

/* -i: the change in cached pages, signed ("+1.0M", "-8", "0B"). */
static size_t format_delta(const struct sink *sink, char buf[FMT_BUFSIZE + 1],
			   const struct row *row)
{
	uint64_t pages = row_delta_pages(row);
	size_t n = pages != 0;

	buf[0] = row->delta < 0 ? '-' : '+';
	if (sink->cfg.counters_in_pages)
		return n + fmt_u64(buf + n, pages);
	return n + format_bytes(sink, buf + n, sink_pages_to_bytes(sink, pages));
}

/* -S: one cell of the bar per segment, its height the cached share:
 * nothing cached is a dot, wholly cached a full block (ASCII: '.' and
 * '#', and the tens digit of the percentage between); no pages, blank. */
static void add_bar(struct sink *sink, const struct row *row)
{
	static const char *const eighths[] = { "\u00b7", "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	struct strbuf *cells = &((struct table_state *)sink->state)->cells;

	sb_reserve(cells, row->nsegments * 3 + 1);
	for (size_t i = 0; i < row->nsegments; i++) {
		uint64_t cached = row->segments[i].cached, pages = row->segments[i].pages;
		if (pages == 0) {
			cells->data[cells->len++] = ' ';
		} else if (esc_locale_is_utf8()) {
			/* any cached page shows: 1..7 eighths, 8 when all are */
			unsigned level = cached == 0 ? 0 : cached >= pages ? 8
					 : 1 + (unsigned)(cached * 7 / pages);
			size_t n = strlen(eighths[level]);
			memcpy(cells->data + cells->len, eighths[level], n);
			cells->len += n;
		} else {
			char cell = (char)('0' + cached * 10 / pages);
			if (cached == 0)
				cell = '.';
			else if (cached >= pages)
				cell = '#';
			cells->data[cells->len++] = cell;
		}
	}
	cells->data[cells->len++] = '\0';
}

/* -e: START-END for each extent, space-separated. */
static void add_extents(struct sink *sink, const struct row *row)
{
	struct strbuf *cells = &((struct table_state *)sink->state)->cells;

	for (size_t i = 0; i < row->nextents; i++) {
		if (i)
			sb_putc(cells, ' ');
		sb_u64(cells, row->extents[i].offset);
		sb_putc(cells, '-');
		sb_u64(cells, row->extents[i].offset + row->extents[i].length);
	}
	sb_putc(cells, '\0');
}

static void add_cell(struct sink *sink, const struct row *row, enum column_id id)
{
	struct table_state *st = sink->state;
	char buf[FMT_BUFSIZE + 1]; /* a sign, for DELTA */
	size_t n = 0;
	uint64_t value;

	/* '-' for no value keeps a row without it (mincore's unknown
	 * counters, a directory's extents) from having a blank cell */
	if (!column_known(id, row) || (id == COL_EXTENTS && row->nextents == 0)) {
		add_text(st, "-", 1);
		return;
	}
	switch (columns[id].kind) {
	case KIND_TEXT:
		add_text_cell(st, id, row);
		return;
	case KIND_SIZE:
		column_value(id, row, &value);
		n = format_bytes(sink, buf, value);
		break;
	case KIND_NUMBER:
		column_value(id, row, &value);
		n = fmt_u64(buf, value);
		break;
	case KIND_PAGES:
		column_value(id, row, &value);
		if (sink->cfg.counters_in_pages)
			n = fmt_u64(buf, value);
		else
			n = format_bytes(sink, buf, sink_pages_to_bytes(sink, value));
		break;
	case KIND_PERCENT:
		n = fmt_percent(buf, row->stat.cached, row->stat.pages);
		buf[n++] = '%';
		break;
	case KIND_DELTA:
		n = format_delta(sink, buf, row);
		break;
	case KIND_SEGMENTS:
		add_bar(sink, row);
		return;
	case KIND_EXTENTS:
		add_extents(sink, row);
		return;
	case KIND_FILES:
	case KIND_WHO: {
		char who[4096];
		size_t len = columns[id].kind == KIND_FILES
				     ? column_files_text(row, who, sizeof who)
				     : column_who_text(id, row, who, sizeof who);
		if (!len) {
			add_text(st, "-", 1);
			return;
		}
		put_safe(st, who, len);
		sb_putc(&st->cells, '\0');
		return;
	}
	}
	add_text(st, buf, n);
}

/* Prints one line of cells (NUL-separated, starting at cells); returns
 * the position after them. */
static const char *print_line(const struct sink *sink, const char *cells)
{
	const struct table_state *st = sink->state;
	FILE *out = sink->cfg.out;

	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		bool last = i + 1 == sink->cfg.ncolumns;
		size_t w = esc_display_width(cells);
		size_t pad = st->width[i] > w ? st->width[i] - w : 0;
		enum column_kind kind = columns[sink->cfg.columns[i]].kind;
		bool left = kind == KIND_TEXT || kind == KIND_SEGMENTS || kind == KIND_EXTENTS ||
			    kind == KIND_WHO || kind == KIND_FILES;

		if (i)
			putc_unlocked(' ', out);
		if (!left)
			for (size_t k = 0; k < pad; k++)
				putc_unlocked(' ', out);
		fputs_unlocked(cells, out);
		if (left && !last)
			for (size_t k = 0; k < pad; k++)
				putc_unlocked(' ', out);
		cells += strlen(cells) + 1;
	}
	putc_unlocked('\n', out);
	return cells;
}

/* The width of a column whose values are never wider: human sizes and
 * percentages, so that they stay in place from the first row to the
 * last; 0 for a column that the held rows measure. */
static size_t fixed_width(const struct sink *sink, enum column_id id)
{
	bool human = sink->cfg.unit == UNIT_HUMAN;

	switch (columns[id].kind) {
	case KIND_SIZE:
		return human ? FMT_HUMAN_MAX : 0;
	case KIND_PAGES:
		return human && !sink->cfg.counters_in_pages ? FMT_HUMAN_MAX : 0;
	case KIND_DELTA:
		/* a sign, then a human size */
		return human && !sink->cfg.counters_in_pages ? FMT_HUMAN_MAX + 1 : 0;
	case KIND_PERCENT:
		return FMT_PERCENT_MAX;
	default:
		return 0;
	}
}

/* A held row widens the measured columns; a fixed one keeps its width
 * and a wider value in it (none is expected) shifts its own line. */
static void widen(struct table_state *st, const struct sink *sink, const char *cells)
{
	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		size_t w = esc_display_width(cells);
		if (!st->fixed[i] && w > st->width[i])
			st->width[i] = w;
		cells += strlen(cells) + 1;
	}
}

/* Print the header and every held row, then stream. */
static void flush_held(struct sink *sink)
{
	struct table_state *st = sink->state;
	const char *cells = st->cells.data;

	for (size_t r = 0; r < st->held; r++)
		cells = print_line(sink, cells);
	st->cells.len = 0;
	st->held = 0;
	st->streaming = true;
}

static void table_begin(struct sink *sink)
{
	struct table_state *st = xcalloc(1, sizeof *st);

	sink->state = st;
	/* -i: each sample is a table of its own under its time */
	if (sink->cfg.time)
		fprintf(sink->cfg.out, "%s%s\n", sink->cfg.later_sample ? "\n" : "",
			sink->cfg.time);
	st->note_after_path = true;
	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		st->width[i] = fixed_width(sink, sink->cfg.columns[i]);
		st->fixed[i] = st->width[i] != 0;
		st->note_after_path &= sink->cfg.columns[i] != COL_NOTE;
	}
	if (!sink->cfg.headings)
		return;
	/* The header is the first held row; a fixed column is as wide as
	 * its header when that is wider. */
	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		enum column_id id = sink->cfg.columns[i];
		const char *h = id == COL_EXTENTS && sink->cfg.extents == EXTENTS_MISSING
					? "MISSING" : columns[id].header;
		size_t len = strlen(h);
		add_text(st, h, len);
		if (len > st->width[i])
			st->width[i] = len;
	}
	st->held = 1;
}

static void add_row(struct sink *sink, const struct row *row)
{
	struct table_state *st = sink->state;
	size_t start = st->cells.len;

	st->any_row = true;
	for (size_t i = 0; i < sink->cfg.ncolumns; i++)
		add_cell(sink, row, sink->cfg.columns[i]);
	if (st->streaming) {
		/* the widths stay: a wider value shifts this line only */
		print_line(sink, st->cells.data + start);
		st->cells.len = start;
		return;
	}
	widen(st, sink, st->cells.data + start);
	if (++st->held > TABLE_HOLD_ROWS) {
		/* rows stream from now on: no meter among them on a terminal */
		progress_stdout_streams();
		flush_held(sink);
	}
}

/* Failures go to stderr only, as with du. */
static void table_row(struct sink *sink, const struct row *row)
{
	struct table_state *st = sink->state;

	if (row->error)
		return;
	add_row(sink, row);
	if (row->cgroup && !row->cgroup->figures_only) {
		XGROW(st->cgroups, st->cgroups_cap, st->ncgroups + 1);
		st->cgroups[st->ncgroups++] = (struct cgroup_seen){
			row->cgroup, sink_pages_to_bytes(sink, row->stat.cached) };
	}
}

/* A figure of memory.stat as the table shows it: a size, a count, or -. */
static void memstat_cell(char buf[FMT_BUFSIZE], const struct memstat *ms, enum memstat_id id)
{
	if (!memstat_known(ms, id))
		snprintf(buf, FMT_BUFSIZE, "-");
	else if (memstat_keys[id].bytes)
		fmt_human(buf, ms->value[id]);
	else
		snprintf(buf, FMT_BUFSIZE, "%llu", (unsigned long long)ms->value[id]);
}

static void rate_cell(FILE *out, bool known, double rate)
{
	if (known)
		fprintf(out, "%.1f", rate);
	else
		putc('-', out);
}

/* --cgroup: under the total, each cgroup's kernel figures and the share
 * of its file pages found in its processes' files. */
static void put_cgroups(const struct sink *sink)
{
	const struct table_state *st = sink->state;
	FILE *out = sink->cfg.out;

	for (size_t i = 0; i < st->ncgroups; i++) {
		const struct cgroup_figures *cg = st->cgroups[i].cg;
		const struct memstat *ms = &cg->stat;
		char v[MEMSTAT_COUNT][FMT_BUFSIZE], found[FMT_BUFSIZE], share[FMT_BUFSIZE];
		size_t len = strlen(cg->name);
		bool utf8 = esc_locale_utf8_for(cg->name, len);

		fputs("cgroup ", out);
		esc_put_terminal(out, cg->name, len, utf8);
		if (!cg->stat_read) {
			fputs(": removed during the run: no figures\n", out);
			continue;
		}
		for (int k = 0; k < MEMSTAT_COUNT; k++)
			memstat_cell(v[k], ms, (enum memstat_id)k);
		fprintf(out, " (v%d): file %s, dirty %s, writeback %s, shmem %s, mapped %s, "
			"active file %s, inactive file %s; refaults %s, activations %s, reclaimed %s\n",
			ms->version, v[MEMSTAT_FILE], v[MEMSTAT_DIRTY], v[MEMSTAT_WRITEBACK],
			v[MEMSTAT_SHMEM], v[MEMSTAT_MAPPED], v[MEMSTAT_ACTIVE_FILE],
			v[MEMSTAT_INACTIVE_FILE], v[MEMSTAT_REFAULT], v[MEMSTAT_ACTIVATE],
			v[MEMSTAT_RECLAIMED]);
		fmt_human(found, st->cgroups[i].found);
		double refaults, activations, reclaimed;
		if (sink->cfg.later_sample) {
			/* -i: how fast the cache churns (a thrashing cgroup shows it) */
			bool r = cgroup_rate(cg, MEMSTAT_REFAULT, &refaults);
			bool a = cgroup_rate(cg, MEMSTAT_ACTIVATE, &activations);
			bool p = cgroup_rate(cg, MEMSTAT_RECLAIMED, &reclaimed);
			fprintf(out, "cgroup ");
			esc_put_terminal(out, cg->name, len, utf8);
			fputs(" per second since the last sample: refaults ", out);
			rate_cell(out, r, refaults);
			fputs(", activations ", out);
			rate_cell(out, a, activations);
			fputs(", reclaimed ", out);
			rate_cell(out, p, reclaimed);
			putc('\n', out);
		}
		if (!memstat_known(ms, MEMSTAT_FILE) ||
		    !fmt_percent(share, st->cgroups[i].found, ms->value[MEMSTAT_FILE]))
			snprintf(share, sizeof share, "-");
		fprintf(out, "coverage: %s%% of cgroup ", share);
		esc_put_terminal(out, cg->name, len, utf8);
		fprintf(out, "'s file pages: %s found in its processes' files of file %s "
			"(%llu process%s)\n", found, v[MEMSTAT_FILE],
			(unsigned long long)cg->processes, cg->processes == 1 ? "" : "es");
	}
}

/* --system: under the total, the share of the kernel's page cache it
 * holds. */
static void put_coverage(const struct sink *sink, const struct row *total)
{
	const struct system_figures *fig = sink->cfg.system;
	char found[FMT_BUFSIZE], cached[FMT_BUFSIZE], buffers[FMT_BUFSIZE], shmem[FMT_BUFSIZE];
	char share[FMT_BUFSIZE];

	if (!fig || !fig->known)
		return;
	uint64_t bytes = sink_pages_to_bytes(sink, total->stat.cached);
	fmt_human(found, bytes);
	fmt_human(cached, fig->cached);
	fmt_human(buffers, fig->buffers);
	fmt_human(shmem, fig->shmem);
	if (!fmt_percent(share, bytes, fig->cached + fig->buffers))
		strcpy(share, "-");
	fprintf(sink->cfg.out, "coverage: %s%% of the kernel's page cache: %s found of Cached %s + "
		"Buffers %s (Shmem %s, which includes memory of no file)\n",
		share, found, cached, buffers, shmem);
	/* without the buffer cache, what the files account for is told too */
	if (fig->buffers_unread && fmt_percent(share, bytes, fig->cached))
		fprintf(sink->cfg.out, "coverage: %s%% of Cached alone: a block device's buffer "
			"cache could not be read\n", share);
}

static void table_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct table_state *st = sink->state;

	if (sink->cfg.total_row)
		add_row(sink, total);
	if (st->any_row)
		flush_held(sink);
	put_coverage(sink, total);
	put_cgroups(sink);
}

static void table_free(struct sink *sink)
{
	struct table_state *st = sink->state;

	if (st) {
		sb_free(&st->cells);
		free(st->cgroups);
	}
	free(st);
}

const struct sink_ops sink_table_ops = {
	.begin = table_begin,
	.row = table_row,
	.end = table_end,
	.free = table_free,
};
