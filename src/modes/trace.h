/* SPDX-License-Identifier: MIT */
/* --trace: the files in scope found, their motion recorded for the
 * duration asked (or until SIGINT or SIGTERM), then summed per file for
 * the inspection that follows. */
#ifndef PAGESTAT_TRACE_H
#define PAGESTAT_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/trace_tally.h"
#include "output/sink.h"
#include "walk/source.h"

struct trace_plan {
	double seconds;      /* 0: until SIGINT or SIGTERM */
	uint64_t buffer;     /* bytes of each CPU's buffer */
	bool whole_machine;  /* --system: no filter, a row for what the walk did not find */
	bool quiet;          /* -q */
};

/* A sink that notes the file systems (and, for a few named files, the
 * inodes) of the rows it is given: the filter of the trace.  Run the
 * inspection's source with it before trace_record. */
struct sink *trace_scope_sink(const struct sink_config *cfg);

struct trace;

/* The motion recorded: the trace instance made (told on failure, with
 * the remedy: NULL), held for the plan's duration or until a signal,
 * read, and removed.  scope: the sink trace_scope_sink made (kept, freed
 * with the trace), or NULL for the whole machine.  *status: 1 when
 * events were lost (told), 3 when nothing could be traced (told). */
struct trace *trace_record(const struct trace_plan *plan, struct sink *scope, int *status);

/* What the inspection's probes look files up in. */
const struct tally *trace_tally(const struct trace *tr);

/* After the inspection's rows: the motion of files it did not find.
 * --system: one row, "(outside the walked files)"; else a row for each
 * file of the scope replaced or removed during the trace, under its old
 * identity (told on stderr).  Added to the total; false when the sink
 * failed. */
bool trace_after_rows(const struct trace *tr, struct sink *sink, struct pagecache_stat *total);

void trace_free(struct trace *tr);

#endif
