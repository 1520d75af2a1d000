/* SPDX-License-Identifier: MIT */
/* The floor: the least a tool must do to total the cached pages of a tree
 * with cachestat(2).  fts walks (physical), every regular file is opened,
 * asked once and closed; the sum of cached pages is printed.  Nothing else:
 * no dedupe, no checks, no output but the total.  pagestat is timed against
 * it by bench/run.
 *
 *   floor PATH...      prints the total cached pages, exits 0 (1 on errors)
 *
 * Built by bench/run with `cc -O2`, not by automake.  Built with
 * -DFLOOR_NOCHDIR (bench/cost does), fts does not change directory and
 * every file is opened by its whole path from the operand: the cost of
 * long paths against fts_accpath relative to the current directory.
 * Built with -DFLOOR_NOSTAT, fts stats no file (FTS_NOSTAT) and the size
 * comes from fstat on the opened file: one stat by descriptor instead of
 * one by name.  glibc's fts then keeps no type at all, so this variant
 * opens every entry that is not a directory: a measurement of what a walk
 * that keeps readdir's d_type would save, not a safe tool (pagestat must
 * never open FIFOs or devices).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* As in src/compat/cachestat.h: syscall 451 everywhere, the same layout.
 * Own names, so that newer <linux/mman.h> headers cannot clash. */
#define FLOOR_NR_CACHESTAT 451

struct floor_range {
	uint64_t off;
	uint64_t len;
};

struct floor_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: floor PATH...\n", stderr);
		return 2;
	}
#if defined FLOOR_NOCHDIR
	FTS *fts = fts_open(argv + 1, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
#elif defined FLOOR_NOSTAT
	FTS *fts = fts_open(argv + 1, FTS_PHYSICAL | FTS_NOSTAT, NULL);
#else
	FTS *fts = fts_open(argv + 1, FTS_PHYSICAL, NULL);
#endif
	if (!fts) {
		perror("floor: fts_open");
		return 1;
	}
	uint64_t cached = 0;
	int status = 0;
	FTSENT *p;
	while ((p = fts_read(fts)) != NULL) {
#ifdef FLOOR_NOSTAT
		if (p->fts_info != FTS_NSOK && p->fts_info != FTS_F)
			continue;
#else
		if (p->fts_info != FTS_F)
			continue;
#endif
		int fd = open(p->fts_accpath,
			      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			status = 1;
			continue;
		}
#ifdef FLOOR_NOSTAT
		struct stat st;
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		struct floor_range range = { 0, (uint64_t)st.st_size };
#else
		struct floor_range range = { 0, (uint64_t)p->fts_statp->st_size };
#endif
		struct floor_cachestat cs;
		if (syscall(FLOOR_NR_CACHESTAT, fd, &range, &cs, 0) == 0)
			cached += cs.nr_cache;
		else
			status = 1;
		close(fd);
	}
	fts_close(fts);
	printf("%" PRIu64 "\n", cached);
	return status;
}
