/* SPDX-License-Identifier: MIT */
/* What went wrong with a file: errno values, and the failures that have
 * none of their own, with their texts. */
#include <config.h>

#include "lib/fail.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *fail_strerror(int err)
{
	switch (err) {
	case FAIL_CHANGED:
		return "changed during walk";
	case FAIL_NOTREG:
		return "not a regular file";
	case FAIL_FIFO:
		return "a FIFO, not a regular file";
	case FAIL_SOCK:
		return "a socket, not a regular file";
	case FAIL_CHR:
		return "a character device, not a regular file";
	case FAIL_CYCLE:
		return "directory cycle: not followed";
	case FAIL_NOPROC:
		return "cannot be opened safely without /proc/thread-self/fd (is /proc mounted?)";
	case FAIL_BADPROC:
		return "cannot be opened safely: /proc/thread-self/fd is not this thread's in procfs "
		       "(what is mounted at /proc?)";
	case FAIL_PSEUDO:
		return "a file of a kernel pseudo file system (procfs, sysfs, tracefs...): "
		       "not opened with the capabilities of a setcap install";
	case FAIL_REFUSED:
		return strerror(EPERM);
	case FAIL_HUGETLB:
		return "a hugetlbfs file: the kernel reports no page-cache state for it "
		       "(Operation not supported)";
	case FAIL_MEMLOCK:
		return "not locked: past the locked-memory limit (RLIMIT_MEMLOCK)";
	case FAIL_MAPCOUNT:
		return "not locked: the process has the mappings vm.max_map_count allows";
	default:
		return strerror(err);
	}
}

const char *fail_errname(int err)
{
	if (err == FAIL_REFUSED)
		err = EPERM;
	else if (err == FAIL_HUGETLB || err == FAIL_PSEUDO)
		err = EOPNOTSUPP;
	else if (err == FAIL_CHR)
		err = ENODEV; /* what mmap(2) says of one (util-linux fincore shows it) */
	else if (err == FAIL_MEMLOCK || err == FAIL_MAPCOUNT)
		err = ENOMEM;
	if (err <= 0)
		return NULL;
#ifdef HAVE_STRERRORNAME_NP
	const char *name = strerrorname_np(err);
	if (name)
		return name;
#endif
	static char buf[16];
	snprintf(buf, sizeof buf, "E%d", err);
	return buf;
}
