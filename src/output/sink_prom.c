/* SPDX-License-Identifier: MIT */
/* Prometheus text exposition format 0.0.4: one gauge family per counter
 * (a counter family for --trace's). */
#include <config.h>

#include "output/sink.h"

#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "lib/escape.h"
#include "kernel/memstat.h"
#include "lib/msg.h"
#include "lib/strbuf.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* The format wants every sample of a family together, but rows come one
 * at a time.  Rather than keep them all in memory (O(rows): -a on a big
 * tree), rows are spooled and read back once per family at the end: in
 * memory up to SPOOL_MEMORY bytes (a few thousand rows, so a usual run
 * needs no file), beyond that in an unlinked temporary file, which is
 * about as large as the output itself. */
#define SPOOL_MEMORY ((size_t)256 << 10)

/* "pagestat_recently_evicted_bytes" and its NUL, with room to spare */
#define FAMILY_NAME_MAX 64

struct prom {
	struct strbuf mem;  /* the records, while they fit */
	size_t mem_read;    /* reading them back: the next one */
	FILE *spool;        /* else every record, in a file */
	const char *spool_dir;
	char *path; /* the path of the row read back, grown as needed */
	size_t path_cap;
};

/* The family of a column, "pagestat_NAME", with "_bytes" for a size or a
 * page counter (and "_total" for a counter: --trace's, since it began);
 * false for a column without one. */
static bool family_name(enum column_id id, char name[FAMILY_NAME_MAX])
{
	const struct column *col = &columns[id];
	bool bytes = col->kind == KIND_SIZE || col->kind == KIND_PAGES;

	if (!col->prom_help)
		return false;
	snprintf(name, FAMILY_NAME_MAX, "pagestat_%s%s%s", col->name, bytes ? "_bytes" : "",
		 col->prom_counter ? "_total" : "");
	return true;
}

static void spool_failed(struct sink *sink, int err)
{
	struct prom *p = sink->state;

	if (!sink->failed)
		msg("write error: temporary file in %s: %s\n", p->spool_dir,
		    strerror(err ? err : EIO));
	sink->failed = true;
}

/* An unlinked file in $TMPDIR, else /tmp, else /var/tmp: a TMPDIR that
 * is unset, gone or full for us does not stop the output. */
static bool spool_open(struct sink *sink)
{
	struct prom *p = sink->state;
	int fd = user_scratch(&p->spool_dir), err = errno;

	if (fd >= 0 && (p->spool = fdopen(fd, "w+")) == NULL) {
		err = errno;
		close(fd);
	}
	if (!p->spool) {
		msg("cannot create a temporary file for the Prometheus output in $TMPDIR, "
		    "/tmp or /var/tmp: %s\n", strerror(err));
		sink->failed = true;
		return false;
	}
	/* what was held in memory goes first */
	if (p->mem.len && fwrite(p->mem.data, 1, p->mem.len, p->spool) != p->mem.len)
		spool_failed(sink, errno);
	sb_free(&p->mem);
	return !sink->failed;
}

static void prom_begin(struct sink *sink)
{
	sink->state = xcalloc(1, sizeof(struct prom));
}

/* A record: the row itself (pointers cleared), then its path's bytes. */
static void prom_row(struct sink *sink, const struct row *row)
{
	struct prom *p = sink->state;

	if (row->error || sink->failed)
		return; /* failures are counted in pagestat_errors */
	/* --system: a file system not walked was not measured, and a hidden
	 * one would repeat the series of the mount over it */
	if (row->note)
		return;
	struct row rec = *row;
	rec.path = NULL;
	rec.segments = NULL;
	rec.extents = NULL;
	rec.nsegments = rec.nextents = 0;
	if (!p->spool && p->mem.len + sizeof rec + row->path_len <= SPOOL_MEMORY) {
		sb_put(&p->mem, &rec, sizeof rec);
		sb_put(&p->mem, row->path, row->path_len);
		return;
	}
	if (!p->spool && !spool_open(sink))
		return;
	if (fwrite(&rec, sizeof rec, 1, p->spool) != 1 ||
	    fwrite(row->path, 1, row->path_len, p->spool) != row->path_len)
		spool_failed(sink, errno);
}

/* Back to the first record. */
static bool spool_rewind(struct sink *sink)
{
	struct prom *p = sink->state;

	p->mem_read = 0;
	if (p->spool && fseek(p->spool, 0, SEEK_SET) != 0) {
		spool_failed(sink, errno);
		return false;
	}
	return true;
}

/* n bytes of the next record into to; false at the end. */
static bool spool_read(struct sink *sink, void *to, size_t n)
{
	struct prom *p = sink->state;

	if (!p->spool) {
		if (p->mem.len - p->mem_read < n)
			return false;
		memcpy(to, p->mem.data + p->mem_read, n);
		p->mem_read += n;
		return true;
	}
	if (fread(to, 1, n, p->spool) == n)
		return true;
	if (ferror(p->spool))
		spool_failed(sink, errno);
	return false;
}

/* The next record of the spool, its path in p->path; false at the end. */
static bool spool_next(struct sink *sink, struct row *row)
{
	struct prom *p = sink->state;

	if (!spool_read(sink, row, sizeof *row))
		return false;
	XGROW(p->path, p->path_cap, row->path_len + 1);
	if (!spool_read(sink, p->path, row->path_len)) {
		spool_failed(sink, p->spool && ferror(p->spool) ? errno : 0);
		return false;
	}
	row->path = p->path;
	return true;
}

/* One sample of the family (name) of column id; nothing when the method
 * does not know the counter.  The first sample of a family brings its
 * HELP and TYPE lines. */
static void put_sample(const struct sink *sink, enum column_id id, const char *name,
		       const struct row *row, bool *started)
{
	FILE *out = sink->cfg.out;
	uint64_t value;

	if (!column_value(id, row, &value))
		return;
	if (columns[id].kind == KIND_PAGES)
		value = sink_pages_to_bytes(sink, value);
	if (!*started)
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, columns[id].prom_help, name,
			columns[id].prom_counter ? "counter" : "gauge");
	*started = true;
	fputs_unlocked(name, out);
	/* the total's sample is told by its type alone */
	if (row->path) {
		fputs_unlocked("{path=\"", out);
		esc_prom_label(out, row->path, row->path_len);
		fputs_unlocked("\",type=\"", out);
	} else {
		fputs_unlocked("{type=\"", out);
	}
	fputs_unlocked(row_type_name(row->type), out);
	fputs_unlocked("\"} ", out);
	sink_put_u64(out, value);
	putc_unlocked('\n', out);
}

/* --system: the kernel's figures, the coverage's other side. */
static void put_kernel(const struct sink *sink)
{
	const struct system_figures *fig = sink->cfg.system;
	FILE *out = sink->cfg.out;
	static const struct {
		const char *name, *help;
		size_t offset;
	} families[] = {
		{ "pagestat_kernel_cached_bytes", "The kernel's Cached (/proc/meminfo).",
		  offsetof(struct system_figures, cached) },
		{ "pagestat_kernel_buffers_bytes", "The kernel's Buffers (/proc/meminfo).",
		  offsetof(struct system_figures, buffers) },
		{ "pagestat_kernel_shmem_bytes", "The kernel's Shmem (/proc/meminfo).",
		  offsetof(struct system_figures, shmem) },
	};

	if (!fig || !fig->known)
		return;
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
		fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n%s ", families[i].name, families[i].help,
			families[i].name, families[i].name);
		sink_put_u64(out, *(const uint64_t *)((const char *)fig + families[i].offset));
		putc_unlocked('\n', out);
	}
}

/* One sample of a --cgroup family, the family's HELP and TYPE first. */
static void put_cgroup_sample(FILE *out, const char *name, const char *help, const char *type,
			      const char *cgroup, uint64_t value, bool *started)
{
	if (!*started)
		fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	*started = true;
	fputs_unlocked(name, out);
	fputs_unlocked("{cgroup=\"", out);
	esc_prom_label(out, cgroup, strlen(cgroup));
	fputs_unlocked("\"} ", out);
	sink_put_u64(out, value);
	putc_unlocked('\n', out);
}

/* --cgroup: each cgroup's memory.stat figures (pagestat_cgroup_*_bytes,
 * and the refault counters as pagestat_cgroup_*_total), and the bytes its
 * processes' files hold, from the cgroups' rows in the spool. */
static void put_cgroups(struct sink *sink)
{
	FILE *out = sink->cfg.out;
	struct row row;

	for (int f = 0; f <= MEMSTAT_COUNT && !sink->failed; f++) {
		const struct memstat_key *k = f < MEMSTAT_COUNT ? &memstat_keys[f] : NULL;
		char name[FAMILY_NAME_MAX], help[160];
		bool started = false;

		if (k) {
			snprintf(name, sizeof name, "pagestat_cgroup_%s_%s", k->name,
				 k->bytes ? "bytes" : "total");
			snprintf(help, sizeof help, "The cgroup's memory.stat: %s.", k->help);
		} else {
			snprintf(name, sizeof name, "pagestat_cgroup_found_bytes");
			snprintf(help, sizeof help, "Bytes cached in the files the cgroup's processes "
						    "map or hold open.");
		}
		if (!spool_rewind(sink))
			return;
		while (spool_next(sink, &row)) {
			const struct cgroup_figures *cg = row.cgroup;
			if (row.type != ROW_CGROUP || !cg || !cg->stat_read)
				continue;
			if (!k && cg->figures_only)
				continue; /* --system's: no file was read */
			if (!k)
				put_cgroup_sample(out, name, help, "gauge", cg->name,
						  sink_pages_to_bytes(sink, row.stat.cached), &started);
			else if (memstat_known(&cg->stat, (enum memstat_id)f))
				put_cgroup_sample(out, name, help, k->bytes ? "gauge" : "counter",
						  cg->name, cg->stat.value[f], &started);
		}
	}
}

static void prom_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct prom *p = sink->state;
	FILE *out = sink->cfg.out;

	if (p->spool && fflush(p->spool) != 0) {
		spool_failed(sink, errno);
		return;
	}
	/* in the order of -o (every family by default) */
	for (size_t i = 0; i < sink->cfg.ncolumns && !sink->failed && !ferror(out); i++) {
		enum column_id id = sink->cfg.columns[i];
		char name[FAMILY_NAME_MAX];
		bool started = false;
		struct row row;

		if (!family_name(id, name))
			continue;
		if (!spool_rewind(sink))
			break;
		while (spool_next(sink, &row))
			put_sample(sink, id, name, &row, &started);
		if (sink->cfg.total_row)
			put_sample(sink, id, name, total, &started);
	}
	if (sink->failed)
		return;
	fputs_unlocked("# HELP pagestat_errors Files that could not be inspected.\n"
		       "# TYPE pagestat_errors gauge\npagestat_errors ", out);
	sink_put_u64(out, errors);
	putc_unlocked('\n', out);
	put_kernel(sink);
	put_cgroups(sink);
}

static void prom_free(struct sink *sink)
{
	struct prom *p = sink->state;

	if (!p)
		return;
	if (p->spool)
		fclose(p->spool);
	sb_free(&p->mem);
	free(p->path);
	free(p);
}

const struct sink_ops sink_prom_ops = {
	.begin = prom_begin,
	.row = prom_row,
	.end = prom_end,
	.free = prom_free,
};
