/* --warm-from: a cache snapshot (what pagestat -a -e wrote, JSON or
 * ndjson) read back, checked, and its files' extents warmed. */
#include <config.h>

#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aggregate.h"
#include "msg.h"
#include "probe.h"
#include "report.h"
#include "safeopen.h"
#include "userfile.h"
#include "xalloc.h"

struct snapshot {
	const char *name; /* as given: "-" is standard input */
	/* ndjson is read a line at a time, twice: from the file, or from a
	 * scratch copy of a stream */
	FILE *in;
	/* a JSON document is read whole; its "rows" */
	json_t *doc;
	json_t *rows;
	/* the row being read: its path, decoded from path_base64 when it
	 * has one, and its extents */
	char *path;
	size_t path_cap;
	struct extent *ext;
	size_t ext_cap;
	uint64_t page_size; /* the document's, else this machine's */
};

/* One file row, as the snapshot has it. */
struct snap_file {
	const char *path;
	size_t len;
	uint64_t inode, file_size, mtime, mtime_nsec;
	size_t nextents; /* in snap->ext */
	uint64_t bytes;  /* of the extents */
	/* the extents' pages are not the row's cached count: extents of
	 * --extents=missing (an ndjson row does not say), or a cache that
	 * changed while the row was measured */
	bool mismatch;
};

/* Where the reading is: ndjson's line, a document's row. */
struct cursor {
	struct snapshot *snap;
	char *line;
	size_t cap;
	unsigned long lineno;
	size_t index;
};

/* "--warm-from 'FILE': line 3: " and the rest of the message. */
static void tell_at(const struct cursor *c, const char *what, const char *detail)
{
	msg("--warm-from ");
	msg_name_str(c->snap->name);
	if (c->snap->doc)
		msg_more(": row %zu: ", c->index);
	else
		msg_more(": line %lu: ", c->lineno);
	msg_more("%s%s\n", what, detail);
}

static void tell_file(const char *name, const char *what, const char *detail)
{
	msg("--warm-from ");
	msg_name_str(name);
	msg_more(": %s%s\n", what, detail);
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/* The next row: 1, 0 at the end, -1 when it is not a JSON object (told). */
static int next_row(struct cursor *c, json_t **row)
{
	struct snapshot *snap = c->snap;

	if (snap->doc) {
		if (c->index >= json_array_size(snap->rows))
			return 0;
		*row = json_incref(json_array_get(snap->rows, c->index++));
	} else {
		ssize_t n;
		do {
			n = getline(&c->line, &c->cap, snap->in);
			if (n < 0) {
				if (ferror(snap->in)) {
					tell_file(snap->name, "read error: ", strerror(errno));
					return -1;
				}
				return 0;
			}
			c->lineno++;
		} while (blank(c->line));
		json_error_t err;
		*row = json_loadb(c->line, (size_t)n, 0, &err);
		if (!*row) {
			tell_at(c, "not JSON: ", err.text);
			return -1;
		}
	}
	if (!json_is_object(*row)) {
		json_decref(*row);
		tell_at(c, "not a row (a JSON object) of pagestat -a -e", "");
		return -1;
	}
	return 1;
}

static bool get_u64(const json_t *obj, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static int base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* RFC 4648 base64, padded, into snap->path; false when it is not. */
static bool decode_base64(struct snapshot *snap, const char *in, size_t n, size_t *len)
{
	if (n % 4)
		return false;
	if (snap->path_cap < n / 4 * 3 + 1) {
		snap->path_cap = n / 4 * 3 + 1;
		snap->path = xrealloc(snap->path, snap->path_cap);
	}
	size_t out = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		for (int k = 0; k < 4; k++) {
			bool pad = in[i + k] == '=' && i + 4 == n && k >= 2;
			v[k] = pad ? 0 : base64_value((unsigned char)in[i + k]);
			if (v[k] < 0 || (pad && k == 2 && in[i + 3] != '='))
				return false;
		}
		unsigned bits = (unsigned)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
		snap->path[out++] = (char)(bits >> 16);
		if (in[i + 2] != '=')
			snap->path[out++] = (char)(bits >> 8 & 0xff);
		if (in[i + 3] != '=')
			snap->path[out++] = (char)(bits & 0xff);
	}
	snap->path[out] = '\0';
	*len = out;
	return true;
}

/* The row's path: path_base64's exact bytes when it has them. */
static const char *row_path(struct snapshot *snap, const json_t *row, size_t *len)
{
	const json_t *b64 = json_object_get(row, "path_base64");
	if (json_is_string(b64))
		return decode_base64(snap, json_string_value(b64), json_string_length(b64), len)
			       ? snap->path : NULL;
	const json_t *path = json_object_get(row, "path");
	if (!json_is_string(path))
		return NULL;
	*len = json_string_length(path);
	return json_string_value(path);
}

/* The extents of a row into snap->ext: byte ranges in order, apart. */
static const char *row_extents(struct snapshot *snap, const json_t *list, struct snap_file *f)
{
	if (!json_is_array(list))
		return "a file row without \"extents\": take the snapshot with -e";
	f->nextents = 0;
	f->bytes = 0;
	uint64_t end = 0;
	size_t i;
	const json_t *e;
	json_array_foreach(list, i, e) {
		uint64_t offset, length;
		if (!get_u64(e, "offset", &offset) || !get_u64(e, "length", &length) ||
		    length == 0 || offset > UINT64_MAX - length)
			return "an extent without a whole \"offset\" and \"length\" above 0";
		if (offset < end)
			return "extents out of order or overlapping";
		end = offset + length;
		if (f->nextents == snap->ext_cap) {
			snap->ext_cap = snap->ext_cap ? 2 * snap->ext_cap : 16;
			snap->ext = xrealloc(snap->ext, snap->ext_cap * sizeof *snap->ext);
		}
		snap->ext[f->nextents++] = (struct extent){ offset, length };
		f->bytes += length;
	}
	return NULL;
}

/* The pages the extents of f touch, in the snapshot's page size. */
static uint64_t extent_pages(const struct snapshot *snap, const struct snap_file *f)
{
	uint64_t page = snap->page_size, pages = 0;

	for (size_t i = 0; i < f->nextents; i++) {
		const struct extent *e = &snap->ext[i];
		pages += (e->offset + e->length - 1) / page - e->offset / page + 1;
	}
	return pages;
}

/* A row read: 1, a file to warm, in f; 0, a row that names none (a
 * directory's, the total, a failure); -1, not a snapshot's row (told). */
static int parse_row(struct cursor *c, const json_t *row, struct snap_file *f)
{
	const char *type = json_string_value(json_object_get(row, "type"));
	const char *bad = NULL;

	if (!type)
		bad = "a row without \"type\": not what pagestat -a -e writes";
	else if (strcmp(type, "file") != 0 || json_object_get(row, "error"))
		return 0;
	else if (!(f->path = row_path(c->snap, row, &f->len)))
		bad = "a file row without a \"path\" (or a valid \"path_base64\")";
	else if ((bad = row_extents(c->snap, json_object_get(row, "extents"), f)))
		;
	else if (!get_u64(row, "inode", &f->inode) || !get_u64(row, "file_size", &f->file_size) ||
		 !get_u64(row, "mtime", &f->mtime) || !get_u64(row, "mtime_nsec", &f->mtime_nsec))
		bad = "a file row without \"inode\", \"file_size\", \"mtime\" and "
		      "\"mtime_nsec\": take the snapshot with this pagestat's -e";
	if (bad) {
		tell_at(c, bad, "");
		return -1;
	}
	uint64_t cached;
	f->mismatch = get_u64(row, "cached", &cached) && cached != extent_pages(c->snap, f);
	return 1;
}

/* A JSON document, the whole of it, read again from the start. */
static bool read_document(struct snapshot *snap)
{
	json_error_t err;

	rewind(snap->in);
	snap->doc = json_loadf(snap->in, 0, &err);
	if (!snap->doc) {
		msg("--warm-from ");
		msg_name_str(snap->name);
		msg_more(": line %d: not JSON: %s\n", err.line, err.text);
		return false;
	}
	return true;
}

/* Which of the two it is: ndjson (each line a row) or a document. */
static bool read_start(struct snapshot *snap, struct cursor *c)
{
	ssize_t n;

	while ((n = getline(&c->line, &c->cap, snap->in)) >= 0 && blank(c->line))
		;
	if (n < 0) {
		tell_file(snap->name, ferror(snap->in) ? "read error: " : "empty: ",
			  ferror(snap->in) ? strerror(errno) : "no row to warm");
		return false;
	}
	json_t *first = json_loadb(c->line, (size_t)n, 0, NULL);
	if (json_is_object(first) && !json_object_get(first, "rows")) {
		json_decref(first); /* ndjson: read again by next_row */
		rewind(snap->in);
		return true;
	}
	if (first) {
		snap->doc = first;
	} else if (!read_document(snap)) {
		return false;
	}
	snap->rows = json_object_get(snap->doc, "rows");
	uint64_t page;
	if (get_u64(snap->doc, "page_size", &page) && page > 0)
		snap->page_size = page;
	const char *extents = json_string_value(json_object_get(snap->doc, "extents"));
	if (!json_is_array(snap->rows)) {
		tell_file(snap->name, "not a pagestat JSON document or ndjson: ", "no \"rows\"");
		return false;
	}
	if (extents && strcmp(extents, "cached") != 0) {
		tell_file(snap->name, "taken with --extents=missing: ",
			  "a snapshot lists what was cached (-e)");
		return false;
	}
	return true;
}

/* A stream (a pipe, a terminal) cannot be read twice: it is copied to
 * scratch space first, which is read instead.  NULL when that fails (told). */
static FILE *scratch_copy(FILE *in, const char *name)
{
	const char *dir = NULL;
	int fd = user_scratch(&dir);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	char buf[1 << 16];
	size_t n;

	if (!f) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		tell_file(name, "cannot copy it to read it twice: a temporary file in $TMPDIR, "
			  "/tmp or /var/tmp: ", strerror(err));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, f) != n)
			break;
	if (ferror(in) || ferror(f) || fflush(f) != 0) {
		tell_file(name, ferror(in) ? "read error: " : "cannot copy it to read it twice: ",
			  strerror(errno));
		fclose(f);
		return NULL;
	}
	rewind(f);
	return f;
}

/* Every row checked: false when one is wrong (told). */
static bool check_all(struct cursor *c, uint64_t *listed)
{
	json_t *row;
	int got;
	struct snap_file f;

	*listed = 0;
	while ((got = next_row(c, &row)) > 0) {
		int kind = parse_row(c, row, &f);
		json_decref(row);
		if (kind < 0)
			return false;
		if (kind > 0)
			*listed += f.bytes;
	}
	if (got < 0)
		return false;
	if (!c->snap->doc)
		rewind(c->snap->in);
	return true;
}

struct snapshot *snapshot_open(const char *file, uint64_t *listed)
{
	struct snapshot *snap = xcalloc(1, sizeof *snap);
	struct cursor c = { .snap = snap };
	struct stat st;

	snap->name = file;
	snap->page_size = probe_page_size();
	snap->in = user_fopen_read(file);
	if (!snap->in) {
		msg("cannot read --warm-from ");
		msg_name_str(file);
		msg_more(": %s\n", strerror(errno));
		free(snap);
		return NULL;
	}
	if (fstat(fileno(snap->in), &st) != 0 || !S_ISREG(st.st_mode)) {
		FILE *copy = scratch_copy(snap->in, file);
		if (snap->in != stdin)
			fclose(snap->in);
		snap->in = copy;
	}
	bool ok = snap->in && read_start(snap, &c) && check_all(&c, listed);
	free(c.line);
	if (!ok) {
		snapshot_free(snap);
		return NULL;
	}
	return snap;
}

/* Is the file as the snapshot saw it?  NULL, or what differs. */
static const char *changed(const struct snap_file *f, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return "no longer a regular file";
	if ((uint64_t)st->st_ino != f->inode)
		return "another file (its inode differs)";
	if ((uint64_t)st->st_size != f->file_size)
		return "its size differs";
	if ((uint64_t)st->st_mtim.tv_sec != f->mtime ||
	    (uint64_t)st->st_mtim.tv_nsec != f->mtime_nsec)
		return "its mtime differs";
	return NULL;
}

/* One file of the snapshot: warmed and reported, or skipped with a note. */
static void warm_file(struct snapshot *snap, const struct snap_file *f, struct report *out,
		      const struct walk_config *cfg, struct probe_detail *detail,
		      struct agg_sum *total)
{
	struct stat st;
	const char *why = NULL;

	/* what was named at the snapshot, a link named as FILE included */
	if (f->mismatch) {
		if (!out->quiet) {
			report_say("", f->path, f->len);
			msg_more(": its extents are not its cached pages (taken with "
				 "--extents=missing, or the cache changed meanwhile): skipped\n");
		}
		return;
	}
	/* opened as any inspected file is (safe_open: a regular file, or
	 * nothing), then compared with the snapshot */
	struct probe_ident id = { 0 };
	struct safe_want want = { .follow = true, .id = &id };
	int err;
	int fd = safe_open(AT_FDCWD, f->path, &want, &st, &err);
	if (!id.known)
		why = err == ENOENT ? "gone" : strerror(err); /* not found */
	else
		why = changed(f, &st);
	if (why) {
		if (fd >= 0)
			close(fd);
		if (!out->quiet) {
			report_say("", f->path, f->len);
			msg_more(": changed since the snapshot (%s): skipped\n", why);
		}
		return;
	}
	if (fd < 0) {
		report_tell(out, probe_failure_what(cfg->probe), f->path, f->len, err);
		report_error(out, f->path, f->len, ROW_FILE, err);
		return;
	}
	struct probe_request req = *cfg->probe;
	req.action = ACTION_LISTED;
	req.listed = snap->ext;
	req.nlisted = f->nextents;
	struct pagecache_stat stat;
	bool want_detail = probe_wants_detail(&req);
	err = probe_fd(fd, &st, &req, want_detail ? detail : NULL, &stat);
	close(fd);
	if (err) {
		report_tell(out, probe_failure_what(&req), f->path, f->len, err);
		report_error(out, f->path, f->len, ROW_FILE, err);
		return;
	}
	report_measured(out, f->path, f->len, &stat);
	agg_stat_add(&total->stat, &stat);
	total->files++;
	report_row(out, f->path, f->len, ROW_FILE, &stat, 1, want_detail ? detail : NULL);
}

void snapshot_run(struct snapshot *snap, const struct walk_config *cfg, struct sink *sink,
		  struct walk_result *result)
{
	struct report out = { .sink = sink, .quiet = cfg->quiet };
	struct cursor c = { .snap = snap };
	struct probe_detail detail = { 0 };
	struct agg_sum total = { .stat.known = probe_known() };
	json_t *row;

	while (!out.output_failed && next_row(&c, &row) > 0) {
		struct snap_file f;
		/* checked already: a file changed since the first reading
		 * fails here */
		int kind = parse_row(&c, row, &f);
		if (kind > 0)
			warm_file(snap, &f, &out, cfg, &detail, &total);
		json_decref(row);
		if (kind < 0) {
			out.errors++;
			break;
		}
	}
	report_end(&out);
	result->total = total;
	result->errors = out.errors;
	result->output_failed = out.output_failed;
	free(c.line);
	probe_detail_free(&detail);
}

void snapshot_free(struct snapshot *snap)
{
	if (!snap)
		return;
	if (snap->in && snap->in != stdin)
		fclose(snap->in);
	json_decref(snap->doc);
	free(snap->path);
	free(snap->ext);
	free(snap);
}
