/* SPDX-License-Identifier: MIT */
/* The one table of options (option_table[]) and of the rules between
 * them (option_rules[]), with the options that read their own values;
 * options_parse.c reads the command line by them, options_help.c writes
 * --help from them, src/mkcompletions the completions. */
#include <config.h>

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/memstat.h"
#include "kernel/userfile.h"
#include "lib/format.h"
#include "walk/jobs.h"
#include "lib/msg.h"
#include "optable.h"
#include "options_int.h"
#include "output/outfile.h"
#include "lib/xalloc.h"

/* ---- the options that read their own values ------------------------- */

void options_add_exclude(struct options *opts, const char *glob)
{
	opts->excludes = options_grow(opts->excludes, opts->nexcludes, sizeof *opts->excludes);
	opts->excludes[opts->nexcludes++] = glob;
}

static const char *parse_sort(const char *arg, struct options *opts, struct options_state *st)
{
	(void)st;
	int col = column_lookup(arg, strlen(arg));
	if (col < 0 || columns[col].unsortable) {
		static char expected[COL_COUNT * 24 + 16];
		snprintf(expected, sizeof expected, "one of %s", columns_names(true));
		return expected;
	}
	opts->sort_key = col;
	return NULL;
}

static const char *parse_exclude(const char *arg, struct options *opts, struct options_state *st)
{
	(void)st;
	if (!*arg)
		return "a glob such as '*.log'";
	options_add_exclude(opts, arg);
	return NULL;
}

static const char *parse_exclude_from(const char *arg, struct options *opts,
				      struct options_state *st)
{
	(void)opts;
	st->exclude_files = options_grow(st->exclude_files, st->nexclude_files,
					 sizeof *st->exclude_files);
	st->exclude_files[st->nexclude_files++] = arg;
	return NULL;
}

static const char *parse_pid(const char *arg, struct options *opts, struct options_state *st)
{
	long pid;

	(void)st;
	if (!options_parse_count(arg, &pid) || pid < 1)
		return "a process ID, a whole number from 1 to " STR(COUNT_MAX);
	opts->pids = options_grow(opts->pids, opts->npids, sizeof *opts->pids);
	opts->pids[opts->npids++] = (pid_t)pid;
	return NULL;
}

static const char *parse_cgroup(const char *arg, struct options *opts, struct options_state *st)
{
	(void)st;
	if (!*arg)
		return "a cgroup: a path under a cgroup mount, one relative to it, or self";
	opts->cgroups = options_grow(opts->cgroups, opts->ncgroups, sizeof *opts->cgroups);
	opts->cgroups[opts->ncgroups++] = arg;
	return NULL;
}

static const char *parse_jobs(const char *arg, struct options *opts, struct options_state *st)
{
	long count;

	(void)st;
	if (strcasecmp(arg, "auto") == 0)
		opts->jobs = 0;
	else if (options_parse_count(arg, &count) && count >= 1 && count <= JOBS_MAX)
		opts->jobs = (unsigned)count;
	else
		return "auto, or a whole number from 1 to " STR(JOBS_MAX);
	return NULL;
}

static const char *parse_offset(const char *arg, struct options *opts, struct options_state *st)
{
	st->offset = arg;
	return fmt_parse_size(arg, &opts->range.offset) ? NULL : SIZE_EXPECTED;
}

/* --reserve: a size above 0, or a percentage above 0 and below 100. */
static const char *parse_reserve(const char *arg, struct options *opts,
				 struct options_state *st)
{
	size_t len = strlen(arg);
	(void)st;
	opts->reserve_arg = arg;
	if (len > 1 && arg[len - 1] == '%') {
		char *end;
		errno = 0;
		double p = strtod(arg, &end);
		if (errno == 0 && end == arg + len - 1 && p > 0 && p < 100 && isdigit((unsigned char)*arg)) {
			opts->reserve_percent = p;
			return NULL;
		}
	} else if (fmt_parse_size(arg, &opts->reserve) && opts->reserve > 0) {
		return NULL;
	}
	return "a size above 0 such as 512M or 2G, or a percentage of memory above 0 and below "
	       "100 such as 10%";
}

/* --trace=DURATION: a number of seconds, or one with a unit (500ms, 30s,
 * 5m, 2h); no value traces until SIGINT or SIGTERM. */
/* A duration: decimal digits with a fraction perhaps (not strtod's hex,
 * exponents or "inf"), then no unit (seconds), ms, s, m, h or d; from 10ms
 * to TRACE_SECONDS_MAX (7d). */
static bool duration_of(const char *arg, double *seconds)
{
	static const struct { const char *unit; double seconds; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 0.001 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 },
	};
	size_t digits = strspn(arg, "0123456789.");
	char number[32], *end;
	if (digits == 0 || digits >= sizeof number || !isdigit((unsigned char)*arg))
		return false;
	memcpy(number, arg, digits);
	number[digits] = '\0';
	errno = 0;
	double v = strtod(number, &end);
	if (errno || *end || v <= 0)
		return false;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(arg + digits, units[i].unit) == 0) {
			v *= units[i].seconds;
			*seconds = v;
			return v >= 0.01 && v <= TRACE_SECONDS_MAX;
		}
	return false;
}

/* --trace=DURATION; no value traces until SIGINT or SIGTERM. */
static const char *parse_trace(const char *arg, struct options *opts, struct options_state *st)
{
	(void)st;
	opts->trace = true;
	if (!arg || duration_of(arg, &opts->trace_seconds))
		return NULL;
	return "a duration from 10ms to 7d, such as 30s, 5m, 2h, 500ms or 90 (seconds); "
	       "no value traces until interrupted";
}

/* --trace-buffer: each CPU's buffer, from 64K to what memory allows. */
static const char *parse_trace_buffer(const char *arg, struct options *opts,
				      struct options_state *st)
{
	uint64_t total = 0;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	(void)st;
	if (!fmt_parse_size(arg, &opts->trace_buffer) || opts->trace_buffer < 65536)
		return "a size of 64K or more a CPU, such as 4M or 64M";
	/* all CPUs' buffers in at most half of the memory */
	if (meminfo_bytes("MemTotal", &total) && cpus > 0 &&
	    opts->trace_buffer > total / 2 / (uint64_t)cpus)
		return "a size a CPU that fits, for every CPU, in half of the memory (MemTotal)";
	return NULL;
}

/* --lock-max: a size above 0 (0 would lock nothing). */
static const char *parse_lock_max(const char *arg, struct options *opts,
				  struct options_state *st)
{
	(void)st;
	opts->lock_max_arg = arg;
	return fmt_parse_size(arg, &opts->lock_max) && opts->lock_max > 0
		       ? NULL
		       : "a size above 0 such as 64M, 1GiB or 10GB, below 2^64";
}

static const char *parse_length(const char *arg, struct options *opts, struct options_state *st)
{
	st->length = arg;
	return fmt_parse_size(arg, &opts->range.length) ? NULL : SIZE_EXPECTED;
}

static const char *parse_output(const char *arg, struct options *opts, struct options_state *st)
{
	(void)opts;
	st->output_list = arg;
	st->output_all = false;
	return NULL;
}

static const char *parse_output_file(const char *arg, struct options *opts,
				     struct options_state *st)
{
	const char *expected;

	(void)st;
	/* a directory that cannot hold it is told now, with the user's
	 * rights, before anything is inspected */
	if (!outfile_check(arg, &expected))
		return expected;
	opts->output_file = arg;
	return NULL;
}

static const char *parse_expect_cached(const char *arg, struct options *opts,
				       struct options_state *st)
{
	(void)st;
	opts->expect_cached_arg = arg;
	if (!options_parse_decimal(arg, &opts->expect_cached) || opts->expect_cached > 100)
		return "a percentage from 0 to 100, such as 90 or 99.5";
	return NULL;
}

/* ---- the table ------------------------------------------------------- */

static const struct opt_name extent_modes[] = {
	{ "cached", EXTENTS_CACHED, "the cached extents (default)" },
	{ "missing", EXTENTS_MISSING, "the extents not cached" },
	{ NULL, 0, NULL },
};

static const struct opt_name methods[] = {
	{ "auto", PROBE_AUTO, "cachestat, else mincore (default)" },
	{ "cachestat", PROBE_CACHESTAT, "cachestat(2) only" },
	{ "mincore", PROBE_MINCORE, "mincore(2) only" },
	{ NULL, 0, NULL },
};

static const struct opt_name formats[] = {
	{ "table", FORMAT_TABLE, "aligned columns for people (default)" },
	{ "csv", FORMAT_CSV, "RFC 4180, exact integers" },
	{ "json", FORMAT_JSON, "one JSON document" },
	{ "ndjson", FORMAT_NDJSON, "one JSON object per line" },
	{ "prometheus", FORMAT_PROMETHEUS, "Prometheus text format 0.0.4" },
	{ NULL, 0, NULL },
};

static const struct opt_name trace_bys[] = {
	{ "file", BY_FILE, "a row per file (default)" },
	{ "process", BY_PROCESS, "a row per process, with the files it moved most" },
	{ "cgroup", BY_CGROUP, "a row per memory cgroup, with the files its processes moved most" },
	{ NULL, 0, NULL },
};

/* -j's words, for the completions (any number from 1 is taken too) */
static const struct opt_name job_counts[] = {
	{ "auto", 0, "the processors, once a walk passes " STR(JOBS_AUTO_AFTER) " files (default)" },
	{ "1", 1, "the walking thread alone" },
	{ NULL, 0, NULL },
};

const struct opt_group_text opt_groups[GROUP_COUNT] = {
	[GROUP_ROWS] = { "Rows:", NULL },
	[GROUP_WALK] = { "Walk:", NULL },
	[GROUP_RANGE] = { "Range:",
			  "SIZE is bytes (512 or 512B), or a number with K, M, G, T, P or E (powers\n"
			  "of 1024, also written KiB, MiB...) or KB, MB... (powers of 1000), in any\n"
			  "case; FORMAT, METHOD, WHICH and column names are taken in any case too.\n" },
	[GROUP_OUTPUT] = { "Output:", NULL },
	[GROUP_WATCH] = { "Watch:", NULL },
	[GROUP_ACTIONS] = { "Actions (each file opened with your own rights; the rows show the state\n"
			    "after, and what was done):",
			    NULL },
	[GROUP_INFO] = { NULL, NULL },
};

/* In --help's order.  A row: its head, then how its value is read and
 * where it goes (options_int.h), then what the completions need. */
const struct opt_spec option_table[] = {
	/* Rows */
	{ 'a', "all", ARG_NONE, NULL, GROUP_ROWS,
	  "also a row for every file inside directories", NULL, SET(IN(all), 1) },
	{ 'd', "max-depth", ARG_REQUIRED, "N", GROUP_ROWS,
	  "also a row for every directory down to depth N\n"
	  "(FILE is depth 0); with -a, files down to N too",
	  "also a row for every directory down to depth N",
	  WHOLE(IN(max_depth), 0, COUNT_MAX, "depth (0 = the operands only)") },
	{ 'c', "total", ARG_NONE, NULL, GROUP_ROWS,
	  "add a grand-total row (table and CSV)", NULL, SET(IN(total), 1) },
	{ 's', "sort", ARG_REQUIRED, "KEY", GROUP_ROWS,
	  "order rows by a column (numbers largest first,\n"
	  "path and type A-Z); default: walk order",
	  "order rows by a column (numbers largest first)",
	  CUSTOM(parse_sort), .complete = COMPLETE_SORT_KEY },
	{ OPT_REVERSE, "reverse", ARG_NONE, NULL, GROUP_ROWS,
	  "reverse the order of --sort or --top", NULL, SET(IN(reverse), 1) },
	{ OPT_TOP, "top", ARG_REQUIRED, "N", GROUP_ROWS,
	  "only the N rows first in --sort order (by\n"
	  "cached when no --sort); with -a, files only",
	  "only the N first rows in sort order (by cached without --sort)",
	  WHOLE(IN(top), 1, COUNT_MAX, "number of rows (from 1)") },
	/* Walk */
	{ 'P', "no-dereference", ARG_NONE, NULL, GROUP_WALK,
	  "follow no symbolic link, not even one named as FILE", NULL,
	  SET(IN(follow), FOLLOW_NONE) },
	{ 'H', "dereference-args", ARG_NONE, NULL, GROUP_WALK,
	  "follow symbolic links named as FILE (also names\n"
	  "read with --files0-from), no others (default)",
	  "follow symbolic links named as FILE, no others (default)",
	  SET(IN(follow), FOLLOW_ARGS) },
	{ 'L', "dereference", ARG_NONE, NULL, GROUP_WALK,
	  "follow every symbolic link", NULL, SET(IN(follow), FOLLOW_ALL) },
	{ 'x', "one-file-system", ARG_NONE, NULL, GROUP_WALK,
	  "do not descend into other file systems", NULL, SET(IN(one_file_system), 1) },
	{ 'l', "count-links", ARG_NONE, NULL, GROUP_WALK,
	  "count a hard-linked file each time it is met\n"
	  "(default: once per run)",
	  "count a hard-linked file each time it is met",
	  SET(IN(count_links), 1) },
	{ OPT_EXCLUDE, "exclude", ARG_REQUIRED, "GLOB", GROUP_WALK,
	  "skip files and directories whose name or path\n"
	  "matches GLOB (may be repeated)",
	  "skip files and directories whose name or path matches GLOB",
	  CUSTOM(parse_exclude), .hint = "glob pattern", .repeats = true },
	{ OPT_EXCLUDE_FROM, "exclude-from", ARG_REQUIRED, "FILE", GROUP_WALK,
	  "skip what matches any glob in FILE, one a line\n"
	  "(- reads standard input)",
	  "skip what matches any glob in FILE, one a line",
	  CUSTOM(parse_exclude_from), .complete = COMPLETE_FILE,
	  .hint = "file of glob patterns", .repeats = true },
	{ OPT_FILES0_FROM, "files0-from", ARG_REQUIRED, "FILE", GROUP_WALK,
	  "inspect the NUL-separated names in FILE\n"
	  "(- reads standard input) instead of FILE operands",
	  "inspect the NUL-separated names in FILE instead of operands",
	  FILENAME(IN_STATE(files0_from), "file of NUL-separated names (- for standard input)"),
	  .names_files = true },
	{ OPT_PID, "pid", ARG_REQUIRED, "PID", GROUP_WALK,
	  "inspect the regular files process PID maps or\n"
	  "holds open, a row each (may be repeated), instead\n"
	  "of FILE operands",
	  "inspect the files process PID maps or holds open",
	  CUSTOM(parse_pid), .complete = COMPLETE_PID, .hint = "process ID",
	  .repeats = true, .names_files = true },
	{ OPT_SYSTEM, "system", ARG_NONE, NULL, GROUP_WALK,
	  "what fills this machine's page cache: every file\n"
	  "system once, files deleted but open, block\n"
	  "devices; the top " STR(SYSTEM_TOP) " files (--top), a row per file\n"
	  "system, and the share of the kernel's Cached and\n"
	  "Buffers found",
	  "what fills the whole machine's page cache",
	  SET(IN(system), 1), .names_files = true },
	{ OPT_CGROUP, "cgroup", ARG_REQUIRED, "CGROUP", GROUP_WALK,
	  "inspect the files the processes of memory cgroup\n"
	  "CGROUP (and of those below it) map or hold open,\n"
	  "a row each, its memory.stat figures and the share\n"
	  "of its file pages found (may be repeated), instead\n"
	  "of FILE operands; CGROUP is a path under a cgroup\n"
	  "mount, one relative to it, or self",
	  "inspect a memory cgroup's processes' files and figures",
	  CUSTOM(parse_cgroup), .complete = COMPLETE_CGROUP,
	  .hint = "cgroup", .repeats = true, .names_files = true },
	{ OPT_CHARGED, "charged", ARG_NONE, NULL, GROUP_WALK,
	  "with --cgroup: a charged column, the cached pages\n"
	  "of each file charged to the cgroup or one below\n"
	  "it (/proc/kpagecgroup; root only); FILE operands\n"
	  "are then walked instead of its processes' files",
	  "count each file's cached pages charged to the --cgroup",
	  SET(IN(charged), 1) },
	{ OPT_METHOD, "method", ARG_REQUIRED, "METHOD", GROUP_WALK,
	  "auto (default), cachestat or mincore", "how to ask the kernel",
	  NAME(IN(method), methods, "method") },
	{ 'j', "jobs", ARG_REQUIRED, "N", GROUP_WALK,
	  "N threads open and measure files while one walks\n"
	  "(auto, the default: the processors, once a walk\n"
	  "passes " STR(JOBS_AUTO_AFTER) " files; or 1 to " STR(JOBS_MAX) "); output as with 1",
	  "threads that open and measure files while one walks (auto, 1 to " STR(JOBS_MAX) ")",
	  CUSTOM(parse_jobs), .names = job_counts, .complete = COMPLETE_NAMES,
	  .hint = "threads" },
	/* Range */
	{ OPT_OFFSET, "offset", ARG_REQUIRED, "SIZE", GROUP_RANGE,
	  "inspect each file from byte SIZE on", NULL,
	  CUSTOM(parse_offset), .hint = "size (bytes, or 64K, 1MiB, 10GB)" },
	{ OPT_LENGTH, "length", ARG_REQUIRED, "SIZE", GROUP_RANGE,
	  "inspect at most SIZE bytes (default: to the end)",
	  "inspect at most SIZE bytes (0: to the end)",
	  CUSTOM(parse_length), .hint = "size (bytes, or 64K, 1MiB, 10GB)" },
	{ 'S', "segments", ARG_REQUIRED, "N", GROUP_RANGE,
	  "split each file's range into N equal parts (1 to\n"
	  STR(SEGMENTS_MAX) ") and show the cached share of each",
	  "split each range into N parts and show the cached share of each",
	  WHOLE(IN(segments), 1, SEGMENTS_MAX, "number of parts (1 to " STR(SEGMENTS_MAX) ")") },
	{ 'e', "extents", ARG_OPTIONAL, "WHICH", GROUP_RANGE,
	  "list each file's cached byte extents, START-END;\n"
	  "--extents=missing (or -emissing) the missing ones",
	  "list the cached byte extents (=missing: the missing ones)",
	  NAME(IN(extents), extent_modes, "which extents"), .value = EXTENTS_CACHED },
	/* Output */
	{ OPT_FORMAT, "format", ARG_REQUIRED, "FORMAT", GROUP_OUTPUT,
	  "table (default), csv, json, ndjson or prometheus", "output format",
	  NAME(IN(format), formats, "format") },
	{ 'J', "json", ARG_NONE, NULL, GROUP_OUTPUT,
	  "same as --format=json", NULL, SET(IN(format), FORMAT_JSON) },
	{ OPT_CSV, "csv", ARG_NONE, NULL, GROUP_OUTPUT,
	  "same as --format=csv", NULL, SET(IN(format), FORMAT_CSV) },
	{ 'o', "output", ARG_REQUIRED, "LIST", GROUP_OUTPUT,
	  "columns to show, comma-separated, in that order;\n"
	  "+LIST adds to the default columns",
	  "columns to show, comma-separated (+LIST adds to the defaults)",
	  CUSTOM(parse_output), .complete = COMPLETE_COLUMNS, .hint = "column list",
	  /* it clears --output-all's field: the last one wins */
	  CLEARS(IN_STATE(output_all)) },
	{ OPT_OUTPUT_ALL, "output-all", ARG_NONE, NULL, GROUP_OUTPUT,
	  "show every column", NULL, SET(IN_STATE(output_all), 1) },
	{ 'b', "bytes", ARG_NONE, NULL, GROUP_OUTPUT,
	  "exact bytes instead of 1.5G in the table", NULL, SET(IN(unit), UNIT_BYTES) },
	{ 'p', "pages", ARG_NONE, NULL, GROUP_OUTPUT,
	  "page counts for the page columns in the table", NULL,
	  SET(IN(counters_in_pages), 1) },
	{ 'n', "noheadings", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no header line (table and CSV)", NULL, SET(IN(headings), 0) },
	{ OPT_OUTPUT_FILE, "output-file", ARG_REQUIRED, "FILE", GROUP_OUTPUT,
	  "write to FILE, replaced only once complete", NULL,
	  CUSTOM(parse_output_file), .complete = COMPLETE_FILE, .hint = "output file" },
	{ 'q', "quiet", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no per-file error messages (still counted)", "no per-file error messages",
	  SET(IN(quiet), 1) },
	{ OPT_PROGRESS, "progress", ARG_NONE, NULL, GROUP_OUTPUT,
	  "a progress line on stderr from the start, when it\n"
	  "is a terminal (default: after about a second)",
	  "show the progress line on a terminal from the start",
	  SET(IN(progress), PROGRESS_ALWAYS) },
	{ OPT_NO_PROGRESS, "no-progress", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no progress line", "never show the progress line",
	  SET(IN(progress), PROGRESS_NEVER) },
	{ OPT_EXPECT_CACHED, "expect-cached", ARG_REQUIRED, "PERCENT", GROUP_OUTPUT,
	  "exit with status 4 when less than PERCENT (0 to\n"
	  "100, decimals allowed) of all pages are cached,\n"
	  "or when no page at all was counted",
	  "exit with status 4 when less than PERCENT of the pages are cached",
	  CUSTOM(parse_expect_cached), .hint = "percentage (0 to 100)" },
	{ OPT_BROWSE, "browse", ARG_NONE, NULL, GROUP_OUTPUT,
	  "explore the inspection full-screen, one directory\n"
	  "at a time, sorted by cached (keys: ? in it); needs\n"
	  "a terminal",
	  "explore the page cache full-screen, one directory at a time",
	  SET(IN(browse), 1) },
	/* Watch */
	{ 'i', "interval", ARG_REQUIRED, "SECONDS", GROUP_WATCH,
	  "inspect again every SECONDS (" STR(INTERVAL_MIN) " or more,\n"
	  "fractions allowed) until interrupted; each sample\n"
	  "has its time, and the delta column the change\n"
	  "in cached pages since the sample before",
	  "inspect again every SECONDS until interrupted",
	  DECIMAL(IN(interval), INTERVAL_MIN, COUNT_MAX, "a number of seconds",
		  ", such as 2 or 0.5",
		  "seconds (" STR(INTERVAL_MIN) " or more, such as 2 or 0.5)") },
	{ OPT_COUNT, "count", ARG_REQUIRED, "N", GROUP_WATCH,
	  "with -i: stop after N samples", NULL,
	  WHOLE(IN(count), 1, COUNT_MAX, "number of samples (from 1)") },
	/* Actions */
	{ OPT_EVICT, "evict", ARG_NONE, NULL, GROUP_ACTIONS,
	  "drop the clean cached pages of each file's range", NULL, GIVEN },
	{ OPT_WARM, "warm", ARG_NONE, NULL, GROUP_ACTIONS,
	  "read the missing pages of each file's range into\n"
	  "the cache (cached pages are not read again)",
	  "read the missing pages of each file's range into the cache",
	  GIVEN },
	{ OPT_WARM_FROM, "warm-from", ARG_REQUIRED, "FILE", GROUP_ACTIONS,
	  "read the extents a snapshot lists back into the\n"
	  "cache: FILE (- reads standard input) is what\n"
	  "pagestat -a -e wrote as JSON or ndjson",
	  "read the extents a snapshot lists back into the cache",
	  FILENAME(IN(warm_from), "snapshot (pagestat -a -e output, - for standard input)"),
	  .names_files = true },
	{ OPT_RATE, "rate", ARG_REQUIRED, "SIZE", GROUP_ACTIONS,
	  "with a warm or --lock: read at most SIZE bytes a\nsecond", NULL,
	  RATE(IN(rate), "bytes a second above 0, such as 50M, 1G or 200MB/s",
	       "bytes a second (50M, 200MB/s)") },
	{ OPT_LOCK, "lock", ARG_NONE, NULL, GROUP_ACTIONS,
	  "read the missing pages of each file's range and\n"
	  "lock the range in memory, then hold it until\n"
	  "SIGINT or SIGTERM (see LOCKING in pagestat(1))",
	  "lock each file's range in memory until interrupted",
	  SET(IN(lock), 1) },
	{ OPT_LOCK_MAX, "lock-max", ARG_REQUIRED, "SIZE", GROUP_ACTIONS,
	  "with --lock: lock files in walk order until SIZE\n"
	  "is locked; the rest is left out (and told)",
	  "with --lock: lock at most SIZE bytes, in walk order",
	  CUSTOM(parse_lock_max), .hint = "size (64M, 1GiB, 10GB)" },
	{ OPT_RESERVE, "reserve", ARG_REQUIRED, "SIZE|PERCENT%", GROUP_ACTIONS,
	  "with --lock: keep SIZE (or PERCENT% of memory)\n"
	  "available, unlocking the last files locked while\n"
	  "less is, locking them again once more is",
	  "with --lock: keep SIZE or PERCENT% of memory available",
	  CUSTOM(parse_reserve), .hint = "size or percentage (512M, 10%)" },
	{ OPT_NO_FOLLOW, "no-follow", ARG_NONE, NULL, GROUP_ACTIONS,
	  "with --lock: do not follow the files as they\n"
	  "change (grow, shrink, are replaced, new, deleted)",
	  "with --lock: do not follow the files as they change",
	  SET(IN(no_follow), 1) },
	{ OPT_DAEMON, "daemon", ARG_NONE, NULL, GROUP_ACTIONS,
	  "with --lock: detach once everything is locked\n"
	  "(every error is told first)",
	  "with --lock: detach once everything is locked",
	  SET(IN(daemon), 1) },
	{ OPT_PIDFILE, "pidfile", ARG_REQUIRED, "FILE", GROUP_ACTIONS,
	  "with --daemon: write the daemon's pid to FILE\n"
	  "(removed when it ends)",
	  "with --daemon: write the daemon's pid to FILE",
	  FILENAME(IN(pidfile), "pid file") },
	/* Trace */
	{ OPT_TRACE, "trace", ARG_OPTIONAL, "DURATION", GROUP_WATCH,
	  "record the pages added to and removed from the\n"
	  "cache for DURATION (30s, 5m; none: until SIGINT\n"
	  "or SIGTERM), then show per file the pages added,\n"
	  "reclaimed, dropped and refaulted, and who did it\n"
	  "(see TRACING in pagestat(1)); needs root",
	  "record the cache's motion per file for DURATION, and who moved it",
	  CUSTOM(parse_trace), .hint = "duration (30s, 5m, 500ms; none: until interrupted)" },
	{ OPT_TRACE_BUFFER, "trace-buffer", ARG_REQUIRED, "SIZE", GROUP_WATCH,
	  "with --trace: each CPU's buffer (default 8M);\n"
	  "larger when events are lost",
	  "with --trace: each CPU's trace buffer",
	  CUSTOM(parse_trace_buffer), .hint = "size a CPU (8M, 64M)" },
	{ OPT_BY, "by", ARG_REQUIRED, "WHAT", GROUP_WATCH,
	  "with --trace: a row per file (default), per\n"
	  "process or per cgroup that moved pages, with the\n"
	  "files it moved most",
	  "with --trace: a row per file, process or cgroup",
	  NAME(IN(trace_by), trace_bys, "rows (file, process or cgroup)") },
	/* --help, --version */
	{ 'h', "help", ARG_NONE, NULL, GROUP_INFO,
	  "show this help and exit", "show help and exit", GIVEN },
	{ 'V', "version", ARG_NONE, NULL, GROUP_INFO,
	  "show the version, the method the kernel offers\n"
	  "and the capabilities held, and exit",
	  "show version, method and capabilities, and exit",
	  GIVEN },
};

const size_t option_count = sizeof option_table / sizeof option_table[0];

_Static_assert(sizeof option_table / sizeof option_table[0] <=
		       sizeof ((struct options_state *)0)->given,
	       "options_state.given has room for every option");

/* ---- the rules that look at values or operands ------------------------ */

/* The range may end at 2^64 exactly (end wraps to 0), not past it. */
static bool range_past_end(const struct options *opts, const struct options_state *st)
{
	uint64_t end;
	if (!__builtin_add_overflow(opts->range.offset, opts->range.length, &end) || end == 0)
		return false;
	msg("--offset ");
	msg_name_str(st->offset);
	msg_more(" plus --length ");
	msg_name_str(st->length);
	msg_more(" passes 2^64 bytes, the largest offset there is\n");
	msg_try_help();
	return true;
}

static bool prometheus_on_stdout(const struct options *opts, const struct options_state *st)
{
	(void)st;
	return opts->format == FORMAT_PROMETHEUS && !opts->output_file;
}

/* What an action changes must be named: "." by default would evict a
 * whole tree, from / a whole file system (vmtouch needs a name too). */
static bool acts_unnamed(const struct options *opts, const struct options_state *st)
{
	return !st->files0_from && st->noperands == 0 && !opts->npids && !opts->system &&
	       !opts->ncgroups;
}

static bool locks_unnamed(const struct options *opts, const struct options_state *st)
{
	return !opts->warm_from && !st->files0_from && st->noperands == 0 && !opts->npids &&
	       !opts->ncgroups;
}

static bool warm_from_range(const struct options *opts, const struct options_state *st)
{
	(void)st;
	return opts->range.offset || opts->range.length;
}

static bool reads_stdin(const struct options_state *st)
{
	for (size_t i = 0; i < st->nexclude_files; i++)
		if (strcmp(st->exclude_files[i], "-") == 0)
			return true;
	return false;
}

static bool warm_from_stdin_twice(const struct options *opts, const struct options_state *st)
{
	return strcmp(opts->warm_from, "-") == 0 && reads_stdin(st);
}

static bool cgroup_depth(const struct options *opts, const struct options_state *st)
{
	(void)st;
	return !opts->cgroup_walks && opts->max_depth >= 0;
}

static bool lists_stdin_twice(const struct options *opts, const struct options_state *st)
{
	bool stdin_taken = st->files0_from && strcmp(st->files0_from, "-") == 0;

	(void)opts;
	for (size_t i = 0; i < st->nexclude_files; i++) {
		if (strcmp(st->exclude_files[i], "-") != 0)
			continue;
		if (stdin_taken)
			return true;
		stdin_taken = true;
	}
	return false;
}

/* "--trace 5s FILE": getopt gives an optional value only after '=', so
 * 5s became a FILE; when there is no such file, that is what was meant. */
static bool trace_duration_apart(const struct options *opts, const struct options_state *st)
{
	double seconds;
	struct stat sb;
	return opts->trace && opts->trace_seconds == 0 && st->noperands > 0 &&
	       duration_of(opts->operands[0], &seconds) &&
	       user_fstatat(AT_FDCWD, opts->operands[0], &sb, AT_SYMLINK_NOFOLLOW) != 0 &&
	       errno == ENOENT;
}

static bool trace_duration_with_interval(const struct options *opts,
					 const struct options_state *st)
{
	(void)st;
	return opts->interval > 0 && opts->trace_seconds > 0;
}

/* ---- the rules --------------------------------------------------------- */

#define NEEDS_FILE " needs a FILE (or --files0-from or --pid): it does not act on the " \
		   "current directory unnamed; give . to mean it"
#define CGROUP_ALONE "--cgroup inspects its cgroups' processes' files: no FILE operands, " \
		     "--files0-from, --pid or --system (FILE operands only with --charged)"

/* Every rule, in the order they are checked: the first broken one is
 * told.  Each RULE_CHECK says why it is code. */
const struct opt_rule option_rules[] = {
	/* values: --offset's and --length's */
	{ RULE_CHECK, 0, .broken = range_past_end },
	{ RULE_NEEDS, OPT_COUNT, { 'i' }, .message = "--count needs -i/--interval" },
	/* a value: --format's */
	{ RULE_CHECK, 'i', .broken = prometheus_on_stdout,
	  .message = "-i with --format=prometheus needs --output-file: each sample replaces the "
		     "file a textfile collector reads, where on standard output the samples would "
		     "follow each other, which no scraper reads as one" },
	{ RULE_ONE_OF, OPT_EVICT, { OPT_WARM, OPT_WARM_FROM },
	  .message = "--evict, --warm and --warm-from exclude each other: give one of them" },
	{ RULE_NEEDS, OPT_RATE, { OPT_WARM, OPT_WARM_FROM, OPT_LOCK },
	  .message = "--rate needs --warm, --warm-from or --lock" },
	{ RULE_EXCLUDES, OPT_LOCK, { OPT_EVICT, OPT_WARM, OPT_SYSTEM },
	  .message = "--lock cannot be combined with --evict, --warm or --system: --lock reads "
		     "what is missing itself (--lock --warm-from=FILE locks the snapshot's "
		     "files)" },
	{ RULE_NEEDS, OPT_LOCK_MAX, { OPT_LOCK }, .message = "--lock-max needs --lock" },
	{ RULE_NEEDS, OPT_DAEMON, { OPT_LOCK }, .message = "--daemon needs --lock" },
	{ RULE_NEEDS, OPT_NO_FOLLOW, { OPT_LOCK }, .message = "--no-follow needs --lock" },
	{ RULE_NEEDS, OPT_RESERVE, { OPT_LOCK }, .message = "--reserve needs --lock" },
	{ RULE_NEEDS, OPT_PIDFILE, { OPT_DAEMON }, .message = "--pidfile needs --daemon" },
	{ RULE_EXCLUDES, 'i', { OPT_DAEMON },
	  .message = "-i/--interval cannot be combined with --daemon: a daemon has no output to "
		     "sample to" },
	{ RULE_EXCLUDES, 'i', { OPT_EVICT, OPT_WARM, OPT_WARM_FROM },
	  .message = "-i/--interval cannot be combined with --evict, --warm or --warm-from: an "
		     "action is done once" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_FORMAT, 'o', 'i', OPT_OUTPUT_FILE },
	  .message = "--browse cannot be combined with --format, -o/--output, -i/--interval or "
		     "--output-file: it shows its own screen (i refreshes in it)" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_EVICT, OPT_WARM, OPT_WARM_FROM, OPT_RATE },
	  .message = "--browse cannot be combined with --evict, --warm, --warm-from or --rate: its "
		     "keys e and w act on what is chosen, after asking" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_LOCK },
	  .message = "--browse cannot be combined with --lock: its keys e and w act on what is "
		     "chosen" },
	{ RULE_EXCLUDES, OPT_BROWSE, { 's', OPT_TOP, OPT_OUTPUT_ALL, OPT_EXPECT_CACHED },
	  .message = "--browse cannot be combined with -s/--sort, --top, --output-all or "
		     "--expect-cached: it sorts and shows by its own keys" },
	{ RULE_EXCLUDES, OPT_BROWSE, { 'J', OPT_CSV },
	  .message = "--browse cannot be combined with -J/--json or --csv: it shows its own "
		     "screen" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_CHARGED },
	  .message = "--browse cannot be combined with --charged: it has no charged column "
		     "(pagestat --cgroup=CGROUP --charged counts them)" },
	{ RULE_NEEDS, OPT_BY, { OPT_TRACE }, .message = "--by needs --trace" },
	{ RULE_EXCLUDES, OPT_BY, { 'i' },
	  .message = "--by cannot be combined with -i/--interval yet: its rows are of the whole "
		     "trace" },
	{ RULE_NEEDS, OPT_TRACE_BUFFER, { OPT_TRACE },
	  .message = "--trace-buffer needs --trace" },
	{ RULE_EXCLUDES, OPT_TRACE, { OPT_EVICT, OPT_WARM, OPT_WARM_FROM, OPT_LOCK },
	  .message = "--trace cannot be combined with --evict, --warm, --warm-from or --lock: it "
		     "records what others do to the cache (run the action in another pagestat "
		     "while one traces)" },
	{ RULE_EXCLUDES, OPT_TRACE, { OPT_BROWSE },
	  .message = "--trace cannot be combined with --browse yet: it records for DURATION, then "
		     "shows one inspection" },
	{ RULE_CHECK, OPT_TRACE, .broken = trace_duration_apart,
	  .message = "--trace takes its DURATION after '=' (--trace=5s): the value after a space "
		     "is a FILE operand, and there is no such file" },
	{ RULE_CHECK, OPT_TRACE, .broken = trace_duration_with_interval,
	  .message = "--trace with -i/--interval takes no DURATION: it traces until interrupted "
		     "(or --count samples), each sample the motion since the one before" },
	{ RULE_NEEDS, OPT_CHARGED, { OPT_CGROUP },
	  .message = "--charged needs --cgroup: it counts the pages charged to that cgroup" },
	/* operands, --files0-from's and --pid's values: what is named */
	{ RULE_CHECK, OPT_LOCK, .broken = locks_unnamed, .message = "--lock" NEEDS_FILE },
	{ RULE_CHECK, OPT_EVICT, .broken = acts_unnamed, .message = "--evict" NEEDS_FILE },
	{ RULE_CHECK, OPT_WARM, .broken = acts_unnamed, .message = "--warm" NEEDS_FILE },
	{ RULE_ALONE, OPT_WARM_FROM, { OPT_FILES0_FROM, OPT_PID },
	  .message = "--warm-from takes its files from the snapshot: no FILE operands, "
		     "--files0-from or --pid" },
	/* values: --offset=0 is no range */
	{ RULE_CHECK, OPT_WARM_FROM, .broken = warm_from_range,
	  .message = "--warm-from reads the extents the snapshot lists: no --offset or --length" },
	/* values: which list is '-' */
	{ RULE_CHECK, OPT_WARM_FROM, .broken = warm_from_stdin_twice,
	  .message = "standard input can be read once: give '-' to --warm-from or --exclude-from, "
		     "not both" },
	{ RULE_NEEDS, OPT_REVERSE, { 's', OPT_TOP }, .message = "--reverse needs --sort or --top" },
	{ RULE_ALONE, OPT_FILES0_FROM, { 0 },
	  .message = "FILE operands cannot be combined with --files0-from" },
	{ RULE_ALONE, OPT_SYSTEM, { OPT_FILES0_FROM, OPT_PID },
	  .message = "--system inspects the whole machine: no FILE operands, --files0-from or "
		     "--pid" },
	{ RULE_EXCLUDES, OPT_SYSTEM, { OPT_EVICT, OPT_WARM, OPT_WARM_FROM },
	  .message = "--system cannot be combined with --evict, --warm or --warm-from" },
	{ RULE_ALONE, OPT_PID, { OPT_FILES0_FROM },
	  .message = "--pid cannot be combined with FILE operands or --files0-from" },
	{ RULE_EXCLUDES, OPT_CGROUP, { OPT_PID, OPT_SYSTEM }, .message = CGROUP_ALONE },
	/* --charged walks the FILE operands (or --files0-from's) */
	{ RULE_ALONE, OPT_CGROUP, { OPT_FILES0_FROM }, .message = CGROUP_ALONE,
	  .unless = OPT_CHARGED },
	{ RULE_EXCLUDES, OPT_CGROUP, { OPT_EVICT, OPT_WARM, OPT_WARM_FROM, OPT_LOCK },
	  .message = "--cgroup cannot be combined with --evict, --warm, --warm-from or --lock" },
	/* operands: with --charged, FILE operands are walked, as a tree is */
	{ RULE_CHECK, OPT_CGROUP, .broken = cgroup_depth,
	  .message = "--cgroup has a row per file and per cgroup: no -d/--max-depth" },
	/* values: which lists are '-' */
	{ RULE_CHECK, 0, .broken = lists_stdin_twice,
	  .message = "standard input can be read once: give '-' to one --files0-from or "
		     "--exclude-from only" },
};

const size_t rule_count = sizeof option_rules / sizeof option_rules[0];

const struct opt_spec *opt_by_key(int key)
{
	for (size_t i = 0; i < option_count; i++)
		if (option_table[i].key == key)
			return &option_table[i];
	return NULL;
}
