/* SPDX-License-Identifier: MIT */
/* --trace: the files in scope found, their motion recorded for the
 * duration asked (or until SIGINT or SIGTERM), then summed per file for
 * the inspection that follows. */
#ifndef PAGESTAT_TRACE_H
#define PAGESTAT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kernel/trace_tally.h"
#include "output/sink.h"
#include "walk/source.h"

struct trace_plan {
	double seconds;      /* 0: until SIGINT or SIGTERM */
	uint64_t buffer;     /* bytes of each CPU's buffer */
	bool whole_machine;  /* --system: no filter, a row for what the walk did not find */
	bool quiet;          /* -q */
	bool per_sample;     /* -i: each sample's counts since the one before */
};

/* A sink that notes the file systems (and, for a few named files, the
 * inodes) of the rows it is given: the filter of the trace.  Run the
 * inspection's source with it before trace_record. */
struct sink *trace_scope_sink(const struct sink_config *cfg);

struct trace;

/* The trace instance made and tracing (told on failure, with the remedy:
 * NULL, *status 3).  scope: the sink trace_scope_sink made (kept, freed
 * with the trace), or NULL for the whole machine. */
struct trace *trace_start(const struct trace_plan *plan, struct sink *scope, int *status);

/* Records for seconds (0: until SIGINT or SIGTERM); false when a signal
 * ended it (or the buffers could not be read: trace_stop tells). */
bool trace_follow(struct trace *tr, double seconds);

/* The same until a CLOCK_MONOTONIC deadline (-i's wait; arg: the trace). */
bool trace_follow_until(void *arg, const struct timespec *deadline);

/* -i: before each sample's inspection, what is buffered read; the counts
 * are then the sample's (since the one before).  1 when events were lost
 * since the last sample (told), else 0. */
int trace_sample(struct trace *tr);

/* -i: after each sample's rows: the next sample counts from here. */
void trace_sample_done(struct trace *tr);

/* The last events read, the instance removed; 1 when events were lost or
 * the buffers could not be read (told), else 0. */
int trace_stop(struct trace *tr);

/* What the inspection's probes look files up in. */
const struct tally *trace_tally(const struct trace *tr);

/* After the inspection's rows: the motion of files it did not find.
 * --system: one row, "(outside the walked files)"; else a row for each
 * file of the scope replaced or removed during the trace, under its old
 * identity (told on stderr).  Added to the total; false when the sink
 * failed. */
bool trace_after_rows(const struct trace *tr, struct sink *sink, struct pagecache_stat *total);

/* --by: the files named, from the scope (trace_name_scope) or from a
 * pass of the source through trace_naming_sink (--system); then a row
 * per process (or per memory cgroup) that moved pages, the most first
 * (top of them; 0: all), added to the total, and *files the files they
 * moved; false when the sink failed. */
void trace_name_scope(struct trace *tr);
struct sink *trace_naming_sink(struct trace *tr, const struct sink_config *cfg);
bool trace_group_rows(struct trace *tr, bool by_cgroup, uint64_t top, struct sink *sink,
		      struct pagecache_stat *total, uint64_t *files);

void trace_free(struct trace *tr);

#endif
