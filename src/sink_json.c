/* JSON document and ndjson lines, both streamed: one row at a time. */
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

static void put_key(FILE *out, bool *first, const char *key, const char *suffix)
{
	if (!*first)
		putc_unlocked(',', out);
	*first = false;
	putc_unlocked('"', out);
	fputs_unlocked(key, out);
	fputs_unlocked(suffix, out);
	fputs_unlocked("\":", out);
}

static void put_path(FILE *out, bool *first, const struct row *row)
{
	put_key(out, first, "path", "");
	if (!esc_json_string(out, row->path, row->path_len)) {
		put_key(out, first, "path_base64", "");
		putc_unlocked('"', out);
		esc_base64(out, row->path, row->path_len);
		putc_unlocked('"', out);
	}
}

/* "key":"text", or null; text that is not UTF-8 also as key_base64. */
static void put_text(FILE *out, bool *first, const char *key, const char *text)
{
	put_key(out, first, key, "");
	if (!text) {
		fputs_unlocked("null", out);
	} else if (!esc_json_string(out, text, strlen(text))) {
		put_key(out, first, key, "_base64");
		putc_unlocked('"', out);
		esc_base64(out, text, strlen(text));
		putc_unlocked('"', out);
	}
}

/* "key":value pairs of an object, the first without a comma. */
static void put_pair(FILE *out, const char *key, uint64_t value)
{
	fputs_unlocked(key, out);
	put_u64(out, value);
}

static void put_segments(FILE *out, const struct row *row)
{
	char buf[FMT_BUFSIZE];

	putc_unlocked('[', out);
	for (size_t i = 0; i < row->nsegments; i++) {
		const struct segment *seg = &row->segments[i];
		put_pair(out, i ? ",{\"offset\":" : "{\"offset\":", seg->offset);
		put_pair(out, ",\"length\":", seg->length);
		put_pair(out, ",\"pages\":", seg->pages);
		put_pair(out, ",\"cached\":", seg->cached);
		fputs_unlocked(",\"percent\":", out);
		fputs_unlocked(fmt_percent(buf, seg->cached, seg->pages) ? buf : "null", out);
		putc_unlocked('}', out);
	}
	putc_unlocked(']', out);
}

static void put_extents(FILE *out, const struct row *row)
{
	putc_unlocked('[', out);
	for (size_t i = 0; i < row->nextents; i++) {
		put_pair(out, i ? ",{\"offset\":" : "{\"offset\":", row->extents[i].offset);
		put_pair(out, ",\"length\":", row->extents[i].length);
		putc_unlocked('}', out);
	}
	putc_unlocked(']', out);
}

static void put_error_row(FILE *out, const struct row *row)
{
	bool first = true;
	const char *name = probe_errname(row->error);

	put_path(out, &first, row);
	put_key(out, &first, "type", "");
	if (row->type == ROW_UNKNOWN)
		fputs_unlocked("null", out);
	else
		fprintf(out, "\"%s\"", row_type_name(row->type));
	put_key(out, &first, "error", "");
	const char *text = probe_strerror(row->error);
	esc_json_string(out, text, strlen(text));
	put_key(out, &first, "errno", "");
	if (name)
		fprintf(out, "\"%s\"", name);
	else
		fputs_unlocked("null", out);
}

static void put_column(const struct sink *sink, bool *first, const struct row *row,
		       enum column_id id)
{
	FILE *out = sink->cfg.out;
	const struct column *col = &columns[id];
	uint64_t value;
	char buf[FMT_BUFSIZE];

	switch (col->kind) {
	case KIND_TEXT:
		if (id == COL_PATH) {
			if (row->path)
				put_path(out, first, row);
		} else {
			put_text(out, first, col->name, column_text(id, row));
		}
		break;
	case KIND_SIZE:
	case KIND_NUMBER:
		put_key(out, first, col->name, "");
		column_value(col, row, &value);
		put_u64(out, value);
		break;
	case KIND_PAGES: {
		bool known = column_value(col, row, &value);
		put_key(out, first, col->name, "");
		if (known)
			put_u64(out, value);
		else
			fputs_unlocked("null", out);
		put_key(out, first, col->name, "_bytes");
		if (known)
			put_u64(out, sink_pages_to_bytes(sink, value));
		else
			fputs_unlocked("null", out);
		break;
	}
	case KIND_PERCENT:
		put_key(out, first, col->name, "");
		if ((row->stat.known & PCS_CACHED) &&
		    fmt_percent(buf, row->stat.cached, row->stat.pages))
			fputs_unlocked(buf, out);
		else
			fputs_unlocked("null", out);
		break;
	case KIND_SEGMENTS:
		put_key(out, first, col->name, "");
		if (row_has_detail(row))
			put_segments(out, row);
		else
			fputs_unlocked("null", out);
		break;
	case KIND_EXTENTS:
		put_key(out, first, col->name, "");
		if (row_has_detail(row))
			put_extents(out, row);
		else
			fputs_unlocked("null", out);
		break;
	}
}

/* One row as a JSON object; with_type forces "type" (for the total). */
static void put_row(const struct sink *sink, const struct row *row, bool with_type)
{
	FILE *out = sink->cfg.out;
	bool first = true;

	putc_unlocked('{', out);
	if (row->error) {
		put_error_row(out, row);
	} else {
		bool has_type = false;
		for (size_t i = 0; i < sink->cfg.ncolumns; i++)
			has_type |= sink->cfg.columns[i] == COL_TYPE;
		if (with_type && !has_type)
			put_column(sink, &first, row, COL_TYPE);
		for (size_t i = 0; i < sink->cfg.ncolumns; i++)
			put_column(sink, &first, row, sink->cfg.columns[i]);
		/* a file measured otherwise than the document says */
		if (row->stat.overlay && row->type != ROW_DIRECTORY)
			fputs_unlocked(first ? "\"method\":\"mincore\"" : ",\"method\":\"mincore\"",
				       out);
	}
	putc_unlocked('}', out);
}

static void json_begin(struct sink *sink)
{
	FILE *out = sink->cfg.out;

	fprintf(out, "{\"version\":\"%s\",\"page_size\":", PACKAGE_VERSION);
	put_u64(out, sink->cfg.page_size);
	fprintf(out, ",\"method\":\"%s\",\"range\":{\"offset\":", sink->cfg.method);
	put_u64(out, sink->cfg.range.offset);
	fputs_unlocked(",\"length\":", out);
	if (sink->cfg.range.length)
		put_u64(out, sink->cfg.range.length);
	else
		fputs_unlocked("null", out);
	putc_unlocked('}', out);
	if (sink->cfg.segments) {
		fputs_unlocked(",\"segments\":", out);
		put_u64(out, sink->cfg.segments);
	}
	if (sink->cfg.extents != EXTENTS_NONE)
		fprintf(out, ",\"extents\":\"%s\"",
			sink->cfg.extents == EXTENTS_MISSING ? "missing" : "cached");
	fputs_unlocked(",\"rows\":[", out);
}

static void json_row(struct sink *sink, const struct row *row)
{
	/* One row per line keeps the document greppable and diffable. */
	fputs_unlocked(sink->rows ? ",\n" : "\n", sink->cfg.out);
	put_row(sink, row, false);
}

static void json_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	FILE *out = sink->cfg.out;

	fputs_unlocked("\n],\"total\":", out);
	put_row(sink, total, true);
	fputs_unlocked(",\"errors\":", out);
	put_u64(out, errors);
	fputs_unlocked("}\n", out);
}

static void ndjson_row(struct sink *sink, const struct row *row)
{
	put_row(sink, row, false);
	putc_unlocked('\n', sink->cfg.out);
}

static void ndjson_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	put_row(sink, total, true);
	putc_unlocked('\n', sink->cfg.out);
}

const struct sink_ops sink_json_ops = {
	.begin = json_begin,
	.row = json_row,
	.end = json_end,
};

const struct sink_ops sink_ndjson_ops = {
	.row = ndjson_row,
	.end = ndjson_end,
};
