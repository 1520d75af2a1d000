/* SPDX-License-Identifier: MIT */
/* -i and --count: samples at a steady rate, each with its time, and the
 * change in cached pages of each row since the sample before. */
#ifndef PAGESTAT_WATCH_H
#define PAGESTAT_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "output/sink.h"

struct watch;

/* Samples every interval seconds, count of them (0: until SIGINT or
 * SIGTERM, which end the run after the sample under way: signals.h). */
struct watch *watch_new(double interval, uint64_t count);
void watch_free(struct watch *watch);

/* A sample starts: its time is taken.  False when none is to start (the
 * count is reached, or a signal came). */
bool watch_begin_sample(struct watch *watch);

/* The time of the sample under way, RFC 3339 in UTC with milliseconds,
 * "2026-11-30T04:20:00.123Z"; true for every sample but the first. */
const char *watch_time(const struct watch *watch);
bool watch_later_sample(const struct watch *watch);

/* Sleep until the next sample is due; false when interrupted by a signal
 * or when the count is reached. */
bool watch_wait(struct watch *watch);

/* watch_wait calls wait_until(ctx, deadline) instead of sleeping until
 * the sample is due (CLOCK_MONOTONIC); false from it ends the samples. */
void watch_wait_with(struct watch *watch,
		     bool (*wait_until)(void *ctx, const struct timespec *deadline), void *ctx);

/* A sink in front of `out` that fills in each row's change in cached
 * pages since the previous sample (rows matched by type and path) and
 * remembers this sample's for the next; freeing it frees `out` too. */
struct sink *sink_delta_new(struct sink *out, struct watch *watch);

#endif
