/* SPDX-License-Identifier: MIT */
/* --progress: a one-line meter on a terminal's stderr while a walk runs. */
#include <config.h>

#include "lib/progress.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/format.h"

/* Redrawn at most this often, once the walk has run for the delay. */
#define REDRAW_NS (250 * 1000000LL)
#define DELAY_MS 1000

static struct {
	bool on;        /* may draw in this inspection */
	bool stdout_tty; /* stdout is a terminal (the same one, most likely) */
	bool shown;     /* a meter is on the screen now */
	int64_t start;  /* CLOCK_MONOTONIC, ns */
	int64_t first;  /* when it may first be drawn */
	int64_t last;   /* last drawn */
	uint64_t files, cached_pages, page_size;
	bool warming;     /* a warm: bytes read of to_read is the meter */
	uint64_t to_read; /* bytes, as the warm's first pass counted them */
	uint64_t read;    /* bytes read so far, by every thread (atomic) */
	uint64_t first_read; /* bytes of the first read (atomic) */
	int64_t paced_from;  /* when it ended (atomic; 0: none yet) */
	pthread_t drawer;    /* the thread that started it */
} meter;


static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* PAGESTAT_PROGRESS_DELAY_MS, for the tests: the wait before the meter. */
static int64_t delay_ns(void)
{
	const char *env = getenv("PAGESTAT_PROGRESS_DELAY_MS");
	char *end;
	if (env && *env) {
		long ms = strtol(env, &end, 10);
		if (!*end && ms >= 0 && ms <= 3600L * 1000)
			return ms * 1000000LL;
	}
	return DELAY_MS * 1000000LL;
}

void progress_start(enum progress_mode mode, bool table, uint64_t page_size)
{
	meter.stdout_tty = isatty(STDOUT_FILENO);
	meter.on = mode != PROGRESS_NEVER && isatty(STDERR_FILENO) &&
		   (table || !meter.stdout_tty);
	meter.shown = false;
	meter.files = meter.cached_pages = 0;
	meter.page_size = page_size;
	meter.warming = false;
	meter.read = meter.first_read = 0;
	meter.paced_from = 0;
	meter.drawer = pthread_self();
	meter.start = meter.last = now_ns();
	meter.first = meter.start + (mode == PROGRESS_ALWAYS ? 0 : delay_ns());
}

int progress_warm_text(char *buf, size_t cap, uint64_t read, uint64_t to_read, uint64_t paced,
		       int64_t paced_ns)
{
	char done[FMT_BUFSIZE], total[FMT_BUFSIZE], speed[FMT_BUFSIZE];
	uint64_t rate = paced && paced_ns > 0
				? (uint64_t)((unsigned __int128)paced * 1000000000u / (uint64_t)paced_ns)
				: 0;
	uint64_t left = to_read > read ? to_read - read : 0;

	fmt_human(done, read);
	fmt_human(total, to_read);
	if (!rate)
		return snprintf(buf, cap, "read %s of %s", done, total);
	fmt_rate(speed, rate);
	return snprintf(buf, cap, "read %s of %s, %s/s, %" PRIu64 " s left", done, total, speed,
			(left + rate - 1) / rate);
}

/* The rate leaves out the first read, which --rate lets go at once: the
 * rest came at the pace it sets, over the time since that read ended. */
static void draw_warm(int64_t now)
{
	char line[128];
	int64_t from = __atomic_load_n(&meter.paced_from, __ATOMIC_ACQUIRE);
	uint64_t read = __atomic_load_n(&meter.read, __ATOMIC_RELAXED);
	uint64_t first = __atomic_load_n(&meter.first_read, __ATOMIC_RELAXED);

	if (!from)
		first = read;
	progress_warm_text(line, sizeof line, read, meter.to_read, read - first,
			   from ? now - from : 0);
	fprintf(stderr, "\r\033[Kpagestat: %s", line);
}

static void draw(int64_t now)
{
	char cached[FMT_BUFSIZE];
	if (meter.warming) {
		draw_warm(now);
		(void)fflush(stderr);
		meter.shown = true;
		meter.last = now;
		return;
	}
	double seconds = (double)(now - meter.start) / 1e9;
	uint64_t rate = seconds > 0 ? (uint64_t)((double)meter.files / seconds) : 0;

	fmt_human(cached, meter.cached_pages * meter.page_size);
	/* \r and erase to the end of the line: a shorter line leaves no tail */
	fprintf(stderr, "\r\033[Kpagestat: %" PRIu64 " file%s, %" PRIu64 " files/s, %s cached",
		meter.files, meter.files == 1 ? "" : "s", rate, cached);
	(void)fflush(stderr);
	meter.shown = true;
	meter.last = now;
}

/* Drawn now if it is time. */
static void tick(void)
{
	/* only the thread that started the meter draws it */
	if (!meter.on || !pthread_equal(pthread_self(), meter.drawer))
		return;
	int64_t now = now_ns();
	/* the first time as soon as it may be, then every REDRAW_NS */
	if (now >= meter.first && (meter.last == meter.start || now - meter.last >= REDRAW_NS))
		draw(now);
}

void progress_file(uint64_t cached_pages)
{
	meter.files++;
	meter.cached_pages += cached_pages;
	tick();
}

void progress_to_read(uint64_t bytes)
{
	meter.warming = true;
	meter.to_read = bytes;
}

void progress_read(uint64_t bytes)
{
	uint64_t none = 0;

	/* counted before paced_from is published, so that read >= first_read
	 * wherever paced_from is seen */
	__atomic_add_fetch(&meter.read, bytes, __ATOMIC_RELAXED);
	if (bytes && __atomic_compare_exchange_n(&meter.first_read, &none, bytes, false,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		__atomic_store_n(&meter.paced_from, now_ns(), __ATOMIC_RELEASE);
	tick();
}

void progress_clear(void)
{
	if (!meter.shown)
		return;
	fputs("\r\033[K", stderr);
	(void)fflush(stderr);
	meter.shown = false;
	/* not drawn again at once: the message just printed stays readable */
	meter.last = now_ns();
}

void progress_suspend(void)
{
	progress_clear();
	meter.on = false;
}

void progress_stdout_streams(void)
{
	if (meter.stdout_tty)
		progress_suspend();
}
