/* The command line: getopt_long table, --help, --version, value parsing. */
#ifndef PAGESTAT_OPTIONS_H
#define PAGESTAT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "columns.h"
#include "probe.h"
#include "progress.h"
#include "sink.h"
#include "walk.h"

struct options {
	bool all;             /* -a */
	bool total;           /* -c */
	bool one_file_system; /* -x */
	bool count_links;     /* -l */
	bool quiet;           /* -q */
	bool headings;        /* not -n */
	long max_depth;       /* -d N; -1 when not given */
	enum follow_mode follow;
	enum probe_method method;
	enum output_format format;
	enum size_unit unit;
	bool counters_in_pages; /* -p */
	enum column_id columns[COL_COUNT];
	size_t ncolumns;
	struct probe_range range;
	unsigned segments;          /* -S N, or 0 */
	enum extent_mode extents;   /* -e */
	int sort_key;               /* -s: a column, or -1 (walk order) */
	bool reverse;               /* --reverse */
	uint64_t top;               /* --top N, or 0 */
	const char **excludes;      /* --exclude, --exclude-from */
	size_t nexcludes;
	unsigned jobs;              /* -j N */
	double expect_cached;       /* --expect-cached PERCENT, or -1 */
	const char *expect_cached_arg; /* PERCENT as given, for messages */
	double interval;            /* -i SECONDS, or 0: one sample */
	uint64_t count;             /* --count N, or 0: until a signal */
	const pid_t *pids;          /* --pid, in the order given; else NULL */
	size_t npids;
	enum progress_mode progress; /* --progress, --no-progress */
	const char *output_file;    /* --output-file, or NULL */
	char **operands; /* NULL-terminated */
};

/* options_parse() returns this when the run should go on; otherwise the
 * exit status (0 after --help or --version, 2 for a usage error). */
#define OPTIONS_RUN (-1)


int options_parse(int argc, char **argv, struct options *opts);

/* Whether the command line asks for --pid (which needs CAP_SYS_PTRACE to
 * read the /proc entries of other users' processes).  Reads no file;
 * called before the capabilities are dropped, and before options_parse. */
bool options_want_processes(int argc, char **argv);

/* Frees what options_parse read from files (the operands and exclusions
 * of the options it filled point into it). */
void options_free(void);

#endif
