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
#include "msg.h"
#include "options.h"
#include "outfile.h"
#include "pidfiles.h"
#include "probe.h"
#include "progress.h"
#include "rank.h"
#include "signals.h"
#include "status.h"
#include "sink.h"
#include "userfile.h"
#include "walk.h"
#include "watch.h"
#include "xalloc.h"

static volatile sig_atomic_t reader_quit;

/* The last inspection counted no page: --expect-cached had nothing to
 * judge (told once, at the end, where it explains the status). */
static bool nothing_counted;

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
		    user_openat(AT_FDCWD, "/dev/null", O_RDONLY, 0) != fd) /* writes to it fail: EBADF */
			return false;
	return true;
}

/* --expect-cached: is the cached share of the total below the mark?  No
 * page at all (an empty or not yet mounted directory, only empty files)
 * has not met it: "until pagestat --expect-cached=95 /srv/db" must not
 * end before /srv/db holds anything. */
static bool below_expectation(const struct options *opts, const struct pagecache_stat *total)
{
	if (opts->expect_cached < 0)
		return false;
	if (total->pages == 0)
		return true;
	return (double)total->cached * 100.0 < opts->expect_cached * (double)total->pages;
}

/* One inspection of everything asked: rows out, the total last.  With
 * watch (-i), the sample's time and each row's change go along. */
static int inspect(const struct options *opts, struct watch *watch, FILE *out,
		   bool *output_failed)
{
	bool later = watch && watch_later_sample(watch);
	struct sink_config sink_cfg = {
		.out = out,
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
		.time = watch ? watch_time(watch) : NULL,
		.later_sample = later,
	};
	struct probe_request probe = {
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
		.max_depth = opts->max_depth,
		.probe = &probe,
		.excludes = opts->excludes,
		.nexcludes = opts->nexcludes,
		.jobs = opts->jobs,
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
	if (watch)
		sink = sink_delta_new(sink, watch);
	struct walk_result result = { 0 };

	if (sink_begin(sink)) {
		progress_start(opts->progress, opts->format == FORMAT_TABLE, sink_cfg.page_size);
		if (opts->npids)
			pid_run(&walk_cfg, opts->pids, opts->npids, sink, &result);
		else
			walk_run(&walk_cfg, opts->operands, sink, &result);
		progress_suspend();
		if (!result.output_failed) {
			struct row total = {
				.type = ROW_TOTAL,
				.stat = result.total.stat,
				.files = result.total.files,
			};
			result.output_failed = !sink_end(sink, &total, result.errors);
		}
	} else {
		result.output_failed = true;
	}
	sink_free(sink);
	*output_failed = result.output_failed;
	nothing_counted = result.total.stat.pages == 0;
	if (result.errors)
		return STATUS_SOME_FAILED;
	return below_expectation(opts, &result.total.stat) ? STATUS_NOT_CACHED : STATUS_OK;
}

/* One inspection written to stdout, or through --output-file: there each
 * sample of -i replaces the file whole (what a textfile collector reads). */
static int inspect_to_output(const struct options *opts, struct watch *watch)
{
	bool output_failed;

	if (!opts->output_file) {
		int status = inspect(opts, watch, stdout, &output_failed);
		/* each sample reaches the reader (| jq) as soon as it is done;
		 * the stream's error is told when it is closed */
		if (output_failed || (watch && fflush(stdout) != 0))
			return STATUS_FATAL;
		return status;
	}
	FILE *out = outfile_open(opts->output_file);
	if (!out)
		return STATUS_FATAL;
	int status = inspect(opts, watch, out, &output_failed);
	return outfile_close(out, output_failed ? STATUS_FATAL : status);
}

static int run(const struct options *opts)
{
	const char *why;
	int err = probe_init(opts->method, &why);
	if (err) {
		msg("%s: %s\n", why, strerror(err));
		return STATUS_FATAL;
	}
	if (probe_fallback_errno() && !opts->quiet)
		msg("cachestat(2) is unavailable (%s): using mincore(2), which knows cached "
		    "pages only\n", strerror(probe_fallback_errno()));

	if (opts->interval || opts->output_file)
		signals_catch(opts->interval > 0);
	if (!opts->interval)
		return inspect_to_output(opts, NULL);

	/* -i: a failure in any sample makes the status 1; --expect-cached
	 * is judged on the last sample */
	struct watch *watch = watch_new(opts->interval, opts->count);
	int status = STATUS_OK;
	bool failed = false;
	while (watch_begin_sample(watch)) {
		status = inspect_to_output(opts, watch);
		if (status == STATUS_FATAL)
			break;
		failed |= status == STATUS_SOME_FAILED;
		if (!watch_wait(watch))
			break;
	}
	watch_free(watch);
	return failed && status != STATUS_FATAL ? STATUS_SOME_FAILED : status;
}

/* Status 4 with no page counted: said, so that it is not taken for a
 * cold cache; -q, as in a loop that waits for the data, keeps quiet. */
static void say_nothing_to_judge(const struct options *opts, int status)
{
	if (status != STATUS_NOT_CACHED || !nothing_counted || opts->quiet)
		return;
	/* with --offset or --length, files that are not empty count none
	 * when the range is past their end */
	bool range = opts->range.offset || opts->range.length;
	msg("--expect-cached=%s: no page was counted (no file, or only empty files%s): "
	    "nothing to judge\n", opts->expect_cached_arg, range ? " or ranges" : "");
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
	if (!err)
		err = sink_write_errno();
	if (!reader_quit && err != EPIPE) {
		if (err)
			msg("write error: %s\n", strerror(err));
		else
			msg("write error\n");
	}
	return STATUS_FATAL;
}

int main(int argc, char **argv)
{
	struct options opts;

	/* first of all: no file is opened with more power than needed */
	const char *what;
	int err = caps_drop(&what, options_want_processes(argc, argv));
	if (err) {
		msg("%s: %s\n", what, strerror(err));
		return STATUS_FATAL;
	}
	if (!guard_std_fds()) {
		msg("cannot open /dev/null in place of a closed standard descriptor\n");
		return STATUS_FATAL;
	}
	setlocale(LC_CTYPE, "");
	signal(SIGPIPE, on_sigpipe);
	/* Into a pipe or a file, write in large blocks (stdio would use the
	 * 4 KiB st_blksize of a pipe); a terminal keeps its line buffering. */
	if (!isatty(STDOUT_FILENO)) {
		static char out_buffer[1 << 16];
		setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
	}

	int status = options_parse(argc, argv, &opts);
	if (status == OPTIONS_RUN) {
		status = run(&opts);
		say_nothing_to_judge(&opts, status);
		probe_free();
	}
	options_free();
	return close_stdout(status);
}
