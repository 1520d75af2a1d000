/* SPDX-License-Identifier: MIT */
/* --warm-from: a cache snapshot (what pagestat -a -e wrote, JSON or
 * ndjson) read back, checked, and its files' extents warmed. */
#include <config.h>

#include "modes/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walk/aggregate.h"
#include "lib/escape.h"
#include "lib/fail.h"
#include "lib/msg.h"
#include "kernel/probe.h"
#include "output/report.h"
#include "kernel/safeopen.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* The most read from a stream (a pipe, a device), which may never end:
 * ndjson from one is copied to scratch space, a document held in memory. */
#define STREAM_MAX ((uint64_t)1 << 30)
#define STREAM_MAX_TEXT "1 GiB"

/* The longest ndjson row read: a row is parsed whole, and the parser
 * needs several times its size (a 73 MB row took 1 GB); a file of
 * 400,000 extents fits.  pagestat(1) says so. */
#define ROW_MAX ((size_t)16 << 20)
#define ROW_MAX_TEXT "16 MiB"

/* The "schema" of the documents this pagestat writes (sink_json.c's). */
#define SCHEMA 1

struct snapshot {
	const char *name; /* as given: "-" is standard input */
	/* ndjson is read a line at a time, twice: from the file, or from a
	 * scratch copy of a stream, made while the stream is first read */
	FILE *in;
	FILE *copy;
	bool stream;       /* in is not a regular file */
	uint64_t streamed; /* bytes read from it */
	bool begun;        /* its first byte that is not blank was seen */
	/* read from in, not yet taken */
	char buf[1 << 16];
	size_t pos, end;
	/* a JSON document is read whole; its "rows" */
	json_t *doc;
	json_t *rows;
	/* the row being read: its path, decoded from path_base64 when it
	 * has one, and its extents */
	char *path;
	size_t path_cap;
	struct extent *ext;
	size_t ext_cap;
	/* the document's "page_size" (else this machine's); 0 for ndjson,
	 * whose rows tell theirs by "cached_bytes" */
	uint64_t page_size;
	uint64_t here_page;  /* this machine's page size */
	uint64_t other_page; /* the first page size of the snapshot not this machine's, or 0 */
	uint64_t spans; /* each file's first extent's start to its last's end, in bytes */
	bool ran;       /* snapshot_run read it: read again from its start next time */
};

/* One file row, as the snapshot has it. */
struct snap_file {
	const char *path;
	size_t len;
	/* false: the four are null (its taker could not stat the file) */
	bool identity;
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
	size_t len;
	unsigned long lineno;
	size_t index;
	bool pending; /* line is the next row's, read already */
	size_t given; /* of line, to the document's parser */
	bool told;    /* the parser was stopped by a message of ours */
};

/* "--warm-from 'FILE': line 3: " (unit and at, when at is not 0), what,
 * and detail escaped for the terminal: it may come from the snapshot. */
static void tell(const struct snapshot *snap, const char *unit, unsigned long at,
		 const char *what, const char *detail)
{
	msg("--warm-from ");
	msg_name_str(snap->name);
	if (at)
		msg_more(": %s %lu", unit, at);
	msg_more(": %s", what);
	esc_put_terminal(stderr, detail, strlen(detail), esc_locale_utf8_for(detail, strlen(detail)));
	msg_more("\n");
}

static void tell_at(const struct cursor *c, const char *what, const char *detail)
{
	if (c->snap->doc)
		tell(c->snap, "row", c->index, what, detail);
	else
		tell(c->snap, "line", c->lineno, what, detail);
}

static void tell_file(const struct snapshot *snap, const char *what, const char *detail)
{
	tell(snap, "", 0, what, detail);
}

static bool is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_blank((unsigned char)s[i]))
			return false;
	return true;
}

/* More of the input in snap->buf once it is all taken: 1, 0 at its end,
 * -1 (told) on a read error, or a stream longer than a snapshot read
 * from one may be.  read(2), not stdio: what a pipe or a terminal has
 * is judged at once, not once 64 KiB came. */
static int fill(struct snapshot *snap)
{
	ssize_t n;

	if (snap->pos < snap->end)
		return 1;
	do
		n = read(fileno(snap->in), snap->buf, sizeof snap->buf);
	while (n < 0 && errno == EINTR);
	snap->pos = 0;
	snap->end = n > 0 ? (size_t)n : 0;
	if (n < 0) {
		tell_file(snap, "read error: ", strerror(errno));
		return -1;
	}
	if (n == 0)
		return 0;
	if (snap->stream && (snap->streamed += (uint64_t)n) > STREAM_MAX) {
		tell_file(snap, "more than " STREAM_MAX_TEXT " from a pipe or device: ",
			  "save the snapshot in a file and name the file");
		return -1;
	}
	return 1;
}

static unsigned long newlines(const char *p, size_t n)
{
	unsigned long count = 0;

	for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		count++;
	return count;
}

/* The next n bytes at p, which begin on line c->lineno: false (told)
 * when they show that the input is no snapshot: a NUL byte, or a first
 * byte that is not blank and begins no JSON. */
static bool check_bytes(struct cursor *c, const char *p, size_t n)
{
	struct snapshot *snap = c->snap;
	const char *nul = memchr(p, '\0', n);
	size_t i = 0, before = nul ? (size_t)(nul - p) : n;

	while (!snap->begun && i < before && is_blank((unsigned char)p[i]))
		i++;
	/* '[' too: JSON, told below as no document of pagestat's */
	if (!snap->begun && i < before && p[i] != '{' && p[i] != '[') {
		tell(snap, "line", c->lineno + newlines(p, i), "not JSON: not a snapshot, which "
		     "is what pagestat -a -e --format=ndjson or -J writes", "");
		return false;
	}
	snap->begun |= i < before;
	if (nul) {
		tell(snap, "line", c->lineno + newlines(p, before), "a NUL byte: not a snapshot, "
		     "which is what pagestat -a -e --format=ndjson or -J writes", "");
		return false;
	}
	return true;
}

/* The next line into c->line, its newline kept (and copied to the
 * scratch copy when one is made): 1, 0 at the end, -1 when told. */
static int read_line(struct cursor *c)
{
	struct snapshot *snap = c->snap;
	int got;

	c->len = 0;
	c->lineno++;
	while ((got = fill(snap)) > 0) {
		const char *p = snap->buf + snap->pos;
		const char *nl = memchr(p, '\n', snap->end - snap->pos);
		size_t n = nl ? (size_t)(nl - p) + 1 : snap->end - snap->pos;
		if (!check_bytes(c, p, n))
			return -1;
		if (c->len + n > ROW_MAX) {
			tell(snap, "line", c->lineno, "a row longer than " ROW_MAX_TEXT ", more than "
			     "a snapshot's row may be: ", "not read");
			return -1;
		}
		XGROW(c->line, c->cap, c->len + n + 1);
		memcpy(c->line + c->len, p, n);
		c->len += n;
		snap->pos += n;
		if (nl)
			break;
	}
	if (got < 0)
		return -1;
	if (c->len == 0) {
		c->lineno--;
		return 0;
	}
	c->line[c->len] = '\0';
	if (snap->copy && fwrite(c->line, 1, c->len, snap->copy) != c->len) {
		tell_file(snap, "cannot copy it to read it twice: ", strerror(errno));
		return -1;
	}
	return 1;
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
		int got = 1;
		if (c->pending)
			c->pending = false;
		else
			while ((got = read_line(c)) > 0 && blank(c->line, c->len))
				;
		if (got <= 0)
			return got;
		json_error_t err;
		*row = json_loadb(c->line, c->len, 0, &err);
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
	XGROW(snap->path, snap->path_cap, n / 4 * 3 + 1);
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

/* The row's path: path_base64's exact bytes when it has them.  NULL,
 * with what is wrong in *bad, when it has none. */
static const char *row_path(struct snapshot *snap, const json_t *row, size_t *len,
			    const char **bad)
{
	const json_t *b64 = json_object_get(row, "path_base64");
	const json_t *path = json_object_get(row, "path");

	if (json_is_string(b64) &&
	    decode_base64(snap, json_string_value(b64), json_string_length(b64), len)) {
		/* the name would end there: another file's */
		if (!memchr(snap->path, '\0', *len))
			return snap->path;
		*bad = "a \"path_base64\" with a NUL byte, which no file name holds";
		return NULL;
	}
	if (!json_is_string(b64) && json_is_string(path)) {
		*len = json_string_length(path);
		return json_string_value(path);
	}
	*bad = "a file row without a \"path\" (or a valid \"path_base64\")";
	return NULL;
}

/* The extents of a row into snap->ext: byte ranges in order, apart.
 * NULL, or what is wrong (in why, when it needs numbers). */
static const char *row_extents(struct snapshot *snap, const json_t *list, struct snap_file *f,
			       char *why, size_t size)
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
		if (offset < end) {
			snprintf(why, size, "extents out of order or overlapping: extent %zu "
				 "begins before the end of extent %zu", i + 1, i);
			return why;
		}
		end = offset + length;
		XGROW(snap->ext, snap->ext_cap, f->nextents + 1);
		snap->ext[f->nextents++] = (struct extent){ offset, length };
		/* no overflow: the extents are apart, below UINT64_MAX */
		f->bytes += length;
	}
	return NULL;
}

/* The row's inode, file_size, mtime and mtime_nsec into f: false when
 * they are not all whole numbers, or all null (f->identity false). */
static bool row_identity(const json_t *row, struct snap_file *f)
{
	static const char *const keys[] = { "inode", "file_size", "mtime", "mtime_nsec" };
	uint64_t *values[] = { &f->inode, &f->file_size, &f->mtime, &f->mtime_nsec };
	size_t nulls = 0;

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		if (json_is_null(json_object_get(row, keys[i])))
			nulls++;
		else if (!get_u64(row, keys[i], values[i]))
			return false;
	}
	f->identity = nulls == 0;
	return nulls == 0 || nulls == sizeof keys / sizeof *keys;
}

/* The first extent of f past the end of its file: NULL, or what is wrong in why. */
static const char *past_end(const struct snapshot *snap, const struct snap_file *f, char *why,
			    size_t size)
{
	for (size_t i = 0; i < f->nextents; i++) {
		const struct extent *e = &snap->ext[i];
		if (e->offset + e->length > f->file_size) {
			snprintf(why, size, "extent %zu, offset %" PRIu64 " length %" PRIu64
				 ", ends past the file's \"file_size\" of %" PRIu64,
				 i + 1, e->offset, e->length, f->file_size);
			return why;
		}
	}
	return NULL;
}

/* The page size in which the row counts its pages: the document's, or
 * an ndjson row's "cached_bytes" over "cached", else this machine's. */
static uint64_t row_page_size(const struct snapshot *snap, const json_t *row)
{
	uint64_t cached, bytes;

	if (snap->page_size)
		return snap->page_size;
	if (get_u64(row, "cached", &cached) && get_u64(row, "cached_bytes", &bytes) &&
	    cached > 0 && bytes >= cached && bytes % cached == 0)
		return bytes / cached;
	return snap->here_page;
}

/* The pages the extents of f touch, in pages of page bytes. */
static uint64_t extent_pages(const struct snapshot *snap, const struct snap_file *f,
			     uint64_t page)
{
	uint64_t pages = 0;

	for (size_t i = 0; i < f->nextents; i++) {
		const struct extent *e = &snap->ext[i];
		pages += (e->offset + e->length - 1) / page - e->offset / page + 1;
	}
	return pages;
}

/* A file's row into f: NULL, or what is wrong with it (in why, when it
 * needs numbers). */
static const char *file_row(struct snapshot *snap, const json_t *row, struct snap_file *f,
			    char *why, size_t size)
{
	const char *bad = NULL;

	if (!(f->path = row_path(snap, row, &f->len, &bad)))
		return bad;
	if ((bad = row_extents(snap, json_object_get(row, "extents"), f, why, size)))
		return bad;
	if (!row_identity(row, f))
		return "a file row without \"inode\", \"file_size\", \"mtime\" and "
		       "\"mtime_nsec\": take the snapshot with this pagestat's -e";
	return f->identity ? past_end(snap, f, why, size) : NULL;
}

/* A row read: 1, a file to warm, in f; 0, a row that names none (a
 * directory's, the total, a failure); -1, not a snapshot's row (told). */
static int parse_row(struct cursor *c, const json_t *row, struct snap_file *f)
{
	struct snapshot *snap = c->snap;
	const char *type = json_string_value(json_object_get(row, "type"));
	const char *bad;
	char why[200];

	/* a failure's row: "type" is null when the operand was not there */
	if (json_object_get(row, "error") || json_object_get(row, "errno"))
		return 0;
	if (!type)
		bad = "a row without \"type\": not what pagestat -a -e writes";
	else if (strcmp(type, "file") != 0)
		return 0;
	else
		bad = file_row(snap, row, f, why, sizeof why);
	if (bad) {
		tell_at(c, bad, "");
		return -1;
	}
	uint64_t cached, page = row_page_size(snap, row);
	if (page != snap->here_page && !snap->other_page)
		snap->other_page = page;
	f->mismatch = get_u64(row, "cached", &cached) && cached != extent_pages(snap, f, page);
	return 1;
}

/* For the document's parser: what read_start read of it, then the rest. */
static size_t read_more(void *buffer, size_t size, void *data)
{
	struct cursor *c = data;
	struct snapshot *snap = c->snap;
	char *out = buffer;
	size_t n = c->len - c->given < size ? c->len - c->given : size;

	memcpy(out, c->line + c->given, n);
	c->given += n;
	c->lineno += newlines(out, n);
	if (n == size)
		return n;
	int got = fill(snap);
	if (got == 0)
		return n;
	const char *p = snap->buf + snap->pos;
	size_t more = snap->end - snap->pos < size - n ? snap->end - snap->pos : size - n;
	if (got < 0 || !check_bytes(c, p, more)) {
		c->told = true;
		return (size_t)-1;
	}
	memcpy(out + n, p, more);
	c->lineno += newlines(p, more);
	snap->pos += more;
	return n + more;
}

/* A JSON document, the whole of it, from its first line in c->line. */
static bool read_document(struct snapshot *snap, struct cursor *c)
{
	json_error_t err;
	/* the blank lines before it, which the parser is not given */
	unsigned long before = c->lineno - 1;

	c->given = 0;
	snap->doc = json_load_callback(read_more, c, 0, &err);
	if (snap->doc)
		return true;
	if (!c->told)
		tell(snap, "line", err.line > 0 ? (unsigned long)err.line + before : 0,
		     "not JSON: ", err.text);
	return false;
}

/* The document's own keys: its "rows", "schema", "extents" and "page_size". */
static bool check_document(struct snapshot *snap)
{
	const json_t *schema = json_object_get(snap->doc, "schema");
	const char *extents = json_string_value(json_object_get(snap->doc, "extents"));
	uint64_t page;

	snap->rows = json_object_get(snap->doc, "rows");
	if (!json_is_array(snap->rows)) {
		tell_file(snap, "not a pagestat JSON document or ndjson: ", "no \"rows\"");
		return false;
	}
	if (schema && (!json_is_integer(schema) || json_integer_value(schema) < 1)) {
		tell_file(snap, "not a pagestat JSON document: its \"schema\" is not a whole "
			  "number above 0", "");
		return false;
	}
	if (schema && json_integer_value(schema) > SCHEMA) {
		msg("--warm-from ");
		msg_name_str(snap->name);
		msg_more(": written by a newer pagestat: its \"schema\" is %" JSON_INTEGER_FORMAT
			 ", this pagestat reads %d; warm from it with the pagestat that took it\n",
			 json_integer_value(schema), SCHEMA);
		return false;
	}
	if (extents && strcmp(extents, "cached") != 0) {
		tell_file(snap, "taken with --extents=missing: ",
			  "a snapshot lists what was cached (-e)");
		return false;
	}
	snap->page_size = snap->here_page;
	if (get_u64(snap->doc, "page_size", &page) && page > 0)
		snap->page_size = page;
	if (snap->page_size != snap->here_page)
		snap->other_page = snap->page_size;
	return true;
}

/* Scratch space for a stream's ndjson, which is read twice; what was
 * read of it already (blank lines, then the line in c) goes in first. */
static bool start_copy(struct snapshot *snap, const struct cursor *c)
{
	const char *dir = NULL;
	int fd = user_scratch(&dir);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;

	if (!f) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		tell_file(snap, "cannot copy it to read it twice: a temporary file in $TMPDIR, "
			  "/tmp or /var/tmp: ", strerror(err));
		return false;
	}
	snap->copy = f;
	for (unsigned long i = 1; i < c->lineno; i++)
		putc('\n', f);
	if (fwrite(c->line, 1, c->len, f) != c->len) {
		tell_file(snap, "cannot copy it to read it twice: ", strerror(errno));
		return false;
	}
	return true;
}

/* Which of the two it is: ndjson (each line a row) or a document. */
static bool read_start(struct snapshot *snap, struct cursor *c)
{
	int got;

	while ((got = read_line(c)) > 0 && blank(c->line, c->len))
		;
	if (got < 0)
		return false;
	if (got == 0) {
		tell_file(snap, "empty: ", "no row to warm");
		return false;
	}
	json_t *first = json_loadb(c->line, c->len, 0, NULL);
	bool ndjson = json_is_object(first) && !json_object_get(first, "rows");
	json_decref(first);
	if (ndjson) {
		c->pending = true; /* read again by next_row */
		return !snap->stream || start_copy(snap, c);
	}
	return read_document(snap, c) && check_document(snap);
}

/* After the rows were checked: ndjson is read again from its start (of
 * the scratch copy, for a stream). */
static bool read_again(struct snapshot *snap)
{
	if (snap->doc)
		return true;
	if (snap->copy) {
		if (fflush(snap->copy) != 0) {
			tell_file(snap, "cannot copy it to read it twice: ", strerror(errno));
			return false;
		}
		if (snap->in != stdin)
			fclose(snap->in);
		snap->in = snap->copy;
		snap->copy = NULL;
		snap->stream = false;
	}
	snap->pos = snap->end = 0;
	if (lseek(fileno(snap->in), 0, SEEK_SET) != 0) {
		tell_file(snap, "cannot read it again from its start: ", strerror(errno));
		return false;
	}
	return true;
}

/* Every row checked: false when one is wrong (told).  *listed: the bytes
 * of every file's extents. */
static bool check_all(struct cursor *c, uint64_t *listed)
{
	json_t *row;
	int got;
	struct snap_file f;
	uint64_t files = 0;

	*listed = 0;
	while ((got = next_row(c, &row)) > 0) {
		int kind = parse_row(c, row, &f);
		json_decref(row);
		if (kind < 0)
			return false;
		if (kind == 0)
			continue;
		files++;
		if (*listed > UINT64_MAX - f.bytes) {
			tell_at(c, "the extents of the rows up to this one add up to more than "
				"16 EiB: not a snapshot of real files", "");
			return false;
		}
		*listed += f.bytes;
		if (f.nextents) {
			const struct extent *last = &c->snap->ext[f.nextents - 1];
			c->snap->spans += last->offset + last->length - c->snap->ext[0].offset;
		}
	}
	if (got < 0)
		return false;
	if (files == 0) {
		tell_file(c->snap, "it holds no file row: take the snapshot with -a, as in ",
			  "pagestat -a -e --format=ndjson DIR >FILE");
		return false;
	}
	return read_again(c->snap);
}

struct snapshot *snapshot_open(const char *file, uint64_t page_size, uint64_t *listed)
{
	struct snapshot *snap = xcalloc(1, sizeof *snap);
	struct cursor c = { .snap = snap };
	struct stat st;

	snap->name = file;
	snap->here_page = page_size;
	snap->in = user_fopen_read(file);
	if (!snap->in) {
		msg("cannot read --warm-from ");
		msg_name_str(file);
		msg_more(": %s\n", strerror(errno));
		free(snap);
		return NULL;
	}
	/* a pipe, a terminal or a device: it may never end */
	snap->stream = fstat(fileno(snap->in), &st) != 0 || !S_ISREG(st.st_mode);
	bool ok = read_start(snap, &c) && check_all(&c, listed);
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
		return "its inode differs: another file";
	if ((uint64_t)st->st_size != f->file_size)
		return "its size differs";
	if ((uint64_t)st->st_mtim.tv_sec != f->mtime ||
	    (uint64_t)st->st_mtim.tv_nsec != f->mtime_nsec)
		return "its mtime differs";
	return NULL;
}

/* A file that cannot be warmed: its failure, told and reported. */
static void fail_file(struct report *out, const struct file_request *req,
		      const struct snap_file *f, int err)
{
	report_tell(out, inspect_failure_what(req), f->path, f->len, err);
	report_error(out, f->path, f->len, ROW_FILE, err);
}

/* A file skipped: its name said unless -q, true when the why follows. */
static bool say_skipped(const struct report *out, const struct snap_file *f)
{
	if (out->quiet)
		return false;
	report_say("", f->path, f->len);
	return true;
}

/* Does the row tell enough to warm its file?  Else it is skipped (told). */
static bool row_usable(const struct report *out, const struct snap_file *f)
{
	if (!f->identity) {
		if (say_skipped(out, f))
			msg_more(": no inode, size or mtime in the snapshot (whoever took it could "
				 "not stat the file), so a change cannot be told: skipped\n");
		return false;
	}
	/* what was named at the snapshot, a link named as FILE included */
	if (f->mismatch) {
		if (say_skipped(out, f))
			msg_more(": its extents are not its cached pages (taken with "
				 "--extents=missing, or the cache changed meanwhile): skipped\n");
		return false;
	}
	return true;
}

/* The file opened as any inspected file is (safe_open: a regular file,
 * or nothing), then compared with the snapshot (and own: what a setcap
 * pagestat's user could stat).  Its descriptor, or -1: skipped or failed. */
static int open_unchanged(const struct snap_file *f, struct report *out,
			  const struct walk_config *cfg, const struct stat *own, bool own_known,
			  struct stat *st)
{
	const char *why = NULL;
	int err;
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = f->path, .follow = true };
	int fd = safe_open(&cfg->ins->prober.opener, &ref, st, &err);
	if (!ref.id.known) {
		why = err == ENOENT ? "gone" : strerror(err); /* not found */
	} else if (cfg->borrowed &&
		   (!own_known || own->st_dev != st->st_dev || own->st_ino != st->st_ino)) {
		/* not the file the user stat()ed (gone for the user, or
		 * replaced in between): nothing of it is compared */
		if (fd >= 0)
			close(fd);
		fail_file(out, cfg->req, f, FAIL_CHANGED);
		return -1;
	} else {
		why = changed(f, st);
	}
	if (why) {
		if (fd >= 0)
			close(fd);
		if (say_skipped(out, f))
			msg_more(": changed since the snapshot (%s): skipped\n", why);
		return -1;
	}
	if (fd < 0)
		fail_file(out, cfg->req, f, err);
	return fd;
}

/* One file of the snapshot: warmed and reported, or skipped with a note. */
static void warm_file(struct snapshot *snap, const struct snap_file *f, struct report *out,
		      const struct walk_config *cfg, struct probe_out *pout,
		      struct probe_detail *detail, struct agg_sum *total)
{
	struct stat st, own;

	/* A setcap pagestat compares a snapshot's inode, size and mtime
	 * only with what its user could stat: a note saying which differs
	 * would answer guesses at a file the user cannot stat.  Such a file
	 * (which the user could not open to warm either) gets one failure,
	 * the same whatever the snapshot says of it. */
	bool own_known = cfg->borrowed && user_fstatat(AT_FDCWD, f->path, &own, 0) == 0;
	if (cfg->borrowed && !own_known && errno != ENOENT) {
		fail_file(out, cfg->req, f, errno);
		return;
	}
	if (!row_usable(out, f))
		return;
	int fd = open_unchanged(f, out, cfg, &own, own_known, &st);
	if (fd < 0)
		return;
	struct file_request req = *cfg->req;
	/* --lock: the span of the extents listed, locked (action.c) */
	req.action = cfg->req->action == ACTION_LOCK ? ACTION_LOCK : ACTION_LISTED;
	req.listed = snap->ext;
	req.nlisted = f->nextents;
	pout->detail = probe_wants_detail(&req.measure) ? detail : NULL;
	int err = inspect_fd(cfg->ins, fd, &st, &req, pout);
	close(fd);
	if (err) {
		fail_file(out, &req, f, err);
		return;
	}
	report_measured(out, f->path, f->len, &pout->stat);
	agg_stat_add(&total->stat, &pout->stat);
	total->files++;
	report_row(out, f->path, f->len, ROW_FILE, &pout->stat, 1, pout->detail);
}

void snapshot_run(struct snapshot *snap, const struct walk_config *cfg, struct sink *sink,
		  struct walk_result *result)
{
	struct report out = { .sink = sink, .quiet = cfg->quiet };
	struct cursor c = { .snap = snap };
	struct probe_detail detail = { 0 };
	struct probe_out pout = { 0 };
	struct agg_sum total = { .stat.known = inspect_known(cfg->ins) };
	json_t *row;

	/* --lock's passes (--reserve) read it again */
	if (snap->ran && !read_again(snap)) {
		result->errors = 1;
		return;
	}
	snap->ran = true;
	if (snap->other_page && !cfg->quiet) {
		msg("--warm-from ");
		msg_name_str(snap->name);
		msg_more(": taken where a page is %" PRIu64 " bytes (%s), %" PRIu64 " here: the "
			 "rows count this machine's pages\n", snap->other_page,
			 snap->doc ? "its \"page_size\"" : "its rows' \"cached_bytes\"",
			 snap->here_page);
	}
	while (!out.output_failed && next_row(&c, &row) > 0) {
		struct snap_file f;
		/* checked already: a file changed since the first reading
		 * fails here */
		int kind = parse_row(&c, row, &f);
		if (kind > 0)
			warm_file(snap, &f, &out, cfg, &pout, &detail, &total);
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
	probe_out_free(&pout);
}

uint64_t snapshot_span_bytes(const struct snapshot *snap)
{
	return snap->spans;
}

void snapshot_free(struct snapshot *snap)
{
	if (!snap)
		return;
	if (snap->in && snap->in != stdin)
		fclose(snap->in);
	if (snap->copy)
		fclose(snap->copy);
	json_decref(snap->doc);
	free(snap->path);
	free(snap->ext);
	free(snap);
}
