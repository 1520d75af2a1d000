/* SPDX-License-Identifier: MIT */
/* --trace: the scope (file systems and, for a few named files, inodes)
 * found by a first pass of the inspection's source, the kernel's events
 * recorded in a private instance for the duration, then summed per file
 * (kernel/trace_tally.c) for the inspection that follows. */
#include <config.h>

#include "modes/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/tracefs.h"
#include "lib/format.h"
#include "lib/msg.h"
#include "lib/signals.h"
#include "lib/status.h"
#include "lib/xalloc.h"

/* Named files up to this many are filtered by inode in the kernel;
 * beyond, or with a directory, by file system. */
#define SCOPE_INODES_MAX 32
#define SCOPE_DEVS_MAX 64
/* How often the buffers are read while tracing. */
#define READ_EVERY_NS 100000000L

struct scope_file {
	uint64_t dev, ino;
	char *path;
	bool told; /* its replacement was said */
};

struct scope {
	struct scope_file *files;
	size_t nfiles, files_cap;
	uint64_t devs[SCOPE_DEVS_MAX];
	size_t ndevs;
	bool dirs;       /* a directory was walked: new files may appear */
	bool too_many;   /* more file systems than a filter names: none */
};

struct trace {
	struct trace_plan plan;
	struct trace_session *session; /* NULL once stopped */
	struct tally *tally;
	struct scope *scope;
	uint64_t lost_told; /* events lost, as said so far */
	struct tally_group *groups; /* --by: the rows' */
	size_t ngroups;
	int read_errno;     /* why the buffers could not be read, or 0 */
};

static void scope_row(struct sink *sink, const struct row *row)
{
	struct scope *sc = sink->state;
	if (row->type == ROW_DIRECTORY)
		sc->dirs = true;
	if (row->error || row->type != ROW_FILE || !(row->stat.known & PCS_IDENTITY))
		return;
	uint64_t kdev = trace_kernel_dev((dev_t)row->stat.dev);
	size_t d = 0;
	while (d < sc->ndevs && sc->devs[d] != kdev)
		d++;
	if (d == sc->ndevs) {
		if (sc->ndevs < SCOPE_DEVS_MAX)
			sc->devs[sc->ndevs++] = kdev;
		else
			sc->too_many = true;
	}
	if (sc->nfiles >= TALLY_FILES_MAX)
		return;
	XGROW(sc->files, sc->files_cap, sc->nfiles + 1);
	sc->files[sc->nfiles++] = (struct scope_file){
		.dev = row->stat.dev,
		.ino = row->stat.inode,
		.path = memcpy(xcalloc(1, row->path_len + 1), row->path, row->path_len),
	};
}

static void scope_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	(void)sink;
	(void)total;
	(void)errors;
}

static void scope_free(struct scope *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->nfiles; i++)
		free(sc->files[i].path);
	free(sc->files);
	free(sc);
}

static const struct sink_ops scope_ops = { .row = scope_row, .end = scope_end };

struct sink *trace_scope_sink(const struct sink_config *cfg)
{
	struct sink *sink = xcalloc(1, sizeof *sink);
	sink->ops = &scope_ops;
	sink->cfg = *cfg;
	sink->state = xcalloc(1, sizeof(struct scope));
	return sink;
}

/* The filemap events' filter: the scope's inodes when a few files were
 * named, else its file systems; NULL (everything) for the machine. */
static char *scope_filter(const struct scope *sc)
{
	if (!sc || sc->too_many || sc->ndevs == 0)
		return NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	bool by_inode = !sc->dirs && sc->nfiles <= SCOPE_INODES_MAX;
	for (size_t d = 0; d < sc->ndevs; d++) {
		fprintf(f, "%s(s_dev == %" PRIu64, d ? " || " : "", sc->devs[d]);
		bool first = true;
		for (size_t i = 0; by_inode && i < sc->nfiles; i++) {
			if (trace_kernel_dev((dev_t)sc->files[i].dev) != sc->devs[d])
				continue;
			fprintf(f, "%si_ino == %" PRIu64, first ? " && (" : " || ",
				      sc->files[i].ino);
			first = false;
		}
		fprintf(f, "%s)", by_inode && !first ? ")" : "");
	}
	return fclose(f) == 0 ? text : (free(text), NULL);
}

/* Reads the buffers every step until deadline (NULL: until a signal);
 * false when a signal ended it or the buffers could not be read. */
static bool follow(struct trace *tr, const struct timespec *deadline)
{
	for (;;) {
		if (!trace_read(tr->session, tally_event, tr->tally)) {
			tr->read_errno = errno;
			return false;
		}
		if (signals_stop_requested())
			return false;
		struct timespec now, step = { 0, READ_EVERY_NS };
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (deadline) {
			int64_t left = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000000000 +
				       (deadline->tv_nsec - now.tv_nsec);
			if (left <= 0)
				return true;
			if (left < READ_EVERY_NS)
				step.tv_nsec = (long)left;
		}
		nanosleep(&step, NULL); /* a signal cuts it short: asked again above */
	}
}

static void say_lost(const struct trace_plan *plan, uint64_t lost, uint64_t events)
{
	char size[FMT_BUFSIZE], more[FMT_BUFSIZE];
	fmt_human(size, plan->buffer);
	fmt_human(more, plan->buffer * 4);
	msg("--trace: the kernel lost %" PRIu64 " event%s of %" PRIu64 " (its buffers, %s a CPU, "
	    "were full): the figures are short; trace again with --trace-buffer=%s, or a "
	    "shorter duration\n", lost, lost == 1 ? "" : "s", lost + events, size, more);
}

static void say_limits(const struct tally *t)
{
	uint64_t untallied, untracked, unattributed;
	tally_limits_hit(t, &untallied, &untracked, &unattributed);
	if (untallied)
		msg("--trace: more than %u files moved: %" PRIu64 " pages of the others are not "
		    "counted per file\n", TALLY_FILES_MAX, untallied);
	if (untracked)
		msg("--trace: %" PRIu64 " removed pages were past what is kept to tell refaults "
		    "(%u stretches of 4096 pages, 65 MiB): their refaults are not counted\n",
		    untracked, TALLY_CHUNKS_MAX);
	if (unattributed)
		msg("--trace: more than %u (process, file) pairs: %" PRIu64 " pages moved by the "
		    "others are among the readers' and evictors' others, and in no --by row\n",
		    TALLY_MOVED_MAX, unattributed);
}

struct trace *trace_start(const struct trace_plan *plan, struct sink *scope, int *status)
{
	struct trace *tr = xcalloc(1, sizeof *tr);
	char why[1024];
	unsigned stale = 0;

	tr->plan = *plan;
	if (scope) {
		tr->scope = scope->state;
		scope->state = NULL;
		free(scope);
	}
	char *filter = plan->whole_machine ? NULL : scope_filter(tr->scope);
	struct trace_config cfg = { .filter = filter, .buffer_kib = (plan->buffer + 1023) / 1024 };
	tr->session = trace_open(&cfg, &stale, why, sizeof why);
	free(filter);
	if (stale && !plan->quiet)
		msg("--trace: removed %u trace instance%s left by pagestat runs that were killed\n",
		    stale, stale == 1 ? "" : "s");
	if (!tr->session) {
		msg("--trace: %s\n", why);
		trace_free(tr);
		*status = STATUS_FATAL;
		return NULL;
	}
	tr->tally = tally_new();
	if (plan->per_sample)
		tally_per_sample(tr->tally);
	if (!plan->quiet && isatty(STDERR_FILENO) && !plan->per_sample)
		msg(plan->seconds > 0 ? "--trace: tracing for %g s (Ctrl-C ends it sooner)\n"
				      : "--trace: tracing until Ctrl-C (SIGINT) or SIGTERM\n",
		    plan->seconds);
	*status = STATUS_OK;
	return tr;
}

bool trace_follow(struct trace *tr, double seconds)
{
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)seconds;
	end.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	return follow(tr, seconds > 0 ? &end : NULL);
}

bool trace_follow_until(void *arg, const struct timespec *deadline)
{
	return follow(arg, deadline);
}

/* What was lost since last told: said, status 1. */
static int tell_lost(struct trace *tr)
{
	uint64_t lost = trace_lost(tr->session);
	if (lost <= tr->lost_told)
		return STATUS_OK;
	say_lost(&tr->plan, lost - tr->lost_told, tally_events(tr->tally));
	tr->lost_told = lost;
	return STATUS_SOME_FAILED;
}

int trace_sample(struct trace *tr)
{
	if (!tr->session)
		return STATUS_OK;
	bool read = trace_read(tr->session, tally_event, tr->tally);
	int status = tell_lost(tr);
	tally_settle(tr->tally);
	if (!read && !tr->read_errno)
		tr->read_errno = errno;
	return status;
}

void trace_sample_done(struct trace *tr)
{
	tally_next_sample(tr->tally);
}

int trace_stop(struct trace *tr)
{
	int status = STATUS_OK;
	if (!tr->session)
		return status;
	if (!trace_read(tr->session, tally_event, tr->tally) && !tr->read_errno)
		tr->read_errno = errno;
	if (tr->read_errno) {
		msg("--trace: cannot read the trace buffers: %s\n", strerror(tr->read_errno));
		status = STATUS_SOME_FAILED;
	}
	if (tell_lost(tr) != STATUS_OK)
		status = STATUS_SOME_FAILED;
	trace_close(tr->session);
	tr->session = NULL;
	tally_settle(tr->tally);
	say_limits(tr->tally);
	return status;
}

const struct tally *trace_tally(const struct trace *tr)
{
	return tr->tally;
}

static void add_counts(struct pagecache_stat *st, const struct tally_counts *n)
{
	st->added += n->added;
	st->reclaimed += n->reclaimed;
	st->dropped += n->dropped;
	st->removed += n->reclaimed + n->dropped;
	st->refaulted += n->refaulted;
}

/* A row of figures of the trace alone (the cache's state unknown). */
static bool motion_row(struct sink *sink, const char *path, const struct tally *t,
		       const struct tally_file *f, const struct tally_counts *n, uint64_t files,
		       struct pagecache_stat *total)
{
	struct row row = { .path = path, .path_len = strlen(path),
			   .type = f ? ROW_FILE : ROW_OTHERS, .files = files };
	row.stat.tally = t;
	row.stat.traced = f;
	add_counts(&row.stat, n);
	add_counts(total, n);
	return sink_row(sink, &row);
}

bool trace_after_rows(const struct trace *tr, struct sink *sink, struct pagecache_stat *total)
{
	if (tr->plan.whole_machine) {
		uint64_t files;
		struct tally_counts n = tally_unseen(tr->tally, &files);
		if (!files)
			return true;
		return motion_row(sink, "(outside the walked files)", tr->tally, NULL, &n, files,
				  total);
	}
	for (size_t i = 0; tr->scope && i < tr->scope->nfiles; i++) {
		const struct scope_file *sf = &tr->scope->files[i];
		const struct tally_file *f = tally_peek(tr->tally, (dev_t)sf->dev, sf->ino);
		/* the inspection found it under that identity: no replacement */
		if (!f || tally_seen(f))
			continue;
		struct tally_counts n = tally_file_counts(tr->tally, f);
		if (!sf->told)
			msg("--trace: %s was replaced or removed during the trace: its motion is in a "
			    "row of its own, under its old identity\n", sf->path);
		((struct scope_file *)sf)->told = true;
		if (!motion_row(sink, sf->path, tr->tally, f, &n, 1, total))
			return false;
	}
	return true;
}

/* --by: the rows' files named from the rows of a pass of the source. */
static void naming_row(struct sink *sink, const struct row *row)
{
	if (!row->error && row->type == ROW_FILE && (row->stat.known & PCS_IDENTITY))
		tally_name(sink->state, (dev_t)row->stat.dev, row->stat.inode, row->path,
			   row->path_len);
}

static const struct sink_ops naming_ops = { .row = naming_row, .end = scope_end };

struct sink *trace_naming_sink(struct trace *tr, const struct sink_config *cfg)
{
	struct sink *sink = xcalloc(1, sizeof *sink);
	sink->ops = &naming_ops;
	sink->cfg = *cfg;
	sink->state = tr->tally;
	return sink;
}

void trace_name_scope(struct trace *tr)
{
	for (size_t i = 0; tr->scope && i < tr->scope->nfiles; i++) {
		const struct scope_file *sf = &tr->scope->files[i];
		tally_name(tr->tally, (dev_t)sf->dev, sf->ino, sf->path, strlen(sf->path));
	}
}

bool trace_group_rows(struct trace *tr, bool by_cgroup, uint64_t top, struct sink *sink,
		      struct pagecache_stat *total, uint64_t *files)
{
	/* the rows point into the groups, which a sorting sink holds to its
	 * end: kept with the trace */
	tally_groups_free(tr->groups, tr->ngroups);
	tr->ngroups = tally_groups(tr->tally, by_cgroup, !tr->plan.whole_machine, &tr->groups);
	struct tally_group *groups = tr->groups;
	size_t n = top && top < tr->ngroups ? top : tr->ngroups;
	bool ok = true;
	*files = tally_files_moved(tr->tally, !tr->plan.whole_machine);
	for (size_t i = 0; ok && i < n; i++) {
		struct row row = {
			.path = groups[i].name,
			.path_len = strlen(groups[i].name),
			.type = by_cgroup ? ROW_CGROUP : ROW_PROCESS,
			.files = groups[i].files,
		};
		row.stat.tally = tr->tally;
		row.stat.group = &groups[i];
		add_counts(&row.stat, &groups[i].n);
		ok = sink_row(sink, &row);
	}
	/* the total counts every group, not only the rows shown (--top) */
	for (size_t i = 0; i < tr->ngroups; i++)
		add_counts(total, &groups[i].n);
	return ok;
}

void trace_free(struct trace *tr)
{
	if (!tr)
		return;
	trace_close(tr->session);
	tally_groups_free(tr->groups, tr->ngroups);
	tally_free(tr->tally);
	scope_free(tr->scope);
	free(tr);
}
