/* SPDX-License-Identifier: MIT */
/* -i and --count: samples at a steady rate, each with its time, and the
 * change in cached pages of each row since the sample before. */
#include <config.h>

#include "output/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/signals.h"
#include "lib/xalloc.h"

/* The cached pages of each row of one sample, by type and path: an open
 * addressing table over an arena of paths (offsets, as it grows). */
struct sample {
	struct seen_row {
		uint64_t hash;
		size_t path_at, path_len;
		uint64_t cached;
		int type; /* -1: an empty slot */
	} *slots;
	size_t cap, count; /* cap: a power of two, or 0 */
	char *paths;
	size_t paths_len, paths_cap;
};

struct watch {
	struct timespec interval;
	uint64_t count, samples;
	struct timespec next; /* CLOCK_MONOTONIC: when the next sample is due */
	char time[32];
	struct sample previous, current;
	bool have_previous;
	/* what fills the wait instead of a sleep (--trace reads its
	 * events), or NULL */
	bool (*wait_until)(void *ctx, const struct timespec *deadline);
	void *wait_ctx;
};

void watch_wait_with(struct watch *watch,
		     bool (*wait_until)(void *ctx, const struct timespec *deadline), void *ctx)
{
	watch->wait_until = wait_until;
	watch->wait_ctx = ctx;
}

struct watch *watch_new(double interval, uint64_t count)
{
	struct watch *watch = xcalloc(1, sizeof *watch);
	watch->interval.tv_sec = (time_t)interval;
	watch->interval.tv_nsec = (long)((interval - (double)watch->interval.tv_sec) * 1e9);
	watch->count = count;
	clock_gettime(CLOCK_MONOTONIC, &watch->next);
	return watch;
}

static void sample_free(struct sample *s)
{
	free(s->slots);
	free(s->paths);
}

void watch_free(struct watch *watch)
{
	if (!watch)
		return;
	sample_free(&watch->previous);
	sample_free(&watch->current);
	free(watch);
}

static void stamp(char buf[32])
{
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	size_t n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03ldZ", now.tv_nsec / 1000000);
}

bool watch_begin_sample(struct watch *watch)
{
	if (signals_stop_requested() || (watch->count && watch->samples == watch->count))
		return false;
	watch->samples++;
	stamp(watch->time);
	return true;
}

const char *watch_time(const struct watch *watch)
{
	return watch->time;
}

bool watch_later_sample(const struct watch *watch)
{
	return watch->samples > 1;
}

static void add_time(struct timespec *t, const struct timespec *d)
{
	t->tv_sec += d->tv_sec;
	t->tv_nsec += d->tv_nsec;
	if (t->tv_nsec >= 1000000000) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000;
	}
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

bool watch_wait(struct watch *watch)
{
	if (signals_stop_requested() || (watch->count && watch->samples >= watch->count))
		return false;
	/* a steady rate: due one interval after the last was due; a sample
	 * that took longer than the interval is followed at once */
	struct timespec now;
	add_time(&watch->next, &watch->interval);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (before(&watch->next, &now)) {
		watch->next = now;
		return !signals_stop_requested();
	}
	if (watch->wait_until)
		return watch->wait_until(watch->wait_ctx, &watch->next) && !signals_stop_requested();
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &watch->next, NULL) == EINTR)
		if (signals_stop_requested())
			return false;
	return !signals_stop_requested();
}

/* ---- the change in cached pages, row by row ----------------------------- */

static uint64_t row_hash(int type, const char *path, size_t len)
{
	uint64_t h = 1469598103934665603u ^ (uint64_t)type; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)path[i]) * 1099511628211u;
	return h;
}

static struct seen_row *find_slot(const struct sample *s, uint64_t hash, int type,
				  const char *path, size_t len)
{
	size_t mask = s->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct seen_row *slot = &s->slots[i];
		if (slot->type < 0 ||
		    (slot->hash == hash && slot->type == type && slot->path_len == len &&
		     (len == 0 || memcmp(s->paths + slot->path_at, path, len) == 0)))
			return slot;
	}
}

static void grow(struct sample *s)
{
	struct sample bigger = { .cap = s->cap ? s->cap * 2 : 256 };
	bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
	for (size_t i = 0; i < bigger.cap; i++)
		bigger.slots[i].type = -1;
	for (size_t i = 0; i < s->cap; i++) {
		const struct seen_row *old = &s->slots[i];
		if (old->type < 0)
			continue;
		size_t j = old->hash & (bigger.cap - 1);
		while (bigger.slots[j].type >= 0)
			j = (j + 1) & (bigger.cap - 1);
		bigger.slots[j] = *old;
	}
	free(s->slots);
	s->slots = bigger.slots;
	s->cap = bigger.cap;
}

static void remember(struct sample *s, int type, const char *path, size_t len,
		     uint64_t cached)
{
	if ((s->count + 1) * 4 > s->cap * 3)
		grow(s);
	uint64_t hash = row_hash(type, path, len);
	struct seen_row *slot = find_slot(s, hash, type, path, len);
	if (slot->type >= 0)
		return; /* the same path twice (-l, overlapping operands): the first */
	if (s->paths_len + len > s->paths_cap) {
		s->paths_cap = s->paths_cap ? s->paths_cap : 4096;
		while (s->paths_len + len > s->paths_cap)
			s->paths_cap *= 2;
		s->paths = xrealloc(s->paths, s->paths_cap);
	}
	if (len)
		memcpy(s->paths + s->paths_len, path, len);
	*slot = (struct seen_row){ hash, s->paths_len, len, cached, type };
	s->paths_len += len;
	s->count++;
}

static void sample_clear(struct sample *s)
{
	for (size_t i = 0; i < s->cap; i++)
		s->slots[i].type = -1;
	s->count = 0;
	s->paths_len = 0;
}

/* Fill in row's change and remember its cached pages for the next sample. */
static void track(struct watch *watch, struct row *row)
{
	size_t len;
	const char *path = column_text(COL_PATH, row, &len);

	row->delta_known = false;
	if (row->error || !column_known(COL_CACHED, row))
		return;
	if (watch->have_previous && watch->previous.cap) {
		const struct seen_row *was =
			find_slot(&watch->previous, row_hash((int)row->type, path, len),
				  (int)row->type, path, len);
		if (was->type >= 0) {
			row->delta = (int64_t)(row->stat.cached - was->cached);
			row->delta_known = true;
		}
	}
	remember(&watch->current, (int)row->type, path, len, row->stat.cached);
}

static void delta_row(struct sink *sink, const struct row *row)
{
	struct row copy = *row;

	track(sink->state, &copy);
	sink_row(sink->inner, &copy);
}

static void delta_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	struct watch *w = sink->state;
	struct row copy = *total;

	track(w, &copy);
	sink_end(sink->inner, &copy, errors);
	/* this sample is the one the next compares with */
	struct sample done = w->current;
	w->current = w->previous;
	w->previous = done;
	sample_clear(&w->current);
	w->have_previous = true;
}

/* the watch is not the sink's to free */
static const struct sink_ops delta_ops = {
	.row = delta_row,
	.end = delta_end,
};

struct sink *sink_delta_new(struct sink *out, struct watch *watch)
{
	return sink_wrap(out, &delta_ops, watch);
}
