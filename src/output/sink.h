/* SPDX-License-Identifier: MIT */
/* Output formats behind one small interface: begin, row, end. */
#ifndef PAGESTAT_SINK_H
#define PAGESTAT_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output/columns.h"
#include "kernel/probe.h"
#include "output/row.h"
#include "lib/format.h"

enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON, FORMAT_NDJSON, FORMAT_PROMETHEUS };

/* How the table shows byte figures. */
enum size_unit { UNIT_HUMAN, UNIT_BYTES };

/* --system: the kernel's own figures (/proc/meminfo), read after the
 * walk, against which the total is the coverage. */
struct system_figures {
	bool known;
	uint64_t cached, buffers, shmem; /* bytes */
	/* a block device could not be opened: Buffers cannot all be found */
	bool buffers_unread;
};

struct sink_config {
	FILE *out;
	const enum column_id *columns;
	size_t ncolumns;
	enum size_unit unit;    /* table: size and page counters */
	bool counters_in_pages; /* table: page counters as page counts */
	bool headings;          /* table, CSV: a header line */
	bool total_row;         /* table, CSV: a grand-total row (-c) */
	uint64_t page_size;
	const char *method;
	struct probe_range range;
	unsigned segments;        /* -S N, or 0 */
	enum extent_mode extents; /* -e */
	const char *time;         /* -i: the sample's time, RFC 3339; else NULL */
	bool later_sample;        /* -i: a sample after the first */
	/* --system: filled by the end, for it; else NULL */
	const struct system_figures *system;
};

struct sink;

/* Only row and end are required: without begin, a sink in front of another
 * (sink_wrap) passes the beginning on, and other sinks have none. */
struct sink_ops {
	void (*begin)(struct sink *sink);
	void (*row)(struct sink *sink, const struct row *row);
	void (*end)(struct sink *sink, const struct row *total, uint64_t errors);
	void (*free)(struct sink *sink);
	/* --system, for --browse (the one sink that has it): the rows that
	 * follow, to the next section, are of one file system walked at top
	 * (a mount point), or (top NULL) rows each named by its whole path
	 * (deleted files, block devices); a file system's row ends its own. */
	void (*section)(struct sink *sink, const char *top);
};

struct sink {
	const struct sink_ops *ops;
	struct sink_config cfg;
	uint64_t rows; /* rows written so far */
	bool failed;   /* the format's own storage failed (it said why) */
	void *state;   /* the format's own */
	/* a sink in front of another (--sort, -i) passes rows on to it:
	 * its failure is this one's, and it is freed with it */
	struct sink *inner;
};

extern const struct sink_ops sink_table_ops, sink_csv_ops, sink_json_ops,
	sink_ndjson_ops, sink_prom_ops;

struct sink *sink_new(enum output_format format, const struct sink_config *cfg);

/* A sink in front of inner, with inner's configuration and its own ops
 * and state (which ops->free frees). */
struct sink *sink_wrap(struct sink *inner, const struct sink_ops *ops, void *state);
void sink_free(struct sink *sink);

/* Each returns false once the output has failed (ferror, or failed):
 * stop walking. */
bool sink_begin(struct sink *sink);
bool sink_row(struct sink *sink, const struct row *row);
bool sink_end(struct sink *sink, const struct row *total, uint64_t errors);
/* Tells a sink that has a section op (the others need not know). */
void sink_section(struct sink *sink, const char *top);

/* errno of the first write that failed in any sink, or 0. */
int sink_write_errno(void);

/* A number in decimal, as every format but the table writes it (here,
 * not in sink.c: the formats call it, and sink.c calls the formats). */
static inline void sink_put_u64(FILE *out, uint64_t v)
{
	char buf[FMT_BUFSIZE];
	fwrite_unlocked(buf, 1, fmt_u64(buf, v), out);
}

/* Number of bytes of a page counter. */
static inline uint64_t sink_pages_to_bytes(const struct sink *sink, uint64_t pages)
{
	return pages * sink->cfg.page_size;
}

#endif
