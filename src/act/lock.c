/* SPDX-License-Identifier: MIT */
/* --lock's run: the set of the files locked (struct lock_set), the first
 * pass's refusals told, then the hold (signals, changes, the memory's
 * pressure) or -i's samples, each a pass that follows the files.  Each
 * file is mapped and locked by lock_map.c, followed by lock_follow.c,
 * kept within the memory available by lock_guard.c; lock_daemon.c
 * detaches. */
#include <config.h>

#include "act/lock.h"
#include "act/lock_int.h"

#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/format.h"
#include "lib/msg.h"
#include "lib/signals.h"
#include "lib/status.h"
#include "kernel/userfile.h"

void lock_set_init(struct lock_set *set, uint64_t page_size, const struct lock_config *cfg)
{
	*set = (struct lock_set){ .page_size = page_size, .cfg = *cfg, .inotify = -1, .ready = -1,
				  .budget = UINT64_MAX };
	pthread_mutex_init(&set->mutex, NULL);
}

void lock_set_free(struct lock_set *set)
{
	/* munmap unlocks too; munlock first says so where it is read */
	for (size_t i = 0; i < set->nfiles; i++) {
		if (set->files[i].addr) {
			(void)munlock(set->files[i].addr, set->files[i].length);
			(void)munmap(set->files[i].addr, set->files[i].length);
		}
		free(set->files[i].path);
	}
	free(set->files);
	devino_free(&set->watched);
	if (set->inotify >= 0)
		close(set->inotify);
	devino_free(&set->index);
	pthread_mutex_destroy(&set->mutex);
	*set = (struct lock_set){ 0 };
}

/* What stopped files from being locked, with the figures and remedies,
 * on stderr (nothing when all were). */
static void say_refused(const struct lock_set *set)
{
	if (set->memlock_files) {
		char have[FMT_BUFSIZE], left[FMT_BUFSIZE], asked[FMT_BUFSIZE], limit[FMT_BUFSIZE];
		struct rlimit rl = { 0 };
		(void)getrlimit(RLIMIT_MEMLOCK, &rl);
		fmt_human(have, set->locked_bytes);
		fmt_human(left, set->memlock_bytes);
		fmt_human(asked, set->locked_bytes + set->memlock_bytes);
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(limit, sizeof limit, "unlimited");
		else
			fmt_human(limit, (uint64_t)rl.rlim_cur);
		msg("--lock: %" PRIu64 " file%s (%s) not locked: the locked-memory limit "
		    "(RLIMIT_MEMLOCK) is %s and %s was asked (%s is locked and held); to lock "
		    "it all, raise the limit with 'ulimit -l' (KiB, or unlimited), with "
		    "LimitMEMLOCK= in a systemd unit, or run pagestat with CAP_IPC_LOCK (as root, "
		    "or AmbientCapabilities=CAP_IPC_LOCK in a unit)\n",
		    set->memlock_files, set->memlock_files > 1 ? "s" : "", left, limit, asked, have);
	}
	if (set->mapcount_files) {
		msg("--lock: %" PRIu64 " file%s not locked: the process has %" PRIu64 " mappings, "
		    "and the sysctl vm.max_map_count allows %" PRIu64 " (each file locked is one); "
		    "raise it (sysctl -w vm.max_map_count=N) or lock fewer files\n",
		    set->mapcount_files, set->mapcount_files > 1 ? "s" : "", set->map_count,
		    set->max_map_count);
	}
}

/* What --lock-max left out, on stderr, if anything. */
static void say_left_out(const struct lock_set *set)
{
	char bytes[FMT_BUFSIZE], have[FMT_BUFSIZE];

	if (!set->left_files)
		return;
	fmt_human(bytes, set->left_bytes);
	fmt_human(have, set->locked_bytes);
	msg("--lock-max=%s: %" PRIu64 " file%s (%s) left out, the last in walk order (their rows "
	    "show 0 locked); %s is locked\n",
	    set->cfg.max_arg, set->left_files, set->left_files > 1 ? "s" : "", bytes, have);
}

/* The line that says the run now holds: files, bytes, pid (unless -q);
 * and to systemd, READY=1 and the same as STATUS=. */
static void say_holding(const struct lock_set *set)
{
	char bytes[FMT_BUFSIZE], state[128];

	fmt_human(bytes, set->locked_bytes);
	snprintf(state, sizeof state, "READY=1\nSTATUS=%zu file%s, %s locked: holding", set->nlive,
		 set->nlive == 1 ? "" : "s", bytes);
	lock_notify(state);
	if (set->cfg.quiet)
		return;
	msg("--lock: %zu file%s, %" PRIu64 " bytes (%s) locked by pid %ld: holding until SIGINT "
	    "or SIGTERM\n",
	    set->nlive, set->nlive == 1 ? "" : "s", set->locked_bytes, bytes, (long)getpid());
}

/* What the first pass left is out: what was not locked and why, then the
 * line that says it holds.  False when nothing is held. */
static bool say_locked(struct lock_set *set)
{
	say_refused(set);
	if (!set->cfg.quiet)
		say_left_out(set);
	if (set->nlive == 0) {
		if (!set->cfg.quiet)
			msg("--lock: nothing locked, nothing to hold\n");
		return false;
	}
	/* the rows reach their reader before the hold */
	(void)fflush(stdout);
	say_holding(set);
	return true;
}

/* Held: hold until SIGINT or SIGTERM (signals.c: the first ends the run,
 * the locks released as it ends), following the files unless
 * --no-follow. */
static void hold(struct lock_set *set)
{
	sigset_t stop, was;
	int changes = -1;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &was);
	signals_hup_rewalks();
	if (!set->cfg.no_follow && !set->cfg.pids && !set->cfg.snapshot)
		changes = lock_follow_start(set);
	/* --warm-from: no walk to follow or go again (its "-" is read) */
	if (set->cfg.snapshot && !set->cfg.quiet)
		msg("--lock: --warm-from: the snapshot's files are not followed (as with "
		    "--no-follow); SIGHUP does nothing\n");
	bool hup_told = false;
	/* --reserve: the memory looked at each second, and at once when the
	 * kernel says tasks stall on memory (its pressure trigger) */
	bool reserving = set->cfg.reserve || set->cfg.reserve_percent > 0;
	struct timespec tick = { 1, 0 };
	struct pollfd pfd[2] = {
		{ .fd = changes, .events = POLLIN },
		{ .fd = reserving ? lock_pressure_trigger() : -1, .events = POLLPRI },
	};
	while (!signals_stop_requested()) {
		/* a negative fd is left out by poll */
		/* a second at most while changes wait to be counted */
		bool due = lock_notices_due(set);
		int ready = ppoll(pfd, 2, reserving || due ? &tick : NULL, &was);
		if (signals_stop_requested())
			break;
		bool hup = signals_take_hup();
		if (hup && set->cfg.snapshot) {
			if (!set->cfg.quiet && !hup_told)
				msg("--lock: SIGHUP: --warm-from has no walk to go again; the locks "
				    "are held as they are\n");
			hup_told = true;
		} else if (hup) {
			if (!set->cfg.quiet)
				msg("--lock: SIGHUP: walking the files again\n");
			lock_pass(set, lock_budget(set));
			lock_say_pass(set, "SIGHUP");
		} else if (ready > 0 && (pfd[0].revents & POLLIN)) {
			lock_pass(set, lock_budget(set));
		} else if (ready == 0) {
			lock_notices_flush(set); /* their second is over */
		}
		if (reserving)
			lock_keep_reserve(set);
	}
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void lock_sample_begin(struct lock_set *set, bool first)
{
	if (first || set->cfg.no_follow)
		return;
	set->following = true;
	set->budget = lock_budget(set);
	lock_follow_begin(set);
}

bool lock_sample_end(struct lock_set *set, bool first, bool fatal)
{
	if (!first && !set->cfg.no_follow) {
		lock_follow_end(set);
		lock_notices_flush(set);
		set->budget = UINT64_MAX;
	}
	return fatal || !first || say_locked(set);
}

int lock_run(struct lock_set *set, int status, struct lock_walk again)
{
	if (status == STATUS_FATAL || !say_locked(set))
		return status;
	struct user_pidfile pidfile = { .dirfd = -1 };
	set->again = again;
	if (!set->cfg.daemon || lock_daemon_ready(set, &pidfile, status)) {
		hold(set);
		lock_notify("STOPPING=1\nSTATUS=unlocking");
	} else {
		status = STATUS_FATAL;
	}
	/* through the directory it was written in, if still the file */
	user_pidfile_remove(&pidfile);
	return status;
}
