/* Prometheus text exposition format 0.0.4: one gauge family per counter. */
#include <config.h>

#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "format.h"
#include "xalloc.h"

/* The format wants every sample of a family together, but rows come one
 * at a time.  Rather than keep them in memory (O(rows): -a on a big tree),
 * each row is spooled to an unlinked temporary file and read back once
 * per family at the end: memory stays O(1), the spool is about as large
 * as the output itself. */
struct prom {
	FILE *spool;
	const char *spool_dir;
	char *path; /* the path of the row read back, grown as needed */
	size_t path_cap;
};

static const struct family {
	enum column_id column;
	const char *name;
	const char *help;
} families[] = {
	{ COL_SIZE, "pagestat_size_bytes",
	  "Bytes of the inspected range of the files." },
	{ COL_CACHED, "pagestat_cached_bytes", "Bytes in the page cache." },
	{ COL_DIRTY, "pagestat_dirty_bytes",
	  "Cached bytes modified but not yet written back." },
	{ COL_WRITEBACK, "pagestat_writeback_bytes", "Bytes being written back now." },
	{ COL_EVICTED, "pagestat_evicted_bytes",
	  "Bytes evicted from the page cache that the kernel still remembers." },
	{ COL_RECENTLY_EVICTED, "pagestat_recently_evicted_bytes",
	  "Evicted bytes that would still be cached in a larger cache." },
	{ COL_FILES, "pagestat_files", "Regular files counted in the row." },
};

static const struct family *family_of(enum column_id id)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (families[i].column == id)
			return &families[i];
	return NULL; /* path, type, pages, percent, segments, extents */
}

static void spool_failed(struct sink *sink, int err)
{
	struct prom *p = sink->state;

	if (!sink->failed)
		fprintf(stderr, "pagestat: write error: temporary file in %s: %s\n",
			p->spool_dir, strerror(err ? err : EIO));
	sink->failed = true;
}

/* An unlinked file in $TMPDIR (or /tmp): nothing is left behind. */
static FILE *spool_open(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		/* a file system without O_TMPFILE */
		size_t len = strlen(dir) + sizeof "/pagestat.XXXXXX";
		char *name = xrealloc(NULL, len);
		snprintf(name, len, "%s/pagestat.XXXXXX", dir);
		fd = mkostemp(name, O_CLOEXEC);
		if (fd >= 0)
			unlink(name);
		free(name);
	}
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

static void prom_begin(struct sink *sink)
{
	struct prom *p = xcalloc(1, sizeof *p);
	const char *dir = getenv("TMPDIR");

	sink->state = p;
	p->spool_dir = dir && *dir ? dir : "/tmp";
	p->spool = spool_open(p->spool_dir);
	if (!p->spool) {
		fprintf(stderr, "pagestat: cannot create a temporary file in %s for the "
			"Prometheus output: %s\n", p->spool_dir, strerror(errno));
		sink->failed = true;
	}
}

/* A record: the row itself (pointers cleared), then its path's bytes. */
static void prom_row(struct sink *sink, const struct row *row)
{
	struct prom *p = sink->state;

	if (row->error || sink->failed)
		return; /* failures are counted in pagestat_errors */
	struct row rec = *row;
	rec.path = NULL;
	rec.segments = NULL;
	rec.extents = NULL;
	rec.nsegments = rec.nextents = 0;
	if (fwrite(&rec, sizeof rec, 1, p->spool) != 1 ||
	    fwrite(row->path, 1, row->path_len, p->spool) != row->path_len)
		spool_failed(sink, errno);
}

/* The next record of the spool, its path in p->path; false at the end. */
static bool spool_next(struct sink *sink, struct row *row)
{
	struct prom *p = sink->state;

	if (fread(row, sizeof *row, 1, p->spool) != 1) {
		if (ferror(p->spool))
			spool_failed(sink, errno);
		return false;
	}
	if (row->path_len + 1 > p->path_cap) {
		p->path_cap = row->path_len + 1;
		p->path = xrealloc(p->path, p->path_cap);
	}
	if (fread(p->path, 1, row->path_len, p->spool) != row->path_len) {
		spool_failed(sink, ferror(p->spool) ? errno : 0);
		return false;
	}
	row->path = p->path;
	return true;
}

static void put_u64(FILE *out, uint64_t v)
{
	char buf[FMT_BUFSIZE];
	fwrite_unlocked(buf, 1, fmt_u64(buf, v), out);
}

/* One sample; nothing when the method does not know the counter.  The
 * first sample of a family brings its HELP and TYPE lines. */
static void put_sample(const struct sink *sink, const struct family *fam,
		       const struct row *row, bool *started)
{
	FILE *out = sink->cfg.out;
	const struct column *col = &columns[fam->column];
	uint64_t value;

	if (!column_value(col, row, &value))
		return;
	if (col->kind == KIND_PAGES)
		value = sink_pages_to_bytes(sink, value);
	if (!*started)
		fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", fam->name, fam->help, fam->name);
	*started = true;
	fputs_unlocked(fam->name, out);
	if (row->path) {
		fputs_unlocked("{path=\"", out);
		esc_prom_label(out, row->path, row->path_len);
		fputs_unlocked("\",type=\"", out);
	} else {
		fputs_unlocked("{type=\"", out);
	}
	fputs_unlocked(row_type_name(row->type), out);
	fputs_unlocked("\"} ", out);
	put_u64(out, value);
	putc_unlocked('\n', out);
}

static void prom_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct prom *p = sink->state;
	FILE *out = sink->cfg.out;

	if (fflush(p->spool) != 0) {
		spool_failed(sink, errno);
		return;
	}
	/* in the order of -o (every family by default) */
	for (size_t i = 0; i < sink->cfg.ncolumns && !sink->failed && !ferror(out); i++) {
		const struct family *fam = family_of(sink->cfg.columns[i]);
		bool started = false;
		struct row row;

		if (!fam)
			continue;
		rewind(p->spool);
		while (spool_next(sink, &row))
			put_sample(sink, fam, &row, &started);
		if (sink->cfg.total_row)
			put_sample(sink, fam, total, &started);
	}
	if (sink->failed)
		return;
	fputs_unlocked("# HELP pagestat_errors Files that could not be inspected.\n"
		       "# TYPE pagestat_errors gauge\npagestat_errors ", out);
	put_u64(out, errors);
	putc_unlocked('\n', out);
}

static void prom_free(struct sink *sink)
{
	struct prom *p = sink->state;

	if (!p)
		return;
	if (p->spool)
		fclose(p->spool);
	free(p->path);
	free(p);
}

const struct sink_ops sink_prom_ops = {
	.begin = prom_begin,
	.row = prom_row,
	.end = prom_end,
	.free = prom_free,
};
