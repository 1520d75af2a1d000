/* The walk: tree.c over the operands, one switch on what it finds, rows out. */
#ifndef PAGESTAT_WALK_H
#define PAGESTAT_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate.h"
#include "probe.h"
#include "sink.h"

enum follow_mode {
	FOLLOW_NONE, /* -P */
	FOLLOW_ARGS, /* -H, the default */
	FOLLOW_ALL,  /* -L */
};

struct walk_config {
	enum follow_mode follow;
	bool one_file_system; /* -x */
	bool count_links;     /* -l */
	bool all;             /* -a */
	bool quiet;           /* -q */
	bool utf8;            /* stderr takes UTF-8 */
	long max_depth;       /* -d; -1 when not given */
	struct probe_range range;
	unsigned segments;         /* -S N, or 0 */
	enum extent_mode extents;  /* -e */
	const char *const *excludes; /* --exclude globs */
	size_t nexcludes;
	unsigned jobs;             /* -j: threads that probe; 1: none */
};

struct walk_result {
	struct agg_sum total;
	uint64_t errors;     /* files and directories that could not be inspected */
	bool output_failed;  /* the sink could not write: the walk stopped */
};

void walk_run(const struct walk_config *cfg, char *const *operands,
	      struct sink *sink, struct walk_result *result);

#endif
