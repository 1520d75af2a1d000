/* SPDX-License-Identifier: MIT */
/* CSV (RFC 4180): a header line, then one line per row; exact integers. */
#include <config.h>

#include "output/sink.h"

#include <inttypes.h>
#include <string.h>

#include "lib/escape.h"
#include "lib/format.h"
#include "output/who.h"

static void csv_begin(struct sink *sink)
{
	FILE *out = sink->cfg.out;

	/* under -i, the header only before the first sample: one table */
	if (!sink->cfg.headings || sink->cfg.later_sample)
		return;
	if (sink->cfg.time)
		fputs_unlocked(sink->cfg.ncolumns ? "time," : "time", out);
	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		const struct column *col = &columns[sink->cfg.columns[i]];
		if (i)
			putc_unlocked(',', out);
		fputs_unlocked(col->name, out);
		if (col->kind == KIND_PAGES || col->kind == KIND_DELTA)
			fprintf(out, ",%s_bytes", col->name);
	}
	putc_unlocked('\n', out);
}

/* -S: "CACHED/PAGES" for each segment, space-separated. */
static void put_segments(FILE *out, const struct row *row)
{
	for (size_t i = 0; i < row->nsegments; i++) {
		if (i)
			putc_unlocked(' ', out);
		sink_put_u64(out, row->segments[i].cached);
		putc_unlocked('/', out);
		sink_put_u64(out, row->segments[i].pages);
	}
}

/* -e: "START-END" for each extent, space-separated. */
static void put_extents(FILE *out, const struct row *row)
{
	for (size_t i = 0; i < row->nextents; i++) {
		if (i)
			putc_unlocked(' ', out);
		sink_put_u64(out, row->extents[i].offset);
		putc_unlocked('-', out);
		sink_put_u64(out, row->extents[i].offset + row->extents[i].length);
	}
}

/* -i: the change in pages and in bytes, '-' first when pages were lost. */
static void put_delta(const struct sink *sink, FILE *out, const struct row *row)
{
	uint64_t pages = row_delta_pages(row);
	const char *sign = row->delta < 0 ? "-" : "";

	fprintf(out, "%s%" PRIu64 ",%s%" PRIu64, sign, pages, sign,
		sink_pages_to_bytes(sink, pages));
}

/* Unknown counters (mincore) are empty fields, never 0. */
static void put_field(const struct sink *sink, const struct row *row, enum column_id id)
{
	FILE *out = sink->cfg.out;
	char buf[FMT_BUFSIZE];
	uint64_t value;
	size_t len;

	switch (columns[id].kind) {
	case KIND_TEXT: {
		const char *text = column_text(id, row, &len);
		if (text)
			esc_csv_field(out, text, len);
		break;
	}
	case KIND_SIZE:
	case KIND_NUMBER:
		if (column_value(id, row, &value))
			sink_put_u64(out, value);
		break;
	case KIND_PAGES:
		if (column_value(id, row, &value)) {
			sink_put_u64(out, value);
			putc_unlocked(',', out);
			sink_put_u64(out, sink_pages_to_bytes(sink, value));
		} else {
			putc_unlocked(',', out);
		}
		break;
	case KIND_PERCENT:
		if (column_known(id, row) && fmt_percent(buf, row->stat.cached, row->stat.pages))
			fputs_unlocked(buf, out);
		break;
	case KIND_SEGMENTS:
		put_segments(out, row);
		break;
	case KIND_EXTENTS:
		put_extents(out, row);
		break;
	case KIND_DELTA:
		if (column_known(id, row))
			put_delta(sink, out, row);
		else
			putc_unlocked(',', out);
		break;
	case KIND_WHO: {
		char who[64];
		len = column_who_text(id, row, who, sizeof who);
		if (len)
			esc_csv_field(out, who, len);
		break;
	}
	case KIND_FILES: {
		char files[4096];
		len = column_files_text(row, files, sizeof files);
		if (len)
			esc_csv_field(out, files, len);
		break;
	}
	}
}

static void put_line(const struct sink *sink, const struct row *row)
{
	if (sink->cfg.time)
		fprintf(sink->cfg.out, sink->cfg.ncolumns ? "%s," : "%s", sink->cfg.time);
	for (size_t i = 0; i < sink->cfg.ncolumns; i++) {
		if (i)
			putc_unlocked(',', sink->cfg.out);
		put_field(sink, row, sink->cfg.columns[i]);
	}
	putc_unlocked('\n', sink->cfg.out);
}

/* Failures go to stderr only, as with du: CSV has no place for them. */
static void csv_row(struct sink *sink, const struct row *row)
{
	if (!row->error)
		put_line(sink, row);
}

static void csv_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	if (sink->cfg.total_row)
		put_line(sink, total);
}

const struct sink_ops sink_csv_ops = {
	.begin = csv_begin,
	.row = csv_row,
	.end = csv_end,
};
