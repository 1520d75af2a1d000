/* SPDX-License-Identifier: MIT */
/* Unit tests of progress.c: the text of a warm's meter. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>

#include "lib/progress.h"
#include "unit.h"

#define MIB (UINT64_C(1) << 20)
#define NS_PER_S INT64_C(1000000000)

static void expect_warm(const char *what, uint64_t read, uint64_t to_read, uint64_t paced,
			int64_t paced_ns, const char *want)
{
	char buf[128];
	int n = progress_warm_text(buf, sizeof buf, read, to_read, paced, paced_ns);
	unit_expect_str(what, buf, want);
	unit_check(n > 0 && (size_t)n < sizeof buf, "%s: length %d", what, n);
}

void unit_progress(void)
{
	/* --rate=16M reads 1 MiB chunks, the first at once, then one each
	 * 1/16 s: 40 read, 39 of them paced in 39/16 s, the first read
	 * having taken a millisecond longer than the last */
	expect_warm("16 MiB/s is 16M/s", 40 * MIB, 80 * MIB, 39 * MIB,
		    39 * NS_PER_S / 16 - 1000000, "read 40M of 80M, 16M/s, 3 s left");
	/* read over the whole time would be 16.4 MiB/s, "17M" rounded up */
	expect_warm("exactly 16 MiB/s", 40 * MIB, 80 * MIB, 40 * MIB, 40 * NS_PER_S / 16,
		    "read 40M of 80M, 16M/s, 3 s left");
	expect_warm("--rate=200M", 1000 * MIB, 4096 * MIB, 999 * MIB, 999 * NS_PER_S / 200,
		    "read 1000M of 4.0G, 200M/s, 16 s left");
	/* --rate=100MB is SI: 95.4 MiB/s */
	expect_warm("--rate=100MB", 500000000, 1000000000, 499000000, 4990 * NS_PER_S / 1000,
		    "read 477M of 954M, 95M/s, 5 s left");
	/* the first read alone: no rate yet, no time left */
	expect_warm("first read", MIB, 80 * MIB, 0, 0, "read 1.0M of 80M");
	expect_warm("no time yet", MIB, 80 * MIB, MIB, 0, "read 1.0M of 80M");
	expect_warm("done", 80 * MIB, 80 * MIB, 79 * MIB, 79 * NS_PER_S / 16,
		    "read 80M of 80M, 16M/s, 0 s left");
	/* more read than counted (a file grew): nothing left */
	expect_warm("past the count", 90 * MIB, 80 * MIB, 89 * MIB, 89 * NS_PER_S / 16,
		    "read 90M of 80M, 16M/s, 0 s left");
	char small[8];
	int need = progress_warm_text(small, sizeof small, MIB, 80 * MIB, 0, 0);
	unit_check(need == 16, "progress_warm_text truncated: %d, want 16", need);
}
