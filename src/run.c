/* SPDX-License-Identifier: MIT */
/* The run the options ask for: one inspection, or -i's samples, and the
 * exit status they make. */
#include <config.h>

#include "run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act/action.h"
#include "tui/browse.h"
#include "kernel/caps.h"
#include "modes/cgroup.h"
#include "kernel/charge.h"
#include "lib/format.h"
#include "kernel/memstat.h"
#include "lib/msg.h"
#include "output/outfile.h"
#include "modes/pidfiles.h"
#include "walk/inspect.h"
#include "act/lock.h"
#include "kernel/probe.h"
#include "lib/progress.h"
#include "output/rank.h"
#include "lib/signals.h"
#include "output/sink.h"
#include "modes/snapshot.h"
#include "modes/system.h"
#include "modes/trace.h"
#include "lib/status.h"
#include "walk/walk.h"
#include "output/watch.h"
#include "lib/xalloc.h"

/* What an inspection leaves besides its status. */
struct outcome {
	bool output_failed;
	bool nothing_counted; /* no page: --expect-cached had nothing to judge */
};

/* A run's plan, made from the options before the output begins and
 * passed to each inspection. */
struct run {
	const struct options *opts;
	struct probe_setup setup;  /* the method, the page size */
	struct rate_limit limit;   /* --rate */
	struct file_request req;   /* what is done to each file */
	struct inspector ins;      /* the walking thread's */
	/* a warm's: the snapshot of --warm-from, read and checked, and the
	 * bytes to read */
	struct snapshot *snapshot;
	uint64_t to_read;
	/* --system: the kernel's figures, read at the end of each inspection */
	struct system_figures figures;
	/* --cgroup: the cgroups, found before the output begins; their rows
	 * point to their figures */
	struct cgroup_set cgroups;
	struct system_walk system_walk; /* --system's part of the walk's config */
	struct lock_set locks; /* --lock: the files locked, held to the end */
	/* --charged: the descriptors and the cgroups' inodes, once a run */
	struct charge charge;
	/* --trace: what was recorded, which the inspection's probes read */
	struct trace *trace;
};

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

/* The sinks the options ask for, in front of each other: the format's
 * last, then --sort/--top, then -i's deltas. */
static struct sink *new_sink(const struct options *opts, struct watch *watch,
			     const struct sink_config *cfg)
{
	struct sink *sink = sink_new(opts->format, cfg);
	if (opts->sort_key >= 0) {
		struct rank_config rank_cfg = {
			.key = (enum column_id)opts->sort_key,
			.reverse = opts->reverse,
			.top = opts->top,
			.files_only = opts->top && opts->all,
			.others_after = opts->system || opts->ncgroups,
		};
		sink = sink_rank_new(sink, &rank_cfg);
	}
	if (watch)
		sink = sink_delta_new(sink, watch);
	return sink;
}

/* Does a column of the output show what identifies a file (inode, size,
 * mtime)?  A setcap pagestat then shows it only where its user could
 * stat the file (report_user_sees). */
static bool shows_identity(const struct options *opts)
{
	/* --sort and --top by one order the rows by it */
	if (opts->sort_key >= 0 && columns[opts->sort_key].known_bit == PCS_IDENTITY)
		return true;
	for (size_t i = 0; i < opts->ncolumns; i++)
		if (columns[opts->columns[i]].known_bit == PCS_IDENTITY)
			return true;
	return false;
}

/* What the walk (or --pid, --system, --warm-from) takes of the run. */
static struct walk_config walk_config_of(struct run *run, const struct file_request *req)
{
	const struct options *opts = run->opts;

	run->system_walk = (struct system_walk){ .top = opts->top };

	return (struct walk_config){
		.limit_identity = caps_borrowed() && shows_identity(opts),
		.borrowed = caps_borrowed(),
		.follow = opts->follow,
		.one_file_system = opts->one_file_system,
		.count_links = opts->count_links,
		.all = opts->all,
		.quiet = opts->quiet,
		.max_depth = opts->max_depth,
		.req = req,
		.ins = &run->ins,
		.excludes = opts->excludes,
		.nexcludes = opts->nexcludes,
		/* --lock-max locks in walk order */
		.jobs = opts->lock_max ? 1 : opts->jobs,
		.system = opts->system ? &run->system_walk : NULL,
	};
}

/* After --evict, what is still cached in the ranges, and why, once (the
 * rows show it file by file): the kernel drops clean pages only, and only
 * folios wholly inside a range; a page a process maps stays too. */
static void say_evict_left(const struct options *opts, const struct pagecache_stat *t)
{
	if (opts->action != ACTION_EVICT || opts->quiet || t->cached == 0)
		return;
	bool range = opts->range.offset || opts->range.length;
	const char *others = range ? "in large folios that cross the edge of a range (the "
				     "kernel drops only those wholly inside) or mapped by a process"
				   : "mapped by a process, or read again meanwhile";
	msg("--evict: %" PRIu64 " page%s still cached: ", t->cached, t->cached > 1 ? "s are" : " is");
	if (!(t->known & PCS_DIRTY) || !(t->known & PCS_WRITEBACK)) {
		/* mincore cannot say which are dirty */
		msg_more("dirty or under writeback (the kernel drops clean pages only: run sync, "
			 "then evict again), or %s\n", others);
		return;
	}
	uint64_t unclean = t->dirty + t->writeback;
	uint64_t rest = t->cached > unclean ? t->cached - unclean : 0;
	if (t->dirty || t->writeback)
		msg_more("%" PRIu64 " dirty, %" PRIu64 " under writeback (the kernel drops clean "
			 "pages only: run sync, then evict again)%s", t->dirty, t->writeback,
			 rest ? "; " : "\n");
	if (rest)
		msg_more("%" PRIu64 " %s\n", rest, others);
}

/* What the sinks take of the run: where, which columns, in what units;
 * with watch (-i), the sample's time. */
static struct sink_config sink_config_of(const struct run *run, struct watch *watch, FILE *out)
{
	const struct options *opts = run->opts;

	return (struct sink_config){
		.out = out,
		.columns = opts->columns,
		.ncolumns = opts->ncolumns,
		.unit = opts->unit,
		.counters_in_pages = opts->counters_in_pages,
		.headings = opts->headings,
		.total_row = opts->total,
		.page_size = run->setup.page_size,
		.method = probe_method_name(run->setup.method),
		.range = opts->range,
		.segments = opts->segments,
		.extents = opts->extents,
		.time = watch ? watch_time(watch) : NULL,
		.later_sample = watch && watch_later_sample(watch),
		/* --by's rows are no inspection: no coverage */
		.system = opts->system && opts->trace_by == BY_FILE ? &run->figures : NULL,
	};
}

/* The files of the run (the walk, or --warm-from's, --system's,
 * --cgroup's, --pid's) to the sink; --system's state, to be freed after
 * the output. */
static struct system *run_source(struct run *run, const struct walk_config *walk_cfg,
				 struct sink *sink, struct walk_result *result)
{
	const struct options *opts = run->opts;
	if (run->snapshot)
		snapshot_run(run->snapshot, walk_cfg, sink, result);
	else if (opts->system)
		return system_run(walk_cfg, sink, result, &run->figures);
	else if (opts->ncgroups && !opts->cgroup_walks)
		cgroup_run(walk_cfg, &run->cgroups, sink, result);
	else if (opts->npids)
		pid_run(walk_cfg, opts->pids, opts->npids, sink, result);
	else
		walk_run(walk_cfg, opts->operands, sink, result);
	return NULL;
}

/* --by: the files of its rows named, by the scope's pass or (--system)
 * by another, which says nothing. */
static void name_traced_files(struct run *run)
{
	if (!run->opts->system) {
		trace_name_scope(run->trace);
		return;
	}
	struct sink_config cfg = sink_config_of(run, NULL, stdout);
	struct file_request plain = { .measure = { .range = run->opts->range } };
	struct walk_config walk_cfg = walk_config_of(run, &plain);
	struct walk_result result = { 0 };
	walk_cfg.all = true;
	walk_cfg.max_depth = -1;
	walk_cfg.quiet = true;
	struct sink *naming = trace_naming_sink(run->trace, &cfg);
	system_free(run_source(run, &walk_cfg, naming, &result));
	sink_free(naming);
}

/* --trace: the scope found by a quiet pass of the source (not for
 * --system: the machine), the motion recorded, then each file's figures
 * looked up by the inspection's probes. */
static int record_trace(struct run *run)
{
	const struct options *opts = run->opts;
	struct sink *scope = NULL;
	if (!opts->system) {
		struct sink_config cfg = sink_config_of(run, NULL, stdout);
		struct file_request plain = { .measure = { .range = opts->range } };
		struct walk_config walk_cfg = walk_config_of(run, &plain);
		struct walk_result result = { 0 };
		walk_cfg.all = true; /* every file's row: its identity */
		walk_cfg.max_depth = -1;
		walk_cfg.quiet = true; /* the inspection tells what fails */
		scope = trace_scope_sink(&cfg);
		run_source(run, &walk_cfg, scope, &result);
	}
	struct trace_plan plan = {
		.seconds = opts->trace_seconds,
		.buffer = opts->trace_buffer,
		.whole_machine = opts->system,
		.quiet = opts->quiet,
		/* Prometheus's counters count from the start, for rate() */
		.per_sample = opts->interval > 0 && opts->format != FORMAT_PROMETHEUS,
	};
	int status;
	signals_catch(true); /* SIGINT and SIGTERM end the trace, not the run */
	run->trace = trace_start(&plan, scope, &status);
	if (!run->trace)
		return status;
	run->req.measure.trace = trace_tally(run->trace);
	if (opts->interval)
		return status; /* -i's samples follow it (watch_samples) */
	trace_follow(run->trace, opts->trace_seconds);
	status = trace_stop(run->trace);
	if (opts->trace_by != BY_FILE)
		name_traced_files(run);
	return status;
}

/* One inspection of everything asked: rows out, the total last.  With
 * watch (-i), the sample's time and each row's change go along. */
static int inspect(struct run *run, struct watch *watch, FILE *out, struct outcome *outcome)
{
	const struct options *opts = run->opts;
	struct sink_config sink_cfg = sink_config_of(run, watch, out);
	struct walk_config walk_cfg = walk_config_of(run, &run->req);
	struct sink *sink = new_sink(opts, watch, &sink_cfg);
	struct walk_result result = { 0 };
	struct system *sys = NULL;

	if (sink_begin(sink)) {
		progress_start(opts->progress, opts->format == FORMAT_TABLE, sink_cfg.page_size);
		if (opts->action == ACTION_WARM || opts->action == ACTION_LISTED ||
		    opts->action == ACTION_LOCK)
			progress_to_read(run->to_read);
		if (opts->trace_by != BY_FILE)
			result.output_failed = !trace_group_rows(run->trace, opts->trace_by == BY_CGROUP,
								 opts->top, sink, &result.total.stat,
								 &result.total.files);
		else
			sys = run_source(run, &walk_cfg, sink, &result);
		progress_suspend();
		if (!result.output_failed && run->trace && opts->trace_by == BY_FILE &&
		    !trace_after_rows(run->trace, sink, &result.total.stat))
			result.output_failed = true;
		if (!result.output_failed) {
			struct row total = {
				.type = ROW_TOTAL,
				.stat = result.total.stat,
				.files = result.total.files,
				.failed = result.errors,
			};
			result.output_failed = !sink_end(sink, &total, result.errors);
		}
	} else {
		result.output_failed = true;
	}
	sink_free(sink);
	system_free(sys);
	if (!result.output_failed)
		say_evict_left(opts, &result.total.stat);
	outcome->output_failed = result.output_failed;
	outcome->nothing_counted = result.total.stat.pages == 0;
	if (result.errors)
		return STATUS_SOME_FAILED;
	return below_expectation(opts, &result.total.stat) ? STATUS_NOT_CACHED : STATUS_OK;
}

/* One inspection written to stdout, or through --output-file: there each
 * sample of -i replaces the file whole (what a textfile collector reads). */
static int inspect_to_output(struct run *run, struct watch *watch, struct outcome *outcome)
{
	const struct options *opts = run->opts;

	if (!opts->output_file) {
		int status = inspect(run, watch, stdout, outcome);
		/* each sample reaches the reader (| jq) as soon as it is done;
		 * the stream's error is told when it is closed */
		if (outcome->output_failed || (watch && fflush(stdout) != 0))
			return STATUS_FATAL;
		return status;
	}
	FILE *out = outfile_open(opts->output_file);
	if (!out)
		return STATUS_FATAL;
	int status = inspect(run, watch, out, outcome);
	return outfile_close(out, outcome->output_failed ? STATUS_FATAL : status);
}

/* -i: a failure in any sample makes the status 1; --expect-cached is
 * judged on the last sample. */
static int watch_samples(struct run *run, struct outcome *outcome)
{
	int status = STATUS_OK;
	bool failed = false;
	/* --trace: each sample is of the motion since the one before, the
	 * first after one interval of it; the waits read the events */
	if (run->trace && !trace_follow(run->trace, run->opts->interval))
		return trace_stop(run->trace);
	struct watch *watch = watch_new(run->opts->interval, run->opts->count);
	if (run->trace)
		watch_wait_with(watch, trace_follow_until, run->trace);

	/* --lock: each later sample is a pass that follows the files */
	struct lock_set *locks = run->req.locks;
	bool first = true;

	while (watch_begin_sample(watch)) {
		if (locks)
			lock_sample_begin(locks, first);
		bool lost = run->trace && trace_sample(run->trace) != STATUS_OK;
		status = inspect_to_output(run, watch, outcome);
		if (run->trace)
			trace_sample_done(run->trace);
		failed |= lost;
		bool held = !locks || lock_sample_end(locks, first, status == STATUS_FATAL);
		if (status == STATUS_FATAL || !held)
			break;
		first = false;
		failed |= status == STATUS_SOME_FAILED;
		if (!watch_wait(watch))
			break;
	}
	watch_free(watch);
	if (run->trace && trace_stop(run->trace) != STATUS_OK)
		failed = true;
	return failed && status != STATUS_FATAL ? STATUS_SOME_FAILED : status;
}

/* Status 4 with no page counted: said, so that it is not taken for a
 * cold cache; -q, as in a loop that waits for the data, keeps quiet. */
static void say_nothing_to_judge(const struct options *opts, int status,
				 const struct outcome *outcome)
{
	if (status != STATUS_NOT_CACHED || !outcome->nothing_counted || opts->quiet)
		return;
	/* with --offset or --length, files that are not empty count none
	 * when the range is past their end */
	bool range = opts->range.offset || opts->range.length;
	msg("--expect-cached=%s: no page was counted (no file, or only empty files%s): "
	    "nothing to judge\n", opts->expect_cached_arg, range ? " or ranges" : "");
}

static void null_row(struct sink *sink, const struct row *row)
{
	(void)sink;
	(void)row;
}

static void null_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	(void)sink;
	(void)total;
	(void)errors;
}

/* --warm: what is missing, counted by an inspection that says nothing;
 * *range_bytes: the bytes of the ranges (what --lock pins). */
static uint64_t missing_bytes(struct run *run, uint64_t *range_bytes)
{
	static const struct sink_ops null_ops = { .row = null_row, .end = null_end };
	const struct options *opts = run->opts;
	struct sink_config cfg = { .out = stdout };
	struct walk_result result = { 0 };

	struct file_request plain = { .measure = { .range = opts->range } };
	struct walk_config walk_cfg = walk_config_of(run, &plain);
	/* every file counted, no row, nothing said (the warm says it) */
	walk_cfg.all = false;
	walk_cfg.max_depth = -1;
	walk_cfg.quiet = true;
	struct sink sink = { .ops = &null_ops, .cfg = cfg };
	if (opts->npids)
		pid_run(&walk_cfg, opts->pids, opts->npids, &sink, &result);
	else
		walk_run(&walk_cfg, opts->operands, &sink, &result);
	const struct pagecache_stat *t = &result.total.stat;
	*range_bytes = t->pages * run->setup.page_size;
	return (t->pages - t->cached) * run->setup.page_size;
}

/* --lock, following: the files walked again, saying nothing, each
 * locked as it is now (lock.c's pass around it: the budget, the changes
 * told). */
static void walk_again(void *ctx)
{
	static const struct sink_ops null_ops = { .row = null_row, .end = null_end };
	struct run *run = ctx;
	struct walk_config walk_cfg = walk_config_of(run, &run->req);
	struct walk_result result = { 0 };
	struct sink sink = { .ops = &null_ops, .cfg = { .out = stdout } };

	walk_cfg.all = false;
	walk_cfg.max_depth = -1;
	walk_cfg.quiet = true;
	if (run->snapshot)
		snapshot_run(run->snapshot, &walk_cfg, &sink, &result);
	else if (run->opts->npids)
		pid_run(&walk_cfg, run->opts->pids, run->opts->npids, &sink, &result);
	else
		walk_run(&walk_cfg, run->opts->operands, &sink, &result);
}

/* Before --lock: what it pins (the ranges, cached or not), which lock.c
 * checks against the memory available; else nothing is read or locked
 * (status 3). */
static int plan_lock(struct run *run)
{
	uint64_t pinned;

	if (run->opts->warm_from) {
		/* its files' spans; at most its extents to read */
		run->snapshot = snapshot_open(run->opts->warm_from, run->setup.page_size,
					      &run->to_read);
		if (!run->snapshot)
			return STATUS_USAGE;
		pinned = snapshot_span_bytes(run->snapshot);
	} else {
		run->to_read = missing_bytes(run, &pinned);
	}
	return lock_plan(&run->locks, pinned, run->to_read);
}

/* Before a warm: what it will read, which must fit in the memory the
 * kernel says is available; else nothing is read (status 3). */
static int plan_warm(struct run *run)
{
	const struct options *opts = run->opts;
	uint64_t available, range_bytes = 0;

	if (opts->action == ACTION_LOCK)
		return plan_lock(run);
	if (opts->action == ACTION_LISTED) {
		run->snapshot = snapshot_open(opts->warm_from, run->setup.page_size, &run->to_read);
		if (!run->snapshot)
			return STATUS_USAGE;
	} else if (opts->action == ACTION_WARM) {
		run->to_read = missing_bytes(run, &range_bytes);
	} else {
		return STATUS_OK;
	}
	if (meminfo_bytes("MemAvailable", &available) && run->to_read > available) {
		char need[FMT_BUFSIZE], have[FMT_BUFSIZE];
		fmt_human(need, run->to_read);
		fmt_human(have, available);
		bool warm = opts->action == ACTION_WARM;
		/* --warm-from takes no --offset or --length: its rows say what */
		msg("%s: %s to read, more than the %s of memory available (MemAvailable): "
		    "nothing read; %s\n", warm ? "--warm" : "--warm-from", need, have,
		    warm ? "warm fewer files, or a part with --offset and --length"
			 : "warm from a smaller snapshot, one of fewer file rows (filtered with "
			   "jq, say)");
		return STATUS_FATAL;
	}
	return STATUS_OK;
}

/* The plan: the method, and what each file is asked; false when no
 * method works here (told). */
static bool run_init(struct run *run, const struct options *opts)
{
	const char *why;

	*run = (struct run){
		.opts = opts,
		.req = {
			.measure = {
				.range = opts->range,
				.segments = opts->segments,
				.extents = opts->extents,
			},
			.action = opts->action,
		},
		.charge = { .pagemap_fd = -1, .kpagecgroup_fd = -1 },
	};
	int err = probe_init(opts->method, &run->setup, &why);
	if (err) {
		msg("%s: %s\n", why, strerror(err));
		probe_setup_free(&run->setup);
		return false;
	}
	rate_limit_init(&run->limit, opts->rate);
	inspector_init(&run->ins, &run->setup, &run->limit);
	struct lock_config lock_cfg = {
		.max = opts->lock_max,
		.max_arg = opts->lock_max_arg,
		.reserve = opts->reserve,
		.reserve_percent = opts->reserve_percent,
		.pidfile = opts->pidfile,
		.operands = opts->operands,
		.changes = opts->format == FORMAT_NDJSON && !opts->output_file ? stdout : NULL,
		.names = opts->action == ACTION_LOCK, /* SIGHUP's walk tells them */
		.no_follow = opts->no_follow,
		.pids = opts->npids > 0,
		.snapshot = opts->warm_from != NULL,
		.daemon = opts->daemon,
		.quiet = opts->quiet,
	};
	lock_set_init(&run->locks, run->setup.page_size, &lock_cfg);
	if (opts->action == ACTION_LOCK)
		run->req.locks = &run->locks;
	return true;
}

/* --charged: the cgroups' inodes and the kernel's two files, once, while
 * CAP_SYS_ADMIN is in effect; every thread's probe reads them. */
static bool charge_start(struct run *run)
{
	const char *why = NULL;
	size_t n = run->cgroups.n;
	const char **dirs = xcalloc(n ? n : 1, sizeof *dirs);
	for (size_t i = 0; i < n; i++)
		dirs[i] = run->cgroups.cgroups[i].dir;
	int err = charge_init(&run->charge, dirs, n, run->setup.page_size, &why);
	free(dirs);
	if (err) {
		msg("--charged: %s: %s\n", why, strerror(err));
		return false;
	}
	run->setup.charge = &run->charge;
	return true;
}

static void run_free(struct run *run)
{
	trace_free(run->trace);
	charge_free(&run->charge);
	cgroup_set_free(&run->cgroups);
	lock_set_free(&run->locks); /* unlocked, before the exit */
	snapshot_free(run->snapshot);
	inspector_free(&run->ins);
	rate_limit_free(&run->limit);
	probe_setup_free(&run->setup);
}

int run_inspection(const struct options *opts)
{
	struct outcome outcome = { 0 };
	struct run run;

	if (!run_init(&run, opts))
		return STATUS_FATAL;
	if (run.setup.fallback_errno && !opts->quiet)
		msg("cachestat(2) is unavailable (%s): using mincore(2), which knows cached "
		    "pages only\n", strerror(run.setup.fallback_errno));

	/* --daemon: the parent waits here until the daemon holds */
	if (opts->daemon) {
		int told = lock_daemon_start(&run.locks);
		if (told >= 0) {
			run_free(&run);
			return told;
		}
	}
	int status = plan_warm(&run);
	if (status == STATUS_OK && opts->ncgroups &&
	    !cgroup_resolve(opts->cgroups, opts->ncgroups, &run.cgroups))
		status = STATUS_USAGE;
	if (status == STATUS_OK && opts->charged && !charge_start(&run))
		status = STATUS_FATAL;
	if (status == STATUS_OK && opts->browse) {
		struct walk_config cfg = walk_config_of(&run, &run.req);
		struct browse_source src = {
			.operands = opts->npids || opts->system || opts->ncgroups ? NULL
										  : opts->operands,
			.pids = opts->pids,
			.npids = opts->npids,
			.system = opts->system,
			.cgroups = opts->ncgroups ? &run.cgroups : NULL,
		};
		status = browse_run(&cfg, &src);
	} else if (status == STATUS_OK) {
		bool lock = opts->action == ACTION_LOCK;
		int traced = STATUS_OK;
		if (opts->trace) {
			traced = record_trace(&run);
			if (!run.trace) {
				run_free(&run);
				return traced;
			}
		}
		if (opts->interval || opts->output_file || lock)
			signals_catch(opts->interval > 0 || lock);
		status = opts->interval ? watch_samples(&run, &outcome)
					: inspect_to_output(&run, NULL, &outcome);
		if (lock && !opts->interval)
			status = lock_run(&run.locks, status, (struct lock_walk){ walk_again, &run });
		/* events lost make the figures short: status 1 at least */
		if (traced == STATUS_SOME_FAILED && status == STATUS_OK)
			status = STATUS_SOME_FAILED;
		say_nothing_to_judge(opts, status, &outcome);
	}
	run_free(&run);
	return status;
}
