/* SPDX-License-Identifier: MIT */
/* --progress: a one-line meter on a terminal's stderr while a walk runs. */
#ifndef PAGESTAT_PROGRESS_H
#define PAGESTAT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum progress_mode {
	PROGRESS_AUTO,   /* on a terminal, once the walk has run about a second */
	PROGRESS_ALWAYS, /* --progress: on a terminal, from the start */
	PROGRESS_NEVER,  /* --no-progress */
};

/* Before each inspection (each sample of -i).  The meter is drawn only
 * when stderr is a terminal, and not when stdout is that terminal too
 * unless table (which prints at the end, or from row 1000 on: then
 * progress_stdout_streams). */
void progress_start(enum progress_mode mode, bool table, uint64_t page_size);

/* A file was inspected, with that many cached pages. */
void progress_file(uint64_t cached_pages);

/* A warm: the meter shows the bytes read of these, the rate and the time
 * left.  After progress_start. */
void progress_to_read(uint64_t bytes);

/* Bytes read by a warm (from any thread; drawn by the one that started). */
void progress_read(uint64_t bytes);

/* The meter of a warm, after "pagestat: ": "read 40M of 80M, 16M/s, 3 s
 * left", read of to_read bytes.  The rate is paced bytes in paced_ns,
 * written as fmt_rate does (the units of --rate, to the nearest); none
 * while paced is 0.  Like snprintf: returns the length it needs. */
int progress_warm_text(char *buf, size_t cap, uint64_t read, uint64_t to_read, uint64_t paced,
		       int64_t paced_ns);

/* Erase the meter (before a message on stderr); it comes back at the
 * next update. */
void progress_clear(void);

/* Erase the meter and draw no more until the next progress_start. */
void progress_suspend(void);

/* The table starts printing rows as they come: on a terminal stdout,
 * the meter would mix with them, so it stops (progress_suspend). */
void progress_stdout_streams(void);

#endif
