/* The command line: getopt_long table, --help, --version, value parsing. */
#include <config.h>

#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "escape.h"

enum {
	OPT_METHOD = UCHAR_MAX + 1,
	OPT_FORMAT,
	OPT_CSV,
	OPT_OUTPUT_ALL,
};

static const char short_options[] = "acd:HLPxlJo:bpnqhV";

static const struct option long_options[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "total", no_argument, NULL, 'c' },
	{ "max-depth", required_argument, NULL, 'd' },
	{ "dereference-args", no_argument, NULL, 'H' },
	{ "dereference", no_argument, NULL, 'L' },
	{ "no-dereference", no_argument, NULL, 'P' },
	{ "one-file-system", no_argument, NULL, 'x' },
	{ "count-links", no_argument, NULL, 'l' },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "output", required_argument, NULL, 'o' },
	{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },
	{ "bytes", no_argument, NULL, 'b' },
	{ "pages", no_argument, NULL, 'p' },
	{ "noheadings", no_argument, NULL, 'n' },
	{ "quiet", no_argument, NULL, 'q' },
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
	      "\n"
	      "Walk:\n"
	      "  -P, --no-dereference    never follow symbolic links (default)\n"
	      "  -H, --dereference-args  follow symbolic links named as FILE\n"
	      "  -L, --dereference       follow every symbolic link\n"
	      "  -x, --one-file-system   do not descend into other file systems\n"
	      "  -l, --count-links       count a hard-linked file each time it is met\n"
	      "                          (default: once per run)\n"
	      "      --method=METHOD     auto (default), cachestat or mincore\n"
	      "\n"
	      "Output:\n"
	      "      --format=FORMAT     table (default), csv, json or ndjson\n"
	      "  -J, --json              same as --format=json\n"
	      "      --csv               same as --format=csv\n"
	      "  -o, --output=LIST       columns to show, comma-separated, in that order;\n"
	      "                          +LIST adds to the default columns\n"
	      "      --output-all        show every column\n"
	      "  -b, --bytes             exact bytes instead of 1.5G in the table\n"
	      "  -p, --pages             page counts for the page columns in the table\n"
	      "  -n, --noheadings        no header line (table and CSV)\n"
	      "  -q, --quiet             no per-file error messages (still counted)\n"
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
	      "3 fatal (output failed, or no method usable).\n",
	      out);
}

static void version(void)
{
	const char *why;

	printf("pagestat %s\n", PACKAGE_VERSION);
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

static int bad_value(const char *option, const char *value, const char *expected)
{
	fprintf(stderr, "pagestat: invalid value for %s: '", option);
	/* a value from the command line may hold anything */
	esc_put_terminal(stderr, value, strlen(value), esc_locale_is_utf8());
	fprintf(stderr, "' (expected %s)\nTry 'pagestat --help' for more information.\n",
		expected);
	return EXIT_USAGE;
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

struct name_value {
	const char *name;
	int value;
};

static bool parse_name(const char *s, const struct name_value *names, int *out)
{
	for (; names->name; names++)
		if (strcmp(s, names->name) == 0) {
			*out = names->value;
			return true;
		}
	return false;
}

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
	{ NULL, 0 },
};

/* -o is resolved once the format is known, since "+LIST" extends the
 * format's defaults. */
static int resolve_columns(struct options *opts, const char *list, bool all)
{
	opts->ncolumns = columns_default(opts->columns, opts->format == FORMAT_TABLE, all);
	if (!list || all)
		return OPTIONS_RUN;

	const char *bad;
	size_t bad_len;
	if (columns_parse(list, opts->columns, &opts->ncolumns, opts->format == FORMAT_TABLE,
			  &bad, &bad_len) != 0) {
		fputs("pagestat: unknown column '", stderr);
		esc_put_terminal(stderr, bad, bad_len, esc_locale_is_utf8());
		fputs("' in --output '", stderr);
		esc_put_terminal(stderr, list, strlen(list), esc_locale_is_utf8());
		fputs("'\nTry 'pagestat --help' for the list of columns.\n", stderr);
		return EXIT_USAGE;
	}
	return OPTIONS_RUN;
}

int options_parse(int argc, char **argv, struct options *opts)
{
	static char *dot[] = { ".", NULL };
	const char *output_list = NULL;
	bool output_all = false;
	int c, value;

	/* getopt's own messages start with argv[0]; ours with "pagestat". */
	argv[0] = (char *)"pagestat";
	*opts = (struct options){
		.headings = true,
		.max_depth = -1,
		.follow = FOLLOW_NONE,
		.method = PROBE_AUTO,
		.format = FORMAT_TABLE,
		.unit = UNIT_HUMAN,
	};

	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			opts->all = true;
			break;
		case 'c':
			opts->total = true;
			break;
		case 'd':
			if (!parse_count(optarg, &opts->max_depth))
				return bad_value("--max-depth", optarg, "a whole number from 0");
			break;
		case 'H':
			opts->follow = FOLLOW_ARGS;
			break;
		case 'L':
			opts->follow = FOLLOW_ALL;
			break;
		case 'P':
			opts->follow = FOLLOW_NONE;
			break;
		case 'x':
			opts->one_file_system = true;
			break;
		case 'l':
			opts->count_links = true;
			break;
		case OPT_METHOD:
			if (!parse_name(optarg, methods, &value))
				return bad_value("--method", optarg, "auto, cachestat or mincore");
			opts->method = (enum probe_method)value;
			break;
		case OPT_FORMAT:
			if (!parse_name(optarg, formats, &value))
				return bad_value("--format", optarg, "table, csv, json or ndjson");
			opts->format = (enum output_format)value;
			break;
		case 'J':
			opts->format = FORMAT_JSON;
			break;
		case OPT_CSV:
			opts->format = FORMAT_CSV;
			break;
		case 'o':
			output_list = optarg;
			output_all = false;
			break;
		case OPT_OUTPUT_ALL:
			output_all = true;
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
		case 'q':
			opts->quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case 'V':
			version();
			return EXIT_SUCCESS;
		default:
			fputs("Try 'pagestat --help' for more information.\n", stderr);
			return EXIT_USAGE;
		}
	}

	int status = resolve_columns(opts, output_list, output_all);
	if (status != OPTIONS_RUN)
		return status;
	opts->operands = optind < argc ? argv + optind : dot;
	return OPTIONS_RUN;
}
