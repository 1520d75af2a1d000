/* SPDX-License-Identifier: MIT */
/* JSON document and ndjson lines, both streamed: one row at a time.  Each
 * row is built in a buffer and written with one call: dozens of small
 * stdio calls per row cost more than the rest of the formatting. */
#include <config.h>

#include "output/sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "kernel/memstat.h"
#include "lib/format.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

/* The row buffer, and each column's keys ready to copy: "name": and
 * "name_bytes": (strlen and four appends per key showed in the profile). */
struct json_state {
	struct strbuf out;
	struct key {
		char text[48]; /* the longest, "recently_evicted_bytes":, is 25 */
		size_t len;
	} keys[COL_COUNT][2];
};

static struct strbuf *buffer(struct sink *sink)
{
	if (!sink->state) {
		struct json_state *st = xcalloc(1, sizeof *st);
		for (size_t id = 0; id < COL_COUNT; id++)
			for (int bytes = 0; bytes < 2; bytes++) {
				struct key *key = &st->keys[id][bytes];
				int n = snprintf(key->text, sizeof key->text, "\"%s%s\":",
						 columns[id].name, bytes ? "_bytes" : "");
				key->len = n > 0 && (size_t)n < sizeof key->text ? (size_t)n : 0;
			}
		sink->state = st;
	}
	return &((struct json_state *)sink->state)->out;
}

static void json_free(struct sink *sink)
{
	if (sink->state)
		sb_free(&((struct json_state *)sink->state)->out);
	free(sink->state);
}

static void put_column_key(const struct sink *sink, struct strbuf *out, bool *first,
			   enum column_id id, bool bytes)
{
	const struct key *key = &((const struct json_state *)sink->state)->keys[id][bytes];
	if (!*first)
		sb_putc(out, ',');
	*first = false;
	sb_put(out, key->text, key->len);
}

static void put_key(struct strbuf *out, bool *first, const char *key, const char *suffix)
{
	if (!*first)
		sb_putc(out, ',');
	*first = false;
	sb_putc(out, '"');
	sb_puts(out, key);
	sb_puts(out, suffix);
	sb_put(out, "\":", 2);
}

/* "key":"text", or null; text that is not UTF-8 also as key_base64. */
static void put_text(struct strbuf *out, bool *first, const char *key, const char *text,
		     size_t len)
{
	put_key(out, first, key, "");
	if (!text) {
		sb_put(out, "null", 4);
	} else if (!esc_json_sb(out, text, len)) {
		put_key(out, first, key, "_base64");
		sb_putc(out, '"');
		esc_base64_sb(out, text, len);
		sb_putc(out, '"');
	}
}

/* A number, '-' first when negative, or null when it is not known. */
static void put_number(struct strbuf *out, bool known, bool negative, uint64_t value)
{
	if (!known) {
		sb_put(out, "null", 4);
		return;
	}
	if (negative)
		sb_putc(out, '-');
	sb_u64(out, value);
}

/* A literal (a key, punctuation) then a number. */
static void put_pair(struct strbuf *out, const char *key, uint64_t value)
{
	sb_puts(out, key);
	sb_u64(out, value);
}

static void put_percent(struct strbuf *out, uint64_t part, uint64_t whole)
{
	sb_reserve(out, FMT_BUFSIZE);
	size_t n = fmt_percent(out->data + out->len, part, whole);
	if (n)
		out->len += n;
	else
		sb_put(out, "null", 4);
}

static void put_segments(struct strbuf *out, const struct row *row)
{
	sb_putc(out, '[');
	for (size_t i = 0; i < row->nsegments; i++) {
		const struct segment *seg = &row->segments[i];
		put_pair(out, i ? ",{\"offset\":" : "{\"offset\":", seg->offset);
		put_pair(out, ",\"length\":", seg->length);
		put_pair(out, ",\"pages\":", seg->pages);
		put_pair(out, ",\"cached\":", seg->cached);
		sb_puts(out, ",\"percent\":");
		put_percent(out, seg->cached, seg->pages);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}

static void put_extents(struct strbuf *out, const struct row *row)
{
	sb_putc(out, '[');
	for (size_t i = 0; i < row->nextents; i++) {
		put_pair(out, i ? ",{\"offset\":" : "{\"offset\":", row->extents[i].offset);
		put_pair(out, ",\"length\":", row->extents[i].length);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}

static void put_quoted(struct strbuf *out, const char *name)
{
	sb_putc(out, '"');
	sb_puts(out, name);
	sb_putc(out, '"');
}

static void put_error_row(struct strbuf *out, const struct row *row)
{
	bool first = true;
	size_t type_len;
	const char *type = column_text(COL_TYPE, row, &type_len);
	const char *text = fail_strerror(row->error);
	const char *name = fail_errname(row->error);

	put_text(out, &first, "path", row->path, row->path_len);
	/* --pid: a process refused, its files' types unknown */
	put_text(out, &first, "type", row->type == ROW_UNKNOWN ? NULL : type, type_len);
	put_key(out, &first, "error", "");
	esc_json_sb(out, text, strlen(text));
	put_text(out, &first, "errno", name, name ? strlen(name) : 0);
}

/* A string, or null when it is none or not UTF-8 (a command's bytes). */
static void put_string_or_null(struct strbuf *out, const char *text)
{
	if (!text || !esc_json_sb(out, text, strlen(text)))
		sb_put(out, "null", 4);
}

/* --trace's readers or evictors: [{"pid":N,"command":"cat","cgroup":"/x",
 * "pages":N}, ...], the processes not kept last as {"others":N,"pages":N}. */
static void put_who(struct strbuf *out, const struct row *row, enum column_id id)
{
	enum tally_side side = id == COL_READERS ? TALLY_READERS : TALLY_EVICTORS;
	const struct tally_file *f = row->stat.traced;
	const struct tally_proc *p;
	uint64_t pages, others;
	size_t n = 0;

	sb_putc(out, '[');
	for (; f && (p = tally_who(row->stat.tally, f, side, n, &pages)) != NULL; n++) {
		sb_puts(out, n ? ",{\"pid\":" : "{\"pid\":");
		sb_u64(out, (uint64_t)p->pid);
		sb_puts(out, ",\"command\":");
		put_string_or_null(out, strcmp(p->comm, "?") ? p->comm : NULL);
		sb_puts(out, ",\"cgroup\":");
		put_string_or_null(out, p->cgroup);
		sb_puts(out, ",\"pages\":");
		sb_u64(out, pages);
		sb_putc(out, '}');
	}
	others = 0;
	if (f)
		tally_who_others(f, side, &others, &pages);
	if (others) {
		sb_puts(out, n ? ",{\"others\":" : "{\"others\":");
		sb_u64(out, others);
		sb_puts(out, ",\"pages\":");
		sb_u64(out, pages);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}

/* --by's top_files: [{"path":"/x","pages":N}, ...], then
 * {"others":N,"pages":N} for the files past them. */
static void put_files(struct strbuf *out, const struct row *row)
{
	const struct tally_group *g = row->stat.group;
	char name[96];
	sb_putc(out, '[');
	for (size_t i = 0; i < g->ntop; i++) {
		const char *path = tally_file_name(row->stat.tally, g->top[i].file, name, sizeof name);
		sb_puts(out, i ? ",{\"path\":" : "{\"path\":");
		put_string_or_null(out, path);
		sb_puts(out, ",\"pages\":");
		sb_u64(out, g->top[i].pages);
		sb_putc(out, '}');
	}
	if (g->others) {
		sb_puts(out, g->ntop ? ",{\"others\":" : "{\"others\":");
		sb_u64(out, g->others);
		sb_puts(out, ",\"pages\":");
		sb_u64(out, g->others_pages);
		sb_putc(out, '}');
	}
	sb_putc(out, ']');
}

/* A list column's array (segments, extents, readers, evictors, top_files). */
static void put_list(struct strbuf *out, const struct row *row, enum column_id id)
{
	switch (columns[id].kind) {
	case KIND_SEGMENTS:
		put_segments(out, row);
		break;
	case KIND_EXTENTS:
		put_extents(out, row);
		break;
	case KIND_WHO:
		put_who(out, row, id);
		break;
	default:
		put_files(out, row);
		break;
	}
}

static void put_column(const struct sink *sink, struct strbuf *out, bool *first,
		       const struct row *row, enum column_id id)
{
	bool known = column_known(id, row);
	uint64_t value = 0;
	size_t len;
	const char *text;

	switch (columns[id].kind) {
	case KIND_TEXT:
		/* the total has no path: its "type" says what it is */
		if (id == COL_PATH && !row->path)
			break;
		text = column_text(id, row, &len);
		put_text(out, first, columns[id].name, text, len);
		break;
	case KIND_SIZE:
	case KIND_NUMBER:
		column_value(id, row, &value);
		put_column_key(sink, out, first, id, false);
		put_number(out, known, false, value);
		break;
	case KIND_PAGES:
		column_value(id, row, &value);
		put_column_key(sink, out, first, id, false);
		put_number(out, known, false, value);
		put_column_key(sink, out, first, id, true);
		put_number(out, known, false, sink_pages_to_bytes(sink, value));
		break;
	case KIND_DELTA:
		value = row_delta_pages(row);
		put_column_key(sink, out, first, id, false);
		put_number(out, known, row->delta < 0, value);
		put_column_key(sink, out, first, id, true);
		put_number(out, known, row->delta < 0, sink_pages_to_bytes(sink, value));
		break;
	case KIND_PERCENT:
		put_column_key(sink, out, first, id, false);
		if (known)
			put_percent(out, row->stat.cached, row->stat.pages);
		else
			sb_put(out, "null", 4);
		break;
	case KIND_SEGMENTS:
	case KIND_EXTENTS:
	case KIND_WHO:
	case KIND_FILES:
		put_column_key(sink, out, first, id, false);
		if (known)
			put_list(out, row, id);
		else
			sb_put(out, "null", 4);
		break;
	}
}

/* One row as a JSON object; with_type forces "type" (for the total), with
 * time a "time" key first (ndjson under -i). */
/* --cgroup, a cgroup's row: "cgroup":{...}, its kernel figures (memory.stat,
 * null where the kernel has no such key or the cgroup was removed) and the
 * share of its file pages that its processes' files hold. */
static void put_cgroup(const struct sink *sink, struct strbuf *out, const struct row *row)
{
	const struct cgroup_figures *cg = row->cgroup;
	const struct memstat *ms = &cg->stat;

	sb_puts(out, ",\"cgroup\":{\"name\":");
	put_quoted(out, cg->name);
	put_pair(out, ",\"version\":", (uint64_t)ms->version);
	put_pair(out, ",\"processes\":", cg->processes);
	put_pair(out, ",\"exited\":", cg->exited);
	if (!cg->stat_read) {
		sb_puts(out, ",\"kernel\":null,\"coverage\":null}");
		return;
	}
	sb_puts(out, ",\"kernel\":{");
	for (int i = 0; i < MEMSTAT_COUNT; i++) {
		const struct memstat_key *k = &memstat_keys[i];
		sb_puts(out, i ? ",\"" : "\"");
		sb_puts(out, k->name);
		sb_puts(out, k->bytes ? "_bytes\":" : "\":");
		if (memstat_known(ms, (enum memstat_id)i))
			sb_u64(out, ms->value[i]);
		else
			sb_puts(out, "null");
	}
	sb_putc(out, '}');
	/* -i: the counters' change per second since the sample before */
	if (sink->cfg.time) {
		sb_puts(out, ",\"rates\":{");
		bool first = true;
		for (int i = 0; i < MEMSTAT_COUNT; i++) {
			double rate;
			if (memstat_keys[i].bytes)
				continue;
			sb_puts(out, first ? "\"" : ",\"");
			first = false;
			sb_puts(out, memstat_keys[i].name);
			sb_puts(out, "\":");
			if (cgroup_rate(cg, (enum memstat_id)i, &rate)) {
				char num[32];
				snprintf(num, sizeof num, "%.1f", rate);
				sb_puts(out, num);
			} else {
				sb_puts(out, "null");
			}
		}
		sb_putc(out, '}');
	}
	sb_puts(out, ",\"coverage\":");
	if (!cg->figures_only && memstat_known(ms, MEMSTAT_FILE) && ms->value[MEMSTAT_FILE])
		put_percent(out, sink_pages_to_bytes(sink, row->stat.cached), ms->value[MEMSTAT_FILE]);
	else
		sb_puts(out, "null");
	sb_putc(out, '}');
}

static void put_row(const struct sink *sink, struct strbuf *out, const struct row *row,
		    bool with_type, const char *time)
{
	bool first = true;

	sb_putc(out, '{');
	if (time) {
		put_key(out, &first, "time", "");
		put_quoted(out, time);
	}
	if (row->error) {
		if (!first)
			sb_putc(out, ',');
		put_error_row(out, row);
	} else {
		bool has_type = false;
		for (size_t i = 0; i < sink->cfg.ncolumns; i++)
			has_type |= sink->cfg.columns[i] == COL_TYPE;
		if (with_type && !has_type)
			put_column(sink, out, &first, row, COL_TYPE);
		for (size_t i = 0; i < sink->cfg.ncolumns; i++)
			put_column(sink, out, &first, row, sink->cfg.columns[i]);
		/* a file measured otherwise than the document says */
		if (row->stat.overlay && row->type != ROW_DIRECTORY)
			sb_puts(out, first ? "\"method\":\"mincore\"" : ",\"method\":\"mincore\"");
		if (row->cgroup)
			put_cgroup(sink, out, row);
	}
	sb_putc(out, '}');
}

static void json_begin(struct sink *sink)
{
	struct strbuf *out = buffer(sink);

	sb_puts(out, "{\"version\":\"" PACKAGE_VERSION "\",\"schema\":1");
	if (sink->cfg.time) {
		sb_puts(out, ",\"time\":");
		put_quoted(out, sink->cfg.time);
	}
	put_pair(out, ",\"page_size\":", sink->cfg.page_size);
	sb_puts(out, ",\"method\":");
	put_quoted(out, sink->cfg.method);
	put_pair(out, ",\"range\":{\"offset\":", sink->cfg.range.offset);
	if (sink->cfg.range.length)
		put_pair(out, ",\"length\":", sink->cfg.range.length);
	else
		sb_puts(out, ",\"length\":null");
	sb_putc(out, '}');
	if (sink->cfg.segments)
		put_pair(out, ",\"segments\":", sink->cfg.segments);
	if (sink->cfg.extents != EXTENTS_NONE) {
		sb_puts(out, ",\"extents\":");
		put_quoted(out, sink->cfg.extents == EXTENTS_MISSING ? "missing" : "cached");
	}
	sb_puts(out, ",\"rows\":[");
	sb_write(out, sink->cfg.out);
}

static void json_row(struct sink *sink, const struct row *row)
{
	struct strbuf *out = buffer(sink);

	/* One row per line keeps the document greppable and diffable; under
	 * -i each sample is one document on one line. */
	if (sink->rows)
		sb_putc(out, ',');
	if (!sink->cfg.time)
		sb_putc(out, '\n');
	put_row(sink, out, row, false, NULL);
	sb_write(out, sink->cfg.out);
}

/* --system: the kernel's figures, and the share of Cached + Buffers the
 * total holds. */
static void put_kernel(const struct sink *sink, struct strbuf *out, const struct row *total)
{
	const struct system_figures *fig = sink->cfg.system;

	if (!fig)
		return;
	if (!fig->known) {
		sb_puts(out, ",\"kernel\":null,\"coverage\":null");
		return;
	}
	put_pair(out, ",\"kernel\":{\"cached_bytes\":", fig->cached);
	put_pair(out, ",\"buffers_bytes\":", fig->buffers);
	put_pair(out, ",\"shmem_bytes\":", fig->shmem);
	sb_puts(out, fig->buffers_unread ? ",\"buffers_read\":false" : ",\"buffers_read\":true");
	sb_puts(out, "},\"coverage\":");
	uint64_t found = sink_pages_to_bytes(sink, total->stat.cached);
	if (fig->cached + fig->buffers)
		put_percent(out, found, fig->cached + fig->buffers);
	else
		sb_puts(out, "null");
}

static void json_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct strbuf *out = buffer(sink);

	sb_puts(out, sink->cfg.time ? "],\"total\":" : "\n],\"total\":");
	put_row(sink, out, total, true, NULL);
	put_pair(out, ",\"errors\":", errors);
	put_kernel(sink, out, total);
	sb_puts(out, "}\n");
	sb_write(out, sink->cfg.out);
}

static void ndjson_row(struct sink *sink, const struct row *row)
{
	struct strbuf *out = buffer(sink);

	put_row(sink, out, row, false, sink->cfg.time);
	sb_putc(out, '\n');
	sb_write(out, sink->cfg.out);
}

static void ndjson_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct strbuf *out = buffer(sink);

	(void)errors;
	put_row(sink, out, total, true, sink->cfg.time);
	sb_putc(out, '\n');
	sb_write(out, sink->cfg.out);
}

const struct sink_ops sink_json_ops = {
	.begin = json_begin,
	.row = json_row,
	.end = json_end,
	.free = json_free,
};

const struct sink_ops sink_ndjson_ops = {
	.row = ndjson_row,
	.end = ndjson_end,
	.free = json_free,
};
