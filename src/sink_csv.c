/* CSV (RFC 4180): a header line, then one line per row; exact integers. */
#include <config.h>

#include "sink.h"

#include <string.h>

#include "escape.h"
#include "format.h"

static void put_u64(FILE *out, uint64_t v)
{
	char buf[FMT_BUFSIZE];
	fwrite_unlocked(buf, 1, fmt_u64(buf, v), out);
}

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

/* Unknown counters (mincore) are empty fields, never 0. */
static void put_field(const struct sink *sink, const struct row *row, enum column_id id)
{
	FILE *out = sink->cfg.out;
	const struct column *col = &columns[id];
	char buf[FMT_BUFSIZE];
	uint64_t value;

	switch (col->kind) {
	case KIND_TEXT: {
		const char *text = column_text(id, row);
		if (id != COL_PATH) {
			if (text) /* else empty, as an unknown counter */
				esc_csv_field(out, text, strlen(text));
		} else if (row->path) {
			esc_csv_field(out, row->path, row->path_len);
		} else {
			fputs_unlocked("total", out);
		}
		break;
	}
	case KIND_SIZE:
	case KIND_NUMBER:
		column_value(col, row, &value);
		put_u64(out, value);
		break;
	case KIND_PAGES:
		if (column_value(col, row, &value)) {
			put_u64(out, value);
			putc_unlocked(',', out);
			put_u64(out, sink_pages_to_bytes(sink, value));
		} else {
			putc_unlocked(',', out);
		}
		break;
	case KIND_PERCENT:
		if ((row->stat.known & PCS_CACHED) &&
		    fmt_percent(buf, row->stat.cached, row->stat.pages))
			fputs_unlocked(buf, out);
		break;
	case KIND_SEGMENTS:
		sink_put_segments(out, row);
		break;
	case KIND_EXTENTS:
		sink_put_extents(out, row);
		break;
	case KIND_DELTA:
		if (row->delta_known) {
			sink_put_delta(sink, out, row, false);
			putc_unlocked(',', out);
			sink_put_delta(sink, out, row, true);
		} else {
			putc_unlocked(',', out);
		}
		break;
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
