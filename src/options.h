/* SPDX-License-Identifier: MIT */
/* The command line: getopt_long table, --help, --version, value parsing. */
#ifndef PAGESTAT_OPTIONS_H
#define PAGESTAT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "output/columns.h"
#include "kernel/probe.h"
#include "lib/progress.h"
#include "output/sink.h"
#include "walk/source.h"

/* --by's rows. */
enum trace_by { BY_FILE, BY_PROCESS, BY_CGROUP };

struct options {
	long max_depth;       /* -d N; -1 when not given */
	size_t ncolumns;
	uint64_t top;               /* --top N, or 0 */
	const char **excludes;      /* --exclude, --exclude-from */
	size_t nexcludes;
	double expect_cached;       /* --expect-cached PERCENT, or -1 */
	const char *expect_cached_arg; /* PERCENT as given, for messages */
	double interval;            /* -i SECONDS, or 0: one sample */
	uint64_t count;             /* --count N, or 0: until a signal */
	pid_t *pids;                /* --pid, in the order given; else NULL */
	size_t npids;
	const char *output_file;    /* --output-file, or NULL */
	uint64_t rate;              /* --rate: bytes per second, or 0 */
	const char *warm_from;      /* --warm-from FILE ("-": stdin), or NULL */
	const char **cgroups;       /* --cgroup, as given, in order; else NULL */
	size_t ncgroups;
	uint64_t lock_max;          /* --lock-max: bytes, or 0: no limit */
	const char *lock_max_arg;   /* --lock-max as given, for messages */
	uint64_t reserve;           /* --reserve SIZE: bytes, or 0 */
	double reserve_percent;     /* --reserve PERCENT%, or 0 */
	const char *reserve_arg;    /* --reserve as given, for messages */
	const char *pidfile;        /* --pidfile FILE, or NULL */
	struct probe_range range;
	char **operands; /* NULL-terminated */
	/* what options_finish has left to do, and what the lists read hold
	 * (the operands and exclusions point into it): options.c's own */
	struct options_state *state;
	enum follow_mode follow;
	enum probe_method method;
	enum output_format format;
	enum size_unit unit;
	unsigned segments;          /* -S N, or 0 */
	enum extent_mode extents;   /* -e */
	int sort_key;               /* -s: a column, or -1 (walk order) */
	unsigned jobs;              /* -j N; 0: auto */
	enum progress_mode progress; /* --progress, --no-progress */
	enum action action;         /* --evict, --warm, --warm-from, --lock */
	enum column_id columns[COL_COUNT];
	bool all;             /* -a */
	bool total;           /* -c */
	bool one_file_system; /* -x */
	bool count_links;     /* -l */
	bool quiet;           /* -q */
	bool headings;        /* not -n */
	bool counters_in_pages; /* -p */
	bool reverse;               /* --reverse */
	bool system;                /* --system: the whole machine */
	bool browse;                /* --browse: the full-screen interface */
	bool lock;                  /* --lock (known at parse: caps_drop keeps CAP_IPC_LOCK) */
	bool daemon;                /* --daemon: detach once locked */
	bool no_follow;             /* --no-follow: a lock does not follow the files */
	bool charged;               /* --charged: pages charged to the cgroup */
	bool cgroup_walks;          /* --cgroup --charged with FILE operands: walk them */
	bool trace;                 /* --trace: the cache's motion */
	double trace_seconds;       /* --trace=DURATION, or 0: until a signal */
	uint64_t trace_buffer;      /* --trace-buffer: bytes a CPU */
	enum trace_by trace_by;     /* --by: a row per file, process or cgroup */
};

/* options_parse() and options_finish() return this when the run should
 * go on; otherwise the exit status (0 after --help or --version, 2 for a
 * usage error, told). */
#define OPTIONS_RUN (-1)

/* The command line into opts, each value checked as it is met, in order:
 * the first bad one, --help or --version ends the parse, told at once.
 * It runs once the capabilities are down to what any run may need
 * (caps_start), before caps_drop, which must know whether --pid was
 * asked; what it checks of --output-file is checked with the user's
 * rights.  Then options_finish, unless it returned a status. */
int options_parse(int argc, char **argv, struct options *opts);

/* The options together (the rules between them, the columns), then the
 * lists of --exclude-from and --files0-from (with the user's own
 * rights).  OPTIONS_RUN, or the exit status. */
int options_finish(struct options *opts);

/* Frees what opts owns: its lists, and what was read into them. */
void options_free(struct options *opts);

#endif
