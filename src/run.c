/* SPDX-License-Identifier: MIT */
/* The run the options ask for: one inspection, or -i's samples, and the
 * exit status they make. */
#include <config.h>

#include "run.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "browse.h"
#include "caps.h"
#include "cgroup.h"
#include "charge.h"
#include "escape.h"
#include "format.h"
#include "memstat.h"
#include "msg.h"
#include "outfile.h"
#include "pidfiles.h"
#include "inspect.h"
#include "lock.h"
#include "probe.h"
#include "progress.h"
#include "rank.h"
#include "signals.h"
#include "sink.h"
#include "snapshot.h"
#include "system.h"
#include "status.h"
#include "userfile.h"
#include "walk.h"
#include "watch.h"
#include "xalloc.h"

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
	struct lock_set locks; /* --lock: the files locked, held to the end */
	/* --charged: the descriptors and the cgroups' inodes, once a run */
	struct charge charge;
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
		.top = opts->top,
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

/* One inspection of everything asked: rows out, the total last.  With
 * watch (-i), the sample's time and each row's change go along. */
static int inspect(struct run *run, struct watch *watch, FILE *out, struct outcome *outcome)
{
	const struct options *opts = run->opts;
	struct sink_config sink_cfg = {
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
		.system = opts->system ? &run->figures : NULL,
	};
	struct walk_config walk_cfg = walk_config_of(run, &run->req);
	struct sink *sink = new_sink(opts, watch, &sink_cfg);
	struct walk_result result = { 0 };
	struct system *sys = NULL;

	if (sink_begin(sink)) {
		progress_start(opts->progress, opts->format == FORMAT_TABLE, sink_cfg.page_size);
		if (opts->action == ACTION_WARM || opts->action == ACTION_LISTED ||
		    opts->action == ACTION_LOCK)
			progress_to_read(run->to_read);
		if (run->snapshot)
			snapshot_run(run->snapshot, &walk_cfg, sink, &result);
		else if (opts->system)
			sys = system_run(&walk_cfg, sink, &result, &run->figures);
		else if (opts->ncgroups && !opts->cgroup_walks)
			cgroup_run(&walk_cfg, &run->cgroups, sink, &result);
		else if (opts->npids)
			pid_run(&walk_cfg, opts->pids, opts->npids, sink, &result);
		else
			walk_run(&walk_cfg, opts->operands, sink, &result);
		progress_suspend();
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

/* --lock, once the rows are out: what was not locked and why, then the
 * line that says it holds.  False when nothing is held. */
static bool say_locked(struct run *run)
{
	const struct options *opts = run->opts;

	lock_say_refused(&run->locks);
	if (!opts->quiet)
		lock_say_left_out(&run->locks, opts->lock_max_arg);
	if (run->locks.nlive == 0) {
		if (!opts->quiet)
			msg("--lock: nothing locked, nothing to hold\n");
		return false;
	}
	/* the rows reach their reader before the hold */
	(void)fflush(stdout);
	lock_say_holding(&run->locks, opts->quiet);
	return true;
}

/* --reserve in bytes: SIZE, or PERCENT% of limit (the memory cgroup's
 * limit, or MemTotal). */
static uint64_t reserve_bytes(const struct options *opts, uint64_t limit)
{
	if (opts->reserve_percent > 0)
		return (uint64_t)((double)limit * opts->reserve_percent / 100.0);
	return opts->reserve;
}

/* The guard of every lock, the first pass's and each later one's: the
 * memory available (the machine's, or its memory cgroup's) less
 * --reserve, 0 when below it; UINT64_MAX when it cannot be read.
 * (--lock-max is lock.c's, against what is locked.) */
static uint64_t lock_budget(const struct run *run)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return UINT64_MAX;
	uint64_t reserve = reserve_bytes(run->opts, limit);
	return available > reserve ? available - reserve : 0;
}

/* -i: a failure in any sample makes the status 1; --expect-cached is
 * judged on the last sample. */
static int watch_samples(struct run *run, struct outcome *outcome)
{
	struct watch *watch = watch_new(run->opts->interval, run->opts->count);
	int status = STATUS_OK;
	bool failed = false;

	bool first = true;

	while (watch_begin_sample(watch)) {
		/* --lock: each later sample is a pass that follows the files */
		bool pass = !first && run->opts->action == ACTION_LOCK && !run->opts->no_follow;
		if (pass) {
			run->locks.following = true;
			run->locks.budget = lock_budget(run);
			lock_follow_begin(&run->locks);
		}
		status = inspect_to_output(run, watch, outcome);
		if (pass) {
			lock_follow_end(&run->locks);
			lock_notices_flush(&run->locks);
			run->locks.budget = UINT64_MAX;
		}
		if (status == STATUS_FATAL)
			break;
		if (first && run->opts->action == ACTION_LOCK && !say_locked(run))
			break;
		first = false;
		failed |= status == STATUS_SOME_FAILED;
		if (!watch_wait(watch))
			break;
	}
	watch_free(watch);
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

/* Following: the operands walked again, saying nothing, each file
 * locked as it is now within budget (lock_budget's, or less) (lock.c
 * tells the changes). */
static void relock(struct run *run, uint64_t budget)
{
	static const struct sink_ops null_ops = { .row = null_row, .end = null_end };
	struct walk_config walk_cfg = walk_config_of(run, &run->req);
	struct walk_result result = { 0 };
	struct sink sink = { .ops = &null_ops, .cfg = { .out = stdout } };

	walk_cfg.all = false;
	walk_cfg.max_depth = -1;
	walk_cfg.quiet = true;
	run->locks.following = true;
	run->locks.budget = budget;
	lock_follow_begin(&run->locks);
	if (run->snapshot)
		snapshot_run(run->snapshot, &walk_cfg, &sink, &result);
	else if (run->opts->npids)
		pid_run(&walk_cfg, run->opts->pids, run->opts->npids, &sink, &result);
	else
		walk_run(&walk_cfg, run->opts->operands, &sink, &result);
	lock_follow_end(&run->locks);
	run->locks.budget = UINT64_MAX;
}

/* --reserve: below it, the last files locked are unlocked; once the
 * memory available is a quarter of the reserve above it (so that it does
 * not flap), they are locked again as far as that margin allows. */
static void keep_reserve(struct run *run)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return;
	uint64_t reserve = reserve_bytes(run->opts, limit);
	uint64_t margin = reserve + reserve / 4;
	if (available < reserve) {
		lock_yield(&run->locks, available, reserve);
	} else if (available > margin && lock_yielded(&run->locks)) {
		relock(run, available - margin);
	}
}

/* --lock without -i: hold until SIGINT or SIGTERM (signals.c: the first
 * ends the run, the locks released as it ends), following the files
 * unless --no-follow. */
static void hold_locks(struct run *run)
{
	sigset_t stop, was;
	int changes = -1;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &was);
	signals_hup_rewalks();
	if (!run->opts->no_follow && !run->opts->npids && !run->snapshot)
		changes = lock_follow_start(&run->locks, run->opts->operands);
	/* --warm-from: no walk to follow or go again (its "-" is read) */
	if (run->snapshot && !run->opts->quiet)
		msg("--lock: --warm-from: the snapshot's files are not followed (as with "
		    "--no-follow); SIGHUP does nothing\n");
	bool hup_told = false;
	/* --reserve: the memory looked at each second, and at once when the
	 * kernel says tasks stall on memory (its pressure trigger) */
	bool reserving = run->opts->reserve || run->opts->reserve_percent > 0;
	struct timespec tick = { 1, 0 };
	struct pollfd pfd[2] = {
		{ .fd = changes, .events = POLLIN },
		{ .fd = reserving ? lock_pressure_trigger() : -1, .events = POLLPRI },
	};
	while (!signals_stop_requested()) {
		/* a negative fd is left out by poll */
		/* a second at most while changes wait to be counted */
		bool due = lock_notices_due(&run->locks);
		int ready = ppoll(pfd, 2, reserving || due ? &tick : NULL, &was);
		if (signals_stop_requested())
			break;
		bool hup = signals_take_hup();
		if (hup && run->snapshot) {
			if (!run->opts->quiet && !hup_told)
				msg("--lock: SIGHUP: --warm-from has no walk to go again; the locks "
				    "are held as they are\n");
			hup_told = true;
		} else if (hup) {
			if (!run->opts->quiet)
				msg("--lock: SIGHUP: walking the files again\n");
			relock(run, lock_budget(run));
			lock_say_pass(&run->locks, "SIGHUP");
		} else if (ready > 0 && (pfd[0].revents & POLLIN)) {
			relock(run, lock_budget(run));
		} else if (ready == 0) {
			lock_notices_flush(&run->locks); /* their second is over */
		}
		if (reserving)
			keep_reserve(run);
	}
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

/* Before --lock: what it pins (the ranges, cached or not), which must
 * fit in the memory available; else nothing is read or locked (status 3). */
static int plan_lock(struct run *run)
{
	uint64_t available, pinned;

	uint64_t limit, reserve = 0;
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
	if (run->opts->lock_max && pinned > run->opts->lock_max)
		pinned = run->opts->lock_max;
	if (!lock_available(&available, &limit))
		return STATUS_OK;
	reserve = reserve_bytes(run->opts, limit);
	if (pinned <= available && available - pinned >= reserve)
		return STATUS_OK;
	char need[FMT_BUFSIZE], read[FMT_BUFSIZE], have[FMT_BUFSIZE], keep[FMT_BUFSIZE];
	fmt_human(need, pinned);
	fmt_human(read, run->to_read);
	fmt_human(have, available);
	fmt_human(keep, reserve);
	msg("--lock: %s to lock (%s of it to read), more than the %s of memory available "
	    "(MemAvailable, or the memory cgroup's)%s%s%s: nothing read or locked; %s\n",
	    need, read, have, reserve ? " less --reserve's " : "", reserve ? keep : "",
	    reserve ? " kept" : "",
	    run->opts->warm_from
		    ? "lock from a smaller snapshot (fewer file rows, filtered with jq, say), "
		      "or up to a size with --lock-max"
		    : "lock fewer files, a part with --offset and --length, or up to a size with "
		      "--lock-max");
	return STATUS_FATAL;
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
	lock_set_init(&run->locks, run->setup.page_size, opts->lock_max);
	run->locks.follow = opts->action == ACTION_LOCK; /* names kept: SIGHUP's walk tells them */
	run->locks.quiet = opts->quiet;
	if (opts->format == FORMAT_NDJSON && !opts->output_file)
		run->locks.changes = stdout;
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
	int ready = -1;
	if (opts->daemon) {
		int told = lock_daemon_start(&ready);
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
		if (opts->interval || opts->output_file || lock)
			signals_catch(opts->interval > 0 || lock);
		status = opts->interval ? watch_samples(&run, &outcome)
					: inspect_to_output(&run, NULL, &outcome);
		if (lock && !opts->interval && status != STATUS_FATAL && say_locked(&run)) {
			struct user_pidfile pidfile = { .dirfd = -1 };
			if (!opts->daemon || lock_daemon_ready(ready, opts->pidfile, &pidfile, status)) {
				hold_locks(&run);
				lock_notify("STOPPING=1\nSTATUS=unlocking");
			} else {
				status = STATUS_FATAL;
			}
			/* through the directory it was written in, if still the file */
			user_pidfile_remove(&pidfile);
		}
		say_nothing_to_judge(opts, status, &outcome);
	}
	run_free(&run);
	return status;
}
