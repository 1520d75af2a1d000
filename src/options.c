/* SPDX-License-Identifier: MIT */
/* The command line: read by the option table (optable.h), each value
 * checked as it is met, then the options together; the lists read with
 * the user's own rights. */
#include <config.h>

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caps.h"
#include "escape.h"
#include "format.h"
#include "jobs.h"
#include "msg.h"
#include "optable.h"
#include "outfile.h"
#include "status.h"
#include "userfile.h"
#include "xalloc.h"

/* Limits, written so that the texts can say them (STR): the parser
 * checks the same constants. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define COUNT_MAX 2147483647 /* INT_MAX */
#define SEGMENTS_MAX 4096
#define SYSTEM_TOP 20
#define INTERVAL_MIN 0.001

#define SIZE_EXPECTED "a size in bytes such as 4096, 64K, 1MiB or 10GB, below 2^64"

/* What the parse keeps besides struct options, and what the lists read
 * hold until options_free. */
struct options_state {
	bool given[64]; /* by the option's index in option_table */
	const char *output_list; /* -o, resolved once the format is known */
	bool output_all;
	const char *offset, *length; /* as given, for the message on their sum */
	const char *files0_from;
	const char **exclude_files; /* --exclude-from */
	size_t nexclude_files;
	int noperands;
	char **texts; /* what the lists held */
	size_t ntexts;
	char **names; /* --files0-from's operands, pointing into texts */
};

/* The array with room for element n + 1, n elements being held: the room
 * doubles each time n reaches a power of two. */
static void *grow(void *array, size_t n, size_t size)
{
	if (n & (n - 1))
		return array;
	return xreallocarray(array, n ? 2 * n : 1, size);
}

/* ---- the values ------------------------------------------------------ */

/* A non-negative decimal integer, nothing else. */
static bool parse_count(const char *s, long *out)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

/* A plain decimal number, "12", "12.5" or ".5": no sign, exponent, hex,
 * inf or nan, which strtod would take. */
static bool parse_decimal(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789");
	const char *rest = s + digits;
	if (*rest == '.') {
		size_t fraction = strspn(rest + 1, "0123456789");
		digits += fraction;
		rest += 1 + fraction;
	}
	if (digits == 0 || *rest)
		return false;
	*out = strtod(s, NULL);
	return true;
}

/* "50M" or "50M/s" (the "/s" in any case): a size above 0, per second. */
static bool parse_rate(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	char value[64];

	if (len >= 2 && strcasecmp(s + len - 2, "/s") == 0)
		len -= 2;
	if (len == 0 || len >= sizeof value)
		return false;
	memcpy(value, s, len);
	value[len] = '\0';
	return fmt_parse_size(value, out) && *out > 0;
}

static bool parse_name(const char *s, const struct opt_name *names, int *out)
{
	/* any case: --format=JSON is no less clear */
	for (; names->name; names++)
		if (strcasecmp(s, names->name) == 0) {
			*out = names->value;
			return true;
		}
	return false;
}

/* "a whole number from 1 to 4096" and the like: what the entry's
 * message says was expected, from the limits the parser checks. */
static const char *expected_text(const struct opt_spec *o)
{
	static char text[512];

	switch (o->kind) {
	case OK_WHOLE:
	case OK_DECIMAL:
		snprintf(text, sizeof text, "%s from %.15g to %.15g%s", o->expected, o->min, o->max,
			 o->example ? o->example : "");
		return text;
	case OK_NAME: {
		/* "auto, cachestat or mincore" */
		size_t len = 0, n = 0;
		while (o->names[n].name)
			n++;
		for (size_t i = 0; i < n && len < sizeof text; i++)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
						i == 0 ? "" : i + 1 == n ? " or " : ", ",
						o->names[i].name);
		return text;
	}
	default:
		return o->expected;
	}
}

static int tell_bad_value(const char *option, const char *value, const char *expected)
{
	msg("invalid value for %s: ", option);
	/* a value from the command line may hold anything */
	msg_name_str(value);
	msg_more(" (expected %s)\n", expected);
	msg_try_help();
	return STATUS_USAGE;
}

/* ---- the options that read their own values ------------------------- */

static void add_exclude(struct options *opts, const char *glob)
{
	opts->excludes = grow(opts->excludes, opts->nexcludes, sizeof *opts->excludes);
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
	add_exclude(opts, arg);
	return NULL;
}

static const char *parse_exclude_from(const char *arg, struct options *opts,
				      struct options_state *st)
{
	(void)opts;
	st->exclude_files = grow(st->exclude_files, st->nexclude_files, sizeof *st->exclude_files);
	st->exclude_files[st->nexclude_files++] = arg;
	return NULL;
}

static const char *parse_pid(const char *arg, struct options *opts, struct options_state *st)
{
	long pid;

	(void)st;
	if (!parse_count(arg, &pid) || pid < 1)
		return "a process ID, a whole number from 1 to " STR(COUNT_MAX);
	opts->pids = grow(opts->pids, opts->npids, sizeof *opts->pids);
	opts->pids[opts->npids++] = (pid_t)pid;
	return NULL;
}

static const char *parse_cgroup(const char *arg, struct options *opts, struct options_state *st)
{
	(void)st;
	if (!*arg)
		return "a cgroup: a path under a cgroup mount, one relative to it, or self";
	opts->cgroups = grow(opts->cgroups, opts->ncgroups, sizeof *opts->cgroups);
	opts->cgroups[opts->ncgroups++] = arg;
	return NULL;
}

static const char *parse_jobs(const char *arg, struct options *opts, struct options_state *st)
{
	long count;

	(void)st;
	if (strcasecmp(arg, "auto") == 0)
		opts->jobs = 0;
	else if (parse_count(arg, &count) && count >= 1 && count <= JOBS_MAX)
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
	if (!parse_decimal(arg, &opts->expect_cached) || opts->expect_cached > 100)
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

/* -j's words, for the completions (any number from 1 is taken too) */
static const struct opt_name job_counts[] = {
	{ "auto", 0, "the processors, once a walk passes " STR(JOBS_AUTO_AFTER) " files (default)" },
	{ "1", 1, "the walking thread alone" },
	{ NULL, 0, NULL },
};

#define IN(member) offsetof(struct options, member)
#define IN_STATE(member) .in_state = true, .offset = offsetof(struct options_state, member)

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

/* In --help's order. */
const struct opt_spec option_table[] = {
	/* Rows */
	{ 'a', "all", ARG_NONE, NULL, GROUP_ROWS,
	  "also a row for every file inside directories",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(all), .value = 1 },
	{ 'd', "max-depth", ARG_REQUIRED, "N", GROUP_ROWS,
	  "also a row for every directory down to depth N\n"
	  "(FILE is depth 0); with -a, files down to N too",
	  "also a row for every directory down to depth N",
	  OK_WHOLE, STORE_LONG, .offset = IN(max_depth), .min = 0, .max = COUNT_MAX,
	  .expected = "a whole number", .hint = "depth (0 = the operands only)" },
	{ 'c', "total", ARG_NONE, NULL, GROUP_ROWS,
	  "add a grand-total row (table and CSV)",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(total), .value = 1 },
	{ 's', "sort", ARG_REQUIRED, "KEY", GROUP_ROWS,
	  "order rows by a column (numbers largest first,\n"
	  "path and type A-Z); default: walk order",
	  "order rows by a column (numbers largest first)",
	  OK_CUSTOM, .parse = parse_sort, .complete = COMPLETE_SORT_KEY },
	{ OPT_REVERSE, "reverse", ARG_NONE, NULL, GROUP_ROWS,
	  "reverse the order of --sort or --top",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(reverse), .value = 1 },
	{ OPT_TOP, "top", ARG_REQUIRED, "N", GROUP_ROWS,
	  "only the N rows first in --sort order (by\n"
	  "cached when no --sort); with -a, files only",
	  "only the N first rows in sort order (by cached without --sort)",
	  OK_WHOLE, STORE_U64, .offset = IN(top), .min = 1, .max = COUNT_MAX,
	  .expected = "a whole number", .hint = "number of rows (from 1)" },
	/* Walk */
	{ 'P', "no-dereference", ARG_NONE, NULL, GROUP_WALK,
	  "follow no symbolic link, not even one named as FILE",
	  NULL,
	  OK_SET, STORE_INT, .offset = IN(follow), .value = FOLLOW_NONE },
	{ 'H', "dereference-args", ARG_NONE, NULL, GROUP_WALK,
	  "follow symbolic links named as FILE (also names\n"
	  "read with --files0-from), no others (default)",
	  "follow symbolic links named as FILE, no others (default)",
	  OK_SET, STORE_INT, .offset = IN(follow), .value = FOLLOW_ARGS },
	{ 'L', "dereference", ARG_NONE, NULL, GROUP_WALK,
	  "follow every symbolic link",
	  NULL,
	  OK_SET, STORE_INT, .offset = IN(follow), .value = FOLLOW_ALL },
	{ 'x', "one-file-system", ARG_NONE, NULL, GROUP_WALK,
	  "do not descend into other file systems",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(one_file_system), .value = 1 },
	{ 'l', "count-links", ARG_NONE, NULL, GROUP_WALK,
	  "count a hard-linked file each time it is met\n"
	  "(default: once per run)",
	  "count a hard-linked file each time it is met",
	  OK_SET, STORE_BOOL, .offset = IN(count_links), .value = 1 },
	{ OPT_EXCLUDE, "exclude", ARG_REQUIRED, "GLOB", GROUP_WALK,
	  "skip files and directories whose name or path\n"
	  "matches GLOB (may be repeated)",
	  "skip files and directories whose name or path matches GLOB",
	  OK_CUSTOM, .parse = parse_exclude, .hint = "glob pattern", .repeats = true },
	{ OPT_EXCLUDE_FROM, "exclude-from", ARG_REQUIRED, "FILE", GROUP_WALK,
	  "skip what matches any glob in FILE, one a line\n"
	  "(- reads standard input)",
	  "skip what matches any glob in FILE, one a line",
	  OK_CUSTOM, .parse = parse_exclude_from, .complete = COMPLETE_FILE,
	  .hint = "file of glob patterns", .repeats = true },
	{ OPT_FILES0_FROM, "files0-from", ARG_REQUIRED, "FILE", GROUP_WALK,
	  "inspect the NUL-separated names in FILE\n"
	  "(- reads standard input) instead of FILE operands",
	  "inspect the NUL-separated names in FILE instead of operands",
	  OK_TEXT, STORE_TEXT, IN_STATE(files0_from), .complete = COMPLETE_FILE,
	  .hint = "file of NUL-separated names (- for standard input)", .names_files = true },
	{ OPT_PID, "pid", ARG_REQUIRED, "PID", GROUP_WALK,
	  "inspect the regular files process PID maps or\n"
	  "holds open, a row each (may be repeated), instead\n"
	  "of FILE operands",
	  "inspect the files process PID maps or holds open",
	  OK_CUSTOM, .parse = parse_pid, .complete = COMPLETE_PID, .hint = "process ID",
	  .repeats = true, .names_files = true },
	{ OPT_SYSTEM, "system", ARG_NONE, NULL, GROUP_WALK,
	  "what fills this machine's page cache: every file\n"
	  "system once, files deleted but open, block\n"
	  "devices; the top " STR(SYSTEM_TOP) " files (--top), a row per file\n"
	  "system, and the share of the kernel's Cached and\n"
	  "Buffers found",
	  "what fills the whole machine's page cache",
	  OK_SET, STORE_BOOL, .offset = IN(system), .value = 1, .names_files = true },
	{ OPT_CGROUP, "cgroup", ARG_REQUIRED, "CGROUP", GROUP_WALK,
	  "inspect the files the processes of memory cgroup\n"
	  "CGROUP (and of those below it) map or hold open,\n"
	  "a row each, its memory.stat figures and the share\n"
	  "of its file pages found (may be repeated), instead\n"
	  "of FILE operands; CGROUP is a path under a cgroup\n"
	  "mount, one relative to it, or self",
	  "inspect a memory cgroup's processes' files and figures",
	  OK_CUSTOM, .parse = parse_cgroup, .complete = COMPLETE_CGROUP,
	  .hint = "cgroup", .repeats = true, .names_files = true },
	{ OPT_CHARGED, "charged", ARG_NONE, NULL, GROUP_WALK,
	  "with --cgroup: a charged column, the cached pages\n"
	  "of each file charged to the cgroup or one below\n"
	  "it (/proc/kpagecgroup; root only); FILE operands\n"
	  "are then walked instead of its processes' files",
	  "count each file's cached pages charged to the --cgroup",
	  OK_SET, STORE_BOOL, .offset = IN(charged), .value = 1 },
	{ OPT_METHOD, "method", ARG_REQUIRED, "METHOD", GROUP_WALK,
	  "auto (default), cachestat or mincore",
	  "how to ask the kernel",
	  OK_NAME, STORE_INT, .offset = IN(method), .names = methods,
	  .complete = COMPLETE_NAMES, .hint = "method" },
	{ 'j', "jobs", ARG_REQUIRED, "N", GROUP_WALK,
	  "N threads open and measure files while one walks\n"
	  "(auto, the default: the processors, once a walk\n"
	  "passes " STR(JOBS_AUTO_AFTER) " files; or 1 to " STR(JOBS_MAX) "); output as with 1",
	  "threads that open and measure files while one walks (auto, 1 to " STR(JOBS_MAX) ")",
	  OK_CUSTOM, .parse = parse_jobs, .names = job_counts, .complete = COMPLETE_NAMES,
	  .hint = "threads" },
	/* Range */
	{ OPT_OFFSET, "offset", ARG_REQUIRED, "SIZE", GROUP_RANGE,
	  "inspect each file from byte SIZE on",
	  NULL,
	  OK_CUSTOM, .parse = parse_offset, .hint = "size (bytes, or 64K, 1MiB, 10GB)" },
	{ OPT_LENGTH, "length", ARG_REQUIRED, "SIZE", GROUP_RANGE,
	  "inspect at most SIZE bytes (default: to the end)",
	  "inspect at most SIZE bytes (0: to the end)",
	  OK_CUSTOM, .parse = parse_length, .hint = "size (bytes, or 64K, 1MiB, 10GB)" },
	{ 'S', "segments", ARG_REQUIRED, "N", GROUP_RANGE,
	  "split each file's range into N equal parts (1 to\n"
	  STR(SEGMENTS_MAX) ") and show the cached share of each",
	  "split each range into N parts and show the cached share of each",
	  OK_WHOLE, STORE_UNSIGNED, .offset = IN(segments), .min = 1, .max = SEGMENTS_MAX,
	  .expected = "a whole number", .hint = "number of parts (1 to " STR(SEGMENTS_MAX) ")" },
	{ 'e', "extents", ARG_OPTIONAL, "WHICH", GROUP_RANGE,
	  "list each file's cached byte extents, START-END;\n"
	  "--extents=missing (or -emissing) the missing ones",
	  "list the cached byte extents (=missing: the missing ones)",
	  OK_NAME, STORE_INT, .offset = IN(extents), .names = extent_modes,
	  .value = EXTENTS_CACHED, .complete = COMPLETE_NAMES, .hint = "which extents" },
	/* Output */
	{ OPT_FORMAT, "format", ARG_REQUIRED, "FORMAT", GROUP_OUTPUT,
	  "table (default), csv, json, ndjson or prometheus",
	  "output format",
	  OK_NAME, STORE_INT, .offset = IN(format), .names = formats,
	  .complete = COMPLETE_NAMES, .hint = "format" },
	{ 'J', "json", ARG_NONE, NULL, GROUP_OUTPUT,
	  "same as --format=json",
	  NULL,
	  OK_SET, STORE_INT, .offset = IN(format), .value = FORMAT_JSON },
	{ OPT_CSV, "csv", ARG_NONE, NULL, GROUP_OUTPUT,
	  "same as --format=csv",
	  NULL,
	  OK_SET, STORE_INT, .offset = IN(format), .value = FORMAT_CSV },
	{ 'o', "output", ARG_REQUIRED, "LIST", GROUP_OUTPUT,
	  "columns to show, comma-separated, in that order;\n"
	  "+LIST adds to the default columns",
	  "columns to show, comma-separated (+LIST adds to the defaults)",
	  OK_CUSTOM, .parse = parse_output, .complete = COMPLETE_COLUMNS, .hint = "column list",
	  /* it clears --output-all's field: the last one wins */
	  .store = STORE_BOOL, IN_STATE(output_all) },
	{ OPT_OUTPUT_ALL, "output-all", ARG_NONE, NULL, GROUP_OUTPUT,
	  "show every column",
	  NULL,
	  OK_SET, STORE_BOOL, IN_STATE(output_all), .value = 1 },
	{ 'b', "bytes", ARG_NONE, NULL, GROUP_OUTPUT,
	  "exact bytes instead of 1.5G in the table",
	  NULL,
	  OK_SET, STORE_INT, .offset = IN(unit), .value = UNIT_BYTES },
	{ 'p', "pages", ARG_NONE, NULL, GROUP_OUTPUT,
	  "page counts for the page columns in the table",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(counters_in_pages), .value = 1 },
	{ 'n', "noheadings", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no header line (table and CSV)",
	  NULL,
	  OK_SET, STORE_BOOL, .offset = IN(headings), .value = 0 },
	{ OPT_OUTPUT_FILE, "output-file", ARG_REQUIRED, "FILE", GROUP_OUTPUT,
	  "write to FILE, replaced only once complete",
	  NULL,
	  OK_CUSTOM, .parse = parse_output_file, .complete = COMPLETE_FILE,
	  .hint = "output file" },
	{ 'q', "quiet", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no per-file error messages (still counted)",
	  "no per-file error messages",
	  OK_SET, STORE_BOOL, .offset = IN(quiet), .value = 1 },
	{ OPT_PROGRESS, "progress", ARG_NONE, NULL, GROUP_OUTPUT,
	  "a progress line on stderr from the start, when it\n"
	  "is a terminal (default: after about a second)",
	  "show the progress line on a terminal from the start",
	  OK_SET, STORE_INT, .offset = IN(progress), .value = PROGRESS_ALWAYS },
	{ OPT_NO_PROGRESS, "no-progress", ARG_NONE, NULL, GROUP_OUTPUT,
	  "no progress line",
	  "never show the progress line",
	  OK_SET, STORE_INT, .offset = IN(progress), .value = PROGRESS_NEVER },
	{ OPT_EXPECT_CACHED, "expect-cached", ARG_REQUIRED, "PERCENT", GROUP_OUTPUT,
	  "exit with status 4 when less than PERCENT (0 to\n"
	  "100, decimals allowed) of all pages are cached,\n"
	  "or when no page at all was counted",
	  "exit with status 4 when less than PERCENT of the pages are cached",
	  OK_CUSTOM, .parse = parse_expect_cached, .hint = "percentage (0 to 100)" },
	{ OPT_BROWSE, "browse", ARG_NONE, NULL, GROUP_OUTPUT,
	  "explore the inspection full-screen, one directory\n"
	  "at a time, sorted by cached (keys: ? in it); needs\n"
	  "a terminal",
	  "explore the page cache full-screen, one directory at a time",
	  OK_SET, STORE_BOOL, .offset = IN(browse), .value = 1 },
	/* Watch */
	{ 'i', "interval", ARG_REQUIRED, "SECONDS", GROUP_WATCH,
	  "inspect again every SECONDS (" STR(INTERVAL_MIN) " or more,\n"
	  "fractions allowed) until interrupted; each sample\n"
	  "has its time, and the delta column the change\n"
	  "in cached pages since the sample before",
	  "inspect again every SECONDS until interrupted",
	  OK_DECIMAL, STORE_DOUBLE, .offset = IN(interval), .min = INTERVAL_MIN, .max = COUNT_MAX,
	  .expected = "a number of seconds", .example = ", such as 2 or 0.5",
	  .hint = "seconds (" STR(INTERVAL_MIN) " or more, such as 2 or 0.5)" },
	{ OPT_COUNT, "count", ARG_REQUIRED, "N", GROUP_WATCH,
	  "with -i: stop after N samples",
	  NULL,
	  OK_WHOLE, STORE_U64, .offset = IN(count), .min = 1, .max = COUNT_MAX,
	  .expected = "a whole number", .hint = "number of samples (from 1)" },
	/* Actions */
	{ OPT_EVICT, "evict", ARG_NONE, NULL, GROUP_ACTIONS,
	  "drop the clean cached pages of each file's range",
	  NULL,
	  .kind = OK_GIVEN },
	{ OPT_WARM, "warm", ARG_NONE, NULL, GROUP_ACTIONS,
	  "read the missing pages of each file's range into\n"
	  "the cache (cached pages are not read again)",
	  "read the missing pages of each file's range into the cache",
	  .kind = OK_GIVEN },
	{ OPT_WARM_FROM, "warm-from", ARG_REQUIRED, "FILE", GROUP_ACTIONS,
	  "read the extents a snapshot lists back into the\n"
	  "cache: FILE (- reads standard input) is what\n"
	  "pagestat -a -e wrote as JSON or ndjson",
	  "read the extents a snapshot lists back into the cache",
	  OK_TEXT, STORE_TEXT, .offset = IN(warm_from), .complete = COMPLETE_FILE,
	  .hint = "snapshot (pagestat -a -e output, - for standard input)", .names_files = true },
	{ OPT_RATE, "rate", ARG_REQUIRED, "SIZE", GROUP_ACTIONS,
	  "with a warm or --lock: read at most SIZE bytes a\nsecond",
	  NULL,
	  OK_RATE, STORE_U64, .offset = IN(rate),
	  .expected = "bytes a second above 0, such as 50M, 1G or 200MB/s",
	  .hint = "bytes a second (50M, 200MB/s)" },
	{ OPT_LOCK, "lock", ARG_NONE, NULL, GROUP_ACTIONS,
	  "read the missing pages of each file's range and\n"
	  "lock the range in memory, then hold it until\n"
	  "SIGINT or SIGTERM (see LOCKING in pagestat(1))",
	  "lock each file's range in memory until interrupted",
	  OK_SET, STORE_BOOL, .offset = IN(lock), .value = 1 },
	{ OPT_LOCK_MAX, "lock-max", ARG_REQUIRED, "SIZE", GROUP_ACTIONS,
	  "with --lock: lock files in walk order until SIZE\n"
	  "is locked; the rest is left out (and told)",
	  "with --lock: lock at most SIZE bytes, in walk order",
	  OK_CUSTOM, .parse = parse_lock_max, .hint = "size (64M, 1GiB, 10GB)" },
	{ OPT_RESERVE, "reserve", ARG_REQUIRED, "SIZE|PERCENT%", GROUP_ACTIONS,
	  "with --lock: keep SIZE (or PERCENT% of memory)\n"
	  "available, unlocking the last files locked while\n"
	  "less is, locking them again once more is",
	  "with --lock: keep SIZE or PERCENT% of memory available",
	  OK_CUSTOM, .parse = parse_reserve, .hint = "size or percentage (512M, 10%)" },
	{ OPT_NO_FOLLOW, "no-follow", ARG_NONE, NULL, GROUP_ACTIONS,
	  "with --lock: do not follow the files as they\n"
	  "change (grow, shrink, are replaced, new, deleted)",
	  "with --lock: do not follow the files as they change",
	  OK_SET, STORE_BOOL, .offset = IN(no_follow), .value = 1 },
	{ OPT_DAEMON, "daemon", ARG_NONE, NULL, GROUP_ACTIONS,
	  "with --lock: detach once everything is locked\n"
	  "(every error is told first)",
	  "with --lock: detach once everything is locked",
	  OK_SET, STORE_BOOL, .offset = IN(daemon), .value = 1 },
	{ OPT_PIDFILE, "pidfile", ARG_REQUIRED, "FILE", GROUP_ACTIONS,
	  "with --daemon: write the daemon's pid to FILE\n"
	  "(removed when it ends)",
	  "with --daemon: write the daemon's pid to FILE",
	  OK_TEXT, STORE_TEXT, .offset = IN(pidfile), .complete = COMPLETE_FILE,
	  .hint = "pid file" },
	/* --help, --version */
	{ 'h', "help", ARG_NONE, NULL, GROUP_INFO,
	  "show this help and exit",
	  "show help and exit",
	  .kind = OK_GIVEN },
	{ 'V', "version", ARG_NONE, NULL, GROUP_INFO,
	  "show the version, the method the kernel offers\n"
	  "and the capabilities held, and exit",
	  "show version, method and capabilities, and exit",
	  .kind = OK_GIVEN },
};

const size_t option_count = sizeof option_table / sizeof option_table[0];

_Static_assert(sizeof option_table / sizeof option_table[0] <=
		       sizeof ((struct options_state *)0)->given,
	       "options_state.given has room for every option");

/* The rules that need no value and no operand, in the order they are
 * checked; options.c's check_combinations holds the others, around them. */
const struct opt_rule option_rules[] = {
	{ RULE_ONE_OF, OPT_EVICT, { OPT_WARM, OPT_WARM_FROM },
	  "--evict, --warm and --warm-from exclude each other: give one of them" },
	{ RULE_NEEDS, OPT_RATE, { OPT_WARM, OPT_WARM_FROM, OPT_LOCK },
	  "--rate needs --warm, --warm-from or --lock" },
	{ RULE_EXCLUDES, OPT_LOCK, { OPT_EVICT, OPT_WARM, OPT_SYSTEM },
	  "--lock cannot be combined with --evict, --warm or --system: --lock reads what is "
	  "missing itself (--lock --warm-from=FILE locks the snapshot's files)" },
	{ RULE_NEEDS, OPT_LOCK_MAX, { OPT_LOCK },
	  "--lock-max needs --lock" },
	{ RULE_NEEDS, OPT_DAEMON, { OPT_LOCK },
	  "--daemon needs --lock" },
	{ RULE_NEEDS, OPT_NO_FOLLOW, { OPT_LOCK },
	  "--no-follow needs --lock" },
	{ RULE_NEEDS, OPT_RESERVE, { OPT_LOCK },
	  "--reserve needs --lock" },
	{ RULE_NEEDS, OPT_PIDFILE, { OPT_DAEMON },
	  "--pidfile needs --daemon" },
	{ RULE_EXCLUDES, 'i', { OPT_DAEMON },
	  "-i/--interval cannot be combined with --daemon: a daemon has no output to sample to" },
	{ RULE_EXCLUDES, 'i', { OPT_EVICT, OPT_WARM, OPT_WARM_FROM },
	  "-i/--interval cannot be combined with --evict, --warm or --warm-from: an action is "
	  "done once" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_FORMAT, 'o', 'i', OPT_OUTPUT_FILE },
	  "--browse cannot be combined with --format, -o/--output, -i/--interval or "
	  "--output-file: it shows its own screen (i refreshes in it)" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_EVICT, OPT_WARM, OPT_WARM_FROM, OPT_RATE },
	  "--browse cannot be combined with --evict, --warm, --warm-from or --rate: "
	  "its keys e and w act on what is chosen, after asking" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_LOCK },
	  "--browse cannot be combined with --lock: its keys e and w act on what is chosen" },
	{ RULE_EXCLUDES, OPT_BROWSE, { 's', OPT_TOP, OPT_OUTPUT_ALL, OPT_EXPECT_CACHED },
	  "--browse cannot be combined with -s/--sort, --top, --output-all or --expect-cached: "
	  "it sorts and shows by its own keys" },
	{ RULE_EXCLUDES, OPT_BROWSE, { 'J', OPT_CSV },
	  "--browse cannot be combined with -J/--json or --csv: it shows its own screen" },
	{ RULE_EXCLUDES, OPT_BROWSE, { OPT_CHARGED },
	  "--browse cannot be combined with --charged: it has no charged column (pagestat "
	  "--cgroup=CGROUP --charged counts them)" },
	{ RULE_NEEDS, OPT_CHARGED, { OPT_CGROUP },
	  "--charged needs --cgroup: it counts the pages charged to that cgroup" },
};

const size_t rule_count = sizeof option_rules / sizeof option_rules[0];

const struct opt_spec *opt_by_key(int key)
{
	for (size_t i = 0; i < option_count; i++)
		if (option_table[i].key == key)
			return &option_table[i];
	return NULL;
}

static bool given(const struct options_state *st, int key)
{
	const struct opt_spec *o = opt_by_key(key);
	return o && st->given[o - option_table];
}

/* The value of option o, arg, into its field; NULL, or what a good value
 * would have been. */
static const char *take_value(const struct opt_spec *o, const char *arg, struct options *opts,
			      struct options_state *st)
{
	char *field = (o->in_state ? (char *)st : (char *)opts) + o->offset;
	long long whole = 0;
	long count;
	double number = 0;
	uint64_t size = 0;
	int name = 0;

	switch (o->kind) {
	case OK_SET:
		whole = o->value;
		break;
	case OK_GIVEN:
		return NULL;
	case OK_WHOLE:
		if (!parse_count(arg, &count) || (double)count < o->min || (double)count > o->max)
			return expected_text(o);
		whole = count;
		break;
	case OK_SIZE:
		if (!fmt_parse_size(arg, &size))
			return expected_text(o);
		whole = (long long)size;
		break;
	case OK_RATE:
		if (!parse_rate(arg, &size))
			return expected_text(o);
		break;
	case OK_NAME:
		name = (int)o->value;
		if (arg && !parse_name(arg, o->names, &name))
			return expected_text(o);
		whole = name;
		break;
	case OK_DECIMAL:
		if (!parse_decimal(arg, &number) || number < o->min || number > o->max)
			return expected_text(o);
		break;
	case OK_TEXT:
		break;
	case OK_CUSTOM:
		return o->parse(arg, opts, st);
	}
	switch (o->store) {
	case STORE_NONE:
		break;
	case STORE_BOOL:
		*(bool *)(void *)field = whole != 0;
		break;
	case STORE_INT:
		*(int *)(void *)field = (int)whole;
		break;
	case STORE_UNSIGNED:
		*(unsigned *)(void *)field = (unsigned)whole;
		break;
	case STORE_LONG:
		*(long *)(void *)field = (long)whole;
		break;
	case STORE_U64:
		*(uint64_t *)(void *)field = o->kind == OK_RATE ? size : (uint64_t)whole;
		break;
	case STORE_DOUBLE:
		*(double *)(void *)field = number;
		break;
	case STORE_TEXT:
		*(const char **)(void *)field = arg;
		break;
	}
	return NULL;
}

/* ---- --help and --version -------------------------------------------- */

/* "  -d, --max-depth=N" and its help, the lines after the first indented
 * as --help aligns them (the help from column 26, below a long name). */
static void usage_option(FILE *out, const struct opt_spec *o)
{
	char left[64];
	int len = o->key < UCHAR_MAX ? snprintf(left, sizeof left, "  -%c, --%s", o->key, o->long_name)
				     : snprintf(left, sizeof left, "      --%s", o->long_name);
	if (o->arg == ARG_REQUIRED)
		len += snprintf(left + len, sizeof left - (size_t)len, "=%s", o->metavar);
	else if (o->arg == ARG_OPTIONAL)
		len += snprintf(left + len, sizeof left - (size_t)len, "[=%s]", o->metavar);
	fputs(left, out);
	if (len < 26)
		fprintf(out, "%*s", 26 - len, "");
	else
		fprintf(out, "\n%26s", "");
	for (const char *line = o->help;;) {
		const char *nl = strchrnul(line, '\n');
		fwrite(line, 1, (size_t)(nl - line), out);
		fputc('\n', out);
		if (!*nl)
			break;
		line = nl + 1;
		fprintf(out, "%26s", "");
	}
}

static void usage(FILE *out)
{
	fputs("Usage: pagestat [OPTION]... [FILE]...\n"
	      "Show how much of each FILE (the current directory by default) is in the\n"
	      "page cache: cached, dirty, under writeback, evicted and recently evicted.\n"
	      "A directory's row is the total of every regular file below it.\n",
	      out);
	for (int g = 0; g < GROUP_COUNT; g++) {
		fputc('\n', out);
		if (opt_groups[g].title)
			fprintf(out, "%s\n", opt_groups[g].title);
		for (size_t i = 0; i < option_count; i++)
			if (option_table[i].group == (enum opt_group)g)
				usage_option(out, &option_table[i]);
		if (opt_groups[g].trailer)
			fputs(opt_groups[g].trailer, out);
	}
	columns_usage(out);
	fputs("\nCSV and JSON always hold exact integers: pages, and bytes in the\n"
	      "NAME_bytes twin of each page column.  Unknown counters (--method=mincore\n"
	      "knows only cached pages) are '-' in the table, empty in CSV, null in JSON.\n"
	      "\n"
	      "Exit status: 0 every file inspected; 1 some could not be; 2 usage error;\n"
	      "3 fatal (output failed, or no method usable); 4 --expect-cached not met.\n",
	      out);
}

static void version(void)
{
	const char *why;
	struct probe_setup setup;

	printf("pagestat %s\n", PACKAGE_VERSION);
	fputs("Copyright (c) 2026 the pagestat authors\n"
	      "License MIT (Expat) <https://spdx.org/licenses/MIT.html>; there is NO WARRANTY.\n",
	      stdout);
	if (probe_init(PROBE_AUTO, &setup, &why) == 0) {
		printf("method: %s", probe_method_name(setup.method));
		if (setup.fallback_errno)
			printf(" (cachestat unavailable: %s)", strerror(setup.fallback_errno));
		putchar('\n');
	} else {
		printf("method: none (%s)\n", why);
	}
	probe_setup_free(&setup);
	printf("capabilities: %s\n", caps_describe());
}

/* ---- the parse --------------------------------------------------------- */

/* getopt_long's table and short options, made from option_table. */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t n = 0;

	for (size_t i = 0; i < option_count; i++) {
		const struct opt_spec *o = &option_table[i];
		longs[i] = (struct option){
			o->long_name,
			o->arg == ARG_NONE ? no_argument
			: o->arg == ARG_REQUIRED ? required_argument : optional_argument,
			NULL, o->key,
		};
		if (o->key >= UCHAR_MAX)
			continue;
		shorts[n++] = (char)o->key;
		if (o->arg != ARG_NONE)
			shorts[n++] = ':';
		if (o->arg == ARG_OPTIONAL)
			shorts[n++] = ':';
	}
	longs[option_count] = (struct option){ NULL, 0, NULL, 0 };
	shorts[n] = '\0';
}

int options_parse(int argc, char **argv, struct options *opts)
{
	static char *dot[] = { ".", NULL };
	struct options_state *st = xcalloc(1, sizeof *st);
	struct option longs[sizeof option_table / sizeof option_table[0] + 1];
	char shorts[3 * sizeof option_table / sizeof option_table[0] + 1];
	int key;

	*opts = (struct options){
		.headings = true,
		.max_depth = -1,
		/* a link named as FILE has no page cache of its own: who
		 * names /var/lib/mysql means the data */
		.follow = FOLLOW_ARGS,
		.method = PROBE_AUTO,
		.format = FORMAT_TABLE,
		.unit = UNIT_HUMAN,
		.sort_key = -1,
		.jobs = 0, /* auto */
		.expect_cached = -1,
		.state = st,
		.operands = dot,
	};
	st->offset = "0";
	st->length = "0";
	getopt_tables(longs, shorts);
	/* getopt's own messages start with argv[0]; ours with "pagestat". */
	argv[0] = (char *)"pagestat";
	/* each option in turn: the first problem, --help or --version ends
	 * the parse, told at once */
	while ((key = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt_spec *o = opt_by_key(key);
		if (!o) {
			msg_try_help(); /* after getopt's own message */
			return STATUS_USAGE;
		}
		st->given[o - option_table] = true;
		if (key == 'h') {
			usage(stdout);
			return STATUS_OK;
		}
		if (key == 'V') {
			version();
			return STATUS_OK;
		}
		const char *expected = take_value(o, optarg, opts, st);
		if (expected) {
			char name[64];
			snprintf(name, sizeof name, "--%s", o->long_name);
			return tell_bad_value(name, optarg, expected);
		}
	}
	st->noperands = argc - optind;
	if (optind < argc)
		opts->operands = argv + optind;
	return OPTIONS_RUN;
}

/* --system: the file systems' type (before PATH in the table), and in
 * the other formats why one was not walked, after backing (the table
 * puts that note after the path: a column would be empty on all but a
 * few rows). */
static void add_system_columns(struct options *opts, bool table)
{
	enum column_id *ids = opts->columns;
	size_t n = opts->ncolumns, at = n;

	for (size_t i = 0; i < n; i++)
		if ((table && ids[i] == COL_PATH) || (!table && ids[i] == COL_BACKING))
			at = table ? i : i + 1;
	size_t add = table ? 1 : 2;
	memmove(ids + at + add, ids + at, (n - at) * sizeof *ids);
	ids[at] = COL_FSTYPE;
	if (!table)
		ids[at + 1] = COL_NOTE;
	opts->ncolumns = n + add;
}

static int usage_error(const char *message);

/* Prometheus: does one of the columns make a family? */
static bool any_family(const struct options *opts)
{
	for (size_t i = 0; i < opts->ncolumns; i++)
		if (columns[opts->columns[i]].prom_help)
			return true;
	return false;
}

/* Has the run what a column needs (columns[].need)? */
static bool need_met(enum column_need need, const struct options *opts)
{
	switch (need) {
	case NEED_NOTHING:
		return true;
	case NEED_SEGMENTS:
		return opts->segments > 0;
	case NEED_EXTENTS:
		return opts->extents != EXTENTS_NONE;
	case NEED_INTERVAL:
		return opts->interval > 0;
	case NEED_EVICT:
		return opts->action == ACTION_EVICT;
	case NEED_WARM:
		return opts->action == ACTION_WARM || opts->action == ACTION_LISTED ||
		       opts->action == ACTION_LOCK;
	case NEED_LOCK:
		return opts->action == ACTION_LOCK;
	case NEED_SYSTEM:
		return opts->system;
	case NEED_CHARGED:
		return opts->charged;
	}
	return false;
}

/* -o is resolved once the format is known, since "+LIST" extends the
 * format's defaults. */
static int resolve_columns(struct options *opts, const char *list, bool all)
{
	bool table = opts->format == FORMAT_TABLE;
	opts->ncolumns = columns_default(opts->columns, table, all, opts->segments > 0,
					 opts->extents != EXTENTS_NONE);
	if (opts->interval)
		opts->ncolumns = columns_add_delta(opts->columns, opts->ncolumns);
	/* each goes after percent: --lock's read, then locked */
	if (opts->action == ACTION_LOCK)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_LOCKED);
	if (opts->action == ACTION_EVICT)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_DROPPED);
	else if (opts->action != ACTION_NONE)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_READ);
	if (opts->system)
		add_system_columns(opts, table);
	if (opts->charged)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_CHARGED);
	if (!list || all)
		return OPTIONS_RUN;

	const char *bad;
	size_t bad_len;
	if (columns_parse(list, opts->columns, &opts->ncolumns, table, &bad, &bad_len) != 0) {
		msg("unknown column ");
		msg_name(bad, bad_len);
		msg_more(" in --output ");
		msg_name_str(list);
		msg_more(" (the columns: %s)\n", columns_names(false));
		msg_try_help();
		return STATUS_USAGE;
	}
	if (opts->format == FORMAT_PROMETHEUS && !any_family(opts))
		return usage_error("--format=prometheus: none of the columns of --output has a "
				   "Prometheus family (size, cached, dirty, writeback, evicted, "
				   "recently_evicted, files, dropped and read do)");
	for (size_t i = 0; i < opts->ncolumns; i++) {
		const struct column *col = &columns[opts->columns[i]];
		if (!need_met(col->need, opts)) {
			msg("column '%s' in --output needs %s\n", col->name, col->need_text);
			msg_try_help();
			return STATUS_USAGE;
		}
	}
	return OPTIONS_RUN;
}

static int usage_error(const char *message)
{
	msg("%s\n", message);
	msg_try_help();
	return STATUS_USAGE;
}

/* The rules of option_rules, in their order: false after telling the
 * first that fails. */
static bool rules_hold(const struct options_state *st)
{
	for (size_t i = 0; i < rule_count; i++) {
		const struct opt_rule *r = &option_rules[i];
		size_t others = 0;
		for (size_t k = 0; k < sizeof r->others / sizeof r->others[0] && r->others[k]; k++)
			others += given(st, r->others[k]);
		bool key = given(st, r->key);
		bool broken = r->kind == RULE_EXCLUDES ? key && others > 0
			      : r->kind == RULE_NEEDS ? key && others == 0
						     : key + others > 1;
		if (broken) {
			usage_error(r->message);
			return false;
		}
	}
	return true;
}

/* The action, and what it may not go with beyond option_rules: the
 * operands, and values. */
static int check_action(struct options *opts, const struct options_state *st)
{
	bool evict = given(st, OPT_EVICT), warm = given(st, OPT_WARM);
	bool lock = opts->lock;

	opts->action = evict ? ACTION_EVICT
		       : warm ? ACTION_WARM
		       : lock ? ACTION_LOCK
		       : opts->warm_from ? ACTION_LISTED : ACTION_NONE;
	if (lock && !opts->warm_from && !st->files0_from && st->noperands == 0 && !opts->npids && !opts->ncgroups)
		return usage_error("--lock needs a FILE (or --files0-from or --pid): it does not "
				   "act on the current directory unnamed; give . to mean it");
	/* what an action changes must be named: "." by default would evict
	 * a whole tree, from / a whole file system (vmtouch needs a name too) */
	if ((evict || warm) && !st->files0_from && st->noperands == 0 && !opts->npids &&
	    !opts->system && !opts->ncgroups)
		return usage_error(evict ? "--evict needs a FILE (or --files0-from or --pid): "
					   "it does not act on the current directory unnamed; "
					   "give . to mean it"
					 : "--warm needs a FILE (or --files0-from or --pid): "
					   "it does not act on the current directory unnamed; "
					   "give . to mean it");
	if (opts->warm_from && (st->files0_from || st->noperands > 0 || opts->npids))
		return usage_error("--warm-from takes its files from the snapshot: no FILE "
				   "operands, --files0-from or --pid");
	if (opts->warm_from && (opts->range.offset || opts->range.length))
		return usage_error("--warm-from reads the extents the snapshot lists: no "
				   "--offset or --length");
	if (opts->warm_from && strcmp(opts->warm_from, "-") == 0 &&
	    st->nexclude_files > 0)
		for (size_t i = 0; i < st->nexclude_files; i++)
			if (strcmp(st->exclude_files[i], "-") == 0)
				return usage_error("standard input can be read once: give '-' "
						   "to --warm-from or --exclude-from, not both");
	return OPTIONS_RUN;
}

/* Checks that need every option: run after the last one is read. */
static int check_combinations(struct options *opts, const struct options_state *st)
{
	uint64_t end;
	/* the range may end at 2^64 exactly (end wraps to 0), not past it */
	if (__builtin_add_overflow(opts->range.offset, opts->range.length, &end) && end != 0) {
		msg("--offset ");
		msg_name_str(st->offset);
		msg_more(" plus --length ");
		msg_name_str(st->length);
		msg_more(" passes 2^64 bytes, the largest offset there is\n");
		msg_try_help();
		return STATUS_USAGE;
	}
	if (opts->count && !opts->interval)
		return usage_error("--count needs -i/--interval");
	if (opts->interval && opts->format == FORMAT_PROMETHEUS && !opts->output_file)
		return usage_error("-i with --format=prometheus needs --output-file: each sample "
				   "replaces the file a textfile collector reads, where on standard "
				   "output the samples would follow each other, which no scraper "
				   "reads as one");
	if (!rules_hold(st))
		return STATUS_USAGE;
	int status = check_action(opts, st);
	if (status != OPTIONS_RUN)
		return status;
	if (opts->reverse && opts->sort_key < 0 && !opts->top)
		return usage_error("--reverse needs --sort or --top");
	if (opts->top && opts->sort_key < 0)
		opts->sort_key = COL_CACHED;
	if (st->files0_from && st->noperands > 0)
		return usage_error("FILE operands cannot be combined with --files0-from");
	if (opts->system && (st->files0_from || st->noperands > 0 || opts->npids))
		return usage_error("--system inspects the whole machine: no FILE operands, "
				   "--files0-from or --pid");
	if (opts->system && opts->action != ACTION_NONE)
		return usage_error("--system cannot be combined with --evict, --warm or "
				   "--warm-from");
	if (opts->system) {
		/* the files that hold the most, then the file systems */
		if (!opts->top)
			opts->top = SYSTEM_TOP;
		if (opts->sort_key < 0)
			opts->sort_key = COL_CACHED;
		opts->all = true;
		opts->total = true;
	}
	if (opts->npids && (st->files0_from || st->noperands > 0))
		return usage_error("--pid cannot be combined with FILE operands or --files0-from");
	if (opts->ncgroups && opts->charged && (st->files0_from || st->noperands > 0))
		opts->cgroup_walks = true; /* --charged: those trees, not the processes' files */
	else if (opts->ncgroups && (st->files0_from || st->noperands > 0 || opts->npids ||
				    opts->system))
		return usage_error("--cgroup inspects its cgroups' processes' files: no FILE "
				   "operands, --files0-from, --pid or --system (FILE operands "
				   "only with --charged)");
	if (opts->ncgroups && (opts->npids || opts->system))
		return usage_error("--cgroup cannot be combined with --pid or --system");
	if (opts->ncgroups && opts->action != ACTION_NONE)
		return usage_error("--cgroup cannot be combined with --evict, --warm, --warm-from "
				   "or --lock");
	if (opts->ncgroups && !opts->cgroup_walks && opts->max_depth >= 0)
		return usage_error("--cgroup has a row per file and per cgroup: no -d/--max-depth");
	bool stdin_taken = st->files0_from && strcmp(st->files0_from, "-") == 0;
	for (size_t i = 0; i < st->nexclude_files; i++) {
		if (strcmp(st->exclude_files[i], "-") != 0)
			continue;
		if (stdin_taken)
			return usage_error("standard input can be read once: give '-' to "
					   "one --files0-from or --exclude-from only");
		stdin_taken = true;
	}
	return OPTIONS_RUN;
}

/* A list is held whole in memory (-i inspects its names again, --warm
 * counts first what it will read): at most this much of it, so that an
 * endless one (/dev/zero) is refused, not read until memory runs out.
 * pagestat(1) says so. */
#define LIST_MAX ((size_t)1 << 30)
#define EXCLUDE_LIST_MAX ((size_t)16 << 20)

/* The whole of FILE ("-": standard input), NUL-terminated, its length in
 * *len, kept in st until options_free; NULL with errno set when it cannot
 * be read: EFBIG when it holds max bytes or more. */
static char *slurp(struct options_state *st, const char *file, size_t max, size_t *len)
{
	/* with the user's own rights: a setcap pagestat reads no list its
	 * user could not read without it */
	FILE *in = user_fopen_read(file);
	if (!in)
		return NULL;
	size_t cap = 4096, n = 0;
	char *text = xrealloc(NULL, cap);
	int err = 0;
	for (;;) {
		n += fread(text + n, 1, cap - n - 1, in);
		if (n < cap - 1)
			break;
		if (n >= max) {
			err = EFBIG;
			break;
		}
		size_t want = cap > max / 2 ? max + 1 : cap * 2;
		char *more = realloc(text, want);
		if (!more) {
			err = ENOMEM;
			break;
		}
		text = more;
		cap = want;
	}
	if (!err && ferror(in))
		err = errno;
	if (in != stdin)
		fclose(in);
	if (err) {
		free(text);
		errno = err;
		return NULL;
	}
	text[n] = '\0';
	*len = n;
	st->texts = grow(st->texts, st->ntexts, sizeof *st->texts);
	st->texts[st->ntexts++] = text;
	return text;
}

static int cannot_read(const char *option, const char *file, size_t max)
{
	int err = errno;
	msg("cannot read %s ", option);
	msg_name_str(file);
	if (err == EFBIG)
		msg_more(": a list may hold less than %zu MiB (is it endless, like "
			 "/dev/zero?)\n", max >> 20);
	else
		msg_more(": %s\n", strerror(err));
	return STATUS_USAGE;
}

/* --exclude-from: one glob a line; empty lines are skipped. */
static int read_excludes(struct options *opts, const char *file)
{
	size_t len;
	char *text = slurp(opts->state, file, EXCLUDE_LIST_MAX, &len);
	if (!text)
		return cannot_read("--exclude-from", file, EXCLUDE_LIST_MAX);
	for (char *line = text; line < text + len;) {
		char *nl = strchrnul(line, '\n');
		*nl = '\0';
		if (*line)
			add_exclude(opts, line);
		line = nl + 1;
	}
	return OPTIONS_RUN;
}

/* --files0-from: names ended by NUL (the last one may lack it).  An empty
 * name stays, to be reported in its place, as du does. */
static int read_names(struct options *opts, const char *file)
{
	struct options_state *st = opts->state;
	size_t len, count = 0;
	char *text = slurp(st, file, LIST_MAX, &len);
	if (!text)
		return cannot_read("--files0-from", file, LIST_MAX);
	for (size_t i = 0; i < len; i++)
		count += text[i] == '\0';
	count += len > 0 && text[len - 1] != '\0';
	st->names = calloc(count + 1, sizeof *st->names);
	if (!st->names) {
		msg("cannot read --files0-from ");
		msg_name_str(file);
		msg_more(": its %zu names do not fit in memory\n", count);
		return STATUS_USAGE;
	}
	size_t n = 0;
	for (char *name = text; name < text + len; name += strlen(name) + 1)
		st->names[n++] = name;
	st->names[n] = NULL;
	opts->operands = st->names;
	return OPTIONS_RUN;
}

int options_finish(struct options *opts)
{
	struct options_state *st = opts->state;

	int status = check_combinations(opts, st);
	if (status == OPTIONS_RUN && opts->charged && !caps_have_sys_admin())
		status = usage_error("--charged: needs CAP_SYS_ADMIN (root): without it the kernel "
				     "zeroes the frame numbers of /proc/self/pagemap and refuses "
				     "/proc/kpagecgroup (a setcap install does not grant it)");
	if (status == OPTIONS_RUN)
		status = resolve_columns(opts, st->output_list, st->output_all);
	/* read last: a usage error must not consume standard input first */
	for (size_t i = 0; status == OPTIONS_RUN && i < st->nexclude_files; i++)
		status = read_excludes(opts, st->exclude_files[i]);
	if (status == OPTIONS_RUN && st->files0_from)
		status = read_names(opts, st->files0_from);
	return status;
}

void options_free(struct options *opts)
{
	struct options_state *st = opts->state;

	if (!st)
		return;

	for (size_t i = 0; i < st->ntexts; i++)
		free(st->texts[i]);
	free(st->texts);
	free(st->names);
	free(st->exclude_files);
	free(st);
	free(opts->excludes);
	free(opts->pids);
	free(opts->cgroups);
}
