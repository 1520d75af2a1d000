/* pagestat: parse the command line, run the inspection, exit with its status. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "escape.h"
#include "options.h"
#include "probe.h"
#include "rank.h"
#include "sink.h"
#include "walk.h"
#include "xalloc.h"

#define EXIT_SOME_FAILED 1

static volatile sig_atomic_t reader_quit;

static void on_sigpipe(int sig)
{
	(void)sig;
	reader_quit = 1;
}

/* With stdin, stdout or stderr closed, the next open() would take its
 * number, and output could land in a file being inspected. */
static bool guard_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY) != fd) /* writes to it fail: EBADF */
			return false;
	return true;
}

static int run(const struct options *opts)
{
	const char *why;
	int err = probe_init(opts->method, &why);
	if (err) {
		fprintf(stderr, "pagestat: %s: %s\n", why, strerror(err));
		return EXIT_FATAL;
	}
	if (probe_fallback_errno() && !opts->quiet)
		fprintf(stderr, "pagestat: cachestat(2) is unavailable (%s): using mincore(2), "
			"which knows cached pages only\n", strerror(probe_fallback_errno()));

	struct sink_config sink_cfg = {
		.out = stdout,
		.columns = opts->columns,
		.ncolumns = opts->ncolumns,
		.unit = opts->unit,
		.counters_in_pages = opts->counters_in_pages,
		.headings = opts->headings,
		.total_row = opts->total,
		.utf8 = esc_locale_is_utf8(),
		.page_size = probe_page_size(),
		.method = probe_method_name(probe_method()),
		.range = opts->range,
		.segments = opts->segments,
		.extents = opts->extents,
	};
	struct walk_config walk_cfg = {
		.follow = opts->follow,
		.one_file_system = opts->one_file_system,
		.count_links = opts->count_links,
		.all = opts->all,
		.quiet = opts->quiet,
		.utf8 = sink_cfg.utf8,
		.max_depth = opts->max_depth,
		.range = opts->range,
		.segments = opts->segments,
		.extents = opts->extents,
		.excludes = opts->excludes,
		.nexcludes = opts->nexcludes,
	};
	struct sink *sink = sink_new(opts->format, &sink_cfg);
	if (opts->sort_key >= 0) {
		struct rank_config rank_cfg = {
			.key = (enum column_id)opts->sort_key,
			.reverse = opts->reverse,
			.top = opts->top,
			.files_only = opts->top && opts->all,
		};
		sink = sink_rank_new(sink, &rank_cfg);
	}
	struct walk_result result = { 0 };

	if (sink_begin(sink)) {
		walk_run(&walk_cfg, opts->operands, sink, &result);
		if (!result.output_failed) {
			struct row total = {
				.type = ROW_TOTAL,
				.stat = result.total.stat,
				.files = result.total.files,
			};
			sink_end(sink, &total, result.errors);
		}
	}
	sink_free(sink);
	probe_free();
	return result.errors ? EXIT_SOME_FAILED : EXIT_SUCCESS;
}

/* Output that could not be written is a failure (exit 3), told on stderr
 * unless the reader simply quit (EPIPE), which is silent. */
static int close_stdout(int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && !failed) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return status;
	if (!reader_quit && err != EPIPE) {
		if (err)
			fprintf(stderr, "pagestat: write error: %s\n", strerror(err));
		else
			fputs("pagestat: write error\n", stderr);
	}
	return EXIT_FATAL;
}

int main(int argc, char **argv)
{
	struct options opts;

	/* first of all: no file is opened with more power than needed */
	const char *what;
	int err = caps_drop(&what);
	if (err) {
		fprintf(stderr, "pagestat: %s: %s\n", what, strerror(err));
		return EXIT_FATAL;
	}
	if (!guard_std_fds()) {
		fputs("pagestat: cannot open /dev/null in place of a closed standard "
		      "descriptor\n", stderr);
		return EXIT_FATAL;
	}
	setlocale(LC_CTYPE, "");
	signal(SIGPIPE, on_sigpipe);

	int status = options_parse(argc, argv, &opts);
	if (status == OPTIONS_RUN)
		status = run(&opts);
	options_free();
	return close_stdout(status);
}
