/* SPDX-License-Identifier: MIT */
/* What went wrong with a file: errno values, and the failures that have
 * none of their own, with their texts. */
#ifndef PAGESTAT_FAIL_H
#define PAGESTAT_FAIL_H

/* Failures that have no errno of their own (negative, unlike errno). */
enum {
	FAIL_CHANGED = -1, /* the file opened is not the one the walk saw */
	FAIL_NOTREG = -2,  /* not a regular file, directory or block device */
	FAIL_CYCLE = -3,   /* a directory that contains itself */
	/* EPERM from cachestat or mincore, not from open: the kernel's
	 * owner rule (cachestat: Linux 6.14, 6.12.12, 6.6 stable), which has
	 * a remedy. */
	FAIL_REFUSED = -4,
	/* EOPNOTSUPP from cachestat: a hugetlbfs file, whose huge pages are
	 * not page cache the kernel can report on. */
	FAIL_HUGETLB = -5,
	/* FAIL_NOTREG, saying what it is instead */
	FAIL_FIFO = -6,
	FAIL_SOCK = -7,
	FAIL_CHR = -8,
	/* /proc/thread-self/fd cannot be opened: without it a file cannot be
	 * opened safely (src/kernel/safeopen.c) */
	FAIL_NOPROC = -9,
	/* --lock: mlock2 refused (ENOMEM, EPERM) by RLIMIT_MEMLOCK */
	FAIL_MEMLOCK = -10,
	/* --lock: mmap refused (ENOMEM) at vm.max_map_count mappings */
	FAIL_MAPCOUNT = -11,
	/* a regular file of a pseudo file system (procfs, sysfs, tracefs...),
	 * not opened with the capabilities of a setcap install (safeopen.c) */
	FAIL_PSEUDO = -12,
	/* /proc/thread-self/fd is not this thread's in procfs, or what it
	 * opened is not the file: what is mounted at /proc is not trusted */
	FAIL_BADPROC = -13,
};

/* Text and symbolic name ("EACCES") of a failure: an errno value or a
 * FAIL_* code; the name is NULL for the codes that have no errno. */
const char *fail_strerror(int err);
const char *fail_errname(int err);

#endif
