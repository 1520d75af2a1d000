/* The command line: getopt_long table, --help, --version, value parsing. */
#include <config.h>

#include "options.h"

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
#include "outfile.h"
#include "status.h"
#include "userfile.h"
#include "xalloc.h"

enum {
	OPT_METHOD = UCHAR_MAX + 1,
	OPT_FORMAT,
	OPT_CSV,
	OPT_OUTPUT_ALL,
	OPT_OFFSET,
	OPT_LENGTH,
	OPT_REVERSE,
	OPT_TOP,
	OPT_EXCLUDE,
	OPT_EXCLUDE_FROM,
	OPT_FILES0_FROM,
	OPT_EXPECT_CACHED,
	OPT_COUNT,
	OPT_PID,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_OUTPUT_FILE,
	OPT_EVICT,
	OPT_WARM,
	OPT_WARM_FROM,
	OPT_RATE,
	OPT_SYSTEM,
};

static const char short_options[] = "acd:s:HLPxlS:e::Jo:bpnqi:hVj:";

static const struct option long_options[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "total", no_argument, NULL, 'c' },
	{ "max-depth", required_argument, NULL, 'd' },
	{ "sort", required_argument, NULL, 's' },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "dereference-args", no_argument, NULL, 'H' },
	{ "dereference", no_argument, NULL, 'L' },
	{ "no-dereference", no_argument, NULL, 'P' },
	{ "one-file-system", no_argument, NULL, 'x' },
	{ "count-links", no_argument, NULL, 'l' },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM },
	{ "files0-from", required_argument, NULL, OPT_FILES0_FROM },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ "segments", required_argument, NULL, 'S' },
	{ "extents", optional_argument, NULL, 'e' },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "jobs", required_argument, NULL, 'j' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "output", required_argument, NULL, 'o' },
	{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },
	{ "bytes", no_argument, NULL, 'b' },
	{ "pages", no_argument, NULL, 'p' },
	{ "noheadings", no_argument, NULL, 'n' },
	{ "output-file", required_argument, NULL, OPT_OUTPUT_FILE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "expect-cached", required_argument, NULL, OPT_EXPECT_CACHED },
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "evict", no_argument, NULL, OPT_EVICT },
	{ "warm", no_argument, NULL, OPT_WARM },
	{ "warm-from", required_argument, NULL, OPT_WARM_FROM },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "system", no_argument, NULL, OPT_SYSTEM },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("Usage: pagestat [OPTION]... [FILE]...\n"
	      "Show how much of each FILE (the current directory by default) is in the\n"
	      "page cache: cached, dirty, under writeback, evicted and recently evicted.\n"
	      "A directory's row is the total of every regular file below it.\n"
	      "\n"
	      "Rows:\n"
	      "  -a, --all               also a row for every file inside directories\n"
	      "  -d, --max-depth=N       also a row for every directory down to depth N\n"
	      "                          (FILE is depth 0); with -a, files down to N too\n"
	      "  -c, --total             add a grand-total row (table and CSV)\n"
	      "  -s, --sort=KEY          order rows by a column (numbers largest first,\n"
	      "                          path and type A-Z); default: walk order\n"
	      "      --reverse           reverse the order of --sort or --top\n"
	      "      --top=N             only the N rows first in --sort order (by\n"
	      "                          cached when no --sort); with -a, files only\n"
	      "\n"
	      "Walk:\n"
	      "  -P, --no-dereference    follow no symbolic link, not even one named as FILE\n"
	      "  -H, --dereference-args  follow symbolic links named as FILE (also names\n"
	      "                          read with --files0-from), no others (default)\n"
	      "  -L, --dereference       follow every symbolic link\n"
	      "  -x, --one-file-system   do not descend into other file systems\n"
	      "  -l, --count-links       count a hard-linked file each time it is met\n"
	      "                          (default: once per run)\n"
	      "      --exclude=GLOB      skip files and directories whose name or path\n"
	      "                          matches GLOB (may be repeated)\n"
	      "      --exclude-from=FILE skip what matches any glob in FILE, one a line\n"
	      "                          (- reads standard input)\n"
	      "      --files0-from=FILE  inspect the NUL-separated names in FILE\n"
	      "                          (- reads standard input) instead of FILE operands\n"
	      "      --pid=PID           inspect the regular files process PID maps or\n"
	      "                          holds open, a row each (may be repeated), instead\n"
	      "                          of FILE operands\n"
	      "      --system            what fills this machine's page cache: every file\n"
	      "                          system once, files deleted but open, block\n"
	      "                          devices; the top 20 files (--top), a row per file\n"
	      "                          system, and the share of the kernel's Cached and\n"
	      "                          Buffers found\n"
	      "      --method=METHOD     auto (default), cachestat or mincore\n"
	      "  -j, --jobs=N            N threads open and measure files while one walks\n"
	      "                          (auto, the default: the processors, once a walk\n"
	      "                          passes 2048 files; or 1 to 256); output as with 1\n"
	      "\n"
	      "Range:\n"
	      "      --offset=SIZE       inspect each file from byte SIZE on\n"
	      "      --length=SIZE       inspect at most SIZE bytes (default: to the end)\n"
	      "  -S, --segments=N        split each file's range into N equal parts (1 to\n"
	      "                          4096) and show the cached share of each\n"
	      "  -e, --extents[=WHICH]   list each file's cached byte extents, START-END;\n"
	      "                          --extents=missing (or -emissing) the missing ones\n"
	      "SIZE is bytes (512 or 512B), or a number with K, M, G, T, P or E (powers\n"
	      "of 1024, also written KiB, MiB...) or KB, MB... (powers of 1000), in any\n"
	      "case; FORMAT, METHOD, WHICH and column names are taken in any case too.\n"
	      "\n"
	      "Output:\n"
	      "      --format=FORMAT     table (default), csv, json, ndjson or prometheus\n"
	      "  -J, --json              same as --format=json\n"
	      "      --csv               same as --format=csv\n"
	      "  -o, --output=LIST       columns to show, comma-separated, in that order;\n"
	      "                          +LIST adds to the default columns\n"
	      "      --output-all        show every column\n"
	      "  -b, --bytes             exact bytes instead of 1.5G in the table\n"
	      "  -p, --pages             page counts for the page columns in the table\n"
	      "  -n, --noheadings        no header line (table and CSV)\n"
	      "      --output-file=FILE  write to FILE, replaced only once complete\n"
	      "  -q, --quiet             no per-file error messages (still counted)\n"
	      "      --progress          a progress line on stderr from the start, when it\n"
	      "                          is a terminal (default: after about a second)\n"
	      "      --no-progress       no progress line\n"
	      "      --expect-cached=PERCENT\n"
	      "                          exit with status 4 when less than PERCENT (0 to\n"
	      "                          100, decimals allowed) of all pages are cached,\n"
	      "                          or when no page at all was counted\n"
	      "\n"
	      "Watch:\n"
	      "  -i, --interval=SECONDS  inspect again every SECONDS (0.001 or more,\n"
	      "                          fractions allowed) until interrupted; each sample\n"
	      "                          has its time, and the delta column the change\n"
	      "                          in cached pages since the sample before\n"
	      "      --count=N           with -i: stop after N samples\n"
	      "\n"
	      "Actions (each file opened with your own rights; the rows show the state\n"
	      "after, and what was done):\n"
	      "      --evict             drop the clean cached pages of each file's range\n"
	      "      --warm              read the missing pages of each file's range into\n"
	      "                          the cache (cached pages are not read again)\n"
	      "      --warm-from=FILE    read the extents a snapshot lists back into the\n"
	      "                          cache: FILE (- reads standard input) is what\n"
	      "                          pagestat -a -e wrote as JSON or ndjson\n"
	      "      --rate=SIZE         with a warm: read at most SIZE bytes a second\n"
	      "\n"
	      "  -h, --help              show this help and exit\n"
	      "  -V, --version           show the version, the method the kernel offers\n"
	      "                          and the capabilities held, and exit\n",
	      out);
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

	printf("pagestat %s\n", PACKAGE_VERSION);
	fputs("Copyright (c) 2026 the pagestat authors\n"
	      "License MIT (Expat) <https://spdx.org/licenses/MIT.html>; there is NO WARRANTY.\n",
	      stdout);
	if (probe_init(PROBE_AUTO, &why) == 0) {
		int fallback = probe_fallback_errno();
		printf("method: %s", probe_method_name(probe_method()));
		if (fallback)
			printf(" (cachestat unavailable: %s)", strerror(fallback));
		putchar('\n');
	} else {
		printf("method: none (%s)\n", why);
	}
	printf("capabilities: %s\n", caps_describe());
}

#define SIZE_EXPECTED "a size in bytes such as 4096, 64K, 1MiB or 10GB, below 2^64"
#define SEGMENTS_MAX 4096
#define SYSTEM_TOP 20

/* What options_parse leaves to options_finish, and what the lists read
 * hold until options_free. */
struct options_state {
	enum {
		PARSED_RUN,
		PARSED_HELP,
		PARSED_VERSION,
		PARSED_TOLD,      /* getopt said what was wrong */
		PARSED_BAD_VALUE, /* told by options_finish, once the locale is set */
	} outcome;
	const char *bad_option, *bad_value, *bad_expected;
	const char *output_list; /* -o, resolved once the format is known */
	bool output_all;
	const char *offset, *length; /* as given, for the message on their sum */
	bool evict, warm;            /* --evict, --warm: one action at most */
	const char *rate;            /* --rate as given */
	const char *files0_from;
	const char **exclude_files; /* --exclude-from */
	size_t nexclude_files;
	const char **output_files; /* each --output-file: the last is used, all are checked */
	size_t noutput_files;
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
	return xrealloc(array, (n ? 2 * n : 1) * size);
}

/* Told by options_finish: a name is shown as the locale, set by then,
 * allows (msg_name). */
static void bad_value(struct options_state *st, const char *option, const char *value,
		      const char *expected)
{
	st->outcome = PARSED_BAD_VALUE;
	st->bad_option = option;
	st->bad_value = value;
	st->bad_expected = expected;
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

/* A whole number from min to max (INT_MAX at most). */
static bool parse_count_in(const char *s, long min, long max, long *out)
{
	return parse_count(s, out) && *out >= min && *out <= max;
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

struct name_value {
	const char *name;
	int value;
};

static bool parse_name(const char *s, const struct name_value *names, int *out)
{
	/* any case: --format=JSON is no less clear */
	for (; names->name; names++)
		if (strcasecmp(s, names->name) == 0) {
			*out = names->value;
			return true;
		}
	return false;
}

static const struct name_value extent_modes[] = {
	{ "cached", EXTENTS_CACHED },
	{ "missing", EXTENTS_MISSING },
	{ NULL, 0 },
};

static const struct name_value methods[] = {
	{ "auto", PROBE_AUTO },
	{ "cachestat", PROBE_CACHESTAT },
	{ "mincore", PROBE_MINCORE },
	{ NULL, 0 },
};

static const struct name_value formats[] = {
	{ "table", FORMAT_TABLE },
	{ "csv", FORMAT_CSV },
	{ "json", FORMAT_JSON },
	{ "ndjson", FORMAT_NDJSON },
	{ "prometheus", FORMAT_PROMETHEUS },
	{ NULL, 0 },
};

static void add_exclude(struct options *opts, const char *glob)
{
	opts->excludes = grow(opts->excludes, opts->nexcludes, sizeof *opts->excludes);
	opts->excludes[opts->nexcludes++] = glob;
}

/* The options, a function for each group of --help.  Each takes the keys
 * of its group (and tells whether key was one); a bad value is kept in
 * st for options_finish to tell. */

/* "one of path, type, ..." for a bad --sort. */
static const char *sort_keys_expected(void)
{
	static char text[COL_COUNT * 24 + 16];

	if (!*text)
		snprintf(text, sizeof text, "one of %s", columns_names(true));
	return text;
}

/* Rows: -a, -d, -c, -s, --reverse, --top. */
static bool rows_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	long count = 0;
	int col;

	switch (key) {
	case 'a':
		opts->all = true;
		break;
	case 'd':
		if (!parse_count(arg, &opts->max_depth))
			bad_value(st, "--max-depth", arg, "a whole number from 0 to 2147483647");
		break;
	case 'c':
		opts->total = true;
		break;
	case 's':
		col = column_lookup(arg, strlen(arg));
		if (col < 0 || col == COL_SEGMENTS || col == COL_EXTENTS || col == COL_DELTA)
			bad_value(st, "--sort", arg, sort_keys_expected());
		opts->sort_key = col;
		break;
	case OPT_REVERSE:
		opts->reverse = true;
		break;
	case OPT_TOP:
		if (!parse_count_in(arg, 1, INT_MAX, &count))
			bad_value(st, "--top", arg, "a whole number from 1 to 2147483647");
		opts->top = (uint64_t)count;
		break;
	default:
		return false;
	}
	return true;
}

/* Walk: -P, -H, -L, -x, -l, --exclude, --exclude-from, --files0-from,
 * --pid, --method, -j. */
static bool walk_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	long count = 0;
	int value = 0;

	switch (key) {
	case 'P':
		opts->follow = FOLLOW_NONE;
		break;
	case 'H':
		opts->follow = FOLLOW_ARGS;
		break;
	case 'L':
		opts->follow = FOLLOW_ALL;
		break;
	case 'x':
		opts->one_file_system = true;
		break;
	case 'l':
		opts->count_links = true;
		break;
	case OPT_EXCLUDE:
		if (!*arg)
			bad_value(st, "--exclude", arg, "a glob such as '*.log'");
		add_exclude(opts, arg);
		break;
	case OPT_EXCLUDE_FROM:
		st->exclude_files = grow(st->exclude_files, st->nexclude_files,
					 sizeof *st->exclude_files);
		st->exclude_files[st->nexclude_files++] = arg;
		break;
	case OPT_FILES0_FROM:
		st->files0_from = arg;
		break;
	case OPT_PID:
		if (!parse_count_in(arg, 1, INT_MAX, &count))
			bad_value(st, "--pid", arg,
				  "a process ID, a whole number from 1 to 2147483647");
		opts->pids = grow(opts->pids, opts->npids, sizeof *opts->pids);
		opts->pids[opts->npids++] = (pid_t)count;
		break;
	case OPT_METHOD:
		if (!parse_name(arg, methods, &value))
			bad_value(st, "--method", arg, "auto, cachestat or mincore");
		opts->method = (enum probe_method)value;
		break;
	case 'j':
		if (strcasecmp(arg, "auto") == 0)
			opts->jobs = 0;
		else if (parse_count_in(arg, 1, JOBS_MAX, &count))
			opts->jobs = (unsigned)count;
		else
			bad_value(st, "--jobs", arg, "auto, or a whole number from 1 to 256");
		break;
	default:
		return false;
	}
	return true;
}

/* Range: --offset, --length, -S, -e. */
static bool range_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	long count = 0;
	int value = 0;

	switch (key) {
	case OPT_OFFSET:
		if (!fmt_parse_size(arg, &opts->range.offset))
			bad_value(st, "--offset", arg, SIZE_EXPECTED);
		st->offset = arg;
		break;
	case OPT_LENGTH:
		if (!fmt_parse_size(arg, &opts->range.length))
			bad_value(st, "--length", arg, SIZE_EXPECTED);
		st->length = arg;
		break;
	case 'S':
		if (!parse_count_in(arg, 1, SEGMENTS_MAX, &count))
			bad_value(st, "--segments", arg, "a whole number from 1 to 4096");
		opts->segments = (unsigned)count;
		break;
	case 'e':
		value = EXTENTS_CACHED;
		if (arg && !parse_name(arg, extent_modes, &value))
			bad_value(st, "--extents", arg, "cached or missing");
		opts->extents = (enum extent_mode)value;
		break;
	default:
		return false;
	}
	return true;
}

/* Output: --format, -J, --csv, -o, --output-all, -b, -p, -n,
 * --output-file, -q, --progress, --no-progress, --expect-cached. */
static bool output_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	int value = 0;

	switch (key) {
	case OPT_FORMAT:
		if (!parse_name(arg, formats, &value))
			bad_value(st, "--format", arg, "table, csv, json, ndjson or prometheus");
		opts->format = (enum output_format)value;
		break;
	case 'J':
		opts->format = FORMAT_JSON;
		break;
	case OPT_CSV:
		opts->format = FORMAT_CSV;
		break;
	case 'o':
		st->output_list = arg;
		st->output_all = false;
		break;
	case OPT_OUTPUT_ALL:
		st->output_all = true;
		break;
	case 'b':
		opts->unit = UNIT_BYTES;
		break;
	case 'p':
		opts->counters_in_pages = true;
		break;
	case 'n':
		opts->headings = false;
		break;
	case OPT_OUTPUT_FILE:
		/* checked by options_finish: that looks at the file system */
		st->output_files = grow(st->output_files, st->noutput_files,
					sizeof *st->output_files);
		st->output_files[st->noutput_files++] = arg;
		opts->output_file = arg;
		break;
	case 'q':
		opts->quiet = true;
		break;
	case OPT_PROGRESS:
		opts->progress = PROGRESS_ALWAYS;
		break;
	case OPT_NO_PROGRESS:
		opts->progress = PROGRESS_NEVER;
		break;
	case OPT_EXPECT_CACHED:
		if (!parse_decimal(arg, &opts->expect_cached) || opts->expect_cached > 100)
			bad_value(st, "--expect-cached", arg,
				  "a percentage from 0 to 100, such as 90 or 99.5");
		opts->expect_cached_arg = arg;
		break;
	default:
		return false;
	}
	return true;
}

/* Watch: -i, --count. */
static bool watch_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	long count = 0;

	switch (key) {
	case 'i':
		if (!parse_decimal(arg, &opts->interval) || opts->interval < 0.001 ||
		    opts->interval > INT_MAX)
			bad_value(st, "--interval", arg,
				  "a number of seconds from 0.001 to 2147483647, such as 2 or 0.5");
		break;
	case OPT_COUNT:
		if (!parse_count_in(arg, 1, INT_MAX, &count))
			bad_value(st, "--count", arg, "a whole number from 1 to 2147483647");
		opts->count = (uint64_t)count;
		break;
	default:
		return false;
	}
	return true;
}

/* "50M" or "50M/s": a size above 0, per second. */
static bool parse_rate(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	char value[64];

	/* "/s" in any case, as the size's letters */
	if (len >= 2 && strcasecmp(s + len - 2, "/s") == 0)
		len -= 2;
	if (len == 0 || len >= sizeof value)
		return false;
	memcpy(value, s, len);
	value[len] = '\0';
	return fmt_parse_size(value, out) && *out > 0;
}

/* Actions: --evict, --warm, --warm-from, --rate.  Which actions may go
 * together is check_combinations' to say. */
static bool action_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	switch (key) {
	case OPT_EVICT:
		st->evict = true;
		break;
	case OPT_WARM:
		st->warm = true;
		break;
	case OPT_WARM_FROM:
		opts->warm_from = arg;
		break;
	case OPT_SYSTEM:
		opts->system = true;
		break;
	case OPT_RATE:
		if (!parse_rate(arg, &opts->rate))
			bad_value(st, "--rate", arg,
				  "bytes a second above 0, such as 50M, 1G or 200MB/s");
		st->rate = arg;
		break;
	default:
		return false;
	}
	return true;
}

static void take_option(int key, const char *arg, struct options *opts, struct options_state *st)
{
	static bool (*const groups[])(int, const char *, struct options *,
				      struct options_state *) = {
		rows_option, walk_option, range_option, output_option, watch_option,
		action_option,
	};

	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (groups[i](key, arg, opts, st))
			return;
	if (key == 'h') {
		st->outcome = PARSED_HELP;
	} else if (key == 'V') {
		st->outcome = PARSED_VERSION;
	} else {
		msg_try_help(); /* after getopt's own message */
		st->outcome = PARSED_TOLD;
	}
}

void options_parse(int argc, char **argv, struct options *opts)
{
	static char *dot[] = { ".", NULL };
	struct options_state *st = xcalloc(1, sizeof *st);
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
	};
	st->offset = "0";
	st->length = "0";
	/* getopt's own messages start with argv[0]; ours with "pagestat". */
	argv[0] = (char *)"pagestat";
	/* the first problem, --help or --version ends the parse */
	while (st->outcome == PARSED_RUN &&
	       (key = getopt_long(argc, argv, short_options, long_options, NULL)) != -1)
		take_option(key, optarg, opts, st);
	st->noperands = argc - optind;
	opts->operands = optind < argc ? argv + optind : dot;
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

/* -o is resolved once the format is known, since "+LIST" extends the
 * format's defaults. */
static int resolve_columns(struct options *opts, const char *list, bool all)
{
	bool table = opts->format == FORMAT_TABLE;
	opts->ncolumns = columns_default(opts->columns, table, all, opts->segments > 0,
					 opts->extents != EXTENTS_NONE);
	if (opts->interval)
		opts->ncolumns = columns_add_delta(opts->columns, opts->ncolumns);
	if (opts->action == ACTION_EVICT)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_DROPPED);
	else if (opts->action != ACTION_NONE)
		opts->ncolumns = columns_add_near_cached(opts->columns, opts->ncolumns, COL_READ);
	if (opts->system)
		add_system_columns(opts, table);
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
		enum column_id id = opts->columns[i];
		if ((id == COL_SEGMENTS && !opts->segments) ||
		    (id == COL_EXTENTS && opts->extents == EXTENTS_NONE) ||
		    (id == COL_DELTA && !opts->interval) ||
		    (id == COL_DROPPED && opts->action != ACTION_EVICT) ||
		    (id == COL_READ && opts->action != ACTION_WARM &&
		     opts->action != ACTION_LISTED) ||
		    ((id == COL_FSTYPE || id == COL_NOTE) && !opts->system)) {
			msg("column '%s' in --output needs %s\n", columns[id].name,
			    id == COL_SEGMENTS  ? "--segments=N"
			    : id == COL_DELTA   ? "-i/--interval"
			    : id == COL_DROPPED ? "--evict"
			    : id == COL_READ    ? "--warm or --warm-from"
			    : id == COL_FSTYPE || id == COL_NOTE ? "--system" : "--extents");
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

/* One action at most, and what it may not go with. */
static int check_action(struct options *opts, const struct options_state *st)
{
	if (st->evict + st->warm + (opts->warm_from != NULL) > 1)
		return usage_error("--evict, --warm and --warm-from exclude each other: "
				   "give one of them");
	opts->action = st->evict ? ACTION_EVICT
		       : st->warm ? ACTION_WARM
		       : opts->warm_from ? ACTION_LISTED : ACTION_NONE;
	if (st->rate && opts->action != ACTION_WARM && opts->action != ACTION_LISTED)
		return usage_error("--rate needs --warm or --warm-from");
	if (opts->action != ACTION_NONE && opts->interval)
		return usage_error("-i/--interval cannot be combined with --evict, --warm or "
				   "--warm-from: an action is done once");
	/* what an action changes must be named: "." by default would evict
	 * a whole tree, from / a whole file system (vmtouch needs a name too) */
	if ((st->evict || st->warm) && !st->files0_from && st->noperands == 0 && !opts->npids &&
	    !opts->system)
		return usage_error(st->evict ? "--evict needs a FILE (or --files0-from or --pid): "
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
	if (opts->system && opts->max_depth >= 0)
		return usage_error("--system has a row per file system, not per directory: "
				   "no -d/--max-depth");
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
	const char *expected;

	if (st->outcome == PARSED_TOLD)
		return STATUS_USAGE;
	/* the parse ends at a bad value, --help or --version: an --output-file
	 * seen came before it, and is judged first, in command-line order */
	for (size_t i = 0; i < st->noutput_files; i++)
		if (!outfile_check(st->output_files[i], &expected))
			return tell_bad_value("--output-file", st->output_files[i], expected);
	switch (st->outcome) {
	case PARSED_BAD_VALUE:
		return tell_bad_value(st->bad_option, st->bad_value, st->bad_expected);
	case PARSED_HELP:
		usage(stdout);
		return STATUS_OK;
	case PARSED_VERSION:
		version();
		return STATUS_OK;
	default:
		break;
	}
	int status = check_combinations(opts, st);
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

	for (size_t i = 0; i < st->ntexts; i++)
		free(st->texts[i]);
	free(st->texts);
	free(st->names);
	free(st->exclude_files);
	free(st->output_files);
	free(st);
	free(opts->excludes);
	free(opts->pids);
}
