/* SPDX-License-Identifier: MIT */
/* A pace: what a long read (a warm's chunks, a lock's faults) asks before
 * each chunk, with its caller's context; one shape for every caller. */
#ifndef PAGESTAT_PACE_H
#define PAGESTAT_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* Asked on the thread that reads, before bytes more are read; true stops
 * the read there. */
typedef bool pace_fn(void *ctx, uint64_t bytes);

/* The function and what it is given; fn NULL: never asked. */
struct pace {
	pace_fn *fn;
	void *ctx;
};

/* Does the pace stop the read before bytes more (never without one)? */
static inline bool pace_stops(const struct pace *pace, uint64_t bytes)
{
	return pace->fn && pace->fn(pace->ctx, bytes);
}

#endif
