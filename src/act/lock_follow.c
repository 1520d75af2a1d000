/* SPDX-License-Identifier: MIT */
/* --lock, following the files once held: inotify on their directories
 * (at most LOCK_FOLLOW_MAX_WATCHES), each pass a walk again by the
 * caller, after which each file not met is unlocked and each change told
 * (on stderr through lock_notice, at most LOCK_NOTICES_PER_SECOND lines
 * a second; with --format=ndjson, as a line on stdout too). */
#include <config.h>

#include "act/lock.h"
#include "act/lock_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/format.h"
#include "lib/msg.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

void lock_notice(struct lock_set *set, const char *path, const char *fmt, ...)
{
	struct timespec now;
	char text[512];
	va_list ap;

	set->nchanges++;
	if (set->cfg.quiet)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec != set->window) {
		lock_notices_flush(set);
		set->window = now.tv_sec;
		set->told = 0;
	}
	if (set->told >= LOCK_NOTICES_PER_SECOND) {
		set->untold++;
		return;
	}
	set->told++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	msg("--lock: ");
	if (path)
		msg_name_str(path);
	else
		msg_more("a file");
	msg_more(": %s\n", text);
}

void lock_notices_flush(struct lock_set *set)
{
	if (!set->untold)
		return;
	msg("--lock: %" PRIu64 " more change%s not told (at most %d lines a second)\n", set->untold,
	    set->untold == 1 ? "" : "s", LOCK_NOTICES_PER_SECOND);
	set->untold = 0;
}

bool lock_notices_due(const struct lock_set *set)
{
	return set->untold > 0;
}

/* The events a directory is watched for: a file in it written, truncated,
 * created, deleted, renamed in or out. */
#define WATCHED (IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM | \
		 IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

struct watch_call {
	int inotify;
	const char *dir;
};

static int add_watch(void *arg)
{
	const struct watch_call *w = arg;
	return inotify_add_watch(w->inotify, w->dir, WATCHED | IN_ONLYDIR);
}

/* Watch the directory of path (a file's), or path itself (a directory),
 * with the user's rights (a setcap pagestat's capabilities would let it
 * watch a directory its user may not read). */
static void watch_dir_of(struct lock_set *set, const char *path, bool is_dir)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (is_dir || !slash) {
		snprintf(dir, sizeof dir, "%s", is_dir ? path : ".");
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= sizeof dir)
			return;
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	/* the same directory twice is one watch; at most
	 * LOCK_FOLLOW_MAX_WATCHES of them */
	struct stat st;
	if (user_fstatat(AT_FDCWD, dir, &st, 0) != 0 || !S_ISDIR(st.st_mode) ||
	    devino_has(&set->watched, st.st_dev, st.st_ino))
		return;
	if (set->nwatches >= LOCK_FOLLOW_MAX_WATCHES) {
		if (!set->watches_told && !set->cfg.quiet)
			msg("--lock: watching at most %d directories: changes in the others are "
			    "seen at the next pass (a change watched, or SIGHUP)\n",
			    LOCK_FOLLOW_MAX_WATCHES);
		set->watches_told = true;
		return;
	}
	struct watch_call w = { set->inotify, dir };
	if (user_call(add_watch, &w) >= 0) {
		(void)devino_add(&set->watched, st.st_dev, st.st_ino);
		set->nwatches++;
	}
}

/* The directories of the operands and of each locked file watched. */
static void watch_all(struct lock_set *set)
{
	for (size_t i = 0; set->cfg.operands && set->cfg.operands[i]; i++) {
		struct stat st;
		if (user_fstatat(AT_FDCWD, set->cfg.operands[i], &st, 0) == 0)
			watch_dir_of(set, set->cfg.operands[i], S_ISDIR(st.st_mode));
	}
	for (size_t i = 0; i < set->nfiles; i++)
		if (set->files[i].addr && set->files[i].path)
			watch_dir_of(set, set->files[i].path, false);
}

int lock_follow_start(struct lock_set *set)
{
	set->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (set->inotify < 0) {
		msg("--lock: cannot follow the files (inotify): %s; they stay locked as they are\n",
		    strerror(errno));
		return -1;
	}
	set->following = true;
	watch_all(set);
	return set->inotify;
}

/* Read every event waiting: which file changed does not matter, the pass
 * walks them all; a watch the kernel removed (its directory gone) is
 * counted off, and the directories watched are asked again. */
static void drain(struct lock_set *set)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	bool gone = false;

	while ((n = read(set->inotify, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
			if ((ev->mask & IN_IGNORED) && set->nwatches > 0) {
				set->nwatches--;
				gone = true;
			}
			p += sizeof *ev + ev->len;
		}
	}
	if (gone) {
		/* the directories left are watched already: the kernel gives
		 * their watch again, not a new one */
		devino_clear(&set->watched);
		set->nwatches = 0;
		set->rewatch = true;
	}
}

void lock_follow_begin(struct lock_set *set)
{
	/* the events of one change come together: a rename, a write */
	if (set->inotify >= 0) {
		struct timespec settle = { 0, 50 * 1000000L };
		nanosleep(&settle, NULL);
		drain(set);
	}
	set->pass++;
	set->nchanges = set->nrefusals = 0;
	for (size_t i = 0; i < set->nfiles; i++) {
		set->files[i].was = set->files[i].length;
		set->files[i].fresh = false;
	}
}

void lock_tell_change(const struct lock_set *set, const char *path, const char *change,
		      uint64_t length)
{
	FILE *out = set->cfg.changes;
	struct timespec now;
	struct tm tm;
	char when[32];

	if (!out)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	if (strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return;
	fprintf(out, "{\"time\":\"%s.%03ldZ\",\"change\":\"%s\",\"path\":", when,
		now.tv_nsec / 1000000, change);
	const char *name = path ? path : "";
	if (!esc_json_string(out, name, strlen(name))) {
		fputs(",\"path_base64\":\"", out);
		esc_base64(out, name, strlen(name));
		fputc('"', out);
	}
	fprintf(out, ",\"locked\":%" PRIu64 ",\"locked_bytes\":%" PRIu64 "}\n",
		length / set->page_size, length);
	(void)fflush(out);
}

/* A fresh file found where a removed one was (the same name): replaced. */
static struct locked_file *fresh_named(struct lock_set *set, const char *path)
{
	for (size_t i = 0; path && i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (f->fresh && f->addr && f->path && strcmp(f->path, path) == 0)
			return f;
	}
	return NULL;
}

/* The entries of files gone (not met by the pass, nothing locked or to
 * lock again) dropped, their memory given back, the index made again. */
static void drop_gone(struct lock_set *set)
{
	size_t kept = 0;

	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (!f->addr && !f->yielded && f->seen != set->pass) {
			free(f->path);
			continue;
		}
		set->files[kept++] = *f;
	}
	if (kept == set->nfiles)
		return;
	set->nfiles = kept;
	devino_free(&set->index);
	set->index = (struct devino_map){ 0 };
	for (size_t i = 0; i < kept; i++)
		if (set->files[i].ino)
			(void)devino_put(&set->index, set->files[i].dev, set->files[i].ino, i);
	if (set->cap > 64 && kept < set->cap / 4) {
		set->cap = kept < 32 ? 64 : kept * 2;
		set->files = xrealloc(set->files, set->cap * sizeof *set->files);
	}
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
}

/* f, not met by the pass (deleted, renamed away or replaced): unlocked,
 * and told so, or as replaced by the new file found under its name. */
static void tell_unmet(struct lock_set *set, struct locked_file *f)
{
	char bytes[FMT_BUFSIZE];
	size_t length = f->length;

	lock_release(set, f);
	struct locked_file *now = fresh_named(set, f->path);
	if (now) {
		now->fresh = false;
		now->was = now->length; /* told here, not as grown */
		fmt_human(bytes, now->length);
		lock_notice(set, now->path, "replaced; the new file locked (%s)", bytes);
		lock_tell_change(set, now->path, "replaced", now->length);
		return;
	}
	fmt_human(bytes, length);
	lock_notice(set, f->path, "deleted or renamed away; unlocked (%s given back)", bytes);
	lock_tell_change(set, f->path, "deleted", 0);
}

/* f, met by the pass, refused by its guard: told once, until it changes. */
static void tell_refused(struct lock_set *set, struct locked_file *f)
{
	char bytes[FMT_BUFSIZE], max[FMT_BUFSIZE];

	f->tell_refused = false;
	set->nrefusals++;
	fmt_human(max, set->cfg.max);
	fmt_human(bytes, f->refused);
	const char *why = f->over_max ? "it would pass --lock-max=" :
		"more than the memory available less --reserve";
	if (f->addr)
		lock_notice(set, f->path, "grew to %s; not locked past its old end: %s%s "
		       "(told once, until it changes)", bytes, why, f->over_max ? max : "");
	else
		lock_notice(set, f->path, "%s not locked: %s%s (told once, until it changes)",
		       bytes, why, f->over_max ? max : "");
}

/* f, met by the pass, named: new, grown, shrunk or shrunk to nothing. */
static void tell_met(struct lock_set *set, struct locked_file *f)
{
	char bytes[FMT_BUFSIZE];

	if (f->fresh && f->addr) {
		fmt_human(bytes, f->length);
		lock_notice(set, f->path, "new; locked (%s)", bytes);
		lock_tell_change(set, f->path, "new", f->length);
		watch_dir_of(set, f->path, false);
	} else if (!f->fresh && f->addr && f->length != f->was) {
		fmt_human(bytes, f->length);
		lock_notice(set, f->path, "%s to %s; %s", f->length > f->was ? "grew" : "shrank",
		       bytes, f->length > f->was ? "locked to its new end" : "unlocked past its end");
		lock_tell_change(set, f->path, f->length > f->was ? "grew" : "shrank", f->length);
	} else if (!f->fresh && !f->addr && f->was && !f->refused && !f->yielded) {
		lock_notice(set, f->path, "shrank to nothing; unlocked");
		lock_tell_change(set, f->path, "shrank", 0);
	}
}

void lock_follow_end(struct lock_set *set)
{
	char bytes[FMT_BUFSIZE];

	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		f->checked = false;
		if (f->yielded && f->seen != set->pass)
			f->yielded = false; /* gone meanwhile */
		if (f->again) {
			f->again = false;
			f->was = f->length;
			fmt_human(bytes, f->length);
			lock_notice(set, f->path, "locked again (%s): memory is available again", bytes);
			lock_tell_change(set, f->path, "locked again", f->length);
		}
		if (f->seen != set->pass && f->addr)
			tell_unmet(set, f);
	}
	for (size_t i = 0; i < set->nfiles; i++) {
		struct locked_file *f = &set->files[i];
		if (f->seen != set->pass)
			continue;
		if (f->tell_refused)
			tell_refused(set, f);
		if (!f->path)
			continue;
		tell_met(set, f);
		f->fresh = false;
	}
	drop_gone(set);
	if (set->rewatch && set->inotify >= 0) {
		set->rewatch = false;
		watch_all(set);
	}
}

void lock_say_pass(struct lock_set *set, const char *why)
{
	char bytes[FMT_BUFSIZE];

	lock_notices_flush(set);
	if (set->cfg.quiet)
		return;
	fmt_human(bytes, set->locked_bytes);
	msg("--lock: %s: %zu file%s, %s locked; %" PRIu64 " change%s, %" PRIu64 " not locked "
	    "for --lock-max or the memory available\n", why, set->nlive, set->nlive == 1 ? "" : "s",
	    bytes, set->nchanges, set->nchanges == 1 ? "" : "s", set->nrefusals);
}

void lock_pass(struct lock_set *set, uint64_t budget)
{
	set->following = true;
	set->budget = budget;
	lock_follow_begin(set);
	set->again.fn(set->again.ctx);
	lock_follow_end(set);
	set->budget = UINT64_MAX;
}
